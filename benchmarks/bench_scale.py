"""Scale of the compiler: build and check a synthetic family of 1, 10, 100 and 500 variants.

Each synthetic variant extends the real V4.1 spec (copied beside it) and declares its own
architectures and draft model, so every variant adds registry entries, dispatch branches and
generated tests. Every figure is the median of several runs of the whole `python -m dsv41gen`
process (interpreter start-up included), timed with time.perf_counter; peak memory is the
child's ru_maxrss. Also measured: the no-op rebuild of the real specs.

    python benchmarks/bench_scale.py [--sizes 1 10 100 500] [--repeat 3] [--out benchmarks/results/scale.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

VARIANT = """\
spec_version: 1
extends: deepseek_v41.yaml
variant:
  name: synth_{i:04d}
  display_name: Synthetic {i}
  model_type: synth_{i:04d}
architectures:
  DeepseekV41ForCausalLM: !delete
  DSparkV41DraftModel: !delete
  Synth{i:04d}ForCausalLM:
    registry: multimodal
    module: vllm.models.synth_{i:04d}
    class: Synth{i:04d}ForCausalLM
  Synth{i:04d}DraftModel:
    registry: speculative_decoding
    module: vllm.models.synth_{i:04d}
    class: DSparkDeepseekV4ForCausalLM
speculative:
  methods:
    dspark:
      draft_model_type: synth_{i:04d}
      draft_architecture: Synth{i:04d}DraftModel
runner:
  default_model_runner:
    Synth{i:04d}ForCausalLM: v{runner}
"""


def _run(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, peak MiB of the child, exit code) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "dsv41gen", *args], cwd=cwd, capture_output=True, check=False
    )
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if result.returncode not in (0,):
        sys.stderr.write(result.stderr.decode()[-2000:])
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run the biggest size last
    return wall, max(peak, before) / 1024, result.returncode


def _family(root: Path, n: int) -> Path:
    specs = root / "specs"
    specs.mkdir(parents=True)
    for name in ("deepseek_v4.yaml", "deepseek_v41.yaml"):
        shutil.copy(REPO / "specs" / name, specs / name)
    for i in range(n):
        (specs / f"synth_{i:04d}.yaml").write_text(VARIANT.format(i=i, runner=1 + i % 2))
    return specs


def measure(n: int, repeat: int) -> dict:
    walls, checks, peaks, noops = [], [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix=f"dsv41gen-scale-{n}-") as tmp:
            root = Path(tmp)
            specs = _family(root, n)
            target = str(specs / "deepseek_v41.yaml")
            wall, peak, code = _run(["build", target, "--out", "out"], root)
            assert code == 0, f"build of {n} variants failed"
            walls.append(wall)
            peaks.append(peak)
            wall, _, code = _run(["build", target, "--out", "out"], root)
            assert code == 0
            noops.append(wall)
            files = sum(1 for p in (root / "out").rglob("*") if p.is_file())
            (root / "out" / "deepseek_v4" / "MANIFEST").unlink()  # force the full comparison
            wall, _, code = _run(["check", target, "--out", "out"], root)
            checks.append(wall)
    return {
        "variants": n + 2,
        "synthetic_variants": n,
        "generated_files": files,
        "build_s_median": round(statistics.median(walls), 3),
        "build_s_runs": [round(w, 3) for w in walls],
        "build_peak_mib": round(max(peaks), 1),
        "noop_rebuild_s_median": round(statistics.median(noops), 3),
        "check_full_compare_s_median": round(statistics.median(checks), 3),
    }


def real_noop(repeat: int) -> dict:
    runs = [_run(["build", "specs/deepseek_v41.yaml"], REPO)[0] for _ in range(repeat + 1)][1:]
    return {"runs_s": [round(r, 3) for r in runs], "median_s": round(statistics.median(runs), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100, 500])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "scale.json")
    args = parser.parse_args()
    from dsv41gen import __version__

    results = {
        "benchmark": "dsv41gen scale: build / no-op rebuild / check of synthetic families",
        "date": datetime.date.today().isoformat(),
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "dsv41gen": __version__,
        "method": "median of --repeat runs of the whole `python -m dsv41gen` process; time.perf_counter; ru_maxrss",
        "real_specs_noop_rebuild": real_noop(args.repeat + 2),
        "sizes": [measure(n, args.repeat) for n in sorted(args.sizes)],
    }
    sizes = results["sizes"]
    if len(sizes) > 1:
        first, last = sizes[0], sizes[-1]
        results["build_s_per_variant_between_smallest_and_largest"] = round(
            (last["build_s_median"] - first["build_s_median"])
            / (last["variants"] - first["variants"]),
            5,
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
