"""Sweep build-time schedules of the Q + KV RoPE + KV insert beside vLLM 0.33.0's kernel.

    python3 benchmarks/sweep_rope_kv_qkv.py --build-dir DIR --json OUT.json \
        [--only NAME,...] [--heads 8,16,128] [--no-check] [--rounds N] [--dry-run]

Each candidate is V4.1's Q + KV instantiations of kNumHeadsQPadded in --heads (variant
deepseek_v41_qkv_<name>), "default" built from dsv41gen/kernels as they are, every other one
with the -D switches of the rope_kv_core.cuh of sweep_rope_kv_kv_only.SWITCHES_COMMIT (the core
keeps only the winners since): (DSV41GEN_QKV_SCHEDULE: 0 today's reduced grid, 1 the reduced grid with the token's position read
once and the next slot's row prefetched, 2 the balanced strided grid instead of the reduced one,
3 the strided grid at every size; DSV41GEN_QKV_VECTOR_STORES: q_out rows stored as unsplit
16-byte vectors). The candidates build in parallel processes (--build-one), through
benchmarks/sweep_rope_kv_kv_only.load_candidate. Every candidate is first compared byte for byte
(q_out and the whole poisoned cache backing, padding included; skipped slots -1 and rows past the
slot mapping) with vLLM's Q op for the packed caches (fp8_ds_mla, mxfp8: bf16 and fp16 inputs,
fp16's bf16 record fields excluded as in tests/kernels/test_rope_kv_vllm_gpu.py) and with the
project's torch reference for the formats vLLM's Q op does not cover (bf16, fp8 per-tensor) up to
CHECK_REFERENCE_MAX tokens, and with the default candidate everywhere; then timed as
benchmarks/bench_rope_kv.py times its q_kv rows (fp8_ds_mla cache, bf16, RMSNorm on, the same
bytes and graph replay), with enough input sets per graph to touch >= 256 MB, each size's
candidates and vLLM interleaved over --rounds rounds: the median round, the rounds' times and the
median of the per-round ratios to vLLM.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks"), str(REPO / "tests" / "kernels")]

CANDIDATES = {
    # the schedule before this sweep: DSV41GEN_QKV_SCHEDULE 0, q_out stores as the compiler splits
    "before": ("-DDSV41GEN_QKV_SCHEDULE=0", "-DDSV41GEN_QKV_VECTOR_STORES=0"),
    "default": (),  # the core as it is (schedule 4, 16-byte q_out stores)
    # schedule 0, q_out stored as unsplit 16-byte vectors
    "vector_stores": ("-DDSV41GEN_QKV_SCHEDULE=0",),
    # reduced grid, position read once per warp, next slot's row in flight
    "prefetch": ("-DDSV41GEN_QKV_SCHEDULE=1", "-DDSV41GEN_QKV_VECTOR_STORES=0"),
    "prefetch_vec": ("-DDSV41GEN_QKV_SCHEDULE=1",),
    # balanced strided grid (one wave of resident blocks) from the cutoff on
    "strided": ("-DDSV41GEN_QKV_SCHEDULE=2", "-DDSV41GEN_QKV_VECTOR_STORES=0"),
    "strided_vec": ("-DDSV41GEN_QKV_SCHEDULE=2",),
    # the strided grid below the cutoff too
    "strided_all_vec": ("-DDSV41GEN_QKV_SCHEDULE=3",),
}
HEADS = (8, 16, 128)
TIMED_HEADS = (16, 128)
TOKENS = (512, 2048, 65536)
CHECK_TOKENS = (1, 17, 1023, 1024, 1025, 4096, 65536)
CHECK_REFERENCE_MAX = 4096  # the torch reference's Q temporaries grow with tokens x heads
PACKED = ("fp8_ds_mla", "mxfp8")  # the formats vLLM 0.33.0's Q op writes
EPS = 1e-6
BUILD_JOBS = 4  # ninja jobs per candidate build (the builds run side by side)


def load(name: str, build_root: str, heads: tuple[int, ...]):
    from sweep_rope_kv_kv_only import load_candidate

    return load_candidate(name, build_root, None, flags=CANDIDATES[name], heads=heads, prefix="qkv")


def check_cases(heads: tuple[int, ...]):
    """(heads, format, dtype, tokens, apply_q_norm) of the identity check: every format and
    size with bf16 and RMSNorm on; RMSNorm off and fp16 up to 4096 tokens."""
    import torch

    for h in heads:
        for fmt_name in ("bf16", "fp8", "fp8_ds_mla", "mxfp8"):
            for num_tokens in CHECK_TOKENS:
                for dtype in (torch.bfloat16, torch.float16):
                    for norm in (True, False):
                        small = num_tokens <= CHECK_REFERENCE_MAX
                        if not small and (dtype != torch.bfloat16 or not norm):
                            continue
                        if fmt_name == "bf16" and dtype == torch.float16 and not small:
                            continue
                        yield h, fmt_name, dtype, num_tokens, norm


def check_identity(names, ops, oracle, ref, heads) -> dict:
    """name -> list of failures (empty: byte-identical everywhere checked)."""
    import torch
    from test_rope_kv_gpu import LIVE_HEADS, random_rows
    from test_rope_kv_vllm_gpu import Inputs, bf16_field_mask

    failures = {n: [] for n in names}
    cases = 0
    for h, fmt_name, dtype, num_tokens, norm in check_cases(heads):
        fmt = next(f for f in ref.CACHE_FORMATS if f.name == fmt_name)
        seed = h * 7919 + num_tokens
        inputs = Inputs(fmt, dtype, num_tokens, seed=seed, scale=0.37)
        g = torch.Generator("cuda").manual_seed(seed + 1)
        live = LIVE_HEADS.get(h, h)
        q_in = random_rows((num_tokens, live, 512), dtype, g)
        q_poison = torch.empty(num_tokens, h, 512, dtype=dtype, device="cuda")
        q_poison.view(torch.int16).random_(generator=g)
        what = f"{fmt_name} {str(dtype)[6:]} heads {h} ({live} live) {num_tokens} tok norm {norm}"

        def run(
            op, backing, q_out, *, vllm=False, h=h, fmt=fmt, inputs=inputs, q_in=q_in, norm=norm
        ):
            cache = inputs.view(backing)
            common = (q_in, q_out, inputs.kv, cache, inputs.slots, inputs.positions)
            if vllm:
                op(*common, inputs.cos_sin, h, EPS, norm, 64, fmt.kv_mxfp8)
            else:
                op(*common, inputs.cos_sin, h, EPS, norm, 64, inputs.scale, fmt.kv_mxfp8)

        want = {}  # what -> (backing, q_out, keep mask or None)
        if fmt_name in PACKED:
            backing, q_out = inputs.backing.clone(), q_poison.clone()
            run(oracle.qnorm_rope_kv_insert, backing, q_out, vllm=True)
            keep = ~bf16_field_mask(fmt, backing) if dtype == torch.float16 else None
            want["vLLM"] = (backing, q_out, keep)
        elif num_tokens <= CHECK_REFERENCE_MAX:
            backing, q_out = inputs.backing.clone(), q_poison.clone()
            run(ref.qnorm_rope_kv_insert, backing, q_out)
            want["reference"] = (backing, q_out, None)
        backing, q_out = inputs.backing.clone(), q_poison.clone()
        for n in names:
            backing.copy_(inputs.backing)
            q_out.copy_(q_poison)
            run(ops[n].fused_deepseek_v4_qnorm_rope_kv_insert, backing, q_out)
            torch.cuda.synchronize()
            if n == "default" and "default" not in want:
                want["default"] = (backing.clone(), q_out.clone(), None)
            for against, (w_backing, w_q, keep) in want.items():
                if against == "default" and n == "default":
                    continue
                same_cache = (
                    torch.equal(backing, w_backing)
                    if keep is None
                    else torch.equal(backing[keep], w_backing[keep])
                )
                same_q = torch.equal(q_out.view(torch.int16), w_q.view(torch.int16))
                if not (same_cache and same_q):
                    bad = ("k_cache " if not same_cache else "") + ("q_out" if not same_q else "")
                    failures[n].append(f"vs {against}: {what}: {bad}")
        cases += 1
        del run, inputs, q_in, q_poison, want, backing, q_out
        if num_tokens > CHECK_REFERENCE_MAX:
            torch.cuda.empty_cache()
    print(f"identity: {cases} cases; failures: { {n: len(f) for n, f in failures.items()} }")
    return failures


def q_inputs(fmt, heads, num_tokens, max_position, cos_sin, g):
    """One input set of bench_rope_kv's q_kv rows (kv_inputs plus q_in, q_out)."""
    import torch
    from bench_rope_kv import kv_inputs

    kv, cache, slots, pos, _ = kv_inputs(fmt, num_tokens, max_position, g)
    q_in = torch.randn(num_tokens, heads, 512, device="cuda", dtype=torch.bfloat16, generator=g)
    return q_in, torch.empty_like(q_in), kv, cache, slots, pos, cos_sin


