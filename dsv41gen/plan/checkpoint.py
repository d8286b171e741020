"""Checkpoint weight-name validation: which speculative methods a checkpoint can serve, by the
engine loader's own rules (renames, model-level weights loaded once, derived parameters, names
it fails on, its stage-count fallback chain)."""

from __future__ import annotations

from dataclasses import dataclass

from ..codegen_values import Comment, Identifier, LiteralView, PyLiteral, literal_rows
from ..model import Family, PastCount
from ..validate import (  # the generated reader bounds checkpoints by the same counts
    MAX_EXPERTS,
    MAX_STAGES,
)
from .sources import SourceMap


@dataclass(frozen=True)
class WeightSetPlan:
    model_type: str
    name: str
    stage_prefix: str
    stage_count_sources: tuple[str, ...]
    stage_count_default: int | None
    past_count_rejected: bool
    maps_to: tuple[str, str | None, str]  # (head, offset field, tail)
    offset_default: int  # the spec's hf_config value of the offset field (0 without one)
    required: tuple[str, ...]
    optional: tuple[str, ...]
    shared_maps_to: str
    shared_required: tuple[str, ...]
    shared_optional: tuple[str, ...]
    derived: tuple[tuple[str, str], ...]
    renames: tuple[tuple[str, str], ...]
    rejected: tuple[str, ...]
    checked_unquantized_only: bool  # completeness.checked: unquantized
    untracked: tuple[str, ...]  # completeness.untracked
    every_stage_loads: bool  # completeness.every_stage_loads
    block_maps_to: str
    block_required: tuple[str, ...]
    block_optional: tuple[str, ...]
    block_stacked: tuple[tuple[str, str, int | str], ...]  # (checkpoint name, parameter, shard)
    block_renames: tuple[tuple[str, str], ...]
    experts_prefix: str  # "" without routed experts
    experts_count_sources: tuple[str, ...]
    experts_count_default: int  # the spec's hf_config value (0 without routed experts)
    experts_past_count_rejected: bool
    experts_weights: tuple[tuple[str, str, int | str], ...]  # (per-expert name, parameter, shard)
    source: Comment

    @property
    def py(self) -> LiteralView:
        return LiteralView(self)

    @property
    def words(self) -> LiteralView:
        """The name lists as one space-separated literal each (``_words("a b")`` in the
        generated table): one line per list, not one per name."""
        return LiteralView(_Words(self))


class _Words:
    def __init__(self, plan: WeightSetPlan):
        self._plan = plan

    def __getattr__(self, name: str) -> str:
        value = getattr(self._plan, name)
        if name in ("derived", "renames", "block_renames"):
            return " ".join(f"{a}={b}" for a, b in value)
        return " ".join(value)


@dataclass(frozen=True)
class CheckpointPlan:
    family: str
    weight_sets: tuple[WeightSetPlan, ...]
    method_sets: tuple[tuple[str, str, str], ...]  # (model_type, method, weight set name)

    @property
    def family_ident(self) -> Identifier:
        return Identifier(self.family)

    @property
    def max_stages_py(self) -> PyLiteral:
        return PyLiteral(MAX_STAGES)

    @property
    def max_experts_py(self) -> PyLiteral:
        return PyLiteral(MAX_EXPERTS)

    @property
    def method_sets_py(self) -> tuple[tuple[PyLiteral, ...], ...]:
        return literal_rows(self.method_sets)


def plan_checkpoint(family: Family, sources: SourceMap) -> CheckpointPlan:
    sets = []
    for variant in family.variants:
        for ws in variant.weight_sets:
            field = ws.maps_to.offset_field
            offset = variant.hf_value(field) if field is not None else 0
            assert isinstance(offset, int)  # validation: the offset field is an hf_config count
            shared = ws.shared
            block = ws.block
            experts = block.experts if block else None
            expert_default = 0
            if experts is not None:
                expert_default = next(
                    v
                    for f in experts.count_sources
                    if isinstance(v := variant.hf_value(f), int) and v > 0
                )  # validation: some source has a count in hf_config
            sets.append(
                WeightSetPlan(
                    model_type=variant.model_type,
                    name=ws.name,
                    stage_prefix=ws.stage_prefix,
                    stage_count_sources=ws.stage_count.sources,
                    stage_count_default=ws.stage_count.default,
                    past_count_rejected=ws.past_count_rejected,
                    maps_to=(ws.maps_to.head, field, ws.maps_to.tail),
                    offset_default=offset,
                    required=ws.required,
                    optional=ws.optional,
                    shared_maps_to=shared.maps_to if shared else "",
                    shared_required=shared.required if shared else (),
                    shared_optional=shared.optional if shared else (),
                    derived=ws.derived,
                    renames=ws.renames,
                    rejected=ws.rejected,
                    checked_unquantized_only=ws.completeness.checked_unquantized_only,
                    untracked=ws.completeness.untracked,
                    every_stage_loads=ws.completeness.every_stage_loads,
                    block_maps_to=block.maps_to if block else "",
                    block_required=block.required if block else (),
                    block_optional=block.optional if block else (),
                    block_stacked=tuple((k, t.into, t.shard) for k, t in block.stacked)
                    if block
                    else (),
                    block_renames=block.renames if block else (),
                    experts_prefix=experts.prefix if experts else "",
                    experts_count_sources=experts.count_sources if experts else (),
                    experts_count_default=expert_default,
                    experts_past_count_rejected=experts is not None
                    and experts.past_count is PastCount.REJECTED,
                    experts_weights=tuple((k, t.into, t.shard) for k, t in experts.weights)
                    if experts
                    else (),
                    source=sources.ref(variant.name, "checkpoint", "weight_sets", ws.name),
                )
            )
    methods = tuple(
        (v.model_type, m.method.value, m.weights.name) for v in family.variants for m in v.methods
    )
    return CheckpointPlan(family.name, tuple(sets), methods)
