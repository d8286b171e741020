"""Benchmark the generated fused RoPE + KV insert on a CUDA GPU beside vLLM 0.33.0's own kernels
and write a JSON result.

KV-only insert per cache format at 512 .. 262144 tokens: the generated op (spec grid rule), vLLM
0.33.0's compiled kernel on the same inputs (tests/kernels/vllm_oracle.py; scripts/
vllm_oracle.sh fetches it), the reduced grid forced (what the rule's "kNumHeadsQPadded == 0" term
buys, seed 002) and the generated kernel with the streaming cache hints (STREAMING_ACCESSES);
PDL on and off over back-to-back inserts; the Q + KV op with 16 and 128 heads below and above the
grid rule's cutoff; and the device copy bandwidth, measured in the same run.

Timing: each configuration gets enough independent input sets to touch >= 256 MB per replay (so
small sizes are not served from the 60 MB L2); one CUDA graph launches the op once per set; the
reported time is the median over 20 samples of 10 replays queued back to back (after a spin
kernel, so that the GPU never waits for the host's launch) divided by 10 and by the number of
sets. (Until 2026-12-01 18:30 each sample was one replay after an idle GPU, which counted the
graph launch's host-to-device latency in every row: 3-4% of a 65536-token row,
benchmarks/results/rope_kv_timing_probe_h200.json.) Effective bandwidth
counts the bytes the op must move: kv / q rows read, cos/sin rows read (positions are distinct),
slots and positions read, cache records and q_out written. Two device-copy figures per KV-only
row: pct_copy is of copy_GBps, the peak copy (the larger of a 2 GiB eager copy and the same copy
as a graph memcpy node, measured at the start of the run); pct_copy_same_bytes is of the row's
copy_same_bytes.best_GBps, the faster of a copy kernel and a captured cudaMemcpyAsync moving the
row's byte count, timed exactly as the op is (same number of sets, one graph, median replay /
sets; benchmarks/device_copy.py), which pays the same per-launch ramp-up and tail as the op.
Issue 12's % of copy targets are evaluated against both and reported separately
(targets.kv_only_*pct_copy*: peak copy; targets.kv_only_*same_bytes_copy*: same-bytes copy);
targets.kv_only_min_pct_best_copy_* are of the higher of the start and end peak copies. The
Q + KV rows are timed the same way (input sets, graph, median / sets).

Usage: python3 benchmarks/bench_rope_kv.py --json OUT.json [--build-dir DIR] [--variant NAME]
       python3 benchmarks/bench_rope_kv.py --build-only --build-dir DIR --variant NAME
       (with --streaming: the KV-only comparison variant NAME_stream)
"""

from __future__ import annotations

import argparse
import datetime
import functools
import importlib.util
import json
import math
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TOKENS = (512, 2048, 4096, 16384, 65536, 262144)
PDL_TOKENS = (512, 4096)  # back-to-back inserts: where a launch's ramp-up is a large share
PDL_CHAIN = 64
# (heads, tokens) of the Q + KV rows: below the grid rule's cutoff (1024) and above it
Q_CASES = ((16, 512), (16, 2048), (16, 65536), (128, 512), (128, 2048), (128, 65536))
BLOCK_SIZE = 64
TOUCH_BYTES = 256 << 20
MAX_SETS = 128
REPEATS = 20
BACK_TO_BACK = 10  # graph replays (or 2 GiB copies) queued back to back per timed sample
SPIN_CYCLES = 2_000_000  # a spin kernel (about 1 ms) keeps the GPU busy while they are queued


