"""Checkpoint weight-name validation: which speculative methods a checkpoint can serve."""

from __future__ import annotations

from dataclasses import dataclass

from ..codegen_values import Comment, Identifier, LiteralView, PyLiteral, literal_rows
from ..model import Family
from ..validate import MAX_STAGES  # the generated reader bounds checkpoints by the same count
from .sources import SourceMap


@dataclass(frozen=True)
class WeightSetPlan:
    model_type: str
    name: str
    stage_prefix: str
    stage_count_field: str
    default_stage_count: int | None  # the spec's reference hf_config value
    required: tuple[str, ...]
    optional: tuple[str, ...]
    source: Comment

    @property
    def py(self) -> LiteralView:
        return LiteralView(self)


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
    def method_sets_py(self) -> tuple[tuple[PyLiteral, ...], ...]:
        return literal_rows(self.method_sets)


def plan_checkpoint(family: Family, sources: SourceMap) -> CheckpointPlan:
    sets = []
    for variant in family.variants:
        for ws in variant.weight_sets:
            count = variant.hf_value(ws.stage_count_field)
            sets.append(
                WeightSetPlan(
                    variant.model_type,
                    ws.name,
                    ws.stage_prefix,
                    ws.stage_count_field,
                    count if isinstance(count, int) else None,
                    ws.required,
                    ws.optional,
                    sources.ref(variant.name, "checkpoint", "weight_sets", ws.name),
                )
            )
    methods = tuple(
        (v.model_type, m.method.value, m.weights.name) for v in family.variants for m in v.methods
    )
    return CheckpointPlan(family.name, tuple(sets), methods)
