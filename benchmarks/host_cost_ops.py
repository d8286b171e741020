"""Host time per call of each generated kernel's entry points on a CUDA GPU (issue 29): the
MXFP8 launchers (quantize / dequantize) against the same launchers as torch custom ops
(quantize_op / dequantize_op, what torch.compile traces), and the RoPE + KV insert's torch.ops
entry point, in one process that has loaded torch, Triton and both extensions.

    python benchmarks/host_cost_ops.py --build-dir DIR --json OUT.json

Method as benchmarks/host_launch_mxfp8.py: ROUNDS rounds of BATCH calls, GPU not awaited
(synchronized between rounds only), median of the rounds' microseconds per call. MXFP8 at
128 x 7168 bf16; the KV-only insert at 1 token (bf16 kv, fp8_ds_mla and mxfp8 caches).
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    _, mx, _ = load_modules(Path(tempfile.mkdtemp(prefix="host_cost_")))
    _, ops, _ = load_variant("deepseek_v41", args.build_dir)
    x = torch.randn(128, 7168, device="cuda").bfloat16()
    xq, scales = mx.quantize(x)
    results = {
        "mxfp8_quantize_launcher": per_call_us(lambda: mx.quantize(x)),
        "mxfp8_quantize_custom_op": per_call_us(lambda: mx.quantize_op(x, "row_major")),
        "mxfp8_dequantize_launcher": per_call_us(lambda: mx.dequantize(xq, scales)),
        "mxfp8_dequantize_custom_op": per_call_us(
            lambda: mx.dequantize_op(xq, scales, "row_major", torch.bfloat16)
        ),
    }
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
        torch=torch.__version__,
        triton=triton.__version__,
        cuda=torch.version.cuda,
        method=f"{ROUNDS} rounds of {BATCH} calls, GPU not awaited, median per-call µs",
        target_us=8,
        host_us=results,
    )
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
