"""The typed read of a spec object, derived from its declaration.

``read(declared, raw)`` turns the raw (schema-valid, resolved) mapping of one declared object
into a ``Record``: every declared field, absent ones as their declared default (or None), lists
as tuples, maps and objects as read-only records. It follows the declaration's types only, so on
anything the schema admitted it cannot fail; a field the model has no hand-written class for yet
is read here, and a planner reads it as ``backend.supported_head_sizes``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from .language import MISSING, List, Map, Obj, OneOf, Ref, Type


class Record(Mapping[str, Any]):
    """A read-only mapping of field name -> typed value, also readable as attributes."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]):
        object.__setattr__(self, "_values", MappingProxyType(dict(values)))

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Record is read-only")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and dict(self._values) == dict(other._values)

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, _hashable(v)) for k, v in self._values.items())))

    def __repr__(self) -> str:
        return f"Record({dict(self._values)!r})"


def _hashable(value: object) -> object:
    if isinstance(value, Record):
        return hash(value)
    if isinstance(value, tuple):
        return tuple(_hashable(v) for v in value)
    return value


def value(declared: Type, raw: object) -> Any:
    """One value of type ``declared``, typed."""
    if isinstance(declared, Ref):
        return value(declared.target, raw)
    if isinstance(declared, Obj):
        assert isinstance(raw, Mapping), raw
        return read(declared, raw)
    if isinstance(declared, Map):
        assert isinstance(raw, Mapping), raw
        return Record({key: value(declared.values, item) for key, item in raw.items()})
    if isinstance(declared, List):
        assert isinstance(raw, list | tuple), raw
        items = declared.items
        return tuple(item if items is None else value(items, item) for item in raw)
    if isinstance(declared, OneOf):
        return raw  # the options are scalars (a name or a number): the value is either
    return raw  # a scalar: the schema checked its type and range


def read(declared: Obj, raw: Mapping[str, object]) -> Record:
    """Every field of ``declared``: its typed value, or its default (None when it has none)."""
    out: dict[str, Any] = {}
    for field in declared.fields:
        if field.name in raw and raw[field.name] is not None:
            out[field.name] = value(field.type, raw[field.name])
        elif field.default is not MISSING:
            out[field.name] = field.default
        else:
            out[field.name] = None
    return Record(out)


def declared_at(path: str) -> Obj:
    """The declared object at a dotted path, ``*`` for a map's entries
    (``attention_backends.*``: one backend)."""
    from .declaration import SPEC

    node: Type = SPEC
    for segment in path.split("."):
        node = node.children()[segment][0]
    while isinstance(node, Ref):
        node = node.target
    assert isinstance(node, Obj), path
    return node
