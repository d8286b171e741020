"""The generated ``_binding.py``: the one place that chooses vLLM or the standalone stand-ins."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..spec.model import Family, KvSpecType
from . import engine
from .values import Comment, DocText, DottedPath, Identifier, PyCode, PyLiteral, PyMessage


@dataclass(frozen=True)
class EngineParent:
    """An engine class a generated backend subclasses (e.g. DeepseekV32IndexerBackend)."""

    name: Identifier
    module: DottedPath
    source: Comment


def engine_builders(family: Family, sources) -> tuple[EngineParent, ...]:
    """The engine metadata builder classes the family's backends return from get_builder_cls."""
    found: dict[str, EngineParent] = {}
    for variant in family.variants:
        for backend in variant.backends:
            builder = backend.metadata_builder
            if builder is not None and builder.class_name not in found:
                found[builder.class_name] = EngineParent(
                    Identifier(builder.class_name),
                    DottedPath(builder.module),
                    sources.ref(
                        variant.name, "attention_backends", backend.key, "metadata_builder"
                    ),
                )
    return tuple(sorted(found.values(), key=lambda p: p.name.text))


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
    engine_builders: tuple[EngineParent, ...]
    kv_module: DottedPath
    kv_types: tuple[StandaloneKvType, ...]
    kv_cache_layouts: tuple[LayoutMember, ...]  # KVCacheLayout members the backends name
    family: Identifier

    @property
    def engine_names(self) -> tuple[PyLiteral, ...]:
        """Every (module, name) the package takes from vLLM, checked before any is imported."""
        names = [(i.module, i.name) for i in self.imports]
        names += [(p.module.text, p.name.text) for p in self.engine_parents]
        names += [(b.module.text, b.name.text) for b in self.engine_builders]
        names += [(self.kv_module.text, t.name.text) for t in self.kv_types]
        return tuple(PyLiteral(n) for n in names)

    @property
    def exported_names(self) -> tuple[PyLiteral, ...]:
        """``__all__``: what the package's other modules import from ``_binding``, every vLLM
        name included (a strict type checker takes no implicit re-export)."""
        names = ["ENGINE_NAMES", "EngineMismatchError", "VLLM_AVAILABLE", "ValidationError"]
        names += [i.name for i in self.imports]
        names += [p.name.text for p in (*self.engine_parents, *self.engine_builders)]
        names += [t.name.text for t in self.kv_types]
        names += ["is_device_capability_family", "is_rocm", "literal_error"]
        return tuple(PyLiteral(name) for name in sorted(set(names), key=_isort_style))

    @property
    def mismatch_message(self) -> PyMessage:
        """Raised at import when vLLM is installed but lacks a name: which ones, which vLLM."""
        return PyMessage(
            (
                f"the {self.family.text} package was generated for vLLM {engine.VLLM_VERSION}, "
                "but the installed vLLM ",
                PyCode("installed"),
                " lacks: ",
                PyCode("missing_names"),
                f". Install vllm=={engine.VLLM_VERSION}, or rebuild the specs for this vLLM.",
            )
        )


def _isort_style(name: str) -> tuple[int, list[object]]:
    """The order ruff's RUF022 keeps ``__all__`` in: constants, then classes, then the rest,
    each in natural order (``V4`` before ``V32``)."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


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
        engine_builders=engine_builders(family, sources),
        kv_module=DottedPath(engine.KV_SPEC_MODULE),
        kv_types=tuple(
            StandaloneKvType(Identifier(t.name), Identifier(t.parent) if t.parent else None)
            for t in kv_types(family)
        ),
        kv_cache_layouts=tuple(LayoutMember(Identifier(n), PyLiteral(n)) for n in layouts),
        family=Identifier(family.name),
    )
