"""Sweep variants of the MXFP8 kernels on the big shapes (H200 tuning aid).

    python benchmarks/sweep_mxfp8_variants.py --json out.json

A variant is configuration passed to the real kernel source, dsv41gen/kernels/mxfp8.py: its
memory hints (``CacheHints``: eviction policy of the streamed loads, cache modifier of the
stores), run at a few launch parameters, with the spec's format (the generated module's
``FORMAT``). No kernel text is patched. Every (variant, launch) is first checked bit-exact
against the generated reference (quantize in both layouts, dequantize); only exact ones are timed
(do_bench median, L2 flushed, launcher included). Bytes as in bench_mxfp8.py: 2MK + MK + MK/32.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.testing

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_mxfp8 import (  # noqa: E402
    COPY_BYTES_EACH_WAY,
    copy_bandwidth,
    copy_buffers,
    load_modules,
    warm_up_gpu,
)

from dsv41gen.kernels.mxfp8 import CacheHints, mxfp8_ops  # noqa: E402

SHAPES = [(16384, 7168), (65536, 4096)]
LAUNCHES = [(8, 1024, 4), (8, 1024, 8), (16, 1024, 8), (4, 1024, 4), (4, 2048, 4)]

# K tiles on grid axis 0 is the kernels' own order (it won an earlier sweep). "base" is what the
# generated modules launch (no hints).
VARIANTS = {
    "base": CacheHints(),
    "evict_first": CacheHints(LOAD_EVICTION="evict_first"),
    "evict_first+streaming_stores": CacheHints(LOAD_EVICTION="evict_first", STORE_CACHE=".cs"),
}


def variant_ops(generated, hints: CacheHints):
    """The launchers of the generated module's format and layouts, with these hints."""
    return mxfp8_ops(
        "mxfp8",
        generated.FORMAT,
        layouts=generated.LAYOUTS,
        block_m=generated.DEFAULT_BLOCK_M,
        block_k=generated.DEFAULT_BLOCK_K,
        num_warps=generated.DEFAULT_NUM_WARPS,
        hints=hints,
    )


def exact(mx, ref, tiles, device: str = "cuda", shape: tuple[int, int] = (1000, 7168)) -> bool:
    m, k = shape
    x = torch.randn(m, k, device=device, dtype=torch.bfloat16)
    x = x * torch.logspace(-30, 30, m, device=device, dtype=torch.bfloat16)[:, None]
    x[7, :32] = 0
    x[9, 64:96] = torch.finfo(torch.bfloat16).tiny / 3
    x[11, 5] = float("nan")
    for layout in ("row_major", "swizzled_128x4"):
        xq, s = mx.quantize(x, layout, **tiles)
        rq, rs = ref.quantize_reference(x, layout)
        if not (torch.equal(xq.view(torch.uint8), rq.view(torch.uint8)) and torch.equal(s, rs)):
            return False
        out = mx.dequantize(xq, s, layout, **tiles)
        want = ref.dequantize_reference(xq, s, layout)
        same = (out.view(torch.int16) == want.view(torch.int16)) | (out.isnan() & want.isnan())
        if not bool(same.all()):
            return False
    return True


SPEC = REPO / "specs" / "deepseek_v4.yaml"
MARGIN = 1.5  # percentage points of copy bandwidth a change must gain over the spec's launch


def choose(results: list[dict], spec: tuple[int, int, int]) -> tuple[str, int, int, int]:
    """Best bit-exact (variant, launch) by the mean % of copy over every op and big shape; the
    base kernel at the spec's launch unless something beats it by MARGIN points."""

    def score(entry):
        return sum(v["pct_copy"] for v in entry.values() if isinstance(v, dict)) / 6

    exact = [e for e in results if e["exact"]]
    base = next(
        e
        for e in exact
        if e["variant"] == "base" and (e["block_m"], e["block_k"], e["num_warps"]) == spec
    )
    best = max(exact, key=score)
    if score(best) < score(base) + MARGIN:
        best = base
    print(
        f"base at spec launch {score(base):.1f}%, chosen {best['variant']} "
        f"{best['block_m']}x{best['block_k']} w{best['num_warps']} {score(best):.1f}%"
    )
    return best["variant"], best["block_m"], best["block_k"], best["num_warps"]


