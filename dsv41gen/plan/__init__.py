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
    files.sort(key=lambda f: f.path)
    return FamilyPlan(family, tuple(files))
