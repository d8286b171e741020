"""Plan stage: typed model in, the list of files to emit out.

Every decision about generated code is made here, in Python: which files exist, which classes
override what, where variants merge into one branch and where they fork. Templates only lay the
decided values out. Each planned file records the planner rule that produced it, which
``dsv41gen why`` reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ..spec.model import Family
from .sources import SourceMap
from .values import Identifier, LiteralTable


@dataclass(frozen=True)
class OutputFile:
    path: str  # relative to the output directory, POSIX separators
    template: str  # under templates/
    context: tuple[tuple[str, object], ...]  # keyword arguments for the template
    rule: str = ""  # the planner rule behind the file, for `dsv41gen why`
    # The variants whose specs the file comes from; empty: the whole family. Its header names
    # their lineages' specs only.
    variants: tuple[str, ...] = ()

    @property
    def comment_prefix(self) -> str:
        return "//" if PurePosixPath(self.path).suffix in (".cu", ".cuh", ".cpp", ".h") else "#"


@dataclass(frozen=True)
class FamilyPlan:
    family: Family
    files: tuple[OutputFile, ...]


RULES = {
    "registry": "plan.registry: one entry per architecture, in the registry table its spec names; register() registers every table, drafts included",
    "binding": "plan.binding: vLLM's real classes when importable, stand-ins otherwise, chosen in this one module",
    "backends": "plan.backends: a backend subclasses its parent and overrides only what its spec changes; capability families equal to the default fold into it",
    "dispatch": "plan.dispatch: variants grouped by their resolved answer per site; alike answers merge into one membership test, different answers fork",
    "speculative": "plan.speculative: forbidden methods raise a message derived from the weight sets; tokens per round and num_speculative_tokens rules per (variant, method)",
    "runner": "plan.runner: features only one model runner implements, then forbidden (architecture, runner, final cudagraph mode) combinations, deduplicated across variants",
    "checkpoint": "plan.checkpoint: required/optional weights per (variant, method), expanded per stage prefix",
    "kv_cache": "plan.kv_cache: is_state_bucket from the spec types marked state-like, used by both KV planning sites",
    "linear_attention": "plan.linear_attention: a hybrid family's linear-attention layer state, each dimension printed from its checked expression",
    "plugin": "plan.plugin: one hook per vLLM wiring site the specs cover, all targets checked before any is patched; a spec without `engine` gets no plugin",
    "tests": "plan.tests: generated tests pin each generated validator on both sides of every boundary",
    "mxfp8": "plan.mxfp8: one Triton module per distinct MX format of the family (exact scale arithmetic, reciprocal scaling)",
    "config_hooks": "plan.config_hooks: per architecture, the spec's config_hooks rules in order, as data one interpreter runs; a family without hooks gets no module",
    "markers": "plan.markers: every family package is typed (py.typed, PEP 561) and marked generated for GitHub (.gitattributes: linguist-generated)",
    "rope_kv": "plan.rope_kv: one CUDA extension per distinct kernels.rope_kv_insert section, built from dsv41gen's kernel sources and this configuration; instantiations exactly for the spec's kNumHeadsQPadded set",
}


def _file(
    path: str, template: str, rule: str, variants: tuple[str, ...] = (), **context: object
) -> OutputFile:
    return OutputFile(path, template, tuple(context.items()), RULES[rule], variants)


def plan_family(family: Family, sources: SourceMap) -> FamilyPlan:
    from . import (
        backends,
        binding,
        checkpoint,
        config_hooks,
        kv_cache,
        linear_attention,
        plugin,
        registry,
        runner,
        speculative,
    )

    package = family.name
    registry_plan = registry.plan_registry(family, sources)
    spec_plan = speculative.plan_speculative(family, sources)
    plugin_plan = plugin.plan_plugin(family, sources)
    files = [
        _file(f"{package}/py.typed", "package/py.typed.j2", "markers"),
        _file(f"{package}/.gitattributes", "package/gitattributes.j2", "markers"),
        _file(
            f"{package}/__init__.py",
            "python/package_init.py.j2",
            "registry",
            plan=registry_plan,
            plugin=plugin_plan,
        ),
        _file(f"{package}/registry.py", "python/registry.py.j2", "registry", plan=registry_plan),
        _file(
            f"{package}/_binding.py",
            "python/binding.py.j2",
            "binding",
            plan=binding.plan_binding(family, sources),
        ),
        _file(f"{package}/dispatch.py", "python/dispatch.py.j2", "dispatch", plan=spec_plan),
        _file(
            f"{package}/speculative.py", "python/speculative.py.j2", "speculative", plan=spec_plan
        ),
        _file(
            f"{package}/runner.py",
            "python/runner.py.j2",
            "runner",
            plan=runner.plan_runner(family, sources),
        ),
        _file(
            f"{package}/checkpoint.py",
            "python/checkpoint.py.j2",
            "checkpoint",
            plan=checkpoint.plan_checkpoint(family, sources),
        ),
    ]
    hooks_plan = config_hooks.plan_config_hooks(family, sources)
    if hooks_plan is not None:  # a family without config hooks gets no empty module
        files.append(
            _file(
                f"{package}/config_hooks.py",
                "python/config_hooks.py.j2",
                "config_hooks",
                plan=hooks_plan,
            )
        )
    if _has_backends(family):  # a family without attention backends gets no empty module
        files.append(
            _file(
                f"{package}/backends.py",
                "python/backends.py.j2",
                "backends",
                plan=backends.plan_backends(family, sources),
            )
        )
    if plugin_plan is not None:
        files.append(
            _file(
                f"{package}/plugin.py",
                "python/plugin.py.j2",
                "plugin",
                plan=plugin_plan,
                registry=registry_plan,
            )
        )
        files.append(
            _file(
                f"{package}/pyproject.toml", "python/pyproject.toml.j2", "plugin", plan=plugin_plan
            )
        )
        # the license file the wheel's pyproject.toml names (PEP 639 license-files)
        files.append(_file(f"{package}/LICENSE", "package/LICENSE.j2", "plugin"))
        files.append(
            _file(
                f"{package}/plugin_status.py",
                "python/plugin_status.py.j2",
                "plugin",
                plan=plugin_plan,
            )
        )
    kv_plan = kv_cache.plan_kv_cache(family, sources)
    if kv_plan is not None:
        files.append(
            _file(f"{package}/kv_cache.py", "python/kv_cache.py.j2", "kv_cache", plan=kv_plan)
        )
    linear_plan = linear_attention.plan_linear_attention(family, sources)
    if linear_plan is not None:  # validation refuses it beside kv_cache.spec_types
        files.append(
            _file(
                f"{package}/kv_cache.py",
                "python/linear_attention.py.j2",
                "linear_attention",
                plan=linear_plan,
            )
        )
    files += _test_files(family, sources, package, spec_plan)
    files += _kernel_files(family, sources, package)
    files.sort(key=lambda f: f.path)
    paths = [f.path for f in files]
    # render_files keys the texts by path: a second file of one path would replace the first
    assert len(set(paths)) == len(paths), f"two generated files share a path: {sorted(paths)}"
    return FamilyPlan(family, tuple(files))


def _has_backends(family: Family) -> bool:
    return any(v.backends for v in family.variants)


def _distinct(family: Family, value_of) -> list[tuple[str, object]]:
    """(introducing variant, value) for each kernel section a variant's lineage introduced: the
    nearest ancestor-or-self whose parent has a different value. A child that inherits a
    section unchanged reuses its parent's generated kernel instead of emitting a copy, and what
    a file is named after depends on the variant's own lineage only: adding a sibling never
    renames an existing variant's module."""
    by_name = {v.name: v for v in family.variants}
    seen: dict[str, object] = {}
    for variant in family.variants:
        value = value_of(variant)
        if value is None:
            continue
        introducer = variant
        while introducer.parent is not None and value_of(by_name[introducer.parent]) == value:
            introducer = by_name[introducer.parent]
        seen.setdefault(introducer.name, value)
    return list(seen.items())


