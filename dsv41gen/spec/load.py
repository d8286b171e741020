"""Load stage: YAML text -> plain values plus the source position of every key and value.

Safe loading only: the YAML is composed into nodes by PyYAML's safe composer and converted here,
so no tag can construct a Python object. On top of PyYAML this rejects what it lets through:
duplicate keys (PyYAML keeps the last one silently), alias bombs (a few lines that expand to
millions of nodes), unknown tags, and text a screen shows differently than YAML reads it
(hidden line breaks, bidi controls in comments). The one custom tag is ``!delete``, which a child spec uses
to remove something its parent has.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import Diagnostics, Location, dotted

try:  # libyaml's composer is several times faster; the pure-Python one behaves the same
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

# Bound on the number of nodes a document may expand to once aliases are followed. The real
# specs have a few hundred; a "billion laughs" document needs millions.
MAX_EXPANDED_NODES = 20_000
MAX_DEPTH = 32
MAX_FILE_BYTES = 1 << 20
# Longest number literal converted: far above any field's range, far below int()'s 4,300-digit limit.
MAX_NUMBER_CHARS = 100

DELETE_TAG = "!delete"
_YAML_TAG_PREFIX = "tag:yaml.org,2002:"
_PLAIN_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}


class Delete:
    """The value of a ``!delete`` node: remove this key from what the parent spec has."""

    _instance: Delete | None = None

    def __new__(cls) -> Delete:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "!delete"


DELETE = Delete()

Path_ = tuple[object, ...]


@dataclass(frozen=True)
class LoadedDocument:
    """One spec file: its values and where each one is written."""

    file: str  # as shown in messages (relative to the working directory when possible)
    path: Path  # resolved filesystem path
    text: str
    data: dict
    positions: dict[Path_, Location]  # value positions, keyed by field path
    key_positions: dict[Path_, Location]  # positions of mapping keys, keyed by field path

    def where(self, path: Path_) -> Location:
        """The position of a field, or of its nearest written ancestor."""
        path = tuple(path)
        while path:
            if path in self.key_positions:
                return self.key_positions[path]
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), Location(self.file, 1, 1))


def display_name(path: Path) -> str:
    """Relative to the working directory when the file is below it; keeps messages short."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative.replace(os.sep, "/")


