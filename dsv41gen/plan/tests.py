"""Generated tests: pin each generated validator on both sides of every boundary.

Expected values come from the resolved spec (through the typed model), in the style of seed
004's reject/allow matrices, by a path of their own: what a value inherits, which methods a
variant's lineage knows, which KV types are state-like are worked out here, never by calling the
planner code that emits the validators, so a planner bug makes the generated tests fail
(tests/wiring/test_planted_planner_bugs.py). They check that the generated code does what the spec says; the
hand-written tests under tests/ check the specs against the reference facts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import (
    AttentionBackend,
    BackendKind,
    CapabilityFamily,
    CudaGraphMode,
    Family,
    ModelRunner,
    StateLike,
)
from .backends import BackendsPlan
from .checkpoint import CheckpointPlan
from .dispatch import Site
from .kv_cache import KvPlan
from .messages import with_display_name
from .runner import RUNNER_LACKS, RunnerPlan
from .sources import SourceMap
from .speculative import MISSING_DEFAULT_MESSAGE, SpeculativePlan, required_message
from .values import Comment, Identifier, PyLiteral

# A device of no known family, and a model_type no variant has.
NO_FAMILY = None
FOREIGN_MODEL_TYPE = "llama"
FOREIGN_ARCHITECTURE = "LlamaForCausalLM"
# tokens per round used for the divisibility matrices: the seed's n_predict=3 has both sides.
PER_ROUND = 3


# The methods a generated backend class may define itself (OVERRIDABLE in the tests).
OVERRIDABLE = (
    "get_name",
    "get_supported_kernel_block_sizes",
    "supports_device_cpu_query_lens_mismatch",
    "supported_kv_cache_layouts",
)


@dataclass(frozen=True)
class BackendTests:
    overridable: tuple[str, ...]
    families: tuple[int | None, ...]  # every capability family, and a device of none
    # (class, block sizes on a device of any other family, {family: its own})
    block_size_cases: tuple[tuple[str, list[int], dict[int, list[int]]], ...]
    names: tuple[tuple[str, str], ...]
    parents: tuple[tuple[str, str], ...]  # (class, family parent) only
    overrides: tuple[tuple[str, tuple[str, ...] | Identifier], ...]  # Identifier: OVERRIDABLE
    rocm_classes: tuple[str, ...]
    layouts: tuple[tuple[str, tuple[str, ...]], ...]  # (class, KVCacheLayout member names)
    sparse_cases: tuple[tuple[str, list[int], dict[int, list[int]]], ...]  # by registered name


def _inherited(key: str, field: str, by_key: dict[str, AttentionBackend]):
    """The backend's own ``field``, else its nearest family ancestor's: worked out here from the
    typed model, not by the planner's code, so a planner bug cannot hide in both."""
    while key in by_key:
        if getattr(by_key[key], field) is not None:
            return getattr(by_key[key], field)
        key = by_key[key].parent
    return None


def _sizes_on(
    backend: AttentionBackend, by_key: dict[str, AttentionBackend], family: int | None
) -> list[int]:
    """The block sizes a device of ``family`` gets, following inheritance as the classes do."""
    sizes = _inherited(backend.key, "kernel_block_sizes", by_key)
    for fam, values in sizes.by_family:
        if family is not None and fam.number == family:
            return list(values)
    return list(sizes.default)


