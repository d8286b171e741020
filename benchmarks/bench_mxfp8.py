"""Benchmark the generated Triton MXFP8 kernels on a CUDA GPU and write a JSON result.

    python benchmarks/bench_mxfp8.py --json benchmarks/results/mxfp8_h200.json [--sweep]

Renders the kernels from specs/deepseek_v4.yaml's plan into a temp directory (no build needed),
then times with triton.testing.do_bench (median of 3 medians; do_bench flushes L2 between
runs), in one run: the device copy bandwidth (2 GiB, and per shape a copy of the shape's own byte
count, as DESIGN.md's anchor table measures it), quantize (row-major and swizzled scales),
dequantize, the generated torch reference (eager) and torch.compile of it. Bytes moved for
quantize of bf16 [M, K]: 2MK read + MK + MK/32 written (dequantize: the same bytes, the other
way). The JSON's "targets" judges issue 4's targets against both copy figures. --sweep also
times candidate launch parameters, to choose the spec's launch section.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

import torch
import triton
import triton.testing

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SHAPES = [(128, 7168), (4096, 7168), (16384, 7168), (65536, 4096)]
SWEEP = [
    (8, 512, 4),
    (16, 512, 4),
    (8, 1024, 4),
    (4, 1024, 4),
    (4, 1024, 2),
    (16, 1024, 8),
    (8, 2048, 8),
    (4, 2048, 4),
    (2, 2048, 4),
    (32, 256, 4),
]


def load_modules(tmp: Path):
    import yaml

    from dsv41gen.emit.render import render
    from dsv41gen.plan.mxfp8 import plan_mxfp8
    from dsv41gen.spec.model import _parse_mx_format

    data = yaml.safe_load((REPO / "specs" / "deepseek_v4.yaml").read_text())
    plan = plan_mxfp8(_parse_mx_format("mxfp8", data["quantization"]["mxfp8"]), "mxfp8")
    mods = []
    for template, name in (
        ("triton/mxfp8.py.j2", plan.module_name),
        ("triton/mxfp8_reference.py.j2", plan.reference_module_name),
    ):
        mods.append(import_source(tmp, name, render(template, plan=plan)))
    return plan, mods[0], mods[1]


def import_source(tmp: Path, name: str, source: str):
    """Write source to tmp/name.py and import it as module name (the kernels' dataclasses and
    Triton's JIT look their module up by name, so it is registered in sys.modules)."""
    path = tmp / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


ROUNDS = 3


def bench(fn) -> float:
    """Microseconds per call, launch included (do_bench flushes L2 before each call): the median
    of ROUNDS do_bench medians. One round alone swung 6x at 128 x 7168 on a busy host, where the
    launch can outlast the L2 flush and then shows up in the event timing."""
    rounds = [
        triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3
        for _ in range(ROUNDS)
    ]
    return sorted(rounds)[ROUNDS // 2]


def bench_graph(fn) -> float:
    """Median microseconds per call replayed from a CUDA graph (no launch cost; no L2 flush, so
    inputs that fit in L2 stay there)."""
    return triton.testing.do_bench_cudagraph(fn, rep=100, return_mode="median") * 1e3


def host_us(fn, calls: int = 200) -> float:
    """Host microseconds per call: Python launcher plus launch, timed with the GPU left running
    (median of 5 batches; synchronized between batches only)."""
    fn()
    torch.cuda.synchronize()
    batches = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        batches.append((time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return sorted(batches)[2]


def warm_up_gpu(seconds: float = 2.0) -> None:
    """Busy the GPU so that its clocks are up before anything is timed."""
    a = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    elapsed = 0.0
    while elapsed < seconds * 1e3:
        for _ in range(100):
            b.copy_(a)
        end.record()
        end.synchronize()
        elapsed = start.elapsed_time(end)


COPY_BYTES_EACH_WAY = 1 << 30


def copy_buffers() -> tuple[torch.Tensor, torch.Tensor]:
    """Source and destination of the device copy figures, COPY_BYTES_EACH_WAY bytes each."""
    src = torch.empty(COPY_BYTES_EACH_WAY, dtype=torch.uint8, device="cuda").random_()
    return src, torch.empty_like(src)


def copy_bandwidth(src: torch.Tensor, dst: torch.Tensor, nbytes: int) -> dict:
    """Device copy of nbytes in total (half read, half written), timed like the kernels."""
    half = nbytes // 2
    us = bench(lambda: dst[:half].copy_(src[:half]))
    return {"bytes": 2 * half, "us": us, "tb_s": 2 * half / us / 1e6}


def targets(shapes: list[dict]) -> dict:
    """Issue 4's targets, judged against both copy figures: at least 90% of copy at the two big
    shapes, at most 15 us at 128 x 7168, and dequantize and the swizzled layout within 10% of
    quantize's bandwidth fraction (relative: fraction >= 0.9 x quantize's)."""
    by_shape = {(row["m"], row["k"]): row for row in shapes}
    big = [by_shape[shape] for shape in ((16384, 7168), (65536, 4096)) if shape in by_shape]
    out = {}
    if (128, 7168) in by_shape:
        out["quantize_128x7168_us"] = round(by_shape[(128, 7168)]["quantize_row_major"]["us"], 2)
        out["quantize_128x7168_at_most_15_us"] = out["quantize_128x7168_us"] <= 15
    for key in ("pct_copy", "pct_copy_same_bytes"):
        quantize = [row["quantize_row_major"][key] for row in big]
        out[f"quantize_min_{key}_big_shapes"] = round(min(quantize), 1)
        out[f"quantize_at_least_90_{key}"] = min(quantize) >= 90
        for other in ("dequantize_bf16", "quantize_swizzled"):
            ratios = [row[other][key] / row["quantize_row_major"][key] for row in big]
            out[f"{other}_min_ratio_to_quantize_{key}"] = round(min(ratios), 3)
            out[f"{other}_within_10pct_{key}"] = min(ratios) >= 0.9
    return out


def sweep_one(mx, x, nbytes: int, bm: int, bk: int, nw: int) -> dict:
    m, k = x.shape
    tiles = {"block_m": bm, "block_k": bk, "num_warps": nw}
    entry = {"m": m, "k": k, **tiles}
    xq, s = mx.quantize(x)
    for name, fn in (
        ("quantize", lambda: mx.quantize(x, **tiles)),
        ("quantize_swizzled", lambda: mx.quantize(x, "swizzled_128x4", **tiles)),
        ("dequantize", lambda: mx.dequantize(xq, s, **tiles)),
    ):
        us = bench(fn)
        entry[name] = {"us": us, "tb_s": nbytes / us / 1e6}
    return entry


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--launch", help="block_m,block_k,num_warps to time instead of the spec's")
    args = ap.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA GPU"
    torch.manual_seed(0)

    with tempfile.TemporaryDirectory() as tmp:
        plan, mx, ref = load_modules(Path(tmp))
        launch = {"block_m": plan.block_m, "block_k": plan.block_k, "num_warps": plan.num_warps}
        spec_launch = dict(launch)
        if args.launch:
            launch = dict(
                zip(
                    ("block_m", "block_k", "num_warps"),
                    map(int, args.launch.split(",")),
                    strict=True,
                )
            )
        warm_up_gpu()
        copy_src, copy_dst = copy_buffers()
        copy = copy_bandwidth(copy_src, copy_dst, 2 * COPY_BYTES_EACH_WAY)
        result = {
            "benchmark": "mxfp8 quantize / dequantize (generated Triton kernels)",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__,
            "triton": triton.__version__,
            "cuda": torch.version.cuda,
            "launch": launch,
            "spec_launch": spec_launch,
            "timing": "us: median of 3 triton.testing.do_bench medians (L2 flushed, launch "
            "included); "
            "pct_copy: of the 2 GiB device copy; pct_copy_same_bytes: of a device copy of the "
            "shape's own byte count, timed the same way (DESIGN.md's anchor method); "
            "graph_us: do_bench_cudagraph median (replayed, no launch cost, no L2 flush); "
            "host_us: host time per call of the Python launcher, back to back, GPU not awaited",
            "bytes_formula": "2*M*K + M*K + M*K/32",
            "copy": copy,
            "shapes": [],
            "sweep": [],
        }
        print(f"{result['gpu']}  torch {torch.__version__}  triton {triton.__version__}")
        print(f"device copy: {copy['tb_s']:.3f} TB/s")
        compiled = None if args.no_compile else torch.compile(ref.quantize_reference)
        for m, k in SHAPES:
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            nbytes = 2 * m * k + m * k + m * k // 32
            same = copy_bandwidth(copy_src, copy_dst, nbytes)
            row = {"m": m, "k": k, "bytes": nbytes, "copy_same_bytes": same}
            print(f"{m:>6}x{k:<5} device copy of the same bytes {same['tb_s']:6.3f} TB/s")

            def put(name, us, row=row, nbytes=nbytes, same=same, shape=f"{m:>6}x{k:<5}"):
                tb = nbytes / us / 1e6
                pct = 100 * tb / copy["tb_s"]
                pct_same = 100 * tb / same["tb_s"]
                row[name] = {
                    "us": us,
                    "tb_s": tb,
                    "pct_copy": pct,
                    "pct_copy_same_bytes": pct_same,
                }
                print(
                    f"{shape} {name:<24} {us:9.2f} us {tb:6.3f} TB/s {pct:5.1f}% of copy "
                    f"({pct_same:5.1f}% of same-bytes copy)"
                )

            kernels = {
                "quantize_row_major": lambda x=x: mx.quantize(x, "row_major", **launch),
                "quantize_swizzled": lambda x=x: mx.quantize(x, "swizzled_128x4", **launch),
            }
            xq, s = mx.quantize(x, **launch)
            kernels["dequantize_bf16"] = lambda xq=xq, s=s: mx.dequantize(xq, s, **launch)
            for name, fn in kernels.items():
                put(name, bench(fn))
                row[name]["graph_us"] = graph_us = bench_graph(fn)
                row[name]["host_us"] = host = host_us(fn)
                print(f"{'':>12} {name + ' (graph)':<24} {graph_us:9.2f} us  host {host:6.2f} us")
            # correctness spot check of this very run against the reference
            rq, rs = ref.quantize_reference(x)
            row["bit_exact_vs_reference"] = bool(
                torch.equal(xq.view(torch.uint8), rq.view(torch.uint8)) and torch.equal(s, rs)
            )
            put("torch_eager_reference", bench(lambda x=x: ref.quantize_reference(x)))
            if compiled is not None:
                try:
                    compiled(x)
                    put("torch_compile_reference", bench(lambda x=x: compiled(x)))
                except Exception as exc:  # report, do not hide
                    row["torch_compile_reference"] = {"error": repr(exc)[:500]}
                    print("torch.compile failed:", repr(exc)[:200])
            result["shapes"].append(row)
            del x, xq, s, rq, rs
            torch.cuda.empty_cache()

        if args.sweep:
            for m, k in SHAPES:
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                nbytes = 2 * m * k + m * k + m * k // 32
                for bm, bk, nw in SWEEP:
                    entry = sweep_one(mx, x, nbytes, bm, bk, nw)
                    result["sweep"].append(entry)
                    print(
                        f"sweep {m:>6}x{k:<5} bm={bm:<3} bk={bk:<5} w={nw}: "
                        f"q {entry['quantize']['tb_s']:.3f} "
                        f"qs {entry['quantize_swizzled']['tb_s']:.3f} "
                        f"dq {entry['dequantize']['tb_s']:.3f} TB/s "
                        f"({entry['quantize']['us']:.1f} us)"
                    )
                del x
                torch.cuda.empty_cache()

    result["targets"] = targets(result["shapes"])
    print(json.dumps(result["targets"], indent=2))
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print("wrote", args.json)
    _write_plot(Path(args.json))


def _write_plot(json_path: Path) -> None:
    """The PNG beside the JSON (benchmarks/plot.py); skipped, saying so, without matplotlib."""
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from plot import write_plot
    finally:
        sys.path.pop(0)
    try:
        print("wrote", write_plot(json_path))
    except ImportError as error:
        print(
            f"no plot ({error}); pip install -e '.[plots]' and run benchmarks/plot.py",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
