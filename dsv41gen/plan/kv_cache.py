"""The KV state-bucket predicate and the per-variant compress-ratio check."""

from __future__ import annotations

import string
from dataclasses import dataclass

from ..spec.model import Family, KvSpecType, StateLike, Variant
from .binding import kv_types
from .sources import SourceMap
from .values import Comment, Identifier, PyCode, PyLiteral, PyMessage


@dataclass(frozen=True)
class KvSourceCheck:
    """kv_cache.kv_source_compressor: the compressor a kv-source layer builds refuses the
    ratios outside its own list (after the layer's check)."""

    listed_in: str  # the HF config field listing kv-source layer ids
    below: str  # the HF config field a kv-source layer id is below
    ratios: tuple[int, ...]
    error: Identifier
    message: PyMessage | None
    source: Comment


@dataclass(frozen=True)
class CompressRatioCheck:
    model_type: str
    ratios: tuple[int, ...]
    error: Identifier  # a builtin exception class (the schema's enum)
    message: PyMessage | None  # validation allowed no fields but {layer_id}, {compress_ratio}
    source: Comment
    floor: int | None = None  # kv_cache.compress_ratio_floor: the layer uses max(floor, ratio)
    floor_source: Comment | None = None
    kv_source: KvSourceCheck | None = None  # kv_cache.kv_source_compressor

    @property
    def checked_ratio(self) -> PyCode:
        """The ratio the layer constructor checks: the config's, or max(floor, it)."""
        if self.floor is None:
            return PyCode("compress_ratio")
        return PyCode.format("max({}, compress_ratio)", PyLiteral(self.floor))


@dataclass(frozen=True)
class StateTypes:
    """One variant's state-like KV spec types (its own kv_cache.spec_types)."""

    model_type: str
    always: tuple[str, ...]  # spec types that are always state-like
    when_unsplit: tuple[str, ...]  # state-like only when no repeat pattern splits the bucket
    source: Comment


@dataclass(frozen=True)
class KvPlan:
    family: str
    # Per variant, not "the newest variant's": a sibling's state_like never changes another
    # variant's predicate.
    state_types: tuple[StateTypes, ...]
    compress_ratio_checks: tuple[CompressRatioCheck, ...]
    all_types: tuple[str, ...]

    @property
    def reads_hf_config(self) -> bool:
        """Some variant's check asks the HF config which layers are kv sources: only then does
        validate_compress_ratio read it (and the module define the helper)."""
        return any(c.kv_source is not None for c in self.compress_ratio_checks)

    @property
    def imports(self) -> tuple[str, ...]:
        """The state types some bucket names, in _binding's order: what the module imports."""
        used = {n for t in self.state_types for n in t.always + t.when_unsplit}
        return tuple(n for n in self.all_types if n in used)


MESSAGE_FIELDS = frozenset({"layer_id", "compress_ratio"})


def message_fields(message: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(message) if name is not None}


def compress_ratio_message(message: str, display_name: str) -> PyMessage:
    """The spec's message template as a message whose only fields are the check's own values;
    `{display_name}` becomes the variant's display name, as literal text (validation rejected
    any other field, format spec or conversion)."""
    parts: list[str | PyCode] = []
    for literal, name, _, _ in string.Formatter().parse(" ".join(message.split())):
        parts.append(literal)
        if name == "display_name":
            parts.append(display_name)
        elif name is not None:
            assert name in MESSAGE_FIELDS, name
            parts.append(PyCode(name))
    return PyMessage(tuple(parts))


def _state_like(types: tuple[KvSpecType, ...], state: StateLike) -> tuple[str, ...]:
    """The types marked ``state`` (isinstance covers their subclasses)."""
    return tuple(t.name for t in types if t.state_like is state)


def _compress_ratio_check(v: Variant, sources: SourceMap) -> CompressRatioCheck:
    """The variant's check: its exception (ValueError unless the spec says otherwise) and its
    message, if any (vLLM's `assert` has none)."""
    kv = v.kv_cache
    assert kv is not None
    message = kv.unsupported_compress_ratio_message
    field = "unsupported_compress_ratio_message" if message else "unsupported_compress_ratio_error"
    compressor = kv.kv_source_compressor
    kv_source = (
        KvSourceCheck(
            compressor.layers_listed_in,
            compressor.layers_below,
            compressor.compress_ratios,
            Identifier(compressor.error),
            compress_ratio_message(compressor.message, v.display_name)
            if compressor.message
            else None,
            sources.ref(v.name, "kv_cache", "kv_source_compressor"),
        )
        if compressor is not None
        else None
    )
    return CompressRatioCheck(
        v.model_type,
        kv.compress_ratios,
        Identifier(kv.unsupported_compress_ratio_error or "ValueError"),
        compress_ratio_message(message, v.display_name) if message else None,
        sources.ref(v.name, "kv_cache", field),
        kv.compress_ratio_floor,
        sources.ref(v.name, "kv_cache", "compress_ratio_floor")
        if kv.compress_ratio_floor is not None
        else None,
        kv_source,
    )


def plan_kv_cache(family: Family, sources: SourceMap) -> KvPlan | None:
    types = kv_types(family)
    if not types:
        return None
    checks = tuple(
        _compress_ratio_check(v, sources)
        for v in family.variants
        if v.kv_cache is not None
        and (
            v.kv_cache.unsupported_compress_ratio_message
            or v.kv_cache.unsupported_compress_ratio_error
        )
    )
    state_types = tuple(
        StateTypes(
            v.model_type,
            _state_like(v.kv_cache.spec_types, StateLike.ALWAYS),
            _state_like(v.kv_cache.spec_types, StateLike.WHEN_UNSPLIT),
            sources.ref(v.name, "kv_cache", "spec_types"),
        )
        for v in family.variants
        if v.kv_cache is not None and v.kv_cache.spec_types
    )
    return KvPlan(
        family=family.name,
        state_types=state_types,
        compress_ratio_checks=checks,
        all_types=tuple(t.name for t in types),
    )
