"""The building blocks of the spec language's declaration (see ``declaration.py``).

Each spec field is one ``Field``: its name, its type (with range and pattern), whether it is
required, its default, its documentation and its review severity. Types know how to write
themselves as JSON Schema (draft 2020-12); nothing else here decides anything. The blocks are
frozen dataclasses, so the declaration is plain data that a test, the docs generator and the
review can walk.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .engine_facts import CAPABILITY_FAMILIES, capability_number

__all__ = ["CAPABILITY_FAMILIES", "capability_number"]  # re-exported for the declaration

# Every pattern is anchored at both ends. `$` alone also matches before a final newline, so
# `(?![\s\S])` refuses anything after it: 'deepseek_v4\n' is not an identifier.
_END = r"$(?![\s\S])"


def anchored(body: str) -> str:
    """A pattern matching ``body`` and nothing around it."""
    return f"^{body}{_END}"


IDENTIFIER = anchored(r"[A-Za-z_][A-Za-z0-9_]*")
SNAKE_CASE = anchored(r"[a-z][a-z0-9_]*")
UPPER_CASE = anchored(r"[A-Z][A-Z0-9_]*")
DOTTED_NAME = anchored(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# A value of these becomes a Python name (each dotted part, for a path): no keyword may stand.
NAME_PATTERNS = frozenset({IDENTIFIER, SNAKE_CASE, UPPER_CASE, DOTTED_NAME})


class Severity(enum.Enum):
    """How much a change of a field can hurt the people who rely on it (``dsv41gen diff``)."""

    BREAKING = "BREAKING"  # users or checkpoints rely on what disappears or is renamed
    BEHAVIOUR = "BEHAVIOUR"  # generated behaviour changes
    COSMETIC = "COSMETIC"  # nothing generated behaves differently


class Change(enum.Enum):
    """What happened to a field between two resolved specs."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


ANY_CHANGE = (Change.ADDED, Change.REMOVED, Change.CHANGED)


@dataclass(frozen=True)
class Review:
    """The severity of one kind of change to a field.

    ``below``: the severity also holds for every field under this one (unless a field further
    down declares its own). ``when_shrinks``: it holds only when a list lost an element (a
    compiled instantiation the host dispatch used to accept); a list that only grew falls
    through to the enclosing fields' severities.
    """

    changes: tuple[Change, ...]
    severity: Severity
    what: str
    below: bool = False
    when_shrinks: bool = False


def breaking(what: str, *changes: Change, below: bool = False, when_shrinks: bool = False):
    return Review(changes, Severity.BREAKING, what, below, when_shrinks)


def behaviour(what: str, *changes: Change, below: bool = False):
    return Review(changes or ANY_CHANGE, Severity.BEHAVIOUR, what, below)


def cosmetic(what: str, *changes: Change, below: bool = False):
    return Review(changes or ANY_CHANGE, Severity.COSMETIC, what, below)


class _Missing(enum.Enum):
    MISSING = "missing"


MISSING = _Missing.MISSING


@dataclass(frozen=True, kw_only=True)
class Type:
    """A field's type. ``doc`` describes the value itself (a map's entries, a list's items);
    ``extra`` carries schema keywords the type has no parameter for."""

    doc: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def own_schema(self) -> dict[str, Any]:
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        out = self.own_schema()
        out.update(self.extra)
        if self.doc is not None:
            out["description"] = self.doc
        return out

    def children(self) -> Mapping[str, tuple[Type, tuple[Review, ...]]]:
        """What one path segment down holds, with its review severities (a map's entries are
        under ``*``)."""
        return {}


def _bounds(out: dict, **keywords: object) -> dict:
    out.update({key: value for key, value in keywords.items() if value is not None})
    return out


@dataclass(frozen=True, kw_only=True)
class Str(Type):
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None

    def own_schema(self):
        return _bounds(
            {"type": "string"},
            pattern=self.pattern,
            minLength=self.min_length,
            maxLength=self.max_length,
        )