def load_variant(variant: str, build_root: str | None, streaming: bool = False):
    """(plan, ops, reference module). With build_root, the sources go to build_root/src/<variant>
    and the build to build_root/<variant> (the GPU tests use the same places, so one build serves
    both); else a temp directory and torch's default build directory. streaming: the KV-only
    instantiations only, with the streaming cache hints, as variant <variant>_stream."""
    from dsv41gen.emit.rope_kv import write_rope_kv
    from dsv41gen.errors import Diagnostics
    from dsv41gen.plan.rope_kv import plan_rope_kv
    from dsv41gen.spec.model import _parse_rope_kv
    from dsv41gen.spec.resolve import Resolver

    spec = Resolver(Diagnostics()).resolve(REPO / "specs" / f"{variant}.yaml")
    kernel = _parse_rope_kv(spec.data["kernels"]["rope_kv_insert"])
    if streaming:
        variant = f"{variant}_stream"
        kernel = replace(kernel, num_heads_q_padded=(0,))
    plan = plan_rope_kv(kernel, variant)
    if streaming:
        plan = replace(plan, streaming_accesses=not plan.streaming_accesses)
    if build_root:
        src, build = Path(build_root) / "src" / variant, Path(build_root) / variant
        build.mkdir(parents=True, exist_ok=True)
    else:
        src, build = Path(tempfile.mkdtemp(prefix=f"rope_kv_{variant}_")), None
    write_rope_kv(plan, src)
    # The variant's one generated module: its loader and reference configuration (it compiles
    # and imports dsv41gen's kernel sources, dsv41gen/kernels).
    name = f"_rope_kv_src_{plan.module}"
    module_spec = importlib.util.spec_from_file_location(name, src / f"{plan.module}.py")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    module_spec.loader.exec_module(module)
    loader = reference = module
    return plan, loader.load(build_directory=str(build) if build else None), reference


def time_back_to_back(run, per_sample: int = BACK_TO_BACK) -> float:
    """Median µs of one run() over REPEATS samples, each per_sample runs queued back to back
    between two events, after a spin kernel that keeps the GPU busy until they are all queued:
    the GPU never waits for the host, so no sample holds a launch's host-to-device latency."""
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(REPEATS):
        torch.cuda._sleep(SPIN_CYCLES)
        start.record()
        for _ in range(per_sample):
            run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / per_sample)
    return statistics.median(times)


def capture(calls):
    """A CUDA graph that runs every call once, captured after a warm-up run and replayed once."""
    for call in calls:
        call()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for call in calls:
            call()
    graph.replay()
    torch.cuda.synchronize()
    return graph


def time_sets(calls) -> float:
    """Median µs per call over graph replays that run every call once (time_back_to_back)."""
    return time_back_to_back(capture(calls).replay) / len(calls)


def copy_bandwidth() -> dict:
    """Device-to-device copy of 2 GiB, GB/s counting bytes read plus bytes written: eager
    (torch's copy_, 5 back to back per sample, time_back_to_back) and as a CUDA graph memcpy
    node (how the op configurations are timed)."""
    n = 2 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    for _ in range(5):
        dst.copy_(src)
    torch.cuda.synchronize()
    eager = 2 * n / time_back_to_back(lambda: dst.copy_(src), per_sample=5) / 1e3
    graph = 2 * n / time_sets([lambda: dst.copy_(src)] * 2) / 1e3
    return {"eager_GBps": round(eager, 1), "graph_memcpy_GBps": round(graph, 1)}