def _planned(planner, args: tuple, sources: SourceMap, variant: str, *path: str):
    """Run a kernel planner. Validation checks every spec against the emitters' capability
    tables (capabilities.py) first, so a planner that still refuses is a bug in dsv41gen: it
    surfaces as an internal error naming the section, not as a spec error."""
    try:
        return planner(*args)
    except (ValueError, AssertionError) as error:
        where = sources.location(variant, *path)
        raise AssertionError(
            f"validation admitted {'.'.join(path)} ({where}) but its planner refused it: {error}"
        ) from error


def _kernel_files(family: Family, sources: SourceMap, package: str) -> list[OutputFile]:
    from .mxfp8 import plan_mxfp8
    from .rope_kv import plan_rope_kv, source_context

    files = []
    formats = _distinct(family, lambda v: v.mxfp8)
    for variant, fmt in formats:
        # The root's format is the family's `mxfp8` module; a variant that introduces its own
        # gets a module named after it.
        module = "mxfp8" if variant == family.name else f"mxfp8_{variant}"
        plan = _planned(plan_mxfp8, (fmt, module), sources, variant, "quantization", "mxfp8")
        files.append(
            _file(f"{package}/{module}.py", "triton/mxfp8.py.j2", "mxfp8", (variant,), plan=plan)
        )
        files.append(
            _file(
                f"{package}/{plan.reference_module_name}.py",
                "triton/mxfp8_reference.py.j2",
                "mxfp8",
                (variant,),
                plan=plan,
            )
        )
    for variant, kernel in _distinct(family, lambda v: v.rope_kv_insert):
        plan = _planned(
            plan_rope_kv, (kernel, variant), sources, variant, "kernels", "rope_kv_insert"
        )
        # The kernels themselves are dsv41gen's kernel sources (dsv41gen/kernels), compiled and
        # imported from the installed dsv41gen: only the variant's configuration is generated.
        for source in plan.sources:
            context = source_context(plan, source)
            path = f"{package}/{source.path}"
            files.append(_file(path, source.template, "rope_kv", (variant,), **context))
    return files


