"""Where dequantize's time goes: time the dequantize kernel with parts of its exact arithmetic
removed (H200 diagnosis aid; the removals are wrong on purpose and never shipped).

    python benchmarks/ablate_mxfp8_dequant.py --json out.json

Variants are edits of the real kernel source, dsv41gen/kernels/mxfp8.py, imported as a copy and
bound to the spec's format (the generated module's FORMAT); an edit that no longer finds its
line fails loudly. The sweep (sweep_mxfp8_variants.py) needs no edits: what it varies is
configuration of the source. The ablations:
  base             the generated kernel
  no_scale_load    scale bytes not loaded (a runtime constant 127 instead)
  no_nan           no NaN select (NaN codes and NaN scale bytes not mapped to NaN)
  no_round         bf16 narrowing by truncation instead of round-to-nearest-even
  no_nan_no_round  both
  all_three        all three
Also a u8 -> i16 move kernel of the same tile (the memory floor: same bytes, no arithmetic) and
the device copy of the same byte count. Timing: do_bench median (L2 flushed, launch included),
median of three rounds, like bench_mxfp8.py; bytes = 2MK + MK + MK/32.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_mxfp8 import (  # noqa: E402
    bench,
    copy_bandwidth,
    copy_buffers,
    import_source,
    load_modules,
    warm_up_gpu,
)

from dsv41gen.kernels import mxfp8 as kernels  # noqa: E402

SOURCE = Path(kernels.__file__)

SHAPES = [(16384, 7168), (65536, 4096)]
LAUNCHES = [(8, 1024, 4), (4, 1024, 4)]
LOAD_SCALES = "    sb = tl.load(scale_ptrs, mask=scale_mask, other=0).to(tl.int32)\n"
NAN_SELECT = "    out_bits = tl.where(nan, FP32_QNAN_BITS, value.to(tl.int32, bitcast=True))\n"
BF16_ROUND = (
    "        rounded = (bits + BF16_ROUND_HALF + ((bits >> BF16_SHIFT) & 1)) >> BF16_SHIFT\n"
)
REMOVALS = {
    # scale_cols // 4096 is 0 at these shapes but unknown to the compiler, so nothing folds
    "no_scale_load": (
        LOAD_SCALES,
        "    sb = tl.zeros([BLOCK_M, NUM_BLOCKS], dtype=tl.int32) + (scale_cols // 4096 + 127)\n",
    ),
    "no_nan": (NAN_SELECT, "    out_bits = value.to(tl.int32, bitcast=True)\n"),
    "no_round": (BF16_ROUND, "        rounded = bits >> BF16_SHIFT\n"),
}
VARIANTS = {
    "base": (),
    "no_scale_load": ("no_scale_load",),
    "no_nan": ("no_nan",),
    "no_round": ("no_round",),
    "no_nan_no_round": ("no_nan", "no_round"),
    "all_three": ("no_scale_load", "no_nan", "no_round"),
}


@triton.jit
def _widen_move(src, dst, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(0) * BLOCK_K + tl.arange(0, BLOCK_K)
    mask = (rows[:, None] < M) & (cols[None, :] < K)
    offsets = rows.to(tl.int64)[:, None] * K + cols[None, :]
    tl.store(dst + offsets, tl.load(src + offsets, mask=mask).to(tl.int16), mask=mask)


def patched(src: str, removals: tuple[str, ...]) -> str:
    for name in removals:
        old, new = REMOVALS[name]
        if src.count(old) != 1:
            raise SystemExit(f"ablation {name}: its line is not found once in {SOURCE}")
        src = src.replace(old, new)
    return src


def variant_ops(tmp: Path, name: str, removals: tuple[str, ...], generated):
    """The generated module's format launched through an edited copy of the kernel source."""
    source = import_source(tmp, f"mxfp8_ablation_{name}", patched(SOURCE.read_text(), removals))
    return source.mxfp8_ops(
        "mxfp8",
        generated.FORMAT,
        layouts=generated.LAYOUTS,
        block_m=generated.DEFAULT_BLOCK_M,
        block_k=generated.DEFAULT_BLOCK_K,
        num_warps=generated.DEFAULT_NUM_WARPS,
    )


def time_shape(mods: dict, base, m: int, k: int, copy: dict) -> list[dict]:
    nbytes = 2 * m * k + m * k + m * k // 32
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    xq, s = base.quantize(x)
    out = torch.empty(m, k, device="cuda", dtype=torch.int16)
    rows = []
    for bm, bk, nw in LAUNCHES:
        tiles = {"block_m": bm, "block_k": bk, "num_warps": nw}
        timed = {
            name: bench(functools.partial(mx.dequantize, xq, s, **tiles))
            for name, mx in mods.items()
        }
        grid = (triton.cdiv(k, bk), triton.cdiv(m, bm))
        move = _widen_move[grid]
        timed["u8_to_i16_move"] = bench(
            functools.partial(
                move, xq.view(torch.uint8), out, m, k, BLOCK_M=bm, BLOCK_K=bk, num_warps=nw
            )
        )
        for name, us in timed.items():
            moved = 3 * m * k if name == "u8_to_i16_move" else nbytes
            tb_s = moved / us / 1e6
            pct = 100 * tb_s / copy["tb_s"]
            rows.append(
                {
                    "m": m,
                    "k": k,
                    **tiles,
                    "variant": name,
                    "us": us,
                    "tb_s": tb_s,
                    "pct_copy_same_bytes": pct,
                }
            )
            print(f"{m}x{k} {bm}x{bk} w{nw} {name:16} {us:8.1f} us {tb_s:.3f} TB/s {pct:5.1f}%")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    torch.manual_seed(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        _, base, _ = load_modules(tmp)
        mods = {name: variant_ops(tmp, name, removals, base) for name, removals in VARIANTS.items()}
        warm_up_gpu()
        copy_src, copy_dst = copy_buffers()
        for m, k in SHAPES:
            nbytes = 2 * m * k + m * k + m * k // 32
            copy = copy_bandwidth(copy_src, copy_dst, nbytes)
            rows += time_shape(mods, base, m, k, copy)
            rows.append({"m": m, "k": k, "variant": "device_copy_same_bytes", **copy})
            torch.cuda.empty_cache()
    result = {
        "benchmark": "mxfp8 dequantize ablation (parts of the exact arithmetic removed)",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "variants": {name: list(r) for name, r in VARIANTS.items()},
        "rows": rows,
    }
    Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