class _Converter:
    def __init__(self, file: str, diagnostics: Diagnostics):
        self.file = file
        self.diagnostics = diagnostics
        self.positions: dict[Path_, Location] = {}
        self.key_positions: dict[Path_, Location] = {}
        self.expanded = 0
        self.exhausted = False
        # Problems that leave a placeholder (None) where a value was: validating what is left
        # would only add follow-on errors. A duplicate key leaves no placeholder (the first
        # value is kept), so the rest of the spec is still validated and reported with it.
        self.placeholders = 0
        self.constructor = yaml.constructor.SafeConstructor()

    def fail(self, location: Location, path: str, message: str) -> None:
        """Report a problem that leaves no usable value behind."""
        self.placeholders += 1
        self.diagnostics.add(location, path, message)

    def location(self, node: yaml.Node) -> Location:
        return Location(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def convert(self, node: yaml.Node, path: Path_, depth: int = 0) -> object:
        self.expanded += 1
        if self.expanded > MAX_EXPANDED_NODES:
            if not self.exhausted:
                self.exhausted = True
                # Reported at the top-level key whose value blew up: the alias that did it
                # has no position of its own once composed.
                self.fail(
                    self.key_positions.get(path[:1], self.location(node)),
                    dotted(path[:1]),
                    f"the document expands to more than {MAX_EXPANDED_NODES} nodes once YAML "
                    "aliases are followed (an alias bomb?); write the values out or use fewer "
                    "aliases",
                )
            return None
        if depth > MAX_DEPTH:
            self.fail(self.location(node), dotted(path), f"nesting deeper than {MAX_DEPTH} levels")
            return None
        self.positions[path] = self.location(node)
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            # A tag on a collection would otherwise be ignored: `x: !!python/object/apply:os.system
            # [cmd]` must not load as a plain list, nor `x: !delete {a: 1}` as a mapping.
            plain = (
                "tag:yaml.org,2002:map"
                if isinstance(node, yaml.MappingNode)
                else "tag:yaml.org,2002:seq"
            )
            if node.tag == DELETE_TAG:
                self.fail(
                    self.location(node),
                    dotted(path),
                    "`!delete` takes no value: write `key: !delete`",
                )
                return DELETE
            if node.tag != plain:
                self.fail(self.location(node), dotted(path), _tag_message(node.tag))
                return None
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        return self.scalar(node, path)

    def mapping(self, node: yaml.MappingNode, path: Path_, depth: int) -> dict:
        result: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.fail(
                    self.location(key_node),
                    dotted(path),
                    "YAML merge keys ('<<') are not supported; use `extends` to share values",
                )
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.fail(
                    self.location(key_node), dotted(path), "mapping keys must be plain scalars"
                )
                continue
            failed = self.placeholders
            key = self.scalar(key_node, path, key=True)
            if self.placeholders != failed:
                continue  # reported (a bad tag, an octal key): no second message for it
            if isinstance(key, (int, bool)) and not isinstance(key, bool):
                key = str(key)  # block_size_by_compress_ratio: {4: 4}; JSON object keys are strings
            if not isinstance(key, str):
                what = {bool: "the boolean", type(None): "null", float: "the number"}.get(
                    type(key), "the value"
                )
                self.fail(
                    self.location(key_node),
                    dotted(path),
                    f"YAML reads the key {key_node.value!r} as {what}"
                    + (f" {key!r}" if key is not None else "")
                    + f", and a mapping key must be a string; quote it: '{key_node.value}':",
                )
                continue
            child = path + (key,)
            if key in result:
                first = self.key_positions[child]
                self.diagnostics.add(
                    self.location(key_node),
                    dotted(child),
                    f"duplicate key {key!r} (first defined at line {first.line}); YAML would keep "
                    "only the last one: remove or rename one of them",
                )
                continue
            self.key_positions[child] = self.location(key_node)
            result[key] = self.convert(value_node, child, depth + 1)
        return result

    def scalar(self, node: yaml.Node, path: Path_, key: bool = False) -> object:
        if node.tag == DELETE_TAG:
            if node.value not in ("", None):
                self.fail(
                    self.location(node),
                    dotted(path),
                    "`!delete` takes no value: write `key: !delete`",
                )
            return DELETE
        if node.tag not in _PLAIN_TAGS:
            self.fail(self.location(node), dotted(path), _tag_message(node.tag))
            return None
        if node.tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_NUMBER_CHARS:
            # int() refuses more than 4,300 digits, and no field has a use for more than a few
            self.fail(
                self.location(node),
                dotted(path),
                f"integer literal of {len(node.value)} characters; no spec field takes a number "
                "that large (write the value the field's range allows)",
            )
            return None
        value = self.constructor.construct_object(node)
        surprise = _yaml11_only(node, value, key=key)
        if surprise:
            self.fail(self.location(node), dotted(path), surprise)
            return None
        return value


# The booleans YAML 1.2's core schema has; YAML 1.1 (PyYAML) also reads yes/no/on/off.
_YAML12_BOOLEANS = {"true", "True", "TRUE", "false", "False", "FALSE"}


def _yaml11_only(node: yaml.Node, value: object, *, key: bool = False) -> str | None:
    """A plain scalar that YAML 1.1 (PyYAML) reads as another value than YAML 1.2 does, which
    is what an editor, a highlighter, a linter or a reviewer following YAML 1.2 shows:

    - `0400` is the octal 256 (1.2: the decimal 400), `7:28` the base-60 448 (1.2: a string);
    - `0b101` is the binary 5, `1_024` the number 1024 (1.2: strings);
    - `on`, `off`, `yes`, `no` are booleans (1.2: strings).

    Either would silently become a different value of a field, or key: an error that says
    what YAML read and how to write it. A bare boolean key is left to the mapping's own
    message (a key must be a string)."""
    literal = node.value.lstrip("+-")
    if node.tag == "tag:yaml.org,2002:str" and not node.style:  # plain: None, or "" (libyaml)
        return _yaml12_number(node.value)
    if node.tag == "tag:yaml.org,2002:bool":
        if key or node.value in _YAML12_BOOLEANS:
            return None
        return (
            f"YAML 1.1 reads {node.value!r} as the boolean {value!r}, where YAML 1.2 reads the "
            f"string {node.value!r}; write {str(value).lower()} for a boolean, or quote it if "
            f"it is text: '{node.value}'"
        )
    if node.tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        return None
    if ":" in literal:
        kind = "base-60 number"
    elif node.tag == "tag:yaml.org,2002:int" and literal[:2] in ("0b", "0B"):
        return _yaml12_string(node, value, "binary number")
    elif (
        node.tag == "tag:yaml.org,2002:int"
        and len(literal) > 1
        and literal[0] == "0"
        and (literal[1].isdigit() or literal[1] == "_")
    ):
        kind = "octal number"
    elif "_" in literal:
        return _yaml12_string(node, value, "number")
    else:
        return None
    return (
        f"YAML 1.1 reads {node.value!r} as the {kind} {value!r}; write the number in decimal, "
        "or quote it if it is text"
    )


# YAML 1.2's core schema numbers (YAML 1.2.2, 10.3.2), which a plain scalar YAML 1.1 read as a
# string is one of only where 1.1 disagrees: `0o17`, `08`, `1e3`, `1.0e3` (1.1 wants a dot and a
# signed exponent).
_YAML12_INT = re.compile(r"0o[0-7]+|0x[0-9a-fA-F]+")
_YAML12_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")


def _yaml12_number(text: str) -> str | None:
    if _YAML12_INT.fullmatch(text):
        value: object = int(text[2:], 8 if text[1] == "o" else 16)
    elif _YAML12_FLOAT.fullmatch(text):
        # digits alone that 1.1 left a string: a leading 0 and an 8 or 9 (`08`)
        value = int(text) if text.lstrip("+-").isdigit() else float(text)
    else:
        return None
    return (
        f"YAML 1.2 reads {text!r} as the number {value!r}, where YAML 1.1 (which specs are read "
        f"as) reads the string {text!r}; write {value!r} for the number, or quote it if it is "
        f"text: '{text}'"
    )


def _yaml12_string(node: yaml.Node, value: object, kind: str) -> str:
    return (
        f"YAML 1.1 reads {node.value!r} as the {kind} {value!r}, where YAML 1.2 reads the string "
        f"{node.value!r}; write {value!r} for the number, or quote it if it is text: "
        f"'{node.value}'"
    )


def _tag_message(tag: str) -> str:
    if tag == "tag:yaml.org,2002:timestamp":
        return "YAML reads this value as a date/time, which a spec has no use for; quote it if it is a string"
    shown = "!!" + tag[len(_YAML_TAG_PREFIX) :] if tag.startswith(_YAML_TAG_PREFIX) else tag
    return f"unsupported YAML tag {shown!r}; the only tag a spec may use is `!delete`"


# What a reviewer's screen does not show as YAML reads it. YAML breaks lines at NEL, U+2028,
# U+2029 and a lone CR, which editors, terminals and code review draw inside one line: a
# comment holding one hides the YAML after it (`# note<U+2028>  Evil: {module: os}` reads as
# a comment and registers an architecture). Bidi and other format or control characters
# reorder or hide what is shown (Trojan Source, CVE-2021-42574). Inside a string value
# validation reports them at the field; anywhere else (comments, between values) the loader
# does, at the character, before YAML reads the text.
_HIDDEN_BREAKS = {"\x85", "\u2028", "\u2029"}
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}
MAX_HIDDEN_REPORTED = 20
_CONTROL_NAMES = {
    "\x00": "NUL",
    "\x1b": "ESCAPE",
    "\x7f": "DELETE",
    "\x85": "NEXT LINE",
    "\r": "CR",
}


