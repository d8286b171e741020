"""The KV state-bucket predicate and the per-variant compress-ratio check."""

from __future__ import annotations

import string
from dataclasses import dataclass

from ..codegen_values import Comment, Identifier, PyCode, PyLiteral, PyMessage
from ..model import Family, StateLike
from .binding import kv_types
from .sources import SourceMap


@dataclass(frozen=True)
class CompressRatioCheck:
    model_type: str
    ratios: tuple[int, ...]
    message: PyMessage  # validation allowed no fields but {layer_id}, {compress_ratio}
    source: Comment

    @property
    def model_type_py(self) -> PyLiteral:
        return PyLiteral(self.model_type)


@dataclass(frozen=True)
class KvPlan:
    family: str
    always: tuple[str, ...]  # spec types that are always state-like
    when_unsplit: tuple[str, ...]  # state-like only when no repeat pattern splits the bucket
    source: Comment
    compress_ratio_checks: tuple[CompressRatioCheck, ...]
    all_types: tuple[str, ...]

    @property
    def family_ident(self) -> Identifier:
        return Identifier(self.family)

    @property
    def always_idents(self) -> tuple[Identifier, ...]:
        return tuple(Identifier(n) for n in self.always)

    @property
    def when_unsplit_idents(self) -> tuple[Identifier, ...]:
        return tuple(Identifier(n) for n in self.when_unsplit)

    @property
    def imports(self) -> tuple[Identifier, ...]:
        return self.always_idents + self.when_unsplit_idents


MESSAGE_FIELDS = frozenset({"layer_id", "compress_ratio"})


def message_fields(message: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(message) if name is not None}


def compress_ratio_message(message: str) -> PyMessage:
    """The spec's message template as a message whose only fields are the check's own values
    (validation rejected any other field, format spec or conversion)."""
    parts: list[str | PyCode] = []
    for literal, name, _, _ in string.Formatter().parse(" ".join(message.split())):
        parts.append(literal)
        if name is not None:
            assert name in MESSAGE_FIELDS, name
            parts.append(PyCode(name))
    return PyMessage(tuple(parts))


def plan_kv_cache(family: Family, sources: SourceMap) -> KvPlan | None:
    types = kv_types(family)
    if not types:
        return None
    owner = next(
        v for v in reversed(family.variants) if v.kv_cache is not None and v.kv_cache.spec_types
    )
    checks = tuple(
        CompressRatioCheck(
            v.model_type,
            v.kv_cache.compress_ratios,
            compress_ratio_message(v.kv_cache.unsupported_compress_ratio_message),
            sources.ref(v.name, "kv_cache", "unsupported_compress_ratio_message"),
        )
        for v in family.variants
        if v.kv_cache is not None and v.kv_cache.unsupported_compress_ratio_message
    )
    return KvPlan(
        family=family.name,
        always=tuple(t.name for t in types if t.state_like is StateLike.ALWAYS),
        when_unsplit=tuple(t.name for t in types if t.state_like is StateLike.WHEN_UNSPLIT),
        source=sources.ref(owner.name, "kv_cache", "spec_types"),
        compress_ratio_checks=checks,
        all_types=tuple(t.name for t in types),
    )
