"""Build and load one variant's fused RoPE + KV-insert CUDA extension; the variant's runtime.

The generic half of every generated ``rope_kv_<variant>`` module, which holds only its
configuration (extension name, op namespace, its csrc directory and instantiation units, the
spec's values and cache-format table): ``RopeKvVariant`` is everything the module does with it
(``load``, ``packed_cache_format``, ``use_warp_per_slot``, the configured reference).

One torch extension per variant: dsv41gen's bindings and dispatch (beside this file) and the
variant's generated ``rope_kv_inst_h*.cu`` units, compiled against the variant's
``rope_kv_config.h``, with the kernels (``rope_kv_kernel.cuh``, ``rope_kv_core.cuh``) included
from here. The ops land in ``torch.ops.<namespace>``:

- ``fused_deepseek_v4_kv_rope_insert``: the KV-only insert;
- ``fused_deepseek_v4_qnorm_rope_kv_insert``: Q RMSNorm + RoPE and the KV insert;
- ``_debug_set_grid(grid)``: benchmarks and tests only; forces one grid (rule, warp_per_slot,
  reduced) for every later launch in this process.

Imports only the standard library at module level (torch when ``load`` runs or the reference
is first used).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

KERNELS_DIR = Path(__file__).resolve().parent
# Compiled into every variant's extension, from this directory.
GENERIC_SOURCES = ("rope_kv_bindings.cpp", "rope_kv_dispatch.cu")
# What a variant's generated configuration is generated for: the build stamps their digest
# (runtime.source_digest) into it and the generated module checks it at import.
KERNEL_SOURCES = (
    "rope_kv_common.h",
    "rope_kv_kernel.cuh",
    "rope_kv_core.cuh",
    "rope_kv_dispatch.cu",
    "rope_kv_bindings.cpp",
    "rope_kv_loader.py",
    "rope_kv_reference.py",
)
# No fast-math: the kernels spell every rounding with __f*_rn intrinsics anyway, and the
# reference relies on IEEE sqrt / division. No -std either: torch's build picks the standard
# its headers need (a different one than libtorch was built with can break its ABI).
NVCC_FLAGS = ("-O3",)
ARCH_SPECIFIC_TARGETS = ("90", "100")  # sm_90a (Hopper), sm_100a (Blackwell)


def arch_flags(capability: tuple[int, int]) -> list[str]:
    """nvcc target for a device: the arch-specific "a" target where one exists (sm_90a, sm_100a)."""
    arch = f"{capability[0]}{capability[1]}"
    suffix = "a" if arch in ARCH_SPECIFIC_TARGETS else ""
    return [f"-gencode=arch=compute_{arch}{suffix},code=sm_{arch}{suffix}"]


# The one file of a variant's generated directory its extension reads besides its units.
CONFIG_HEADER = "rope_kv_config.h"


@dataclass(frozen=True)
class IncludeFlags:
    """Where a variant's extension finds its headers: its generated directory provides only its
    configuration header.

    That directory is a pull request's to change, and is on no search path: its
    ``rope_kv_config.h`` is pre-included into every unit by its absolute path (``-include``),
    and nothing else is read from it. dsv41gen's kernel sources are included as
    ``<rope_kv_*.h>`` from the one ``-I`` directory, ``kernels_dir``. On ``-I`` (as it was),
    the directory came first for every include, a planted ``rope_kv_common.h``,
    ``cuda_bf16.h`` or ``torch/library.h`` included in place of the real one; on the quote
    path (``-iquote``) it would still provide the ``cuda_runtime.h`` nvcc pre-includes, which
    is looked up like a quoted include."""

    include_paths: tuple[str, ...]  # -I: dsv41gen's kernel sources only
    cflags: tuple[str, ...]  # the host C++ compiler's pre-include of the configuration
    cuda_cflags: tuple[str, ...]  # the same, for nvcc


def include_flags(csrc_dir: Path, kernels_dir: Path = KERNELS_DIR) -> IncludeFlags:
    """The include flags of one variant's extension (see IncludeFlags)."""
    config = ("-include", str(csrc_dir / CONFIG_HEADER))
    return IncludeFlags(include_paths=(str(kernels_dir),), cflags=config, cuda_cflags=config)


def sources(csrc_dir: Path, units: Sequence[str], kernels_dir: Path = KERNELS_DIR) -> list[str]:
    """Every source of one variant's extension: the generic ones, then the variant's units."""
    return [str(kernels_dir / name) for name in GENERIC_SOURCES] + [
        str(csrc_dir / name) for name in units
    ]