def apply(variant: str, bm: int, bk: int, nw: int) -> None:
    """Write a launch choice into the spec's launch section. A variant other than "base" is a
    change to the kernel source's defaults (CacheHints in dsv41gen/kernels/mxfp8.py): made by
    hand, in the source, and reviewed like any other source change."""
    if variant != "base":
        raise SystemExit(
            f"{variant} = {VARIANTS[variant]}: set these defaults of CacheHints in "
            "dsv41gen/kernels/mxfp8.py by hand, then rerun with --apply base BM BK NW"
        )
    spec = SPEC.read_text()
    for name, value in (("block_m", bm), ("block_k", bk), ("num_warps", nw)):
        spec, n = re.subn(rf"(\n      {name}: )\d+", rf"\g<1>{value}", spec, count=1)
        assert n == 1, name
    SPEC.write_text(spec)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--choose", help="write 'variant block_m block_k num_warps' of the best here")
    ap.add_argument("--apply", nargs=4, metavar=("VARIANT", "BM", "BK", "NW"))
    args = ap.parse_args()
    if args.apply:
        apply(args.apply[0], *map(int, args.apply[1:]))
        return
    torch.manual_seed(0)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base_plan, generated, ref = load_modules(tmp)
        mods = {name: variant_ops(generated, hints) for name, hints in VARIANTS.items()}
        warm_up_gpu()
        copy = copy_bandwidth(*copy_buffers(), 2 * COPY_BYTES_EACH_WAY)
        print(f"device copy {copy['tb_s']:.3f} TB/s")
        xs = {s: torch.randn(*s, device="cuda", dtype=torch.bfloat16) for s in SHAPES}
        for name, mx in mods.items():
            for bm, bk, nw in LAUNCHES:
                tiles = {"block_m": bm, "block_k": bk, "num_warps": nw}
                entry = {"variant": name, **tiles, "exact": exact(mx, ref, tiles)}
                results.append(entry)
                if not entry["exact"]:
                    print(f"{name} {bm}x{bk} w{nw}: NOT bit-exact, skipped")
                    continue
                line = []
                for (m, k), x in xs.items():
                    nbytes = 2 * m * k + m * k + m * k // 32
                    xq, s = mx.quantize(x, **tiles)
                    fns = {
                        "q": lambda mx=mx, x=x, t=tiles: mx.quantize(x, **t),
                        "qs": lambda mx=mx, x=x, t=tiles: mx.quantize(x, "swizzled_128x4", **t),
                        "dq": lambda mx=mx, q=xq, s=s, t=tiles: mx.dequantize(q, s, **t),
                    }
                    for op, fn in fns.items():
                        us = triton.testing.do_bench(fn, warmup=10, rep=60, return_mode="median")
                        us *= 1e3
                        pct = 100 * nbytes / us / 1e6 / copy["tb_s"]
                        entry[f"{m}x{k}_{op}"] = {"us": us, "pct_copy": pct}
                        line.append(f"{op} {pct:5.1f}%")
                    del xq, s, fns
                print(f"{name:<30} {bm:>2}x{bk:<4} w{nw}: " + "  ".join(line), flush=True)
    out = {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "copy": copy,
        "shapes": SHAPES,
        "results": results,
    }
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    if args.choose:
        plan_launch = (base_plan.block_m, base_plan.block_k, base_plan.num_warps)
        Path(args.choose).write_text(" ".join(map(str, choose(results, plan_launch))) + "\n")


if __name__ == "__main__":
    main()