def _hidden_characters(text: str) -> list[tuple[int, str, bool]]:
    """(index, character, breaks a line for YAML) of every character a screen hides, except a
    leading BOM, tabs, line feeds and the CR of a CRLF."""
    # str.isprintable is one C pass; the loop below, one Python step per character, then runs
    # only for the rare text that holds something else (the fuzz campaign loads two specs of
    # 40 KB per case, and this loop was a tenth of a case).
    if text.replace("\t", "").replace("\n", "").isprintable():
        return []
    found = []
    for index, ch in enumerate(text):
        if ch.isprintable() or ch in "\t\n":
            continue
        if ch == "\r":
            if text[index + 1 : index + 2] != "\n":
                found.append((index, ch, True))
            continue
        if ch == "\ufeff" and index == 0:
            continue
        if ch in _HIDDEN_BREAKS:
            found.append((index, ch, True))
        elif unicodedata.category(ch) in _HIDDEN_CATEGORIES:
            found.append((index, ch, False))
    return found


def _unreadable(ch: str) -> bool:
    """A character YAML reads nowhere, not even in a quoted string (NUL, ESC, DEL, C1
    controls): its own error would be located at the file's first line."""
    return unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\t\n\r\x85"


def _scalar_spans(root: yaml.Node) -> list[tuple[int, int]]:
    """[start, end) character spans of the document's scalars (keys and values); each node
    once, however many aliases name it."""
    spans, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            spans.append((node.start_mark.index, node.end_mark.index))
        elif isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(spans)


