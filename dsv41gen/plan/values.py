"""Values that know the language they are printed in: the only things a template may print.

A spec is untrusted input that becomes code. So that no spec string can reach generated code
unescaped, the render stage (``render.py``) refuses to print anything in ``{{ ... }}`` that is
not one of the types below: a plain ``str``, ``int`` or any other value fails the render with
an internal error naming the template, the line and the expression. Each type checks or escapes
its text when it is built, in the planner, where the target language is known.

How a template author passes a value (planner side, then template side):

=======================  ===================================================================
what is printed          build it in the planner as
=======================  ===================================================================
a Python name            ``Identifier("DeepseekV41IndexerBackend")`` (ASCII, not a keyword;
                         a bad name raises); ``CppIdentifier`` where it stands bare in C++
a dotted module path     ``DottedPath("vllm.models.deepseek_v4")``
a TOML string            ``TomlString("vllm==0.33.0")`` (pyproject.toml values)
a Python value           ``PyLiteral(("a", 1, None))``: None, bool, int, finite float, str,
                         and tuple / list / dict / frozenset of those, printed by ``repr``
a message with fields    ``PyMessage(("num_speculative_tokens:", PyCode("num"), " ..."))``:
                         an f-string whose literal parts are escaped (braces included), or a
                         plain string literal when it has no field
a C++ value              ``CppInt(8)``, ``CppInt(x, "uint32_t", hex=True)``, ``CppFloat(448.0)``,
                         ``CppBool(True)``, ``CppString("text")`` (escaped string literal)
code the planner wrote   ``PyCode("num % n_predict != 0")`` / ``CppCode("kv.is_cuda()")``;
                         ``PyCode.format("in {}", PyLiteral(...))`` splices typed values in.
                         Only for text written in the planner's own source: never pass spec
                         text to PyCode / CppCode, pass it as a literal or a name
comment / docstring      ``Comment(text)``: one printable line, safe after ``#`` and ``//``;
text                     ``DocText(text)``: the same, escaped for the inside of a ``\"\"\"``
=======================  ===================================================================

Plain data (str, int, tuples) goes through a language filter at the print site instead
(``{{ plan.family | ident }}``, ``{{ e.module | py_str }}``, ``{{ note | comment }}``,
``{{ plan.head_dim | cpp }}``; the list is ``render.LANGUAGE_FILTERS``): each filter builds the
typed value below, so it escapes or checks exactly as the class does. The classes stay for
what a planner composes (messages with fields, planner code) and for the filters themselves.
``{{ items | join(", ") }}`` joins typed values into typed code. A macro's output (already
rendered from typed values) may be printed as ``{{ macro(args) }}``.

The same cleaning as ``Comment`` makes text safe for a terminal: ``terminal_text``.
"""

from __future__ import annotations

import keyword
import math
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import _escape_unprintable
from ..errors import terminal_text as terminal_text  # the same cleaning, for a terminal

_ASCII_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq""".split()
)


class CodegenValueError(ValueError):
    """A value cannot be printed in the language asked for (validation should have said so)."""


class Code:
    """Base of every printable value: ``text`` is exactly what lands in the generated file."""

    __slots__ = ()

    @property
    def text(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text

    def __bool__(self) -> bool:
        return bool(self.text)


def identifier_problem(name: object) -> str | None:
    """Why ``name`` cannot be a Python identifier of generated code, or None."""
    if not isinstance(name, str) or not _ASCII_IDENTIFIER.fullmatch(name):
        return "is not an ASCII identifier ([A-Za-z_][A-Za-z0-9_]*)"
    if keyword.iskeyword(name):
        return "is a Python keyword"
    return None


@dataclass(frozen=True)
class Identifier(Code):
    """A Python name (ASCII, not a keyword); safe in any context, comments and strings too."""

    name: str

    def __post_init__(self) -> None:
        problem = identifier_problem(self.name)
        if problem:
            raise CodegenValueError(f"{self.name!r} {problem}")

    @property
    def text(self) -> str:
        return self.name


@dataclass(frozen=True)
class CppIdentifier(Identifier):
    """A name that stands bare in generated C++: not a C++ keyword either."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.name in CPP_KEYWORDS:
            raise CodegenValueError(f"{self.name!r} is a C++ keyword")


@dataclass(frozen=True)
class DottedPath(Code):
    """A Python module path: identifiers joined by dots."""

    path: str

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path:
            raise CodegenValueError(f"{self.path!r} is not a dotted path")
        for part in self.path.split("."):
            Identifier(part)

    @property
    def text(self) -> str:
        return self.path


