"""Registry tables and the vLLM plugin hook."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import Family, RegistryTable
from .sources import SourceMap

# Target architectures are the ones a user serves (TARGET_MODELS). vLLM 0.33.0 resolves a draft
# architecture (DeepSeekV4MTPModel, DSparkDraftModel, ...) through the same ModelRegistry, so
# register() registers every table, drafts included [ref §0 Registry].
TARGET_TABLES = (RegistryTable.TEXT_GENERATION, RegistryTable.MULTIMODAL)

# vLLM's tables name a module of this package by its name inside it ("qwen3_next"), any other
# by its full path (vllm/model_executor/models/registry.py, _LazyRegisteredModel); the
# generated tables spell entries as vLLM's do.
ENGINE_MODELS_PACKAGE = "vllm.model_executor.models"


def table_module(module: str) -> str:
    return module.removeprefix(ENGINE_MODELS_PACKAGE + ".")


@dataclass(frozen=True)
class RegistryEntry:
    architecture: str
    module: str
    class_name: str
    variant: str
    source: str  # the spec line the entry comes from, for a comment
    engine_module: str = ""  # the module as the spec names it (what vLLM imports)

    @property
    def target(self) -> str:
        """What register() hands vLLM: "module:Class", the module by its full path."""
        return f"{self.engine_module}:{self.class_name}"


@dataclass(frozen=True)
class RegistryTablePlan:
    name: str  # the public name in the generated module, e.g. TEXT_GENERATION_MODELS
    engine_name: str  # the dict in vLLM's registry.py
    entries: tuple[RegistryEntry, ...]


@dataclass(frozen=True)
class RegistryPlan:
    family: str
    variants: tuple[str, ...]
    tables: tuple[RegistryTablePlan, ...]
    target_tables: tuple[str, ...]
    registered_tables: tuple[str, ...]  # the tables register() walks: each one with an entry
    # some entry names its module relative to ENGINE_MODELS_PACKAGE, as vLLM's tables do
    relative_modules: bool = False
    engine_models_package: str = ENGINE_MODELS_PACKAGE


def plan_registry(family: Family, sources: SourceMap) -> RegistryPlan:
    tables = []
    for table in RegistryTable:
        # A child that inherits an architecture carries the same entry (the family check
        # rejects two different ones): it is emitted once, under the spec that declared it.
        first: dict[str, RegistryEntry] = {}
        for v in family.variants:
            for arch in v.architectures:
                if arch.registry is table and arch.name not in first:
                    first[arch.name] = RegistryEntry(
                        arch.name,
                        table_module(arch.module),
                        arch.class_name,
                        v.name,
                        sources.ref_text(v.name, "architectures", arch.name),
                        arch.module,
                    )
        entries = tuple(first.values())
        tables.append(RegistryTablePlan(table.value.upper() + "_MODELS", table.dict_name, entries))
    return RegistryPlan(
        family=family.name,
        variants=tuple(v.name for v in family.variants),
        tables=tuple(tables),
        target_tables=tuple(t.value.upper() + "_MODELS" for t in TARGET_TABLES),
        registered_tables=tuple(t.name for t in tables if t.entries),
        relative_modules=any(not e.module.startswith("vllm.") for t in tables for e in t.entries),
    )