def _location_at(file: str, text: str, index: int) -> Location:
    """The line:column of text[index], counted as git, grep and review tools count them: lines
    at line feeds only."""
    line = text.count("\n", 0, index) + 1
    return Location(file, line, index - (text.rfind("\n", 0, index) + 1) + 1)


def _report_hidden(
    file: str, text: str, found: list[tuple[int, str, bool]], diagnostics: Diagnostics
) -> None:
    """One located error per hidden character (at most MAX_HIDDEN_REPORTED, then a count)."""
    for index, ch, breaks in found[:MAX_HIDDEN_REPORTED]:
        name = _CONTROL_NAMES.get(ch) or unicodedata.name(ch, "a control character")
        shown = f"U+{ord(ch):04X} ({name})"
        if ch == "\r":
            why = (
                "a carriage return without a line feed: YAML starts a new line there, a "
                "terminal or review tool shows none; use LF or CRLF line endings"
            )
        elif _unreadable(ch):
            why = f"{shown} is a control character, which YAML reads nowhere in a spec; delete it"
        elif breaks:
            why = (
                f"{shown} is a line break to YAML but not to editors and review tools, so what "
                "follows it is read as YAML while it is shown on this line; use a plain newline "
                "or delete it"
            )
        else:
            why = (
                f"{shown}, outside any string value (in a comment?): a control, bidi or "
                "invisible format character makes a screen show something else than YAML "
                "reads; delete it"
            )
        diagnostics.add(_location_at(file, text, index), "", why)
    if len(found) > MAX_HIDDEN_REPORTED:
        diagnostics.add(
            _location_at(file, text, found[MAX_HIDDEN_REPORTED][0]),
            "",
            f"{len(found) - MAX_HIDDEN_REPORTED} more control, bidi or line-separator "
            "characters from here on; delete them",
        )


class SpecReadError(Exception):
    """A spec file that cannot be read safely: not a regular file, too large, or a symlink that
    leaves the directory the spec must stay in."""


def read_spec_bytes(path: Path, directory: Path | None = None) -> bytes:
    """The bytes of one spec, bounded before anything is parsed.

    Only a regular file is read (a FIFO would block forever, /dev/zero never ends), at most
    MAX_FILE_BYTES + 1 bytes of it, and only when it resolves below ``directory`` (by default
    the directory it is named in): a symlink must not carry a spec, or an ``extends`` chain,
    out of its spec directory. Raises SpecReadError (or OSError) with the reason."""
    directory = (directory if directory is not None else path.absolute().parent).resolve()
    target = path.resolve()
    if not target.is_relative_to(directory):
        raise SpecReadError(
            f"resolves (through a symlink) to {target}, outside the spec directory {directory}; "
            "put the spec itself in the spec directory"
        )
    # O_NOFOLLOW: the resolved path has no symlink left; one that appears now is refused.
    data = read_regular_bytes(target, MAX_FILE_BYTES, follow=False)
    if data is None:
        raise SpecReadError(f"spec is larger than {MAX_FILE_BYTES} bytes")
    return data


