"""Checkpoint weight-name validation: which speculative methods a checkpoint can serve, by the
engine loader's own rules (renames, model-level weights loaded once, derived parameters, names
it fails on, its stage-count fallback chain)."""

from __future__ import annotations

from dataclasses import dataclass

# the generated reader bounds checkpoints by the counts validation holds hf_config to
from ..spec.limits import MAX_EXPERTS, MAX_STAGES
from ..spec.model import Family, NameRule, PastCount, Variant, WeightSet
from .sources import SourceMap
from .values import Comment, Identifier, LiteralView, PyLiteral


@dataclass(frozen=True)
class DecoderBlockPlan:
    """A stage's decoder block: the spec states it once (a YAML anchor) for many weight sets, so
    the generated module states each distinct block once, as a constant the sets name."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    stacked: tuple[tuple[str, str, int | str], ...]  # (checkpoint name, parameter, shard)
    renames: tuple[tuple[str, str], ...]
    experts_prefix: str  # "" without routed experts
    experts_count_sources: tuple[str, ...]
    experts_count_default: int  # the spec's hf_config value (0 without routed experts)
    experts_past_count_rejected: bool
    experts_weights: tuple[tuple[str, str, int | str], ...]  # (per-expert name, parameter, shard)
    parameters: tuple[str, ...] = ()  # names that are one parameter each


# how each DecoderBlock field is printed: through _words / _pairs (one line per list) or as is
_BLOCK_FIELD_WRAPPERS: dict[str, str | None] = {
    "required": "_words",
    "optional": "_words",
    "stacked": None,
    "renames": "_pairs",
    "experts_prefix": None,
    "experts_count_sources": "_words",
    "experts_count_default": None,
    "experts_past_count_rejected": None,
    "experts_weights": None,
    "parameters": "_words",
}


def _block_field(
    block: DecoderBlockPlan, name: str
) -> tuple[Identifier, Identifier | None, PyLiteral]:
    value = getattr(block, name)
    wrapper = _BLOCK_FIELD_WRAPPERS[name]
    if wrapper == "_pairs":
        value = " ".join(f"{a}={b}" for a, b in value)
    elif wrapper == "_words":
        value = " ".join(value)
    return Identifier(name), Identifier(wrapper) if wrapper else None, PyLiteral(value)


@dataclass(frozen=True)
class BlockConstant:
    """One distinct decoder block as a module constant: whole, or as ``replace(base, ...)`` of an
    earlier one when it changes fewer than half of its fields (V4.1 inherits V4's block and
    changes the expert count's sources, as its spec says)."""

    name: Identifier
    source: Comment  # the first weight set that states it
    base: Identifier | None
    fields: tuple[tuple[Identifier, Identifier | None, PyLiteral], ...]  # (field, wrapper, value)


def _block_constants(
    blocks: list[tuple[DecoderBlockPlan, str, str, Comment]],
) -> tuple[dict[DecoderBlockPlan, Identifier], tuple[BlockConstant, ...]]:
    """Each distinct block once, in the order the weight sets first state them, named by the
    variant (and, for a variant's second distinct block, the weight set) that first states it."""
    names: dict[DecoderBlockPlan, Identifier] = {}
    constants = []
    for block, model_type, set_name, source in blocks:
        if block in names:
            continue
        taken = {n.name for n in names.values()}
        stems = [model_type, f"{model_type}_{set_name}"]  # both are identifiers (the schema)
        stems += [f"{model_type}_{set_name}_{n}" for n in range(2, len(taken) + 2)]
        name = next(
            Identifier(f"{stem.upper()}_DECODER_BLOCK")
            for stem in stems
            if f"{stem.upper()}_DECODER_BLOCK" not in taken
        )
        all_fields = tuple(_BLOCK_FIELD_WRAPPERS)
        best: tuple[Identifier, tuple[str, ...]] | None = None
        for earlier, earlier_name in names.items():
            changed = tuple(f for f in all_fields if getattr(block, f) != getattr(earlier, f))
            if best is None or len(changed) < len(best[1]):
                best = (earlier_name, changed)
        base = best[0] if best is not None and 2 * len(best[1]) < len(all_fields) else None
        shown = best[1] if base is not None and best is not None else all_fields
        names[block] = name
        constants.append(
            BlockConstant(name, source, base, tuple(_block_field(block, f) for f in shown))
        )
    return names, tuple(constants)


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
    parameters: tuple[str, ...]  # names that are one parameter each (no tensor under them)
    checked_unquantized_only: bool  # completeness.checked: unquantized
    untracked: tuple[str, ...]  # completeness.untracked
    every_stage_loads: bool  # completeness.every_stage_loads
    block_maps_to: str  # the block's parameters, under the stage's maps_to
    block: DecoderBlockPlan
    block_name: Identifier  # the module constant that states the block
    source: Comment

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
        if name in ("derived", "renames"):
            return " ".join(f"{a}={b}" for a, b in value)
        return " ".join(value)


@dataclass(frozen=True)
class NameRulePlan:
    """One checkpoint-name rule as the generated NameRule prints it."""

    test: bool  # False: the rule acts on every name
    starts_with: tuple[str, ...]
    contains: tuple[str, ...]
    negate: bool
    remove_prefix: tuple[str, ...]
    add_prefix: str
    replace: tuple[str, str, int] | None  # (old, new, str.replace's count: -1 every one)
    then: str


@dataclass(frozen=True)
class DraftNamesPlan:
    architecture: str
    rules: tuple[NameRulePlan, ...]
    keep_otherwise: bool
    source: Comment


def _name_rule(rule: NameRule) -> NameRulePlan:
    when = rule.when
    return NameRulePlan(
        test=when is not None,
        starts_with=when.starts_with if when else (),
        contains=when.contains if when else (),
        negate=rule.negate,
        remove_prefix=rule.remove_prefix,
        add_prefix=rule.add_prefix or "",
        replace=None
        if rule.replace is None
        else (rule.replace[0], rule.replace[1], -1 if rule.replace[2] else 1),
        then=rule.then,
    )


def _draft_names(family: Family, sources: SourceMap) -> tuple[DraftNamesPlan, ...]:
    """Each architecture with checkpoint_names once (the first variant that declares it)."""
    found: dict[str, DraftNamesPlan] = {}
    for variant in family.variants:
        for arch in variant.architectures:
            if arch.checkpoint_names is None or arch.name in found:
                continue
            found[arch.name] = DraftNamesPlan(
                arch.name,
                tuple(_name_rule(r) for r in arch.checkpoint_names.rules),
                arch.checkpoint_names.keep_otherwise,
                sources.ref(variant.name, "architectures", arch.name, "checkpoint_names"),
            )
    return tuple(found.values())


@dataclass(frozen=True)
class CheckpointPlan:
    family: str
    weight_sets: tuple[WeightSetPlan, ...]
    blocks: tuple[BlockConstant, ...]  # the weight sets' distinct decoder blocks
    method_sets: tuple[tuple[str, str, str], ...]  # (model_type, method, weight set name)
    # architectures.<name>.checkpoint_names: the draft architectures that rename their names
    draft_names: tuple[DraftNamesPlan, ...] = ()
    # the bounds the generated reader enforces, the same the spec's counts are validated against
    max_stages: int = MAX_STAGES
    max_experts: int = MAX_EXPERTS

    @property
    def replaces_blocks(self) -> bool:
        """Whether some block is stated as another's replace() (the module imports it)."""
        return any(b.base is not None for b in self.blocks)


def _block_plan(variant: Variant, ws: WeightSet) -> DecoderBlockPlan:
    block = ws.block
    experts = block.experts if block else None
    expert_default = 0
    if experts is not None:
        expert_default = next(
            v for f in experts.count_sources if isinstance(v := variant.hf_value(f), int) and v > 0
        )  # validation: some source has a count in hf_config
    return DecoderBlockPlan(
        required=block.required if block else (),
        optional=block.optional if block else (),
        stacked=tuple((k, t.into, t.shard) for k, t in block.stacked) if block else (),
        renames=block.renames if block else (),
        experts_prefix=experts.prefix if experts else "",
        experts_count_sources=experts.count_sources if experts else (),
        experts_count_default=expert_default,
        experts_past_count_rejected=experts is not None
        and experts.past_count is PastCount.REJECTED,
        experts_weights=tuple((k, t.into, t.shard) for k, t in experts.weights) if experts else (),
        parameters=block.parameters if block else (),
    )


def plan_checkpoint(family: Family, sources: SourceMap) -> CheckpointPlan:
    names, blocks = _block_constants(
        [
            (
                _block_plan(variant, ws),
                variant.model_type,
                ws.name,
                # a set without a block has the empty one, which its own entry states
                sources.ref(variant.name, "checkpoint", "weight_sets", ws.name, "block")
                if ws.block
                else sources.ref(variant.name, "checkpoint", "weight_sets", ws.name),
            )
            for variant in family.variants
            for ws in variant.weight_sets
        ]
    )
    sets = []
    for variant in family.variants:
        for ws in variant.weight_sets:
            field = ws.maps_to.offset_field
            offset = variant.hf_value(field) if field is not None else 0
            assert isinstance(offset, int)  # validation: the offset field is an hf_config count
            shared = ws.shared
            block = _block_plan(variant, ws)
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
                    parameters=ws.parameters,
                    checked_unquantized_only=ws.completeness.checked_unquantized_only,
                    untracked=ws.completeness.untracked,
                    every_stage_loads=ws.completeness.every_stage_loads,
                    block_maps_to=ws.block.maps_to if ws.block else "",
                    block=block,
                    block_name=names[block],
                    source=sources.ref(variant.name, "checkpoint", "weight_sets", ws.name),
                )
            )
    methods = tuple(
        (v.model_type, m.method.value, m.weights.name) for v in family.variants for m in v.methods
    )
    return CheckpointPlan(
        family.name, tuple(sets), blocks, methods, draft_names=_draft_names(family, sources)
    )