def backend_tests(family: Family, plan: BackendsPlan) -> BackendTests:
    by_key: dict[str, AttentionBackend] = {}
    for variant in family.variants:
        for backend in variant.backends:
            by_key.setdefault(backend.key, backend)
    families = [f.number for f in CapabilityFamily] + [NO_FAMILY]
    cases, sparse = [], []
    for key, backend in by_key.items():
        target = sparse if backend.kind is BackendKind.SPARSE_MLA else cases
        name = backend.name if backend.kind is BackendKind.SPARSE_MLA else key
        # each family's sizes worked out one by one, then written as the sizes of a device of
        # no family and the families that differ from them
        default = _sizes_on(backend, by_key, NO_FAMILY)
        own = {fam: _sizes_on(backend, by_key, fam) for fam in families if fam is not NO_FAMILY}
        target.append((name, default, {f: s for f, s in own.items() if s != default}))
    overrides = []
    for c in plan.classes:
        own = ["get_name"]
        if c.block_sizes is not None:
            own.append("get_supported_kernel_block_sizes")
        if c.rocm_query_lens_mismatch:
            own.append("supports_device_cpu_query_lens_mismatch")
        if c.kv_cache_layouts:
            own.append("supported_kv_cache_layouts")
        # a class that defines every one of them: the row says so by name
        overrides.append(
            (c.class_name, Identifier("OVERRIDABLE") if tuple(own) == OVERRIDABLE else tuple(own))
        )
    return BackendTests(
        overridable=OVERRIDABLE,
        families=tuple(families),
        block_size_cases=tuple(cases),
        names=tuple((c.class_name, c.name) for c in plan.classes),
        parents=tuple((c.class_name, c.parent) for c in plan.classes),
        overrides=tuple(overrides),
        rocm_classes=tuple(c.class_name for c in plan.classes if c.rocm_query_lens_mismatch),
        layouts=tuple(
            (key, _inherited(key, "supported_kv_cache_layouts", by_key))
            for key, b in by_key.items()
            if b.kind is not BackendKind.SPARSE_MLA
            and _inherited(key, "supported_kv_cache_layouts", by_key)
        ),
        sparse_cases=tuple(sparse),
    )


@dataclass(frozen=True)
class SpeculativeTests:
    forbidden: tuple[tuple[str, str, str], ...]  # (model_type, method, message)
    allowed: tuple[tuple[str, str], ...]
    not_wired: tuple[tuple[str, str], ...]  # family methods a variant neither allows nor forbids
    tokens_per_round: tuple[tuple[str, str, dict, int | None], ...]
    default_num_tokens: tuple[tuple[str, str, dict, int], ...]
    missing_default: tuple[tuple[str, str, dict, str], ...]  # no default anywhere: the error
    reject_num_tokens: tuple[tuple[str, str, dict, int, str], ...]
    allow_num_tokens: tuple[tuple[str, str, dict, int], ...]
    warn_num_tokens: tuple[tuple[str, str, dict, int, bool], ...]
    draft_overrides: tuple[tuple[str, str, dict, dict], ...]
    adaptive: tuple[tuple[str, str, bool, str], ...]  # (model_type, method, supported, message)
    site_cases: tuple[tuple[str, str, object], ...]  # (site, model_type, expected answer)
    foreign_model_type: str

    @property
    def matches_messages(self) -> bool:
        """Some test matches a message (`re.escape`): only then does the module import `re`."""
        return bool(
            self.forbidden or self.reject_num_tokens or self.adaptive or self.missing_default
        )


def _nested(config: dict, composite: bool) -> dict:
    """An HF config with its dotted source paths as nested mappings: ``text_config.x`` is the
    nested ``text_config`` of a composite config, and the config itself otherwise (a config
    that is its own text config, as vLLM's get_hf_text_config takes it)."""
    out: dict = {}
    for key, value in config.items():
        head, dot, rest = key.partition(".")
        if not dot:
            out[key] = value
        elif head == "text_config" and not composite:
            out |= _nested({rest: value}, composite)
        else:
            out[head] = out.get(head, {}) | _nested({rest: value}, composite)
    return out


def _read(hf: dict, path: str, composite: bool) -> object:
    """The spec's reference config read at a source path (None when unset), as _nested lays a
    path out."""
    head, dot, rest = path.partition(".")
    if not dot:
        return hf.get(path)
    if head == "text_config" and not composite:
        return _read(hf, rest, composite)
    nested = hf.get(head)
    return _read(nested, rest, composite) if isinstance(nested, dict) else None


