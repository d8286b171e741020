"""Where the KV-only insert's DRAM time goes (issue 12): hardware counters from Nsight Compute.

    ncu --clock-control none --csv --metrics "$(python3 benchmarks/ncu_rope_kv_kv_only.py --metrics)" \
        -k regex:'kv_only_strided|fusedDeepseek|copy_kernel' \
        python3 benchmarks/ncu_rope_kv_kv_only.py --build-dir DIR [--tokens 65536] > ncu.csv
    python3 benchmarks/ncu_rope_kv_kv_only.py --summarize ncu.csv --json OUT.json

The program launches, per cache format and token count, each kernel once on fresh inputs (ncu
replays each launch, flushing the caches before every pass): the landed KV-only kernel (V4.1,
bf16 kv, the sweep's "default" build), the same with positions 0 .. n-1 (contiguous cos/sin
rows), vLLM 0.33.0's compiled kernel, and a device copy kernel of the same byte count
(benchmarks/device_copy.py). --summarize turns ncu's CSV into a table and a JSON: DRAM bytes read
and written beside the bytes the op must move (bench_rope_kv.kv_bytes), DRAM throughput as % of
its peak, the L2 store sectors per request, the L2 hit rate of reads and the achieved occupancy.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks"), str(REPO / "tests" / "kernels")]

METRICS = (
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__t_requests_srcunit_tex_op_write.sum",
    "lts__t_sector_op_read_hit_rate.pct",
    "lts__t_sector_op_write_hit_rate.pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "launch__registers_per_thread",
    "launch__grid_size",
)


def run(build_dir: str, tokens: list[int]) -> None:
    import torch
    import vllm_oracle
    from bench_rope_kv import kv_bytes, kv_inputs
    from device_copy import launch_copy
    from sweep_rope_kv_kv_only import load_candidate

    ops, ref = load_candidate("default", build_dir, None)
    oracle = vllm_oracle.Oracle()
    g = torch.Generator("cuda").manual_seed(0)
    max_position = 262144
    angles = torch.rand(max_position, 32, device="cuda", generator=g) * 6.28
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1).contiguous()
    order = []
    for fmt in ref.CACHE_FORMATS:
        for n in tokens:
            kv, cache, slots, pos, scale = kv_inputs(fmt, n, max_position, g)
            seq = torch.arange(n, device="cuda")
            words = kv_bytes(fmt, n, 64) // 2 // 16 * 4
            src = torch.randint(-(2**31), 2**31 - 1, (words,), dtype=torch.int32, device="cuda")
            dst = torch.empty_like(src)
            torch.cuda.synchronize()
            op = ops.fused_deepseek_v4_kv_rope_insert
            op(kv, cache, slots, pos, cos_sin, 64, scale, fmt.kv_mxfp8)
            order.append((fmt.name, n, "generated"))
            op(kv, cache, slots, seq, cos_sin, 64, scale, fmt.kv_mxfp8)
            order.append((fmt.name, n, "generated_contiguous_positions"))
            oracle.kv_rope_insert(kv, cache, slots, pos, cos_sin, 64, scale, fmt.kv_mxfp8)
            order.append((fmt.name, n, "vllm"))
            launch_copy(src, dst, 4096, 4)
            order.append((fmt.name, n, "copy_same_bytes"))
            torch.cuda.synchronize()
            del kv, cache, slots, pos, scale, seq, src, dst
    # The launch order, for --summarize (stderr: ncu's CSV goes to stdout).
    print("NCU_ORDER " + json.dumps(order), file=sys.stderr)
    Path(build_dir, "ncu_order.json").write_text(json.dumps(order))


def summarize(csv_path: str, order_path: str, json_path: str | None) -> None:
    from bench_rope_kv import kv_bytes

    text = Path(csv_path).read_text().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith('"ID"'))
    rows = list(csv.DictReader(text[start:]))
    by_id: dict[str, dict] = {}
    for r in rows:
        entry = by_id.setdefault(r["ID"], {"kernel": r["Kernel Name"][:60]})
        value = r["Metric Value"].replace(",", "")
        try:
            entry[r["Metric Name"]] = float(value)
        except ValueError:
            entry[r["Metric Name"]] = value
    launches = [by_id[k] for k in sorted(by_id, key=int)]
    order = json.loads(Path(order_path).read_text())
    if len(order) != len(launches):
        raise SystemExit(f"{len(launches)} profiled launches, {len(order)} expected")

    class _Fmt:  # kv_bytes needs data_bytes + scale_bytes only
        def __init__(self, written):
            self.data_bytes, self.scale_bytes = written, 0

    written = {"bf16": 1024, "fp8": 512, "fp8_ds_mla": 584, "mxfp8": 528}
    out = []
    print(
        f"{'format':10s} {'tokens':>7s} {'kernel':32s} {'us':>7s} {'dram%':>6s} "
        f"{'rd/cnt':>6s} {'wr/cnt':>6s} {'st sec/req':>10s} {'L2 rd hit':>9s} {'occ%':>5s}"
    )
    for (fmt, n, what), m in zip(order, launches, strict=True):
        counted = kv_bytes(_Fmt(written[fmt]), n, 64)
        counted_write = n * written[fmt]
        counted_read = counted - counted_write
        if what == "copy_same_bytes":
            counted_read = counted_write = counted // 2
        req = m.get("lts__t_requests_srcunit_tex_op_write.sum") or 1.0
        row = {
            "format": fmt,
            "tokens": n,
            "what": what,
            "kernel": m["kernel"],
            "us": m["gpu__time_duration.sum"] / 1e3,
            "dram_pct_of_peak": m["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
            "dram_read_bytes": m["dram__bytes_read.sum"],
            "dram_write_bytes": m["dram__bytes_write.sum"],
            "counted_read_bytes": counted_read,
            "counted_write_bytes": counted_write,
            "dram_read_over_counted": m["dram__bytes_read.sum"] / counted_read,
            "dram_write_over_counted": m["dram__bytes_write.sum"] / counted_write,
            "l2_store_sectors_per_request": m["lts__t_sectors_srcunit_tex_op_write.sum"] / req,
            "l2_read_hit_pct": m["lts__t_sector_op_read_hit_rate.pct"],
            "l2_write_hit_pct": m["lts__t_sector_op_write_hit_rate.pct"],
            "achieved_occupancy_pct": m["sm__warps_active.avg.pct_of_peak_sustained_active"],
            "sm_throughput_pct": m["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
            "registers": m["launch__registers_per_thread"],
            "grid": m["launch__grid_size"],
        }
        out.append(row)
        print(
            f"{fmt:10s} {n:7d} {what:32s} {row['us']:7.2f} {row['dram_pct_of_peak']:6.1f} "
            f"{row['dram_read_over_counted']:6.3f} {row['dram_write_over_counted']:6.3f} "
            f"{row['l2_store_sectors_per_request']:10.2f} {row['l2_read_hit_pct']:9.1f} "
            f"{row['achieved_occupancy_pct']:5.1f}"
        )
    if json_path:
        Path(json_path).write_text(
            json.dumps({"metrics": list(METRICS), "rows": out}, indent=2) + "\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--metrics", action="store_true", help="print the metric list for ncu")
    parser.add_argument("--build-dir")
    parser.add_argument("--tokens", default="65536")
    parser.add_argument("--summarize", help="ncu's CSV output")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.metrics:
        print(",".join(METRICS))
    elif args.summarize:
        summarize(args.summarize, str(Path(args.build_dir, "ncu_order.json")), args.json)
    else:
        run(args.build_dir, [int(t) for t in args.tokens.split(",")])


if __name__ == "__main__":
    main()