def load(
    *,
    extension_name: str,
    namespace: str,
    csrc_dir: Path,
    units: Sequence[str],
    build_directory: str | None = None,
    verbose: bool = False,
    kernels_dir: Path = KERNELS_DIR,
    extra_cuda_flags: Sequence[str] = (),
):
    """Compile (or reuse) the extension for the current CUDA device and return its op namespace.

    kernels_dir and extra_cuda_flags are for experiments on the kernels (benchmarks/
    sweep_rope_kv_kv_only.py: a copy of the sources, -D switches of rope_kv_core.cuh)."""
    import torch
    from torch.utils import cpp_extension

    capability = torch.cuda.get_device_capability()
    files = sources(csrc_dir, units, kernels_dir)
    includes = include_flags(csrc_dir, kernels_dir)
    # The first build compiles every source with nvcc (a minute or more): say so instead of
    # staying silent; later loads reuse torch's build cache and return at once.
    print(
        f"{extension_name}: loading for sm_{capability[0]}{capability[1]}; the first time this "
        f"compiles {len(files)} CUDA sources from {csrc_dir} and {kernels_dir} (a minute or "
        "more; verbose=True shows nvcc's commands)",
        file=sys.stderr,
        flush=True,
    )
    cpp_extension.load(
        name=extension_name,
        sources=files,
        extra_include_paths=list(includes.include_paths),
        extra_cflags=["-O3", *includes.cflags],
        extra_cuda_cflags=[
            *NVCC_FLAGS,
            *includes.cuda_cflags,
            *extra_cuda_flags,
            *arch_flags(capability),
        ],
        build_directory=build_directory,
        verbose=verbose,
        is_python_module=False,
    )
    return getattr(torch.ops, namespace)


# What a generated module exports from its RopeKvVariant (RopeKvVariant.module_attribute): the
# loader and the grid and packed-format rules ...
VARIANT_API = ("load", "packed_cache_format", "use_warp_per_slot")
# ... and the configured torch reference's ops (rope_kv_reference.RopeKvReference).
REFERENCE_OPS = (
    "cache_format",
    "rope",
    "inverse_rms",
    "ue8m0_scale",
    "ue8m0_reciprocal",
    "to_e4m3",
    "encode_kv",
    "kv_rope_insert",
    "rotate_q",
    "qnorm_rope_kv_insert",
)
# The spec's kernels.rope_kv_insert.grid_rule values use_warp_per_slot implements (the same rules
# as the variant's rope_kv_config.h, in C++).
GRID_RULES = ("kv_only_or_below_cutoff",)


@dataclass(frozen=True, eq=False)
class RopeKvVariant:
    """One variant's runtime: what every generated ``rope_kv_<variant>`` module does with the
    values its spec decides.

    The generated module holds only those values, as upper-case constants: each field here, and
    each field of its ``reference`` (``rope_kv_reference.RopeKvReference``), is the module's
    constant of the same name. ``from_module(globals())`` configures this class with them, and
    the module's ``__getattr__`` is ``module_attribute``: it exports ``load``,
    ``packed_cache_format``, ``use_warp_per_slot`` and the reference ops."""

    module: str  # the generated module's __name__
    namespace: str  # torch.ops namespace of the extension
    extension_name: str
    csrc_dir: Path
    units: tuple[str, ...]
    num_token_cutoff: int
    grid_rule: str
    packed_format_by_capability_family: Mapping[str, str]
    packed_format_default: str
    reference: Any  # rope_kv_reference.RopeKvReference: the pure-torch ops, configured

    def __post_init__(self) -> None:
        if self.grid_rule not in GRID_RULES:
            raise ValueError(
                f"{self.module}: grid_rule {self.grid_rule!r} is not one this dsv41gen's runtime "
                f"implements ({', '.join(GRID_RULES)}); rebuild the package with this dsv41gen"
            )

    @classmethod
    def from_module(cls, namespace: Mapping[str, Any]) -> RopeKvVariant:
        """The variant a generated module's globals() configure: its constant of each field."""
        from dsv41gen.kernels.rope_kv_reference import RopeKvReference

        def constants(of, *besides: str) -> dict[str, Any]:
            return {f.name: namespace[f.name.upper()] for f in fields(of) if f.name not in besides}

        reference = RopeKvReference(**constants(RopeKvReference))
        values = constants(cls, "module", "reference")
        return cls(module=namespace["__name__"], reference=reference, **values)

    def load(self, build_directory: str | None = None, verbose: bool = False):
        """Compile (or reuse) the extension for the current CUDA device; its op namespace."""
        return load(
            extension_name=self.extension_name,
            namespace=self.namespace,
            csrc_dir=self.csrc_dir,
            units=self.units,
            build_directory=build_directory,
            verbose=verbose,
        )

    def packed_cache_format(self, capability: tuple[int, int]) -> str:
        """The packed cache format a device of this compute capability uses (sm90 = every 9.x)."""
        family = f"sm{capability[0]}0"
        return self.packed_format_by_capability_family.get(family, self.packed_format_default)

    def use_warp_per_slot(self, num_heads_q_padded: int, num_tokens: int) -> bool:
        """The variant's grid_rule: True for the warp-per-slot grid, else reduced.

        kv_only_or_below_cutoff: the KV-only insert always, else below num_token_cutoff tokens."""
        assert self.grid_rule == "kv_only_or_below_cutoff", self.grid_rule  # __post_init__
        return num_heads_q_padded == 0 or num_tokens < self.num_token_cutoff

    def module_attribute(self, name: str) -> Any:
        """The generated module's ``__getattr__``: its loader, rules and reference ops."""
        if name in VARIANT_API:
            return getattr(self, name)
        if name in REFERENCE_OPS:
            return getattr(self.reference, name)
        raise AttributeError(f"module {self.module!r} has no attribute {name!r}")
