"""The generated ``_binding.py``: the one place that chooses vLLM or the standalone stand-ins."""

from __future__ import annotations

from dataclasses import dataclass

from ..codegen_values import Comment, DocText, DottedPath, Identifier, PyLiteral
from ..model import Family, KvSpecType
from . import engine


@dataclass(frozen=True)
class EngineParent:
    """An engine class a generated backend subclasses (e.g. DeepseekV32IndexerBackend)."""

    name: Identifier
    module: DottedPath
    source: Comment


@dataclass(frozen=True)
class StandaloneKvType:
    name: Identifier
    parent: Identifier | None


@dataclass(frozen=True)
class LayoutMember:
    name: Identifier
    value: PyLiteral


@dataclass(frozen=True)
class BindingPlan:
    vllm_version: DocText
    imports: tuple[engine.EngineImport, ...]
    engine_parents: tuple[EngineParent, ...]
    kv_module: DottedPath
    kv_types: tuple[StandaloneKvType, ...]
    kv_cache_layouts: tuple[LayoutMember, ...]  # KVCacheLayout members the backends name


def engine_parents(family: Family, sources) -> tuple[EngineParent, ...]:
    found: dict[str, EngineParent] = {}
    for variant in family.variants:
        for backend in variant.backends:
            if backend.parent_module is not None and backend.parent not in found:
                found[backend.parent] = EngineParent(
                    Identifier(backend.parent),
                    DottedPath(backend.parent_module),
                    sources.ref(variant.name, "attention_backends", backend.key, "parent_module"),
                )
    return tuple(sorted(found.values(), key=lambda p: p.name.text))


def kv_types(family: Family) -> tuple[KvSpecType, ...]:
    """The KV spec classes the family's variants name (one stand-in class each), in the order
    the oldest variant declares them; a type's parent is the first declaration's. Which types
    are state-like is per variant (plan.kv_cache), not part of the class."""
    found: dict[str, KvSpecType] = {}
    for variant in family.variants:
        for spec_type in variant.kv_cache.spec_types if variant.kv_cache is not None else ():
            found.setdefault(spec_type.name, spec_type)
    return tuple(found.values())


def plan_binding(family: Family, sources) -> BindingPlan:
    layouts = sorted(
        {
            name
            for v in family.variants
            for b in v.backends
            for name in (b.supported_kv_cache_layouts or ())
        }
    )
    imports = [engine.MODEL_REGISTRY, engine.CURRENT_PLATFORM, engine.CUDA_GRAPH_MODE]
    if layouts:
        imports.append(engine.KV_CACHE_LAYOUT)
    return BindingPlan(
        vllm_version=DocText(engine.VLLM_VERSION),
        imports=tuple(imports),
        engine_parents=engine_parents(family, sources),
        kv_module=DottedPath(engine.KV_SPEC_MODULE),
        kv_types=tuple(
            StandaloneKvType(Identifier(t.name), Identifier(t.parent) if t.parent else None)
            for t in kv_types(family)
        ),
        kv_cache_layouts=tuple(LayoutMember(Identifier(n), PyLiteral(n)) for n in layouts),
    )
