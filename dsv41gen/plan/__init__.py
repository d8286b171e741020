"""Plan stage: typed model in, the list of files to emit out.

Every decision about generated code is made here, in Python: which files exist, which classes
override what, where variants merge into one branch and where they fork. Templates only lay the
decided values out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ..model import Family
from .sources import SourceMap


@dataclass(frozen=True)
class OutputFile:
    path: str  # relative to the output directory, POSIX separators
    template: str  # under templates/
    context: tuple[tuple[str, object], ...]  # keyword arguments for the template

    @property
    def comment_prefix(self) -> str:
        return "//" if PurePosixPath(self.path).suffix in (".cu", ".cuh", ".cpp", ".h") else "#"


@dataclass(frozen=True)
class FamilyPlan:
    family: Family
    files: tuple[OutputFile, ...]


def plan_family(family: Family, sources: SourceMap) -> FamilyPlan:
    from . import backends, binding, checkpoint, kv_cache, registry, runner, speculative

    package = family.name
    files: list[OutputFile] = []
    files += registry.plan_files(family, sources, package)
    files.append(
        OutputFile(f"{package}/_binding.py", "python/binding.py.j2", (("plan", binding.plan_binding(family, sources)),))
    )
    files.append(
        OutputFile(
            f"{package}/backends.py", "python/backends.py.j2", (("plan", backends.plan_backends(family, sources)),)
        )
    )
    spec_plan = speculative.plan_speculative(family, sources)
    files.append(OutputFile(f"{package}/dispatch.py", "python/dispatch.py.j2", (("plan", spec_plan),)))
    files.append(OutputFile(f"{package}/speculative.py", "python/speculative.py.j2", (("plan", spec_plan),)))
    files.append(
        OutputFile(f"{package}/runner.py", "python/runner.py.j2", (("plan", runner.plan_runner(family, sources)),))
    )
    files.append(
        OutputFile(
            f"{package}/checkpoint.py",
            "python/checkpoint.py.j2",
            (("plan", checkpoint.plan_checkpoint(family, sources)),),
        )
    )
    kv_plan = kv_cache.plan_kv_cache(family, sources)
    if kv_plan is not None:
        files.append(OutputFile(f"{package}/kv_cache.py", "python/kv_cache.py.j2", (("plan", kv_plan),)))
    files += _test_files(family, sources, package, spec_plan)
    files.sort(key=lambda f: f.path)
    return FamilyPlan(family, tuple(files))


def _test_files(family: Family, sources: SourceMap, package: str, spec_plan) -> list[OutputFile]:
    from . import backends, checkpoint, kv_cache, registry, runner, tests

    out = f"{package}/tests"
    backends_plan = backends.plan_backends(family, sources)
    runner_plan = runner.plan_runner(family, sources)
    checkpoint_plan = checkpoint.plan_checkpoint(family, sources)
    files = [
        OutputFile(f"{out}/__init__.py", "python/tests/init.py.j2", (("family", family.name),)),
        OutputFile(
            f"{out}/test_registry.py",
            "python/tests/test_registry.py.j2",
            (("plan", registry.plan_registry(family, sources)),),
        ),
        OutputFile(
            f"{out}/test_backends.py",
            "python/tests/test_backends.py.j2",
            (("plan", backends_plan), ("tests", tests.backend_tests(family, backends_plan))),
        ),
        OutputFile(
            f"{out}/test_speculative.py",
            "python/tests/test_speculative.py.j2",
            (("plan", spec_plan), ("tests", tests.speculative_tests(family, spec_plan))),
        ),
        OutputFile(
            f"{out}/test_runner.py",
            "python/tests/test_runner.py.j2",
            (("plan", runner_plan), ("tests", tests.runner_tests(runner_plan))),
        ),
        OutputFile(
            f"{out}/test_checkpoint.py",
            "python/tests/test_checkpoint.py.j2",
            (("plan", checkpoint_plan), ("tests", tests.checkpoint_tests(family, checkpoint_plan))),
        ),
    ]
    kv_plan = kv_cache.plan_kv_cache(family, sources)
    if kv_plan is not None:
        files.append(
            OutputFile(
                f"{out}/test_kv_cache.py",
                "python/tests/test_kv_cache.py.j2",
                (("plan", kv_plan), ("tests", tests.kv_tests(family, kv_plan))),
            )
        )
    return files
