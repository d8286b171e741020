"""Model-runner defaults and forbidden runner / CUDA-graph-mode combinations."""

from __future__ import annotations

from dataclasses import dataclass

from ..codegen_values import Comment, Identifier, PyLiteral
from ..model import CudaGraphMode, Family, ForbiddenRunnerMode
from .messages import with_display_name
from .sources import SourceMap

PIECEWISE_MODES = frozenset(m for m in CudaGraphMode if m.has_piecewise_cudagraphs)


@dataclass(frozen=True)
class ForbiddenModePlan:
    name: str
    architectures: tuple[str, ...]
    use_v2_model_runner: bool  # the runner the combination is forbidden on
    # When the forbidden modes are exactly the piecewise ones, the check asks the mode itself
    # (has_piecewise_cudagraphs), as vLLM does, instead of listing names.
    piecewise_predicate: bool
    mode_names: tuple[str, ...]
    allowed_mode_names: tuple[str, ...]
    message: str
    source: Comment

    @property
    def mode_names_py(self) -> PyLiteral:
        return PyLiteral(list(self.mode_names))

    @property
    def architectures_py(self) -> PyLiteral:
        return PyLiteral(list(self.architectures))

    @property
    def message_py(self) -> PyLiteral:
        return PyLiteral(self.message)


@dataclass(frozen=True)
class RunnerPlan:
    family: str
    v2_default_architectures: tuple[tuple[str, Comment], ...]  # (architecture, source)
    v1_default_architectures: tuple[tuple[str, Comment], ...]
    forbidden: tuple[ForbiddenModePlan, ...]
    all_architectures: tuple[str, ...]

    @property
    def family_ident(self) -> Identifier:
        return Identifier(self.family)

    @property
    def v2_defaults_py(self) -> tuple[tuple[PyLiteral, Comment], ...]:
        return tuple((PyLiteral(a), s) for a, s in self.v2_default_architectures)

    @property
    def v1_defaults_py(self) -> tuple[tuple[PyLiteral, Comment], ...]:
        return tuple((PyLiteral(a), s) for a, s in self.v1_default_architectures)


def _forbidden_plan(mode: ForbiddenRunnerMode, message: str, source: str) -> ForbiddenModePlan:
    modes = frozenset(mode.cudagraph_modes)
    return ForbiddenModePlan(
        name=mode.name,
        architectures=mode.architectures,
        use_v2_model_runner=mode.model_runner.value == "v2",
        piecewise_predicate=modes == PIECEWISE_MODES,
        mode_names=tuple(m.value for m in mode.cudagraph_modes),
        allowed_mode_names=tuple(m.value for m in CudaGraphMode if m not in modes),
        message=message,
        source=source,
    )


def plan_runner(family: Family, sources: SourceMap) -> RunnerPlan:
    defaults: dict[str, tuple[str, Comment]] = {}
    forbidden: dict[tuple, ForbiddenModePlan] = {}
    for variant in family.variants:
        for arch, runner in variant.runner.default_model_runner:
            defaults.setdefault(
                arch,
                (runner.value, sources.ref(variant.name, "runner", "default_model_runner", arch)),
            )
        for mode in variant.runner.forbidden_modes:
            message = with_display_name(mode.message, variant)
            key = (mode.name, mode.architectures, mode.model_runner, mode.cudagraph_modes, message)
            if key not in forbidden:  # inherited unchanged by a child: one check serves both
                forbidden[key] = _forbidden_plan(
                    mode, message, sources.ref(variant.name, "runner", "forbidden_modes", mode.name)
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
        all_architectures=tuple(a.name for v in family.variants for a in v.architectures),
    )
