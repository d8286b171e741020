"""Model-runner defaults and forbidden runner / CUDA-graph-mode combinations."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import CudaGraphMode, Family, ForbiddenRunnerMode, ModelRunner, RunnerRequirement
from .messages import with_display_name
from .sources import SourceMap

PIECEWISE_MODES = frozenset(m for m in CudaGraphMode if m.has_piecewise_cudagraphs)


# How vLLM 0.33.0 words a config that asks for features the chosen runner lacks
# (vllm/config/vllm.py _validate_v1_model_runner / _validate_v2_model_runner): a fact about the
# engine, not a variant; the features are joined with ", " in the order the spec lists them.
RUNNER_LACKS = {
    ModelRunner.V1: "Model Runner V1 does not support: ",
    ModelRunner.V2: "Model Runner V2 does not yet support: ",
}


@dataclass(frozen=True)
class RequirementPlan:
    """A feature refused on ``refused_on`` (the runner that does not implement it)."""

    use_v2_model_runner: bool  # the runner that refuses it
    speculative_method: str | None
    adaptive_verification: bool
    feature: str
    source: str  # the spec field, for a comment


@dataclass(frozen=True)
class RunnerLacksPlan:
    """The features one runner refuses, and how vLLM words the refusal."""

    use_v2_model_runner: bool
    prefix: str
    requirements: tuple[RequirementPlan, ...]

    @property
    def list_name(self) -> str:
        return "unsupported_on_v2" if self.use_v2_model_runner else "unsupported_on_v1"


@dataclass(frozen=True)
class ForbiddenModePlan:
    name: str
    architectures: tuple[str, ...] | None  # None: every architecture
    use_v2_model_runner: bool | None  # the runner the combination is forbidden on; None: either
    adaptive_verification: bool  # only with adaptive verification
    # When the forbidden modes are exactly the piecewise ones, the check asks the mode itself
    # (has_piecewise_cudagraphs), as vLLM does, instead of listing names.
    piecewise_predicate: bool
    mode_names: tuple[str, ...]
    allowed_mode_names: tuple[str, ...]
    message: str
    source: str  # the spec field, for a comment


@dataclass(frozen=True)
class RunnerPlan:
    family: str
    v2_default_architectures: tuple[tuple[str, str], ...]  # (architecture, source)
    v1_default_architectures: tuple[tuple[str, str], ...]
    forbidden: tuple[ForbiddenModePlan, ...]
    lacks: tuple[RunnerLacksPlan, ...]  # per refusing runner, V1 first
    all_architectures: tuple[str, ...]

    @property
    def checks_architectures(self) -> bool:
        return any(f.architectures for f in self.forbidden)

    @property
    def has_defaults(self) -> bool:
        return bool(self.v2_default_architectures or self.v1_default_architectures)


def _forbidden_plan(mode: ForbiddenRunnerMode, message: str, source: str) -> ForbiddenModePlan:
    modes = frozenset(mode.cudagraph_modes)
    return ForbiddenModePlan(
        name=mode.name,
        architectures=mode.architectures,
        use_v2_model_runner=None
        if mode.model_runner is None
        else mode.model_runner is ModelRunner.V2,
        adaptive_verification=mode.adaptive_verification,
        piecewise_predicate=modes == PIECEWISE_MODES,
        mode_names=tuple(m.value for m in mode.cudagraph_modes),
        allowed_mode_names=tuple(m.value for m in CudaGraphMode if m not in modes),
        message=message,
        source=source,
    )


def _lacks(requirements: dict[tuple, tuple[RunnerRequirement, str]]) -> tuple:
    plans = []
    for refusing in (ModelRunner.V1, ModelRunner.V2):
        members = tuple(
            RequirementPlan(
                refusing is ModelRunner.V2,
                r.speculative_method,
                r.adaptive_verification,
                r.feature,
                source,
            )
            for r, source in requirements.values()
            if r.model_runner is not refusing
        )
        if members:
            plans.append(
                RunnerLacksPlan(refusing is ModelRunner.V2, RUNNER_LACKS[refusing], members)
            )
    return tuple(plans)


def plan_runner(family: Family, sources: SourceMap) -> RunnerPlan:
    defaults: dict[str, tuple[str, str]] = {}
    forbidden: dict[tuple, ForbiddenModePlan] = {}
    requirements: dict[tuple, tuple[RunnerRequirement, str]] = {}
    for variant in family.variants:
        for requirement in variant.runner.requirements:
            # inherited unchanged by a child: one check serves both
            requirements.setdefault(
                (requirement.name, requirement),
                (
                    requirement,
                    sources.ref_text(
                        variant.name, "runner", "requires_model_runner", requirement.name
                    ),
                ),
            )
        for arch, runner in variant.runner.default_model_runner:
            defaults.setdefault(
                arch,
                (
                    runner.value,
                    sources.ref_text(variant.name, "runner", "default_model_runner", arch),
                ),
            )
        for mode in variant.runner.forbidden_modes:
            message = with_display_name(mode.message, variant)
            key = (mode, message)
            if key not in forbidden:  # inherited unchanged by a child: one check serves both
                forbidden[key] = _forbidden_plan(
                    mode,
                    message,
                    sources.ref_text(variant.name, "runner", "forbidden_modes", mode.name),
                )
    return RunnerPlan(
        family=family.name,
        v2_default_architectures=tuple(
            (a, s) for a, (r, s) in sorted(defaults.items()) if r == "v2"
        ),
        v1_default_architectures=tuple(
            (a, s) for a, (r, s) in sorted(defaults.items()) if r == "v1"
        ),
        forbidden=tuple(forbidden.values()),
        lacks=_lacks(requirements),
        all_architectures=tuple(a.name for v in family.variants for a in v.architectures),
    )