def speculative_tests(family: Family, plan: SpeculativePlan) -> SpeculativeTests:
    forbidden = tuple((f.model_type, f.method, f.message) for f in plan.forbidden)
    allowed, not_wired, per_round, defaults, reject, allow, warn, overrides, adaptive = (
        [] for _ in range(9)
    )
    missing: list[tuple[str, str, dict, str]] = []
    forbidden_pairs = {(f.model_type, f.method) for f in plan.forbidden}
    by_name = {v.name: v for v in family.variants}
    for variant in family.variants:
        mt = variant.model_type
        hf = {k: v for k, v in variant.hf_config if isinstance(v, (int, str))}
        # What this variant's own specs ever wired: its ancestors' methods and its own.
        ancestry, up, opted = set(), variant, False
        while up is not None:
            ancestry |= {m.method.value for m in up.methods}
            opted = opted or any(m.adaptive_verification for m in up.methods)
            up = by_name.get(up.parent) if up.parent else None
        for method in plan.family_methods:
            found = next((m for m in variant.methods if m.method.value == method), None)
            if found is None:
                if (mt, method) in forbidden_pairs:
                    continue
                if method in ancestry:
                    not_wired.append((mt, method))
                else:  # only a sibling wires it: not this variant's business, so it passes
                    allowed.append((mt, method))
                continue
            allowed.append((mt, method))
            sources = found.tokens_per_round_sources
            composite = mt in variant.composite_model_types
            expected = next((v for s in sources if (v := _read(hf, s, composite))), None)
            per_round.append((mt, method, hf, expected))
            # each fallback source alone decides when the earlier ones are unset
            for i, source in enumerate(sources[1:], start=1):
                config = {s: None for s in sources[:i]} | {source: 7}
                per_round.append((mt, method, _nested(config, composite), 7))
            config = _nested({sources[0]: PER_ROUND}, composite)
            rule = found.num_speculative_tokens
            # the default: the first set default_sources field (each decides alone when the
            # earlier ones are unset), else tokens per round; nothing set is an error; with
            # default: none even a draft stating its n_predict is refused
            if rule.required:
                missing.append((mt, method, config, required_message(variant, found)))
            elif rule.default_sources:
                # a default is held to the maximum too: the value stays within it, and one
                # above it is refused, naming the field it came from
                value = 7 if rule.maximum is None else min(7, rule.maximum)
                for i, source in enumerate(rule.default_sources):
                    chosen = {s: None for s in rule.default_sources[:i]} | {source: value}
                    defaults.append((mt, method, config | chosen, value))
                    if rule.maximum is not None:
                        over = chosen | {source: rule.maximum + 1}
                        missing.append(
                            (
                                mt,
                                method,
                                config | over,
                                f"num_speculative_tokens defaults to {rule.maximum + 1} (the "
                                f"draft config's {source}), above the maximum of {rule.maximum} "
                                f"for {variant.display_name} with {found.label}; set "
                                f"num_speculative_tokens to at most {rule.maximum}.",
                            )
                        )
                missing.append((mt, method, config, MISSING_DEFAULT_MESSAGE))
            elif rule.maximum is not None and PER_ROUND > rule.maximum:
                missing.append(
                    (
                        mt,
                        method,
                        config,
                        f"num_speculative_tokens defaults to {PER_ROUND} (the draft's n_predict), "
                        f"above the maximum of {rule.maximum} for {variant.display_name} with "
                        f"{found.label}; set num_speculative_tokens to at most {rule.maximum}.",
                    )
                )
                missing.append((mt, method, {}, MISSING_DEFAULT_MESSAGE))
            else:
                defaults.append((mt, method, config, PER_ROUND))
                missing.append((mt, method, {}, MISSING_DEFAULT_MESSAGE))
            message = f"num_speculative_tokens:{{}} must be divisible by n_predict={PER_ROUND}"
            if rule.divisibility.value == "when_above_tokens_per_round":
                reject += [
                    (mt, method, config, n, message.format(n))
                    for n in (PER_ROUND + 1, PER_ROUND + 2)
                ]
                allow += [(mt, method, config, n) for n in (1, PER_ROUND, 2 * PER_ROUND)]
            elif rule.divisibility.value == "always":
                reject += [(mt, method, config, n, message.format(n)) for n in (1, PER_ROUND + 1)]
                allow += [(mt, method, config, n) for n in (PER_ROUND, 2 * PER_ROUND)]
            else:
                allow += [(mt, method, config, n) for n in (1, PER_ROUND + 1)]
            if rule.maximum is not None:
                # with one token per round every count is divisible: only the maximum decides
                single = _nested({sources[0]: 1}, composite)
                over = rule.maximum + 1
                reject.append(
                    (
                        mt,
                        method,
                        single,
                        over,
                        f"num_speculative_tokens:{over} is above the maximum",
                    )
                )
                allow.append((mt, method, single, rule.maximum))
            if rule.warn_above is not None:
                warn_config = _nested({sources[0]: 1}, composite)
                warn.append((mt, method, warn_config, rule.warn_above, False))
                warn.append((mt, method, warn_config, rule.warn_above + 1, True))
            expected_overrides = {"model_type": found.draft_model_type, "n_predict": expected}
            if found.draft_architecture is not None:
                expected_overrides["architectures"] = [found.draft_architecture]
            for f in found.draft_fields:  # each copied from the target, else its default
                value = _read(hf, f.source, composite)
                value = f.default if value is None else value
                if value is not None:
                    expected_overrides[f.name] = int(value) if f.convert.value == "int" else value
            overrides.append((mt, method, hf, expected_overrides))
            if plan.adaptive_messages:
                # Judged only where the variant's own lineage opted a method in; elsewhere the
                # check lets everything through (vLLM 0.33.0 has no such check).
                own = sorted(m.label for m in variant.methods if m.adaptive_verification)
                message = (
                    f"Adaptive verification only supported with {' or '.join(own)}"
                    if own
                    else f"{variant.display_name} does not support adaptive verification"
                )
                supported = found.adaptive_verification or not opted
                adaptive.append((mt, method, supported, message))
    return SpeculativeTests(
        forbidden,
        tuple(allowed),
        tuple(not_wired),
        tuple(per_round),
        tuple(defaults),
        tuple(missing),
        tuple(reject),
        tuple(allow),
        tuple(warn),
        tuple(overrides),
        tuple(adaptive),
        _site_cases(family, plan.sites),
        FOREIGN_MODEL_TYPE,
    )


