"""Compile the MXFP8 kernels (dsv41gen/kernels/mxfp8.py, at the spec's format) to PTX on the CPU.

    python benchmarks/ptx_mxfp8.py OUT_DIR [--arch 90] [--hints EVICTION,CACHE]

No GPU needed: Triton's NVIDIA backend lowers to PTX in-process. Writes one file per kernel,
input / output dtype and scale layout, the code only (debug sections, .loc and .file lines and
comments dropped). Run it before and after a source change and diff the two directories: a
change meant to keep the arithmetic must leave every file identical.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_mxfp8 import load_modules  # noqa: E402

from dsv41gen.kernels import mxfp8 as kernels  # noqa: E402

DTYPES = {0: "bf16", 1: "fp16", 2: "fp32"}
LAYOUTS = {0: "row_major", 1: "swizzled_128x4"}


def code_only(ptx: str) -> str:
    lines = []
    for line in ptx.splitlines():
        if line.lstrip().startswith(".section") or "DW_" in line:
            break  # the DWARF sections: source paths and line numbers
        if not line.lstrip().startswith((".loc", ".file", "//")):
            lines.append(line)
    return "\n".join(lines) + "\n"


def compile_ptx(kernel, pointers: dict, constexprs: dict, arch: int, num_warps: int) -> str:
    names = kernel.arg_names
    signature = {n: pointers.get(n, "constexpr" if n in constexprs else "i32") for n in names}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in pointers}
    source = ASTSource(kernel, signature, constexprs, attrs)
    compiled = triton.compile(
        source, target=GPUTarget("cuda", arch, 32), options={"num_warps": num_warps}
    )
    return code_only(compiled.asm["ptx"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--hints", help="LOAD_EVICTION,STORE_CACHE (default: none)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    plan, generated, _ = load_modules(Path(tempfile.mkdtemp()))
    hints = kernels.CacheHints(*args.hints.split(",")) if args.hints else kernels.NO_HINTS
    value = "*fp8e4nv"
    for dtype, dname in DTYPES.items():
        for layout, lname in LAYOUTS.items():
            constexprs = {
                "FMT": kernels.kernel_format(generated.FORMAT),
                "HINTS": hints,
                "DTYPE": dtype,
                "LAYOUT": layout,
                "BLOCK_M": plan.block_m,
                "BLOCK_K": plan.block_k,
            }
            io = "*" + dname
            for name, kernel, pointers in (
                (
                    "quantize",
                    kernels._quantize_kernel,
                    {"x_ptr": io, "xq_ptr": value, "s_ptr": "*u8"},
                ),
                (
                    "dequantize",
                    kernels._dequantize_kernel,
                    {"xq_ptr": value, "s_ptr": "*u8", "out_ptr": io},
                ),
            ):
                ptx = compile_ptx(kernel, pointers, constexprs, args.arch, plan.num_warps)
                path = out / f"{name}_{dname}_{lname}.ptx"
                path.write_text(ptx)
                print(f"{path}: {len(ptx.splitlines())} lines")


if __name__ == "__main__":
    main()
