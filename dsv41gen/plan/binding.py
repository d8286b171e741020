"""The generated ``_binding.py``: the one place that chooses vLLM or the standalone stand-ins."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Family, KvSpecType
from . import engine


@dataclass(frozen=True)
class EngineParent:
    """An engine class a generated backend subclasses (e.g. DeepseekV32IndexerBackend)."""

    name: str
    module: str
    source: str


@dataclass(frozen=True)
class StandaloneKvType:
    name: str
    parent: str | None


@dataclass(frozen=True)
class BindingPlan:
    vllm_version: str
    imports: tuple[engine.EngineImport, ...]
    engine_parents: tuple[EngineParent, ...]
    kv_module: str
    kv_types: tuple[StandaloneKvType, ...]
    kv_cache_layouts: tuple[str, ...]  # KVCacheLayout members the backends name


def engine_parents(family: Family, sources) -> tuple[EngineParent, ...]:
    found: dict[str, EngineParent] = {}
    for variant in family.variants:
        for backend in variant.backends:
            if backend.parent_module is not None and backend.parent not in found:
                found[backend.parent] = EngineParent(
                    backend.parent,
                    backend.parent_module,
                    sources.ref(variant.name, "attention_backends", backend.key, "parent_module"),
                )
    return tuple(sorted(found.values(), key=lambda p: p.name))


def kv_types(family: Family) -> tuple[KvSpecType, ...]:
    """The KV spec class hierarchy, from the newest variant that declares one."""
    for variant in reversed(family.variants):
        if variant.kv_cache is not None and variant.kv_cache.spec_types:
            return variant.kv_cache.spec_types
    return ()


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
        vllm_version=engine.VLLM_VERSION,
        imports=tuple(imports),
        engine_parents=engine_parents(family, sources),
        kv_module=engine.KV_SPEC_MODULE,
        kv_types=tuple(StandaloneKvType(t.name, t.parent) for t in kv_types(family)),
        kv_cache_layouts=tuple(layouts),
    )
