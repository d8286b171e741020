"""The family's vLLM plugin: one hook per vLLM wiring site the family's specs cover.

A site is a function of vLLM 0.33.0 that decides something a spec section describes. Where the
function can be replaced (a module or class attribute), the plugin wraps it: the wrapper handles
the family's own model_types and architectures with the generated wiring and hands everything
else to vLLM's original function, unchanged. Where it cannot (a closure, an inline statement in
a constructor), the site is listed with the reason, in ``dsv41gen explain``; nothing is emitted
for it. A spec without ``engine`` gets no plugin.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .. import __version__
from ..spec.model import BackendKind, Family, Method, StateLike
from . import engine
from .sources import SourceMap
from .values import Comment


class SiteName(enum.Enum):
    REGISTRY = "registry"
    HF_CONFIG_CLASS = "hf_config_class"
    DRAFT_REWRITE = "speculative.draft_rewrite"
    SPECULATIVE_CONFIG = "speculative.config"
    RUNNER_MODES = "runner.forbidden_modes"
    ATTENTION_BACKENDS = "attention_backends.sparse_mla"
    KV_STATE_BUCKET = "kv_cache.state_bucket"
    COMPRESS_RATIO = "kv_cache.compress_ratios"
    DSPARK_KV_LAYOUT = "speculative.dspark.kv_layout"
    EAGLE_STYLE_FALLBACK = "speculative.eagle_style_fallback"


@dataclass(frozen=True)
class HookedSite:
    name: str
    target: engine.EngineFunction
    hook: str  # the generated function that replaces the target ("" for a called site)
    replaces: bool  # False: the plugin calls the target (registry), it does not replace it
    reads: tuple[str, ...]  # the spec fields the hook reads
    source: Comment  # the spec section that makes the family cover this site


@dataclass(frozen=True)
class UnhookedSite:
    name: str
    where: str
    reads: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class EngineSetPlan:
    """One engine-wide set keyed on the architecture name and the family's members of it."""

    name: str  # the spec's name (architectures.<name>.engine_sets)
    target: engine.EngineSet
    members: tuple[tuple[str, Comment], ...]  # (architecture, the spec field that decides)


@dataclass(frozen=True)
class StateBucketRow:
    """One cache a variant allocates: the KV spec type vLLM plans it with, and the state-like
    type that makes its bucket a state bucket (the type itself or its nearest state-like
    ancestor; "" for none), always or only while unsplit (kv_cache.cache_spec_types,
    kv_cache.spec_types.<type>.state_like)."""

    model_type: str
    cache: str
    spec_type: str
    state_type: str
    always: bool
    source: Comment


@dataclass(frozen=True)
class PluginPlan:
    family: str
    engine_requirement: str  # "vllm==0.33.0"
    engine_version: str
    engine_source: Comment
    model_types: tuple[tuple[str, Comment], ...]  # (model_type, source), family order
    hooked: tuple[HookedSite, ...]
    unhooked: tuple[UnhookedSite, ...]
    # (model_type, the parent variant's model_type, source): whose HF config class a variant's
    # config takes when the engine knows no class for its own model_type
    config_parents: tuple[tuple[str, str, Comment], ...]
    # (model_type, the backend class vLLM's layer returns, the generated class that replaces
    # it for that model_type, source)
    backend_replacements: tuple[tuple[str, str, str, Comment], ...] = ()
    # some variant's method has no default num_speculative_tokens (default: none), on which the
    # engine crashes (vLLM 0.33.0's MTP): the hook puts the spec's refusal in place of the crash
    refuses_unset_num_speculative_tokens: bool = False
    engine_sets: tuple[EngineSetPlan, ...] = ()
    # (a DSpark draft's model_type, whether its layers share the target's KV layout, source)
    dspark_kv_layouts: tuple[tuple[str, bool, Comment], ...] = ()
    state_buckets: tuple[StateBucketRow, ...] = ()
    # the platforms some engine set answers for on its own (e.g. "rocm")
    engine_set_platforms: tuple[str, ...] = ()
    # the generated pyproject.toml: the pip name, the version (dsv41gen's own), its description,
    # and dsv41gen itself as a requirement: the package compiles and imports its kernel
    # sources (dsv41gen/kernels) and checks at import that they are the ones it was generated for
    distribution: str = ""
    version: str = ""
    description: str = ""
    runtime_requirement: str = ""
    entry_point: str = ""
    # plugin_status.py: the entry-point group the family's plugin is in (pyproject.toml), every
    # group VLLM_PLUGINS filters (a name it holds may be in any of them), the variable and the
    # separator vLLM splits it on
    plugin_group: str = engine.GENERAL_PLUGINS_GROUP
    plugin_groups: tuple[str, ...] = engine.PLUGIN_GROUPS
    plugins_variable: str = engine.PLUGINS_VARIABLE
    plugins_separator: str = engine.PLUGINS_SEPARATOR

    def backend_sites(self) -> tuple[HookedSite, ...]:
        return tuple(s for s in self.hooked if s.name.startswith(ATTENTION_SITE_PREFIX))

    def has(self, name: str) -> bool:
        return any(site.name == name for site in self.hooked)