def _py_literal(value: object) -> str:
    # The base types' own repr: a subclass (an IntEnum, markupsafe.Markup, ...) may print
    # something that is not a literal at all.
    if value is None or isinstance(value, bool):
        return repr(bool(value)) if value is not None else "None"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CodegenValueError(f"{value!r} has no Python literal")
        text = float.__repr__(value)
        if float(text) != value:  # repr round-trips; this guards the guarantee
            raise CodegenValueError(f"{value!r} does not round-trip through repr")
        return text
    if isinstance(value, str):
        value = str(value)  # a subclass's __str__ aside: the characters themselves
        text = str.__repr__(value)  # escapes quotes, backslashes and every unprintable char
        if text[0] == "'" and '"' not in value:
            # repr chose ' because value has no ' either: the same body in the double quotes
            # the formatter prefers
            return '"' + text[1:-1] + '"'
        return text
    if isinstance(value, tuple):
        items = [_py_literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_py_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{_py_literal(k)}: {_py_literal(v)}" for k, v in value.items()) + "}"
        )
    if isinstance(value, frozenset):
        if not value:
            return "frozenset()"
        # sorted by text: a set's iteration order depends on PYTHONHASHSEED
        return "frozenset({" + ", ".join(sorted(_py_literal(v) for v in value)) + "})"
    raise CodegenValueError(f"{type(value).__name__} value {value!r} has no Python literal")


@dataclass(frozen=True)
class PyLiteral(Code):
    """A Python value printed by ``repr`` (containers element by element)."""

    value: object
    _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_text", _py_literal(self.value))

    def __hash__(self) -> int:
        return hash(self._text)

    def __bool__(self) -> bool:
        return bool(self.value)  # `{% if %}` asks about the value, not its spelling

    @property
    def text(self) -> str:
        return self._text


_PRINTABLE_CODE = re.compile(r"[ -~]*")


def _planner_text(text: str, kind: str) -> str:
    if not isinstance(text, str) or not _PRINTABLE_CODE.fullmatch(text):
        raise CodegenValueError(f"{kind} must be one line of printable ASCII, got {text!r}")
    return text


@dataclass(frozen=True)
class PyCode(Code):
    """Python source the planner wrote itself (never spec text)."""

    source: str

    def __post_init__(self) -> None:
        _planner_text(self.source, "PyCode")

    @property
    def text(self) -> str:
        return self.source

    @classmethod
    def format(cls, template: str, *parts: Code) -> PyCode:
        """``template`` (planner text) with each ``{}`` replaced by a typed value."""
        _planner_text(template, "PyCode template")
        return cls._composed(template.format(*(_typed(p).text for p in parts)))

    @classmethod
    def join(cls, separator: str, parts: Iterable[Code]) -> PyCode:
        _planner_text(separator, "PyCode separator")
        return cls._composed(separator.join(_typed(p).text for p in parts))

    @classmethod
    def _composed(cls, source: str) -> PyCode:
        # The planner's text is ASCII (checked above); a typed part's text is already escaped
        # for Python (a message literal keeps printable non-ASCII such as a display_name's
        # "…" as written), so the whole is checked only to be one printable line.
        if not source.isprintable():
            raise CodegenValueError(f"PyCode must be one printable line, got {source!r}")
        code = cls.__new__(cls)
        object.__setattr__(code, "source", source)
        return code


def _double_quoted(text: str) -> str:
    if text.isprintable():  # the common case, in C: a 900 kB message took seconds char by char
        return text.replace("\\", "\\\\").replace('"', '\\"')
    body = []
    for ch in text:
        if ch == "\\":
            body.append("\\\\")
        elif ch == '"':
            body.append('\\"')
        elif ch.isprintable():
            body.append(ch)
        else:
            body.append(repr(ch)[1:-1])  # \n, \x00, \u202e, ...
    return "".join(body)