def _site_cases(family: Family, sites: tuple[Site, ...]) -> tuple[tuple[str, str, object], ...]:
    model_type = {v.name: v.model_type for v in family.variants}
    cases = []
    for site in sites:
        unanswered = False if site.boolean else None
        for variant, value in site.values:
            cases.append((site.name, model_type[variant], unanswered if value is None else value))
        cases.append((site.name, FOREIGN_MODEL_TYPE, unanswered))
    return tuple(cases)


@dataclass(frozen=True)
class RunnerTests:
    architectures: tuple[str, ...]  # every architecture the spec names, and one of no variant
    # every rule answers each architecture alike: a refused case then stands for all of them
    architectures_alike: bool
    modes: tuple[str, ...]  # every final cudagraph mode
    speculation: tuple[tuple[str | None, bool], ...]  # (method, adaptive verification)
    source: Comment  # the runner sections the cases come from
    # (constant, the spec fields that refuse, exact message): one per distinct refusal
    refusals: tuple[tuple[Identifier, Comment, str], ...]
    # (use_v2, [architecture,] final mode, method, adaptive verification, refusal): the refused
    # cases of the runner x architecture x mode x speculation product; every other one passes
    refused: tuple[tuple[object, ...], ...]
    piecewise_modes: tuple[str, ...]
    defaults: tuple[tuple[str, bool | None], ...]

    @property
    def rejects(self) -> bool:
        """Some case is refused with a message (`re.escape`): only then is `re` imported."""
        return bool(self.refusals)


@dataclass(frozen=True)
class _Refusal:
    name: str  # the constant's name, from the spec field(s) that refuse
    source: Comment
    message: str


def _runner_expectation(
    family: Family,
    sources: SourceMap,
    use_v2: bool,
    arch: str,
    mode: CudaGraphMode,
    method: str | None,
    adaptive: bool,
) -> _Refusal | None:
    """What vLLM says of one config, worked out from the typed spec: the features the chosen
    runner lacks first (all of them, in spec order), then the first forbidden combination."""
    chosen = ModelRunner.V2 if use_v2 else ModelRunner.V1
    requirements: dict = {}  # requirement -> the first variant that declares it
    for v in family.variants:
        for r in v.runner.requirements:
            requirements.setdefault(r, v)
    lacking = [
        r
        for r in requirements
        if r.model_runner is not chosen
        and ((r.speculative_method == method) if r.speculative_method else adaptive)
    ]
    if lacking:
        return _Refusal(
            f"{chosen.name}_LACKS_" + "_AND_".join(r.name.upper() for r in lacking),
            Comment.join(
                ", ",
                (
                    sources.ref(requirements[r].name, "runner", "requires_model_runner", r.name)
                    for r in lacking
                ),
            ),
            RUNNER_LACKS[chosen] + ", ".join(r.feature for r in lacking),
        )
    for variant in family.variants:
        for f in variant.runner.forbidden_modes:
            if (
                (f.model_runner is None or f.model_runner is chosen)
                and (not f.adaptive_verification or adaptive)
                and mode in f.cudagraph_modes
                and (f.architectures is None or arch in f.architectures)
            ):
                return _Refusal(
                    f.name.upper(),
                    sources.ref(variant.name, "runner", "forbidden_modes", f.name),
                    with_display_name(f.message, variant),
                )
    return None