ATTENTION_SITE_PREFIX = "attention_backends."


def _backend_replacements(family: Family, sources: SourceMap):
    """A variant that deletes an inherited indexer backend and declares a subclass of it in its
    place replaces it: where vLLM's layer returns the deleted class for that variant's model,
    the plugin returns the subclass. (model_type, replaced class, subclass, source, modules of
    the variant's architectures)."""
    by_name = {v.name: v for v in family.variants}
    out = []
    for variant in family.variants:
        own = {b.key for b in variant.backends}
        inherited = set()
        parent = variant.parent
        while parent is not None:
            inherited |= {b.key for b in by_name[parent].backends if b.kind is BackendKind.INDEXER}
            parent = by_name[parent].parent
        for backend in variant.backends:
            if (
                backend.kind is BackendKind.INDEXER
                and backend.parent in inherited
                and backend.parent not in own
            ):
                out.append(
                    (
                        variant.model_type,
                        backend.parent,
                        backend.key,
                        sources.ref(variant.name, "attention_backends", backend.key, "parent"),
                        tuple(a.module for a in variant.architectures),
                    )
                )
    # Two subclasses of one deleted class leave nothing to choose between them by: the layer's
    # choice stays vLLM's (a replacement table keyed twice would also repeat a key, ruff F601).
    keys = [(r[0], r[1]) for r in out]
    return [r for r in out if keys.count((r[0], r[1])) == 1]


def engine_set_members(family: Family) -> dict[str, dict[str, tuple[str, str, tuple[str, ...]]]]:
    """Per variant, per architecture: (the variant and the architecture whose entry states its
    engine sets, the sets).
    An architecture that states none takes those of the nearest ancestor's architecture of the
    same module and class (a child's new name for its parent's model class runs the same
    model, so the engine treats it the same); else it is in none."""
    by_name = {v.name: v for v in family.variants}
    out: dict[str, dict[str, tuple[str, str, tuple[str, ...]]]] = {}
    for variant in family.variants:  # parents first
        own = {}
        for architecture in variant.architectures:
            if architecture.engine_sets is not None:
                own[architecture.name] = (variant.name, architecture.name, architecture.engine_sets)
                continue
            parent = variant.parent
            while parent is not None:
                twin = next(
                    (
                        a
                        for a in by_name[parent].architectures
                        if (a.module, a.class_name)
                        == (architecture.module, architecture.class_name)
                    ),
                    None,
                )
                if twin is not None:
                    own[architecture.name] = out[parent][twin.name]
                    break
                parent = by_name[parent].parent
            else:
                own[architecture.name] = (variant.name, architecture.name, ())
        out[variant.name] = own
    return out


def _engine_sets(family: Family, sources: SourceMap) -> tuple[EngineSetPlan, ...]:
    members: dict[str, dict[str, Comment]] = {}
    for _variant, architectures in engine_set_members(family).items():
        for architecture, (stated_by, entry, sets) in architectures.items():
            for name in sets:
                members.setdefault(name, {}).setdefault(
                    architecture, sources.ref(stated_by, "architectures", entry, "engine_sets")
                )
    return tuple(
        EngineSetPlan(name, engine.ENGINE_SETS[name], tuple(sorted(members[name].items())))
        for name in sorted(members)
    )