def q_calls(op, inputs, heads, vllm):
    from bench_rope_kv import BLOCK_SIZE

    tail = (False,) if vllm else (None, False)
    return [functools.partial(op, *args, heads, EPS, True, BLOCK_SIZE, *tail) for args in inputs]


def build_all(names, args) -> list[str]:
    """Builds every candidate in its own process; the names that built."""
    procs = {}
    env = {**os.environ, "MAX_JOBS": os.environ.get("MAX_JOBS", str(BUILD_JOBS))}
    for n in names:
        cmd = [sys.executable, __file__, "--build-dir", args.build_dir, "--build-one", n]
        cmd += ["--heads", ",".join(map(str, args.heads))]
        procs[n] = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
    built = []
    for n, proc in procs.items():
        out, _ = proc.communicate()
        if proc.returncode:
            print(f"build of {n} failed:\n{out[-4000:]}")
        else:
            built.append(n)
    return built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--json")
    parser.add_argument("--only", help="comma-separated candidate names (default: all)")
    parser.add_argument("--build-one", help=argparse.SUPPRESS)
    parser.add_argument(
        "--heads",
        default=",".join(map(str, HEADS)),
        help="comma-separated kNumHeadsQPadded values to build and check (default %(default)s)",
    )
    parser.add_argument("--tokens", help="comma-separated timed token counts (default: TOKENS)")
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the candidates, identity cases and timed sizes, build and run nothing",
    )
    args = parser.parse_args()
    from sweep_rope_kv_kv_only import print_identity, ratio_fields  # imports torch

    args.heads = tuple(int(h) for h in args.heads.split(","))
    if args.build_one:
        load(args.build_one, args.build_dir, args.heads)
        return
    names = [n for n in CANDIDATES if not args.only or n in args.only.split(",")]
    if "default" not in names:
        names.insert(0, "default")  # the identity check's comparison for every format
    tokens = [int(t) for t in args.tokens.split(",")] if args.tokens else list(TOKENS)
    timed_heads = [h for h in TIMED_HEADS if h in args.heads]
    if args.dry_run:
        for n in names:
            print(f"candidate {n}: {' '.join(CANDIDATES[n]) or '(no flags)'}")
        cases = list(check_cases(args.heads))
        print(f"identity cases per candidate: {len(cases)}; timed: heads {timed_heads} x "
              f"tokens {tokens}, {args.rounds} rounds")  # fmt: skip
        return

    import torch

    phases = {}  # wall seconds of the builds, the identity check and the timing
    start = time.monotonic()
    names = build_all(names, args)
    if "default" not in names:
        raise SystemExit("the default candidate did not build")
    loaded = {n: load(n, args.build_dir, args.heads) for n in names}
    ops = {n: o for n, (o, _) in loaded.items()}
    ref = loaded["default"][1]
    phases["build_s"] = round(time.monotonic() - start, 1)
    print(f"built {names} in {phases['build_s']} s")

    import vllm_oracle
    from bench_rope_kv import MAX_SETS, TOUCH_BYTES, copy_bandwidth, kv_bytes, time_sets, versions

    oracle = vllm_oracle.Oracle()
    start = time.monotonic()
    failures = {} if args.no_check else check_identity(names, ops, oracle, ref, args.heads)
    torch.cuda.empty_cache()
    phases["check_s"] = round(time.monotonic() - start, 1)
    start = time.monotonic()
    g = torch.Generator("cuda").manual_seed(0)
    max_position = 262144
    angles = torch.rand(max_position, 32, device="cuda", generator=g) * 6.28
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1).contiguous()
    copy = copy_bandwidth()
    copy_gbps = max(copy.values())
    print(f"device copy: {copy} GB/s")
    fmt = next(f for f in ref.CACHE_FORMATS if f.name == "fp8_ds_mla")
    rows = []
    for heads in timed_heads:
        for num_tokens in tokens:
            nbytes = kv_bytes(fmt, num_tokens, 64) + 2 * num_tokens * heads * 512 * 2
            sets = max(1, min(MAX_SETS, math.ceil(TOUCH_BYTES / nbytes)))
            inputs = [
                q_inputs(fmt, heads, num_tokens, max_position, cos_sin, g) for _ in range(sets)
            ]
            row = {"heads": heads, "tokens": num_tokens, "bytes": nbytes, "sets": sets}
            timings = {n: [] for n in [*names, "vllm"]}
            for _ in range(args.rounds):
                for n in names:
                    op = ops[n].fused_deepseek_v4_qnorm_rope_kv_insert
                    timings[n].append(time_sets(q_calls(op, inputs, heads, vllm=False)))
                calls = q_calls(oracle.qnorm_rope_kv_insert, inputs, heads, vllm=True)
                timings["vllm"].append(time_sets(calls))
            for n in names:
                row[f"{n}_launch"] = list(ops[n]._debug_last_launch())
            for n, ts in timings.items():
                us = statistics.median(ts)
                row[f"{n}_us"] = [round(t, 3) for t in ts]
                row[f"{n}_median_us"] = round(us, 3)
                row[f"{n}_GBps"] = round(nbytes / us / 1e3, 1)
                row[f"{n}_pct_copy"] = round(100 * nbytes / us / 1e3 / copy_gbps, 1)
                if n != "vllm":
                    row.update(ratio_fields(n, ts, timings["vllm"]))
            rows.append(row)
            print(
                f"heads {heads:3d} {num_tokens:6d} tok ({sets} sets): "
                + "  ".join(f"{n} {row[f'{n}_median_us']:.2f} us" for n in timings)
                + "  | ratio vs vLLM "
                + " ".join(f"{n} {row[f'{n}_ratio_vs_vllm']:.3f}" for n in names)
                + "  | blocks "
                + " ".join(f"{n} {row[f'{n}_launch'][1]}" for n in names)
            )
            del inputs
            torch.cuda.empty_cache()
    phases["timing_s"] = round(time.monotonic() - start, 1)
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **versions(),
        "format": fmt.name,
        "kv_dtype": "bfloat16",
        "apply_q_norm": True,
        "rounds": args.rounds,
        "heads_built": list(args.heads),
        "candidates": {n: list(CANDIDATES[n]) for n in names},
        "copy": copy,
        "copy_GBps": copy_gbps,
        "identity_failures": failures,
        "phases": phases,
        "q_kv_candidates": rows,  # not "q_kv": benchmarks/plot.py plots those
    }
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print_identity(names, failures, args.no_check)


if __name__ == "__main__":
    main()
