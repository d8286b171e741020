"""Speculative-decoding validators: allowed and forbidden methods, tokens per round,
num_speculative_tokens rules and the draft-config rewrite."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import (
    Divisibility,
    Family,
    ForbiddenMethod,
    Method,
    SpeculativeMethod,
    Variant,
    WeightSet,
)
from .dispatch import Site, family_methods, model_type_test, plan_sites
from .engine import (
    METHODS_AFTER_MTP,
    METHODS_BEFORE_MTP,
    MTP_MODEL_TYPES,
    SPECULATIVE_CONFIG_TITLE,
    TEXT_CONFIG_WITHOUT_HEADS,
    VLLM_VERSION,
)
from .messages import with_display_name
from .sources import SourceMap
from .values import Comment, Identifier, PyCode, PyLiteral, PyMessage


@dataclass(frozen=True)
class MethodMessagePlan:
    """A message the generated code raises for one (target model_type, method)."""

    model_type: str
    method: str
    message: str
    source: Comment


@dataclass(frozen=True)
class MessageGroup:
    """One refusal the generated code raises for several model types at once: a variant's
    model type and its aliases share the message, so they share one test."""

    test: PyCode  # the condition on target_model_type
    method: str
    message: str
    source: Comment


def grouped(plans: tuple[MethodMessagePlan, ...]) -> tuple[MessageGroup, ...]:
    """``plans`` with the model types of one (method, message, source) merged, in first-seen
    order."""
    groups: dict[tuple[str, str, Comment], list[str]] = {}
    for p in plans:
        groups.setdefault((p.method, p.message, p.source), []).append(p.model_type)
    return tuple(
        MessageGroup(model_type_test(types), method, message, source)
        for (method, message, source), types in groups.items()
    )


@dataclass(frozen=True)
class ForbiddenPlan(MethodMessagePlan):
    """A method the spec forbids for the target (speculative.forbidden), with its refusal."""


@dataclass(frozen=True)
class RequiredPlan(MethodMessagePlan):
    """A (target, method) with no default num_speculative_tokens (default: none): a request
    without it is refused with a fix-it message, where the engine would fail."""


_NUM = PyCode("num")
_DEFAULT_FROM = PyCode("default_from")
_DISPLAY_NAME = PyCode("DISPLAY_NAMES[target_model_type]")


@dataclass(frozen=True)
class TokenRuleGroup:
    """One num_speculative_tokens rule, shared by the variants that state it alike."""

    test: PyCode  # condition on target_model_type
    divisibility: str  # Divisibility value
    maximum: int | None
    warn_above: int | None
    warning: str | None  # the spec's exact text; None: derived
    label: str
    sources: tuple[Comment, ...]

    @property
    def maximum_message(self) -> PyMessage:
        # the label is spec text: a literal part of the message, never a replacement field
        return PyMessage(
            (
                "num_speculative_tokens:",
                _NUM,
                f" is above the maximum of {self.maximum} for ",
                _DISPLAY_NAME,
                f" with {self.label}; lower num_speculative_tokens.",
            )
        )

    @property
    def default_maximum_message(self) -> PyMessage:
        """A default (read from the draft's config) above the maximum: say where it came from
        and what to set, since the user never wrote the number."""
        return PyMessage(
            (
                "num_speculative_tokens defaults to ",
                _NUM,
                " (",
                _DEFAULT_FROM,
                f"), above the maximum of {self.maximum} for ",
                _DISPLAY_NAME,
                f" with {self.label}; set num_speculative_tokens to at most {self.maximum}.",
            )
        )

    @property
    def zero_tokens_per_round_message(self) -> PyMessage:
        """The refusal where the draft config says 0 tokens per round: vLLM 0.33.0's
        divisibility check divides by it (ZeroDivisionError, an engine crash), so the spec's
        rule refuses the config instead, naming what to change."""
        return PyMessage(
            (
                "num_speculative_tokens:",
                _NUM,
                " cannot be used with n_predict=0: the draft config of ",
                _DISPLAY_NAME,
                f" with {self.label} says it has no layers to run "
                "(num_nextn_predict_layers: 0); use a checkpoint whose draft has layers, or "
                "another speculative method.",
            )
        )

    @property
    def warn_message(self) -> PyMessage | PyLiteral:
        if self.warning is not None:
            return PyLiteral(self.warning)
        return PyMessage(
            (
                _DISPLAY_NAME,
                f" with {self.label}: num_speculative_tokens=",
                _NUM,
                f" is above {self.warn_above}.",
            )
        )


@dataclass(frozen=True)
class MethodPlan:
    method: str
    label: str
    rules: tuple[TokenRuleGroup, ...]  # one per distinct rule
    every_variant_names_an_architecture: bool
    # no variant naming one: dispatch has no <method>_draft_architecture site to ask
    some_variant_names_an_architecture: bool
    has_default_sources: bool  # some variant reads the default from draft-config fields

    def site(self, question: str) -> Identifier:
        """The dispatch function answering ``question`` for this method."""
        return Identifier(f"{self.method}_{question}")

    @property
    def check_function(self) -> Identifier:
        return Identifier(f"_check_{self.method}_num_speculative_tokens")


# vLLM 0.33.0's words when a draft is given but neither the request nor the draft config says
# how many tokens to propose (vllm/config/speculative.py): a fact about the engine.
MISSING_DEFAULT_MESSAGE = (
    "A speculative model was provided, but `num_speculative_tokens` was not provided"
)


@dataclass(frozen=True)
class SpeculativePlan:
    family: str
    display_names: tuple[tuple[str, str], ...]
    family_methods: tuple[str, ...]
    allowed: tuple[tuple[str, tuple[str, ...]], ...]
    # Per variant, the methods its own lineage knows (wired, forbidden or dropped): only those
    # are judged for it, so a sibling's new method never changes what an existing variant says.
    judged: tuple[tuple[str, tuple[str, ...]], ...]
    forbidden: tuple[ForbiddenPlan, ...]
    required: tuple[RequiredPlan, ...]  # num_speculative_tokens.default: none
    methods: tuple[MethodPlan, ...]
    adaptive_messages: tuple[tuple[str, str], ...]  # (model_type, message); () when none verifies
    adaptive_methods: tuple[str, ...]  # methods some variant verifies adaptively
    some_drafts_lack_architecture: bool
    sites: tuple[Site, ...]
    # engine facts the module states (vLLM's order of SpeculativeMethod, its wording)
    vllm_version: str = VLLM_VERSION
    methods_before_mtp: tuple[str, ...] = METHODS_BEFORE_MTP  # names before MTPModelTypes
    mtp_model_types: tuple[str, ...] = MTP_MODEL_TYPES
    methods_after_mtp: tuple[str, ...] = METHODS_AFTER_MTP
    method_title: str = SPECULATIVE_CONFIG_TITLE
    missing_default_message: str = MISSING_DEFAULT_MESSAGE
    # Reading HF config fields by dotted path (tokens_per_round.sources, draft_fields): the
    # model types whose config nests its text config; None when no source is a path.
    composite_model_types: tuple[str, ...] | None = None
    text_config_message: str = TEXT_CONFIG_WITHOUT_HEADS
    draft_field_methods: tuple[str, ...] = ()  # methods some variant copies draft fields for

    @property
    def forbidden_groups(self) -> tuple[MessageGroup, ...]:
        return grouped(self.forbidden)

    @property
    def required_groups(self) -> tuple[MessageGroup, ...]:
        return grouped(self.required)

    @property
    def quantization_methods(self) -> tuple[MethodPlan, ...]:
        """The methods whose draft quantization some variant ties to the target's."""
        names = {s.name for s in self.sites}
        return tuple(m for m in self.methods if f"{m.method}_target_quantization" in names)

    @property
    def warns(self) -> bool:
        """Some method warns above a token count (num_speculative_tokens.warn_above): only then
        does the module need `warnings`."""
        return any(r.warn_above is not None for m in self.methods for r in m.rules)

    @property
    def adaptive_sites(self) -> tuple[tuple[PyLiteral, Identifier], ...]:
        return tuple(
            (PyLiteral(m), Identifier(f"{m}_adaptive_verification")) for m in self.adaptive_methods
        )


def _matches(weight: str, name: str) -> bool:
    """A signature entry names a weight exactly or as a prefix (hc_head covers hc_head_fn)."""
    return weight == name or weight.startswith(name)


def lineage(family: Family, variant: Variant) -> list[Variant]:
    """The variant and its ancestors in the family, nearest first."""
    chain = [variant]
    while chain[-1].parent is not None:
        chain.append(family.variant(chain[-1].parent))
    return chain


def judged_methods(family: Family, variant: Variant) -> tuple[Method, ...]:
    """What validate_method judges for ``variant``: every method its lineage wires or forbids.
    A method an ancestor wired and this variant dropped is rejected; one only a sibling wires is
    not this variant's business."""
    known = {m.method for v in lineage(family, variant) for m in v.methods}
    known |= {f.method for f in variant.forbidden}
    return tuple(m for m in Method if m in known)


def judges_adaptive_verification(family: Family, variant: Variant) -> bool:
    """Whether check_adaptive_verification answers for ``variant``: only when its own lineage
    (the variant or an ancestor) opts a method in. A child's opt-in never makes the check
    answer for its parents or siblings; vLLM 0.33.0 itself has no such check, so a variant
    whose lineage never opted in is let through, as before the child existed."""
    return any(m.adaptive_verification for v in lineage(family, variant) for m in v.methods)


def adaptive_message(variant: Variant) -> str:
    labels = sorted(m.label for m in variant.methods if m.adaptive_verification)
    if not labels:
        return f"{variant.display_name} does not support adaptive verification"
    return f"Adaptive verification only supported with {' or '.join(labels)}"


def forbidden_message(variant: Variant, forbidden: ForbiddenMethod) -> str:
    """The fix-it message for a forbidden method, derived from the weight sets when not given:
    what the old method needed that this variant's checkpoints lack, where this variant's draft
    weights live instead, and the method to use."""
    if forbidden.message is not None:
        return with_display_name(forbidden.message, variant)
    old = forbidden.ancestor_definition
    instead = variant.method(forbidden.use_instead)
    assert old is not None and instead is not None  # validation guarantees both
    assert isinstance(old.weights, WeightSet) and isinstance(instead.weights, WeightSet)
    shipped = instead.weights.shipped
    missing = [
        name for name in old.weights.signature if not any(_matches(w, name) for w in shipped)
    ]
    return (
        f"{variant.display_name} has no {old.label} draft: its checkpoints ship {instead.label} "
        f"stages under {instead.weights.stage_glob} ({'/'.join(instead.weights.signature)}) and carry "
        f"no {'/'.join(missing)} weights. Use speculative method {instead.method.value!r} instead of "
        f"{forbidden.method.value!r}."
    )


def required_message(variant: Variant, method: SpeculativeMethod) -> str:
    """The fix-it message for a request without num_speculative_tokens where no default
    applies (num_speculative_tokens.default: none): the engine fails on it, so the generated
    code refuses it first and says what to set."""
    sources = method.tokens_per_round_sources
    if any("." in s for s in sources):  # a nested path reads from the config's top: say so
        per_round = " or ".join(f"hf_config.{s}" for s in sources)
    else:
        per_round = "hf_config." + " or ".join(sources)
    return (
        f"{variant.display_name} with {method.label} needs num_speculative_tokens: vLLM "
        f"{VLLM_VERSION} applies no default for speculative method {method.method.value!r} and "
        f"fails on a draft given without it. Set num_speculative_tokens, e.g. to the draft's "
        f"n_predict ({per_round})."
    )


def _reads_paths(family: Family) -> bool:
    """Whether some source is a dotted path, or some method copies draft fields (the
    generated module then reads by path)."""
    paths = [
        source
        for v in family.variants
        for m in v.methods
        for source in (*m.tokens_per_round_sources, *(f.source for f in m.draft_fields))
    ]
    copies = any(m.draft_fields for v in family.variants for m in v.methods)
    return copies or any("." in path for path in paths)


def _composite_model_types(family: Family) -> tuple[str, ...] | None:
    if not _reads_paths(family):
        return None
    return tuple(t for v in family.variants for t in v.composite_model_types)


def plan_speculative(family: Family, sources: SourceMap) -> SpeculativePlan:
    methods = []
    for method in family_methods(family):
        groups: dict[tuple, list[Variant]] = {}
        for variant in family.variants:
            found = variant.method(method)
            if found is None:
                continue
            rule = found.num_speculative_tokens
            groups.setdefault(
                (rule.divisibility, rule.maximum, rule.warn_above, rule.warning, found.label), []
            ).append(variant)
        rules = tuple(
            TokenRuleGroup(
                model_type_test([t for v in members for t in v.model_types]),
                divisibility.value,
                maximum,
                warn_above,
                warning,
                label,
                tuple(  # an inherited rule is one place in the spec files, named once
                    dict.fromkeys(
                        sources.ref(
                            v.name, "speculative", "methods", method.value, "num_speculative_tokens"
                        )
                        for v in members
                    )
                ),
            )
            for (divisibility, maximum, warn_above, warning, label), members in groups.items()
            if divisibility is not Divisibility.NONE
            or maximum is not None
            or warn_above is not None
        )
        labels = [v.method(method).label for v in family.variants if v.method(method) is not None]
        methods.append(
            MethodPlan(
                method.value,
                labels[-1],
                rules,
                all(
                    v.method(method).draft_architecture for v in family.variants if v.method(method)
                ),
                any(
                    v.method(method).draft_architecture for v in family.variants if v.method(method)
                ),
                any(
                    v.method(method).num_speculative_tokens.default_sources
                    for v in family.variants
                    if v.method(method)
                ),
            )
        )
    forbidden = tuple(
        ForbiddenPlan(
            model_type,
            f.method.value,
            forbidden_message(v, f),
            sources.ref(v.name, "speculative", "forbidden", f.method.value),
        )
        for v in family.variants
        for f in v.forbidden
        for model_type in v.model_types
    )
    required = tuple(
        RequiredPlan(
            model_type,
            m.method.value,
            required_message(v, m),
            sources.ref(
                v.name,
                "speculative",
                "methods",
                m.method.value,
                "num_speculative_tokens",
                "default",
            ),
        )
        for v in family.variants
        for m in v.methods
        if m.num_speculative_tokens.required
        for model_type in v.model_types
    )
    sites = plan_sites(family, sources)
    return SpeculativePlan(
        composite_model_types=_composite_model_types(family),
        draft_field_methods=tuple(
            m.value
            for m in family_methods(family)
            if any(s.name == f"{m.value}_draft_fields" for s in sites)
        ),
        family=family.name,
        display_names=tuple((t, v.display_name) for v in family.variants for t in v.model_types),
        family_methods=tuple(m.value for m in family_methods(family)),
        allowed=tuple(
            (t, tuple(m.method.value for m in v.methods))
            for v in family.variants
            for t in v.model_types
        ),
        judged=tuple(
            (t, tuple(m.value for m in judged_methods(family, v)))
            for v in family.variants
            for t in v.model_types
        ),
        forbidden=forbidden,
        required=required,
        methods=tuple(methods),
        adaptive_messages=tuple(
            (t, adaptive_message(v))
            for v in family.variants
            if judges_adaptive_verification(family, v)
            for t in v.model_types
        ),
        adaptive_methods=tuple(
            m.value
            for m in family_methods(family)
            if any(s.name == f"{m.value}_adaptive_verification" for s in sites)
        ),
        some_drafts_lack_architecture=not all(
            m.every_variant_names_an_architecture for m in methods
        ),
        sites=sites,
    )
