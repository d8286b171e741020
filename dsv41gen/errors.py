"""Diagnostics: every problem in a spec becomes one located, fix-it message.

Stages append to a Diagnostics collector instead of raising, so one run reports every error.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NoReturn


@dataclass(frozen=True, order=True)
class Location:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    location: Location
    path: str  # dotted field path, e.g. "speculative.methods.mtpp"
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return printable(f"{self.location}: {where}{self.message}")


def _escape_unprintable(ch: str) -> str:
    return repr(ch)[1:-1] if len(repr(ch)) > 3 else f"\\x{ord(ch):02x}"


def terminal_text(text: object) -> str:
    """Text for a terminal: each line made printable (see ``one_line``), line breaks kept as
    ``\\n`` only and tabs kept; a CR, form feed, ESC or U+2028 inside a line is shown escaped."""
    lines = str(text).split("\n")
    out = []
    for line in lines:
        if line.isprintable():
            out.append(line)
        else:
            out.append(
                "".join(c if c.isprintable() or c == "\t" else _escape_unprintable(c) for c in line)
            )
    return "\n".join(out)


def printable(text: str) -> str:
    """One line of plain text: a key such as '\\r' or a value with a newline (both come straight
    from the spec) is shown escaped, so it can neither split a message nor drive the terminal."""
    return terminal_text(text).replace("\n", "\\n").replace("\t", "\\t")


@dataclass
class Diagnostics:
    items: list[Diagnostic] = field(default_factory=list)
    # The same items, for constant-time "reported already?" (a spec may hold thousands of errors).
    _seen: set[Diagnostic] = field(default_factory=set, repr=False)

    def add(self, location: Location, path: str, message: str) -> None:
        diagnostic = Diagnostic(location, path, message)
        if diagnostic not in self:
            self.items.append(diagnostic)
            self._seen.add(diagnostic)

    def __contains__(self, diagnostic: Diagnostic) -> bool:
        if len(self._seen) != len(self.items):  # items was appended to directly
            self._seen = set(self.items)
        return diagnostic in self._seen

    def __bool__(self) -> bool:
        return bool(self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items)


class SpecError(Exception):
    """Raised at a stage boundary when the collected diagnostics make going on pointless."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """'; did you mean 'x'?' when a close candidate exists, else ''."""
    matches = difflib.get_close_matches(
        str(word), sorted(str(c) for c in candidates), n=1, cutoff=0.6
    )
    return f"; did you mean {matches[0]!r}?" if matches else ""


def dotted(path: Iterable[object]) -> str:
    """speculative.methods.mtp; a key that would make the path ambiguous or invisible (empty,
    with a '.', whitespace or a control character) is quoted: renames.'markov_head.embed'."""
    return ".".join(_part(p) for p in path)


def _part(part: object) -> str:
    text = str(part)
    if isinstance(part, str) and (
        not text or "." in text or not text.isprintable() or any(c.isspace() for c in text)
    ):
        return repr(text)
    return text


class UsageError(Exception):
    """Bad command-line input (exit code 2), as opposed to a bad spec (exit code 1)."""


def assert_never(value: NoReturn) -> NoReturn:
    """An enum member a planner does not handle (typing.assert_never, which 3.10 lacks): a bug
    in dsv41gen, since validation admits only what the emitters implement."""
    raise AssertionError(f"unhandled value {value!r}")
