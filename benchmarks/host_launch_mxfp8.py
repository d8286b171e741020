"""Host time per call of the MXFP8 launchers on a CUDA GPU: a baseline launcher against this one.

    python benchmarks/host_launch_mxfp8.py --baseline OLD_MXFP8_PY --json OUT.json

OLD_MXFP8_PY is another version of the runtime source dsv41gen/kernels/mxfp8.py (e.g.
``git show main~1:dsv41gen/kernels/mxfp8.py``), imported beside this checkout's under another
module name and bound to the same planned format (specs/deepseek_v4.yaml). Both launch the same
kernels at 128 x 7168 bf16, back to back in one process, GPU not awaited (synchronized between
batches only), interleaved: ROUNDS rounds of BATCH calls each, median of the rounds' per-call
microseconds. The parts of Triton's launch path are timed alone the same way (binder, cache
key, the whole ``kernel[grid](...)`` with preallocated outputs, the compiled kernel's launcher
alone, two torch.empty), and a cProfile of the baseline quantize says where its time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import hashlib
import importlib.util
import io
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_mxfp8 import load_modules  # noqa: E402

from dsv41gen.kernels import mxfp8 as kernels  # noqa: E402

ROUNDS = 5
BATCH = 2000  # ROUNDS * BATCH = 10,000 calls of each case
M, K = 128, 7168


def per_call_us(fn, calls: int) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def load_baseline(path: Path):
    spec = importlib.util.spec_from_file_location("mxfp8_baseline_runtime", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def ops_of(runtime, mx):
    """runtime's launchers bound to the generated module mx's format and launch defaults."""
    return runtime.mxfp8_ops(
        "mxfp8",
        runtime.Mxfp8Format(*mx.FORMAT),
        layouts=mx.LAYOUTS,
        block_m=mx.DEFAULT_BLOCK_M,
        block_k=mx.DEFAULT_BLOCK_K,
        num_warps=mx.DEFAULT_NUM_WARPS,
    )


def triton_parts(mx, x: torch.Tensor) -> dict:
    """Triton's launch path for the spec's quantize at x, its parts timed alone (callables)."""
    from triton.runtime.jit import compute_cache_key

    ops = mx._OPS
    fmt, hints = ops.format, ops.hints
    xq, s = mx.quantize(x)
    m, k = x.shape
    scale_cols = k // fmt.BLOCK_SIZE
    grid = (-(-k // mx.DEFAULT_BLOCK_K), -(-m // mx.DEFAULT_BLOCK_M), 1)
    args = (x, xq, s, m, k, m, scale_cols, 0, x.stride(0))
    consts = {
        "FMT": fmt,
        "HINTS": hints,
        "DTYPE": kernels.DTYPES[x.dtype],
        "LAYOUT": 0,
        "BLOCK_M": mx.DEFAULT_BLOCK_M,
        "BLOCK_K": mx.DEFAULT_BLOCK_K,
    }
    jit = kernels._quantize_kernel
    compiled = jit[grid](*args, **consts, num_warps=mx.DEFAULT_NUM_WARPS)
    device = torch.cuda.current_device()
    kernel_cache, key_cache, _, _, binder = jit.device_caches[device]
    options = {"num_warps": mx.DEFAULT_NUM_WARPS, "debug": False}
    bound = binder(*args, **consts, **options)
    direct = kernels._DirectLaunch(compiled, tuple(consts.values()))
    return {
        "triton_kernel_grid_call": lambda: jit[grid](
            *args, **consts, num_warps=mx.DEFAULT_NUM_WARPS
        ),
        "triton_binder": lambda: binder(*args, **consts, **options),
        "triton_compute_cache_key": lambda: compute_cache_key(key_cache, bound[1], bound[2]),
        "direct_launch_alone": lambda: direct(grid, args, device),
        "argument_classes_and_key": lambda: (
            None,
            kernels._CUDA.current_device(),
            *map(kernels._arg_class, args),
        ),
        "two_torch_empty": lambda: (
            torch.empty((m, k), dtype=torch.float8_e4m3fn, device="cuda"),
            torch.empty((m, scale_cols), dtype=torch.uint8, device="cuda"),
        ),
    }


def profile(fn, calls: int) -> list[str]:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    torch.cuda.synchronize()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(14)
    return [line.rstrip() for line in text.getvalue().splitlines() if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", required=True, type=Path)
    ap.add_argument("--json", required=True, type=Path)
    args = ap.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA GPU"
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        _, mx, _ = load_modules(Path(tmp))
        old = ops_of(load_baseline(args.baseline), mx)
        new = mx._OPS
        x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
        results = {}
        for name, ops in (("baseline", old), ("this", new)):
            xq, s = ops.quantize(x)
            ops.quantize(x)  # the second call takes the path every later one takes
            out = ops.dequantize(xq, s)
            results[name] = (xq.view(torch.uint8), s, out)
        same = all(torch.equal(a, b) for a, b in zip(results["baseline"], results["this"]))
        xq, s = new.quantize(x)
        cases = {
            "baseline_quantize": lambda: old.quantize(x),
            "this_quantize": lambda: new.quantize(x),
            "baseline_dequantize": lambda: old.dequantize(xq, s),
            "this_dequantize": lambda: new.dequantize(xq, s),
        }
        parts = {}
        try:
            parts = triton_parts(mx, x)
        except Exception as error:  # Triton internals differ: report, time the launchers anyway
            parts_error = repr(error)[:300]
        else:
            parts_error = None
        timed = {**cases, **parts}
        rounds = {name: [] for name in timed}
        for fn in timed.values():
            fn()
        for _ in range(ROUNDS):
            for name, fn in timed.items():
                rounds[name].append(per_call_us(fn, BATCH))
        host_us = {name: sorted(r)[ROUNDS // 2] for name, r in rounds.items()}
        baseline_profile = profile(cases["baseline_quantize"], BATCH)
        result = {
            "benchmark": "mxfp8 launcher host time per call (quantize / dequantize 128x7168 bf16)",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "gpu": torch.cuda.get_device_name(),
            "torch": torch.__version__,
            "triton": triton.__version__,
            "cuda": torch.version.cuda,
            "python": sys.version.split()[0],
            "baseline_source_sha256": hashlib.sha256(args.baseline.read_bytes()).hexdigest(),
            "this_source_sha256": hashlib.sha256(Path(kernels.__file__).read_bytes()).hexdigest(),
            "timing": f"per-call host us, {ROUNDS} interleaved rounds of {BATCH} back-to-back "
            "calls each (GPU not awaited, synchronized between rounds), median round; parts "
            "with preallocated outputs",
            "outputs_identical": same,
            "used_global_vals": {
                "quantize": sorted(map(str, kernels._quantize_kernel.used_global_vals)),
                "dequantize": sorted(map(str, kernels._dequantize_kernel.used_global_vals)),
            },
            "host_us": host_us,
            "rounds_us": rounds,
            "parts_error": parts_error,
            "baseline_quantize_cprofile_tottime": baseline_profile,
        }
    for name, us in host_us.items():
        print(f"{name:<28} {us:7.2f} us/call  rounds {[round(r, 2) for r in rounds[name]]}")
    print("outputs identical:", same)
    print("\n".join(baseline_profile))
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print("wrote", args.json)


if __name__ == "__main__":
    main()