def runner_tests(family: Family, plan: RunnerPlan, sources: SourceMap) -> RunnerTests:
    """Every runner x architecture (and one of no variant) x final mode x speculation the spec
    names (none, each method a requirement names, adaptive verification)."""
    methods = sorted(
        {r.speculative_method for v in family.variants for r in v.runner.requirements} - {None}
    )
    speculation = [(None, False)] + [(m, False) for m in methods]
    if any(r.adaptive_verification for v in family.variants for r in v.runner.requirements) or any(
        f.adaptive_verification for v in family.variants for f in v.runner.forbidden_modes
    ):
        speculation.append((None, True))
    architectures = list(dict.fromkeys(plan.all_architectures)) + [FOREIGN_ARCHITECTURE]
    answers = {
        (use_v2, arch, mode, method, adaptive): _runner_expectation(
            family, sources, use_v2, arch, mode, method, adaptive
        )
        for use_v2 in (False, True)
        for arch in architectures
        for mode in CudaGraphMode
        for method, adaptive in speculation
    }
    # One constant per distinct refusal, named by the spec field; a field whose message differs
    # between variants ({display_name}) gets one per message.
    names: dict[tuple[str, str], Identifier] = {}
    refusals = []
    for refusal in answers.values():
        if refusal is None or (refusal.name, refusal.message) in names:
            continue
        taken = sum(name == refusal.name for name, _ in names)
        name = Identifier(refusal.name if not taken else f"{refusal.name}_{taken + 1}")
        names[(refusal.name, refusal.message)] = name
        refusals.append((name, refusal.source, refusal.message))

    def named(refusal: _Refusal | None) -> Identifier | None:
        return None if refusal is None else names[(refusal.name, refusal.message)]

    alike = all(
        len({named(answers[(use_v2, arch, mode, m, a)]) for arch in architectures}) == 1
        for use_v2 in (False, True)
        for mode in CudaGraphMode
        for m, a in speculation
    )
    if alike:
        refused = tuple(
            (use_v2, mode.value, m, a, named(answers[(use_v2, architectures[0], mode, m, a)]))
            for use_v2 in (False, True)
            for mode in CudaGraphMode
            for m, a in speculation
            if answers[(use_v2, architectures[0], mode, m, a)] is not None
        )
    else:
        refused = tuple(
            (use_v2, arch, mode.value, m, a, named(refusal))
            for (use_v2, arch, mode, m, a), refusal in answers.items()
            if refusal is not None
        )
    defaults = [
        (a, runner is ModelRunner.V2)
        for v in family.variants
        for a, runner in v.runner.default_model_runner
    ]
    defaults = list(dict.fromkeys(defaults))
    if defaults:
        defaults.append((FOREIGN_ARCHITECTURE, None))
    return RunnerTests(
        tuple(architectures),
        alike,
        tuple(m.value for m in CudaGraphMode),
        tuple(speculation),
        Comment.join(
            ", ", dict.fromkeys(sources.ref(v.name, "runner").text for v in family.variants)
        ),
        tuple(refusals),
        refused,
        tuple(m.value for m in CudaGraphMode if m.has_piecewise_cudagraphs),
        tuple(defaults),
    )


@dataclass(frozen=True)
class KvTests:
    # (model_type, type, state with no repeat pattern, with one), for every variant's own types
    cases: tuple[tuple[str, str, bool, bool], ...]
    ratio_allow: tuple[tuple[str, int], ...]
    ratio_reject: tuple[tuple[str, int, str, str], ...]  # (model_type, ratio, error, message)
    # kv_cache.kv_source_compressor: (model_type, layer_id, ratio, hf_config) accepted, and
    # (model_type, layer_id, ratio, hf_config, error, message) refused by the compressor
    kv_source_allow: tuple[tuple[str, int, int, dict], ...] = ()
    kv_source_reject: tuple[tuple[str, int, int, dict, str, str], ...] = ()