def kv_inputs(fmt, num_tokens, max_position, g):
    kv = torch.randn(num_tokens, 512, device="cuda", generator=g).to(torch.bfloat16)
    num_blocks = num_tokens // BLOCK_SIZE + 1
    elem = torch.empty((), dtype=fmt.cache_dtype).element_size()
    cache = torch.zeros(
        num_blocks, BLOCK_SIZE * fmt.record_width * elem, dtype=torch.uint8, device="cuda"
    )
    cache = cache.view(fmt.cache_dtype).view(num_blocks, BLOCK_SIZE, fmt.record_width)
    # A fresh prefill: consecutive tokens fill whole blocks, the blocks in random order.
    blocks = torch.randperm(num_blocks, device="cuda", generator=g)
    token = torch.arange(num_tokens, device="cuda")
    slots = blocks[token // BLOCK_SIZE] * BLOCK_SIZE + token % BLOCK_SIZE
    positions = torch.randperm(max_position, device="cuda", generator=g)[:num_tokens]
    scale = torch.tensor([0.37], device="cuda") if fmt.per_tensor_scale else None
    return kv, cache, slots, positions, scale


def kv_bytes(fmt, num_tokens, rope_dim) -> int:
    written = fmt.data_bytes + fmt.scale_bytes
    return num_tokens * (512 * 2 + 8 + 8 + rope_dim * 4 + written)


def versions() -> dict:
    """GPU, driver, torch, triton and CUDA versions of this run."""
    import triton

    def command(*argv: str) -> str:
        try:
            return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    nvcc = command("nvcc", "--version").splitlines()
    return {
        "gpu": torch.cuda.get_device_name(),
        "driver": command("nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "nvcc": next((line for line in nvcc if "release" in line), "unknown"),
    }


def kv_calls(op, inputs, fmt):
    return [
        functools.partial(op, kv, cache, slots, pos, cos_sin, BLOCK_SIZE, scale, fmt.kv_mxfp8)
        for kv, cache, slots, pos, scale, cos_sin in inputs
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--build-dir", help="build root shared with the GPU tests")
    parser.add_argument("--variant", default="deepseek_v41")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--streaming", action="store_true", help="with --build-only")
    args = parser.parse_args()

    if args.build_only:
        load_variant(args.variant, args.build_dir, args.streaming)
        return
    plan, ops, ref = load_variant(args.variant, args.build_dir)
    _, other, _ = load_variant(args.variant, args.build_dir, streaming=True)
    other_name = "streaming" if not plan.streaming_accesses else "plain_accesses"
    sys.path.insert(0, str(REPO / "tests" / "kernels"))
    import vllm_oracle
    from device_copy import same_bytes_copy

    why = vllm_oracle.available()
    oracle = vllm_oracle.Oracle() if why is None else None
    if why:
        print(f"vLLM 0.33.0's kernels are not run: {why}")
    g = torch.Generator("cuda").manual_seed(0)
    max_position = max(TOKENS)
    angles = torch.rand(max_position, plan.rope_dim // 2, device="cuda", generator=g) * 6.28
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1).contiguous()
    copy_start = copy_bandwidth()
    # The larger copy figure is the ceiling the targets are measured against.
    copy_gbps = max(copy_start.values())
    print(f"device copy: {copy_start} GB/s")

    def pct(nbytes, us):
        return round(100 * nbytes / us / 1e3 / copy_gbps, 1)

    def pct_same(nbytes, us, same):
        return round(100 * nbytes / us / 1e3 / same["best_GBps"], 1)

    kv_rows = []
    for fmt in ref.CACHE_FORMATS:
        for num_tokens in TOKENS:
            nbytes = kv_bytes(fmt, num_tokens, plan.rope_dim)
            sets = max(1, min(MAX_SETS, math.ceil(TOUCH_BYTES / nbytes)))
            inputs = [(*kv_inputs(fmt, num_tokens, max_position, g), cos_sin) for _ in range(sets)]
            calls = kv_calls(ops.fused_deepseek_v4_kv_rope_insert, inputs, fmt)
            row = {"format": fmt.name, "tokens": num_tokens, "bytes": nbytes, "sets": sets}
            for choice in ("rule", "reduced"):
                ops._debug_set_grid(choice)
                us = time_sets(calls)
                row[f"{choice}_us"] = round(us, 3)
                row[f"{choice}_GBps"] = round(nbytes / us / 1e3, 1)
                row[f"{choice}_pct_copy"] = pct(nbytes, us)
            ops._debug_set_grid("rule")
            row["reduced_over_rule"] = round(row["reduced_us"] / row["rule_us"], 3)
            same = same_bytes_copy(nbytes, sets, time_sets)
            row["copy_same_bytes"] = same
            row["rule_pct_copy_same_bytes"] = pct_same(nbytes, row["rule_us"], same)
            us = time_sets(kv_calls(other.fused_deepseek_v4_kv_rope_insert, inputs, fmt))
            row[f"{other_name}_us"] = round(us, 3)
            row[f"{other_name}_pct_copy"] = pct(nbytes, us)
            if oracle is not None:
                us = time_sets(kv_calls(oracle.kv_rope_insert, inputs, fmt))
                row["vllm_us"] = round(us, 3)
                row["vllm_GBps"] = round(nbytes / us / 1e3, 1)
                row["vllm_pct_copy"] = pct(nbytes, us)
                row["vllm_pct_copy_same_bytes"] = pct_same(nbytes, us, same)
                row["ratio_vs_vllm"] = round(row["rule_us"] / us, 3)
            kv_rows.append(row)
            print(
                f"kv-only {fmt.name:10s} {num_tokens:7d} tok: {row['rule_us']:9.2f} us "
                f"({row['rule_pct_copy']:5.1f}% copy, {row['rule_pct_copy_same_bytes']:5.1f}% of "
                f"same-bytes copy {same['best_GBps']:.0f} GB/s)  vLLM {row.get('vllm_us', 0):9.2f} us "
                f"({row.get('vllm_pct_copy', 0):5.1f}%)  ratio {row.get('ratio_vs_vllm', 0):.3f}  "
                f"{other_name} {row[f'{other_name}_pct_copy']:5.1f}%  "
                f"reduced x{row['reduced_over_rule']:.2f}"
            )
            del inputs, calls
            torch.cuda.empty_cache()

    # PDL: PDL_CHAIN back-to-back inserts into one cache (each depends on the previous one's
    # stream order) in one graph, with programmatic serialization allowed and forbidden.
    pdl_rows = []
    for fmt in ref.CACHE_FORMATS:
        for num_tokens in PDL_TOKENS:
            inputs = [(*kv_inputs(fmt, num_tokens, max_position, g), cos_sin)]
            calls = kv_calls(ops.fused_deepseek_v4_kv_rope_insert, inputs, fmt) * PDL_CHAIN
            row = {"format": fmt.name, "tokens": num_tokens, "chain": PDL_CHAIN}
            for allow in (True, False):
                ops._debug_allow_pdl(allow)
                row["pdl_us" if allow else "no_pdl_us"] = round(time_sets(calls), 3)
            ops._debug_allow_pdl(True)
            row["gain"] = round(row["no_pdl_us"] / row["pdl_us"], 3)
            pdl_rows.append(row)
            print(
                f"pdl {fmt.name:10s} {num_tokens:6d} tok x{PDL_CHAIN}: {row['pdl_us']:.2f} us "
                f"per insert with PDL, {row['no_pdl_us']:.2f} without (x{row['gain']:.3f})"
            )

    q_rows = []
    fmt = next(f for f in ref.CACHE_FORMATS if f.name == "fp8_ds_mla")
    for heads, num_tokens in Q_CASES:
        nbytes = kv_bytes(fmt, num_tokens, plan.rope_dim) + 2 * num_tokens * heads * 512 * 2
        # as the KV-only rows: enough input sets to touch TOUCH_BYTES per replay
        sets = max(1, min(MAX_SETS, math.ceil(TOUCH_BYTES / nbytes)))
        inputs = []
        for _ in range(sets):
            kv, cache, slots, pos, _ = kv_inputs(fmt, num_tokens, max_position, g)
            q_in = torch.randn(
                num_tokens, heads, 512, device="cuda", dtype=torch.bfloat16, generator=g
            )
            inputs.append((q_in, torch.empty_like(q_in), kv, cache, slots, pos))
        row = {"format": fmt.name, "heads": heads, "tokens": num_tokens, "bytes": nbytes}
        row["sets"] = sets

        def q_calls(op, tail, inputs=inputs):
            return [functools.partial(op, *args, cos_sin, *tail) for args in inputs]

        for choice in ("rule", "warp_per_slot", "reduced"):
            ops._debug_set_grid(choice)
            us = time_sets(
                q_calls(
                    ops.fused_deepseek_v4_qnorm_rope_kv_insert,
                    (heads, 1e-6, True, BLOCK_SIZE, None, False),
                )
            )
            if choice == "rule":
                row["rule_blocks"] = ops._debug_last_launch()[1]
            row[f"{choice}_us"] = round(us, 3)
            row[f"{choice}_GBps"] = round(nbytes / us / 1e3, 1)
        ops._debug_set_grid("rule")
        if oracle is not None:
            tail = (heads, 1e-6, True, BLOCK_SIZE, False)
            row["vllm_us"] = round(time_sets(q_calls(oracle.qnorm_rope_kv_insert, tail)), 3)
            row["vllm_GBps"] = round(nbytes / row["vllm_us"] / 1e3, 1)
            row["ratio_vs_vllm"] = round(row["rule_us"] / row["vllm_us"], 3)
        row["rule_grid"] = (
            "warp_per_slot" if ref.use_warp_per_slot(heads, num_tokens) else "reduced"
        )
        q_rows.append(row)
        print(
            f"q+kv {heads:3d} heads {num_tokens:6d} tok: "
            f"rule ({row['rule_grid']}) {row['rule_us']:9.2f} us "
            f"{row['rule_GBps']:6.0f} GB/s; vLLM {row.get('vllm_us', 0):.2f} us; "
            f"warp-per-slot {row['warp_per_slot_us']:.2f} us, reduced {row['reduced_us']:.2f} us"
        )
        del inputs
        torch.cuda.empty_cache()

    copy_end = copy_bandwidth()
    print(f"device copy at the end: {copy_end} GB/s")
    at = {n: [r for r in kv_rows if r["tokens"] == n] for n in (65536, 262144)}
    timed = [r for r in kv_rows if "ratio_vs_vllm" in r]
    q_timed = [r for r in q_rows if "ratio_vs_vllm" in r]
    # The stricter reading of "% of the device copy": of the higher of the start and end copies.
    best_copy = max(copy_gbps, *copy_end.values())

    def pct_best(row):
        return round(100 * row["bytes"] / row["rule_us"] / 1e3 / best_copy, 1)

    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **versions(),
        "variant": args.variant,
        "kv_dtype": "bfloat16",
        "block_size": BLOCK_SIZE,
        "vllm": "vLLM 0.33.0 wheel, sm_90 cubin of _C_stable_libtorch.abi3.so"
        if oracle
        else f"not run: {why}",
        "method": __doc__.split("\n\n")[2].replace("\n", " "),
        "copy_GBps": round(copy_gbps, 1),
        "copy_start": copy_start,
        "copy_end": copy_end,
        "kv_only": kv_rows,
        "pdl": pdl_rows,
        "q_kv": q_rows,
        "targets": {
            "vllm_measured_in_every_row": len(timed) == len(kv_rows),
            "kv_only_max_ratio_vs_vllm": max((r["ratio_vs_vllm"] for r in timed), default=None),
            "kv_only_no_slower_than_vllm": bool(timed)
            and all(r["ratio_vs_vllm"] <= 1.0 for r in timed),
            "kv_only_min_pct_copy_at_65536": min(r["rule_pct_copy"] for r in at[65536]),
            "kv_only_min_pct_copy_at_262144": min(r["rule_pct_copy"] for r in at[262144]),
            "kv_only_85pct_copy_at_65536": all(r["rule_pct_copy"] >= 85 for r in at[65536]),
            "kv_only_90pct_copy_at_262144": all(r["rule_pct_copy"] >= 90 for r in at[262144]),
            "kv_only_min_pct_same_bytes_copy_at_65536": min(
                r["rule_pct_copy_same_bytes"] for r in at[65536]
            ),
            "kv_only_min_pct_same_bytes_copy_at_262144": min(
                r["rule_pct_copy_same_bytes"] for r in at[262144]
            ),
            "kv_only_85pct_same_bytes_copy_at_65536": all(
                r["rule_pct_copy_same_bytes"] >= 85 for r in at[65536]
            ),
            "kv_only_90pct_same_bytes_copy_at_262144": all(
                r["rule_pct_copy_same_bytes"] >= 90 for r in at[262144]
            ),
            "kv_only_never_slower_than_reduced": all(
                r["rule_us"] <= r["reduced_us"] for r in kv_rows
            ),
            "copy_best_GBps": round(best_copy, 1),
            "kv_only_min_pct_best_copy_at_65536": min(pct_best(r) for r in at[65536]),
            "kv_only_min_pct_best_copy_at_262144": min(pct_best(r) for r in at[262144]),
            "pdl_min_gain": min(r["gain"] for r in pdl_rows),
            "q_kv_max_ratio_vs_vllm": max((r["ratio_vs_vllm"] for r in q_timed), default=None),
            "q_kv_no_slower_than_vllm": bool(q_timed)
            and all(r["ratio_vs_vllm"] <= 1.0 for r in q_timed),
        },
    }
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["targets"], indent=2))
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