def _test_files(family: Family, sources: SourceMap, package: str, spec_plan) -> list[OutputFile]:
    from . import backends, checkpoint, kv_cache, registry, runner, tests

    out = f"{package}/tests"
    backends_plan = backends.plan_backends(family, sources)
    runner_plan = runner.plan_runner(family, sources)
    checkpoint_plan = checkpoint.plan_checkpoint(family, sources)
    files = [
        _file(
            f"{out}/__init__.py", "python/tests/init.py.j2", "tests", family=Identifier(family.name)
        ),
        _file(
            f"{out}/test_registry.py",
            "python/tests/test_registry.py.j2",
            "tests",
            plan=registry.plan_registry(family, sources),
        ),
        _file(
            f"{out}/test_speculative.py",
            "python/tests/test_speculative.py.j2",
            "tests",
            plan=spec_plan,
            tests=LiteralTable(tests.speculative_tests(family, spec_plan)),
        ),
        _file(
            f"{out}/test_runner.py",
            "python/tests/test_runner.py.j2",
            "tests",
            plan=runner_plan,
            tests=LiteralTable(tests.runner_tests(family, runner_plan, sources)),
        ),
        _file(
            f"{out}/test_checkpoint.py",
            "python/tests/test_checkpoint.py.j2",
            "tests",
            plan=checkpoint_plan,
            tests=LiteralTable(tests.checkpoint_tests(family, checkpoint_plan)),
        ),
    ]
    if _has_backends(family):
        files.append(
            _file(
                f"{out}/test_backends.py",
                "python/tests/test_backends.py.j2",
                "tests",
                plan=backends_plan,
                tests=LiteralTable(tests.backend_tests(family, backends_plan)),
            )
        )
    kv_plan = kv_cache.plan_kv_cache(family, sources)
    if kv_plan is not None:
        files.append(
            _file(
                f"{out}/test_kv_cache.py",
                "python/tests/test_kv_cache.py.j2",
                "tests",
                plan=kv_plan,
                tests=LiteralTable(tests.kv_tests(family, kv_plan)),
            )
        )
    return files