def kv_tests(family: Family, plan: KvPlan) -> KvTests:
    from .binding import kv_types

    all_types = [t.name for t in kv_types(family)]
    cases = []
    for variant in family.variants:
        own = {t.name: t for t in variant.kv_cache.spec_types} if variant.kv_cache else {}

        def state_like(name: str | None, own=own) -> StateLike:
            # a type without its own mark takes its nearest marked ancestor's, as isinstance does
            while name is not None and name in own:
                if own[name].state_like is not StateLike.NEVER:
                    return own[name].state_like
                name = own[name].parent
            return StateLike.NEVER

        for name in all_types:
            state = state_like(name)
            cases.append(
                (variant.model_type, name, state is not StateLike.NEVER, state is StateLike.ALWAYS)
            )
    cases += [(FOREIGN_MODEL_TYPE, name, False, False) for name in all_types]
    allow, reject = [], []
    for variant in family.variants:
        kv = variant.kv_cache
        if kv is None or not (
            kv.unsupported_compress_ratio_message or kv.unsupported_compress_ratio_error
        ):
            continue
        allow += [(variant.model_type, r) for r in kv.compress_ratios]
        bad = max(kv.compress_ratios) + 1
        text = " ".join((kv.unsupported_compress_ratio_message or "").split())
        reject.append(
            (
                variant.model_type,
                bad,
                kv.unsupported_compress_ratio_error or "ValueError",
                text.format(layer_id=7, compress_ratio=bad, display_name=variant.display_name),
            )
        )
    source_allow, source_reject = [], []
    for variant in family.variants:
        kv = variant.kv_cache
        compressor = kv.kv_source_compressor if kv is not None else None
        if compressor is None or not (
            kv.unsupported_compress_ratio_message or kv.unsupported_compress_ratio_error
        ):
            continue
        layer = 7
        source = {compressor.layers_listed_in: [layer], compressor.layers_below: layer + 1}
        others = (
            {compressor.layers_listed_in: [0], compressor.layers_below: layer + 1},  # a consumer
            {compressor.layers_listed_in: [layer], compressor.layers_below: layer},  # not below
            {compressor.layers_below: layer + 1},  # the config lists no kv source
        )
        text = " ".join((compressor.message or "").split())
        for ratio in kv.compress_ratios:  # the ratios the layer itself accepts
            checked = max(kv.compress_ratio_floor or ratio, ratio)
            source_allow += [(variant.model_type, layer, ratio, config) for config in others]
            if checked in compressor.compress_ratios:
                source_allow.append((variant.model_type, layer, ratio, source))
            else:
                message = text.format(
                    layer_id=layer, compress_ratio=checked, display_name=variant.display_name
                )
                source_reject.append(
                    (variant.model_type, layer, ratio, source, compressor.error, message)
                )
    return KvTests(
        tuple(cases), tuple(allow), tuple(reject), tuple(source_allow), tuple(source_reject)
    )


@dataclass(frozen=True)
class CheckpointTests:
    # (model_type, method, config.json, complete checkpoint, "dropped weight>the name reported
    # missing>what the loader does unquantized>quantized ..." (fails / loads: uninitialized));
    # name lists are space-separated, one line each in the generated test
    cases: tuple[tuple[str, str, dict[str, int], str, str], ...]
    # (model_type, method, config.json, complete checkpoint plus one tensor the loader fails on,
    # that tensor)
    rejected: tuple[tuple[str, str, dict[str, int], str, str], ...]
    # (model_type, method, config.json, complete checkpoint, the stage-count field set one past
    # its stages, the stage the loader fails on): completeness.every_stage_loads
    empty_stage: tuple[tuple[str, str, dict[str, int], str, str, str], ...]
    # the names above that are one parameter each (weight_sets.<set>.parameters and
    # .block.parameters): the tensor
    # is the name itself; every other name's tensor is "<name>.weight"
    parameters: tuple[str, ...] = ()


# routed experts per block in the generated tests' config.json (a small checkpoint)
TEST_EXPERTS = 2


def _loader_outcome(ws, weight: str, quantized: bool, count: int) -> str:
    """What the spec's completeness rule says the loader does with ``weight`` missing (a derived
    parameter's source at one stage): fails, or loads its parameter uninitialized."""
    derived = {source: name for name, source in ws.derived}
    if derived.get(weight, weight) in ws.untracked:
        return "loads"
    if quantized and ws.checked_unquantized_only:
        return "loads"
    if weight in derived and count > 1:  # tracked whole: the other stages load it
        return "loads"
    return "fails"


