"""What each variant's generated code answers, section by section, as plain data.

The family's plans projected onto one variant: the entries of the family-wide tables keyed by
its model_type, the runner guards and defaults of its architectures, the backend classes it
declares. `diff --against` compares these between a ref and the working tree, so a change in
an existing variant's behaviour that its own spec did not make (a sibling, or the generator,
made it) is reported under that variant instead of hiding as "variant added".
"""

from __future__ import annotations

from ..spec.model import Family, Variant
from .sources import SourceMap


def _json(value: object) -> object:
    """Plan values as JSON-able data (tuples become lists, typed code its text)."""
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def variant_behaviour(family: Family, sources: SourceMap) -> dict[str, dict[str, object]]:
    from . import backends, checkpoint, kv_cache, runner, speculative

    spec_plan = speculative.plan_speculative(family, sources)
    runner_plan = runner.plan_runner(family, sources)
    backends_plan = backends.plan_backends(family, sources)
    kv_plan = kv_cache.plan_kv_cache(family, sources)
    checkpoint_plan = checkpoint.plan_checkpoint(family, sources)
    return {
        v.name: _one(v, spec_plan, runner_plan, backends_plan, kv_plan, checkpoint_plan)
        for v in family.variants
    }


def _one(variant: Variant, spec_plan, runner_plan, backends_plan, kv_plan, checkpoint_plan):
    mt = variant.model_type
    archs = {a.name for a in variant.architectures}
    own_backends = {b.key for b in variant.backends}
    behaviour: dict[str, object] = {
        "speculative": {
            "allowed": dict(spec_plan.allowed).get(mt),
            "judged": dict(spec_plan.judged).get(mt),
            "forbidden": sorted(
                (f.method, f.message) for f in spec_plan.forbidden if f.model_type == mt
            ),
            "adaptive_verification": dict(spec_plan.adaptive_messages).get(mt),
        },
        # An unanswered site (None, or False for a yes/no site) behaves as a site that is not
        # generated at all: a sibling's new method adds sites the others do not answer.
        "dispatch": {
            site.name: value
            for site in spec_plan.sites
            for name, value in site.values
            if name == variant.name and value not in (None, False)
        },
        "runner": {
            # A guard without architectures applies to every architecture of the family.
            "forbidden": sorted(
                (
                    f.name,
                    sorted(set(f.architectures or archs) & archs),
                    str(f.use_v2_model_runner),
                    f.adaptive_verification,
                )
                + (f.mode_names, f.message)
                for f in runner_plan.forbidden
                if set(f.architectures or archs) & archs
            ),
            "requires": sorted(
                (
                    str(r.use_v2_model_runner),
                    str(r.speculative_method),
                    r.adaptive_verification,
                    r.feature,
                )
                for lacks in runner_plan.lacks
                for r in lacks.requirements
            ),
            "v2_default": sorted(a for a, _ in runner_plan.v2_default_architectures if a in archs),
            "v1_default": sorted(a for a, _ in runner_plan.v1_default_architectures if a in archs),
        },
        "backends": {
            c.class_name: (
                c.parent,
                c.name,
                c.block_sizes and (c.block_sizes.by_family, c.block_sizes.default),
            )
            + (c.rocm_query_lens_mismatch is not None, c.kv_cache_layouts)
            for c in backends_plan.classes
            if c.class_name in own_backends
        },
        "checkpoint": sorted(
            (method, name) for target, method, name in checkpoint_plan.method_sets if target == mt
        ),
    }
    if kv_plan is not None:
        behaviour["kv_cache"] = {
            "state_like": [
                (t.always, t.when_unsplit) for t in kv_plan.state_types if t.model_type == mt
            ],
            "compress_ratios": [
                (c.ratios, c.error, c.message)
                for c in kv_plan.compress_ratio_checks
                if c.model_type == mt
            ],
        }
    return _json(behaviour)
