"""Host time per call of each generated kernel's entry points on a CUDA GPU (issue 29): the
MXFP8 launchers (quantize / dequantize), allocating their outputs and writing into
caller-provided ones (``out=``), against the same launchers as torch custom ops (quantize_op /
dequantize_op, what torch.compile traces), and the RoPE + KV insert's torch.ops entry point, in
one process that has loaded torch, Triton and both extensions. The parts a launcher's time is
made of are timed alone too (``parts_us``): torch.empty of each output, and the compiled
kernel's launcher called directly (what the launchers call once a launch class is known).

    python benchmarks/host_cost_ops.py --build-dir DIR --json OUT.json
    python benchmarks/host_cost_ops.py --build-dir DIR --json OUT.json --both

``--both`` runs it twice in fresh processes, with the C++ launch path and with
``DSV41GEN_MXFP8_NATIVE=0`` (Triton's compiled launcher), and writes both runs into one file
(the committed benchmarks/results/host_cost_h200.json; benchmarks/plot.py draws its PNG).

Method as benchmarks/host_launch_mxfp8.py: ROUNDS rounds of BATCH calls, GPU not awaited
(synchronized between rounds only), median of the rounds' microseconds per call. MXFP8 at
128 x 7168 bf16; the KV-only insert at 1 token (bf16 kv, fp8_ds_mla and mxfp8 caches).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_mxfp8 import load_modules  # noqa: E402
from bench_rope_kv import load_variant  # noqa: E402

ROUNDS = 5


def kernels_native():
    """The MXFP8 launchers' C++ launcher module, or None where they launch through Triton."""
    from dsv41gen.kernels import mxfp8 as kernels

    return kernels._native_module()


BATCH = 2000


def per_call_us(fn) -> float:
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(BATCH):
            fn()
        rounds.append((time.perf_counter() - start) / BATCH * 1e6)
        torch.cuda.synchronize()
    return round(statistics.median(rounds), 2)