def read_regular_bytes(path: Path, limit: int, follow: bool = True) -> bytes | None:
    """At most ``limit`` bytes of a regular file; None when it holds more. A FIFO, a device or
    a directory raises SpecReadError before anything is read (O_NONBLOCK: opening a FIFO for
    reading would otherwise wait for a writer)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SpecReadError("is not a regular file (a FIFO, a device or a directory?)")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return None if size > limit else b"".join(chunks)


def load_document(
    path: Path, diagnostics: Diagnostics, directory: Path | None = None
) -> LoadedDocument | None:
    """Parse one spec file. Problems go to ``diagnostics``; None when nothing usable was read.

    ``directory`` is where the file must resolve to (see read_spec_bytes)."""
    file = display_name(path)
    try:
        raw = read_spec_bytes(path, directory)
    except SpecReadError as exc:
        diagnostics.add(Location(file, 1, 1), "", f"cannot read the spec: {exc}")
        return None
    except OSError as exc:
        diagnostics.add(Location(file, 1, 1), "", f"cannot read the spec: {exc.strerror or exc}")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        diagnostics.add(Location(file, 1, 1), "", f"spec is not UTF-8 text (byte {exc.start})")
        return None
    if "\r" in text and "\n" not in text:
        diagnostics.add(
            Location(file, 1, 1),
            "",
            "the file has CR line endings, which terminals and review tools show as one line; "
            "use LF or CRLF line endings",
        )
        return None
    hidden = _hidden_characters(text)
    breaks = [h for h in hidden if h[1] in _HIDDEN_BREAKS or h[1] == "\r" or _unreadable(h[1])]
    if breaks:  # YAML would read another document than the one shown: do not parse it
        _report_hidden(file, text, breaks, diagnostics)
        return None
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        # "did not find expected ',' or ']' (while parsing a flow sequence started at line 46)":
        # the problem first, then where the construct it broke began, which may be far above.
        problem = str(exc.problem or exc.context or "")
        if exc.problem and exc.context:
            started = exc.context_mark
            where = (
                f" started at line {started.line + 1}"
                if started and started.line + 1 != line
                else ""
            )
            problem += f" ({exc.context}{where})"
        diagnostics.add(Location(file, line, column), "", f"invalid YAML: {problem}")
        return None
    except yaml.YAMLError as exc:
        diagnostics.add(Location(file, 1, 1), "", f"invalid YAML: {exc}")
        return None
    if len(nodes) != 1 or nodes[0] is None:
        diagnostics.add(
            Location(file, 1, 1), "", "a spec file holds exactly one YAML document (a mapping)"
        )
        return None
    if hidden:  # those inside a string value are validation's, reported at their field
        spans = _scalar_spans(nodes[0])
        starts = [start for start, _ in spans]
        outside = [
            h
            for h in hidden
            if not (
                (at := bisect.bisect_right(starts, h[0]) - 1) >= 0
                and spans[at][0] <= h[0] < spans[at][1]
            )
        ]
        if outside:
            _report_hidden(file, text, outside, diagnostics)
            return None
    converter = _Converter(file, diagnostics)
    data = converter.convert(nodes[0], ())
    if not isinstance(data, dict):
        diagnostics.add(
            converter.location(nodes[0]), "", "the top level of a spec must be a mapping"
        )
        return None
    if converter.placeholders:
        # A document with load errors (a bad tag, an alias bomb) is not validated: the
        # placeholders left where the bad nodes were would only add confusing follow-on errors
        # ("expected a string, got null") on top of the real one. A duplicate key is not such
        # an error: the caller finds it in ``diagnostics`` and validates the rest of the spec.
        return None
    return LoadedDocument(
        file, path.resolve(), text, data, converter.positions, converter.key_positions
    )
