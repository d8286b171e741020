"""Every engine name a spec uses is one vLLM 0.33.0 has, checked at build time.

The facts are the committed ``engine_names.json`` (spec/engine_facts.py), never an installed
vLLM: a KV spec type, a model module or a class the release lacks is a located error that lists
what the release has, instead of generated code that fails on import under that very release
(issue 26: "the installed vLLM 0.33.0 lacks: ...RingStateSpec").
"""

from __future__ import annotations

import keyword

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


def _dotted(module: object) -> bool:
    """A dotted Python name: anything else is the name rules' error, not a second one here."""
    return isinstance(module, str) and all(
        part.isidentifier() and not keyword.iskeyword(part) for part in module.split(".")
    )


def _engine_class(
    modules: dict,
    module: object,
    cls: object,
    at: tuple[tuple, tuple],
    role: str,
    report: Report,
    defines: str = "it",
) -> None:
    """`module` is a module of vLLM 0.33.0 and `cls` a name its top level binds: the generated
    code imports `cls` from `module`, so a miss would fail only on import. `at` locates a
    module miss and a class miss; `defines` is how the module message names the class."""
    if not _dotted(module):
        return
    if module not in modules:
        near = [m for m in modules if m.rpartition(".")[0] == module.rpartition(".")[0]]
        report(
            at[0],
            f"vLLM {VLLM_VERSION} has no module {module!r} to take the {role} from: name the "
            f"module that defines {defines}" + did_you_mean(module, near or modules),
        )
        return
    names = modules[module]["names"]
    if isinstance(cls, str) and cls not in names and not modules[module]["getattr"]:
        for_role = "" if defines != "it" else f" for the {role}"
        report(
            at[1],
            f"{module} in vLLM {VLLM_VERSION} binds no {cls!r}{for_role} (it has "
            f"{_listed(names)})" + did_you_mean(cls, names),
        )


def _backend_names_in_engine(spec: ResolvedSpec, report: Report) -> None:
    """An attention backend's vLLM base class (`parent_module` / `parent`), metadata builder
    (`metadata_builder.module` / `class`) and sparse backend class (`class_path`) are names
    vLLM 0.33.0 has."""
    facts = engine_names()
    modules = {**facts["model_modules"], **facts["backend_modules"]}
    for name, body in (spec.data.get("attention_backends") or {}).items():
        if not isinstance(body, dict):
            continue
        here = ("attention_backends", name)
        # located at the module key for a module miss and at `parent` for a class miss
        _engine_class(
            modules,
            body.get("parent_module"),
            body.get("parent"),
            (here + ("parent_module",), here + ("parent",)),
            "base backend",
            report,
            defines="`parent`",
        )
        builder = body.get("metadata_builder")
        # a sparse_mla entry with a builder is rules._sparse_mla_entries' error
        if isinstance(builder, dict) and body.get("kind") != "sparse_mla":
            _engine_class(
                modules,
                builder.get("module"),
                builder.get("class"),
                (here + ("metadata_builder", "module"), here + ("metadata_builder", "class")),
                "metadata builder",
                report,
            )
        path = body.get("class_path")
        if _dotted(path) and "." in path:
            module, _, cls = path.rpartition(".")
            _class_path_in_engine(modules, module, cls, here + ("class_path",), report)


def _class_path_in_engine(modules: dict, module: str, cls: str, where: tuple, report) -> None:
    if module not in modules:
        report(
            where,
            f"vLLM {VLLM_VERSION} has no module {module!r}: `class_path` is module.Class of a "
            "backend vLLM ships" + did_you_mean(module, modules),
        )
    elif cls not in modules[module]["names"] and not modules[module]["getattr"]:
        names = modules[module]["names"]
        report(
            where,
            f"{module} in vLLM {VLLM_VERSION} binds no {cls!r} (it has {_listed(names)})"
            + did_you_mean(cls, names),
        )