def driver_version() -> str | None:
    """The NVIDIA driver version nvidia-smi reports, or None without nvidia-smi."""
    try:
        query = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
        return subprocess.run(query, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def bare_launch(mx, x, xq, scales):
    """A call of the compiled quantize kernel's launcher alone (the _DirectLaunch the launcher
    reached for x), or None where the launcher keeps none (no CUDA)."""
    from dsv41gen.kernels import mxfp8 as kernels

    mx.quantize(x, out=(xq, scales))
    launches = [
        launch
        for cell in mx.quantize.__closure__ or ()
        if isinstance(getattr(cell, "cell_contents", None), dict)
        for launch in cell.cell_contents.values()
        if isinstance(launch, kernels._Launch) and launch.direct
    ]
    if not launches:
        return None
    launch = launches[0]
    (key, direct), *_ = launch.direct.items()
    args = (x.data_ptr(), xq.data_ptr(), scales.data_ptr(), *launch.ints)
    return lambda: direct(launch.grid, args, key[1])


def native_launch(mx, x, xq, scales):
    """A call of the quantize launch class's C++ launch alone (triton_launch.cpp), or None
    where the launcher has none (the C++ launcher off or not built)."""
    from dsv41gen.kernels import mxfp8 as kernels

    for _ in range(2):
        mx.quantize(x, out=(xq, scales))
    natives = [
        native
        for cell in mx.quantize.__closure__ or ()
        if isinstance(getattr(cell, "cell_contents", None), dict)
        for launch in cell.cell_contents.values()
        if isinstance(launch, kernels._Launch)
        for native in launch.native.values()
        if native is not None
    ]
    if not natives:
        return None
    pointers = (x.data_ptr(), xq.data_ptr(), scales.data_ptr())
    return lambda: natives[0].launch(*pointers)


def both(build_dir: str, json_path: str) -> int:
    """Both launch paths, each in a fresh process, into one result file."""
    runs, first = {}, None
    with tempfile.TemporaryDirectory() as tmp:
        for native in ("1", "0"):
            part = Path(tmp) / f"native{native}.json"
            command = [sys.executable, __file__, "--build-dir", build_dir, "--json", str(part)]
            env = {**os.environ, "DSV41GEN_MXFP8_NATIVE": native}
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
            result = json.loads(part.read_text())
            first = first or result
            runs[result["launch_path"]] = dict(
                host_us=result["host_us"], parts_us=result["parts_us"]
            )
    out = {"benchmark": "host_cost"}
    for key in ("date", "gpu", "driver", "torch", "triton", "cuda", "python", "method"):
        out[key] = first[key]
    out["target_us"] = first["target_us"]
    out["commands"] = [
        f"python benchmarks/host_cost_ops.py --build-dir DIR --json {Path(json_path).name} --both"
    ]
    out["choice"] = (
        "the C++ launch (triton_launch.cpp) is the default: a known launch class is one C++"
        " entry from the launchers and from the ops' CUDA kernels"
    )
    out["runs"] = runs
    Path(json_path).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--both", action="store_true", help="both launch paths into one file")
    args = parser.parse_args()
    if args.both:
        return both(args.build_dir, args.json)
    _, mx, _ = load_modules(Path(tempfile.mkdtemp(prefix="host_cost_")))
    _, ops, _ = load_variant("deepseek_v41", args.build_dir)
    x = torch.randn(128, 7168, device="cuda").bfloat16()
    xq, scales = mx.quantize(x)
    xq_out, scales_out = torch.empty_like(xq), torch.empty_like(scales)
    dq_out = torch.empty_like(x)
    results = {
        "mxfp8_quantize_launcher": per_call_us(lambda: mx.quantize(x)),
        "mxfp8_quantize_launcher_out": per_call_us(
            lambda: mx.quantize(x, out=(xq_out, scales_out))
        ),
        "mxfp8_quantize_custom_op": per_call_us(lambda: mx.quantize_op(x, "row_major")),
        "mxfp8_dequantize_launcher": per_call_us(lambda: mx.dequantize(xq, scales)),
        "mxfp8_dequantize_launcher_out": per_call_us(lambda: mx.dequantize(xq, scales, out=dq_out)),
        "mxfp8_dequantize_custom_op": per_call_us(
            lambda: mx.dequantize_op(xq, scales, "row_major", torch.bfloat16)
        ),
    }
    device = x.device
    parts = {
        "torch_empty_xq": per_call_us(lambda: torch.empty(xq.shape, dtype=xq.dtype, device=device)),
        "torch_empty_scales": per_call_us(
            lambda: torch.empty(scales.shape, dtype=torch.uint8, device=device)
        ),
        "torch_empty_bf16_out": per_call_us(
            lambda: torch.empty(x.shape, dtype=torch.bfloat16, device=device)
        ),
    }
    bare = bare_launch(mx, x, xq_out, scales_out)
    if bare is not None:
        parts["quantize_compiled_launcher_alone"] = per_call_us(bare)
    native = native_launch(mx, x, xq_out, scales_out)
    if native is not None:
        parts["quantize_cpp_launch_alone"] = per_call_us(native)
    inv = 1.0 / 10000 ** (torch.arange(0, 64, 2, dtype=torch.float64) / 64)
    angles = torch.arange(8192, dtype=torch.float64)[:, None] * inv[None]
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1).float().cuda()
    kv = torch.randn(1, 512, device="cuda").bfloat16()
    slots = torch.zeros(1, dtype=torch.long, device="cuda")
    positions = torch.zeros(1, dtype=torch.long, device="cuda")
    for name, record, mxfp8 in (("fp8_ds_mla", 584, False), ("mxfp8", 528, True)):
        cache = torch.zeros(4, 64, record, dtype=torch.uint8, device="cuda")
        op = ops.fused_deepseek_v4_kv_rope_insert
        results[f"kv_insert_{name}_torch_ops"] = per_call_us(
            lambda op=op, cache=cache, mxfp8=mxfp8: op(
                kv, cache, slots, positions, cos_sin, 64, None, mxfp8
            )
        )
    out = dict(
        date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        gpu=torch.cuda.get_device_name(),
        driver=driver_version(),
        torch=torch.__version__,
        triton=triton.__version__,
        cuda=torch.version.cuda,
        python=platform.python_version(),
        method=f"{ROUNDS} rounds of {BATCH} calls, GPU not awaited, median per-call µs",
        target_us=8,
        launch_path="C++ (triton_launch.cpp)"
        if kernels_native() is not None
        else "Triton's compiled launcher",
        host_us=results,
        parts_us=parts,
    )
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