def checkpoint_tests(family: Family, plan: CheckpointPlan) -> CheckpointTests:
    """A complete checkpoint per method at the set's default stage count (or one stage), laid
    out as the spec says: stage weights and derived sources in every stage, model-level
    weights once, in the last stage."""
    sets = {(ws.model_type, ws.name): ws for ws in plan.weight_sets}
    cases = []
    rejected = []
    empty = []
    parameters: set[str] = set()
    for model_type, method, name in plan.method_sets:
        ws = sets[(model_type, name)]
        count = ws.stage_count_default or 1
        at = [ws.stage_prefix.format(i=i) for i in range(count)]
        parameters |= {p + w for p in at for w in ws.parameters + ws.block.parameters}
        sources = tuple(source for _, source in ws.derived)
        config = (
            {ws.block.experts_count_sources[0]: TEST_EXPERTS} if ws.block.experts_prefix else {}
        )
        experts = tuple(
            ws.block.experts_prefix.format(e=e) + w
            for e in range(TEST_EXPERTS if ws.block.experts_prefix else 0)
            for w, _, _ in ws.block.experts_weights
        )
        block = ws.block.required + ws.block.optional + experts
        names = tuple(
            dict.fromkeys(p + w for p in at for w in ws.required + ws.optional + sources + block)
        )
        names += tuple(at[-1] + w for w in ws.shared_required + ws.shared_optional)
        glob = ws.stage_prefix.split("{i}")[0] + "*."
        routed = ws.block.experts_prefix.split("{e}")[0].rstrip(".")  # the experts' untracked name

        def loader(weight: str, quantized: bool, ws=ws, count=count) -> str:
            return _loader_outcome(ws, weight, quantized, count)

        drops = [(at[0] + w, at[0] + w, w) for w in ws.required[:1]]
        drops += [(at[-1] + w, at[-1] + w, w) for w in ws.required[-1:]]
        drops += [
            (at[-1] + w, glob + w, w) for w in ws.shared_required[:1] + ws.shared_required[-1:]
        ]
        # a derived source that is also a block weight is reported twice: the block's drops
        drops += [(at[-1] + w, at[-1] + w, w) for w in sources[:1] if w not in block]
        # the decoder block's first and last weights, one it checks, and the last expert's
        block_checked = [w for w in ws.block.required if w not in ws.untracked]
        drops += [
            (at[0] + w, at[0] + w, w)
            for w in ws.block.required[:1] + ws.block.required[-1:] + tuple(block_checked[:1])
        ]
        drops += [(at[-1] + w, at[-1] + w, routed) for w in experts[-1:]]
        # and the first weight the loader checks (the ones above may all be untracked)
        checked = [w for w in ws.required if w not in ws.untracked]
        shared_checked = [w for w in ws.shared_required if w not in ws.untracked]
        drops += [(at[0] + w, at[0] + w, w) for w in checked[:1]]
        drops += [(at[-1] + w, glob + w, w) for w in shared_checked[:1]]
        pairs = " ".join(
            f"{a}>{b}>{loader(w, False)}>{loader(w, True)}" for a, b, w in dict.fromkeys(drops)
        )
        if ws.every_stage_loads and ws.stage_count_sources:
            empty.append(
                (
                    model_type,
                    method,
                    config,
                    " ".join(names),
                    ws.stage_count_sources[0],
                    ws.stage_prefix.format(i=count) + "*",
                )
            )
        cases.append((model_type, method, config, " ".join(names), pairs))
        for bad in ws.rejected:
            rejected.append(
                (model_type, method, config, " ".join(names + (at[0] + bad,)), at[0] + bad)
            )
        for derived, _ in ws.derived:
            rejected.append((model_type, method, config, " ".join(names + (derived,)), derived))
        stage_weights = ws.required[:1] or sources[:1]
        if ws.past_count_rejected and stage_weights:  # a stage the engine does not build
            past = ws.stage_prefix.format(i=count) + stage_weights[0]
            rejected.append((model_type, method, config, " ".join(names + (past,)), past))
        if ws.block.experts_past_count_rejected and experts:  # an expert the block does not build
            past = (
                at[0]
                + ws.block.experts_prefix.format(e=TEST_EXPERTS)
                + ws.block.experts_weights[0][0]
            )
            rejected.append((model_type, method, config, " ".join(names + (past,)), past))
    # one literal, not a table of rows: a family without single-parameter weights has none
    return CheckpointTests(
        tuple(cases), tuple(rejected), tuple(empty), PyLiteral(tuple(sorted(parameters)))
    )
