"""Sweep build-time candidates of the KV-only RoPE + KV insert beside vLLM 0.33.0's kernel (issue 12).

    python3 benchmarks/sweep_rope_kv_kv_only.py --build-dir DIR --json OUT.json \
        [--baseline-core FILE_OR_DIR] [--only NAME,...] [--no-check]

Each candidate is V4.1's KV-only instantiations (variant deepseek_v41_kv_<name>): "default" built
from dsv41gen/kernels as they are, every other one from the same sources with the
rope_kv_core.cuh of commit SWITCHES_COMMIT, the last one that carried the sweeps' candidates as
-D switches (the core keeps only the winners since), and that candidate's switches
(DSV41GEN_KV_ONLY_PIPELINE: which formats
use the bulk-copy pipeline; DSV41GEN_KV_ONLY_STAGES: its tokens in flight per warp;
DSV41GEN_KV_ONLY_COALESCED_BF16; DSV41GEN_KV_ONLY_MIN_BLOCKS: the register cap's resident
blocks; DSV41GEN_KV_ONLY_WAVE_BLOCKS: a grid of fewer blocks per multiprocessor;
DSV41GEN_KV_ONLY_BF16_LARGE_TOKENS: where the all-bf16 record's smaller grid starts;
DSV41GEN_KV_ONLY_PREFETCH: kv rows prefetched into L2 that many tokens ahead;
DSV41GEN_KV_ONLY_EARLY_TRIGGER: which formats trigger PDL's launch_dependents at the start;
DSV41GEN_KV_ONLY_LOAD_256B: the L2::256B hint on the register loop's kv loads), or, for
"baseline", from the core file given by --baseline-core
(e.g. `git show 0809817:dsv41gen/kernels/rope_kv_core.cuh`, the kernel before the pipeline), or
from the kernel sources of the directory given (e.g. another checkout's dsv41gen/kernels).
The candidates build in parallel processes (--build-one). Every candidate is first compared
byte for byte with vLLM's kernel (bf16 and fp16 kv where vLLM has a counterpart; fp16's bf16
fields and a non-power-of-two block size against the baseline instead) on poisoned caches with
skipped and padded rows; then timed as benchmarks/bench_rope_kv.py times the KV-only op (same
inputs, bytes and copy figure), each size's candidates and vLLM interleaved over --rounds rounds:
the median round, the spread of the rounds and the median of the per-round ratios to vLLM.
Each row also carries the same-bytes device copy (benchmarks/device_copy.py) and each time as %
of it; --min-sets forces back-to-back launches, --diagnostics times the first candidate with
positions and cache blocks in order.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import statistics
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
# The last commit whose dsv41gen/kernels/rope_kv_core.cuh has the candidates' -D switches (with
# no switch given it compiles to the same SASS as today's core: scripts/compare_sass.py).
SWITCHES_COMMIT = "77cc12a86c042da5f375f626ce3dc15ea09c23ba"
sys.path[:0] = [str(REPO), str(REPO / "benchmarks"), str(REPO / "tests" / "kernels")]

CANDIDATES = {
    "baseline": (),  # --baseline-core: the register loop for every format, lane-by-lane stores
    "default": (),  # the core as it is
    # every format on one full wave of resident blocks at every size (the kernel before the
    # all-bf16 record's 3-blocks grid from 131072 tokens)
    "full_wave": ("-DDSV41GEN_KV_ONLY_BF16_LARGE_TOKENS=0",),
    "register_all": ("-DDSV41GEN_KV_ONLY_PIPELINE=0",),
    "pipeline_all": ("-DDSV41GEN_KV_ONLY_PIPELINE=2",),
    "stages3": ("-DDSV41GEN_KV_ONLY_STAGES=3",),
    # registers capped for 6 / 8 resident blocks (1536 / 2048 threads) per multiprocessor
    # instead of the spec's 4: more warps in flight, at the price of spills (ptxas: 40 / 32
    # registers, 120-180 / 220-360 spill bytes)
    "occ6": ("-DDSV41GEN_KV_ONLY_MIN_BLOCKS=6",),
    "occ8": ("-DDSV41GEN_KV_ONLY_MIN_BLOCKS=8",),
    # a grid of 3 / 2 blocks per multiprocessor instead of every resident one (4): fewer warps,
    # each over more tokens
    "grid3": ("-DDSV41GEN_KV_ONLY_WAVE_BLOCKS=3",),
    "grid2": ("-DDSV41GEN_KV_ONLY_WAVE_BLOCKS=2",),
    # lane 0 of each warp also prefetches into L2 (cp.async.bulk.prefetch.L2) the kv rows of its
    # tokens 2 / 4 / 8 tokens past the ones already loading: more reads in flight early on
    "prefetch2": ("-DDSV41GEN_KV_ONLY_PREFETCH=2",),
    "prefetch4": ("-DDSV41GEN_KV_ONLY_PREFETCH=4",),
    "prefetch8": ("-DDSV41GEN_KV_ONLY_PREFETCH=8",),
    # the next grid may launch (PDL) right after this one's griddepcontrol.wait, not once its
    # stores are issued, for every format (the default: per-tensor fp8 only) / for none (the
    # kernel before sweep 4)
    "early_trigger_all": ("-DDSV41GEN_KV_ONLY_EARLY_TRIGGER=2",),
    "late_trigger": ("-DDSV41GEN_KV_ONLY_EARLY_TRIGGER=0",),
    # the register loop's kv loads with the L2::256B prefetch-size hint
    "load256": ("-DDSV41GEN_KV_ONLY_LOAD_256B=1",),
    # mxfp8 on the register loop (only fp8_ds_mla on the pipeline)
    "mxfp8_register": ("-DDSV41GEN_KV_ONLY_PIPELINE=3",),
    # the register loop with the next token's cos/sin row in flight too (cp.async into a per-warp
    # ring, positions read two ahead); with every format / with mxfp8 on the register loop
    "ahead": ("-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=1",),
    "ahead_register_all": ("-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=1", "-DDSV41GEN_KV_ONLY_PIPELINE=0"),
    "ahead_mxfp8_register": ("-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=1", "-DDSV41GEN_KV_ONLY_PIPELINE=3"),
    # the cos/sin row ahead for the block-scaled formats only, every format on the register loop
    "ahead_scaled": ("-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=2", "-DDSV41GEN_KV_ONLY_PIPELINE=0"),
    # the register loops' slots split by a shift and a mask (power-of-two block sizes)
    "shift": ("-DDSV41GEN_KV_ONLY_SHIFT_SLOTS=1",),
    "ahead_scaled_shift": (
        "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=2",
        "-DDSV41GEN_KV_ONLY_PIPELINE=0",
        "-DDSV41GEN_KV_ONLY_SHIFT_SLOTS=1",
    ),
    # ahead_scaled (the ring for the block-scaled formats) with one more of the switches above
    # that did not help the loop without the ring; the ring moves the loop's bottleneck, so each
    # is timed again on top of it (DSV41GEN_KV_ONLY_PREFETCH is not: the ring loop has no L2
    # prefetch)
    "ahead_scaled_load256": (
        "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=2",
        "-DDSV41GEN_KV_ONLY_PIPELINE=0",
        "-DDSV41GEN_KV_ONLY_LOAD_256B=1",
    ),
    "ahead_scaled_occ6": (
        "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=2",
        "-DDSV41GEN_KV_ONLY_PIPELINE=0",
        "-DDSV41GEN_KV_ONLY_MIN_BLOCKS=6",
    ),
    "ahead_scaled_early_trigger": (
        "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=2",
        "-DDSV41GEN_KV_ONLY_PIPELINE=0",
        "-DDSV41GEN_KV_ONLY_EARLY_TRIGGER=2",
    ),
    "ahead_scaled_grid3": (
        "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=2",
        "-DDSV41GEN_KV_ONLY_PIPELINE=0",
        "-DDSV41GEN_KV_ONLY_WAVE_BLOCKS=3",
    ),
    # since sweep 7 (the defaults: the ring and slot shifts for the block-scaled formats, every
    # format on the register loop, 3 blocks per multiprocessor for the block-scaled formats from
    # DSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS, 131072 in sweep 8): where the fewer blocks start to
    # pay, and the kernels landed before sweep 7 (the block-scaled formats on the pipeline, no
    # ring, no shifts)
    "scaled_large_never": ("-DDSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS=0",),
    "scaled_large_always": ("-DDSV41GEN_KV_ONLY_SCALED_LARGE_TOKENS=1",),
    "scaled_large_blocks2": ("-DDSV41GEN_KV_ONLY_SCALED_LARGE_BLOCKS=2",),
    "before_sweep7": (
        "-DDSV41GEN_KV_ONLY_PIPELINE=1",
        "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=0",
        "-DDSV41GEN_KV_ONLY_SHIFT_SLOTS=0",
    ),
}
TOKENS = (16384, 65536, 262144)
CHECK_TOKENS = (1, 17, 31, 33, 1023, 1025, 4096, 65536, 262144)
# (block size, slot_mapping) of the identity check: random slots, and a prefill's consecutive runs
# (block 48: runs that cross block boundaries inside a block's step)
SLOT_PATTERNS = ((64, "random"), (48, "random"), (64, "prefill"), (48, "prefill"))


def load_candidate(
    name: str,
    build_root: str,
    baseline_core: str | None,
    *,
    flags: tuple[str, ...] | None = None,
    heads: tuple[int, ...] = (0,),
    prefix: str = "kv",
):
    """(ops, generated module) of candidate name: V4.1's instantiations of kNumHeadsQPadded in
    heads as variant deepseek_v41_<prefix>_<name>, compiled with flags (default CANDIDATES[name];
    benchmarks/sweep_rope_kv_qkv.py passes its own)."""
    import importlib.util

    from dsv41gen.emit.rope_kv import write_rope_kv
    from dsv41gen.errors import Diagnostics
    from dsv41gen.kernels import rope_kv_loader
    from dsv41gen.plan.rope_kv import plan_rope_kv
    from dsv41gen.spec.model import _parse_rope_kv
    from dsv41gen.spec.resolve import Resolver

    spec = Resolver(Diagnostics()).resolve(REPO / "specs" / "deepseek_v41.yaml")
    kernel = replace(
        _parse_rope_kv(spec.data["kernels"]["rope_kv_insert"]), num_heads_q_padded=heads
    )
    variant = f"deepseek_v41_{prefix}_{name}"
    plan = plan_rope_kv(kernel, variant)
    src, build = Path(build_root) / "src" / variant, Path(build_root) / variant
    build.mkdir(parents=True, exist_ok=True)
    write_rope_kv(plan, src)
    # The kernel sources are dsv41gen/kernels; the baseline compiles a copy of them whose core is
    # --baseline-core, or, where that is a directory, whose every source found there is that
    # directory's; a candidate with switches a copy whose core is SWITCHES_COMMIT's.
    kernels = rope_kv_loader.KERNELS_DIR
    candidate_flags = CANDIDATES[name] if flags is None else flags
    if name == "baseline":
        given = Path(baseline_core)
        if given.is_dir():
            kernels = copy_kernels(src / "kernels", given, None)
        else:
            kernels = copy_kernels(src / "kernels", None, given.read_text())
    elif candidate_flags:
        kernels = copy_kernels(src / "kernels", None, switches_core())
    full = f"_rope_kv_sweep_{plan.module}"
    module_spec = importlib.util.spec_from_file_location(full, src / f"{plan.module}.py")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[full] = module
    module_spec.loader.exec_module(module)
    ops = rope_kv_loader.load(
        extension_name=module.EXTENSION_NAME,
        namespace=plan.namespace,
        csrc_dir=module.CSRC_DIR,
        units=module.UNITS,
        build_directory=str(build),
        kernels_dir=kernels,
        extra_cuda_flags=candidate_flags,
    )
    return ops, module


def switches_core() -> str:
    """rope_kv_core.cuh as of SWITCHES_COMMIT (git history: a full clone)."""
    path = "dsv41gen/kernels/rope_kv_core.cuh"
    run = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{SWITCHES_COMMIT}:{path}"],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(
            f"sweep: the candidates need {path} of commit {SWITCHES_COMMIT} (git show failed:"
            f" {run.stderr.strip()}); run the sweep from a full clone (git fetch --unshallow)"
        )
    return run.stdout


def copy_kernels(target: Path, directory: Path | None, core: str | None) -> Path:
    """target holding a copy of dsv41gen/kernels' sources, each replaced by directory's file of
    that name where it has one, and the core by core where given (files left untouched when
    unchanged, so their build is reused)."""
    from dsv41gen.kernels import rope_kv_loader

    target.mkdir(parents=True, exist_ok=True)
    for source in sorted(rope_kv_loader.KERNELS_DIR.iterdir()):
        if source.suffix not in (".h", ".cuh", ".cu", ".cpp"):
            continue
        if core is not None and source.name == "rope_kv_core.cuh":
            text = core
        elif directory is not None and (directory / source.name).is_file():
            text = (directory / source.name).read_text()
        else:
            text = source.read_text()
        out = target / source.name
        if not out.is_file() or out.read_text() != text:
            out.write_text(text)
    return target


def cache_for(fmt, num_tokens, block_size, g):
    """Poisoned backing (64 pad bytes per block) and its [blocks, block_size, width] view."""
    num_blocks = num_tokens // block_size + 3
    elem = torch.empty((), dtype=fmt.cache_dtype).element_size()
    block_bytes = block_size * fmt.record_width * elem
    backing = torch.randint(
        0, 256, (num_blocks, block_bytes + 64), dtype=torch.uint8, device="cuda", generator=g
    )
    view = backing[:, :block_bytes].view(fmt.cache_dtype).view(num_blocks, block_size, -1)
    return backing, view, num_blocks


def run_into(op, backing, fmt, block_size, call):
    """op on the cache view of backing (its last 64 bytes per block are padding); backing."""
    kv, slots, positions, cos_sin, scale = call
    view = backing[:, : backing.shape[1] - 64].view(fmt.cache_dtype)
    view = view.view(backing.shape[0], block_size, -1)
    op(kv, view, slots, positions, cos_sin, block_size, scale, fmt.kv_mxfp8)
    return backing


def check_identity(names, ops, oracle, ref) -> dict:
    """name -> list of failures (empty: byte-identical everywhere checked)."""
    from test_rope_kv_gpu import cos_sin_cache, prefill_slots
    from test_rope_kv_vllm_gpu import bf16_field_mask, kv_rows

    cos_sin = cos_sin_cache()
    failures = {n: [] for n in names}
    cases = 0
    for fmt in ref.CACHE_FORMATS:
        for dtype in (torch.bfloat16, torch.float16):
            for num_tokens in CHECK_TOKENS:
                for block_size, pattern in SLOT_PATTERNS:
                    if block_size != 64 and num_tokens > 4096:
                        continue
                    g = torch.Generator("cuda").manual_seed(num_tokens + block_size)
                    kv = kv_rows(num_tokens, dtype, g)
                    backing, _, num_blocks = cache_for(fmt, num_tokens, block_size, g)
                    pad = min(3, num_tokens // 8)
                    if pattern == "random":
                        slots = torch.randperm(num_blocks * block_size, device="cuda", generator=g)
                        slots = slots[: num_tokens - pad].contiguous()
                        slots[::13] = -1  # skipped rows
                    else:  # a prefill starting mid-block, every 29th row skipped
                        slots = prefill_slots(
                            num_tokens - pad, num_blocks, g, block_size, first=5, skip_every=29
                        )
                    positions = torch.randint(0, 8192, (num_tokens,), device="cuda", generator=g)
                    scale = torch.tensor([0.37], device="cuda") if fmt.per_tensor_scale else None
                    call = (kv, slots, positions, cos_sin, scale)
                    outs = {
                        n: run_into(
                            ops[n].fused_deepseek_v4_kv_rope_insert,
                            backing.clone(),
                            fmt,
                            block_size,
                            call,
                        )
                        for n in names
                    }
                    vllm = None
                    if block_size == 64 and not (dtype == torch.float16 and fmt.name == "bf16"):
                        vllm = run_into(oracle.kv_rope_insert, backing.clone(), fmt, 64, call)
                    torch.cuda.synchronize()
                    cases += 1
                    what = f"{fmt.name} {dtype} {num_tokens} tok block {block_size} {pattern}"
                    keep = None
                    if vllm is not None and dtype == torch.float16 and fmt.bf16_values:
                        keep = ~bf16_field_mask(fmt, vllm)
                    for n in names:
                        if vllm is not None:
                            a, b = (outs[n], vllm) if keep is None else (outs[n][keep], vllm[keep])
                            if not torch.equal(a, b):
                                failures[n].append(f"vs vLLM: {what}")
                        if "baseline" in outs and not torch.equal(outs[n], outs["baseline"]):
                            failures[n].append(f"vs baseline: {what}")
                        # The landed kernel (checked against the baseline when it landed) judges
                        # what vLLM has no counterpart for: block size 48, fp16's bf16 fields.
                        if (
                            "default" in outs
                            and "baseline" not in outs
                            and not torch.equal(outs[n], outs["default"])
                        ):
                            failures[n].append(f"vs default: {what}")
    print(f"identity: {cases} cases; failures: { {n: len(f) for n, f in failures.items()} }")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--baseline-core")
    parser.add_argument("--json")
    parser.add_argument("--only", help="comma-separated candidate names")
    parser.add_argument("--build-one")
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved timing rounds")
    parser.add_argument("--tokens", help="comma-separated token counts (default: TOKENS)")
    parser.add_argument(
        "--min-sets",
        type=int,
        default=1,
        help="at least this many input sets per graph (bench_rope_kv gives a row of >= 256 MB one "
        "set: each replay is then one launch after an idle GPU, whose write-back of dirty L2 "
        "lines partly falls outside the timed window; 2 times back-to-back launches)",
    )
    parser.add_argument(
        "--diagnostics",
        action="store_true",
        help="also time the first candidate on the same kv and cache with positions 0 .. n-1 "
        "(contiguous cos/sin rows, a one-sequence prefill), with the cache blocks in order "
        "(slots 0 .. n-1: sequential record writes) and with both: what the cos/sin gather and "
        "the scattered blocks cost",
    )
    args = parser.parse_args()
    if args.build_one:
        load_candidate(args.build_one, args.build_dir, args.baseline_core)
        return
    names = [n for n in CANDIDATES if not args.only or n in args.only.split(",")]
    if not args.baseline_core:
        names = [n for n in names if n != "baseline"]
    procs = {}
    for n in names:
        cmd = [sys.executable, __file__, "--build-dir", args.build_dir, "--build-one", n]
        if args.baseline_core:
            cmd += ["--baseline-core", args.baseline_core]
        procs[n] = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    for n, proc in procs.items():
        out, _ = proc.communicate()
        if proc.returncode:
            print(f"build of {n} failed:\n{out[-4000:]}")
            names.remove(n)
    loaded = {n: load_candidate(n, args.build_dir, args.baseline_core) for n in names}
    ops = {n: o for n, (o, _) in loaded.items()}
    ref = next(iter(loaded.values()))[1]

    import vllm_oracle
    from bench_rope_kv import (
        BLOCK_SIZE,
        MAX_SETS,
        TOUCH_BYTES,
        copy_bandwidth,
        kv_bytes,
        kv_calls,
        kv_inputs,
        time_sets,
        versions,
    )
    from device_copy import same_bytes_copy

    oracle = vllm_oracle.Oracle()
    failures = {} if args.no_check else check_identity(names, ops, oracle, ref)
    torch.cuda.empty_cache()
    g = torch.Generator("cuda").manual_seed(0)
    max_position = 262144
    angles = torch.rand(max_position, 32, device="cuda", generator=g) * 6.28
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1).contiguous()
    copy = copy_bandwidth()
    copy_gbps = max(copy.values())
    print(f"device copy: {copy} GB/s")
    rows = []
    tokens = [int(t) for t in args.tokens.split(",")] if args.tokens else TOKENS
    for fmt in ref.CACHE_FORMATS:
        for num_tokens in tokens:
            nbytes = kv_bytes(fmt, num_tokens, 64)
            sets = max(args.min_sets, min(MAX_SETS, math.ceil(TOUCH_BYTES / nbytes)))
            inputs = [(*kv_inputs(fmt, num_tokens, max_position, g), cos_sin) for _ in range(sets)]
            row = {"format": fmt.name, "tokens": num_tokens, "bytes": nbytes, "sets": sets}
            timings = {n: [] for n in [*names, "vllm"]}
            for _ in range(args.rounds):
                for n in names:
                    timings[n].append(
                        time_sets(kv_calls(ops[n].fused_deepseek_v4_kv_rope_insert, inputs, fmt))
                    )
                timings["vllm"].append(time_sets(kv_calls(oracle.kv_rope_insert, inputs, fmt)))
            if args.diagnostics:
                first = names[0]
                seq = torch.arange(num_tokens, device="cuda")
                for what, use_pos, use_slots in (
                    ("contiguous_positions", True, False),
                    ("sequential_blocks", False, True),
                    ("contiguous_positions_sequential_blocks", True, True),
                ):
                    diag = [
                        (kv, c, seq if use_slots else sl, seq if use_pos else po, sc, cs)
                        for kv, c, sl, po, sc, cs in inputs
                    ]
                    timings[f"{first}_{what}"] = [
                        time_sets(kv_calls(ops[first].fused_deepseek_v4_kv_rope_insert, diag, fmt))
                        for _ in range(args.rounds)
                    ]
                    del diag
            for n in names:
                row[f"{n}_launch"] = list(ops[n]._debug_last_launch())
            row["copy_same_bytes"] = same_bytes_copy(nbytes, sets, time_sets)
            same_gbps = row["copy_same_bytes"]["best_GBps"]

            # Median over the interleaved rounds (each round's time a median of graph replays);
            # the spread is the rounds' lowest and highest % of copy; the ratio to vLLM is taken
            # round by round (each candidate against vLLM's time of the same round).
            def pct(us, nbytes=nbytes):
                return round(100 * nbytes / us / 1e3 / copy_gbps, 1)

            for n, ts in timings.items():
                us = statistics.median(ts)
                row[f"{n}_us"] = [round(t, 3) for t in ts]
                row[f"{n}_pct_copy"] = pct(us)
                row[f"{n}_pct_copy_range"] = [pct(max(ts)), pct(min(ts))]
                row[f"{n}_pct_copy_same_bytes"] = round(100 * nbytes / us / 1e3 / same_gbps, 1)
                if n != "vllm":
                    row.update(ratio_fields(n, ts, timings["vllm"]))
            rows.append(row)
            print(
                f"{fmt.name:10s} {num_tokens:7d}: "
                + "  ".join(
                    f"{n} {row[f'{n}_pct_copy']:5.1f}% ({row[f'{n}_pct_copy_range'][0]:.1f}-"
                    f"{row[f'{n}_pct_copy_range'][1]:.1f})"
                    for n in timings
                )
                + f"  | same-bytes copy {same_gbps:.0f} GB/s: "
                + " ".join(f"{n} {row[f'{n}_pct_copy_same_bytes']:5.1f}%" for n in timings)
                + "  | ratio "
                + " ".join(f"{n} {row[f'{n}_ratio_vs_vllm']:.3f}" for n in names)
                + "  | blocks "
                + " ".join(f"{n} {row[f'{n}_launch'][1]}" for n in names)
            )
            del inputs
            torch.cuda.empty_cache()
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **versions(),
        "block_size": BLOCK_SIZE,
        "rounds": args.rounds,
        "candidates": {n: list(CANDIDATES[n]) for n in names},
        "copy": copy,
        "copy_GBps": copy_gbps,
        "copy_method": "pct_copy: of copy_GBps, the larger figure of bench_rope_kv.copy_bandwidth "
        "(a 2 GiB copy); pct_copy_same_bytes: of the row's copy_same_bytes.best_GBps, the faster "
        "of a copy kernel and a captured cudaMemcpyAsync of the row's byte count, same sets, same "
        "graph timing (benchmarks/device_copy.py)",
        "identity_failures": failures,
        "kv_only_candidates": rows,  # not "kv_only": benchmarks/plot.py plots those
    }
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print_identity(names, failures, args.no_check)


def ratio_fields(name: str, times, vllm_times) -> dict:
    """The candidate's time over vLLM's, round by round: their median and range."""
    ratios = [t / v for t, v in zip(times, vllm_times, strict=True)]
    return {
        f"{name}_ratio_vs_vllm": round(statistics.median(ratios), 3),
        f"{name}_ratio_vs_vllm_range": [round(min(ratios), 3), round(max(ratios), 3)],
    }


def print_identity(names, failures: dict, unchecked: bool) -> None:
    """A line per candidate: byte-identical, its failures, or not checked."""
    for n in names:
        bad = failures.get(n, [])
        if unchecked:
            print(f"{n}: not checked (--no-check)")
        else:
            print(f"{n}: {'byte-identical' if not bad else f'{len(bad)} FAILURES, e.g. {bad[:3]}'}")


if __name__ == "__main__":
    main()
