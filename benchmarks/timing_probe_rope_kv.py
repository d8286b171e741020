"""Two timings of the KV-only insert side by side (issue 12): what bench_rope_kv.time_sets did until
2026-12-01 18:30 UTC (CUDA events around one graph replay after an idle GPU, median of 20) and the
host clock around 200 replays queued back to back (one synchronize at the end), for the landed
kernel ('default': per-tensor fp8 triggers the next grid at its start), 'late_trigger' (every
format triggers at its end) and 'early_trigger_all' (every format at its start).

    python3 benchmarks/sweep_rope_kv_kv_only.py --build-dir DIR --only \
        default,late_trigger,early_trigger_all --no-check --rounds 1 --tokens 65536   # builds
    python3 benchmarks/timing_probe_rope_kv.py DIR

Prints per format and token count the medians over 3 rounds of (events µs, host µs) per insert.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks"), str(REPO / "tests" / "kernels")]

NAMES = ("default", "late_trigger", "early_trigger_all")


def events_one_replay(calls, repeats=20) -> float:
    """µs per call: events around one replay after an idle GPU (the old time_sets)."""
    import torch
    from bench_rope_kv import capture

    graph = capture(calls)
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(repeats):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / len(calls))
    return statistics.median(times)


def host_back_to_back(calls, replays=200) -> float:
    """µs per call: the host clock around replays queued back to back."""
    import torch
    from bench_rope_kv import capture

    graph = capture(calls)
    t0 = time.perf_counter()
    for _ in range(replays):
        graph.replay()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6 / replays / len(calls)


def main() -> None:
    import torch
    from bench_rope_kv import MAX_SETS, TOUCH_BYTES, kv_bytes, kv_calls, kv_inputs
    from sweep_rope_kv_kv_only import load_candidate

    loaded = {n: load_candidate(n, sys.argv[1], None) for n in NAMES}
    ref = loaded["default"][1]
    g = torch.Generator("cuda").manual_seed(0)
    angles = torch.rand(262144, 32, device="cuda", generator=g) * 6.28
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1).contiguous()
    for fmt in ref.CACHE_FORMATS:
        for n in (65536, 262144):
            nbytes = kv_bytes(fmt, n, 64)
            sets = max(1, min(MAX_SETS, math.ceil(TOUCH_BYTES / nbytes)))
            inputs = [(*kv_inputs(fmt, n, 262144, g), cos_sin) for _ in range(sets)]
            out = []
            for _ in range(3):
                for name in NAMES:
                    op = loaded[name][0].fused_deepseek_v4_kv_rope_insert
                    calls = kv_calls(op, inputs, fmt)
                    out.append((name, events_one_replay(calls), host_back_to_back(calls)))
            summary = {
                name: (
                    round(statistics.median(e for m, e, _ in out if m == name), 2),
                    round(statistics.median(h for m, _, h in out if m == name), 2),
                )
                for name in NAMES
            }
            print(fmt.name, n, "sets", sets, "(events us, host us):", summary, flush=True)
            del inputs
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