@dataclass(frozen=True, kw_only=True)
class Int(Type):
    """An integer; ``range`` says in words what the bounds protect (the errors quote it)."""

    minimum: int | None = None
    maximum: int | None = None
    range: str | None = None

    def own_schema(self):
        return _bounds(
            {"type": "integer"},
            minimum=self.minimum,
            maximum=self.maximum,
            **{"x-range": self.range},
        )


@dataclass(frozen=True, kw_only=True)
class Num(Type):
    exclusive_minimum: float | None = None
    maximum: float | None = None
    range: str | None = None

    def own_schema(self):
        return _bounds(
            {"type": "number"},
            exclusiveMinimum=self.exclusive_minimum,
            maximum=self.maximum,
            **{"x-range": self.range},
        )


@dataclass(frozen=True, kw_only=True)
class Bool(Type):
    def own_schema(self):
        return {"type": "boolean"}


@dataclass(frozen=True, kw_only=True)
class Enum(Type):
    values: tuple[Any, ...]

    def own_schema(self):
        return {"enum": list(self.values)}


@dataclass(frozen=True, kw_only=True)
class Const(Type):
    value: Any

    def own_schema(self):
        return {"const": self.value}


@dataclass(frozen=True, kw_only=True)
class List(Type):
    """A list. Review compares a list as one value, so its items have no paths of their own."""

    items: Type | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique: bool = False

    def own_schema(self):
        out: dict[str, Any] = {"type": "array"}
        if self.items is not None:
            out["items"] = self.items.schema()
        _bounds(out, minItems=self.min_items, maxItems=self.max_items)
        if self.unique:
            out["uniqueItems"] = True
        return out


@dataclass(frozen=True, kw_only=True)
class Map(Type):
    """An object whose keys the spec names (architectures, backends, weight sets): every key
    matches ``keys`` and maps to a ``values``; ``entry`` says what adding, removing or changing
    one entry means for review."""

    keys: Str | Enum | None = None
    values: Type
    min_properties: int | None = None
    entry: tuple[Review, ...] = ()

    def own_schema(self):
        out: dict[str, Any] = {"type": "object"}
        if self.keys is not None:
            names = self.keys.own_schema()
            names.pop("type", None)  # a key is a string already
            out["propertyNames"] = names
        out["additionalProperties"] = self.values.schema()
        return _bounds(out, minProperties=self.min_properties)

    def children(self):
        return {"*": (self.values, self.entry)}


@dataclass(frozen=True)
class Field:
    """One field of an object, declared once."""

    name: str
    type: Type
    doc: str | None = None
    required: bool = False
    default: Any = MISSING
    review: tuple[Review, ...] = ()

    def schema(self) -> dict[str, Any]:
        out = self.type.schema()
        if self.doc is not None:
            out["description"] = self.doc
        if self.default is not MISSING:
            out["default"] = self.default  # an annotation: editors show it, nothing checks it
        return out


@dataclass(frozen=True, kw_only=True)
class Obj(Type):
    """An object with a fixed set of fields; any other key is an error."""

    fields: tuple[Field, ...]

    def own_schema(self):
        out: dict[str, Any] = {
            "type": "object",
            "properties": {f.name: f.schema() for f in self.fields},
            "additionalProperties": False,
        }
        required = [f.name for f in self.fields if f.required]
        if required:
            out["required"] = required
        return out

    def children(self):
        return {f.name: (f.type, f.review) for f in self.fields}

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True, kw_only=True)
class Ref(Type):
    """A shared definition of the schema's ``$defs`` (one type that several fields take)."""

    name: str
    target: Type

    def own_schema(self):
        return {"$ref": f"#/$defs/{self.name}"}

    def children(self):
        return self.target.children()


@dataclass(frozen=True, kw_only=True)
class OneOf(Type):
    """Exactly one of several types (``fp32_tiny`` or a number)."""

    options: tuple[Type, ...]

    def own_schema(self):
        return {"oneOf": [option.schema() for option in self.options]}


@dataclass(frozen=True, kw_only=True)
class Raw(Type):
    """A schema the blocks above do not express (a reference config value of any JSON type)."""

    schema_: Mapping[str, Any]

    def own_schema(self):
        return dict(self.schema_)
