"""Every engine name a spec uses is one vLLM 0.33.0 has, checked at build time.

The facts are the committed ``engine_names.json`` (spec/engine_facts.py), never an installed
vLLM: a KV spec type, a model module or a class the release lacks is a located error that lists
what the release has, instead of generated code that fails on import under that very release
(issue 26: "the installed vLLM 0.33.0 lacks: ...RingStateSpec").
"""

from __future__ import annotations

from ...errors import did_you_mean
from ..engine_facts import VLLM_VERSION, engine_names
from ..resolve import ResolvedSpec
from .report import Report

# how many of the release's names an error lists before "..." (the did-you-mean names the
# nearest one whatever the count)
LISTED = 20


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f", ... ({len(names)} in all)" if len(names) > LISTED else "")


def _kv_spec_types_in_engine(spec: ResolvedSpec, report: Report) -> None:
    """kv_cache.spec_types names vLLM's classes (the generated predicate imports each one), each
    under the base vLLM gives it; the language cannot define a new spec type."""
    facts = engine_names()
    engine = facts["kv_spec_types"]
    module = facts["kv_spec_module"]
    types = spec.data.get("kv_cache", {}).get("spec_types") or {}
    for name, body in types.items():
        if name not in engine:
            report(
                ("kv_cache", "spec_types", name),
                f"vLLM {VLLM_VERSION} has no KV spec type {name!r} ({module} has "
                f"{_listed(sorted(engine))}): the generated code imports it from there, so "
                "name one of those; a new state type needs a vLLM that defines it"
                + did_you_mean(name, engine),
            )
            continue
        parent = (body or {}).get("parent")
        if parent is None or parent == engine[name] or parent not in types:
            continue  # an undeclared parent is kernels._kv_spec_types' error
        if engine[name] is None:
            fix = f"{name} is the root of the KV spec types: delete its `parent`"
        else:
            fix = (
                f"{name} subclasses {engine[name]}, not {parent!r}: write `parent: {engine[name]}`"
            )
        report(("kv_cache", "spec_types", name, "parent"), f"in vLLM {VLLM_VERSION}, {fix}")


def _registry_targets_in_engine(spec: ResolvedSpec, report: Report) -> None:
    """architectures.*.module is a model module of vLLM 0.33.0 and `class` a name its top level
    binds (a module with a ``__getattr__`` may resolve any name: taken on trust, as the plugin's
    load check does)."""
    modules = engine_names()["model_modules"]
    for arch, body in (spec.data.get("architectures") or {}).items():
        module, cls = (body or {}).get("module"), (body or {}).get("class")
        if not isinstance(module, str):
            continue
        if module not in modules:
            near = [m for m in modules if m.rpartition(".")[0] == module.rpartition(".")[0]]
            report(
                ("architectures", arch, "module"),
                f"vLLM {VLLM_VERSION} has no model module {module!r}: name one it has (a "
                "YAML-only variant runs a model class vLLM ships, e.g. "
                "`module: vllm.models.deepseek_v41`)" + did_you_mean(module, near or modules),
            )
            continue
        names = modules[module]["names"]
        if isinstance(cls, str) and cls not in names and not modules[module]["getattr"]:
            report(
                ("architectures", arch, "class"),
                f"{module} in vLLM {VLLM_VERSION} binds no {cls!r} (it has {_listed(names)})"
                + did_you_mean(cls, names),
            )