@dataclass(frozen=True)
class PyMessage(Code):
    """A message string: literal parts (any text, spec text included) and planner expressions.

    Printed as an f-string whose literal parts are escaped, braces doubled, so no part of the
    text can become a replacement field; with no expression it is a plain string literal.
    """

    parts: tuple[str | PyCode, ...]

    def __post_init__(self) -> None:
        for part in self.parts:
            if isinstance(part, PyCode):
                if any(c in part.source for c in "\"'\\{}#"):
                    raise CodegenValueError(f"f-string field {part.source!r} needs quoting")
            elif not isinstance(part, str):
                raise CodegenValueError(f"message part {part!r} is neither text nor PyCode")

    @property
    def has_fields(self) -> bool:
        return any(isinstance(p, PyCode) for p in self.parts)

    @property
    def plain(self) -> str:
        """The message as text, with each field shown as ``{expression}``."""
        return "".join(p if isinstance(p, str) else "{" + p.source + "}" for p in self.parts)

    @property
    def text(self) -> str:
        if not self.has_fields:
            return '"' + _double_quoted("".join(self.parts)) + '"'  # type: ignore[arg-type]
        body = "".join(
            _double_quoted(p).replace("{", "{{").replace("}", "}}")
            if isinstance(p, str)
            else "{" + p.source + "}"
            for p in self.parts
        )
        return 'f"' + body + '"'


_CPP_INT_RANGES = {
    "int": (-(2**31), 2**31 - 1, ""),
    "int32_t": (-(2**31), 2**31 - 1, ""),
    "uint32_t": (0, 2**32 - 1, "u"),
    "int64_t": (-(2**63), 2**63 - 1, "LL"),
    "uint8_t": (0, 255, "u"),
}


@dataclass(frozen=True)
class CppInt(Code):
    """A C++ integer literal, range-checked for the type it initialises."""

    value: int
    ctype: str = "int"
    hex: bool = False

    def __post_init__(self) -> None:
        if type(self.value) is not int:
            raise CodegenValueError(f"{self.value!r} is not an integer")
        low, high, _ = _CPP_INT_RANGES[self.ctype]
        if not low <= self.value <= high:
            raise CodegenValueError(f"{self.value} is outside the range of {self.ctype}")

    @property
    def text(self) -> str:
        suffix = _CPP_INT_RANGES[self.ctype][2]
        if self.value < 0:
            # -2147483648 is -(2147483648), a long: spell the minimum as an expression
            return (
                f"({self.value + 1}{suffix} - 1)"
                if self.value == _CPP_INT_RANGES[self.ctype][0]
                else f"{self.value}{suffix}"
            )
        return (f"0x{self.value:x}" if self.hex else str(self.value)) + suffix


@dataclass(frozen=True)
class CppFloat(Code):
    """A float (fp32) literal whose value is exactly ``value``."""

    value: float

    def __post_init__(self) -> None:
        if not isinstance(self.value, (int, float)) or isinstance(self.value, bool):
            raise CodegenValueError(f"{self.value!r} is not a number")
        value = float(self.value)
        if not math.isfinite(value):
            raise CodegenValueError(f"{value!r} has no C++ float literal")
        try:
            exact = struct.unpack("<f", struct.pack("<f", value))[0] == value
        except OverflowError:
            exact = False
        if not exact:
            raise CodegenValueError(f"{value!r} is not exactly representable in fp32")

    @property
    def text(self) -> str:
        # repr is the shortest decimal that reads back as this double; the double is an fp32
        # value, so the compiler's one rounding of the decimal to float gives it exactly.
        return f"{float(self.value)!r}f"


@dataclass(frozen=True)
class CppBool(Code):
    value: bool

    @property
    def text(self) -> str:
        return "true" if self.value else "false"


def _cpp_string_body(text: str) -> str:
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '\\"?':  # ? too: no trigraph (??/ is a backslash before C++17)
            out.append("\\" + ch)
        elif 0x20 <= byte <= 0x7E:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")  # octal: at most three digits, never greedy
    return "".join(out)