def plan_plugin(family: Family, sources: SourceMap) -> PluginPlan | None:
    root = family.variants[0]
    if root.engine_version is None:
        return None
    methods = {m.method for v in family.variants for m in v.methods}
    hooked = [
        HookedSite(
            SiteName.REGISTRY.value,
            engine.REGISTER_MODEL,
            "",
            False,
            ("architectures.<name>.module", "architectures.<name>.class"),
            sources.ref(root.name, "architectures"),
        )
    ]
    by_name = {v.name: v for v in family.variants}
    config_parents = tuple(
        (
            v.model_type,
            by_name[v.parent].model_type,
            sources.ref(v.name, "variant", "model_type"),
        )
        for v in family.variants
        if v.parent is not None
    )
    if config_parents:
        hooked.append(
            HookedSite(
                SiteName.HF_CONFIG_CLASS.value,
                engine.HF_CONFIG_REGISTRY,
                "add_config_classes",
                True,
                ("variant.model_type", "extends"),
                config_parents[0][2],
            )
        )
    if Method.MTP in methods:
        hooked.append(
            HookedSite(
                SiteName.DRAFT_REWRITE.value,
                engine.DRAFT_HF_CONFIG_OVERRIDE,
                "draft_hf_config_override",
                True,
                (
                    "speculative.methods.mtp.draft_model_type",
                    "speculative.methods.mtp.draft_architecture",
                    "speculative.methods.mtp.tokens_per_round",
                ),
                _first_ref(
                    family, sources, lambda v: v.method(Method.MTP), "speculative", "methods", "mtp"
                ),
            )
        )
    if methods or any(v.forbidden for v in family.variants):
        hooked.append(
            HookedSite(
                SiteName.SPECULATIVE_CONFIG.value,
                engine.SPECULATIVE_CONFIG_POST_INIT,
                "speculative_config_post_init",
                True,
                (
                    "speculative.forbidden",
                    "checkpoint.weight_sets",
                    "speculative.methods.<method>.draft_model_type",
                    "speculative.methods.<method>.draft_architecture",
                    "speculative.methods.<method>.target_quantization",
                    "speculative.methods.<method>.tokens_per_round",
                    "speculative.methods.<method>.num_speculative_tokens",
                ),
                _first_ref(family, sources, lambda v: v.methods or v.forbidden, "speculative"),
            )
        )
    replacements = _backend_replacements(family, sources)
    layer_modules = sorted(
        {
            m
            for *_rest, modules in replacements
            for m in modules
            if m in engine.INDEXER_BACKEND_CHOICE
        }
    )
    for module in layer_modules:
        hooked.append(
            HookedSite(
                ATTENTION_SITE_PREFIX + module.rpartition(".")[2],
                engine.INDEXER_BACKEND_CHOICE[module],
                "indexer_backend_" + module.rpartition(".")[2],
                True,
                ("attention_backends.<class>.parent", "attention_backends.<parent>: !delete"),
                replacements[0][3],
            )
        )
    kv_layouts = _dspark_kv_layouts(family, sources)
    if kv_layouts:
        hooked.append(
            HookedSite(
                SiteName.DSPARK_KV_LAYOUT.value,
                engine.DSPARK_ATTENTION_BACKEND,
                "dspark_attention_backend",
                True,
                (
                    "speculative.methods.dspark.reuses_target_kv_layout",
                    "speculative.methods.dspark.draft_model_type",
                ),
                kv_layouts[0][2],
            )
        )
    if any(v.runner.forbidden_modes for v in family.variants):
        hooked.append(
            HookedSite(
                SiteName.RUNNER_MODES.value,
                engine.VLLM_CONFIG_POST_INIT,
                "vllm_config_post_init",
                True,
                ("runner.forbidden_modes",),
                _first_ref(
                    family, sources, lambda v: v.runner.forbidden_modes, "runner", "forbidden_modes"
                ),
            )
        )
    engine_sets = _engine_sets(family, sources)
    return PluginPlan(
        family=family.name,
        engine_requirement=f"{engine.ENGINE_DISTRIBUTION}=={root.engine_version}",
        engine_version=root.engine_version,
        engine_source=sources.ref(root.name, "engine"),
        model_types=tuple(
            (v.model_type, sources.ref(v.name, "variant", "model_type")) for v in family.variants
        ),
        hooked=tuple(hooked),
        unhooked=_unhooked(family),
        config_parents=config_parents,
        backend_replacements=tuple(r[:4] for r in replacements),
        refuses_unset_num_speculative_tokens=any(
            m.num_speculative_tokens.required for v in family.variants for m in v.methods
        ),
        engine_sets=engine_sets,
        dspark_kv_layouts=kv_layouts,
        state_buckets=_state_buckets(family, sources),
        engine_set_platforms=tuple(sorted({s.target.platform for s in engine_sets} - {""})),
        distribution=f"{family.name.replace('_', '-')}-vllm-plugin",
        version=__version__,
        description=f"vLLM plugin of the {family.name} model family, generated by dsv41gen",
        runtime_requirement=f"dsv41gen=={__version__}",
        entry_point=f"{family.name}:vllm_plugin",
    )


