"""What a `dsv41gen build` and a `dsv41gen check` cost, as whole processes (issue 31's figures).

    python benchmarks/build_cost.py [--runs 5] [--json benchmarks/results/build_cost.json]

Each figure is the median of --runs whole processes (`python -m dsv41gen ...`), wall time and
CPU seconds (user + sys of the child, from getrusage), so a figure taken on a busy machine can
still be read: CPU seconds barely move with load, wall time does.

- ``fresh_build``: `build specs/deepseek_v41.yaml --out <an empty directory>` (the directory sits
  inside the repository, so the repository's formatter configuration applies, as for
  generated/). ``cold``: with an empty dsv41gen cache (templates compiled, every file
  formatted); ``warm``: the cache of a previous build of the same texts.
- ``check``: `check specs/*.yaml` against the committed generated/ (a full regeneration
  compared with the tree), warm cache.
- ``import``: `python -c "import dsv41gen.commands.cli"`.

The PNG beside the JSON (benchmarks/plot.py draws it) shows each figure's runs.
"""

from __future__ import annotations

import argparse
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

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "build_cost.json"


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _figure(runs: list[tuple[float, float]]) -> dict[str, object]:
    walls = [round(w, 4) for w, _ in runs]
    cpus = [round(c, 4) for _, c in runs]
    return {
        "wall_s_median": round(statistics.median(walls), 4),
        "cpu_s_median": round(statistics.median(cpus), 4),
        "wall_s_runs": walls,
        "cpu_s_runs": cpus,
    }


def measure(runs: int) -> dict[str, object]:
    python = sys.executable
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("DSV41GEN_")}
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="build-cost-") as scratch:
        cache = Path(scratch) / "cache"
        env = {**base_env, "DSV41GEN_CACHE_DIR": str(cache)}
        build = [python, "-m", "dsv41gen", "build", "specs/deepseek_v41.yaml", "--out"]

        def fresh_out() -> str:
            out = Path(tempfile.mkdtemp(prefix=".build-cost-out-", dir=ROOT))
            return str(out)

        def one_build(cold: bool) -> tuple[float, float]:
            if cold:
                shutil.rmtree(cache, ignore_errors=True)
            out = fresh_out()
            try:
                return _timed([*build, out], env)
            finally:
                shutil.rmtree(out, ignore_errors=True)

        results["fresh_build_cold"] = _figure([one_build(cold=True) for _ in range(runs)])
        results["fresh_build_warm"] = _figure([one_build(cold=False) for _ in range(runs)])
        check = [python, "-m", "dsv41gen", "check", *sorted(map(str, Path("specs").glob("*.yaml")))]
        _timed(check, env)  # the cache now holds generated/'s texts too
        results["check"] = _figure([_timed(check, env) for _ in range(runs)])
        results["import"] = _figure(
            [_timed([python, "-c", "import dsv41gen.commands.cli"], env) for _ in range(runs)]
        )
    return results


FIGURES = ("fresh_build_cold", "fresh_build_warm", "check", "import")


def _previous(path: Path) -> dict:
    """The file's record before this run ({} when there is none or it is not a record)."""
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return previous if isinstance(previous, dict) else {}


def _as_comparison(record: dict) -> dict:
    """A run as the `before` entry: its label, load and figures."""
    return {
        "label": record.get("label", ""),
        "load_average_at_start": record.get("machine", {}).get("load_average_at_start"),
        **{name: record[name] for name in FIGURES if name in record},
    }


def _with_comparison(record: dict, previous: dict, *, as_before: bool) -> dict:
    """The record to write. A rerun keeps the file's `before` comparison (the run the
    figures are compared with); --as-before makes this run the comparison instead and keeps
    the file's own figures."""
    if as_before:
        return {**(previous or record), "before": _as_comparison(record)}
    if "before" in previous:
        return {**record, "before": previous["before"]}
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--label", default="", help="what this run measures (e.g. a commit)")
    parser.add_argument(
        "--as-before",
        action="store_true",
        help="record this run as the file's `before` comparison, keeping its current figures",
    )
    args = parser.parse_args()
    load = os.getloadavg()
    figures = measure(args.runs)
    record = {
        "benchmark": "build_cost",
        "label": args.label,
        "machine": {
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_start": [round(x, 2) for x in load],
        },
        "method": "median of whole `python -m dsv41gen` processes; CPU = user + sys (getrusage)",
        **figures,
    }
    record = _with_comparison(record, _previous(args.json), as_before=args.as_before)
    args.json.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from plot import write_plot

    write_plot(args.json)
    for name, figure in figures.items():
        print(f"{name}: {figure['wall_s_median']} s wall, {figure['cpu_s_median']} CPU-s")


if __name__ == "__main__":
    main()
