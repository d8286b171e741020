"""Attention backend subclasses: each class overrides only what its spec changes.

A backend whose parent is another backend of the family inherits everything it does not
state; a stated value equal to the inherited one is not emitted either (no redundant override).
Capability families that resolve to the default block sizes are folded into the default, so
the generated lookup has no branch that returns what the fallback returns anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.hierarchy import BackendCycle as BackendCycle  # the class a failed order raises
from ..spec.hierarchy import parent_first, unique_backends
from ..spec.model import AttentionBackend, BackendKind, Family, KernelBlockSizes
from .sources import SourceMap
from .values import Comment, PyLiteral


@dataclass(frozen=True)
class BlockSizesPlan:
    by_family: tuple[
        tuple[int, tuple[int, ...]], ...
    ]  # (family number, sizes), only where != default
    default: tuple[int, ...]
    note: str | None
    source: Comment

    @property
    def by_family_py(self) -> PyLiteral:
        return PyLiteral({family: list(sizes) for family, sizes in self.by_family})


@dataclass(frozen=True)
class BackendClassPlan:
    class_name: str
    parent: str
    variant: str
    source: str
    name: str  # get_name() always differs: registered names are unique
    block_sizes: BlockSizesPlan | None  # None: inherited
    head_sizes: tuple[int, ...] | None  # None: inherited
    head_sizes_source: str | None
    supports_pcp: bool | None  # None: inherited
    supports_pcp_source: str | None
    rocm_query_lens_mismatch: str | None  # source ref when overridden
    kv_cache_layouts: tuple[str, ...] | None
    kv_cache_layouts_source: str | None
    builder: str | None  # the engine builder class get_builder_cls() returns, when overridden
    builder_source: str | None
    inherited: tuple[str, ...]  # what the class takes from its parent, for the docstring


@dataclass(frozen=True)
class SparseMlaPlan:
    name: str
    variant: str
    block_sizes: BlockSizesPlan
    platform: str
    platform_source: Comment


@dataclass(frozen=True)
class BackendsPlan:
    family: str
    classes: tuple[BackendClassPlan, ...]
    sparse_mla: tuple[SparseMlaPlan, ...]
    engine_parents: tuple[str, ...]
    uses_rocm: bool
    binding_imports: tuple[str, ...]  # names backends.py takes from _binding


def _block_sizes(sizes: KernelBlockSizes, source: str) -> BlockSizesPlan:
    by_family = tuple(
        (family.number, values) for family, values in sizes.by_family if values != sizes.default
    )
    return BlockSizesPlan(by_family, sizes.default, sizes.note, source)


def _unique_backends(family: Family) -> list[tuple[str, AttentionBackend]]:
    """(declaring variant, backend) once per key, parents before children; a child that
    inherits an entry unchanged does not emit it again (validation already rejected two
    different entries under one key)."""
    return parent_first(unique_backends(family.variants))


def effective_field(key: str | None, field: str, by_key: dict[str, AttentionBackend]):
    """A field's value as a backend of the family sees it: its own, else its nearest ancestor's."""
    backend = by_key.get(key) if key else None
    while backend is not None:
        value = getattr(backend, field)
        if value is not None:
            return value
        backend = by_key.get(backend.parent) if backend.parent else None
    return None


def _overrides(backend: AttentionBackend, field: str, by_key: dict[str, AttentionBackend]) -> bool:
    """Whether the class must override ``field``: the spec states it, and it differs from what
    the parent class already gives (an engine parent gives nothing we know of)."""
    mine = getattr(backend, field)
    if mine is None:
        return False
    return backend.parent not in by_key or mine != effective_field(backend.parent, field, by_key)


def plan_backends(family: Family, sources: SourceMap) -> BackendsPlan:
    unique = _unique_backends(family)
    by_key = {b.key: b for _, b in unique}

    classes, sparse = [], []
    for variant, backend in unique:
        ref = sources.ref
        here = ("attention_backends", backend.key)
        if backend.kind is BackendKind.SPARSE_MLA:
            sparse.append(
                SparseMlaPlan(
                    backend.name,
                    variant,
                    _block_sizes(
                        backend.kernel_block_sizes, ref(variant, *here, "kernel_block_sizes")
                    ),
                    backend.platform.value,
                    ref(variant, *here, "platform"),
                )
            )
            continue
        inherited_from_family = backend.parent in by_key

        def overrides(field: str, backend: AttentionBackend = backend) -> bool:
            return _overrides(backend, field, by_key)

        block = (
            _block_sizes(backend.kernel_block_sizes, ref(variant, *here, "kernel_block_sizes"))
            if overrides("kernel_block_sizes")
            else None
        )
        rocm = (
            ref(variant, *here, "supports_device_cpu_query_lens_mismatch_on_rocm")
            if overrides("supports_device_cpu_query_lens_mismatch_on_rocm")
            and backend.supports_device_cpu_query_lens_mismatch_on_rocm
            else None
        )
        layouts = (
            backend.supported_kv_cache_layouts if overrides("supported_kv_cache_layouts") else None
        )
        builder = backend.metadata_builder if overrides("metadata_builder") else None
        heads = backend.supported_head_sizes if overrides("supported_head_sizes") else None
        parent_heads = effective_field(backend.parent, "supported_head_sizes", by_key)
        pcp = backend.supports_pcp if overrides("supports_pcp") else None
        parent_pcp = effective_field(backend.parent, "supports_pcp", by_key)
        inherited = tuple(
            label
            for label, present in (
                ("get_supported_kernel_block_sizes", block is not None),
                ("get_builder_cls", builder is not None),
                ("supports_device_cpu_query_lens_mismatch", rocm is not None),
                ("supported_kv_cache_layouts", layouts is not None),
                ("get_supported_head_sizes", heads is not None or parent_heads is None),
                ("supports_pcp", pcp is not None or parent_pcp is None),
            )
            if not present and inherited_from_family
        )
        classes.append(
            BackendClassPlan(
                class_name=backend.key,
                parent=backend.parent,
                variant=variant,
                source=ref(variant, *here),
                name=backend.name,
                block_sizes=block,
                head_sizes=heads,
                head_sizes_source=ref(variant, *here, "supported_head_sizes")
                if heads is not None
                else None,
                supports_pcp=pcp,
                supports_pcp_source=ref(variant, *here, "supports_pcp")
                if pcp is not None
                else None,
                rocm_query_lens_mismatch=rocm,
                kv_cache_layouts=layouts,
                kv_cache_layouts_source=ref(variant, *here, "supported_kv_cache_layouts")
                if layouts
                else None,
                builder=builder.class_name if builder else None,
                builder_source=ref(variant, *here, "metadata_builder") if builder else None,
                inherited=inherited,
            )
        )
    parents = tuple(sorted({c.parent for c in classes if c.parent not in by_key}))
    builders = tuple(sorted({c.builder for c in classes if c.builder}))
    layouts = ("KVCacheLayout",) if any(c.kv_cache_layouts for c in classes) else ()
    return BackendsPlan(
        family=family.name,
        classes=tuple(classes),
        sparse_mla=tuple(sparse),
        engine_parents=parents,
        uses_rocm=any(c.rocm_query_lens_mismatch for c in classes),
        binding_imports=tuple(sorted(parents + builders + layouts)),
    )
