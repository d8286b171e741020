"""plan.linear_attention: a hybrid family's linear-attention layer state (kv_cache.linear_attention)
as one function, each dimension printed from its checked expression tree."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.expressions import as_python, parse_dimension
from ..spec.model import Family, LinearAttention
from .engine import STR_DTYPE_TO_TORCH_DTYPE
from .sources import SourceMap
from .values import Comment, PyCode


@dataclass(frozen=True)
class StatePlan:
    name: str
    dims: tuple[PyCode, ...]
    conv_layout: bool
    setting: str  # mamba_cache_dtype | mamba_ssm_cache_dtype
    auto: str  # model_dtype or an earlier state's name


@dataclass(frozen=True)
class LinearAttentionPlan:
    family: str
    backend: str
    states: tuple[StatePlan, ...]
    source: Comment
    dtype_names: tuple[tuple[str, str], ...] = tuple(STR_DTYPE_TO_TORCH_DTYPE.items())


def _section(family: Family) -> tuple[str, LinearAttention] | None:
    """The first variant's section: the generated function takes no model type, so the
    family's variants share one (validation keeps it so)."""
    for variant in family.variants:
        if variant.kv_cache is not None and variant.kv_cache.linear_attention is not None:
            return variant.name, variant.kv_cache.linear_attention
    return None


def plan_linear_attention(family: Family, sources: SourceMap) -> LinearAttentionPlan | None:
    found = _section(family)
    if found is None:
        return None
    variant, section = found
    states = tuple(
        StatePlan(
            s.name,
            tuple(PyCode(as_python(parse_dimension(d), "_field", "_divide")) for d in s.shape),
            s.conv_layout,
            s.dtype.setting,
            s.dtype.auto,
        )
        for s in section.states
    )
    return LinearAttentionPlan(
        family.name,
        section.backend,
        states,
        sources.ref(variant, "kv_cache", "linear_attention"),
    )