@dataclass(frozen=True)
class CppString(Code):
    """A C++ string literal holding ``value`` (UTF-8, every non-printable byte escaped)."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str):
            raise CodegenValueError(f"{self.value!r} is not text")

    @property
    def text(self) -> str:
        return '"' + _cpp_string_body(self.value) + '"'


@dataclass(frozen=True)
class CppCode(Code):
    """C++ source the planner wrote itself (never spec text)."""

    source: str

    def __post_init__(self) -> None:
        _planner_text(self.source, "CppCode")

    @property
    def text(self) -> str:
        return self.source

    @classmethod
    def format(cls, template: str, *parts: Code) -> CppCode:
        return cls(template.format(*(_typed(p).text for p in parts)))

    @classmethod
    def join(cls, separator: str, parts: Iterable[Code]) -> CppCode:
        return cls(separator.join(_typed(p).text for p in parts))


# Characters that are not "printable" for generated text and terminals alike: bidi controls
# (Trojan Source, CVE-2021-42574: U+202A-202E, U+2066-2069, U+200E/200F, U+061C are category
# Cf), ESC and every other C0/C1 control, NUL, line and paragraph separators. str.isprintable()
# is False for all of them (categories Cc, Cf, Cs, Co, Cn, Zl, Zp and every space but " ").
def one_line(text: object) -> str:
    """``text`` as one printable line: whitespace runs (newlines, tabs, U+2028, ...) become one
    space, other unprintable characters are shown escaped (``\\u202e``, ``\\x1b``)."""
    flat = " ".join(str(text).split())
    if flat.isprintable():
        return flat
    return "".join(c if c.isprintable() else _escape_unprintable(c) for c in flat)


# What makes a comment on line 1 or 2 a source-encoding declaration (the tokenizer's own
# pattern, PEP 263: case-sensitive, anywhere in the comment, ``fileencoding=`` included).
_ENCODING_DECLARATION = re.compile(r"coding([:=])")


@dataclass(frozen=True)
class Comment(Code):
    """Free text after ``#`` or ``//``: one printable line that cannot end the comment.

    No line break of any kind, no control or bidi character (shown escaped), no ``*/``, no
    ``??`` (a trigraph could spell a backslash), no trailing backslash (a C++ line splice
    would carry the next line into the comment), and no ``coding:`` / ``coding=``: on a
    file's first two lines (license lines, the spec paths of the header) Python takes it as
    the file's encoding (PEP 263), and in UTF-7 the printable ``+AAo-`` is a newline.
    """

    raw: object
    _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = one_line(self.raw).replace("*/", "* /").replace("/*", "/ *")
        while "??" in text:
            text = text.replace("??", "? ?")
        text = _ENCODING_DECLARATION.sub(r"coding \1", text)
        object.__setattr__(self, "_text", text.rstrip("\\ "))

    def __hash__(self) -> int:
        return hash(self._text)

    @property
    def text(self) -> str:
        return self._text

    @classmethod
    def join(cls, separator: str, parts: Iterable[object]) -> Comment:
        return cls(separator.join(p.text if isinstance(p, Code) else str(p) for p in parts))


@dataclass(frozen=True)
class DocText(Code):
    """Free text inside a Python docstring: a ``Comment`` with backslashes and quotes escaped."""

    raw: object
    _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = Comment(self.raw).text
        object.__setattr__(self, "_text", text.replace("\\", "\\\\").replace('"', '\\"'))

    def __hash__(self) -> int:
        return hash(self._text)

    @property
    def text(self) -> str:
        return self._text


@dataclass(frozen=True)
class TomlString(Code):
    """A TOML basic string holding ``value``: JSON's escaping with every non-ASCII character as
    a ``\\uXXXX`` escape is valid TOML, and no character of ``value`` can end the string."""

    value: str

    def __post_init__(self) -> None:
        if not isinstance(self.value, str):
            raise CodegenValueError(f"{self.value!r} is not text")

    @property
    def text(self) -> str:
        import json

        return json.dumps(self.value, ensure_ascii=True)


def _typed(value: object) -> Code:
    if not isinstance(value, Code):
        raise CodegenValueError(f"{type(value).__name__} value {value!r} is not a typed value")
    return value


class LiteralView:
    """A plan object's attributes as Python literals, for a planner that decides that every
    attribute a template reads through it is a Python value: ``{{ ws.py.stage_prefix }}``."""

    __slots__ = ("_of",)

    def __init__(self, of: object):
        self._of = of

    def __getattr__(self, name: str) -> PyLiteral:
        return PyLiteral(getattr(self._of, name))


def literal_rows(rows: Iterable[Iterable[object]]) -> tuple[tuple[PyLiteral, ...], ...]:
    """Table rows (generated test cases) with every cell a Python literal, or the typed value
    the planner made it (an identifier naming a constant, a comment)."""
    return tuple(
        tuple(cell if isinstance(cell, Code) else PyLiteral(cell) for cell in row) for row in rows
    )


class LiteralTable:
    """A plan object whose every attribute is Python data for a generated test: a tuple of
    rows becomes rows of literals (``{% for a, b in tests.cases %}``), anything else one literal."""

    __slots__ = ("_of",)

    def __init__(self, of: object):
        self._of = of

    def __getattr__(self, name: str) -> object:
        value = getattr(self._of, name)
        if isinstance(value, Code):
            return value  # already typed by the planner (a comment)
        if isinstance(value, tuple) and all(isinstance(row, tuple) for row in value):
            return literal_rows(value)
        return PyLiteral(value)