def _state_buckets(family: Family, sources: SourceMap) -> tuple[StateBucketRow, ...]:
    """Per variant and cache (kv_cache.cache_spec_types): what vLLM's KV planning must answer
    for the cache's bucket, which the plugin makes so or refuses to load."""
    rows = []
    for variant in family.variants:
        kv = variant.kv_cache
        if kv is None:
            continue
        for cache, spec_type in kv.cache_spec_types:
            state = kv.nearest_state_like(spec_type)
            rows.append(
                StateBucketRow(
                    variant.model_type,
                    cache,
                    spec_type,
                    state.name if state is not None else "",
                    state is not None and state.state_like is StateLike.ALWAYS,
                    sources.ref(variant.name, "kv_cache", "cache_spec_types", cache),
                )
            )
    return tuple(rows)


def _dspark_kv_layouts(family: Family, sources: SourceMap) -> tuple[tuple[str, bool, Comment], ...]:
    """Per DSpark draft model_type: whether its layers share the target's KV layout (and so
    take the target's attention backend). A draft model_type two variants answer differently
    for says nothing to go by: vLLM's own answer stays."""
    answers: dict[str, list[tuple[bool, Comment]]] = {}
    for variant in family.variants:
        method = variant.method(Method.DSPARK)
        if method is None:
            continue
        source = sources.ref(variant.name, "speculative", "methods", "dspark")
        answers.setdefault(method.draft_model_type, []).append(
            (method.reuses_target_kv_layout, source)
        )
    return tuple(
        (model_type, given[0][0], given[0][1])
        for model_type, given in sorted(answers.items())
        if len({answer for answer, _ in given}) == 1
    )


def _first_ref(family: Family, sources: SourceMap, covers, *path: str) -> str:
    """The spec field, in the first variant that has it, that makes the family cover a site."""
    variant = next(v for v in family.variants if covers(v))
    return sources.ref(variant.name, *path)


def _unhooked(family: Family) -> tuple[UnhookedSite, ...]:
    """The sites a spec section describes that no plugin can replace in vLLM 0.33.0."""
    out = []
    variants = family.variants
    if any(b.kind is BackendKind.SPARSE_MLA for v in variants for b in v.backends):
        out.append(
            (
                SiteName.ATTENTION_BACKENDS,
                ("attention_backends.<name>.kind: sparse_mla",),
                engine.SPARSE_MLA_BACKENDS,
            )
        )
    if any(
        v.kv_cache is not None and v.kv_cache.spec_types and not v.kv_cache.cache_spec_types
        for v in variants
    ):
        # without the caches' types there is nothing to check vLLM's answers against
        out.append(
            (
                SiteName.KV_STATE_BUCKET,
                ("kv_cache.spec_types.<name>.state_like",),
                engine.KV_STATE_BUCKET,
            )
        )
    if any(v.kv_cache is not None and v.kv_cache.compress_ratios for v in variants):
        out.append(
            (
                SiteName.COMPRESS_RATIO,
                (
                    "kv_cache.compress_ratios",
                    "kv_cache.unsupported_compress_ratio_error",
                    "kv_cache.unsupported_compress_ratio_message",
                ),
                engine.COMPRESS_RATIO_CHECK,
            )
        )
    return tuple(
        UnhookedSite(name.value, site.where, reads, site.reason) for name, reads, site in out
    )


def site_table(plan: PluginPlan) -> list[list[str]]:
    """Rows for ``explain``: site, vLLM function, hook, spec fields read."""
    rows = []
    for site in plan.hooked:
        if site.target.owner == "" and not site.target.static:
            hook = f"plugin.{site.hook} (adds the family's model_types the engine lacks)"
        elif site.replaces:
            hook = f"plugin.{site.hook}"
        else:
            hook = "registry.register (calls it)"
        rows.append([site.name, site.target.qualified, hook, ", ".join(site.reads)])
    for engine_set in plan.engine_sets:
        target = engine_set.target
        rows.append(
            [
                f"engine_sets.{engine_set.name}",
                f"{target.module}.{target.attribute}"
                + (f" (on {target.platform})" if target.platform else ""),
                "plugin.widen_engine_sets (adds "
                + ", ".join(a for a, _ in engine_set.members)
                + f": {target.what})",
                "architectures.<name>.engine_sets",
            ]
        )
    if plan.state_buckets:
        rows.append(
            [
                SiteName.KV_STATE_BUCKET.value,
                f"{engine.KV_STATE_BUCKET.where} (its tables, after the one-time refactor)",
                "plugin.widen_state_buckets (checks vLLM's answer for each cache's spec type; "
                "adds the state-like ones to is_state_bucket's tables where vLLM has them, "
                "refuses to load where its closure answers otherwise)",
                "kv_cache.cache_spec_types, kv_cache.spec_types.<name>.state_like",
            ]
        )
    for site in plan.unhooked:
        rows.append([site.name, site.where, "not hooked: " + site.reason, ", ".join(site.reads)])
    return rows
