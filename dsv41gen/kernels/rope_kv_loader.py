"""Build and load one variant's fused RoPE + KV-insert CUDA extension.

The generic half of every generated ``rope_kv_<variant>`` module, which passes its configuration
(extension name, op namespace, its csrc directory and instantiation units). One torch extension
per variant: dsv41gen's bindings and dispatch (beside this file) and the variant's generated
``rope_kv_inst_h*.cu`` units, compiled against the variant's ``rope_kv_config.h``, with the
kernels (``rope_kv_kernel.cuh``, ``rope_kv_core.cuh``) included from here. The ops land in
``torch.ops.<namespace>``:

- ``fused_deepseek_v4_kv_rope_insert``: the KV-only insert;
- ``fused_deepseek_v4_qnorm_rope_kv_insert``: Q RMSNorm + RoPE and the KV insert;
- ``_debug_set_grid(grid)``: benchmarks and tests only; forces one grid (rule, warp_per_slot,
  reduced) for every later launch in this process.

Imports only the standard library at module level (torch when ``load`` runs).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

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
        extra_include_paths=[str(csrc_dir), str(kernels_dir)],
        extra_cflags=["-O3"],
        extra_cuda_cflags=[*NVCC_FLAGS, *extra_cuda_flags, *arch_flags(capability)],
        build_directory=build_directory,
        verbose=verbose,
        is_python_module=False,
    )
    return getattr(torch.ops, namespace)
