"""Bandwidth against size: one PNG beside each benchmark JSON, for reviewers to read in PRs.

Each panel plots one kernel's effective bandwidth (bytes the op must move / time) against the
bytes moved, with the device copy of the same run on the same axes, and vLLM's kernel where a
measurement of it exists (in the JSON itself, or for MXFP8 the anchors DESIGN.md records,
kept in benchmarks/results/vllm_mxfp8_anchors_h200.json and labelled as another run).

The PNGs are small and byte-for-byte reproducible: matplotlib's Agg backend, a fixed size and
dpi, the bundled DejaVu Sans font, no metadata (matplotlib writes its version as "Software"
otherwise) and no timestamps; so a rerun on the same JSON and the same matplotlib (the `plots`
extra pins it) changes nothing, and tests/core/test_benchmark_plots.py checks the committed
ones.

    python benchmarks/plot.py [RESULT.json ...]   # default: every result it knows how to plot

Benchmark scripts call ``write_plot(json_path)`` after writing their JSON.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
VLLM_MXFP8_ANCHORS = RESULTS / "vllm_mxfp8_anchors_h200.json"
SIZE_INCHES = (9.0, 3.4)
DPI = 100
STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "svg.hashsalt": "dsv41gen",  # deterministic ids should anyone save SVG
    "axes.grid": True,
    "grid.alpha": 0.3,
}


@dataclass(frozen=True)
class Series:
    label: str
    bytes_moved: tuple[float, ...]
    tb_s: tuple[float, ...]
    kind: str  # "kernel" (the generated one), "alternative", "copy", "copy_same", "vllm"


@dataclass(frozen=True)
class Panel:
    title: str
    series: tuple[Series, ...]


_LOOK = {
    "kernel": {"marker": "o", "linestyle": "-", "linewidth": 1.6},
    "alternative": {"marker": "s", "linestyle": "--", "linewidth": 1.0},
    "copy": {"marker": "", "linestyle": ":", "linewidth": 1.2, "color": "0.35"},
    "copy_same": {"marker": "", "linestyle": "--", "linewidth": 1.0, "color": "0.55"},
    "vllm": {"marker": "^", "linestyle": "-.", "linewidth": 1.2, "color": "tab:red"},
}


def mxfp8_panels(result: dict, anchors: dict | None) -> list[Panel]:
    """bench_mxfp8.py results: quantize row-major / swizzled and dequantize, per shape."""
    shapes = sorted(result["shapes"], key=lambda s: s["bytes"])
    sizes = tuple(float(s["bytes"]) for s in shapes)
    copy_2gib = result["copy"]["tb_s"]
    copies = [Series("device copy, 2 GiB", (sizes[0], sizes[-1]), (copy_2gib, copy_2gib), "copy")]
    if all("copy_same_bytes" in s for s in shapes):
        copies.append(
            Series(
                "device copy, same bytes",
                sizes,
                tuple(s["copy_same_bytes"]["tb_s"] for s in shapes),
                "alternative",
            )
        )
    vllm: list[Series] = []
    if all("vllm" in s for s in shapes):  # measured in the same run
        vllm.append(
            Series("vLLM 0.33.0 kernel", sizes, tuple(s["vllm"]["tb_s"] for s in shapes), "vllm")
        )
    elif anchors is not None:
        points = sorted(anchors["vllm_kernel"], key=lambda p: p["bytes"])
        vllm.append(
            Series(
                "vLLM 0.33.0 kernel (DESIGN.md anchors, another run)",
                tuple(float(p["bytes"]) for p in points),
                tuple(p["tb_s"] for p in points),
                "vllm",
            )
        )
    panels = []
    for key, title, with_vllm in (
        ("quantize_row_major", "MXFP8 quantize, row-major scales", True),
        ("quantize_swizzled", "MXFP8 quantize, swizzled 128x4 scales", True),
        ("dequantize_bf16", "MXFP8 dequantize to bf16", False),
    ):
        kernel = Series("generated kernel", sizes, tuple(s[key]["tb_s"] for s in shapes), "kernel")
        panels.append(Panel(title, (kernel, *copies, *(vllm if with_vllm else ()))))
    return panels


def rope_kv_panels(result: dict) -> list[Panel]:
    """bench_rope_kv.py results: the KV-only insert per cache format (the grid rule against the
    reduced grid), then Q + KV per padded head count."""
    copy = result["copy_GBps"] / 1000

    def series_of(rows: list[dict], prefix: str, label: str, kind: str) -> Series:
        return Series(
            label,
            tuple(float(r["bytes"]) for r in rows),
            tuple(r[f"{prefix}_GBps"] / 1000 for r in rows),
            kind,
        )

    panels = []
    groups: dict[str, list[dict]] = {}
    for row in result["kv_only"]:
        groups.setdefault(row["format"], []).append(row)
    q_groups: dict[tuple, list[dict]] = {}
    for row in result.get("q_kv", []):
        q_groups.setdefault((row["format"], row["heads"]), []).append(row)
    titled = [(f"KV-only insert, {fmt}", rows) for fmt, rows in sorted(groups.items())]
    titled += [(f"Q + KV, {fmt}, {h} Q heads", rows) for (fmt, h), rows in sorted(q_groups.items())]
    for title, rows in titled:
        rows = sorted(rows, key=lambda r: r["bytes"])
        series = [
            series_of(rows, "rule", "generated kernel (grid rule)", "kernel"),
            series_of(rows, "reduced", "reduced grid", "alternative"),
        ]
        if all("vllm_GBps" in r for r in rows):
            series.append(series_of(rows, "vllm", "vLLM 0.33.0 kernel", "vllm"))
        sizes = (float(rows[0]["bytes"]), float(rows[-1]["bytes"]))
        series.append(Series("device copy", sizes, (copy, copy), "copy"))
        if all("copy_same_bytes" in r for r in rows):
            same = tuple(r["copy_same_bytes"]["best_GBps"] / 1000 for r in rows)
            sizes_all = tuple(float(r["bytes"]) for r in rows)
            series.append(
                Series("device copy, same bytes and timing", sizes_all, same, "copy_same")
            )
        panels.append(Panel(title, tuple(series)))
    return panels


def panels_for(result: dict) -> list[Panel] | None:
    """The panels of a result file this module knows, else None."""
    if "shapes" in result and "copy" in result and isinstance(result["shapes"], list):
        if (
            result["shapes"]
            and isinstance(result["shapes"][0], dict)
            and "quantize_row_major" in result["shapes"][0]
        ):
            anchors = (
                json.loads(VLLM_MXFP8_ANCHORS.read_text()) if VLLM_MXFP8_ANCHORS.is_file() else None
            )
            return mxfp8_panels(result, anchors)
    if "kv_only" in result and "copy_GBps" in result:
        return rope_kv_panels(result)
    return None


def render_png(panels: list[Panel], title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = 3
    rows = (len(panels) + columns - 1) // columns
    with matplotlib.rc_context(STYLE):
        figure, axes = plt.subplots(
            rows,
            columns,
            figsize=(SIZE_INCHES[0], SIZE_INCHES[1] * (1 + LEGEND_ROOM) * rows),
            dpi=DPI,
            squeeze=False,
        )
        for ax, panel in zip(axes.flat, panels):
            for series in panel.series:
                ax.plot(
                    [b / 2**20 for b in series.bytes_moved],
                    series.tb_s,
                    label=series.label,
                    **_LOOK[series.kind],
                )
            ax.set_xscale("log", base=2)
            ax.set_title(panel.title)
            ax.set_xlabel("bytes moved (MiB)")
            ax.set_ylabel("TB/s")
            ax.set_ylim(bottom=0)
            _legend_beside(ax)
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        figure.suptitle(title)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
        plt.close(figure)


def _legend_beside(ax) -> None:
    """The legend under the axes, never over them: "best" and a fixed corner still covered
    data points (LEGEND_ROOM of each row's height is left for it)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=6, frameon=False)


# the part of a row's height added under each panel for its legend
LEGEND_ROOM = 0.45


BUILD_COST_FIGURES = ("fresh_build_cold", "fresh_build_warm", "check", "import")


def render_build_cost_png(result: dict, title: str, path: Path) -> None:
    """benchmarks/build_cost.py's runs: wall and CPU seconds of each whole process, one row
    per figure, the medians marked (the issue's budgets, 0.6 s and 0.4 s, as lines)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = [name for name in BUILD_COST_FIGURES if name in result]
    with matplotlib.rc_context(STYLE):
        figure, ax = plt.subplots(
            figsize=(SIZE_INCHES[0], SIZE_INCHES[1] * (1 + LEGEND_ROOM)), dpi=DPI
        )
        for row, name in enumerate(figures):
            for offset, kind, marker in ((-0.12, "wall", "o"), (0.12, "cpu", "s")):
                runs = result[name][f"{kind}_s_runs"]
                ax.scatter(
                    runs,
                    [row + offset] * len(runs),
                    marker=marker,
                    s=14,
                    alpha=0.6,
                    color="tab:blue" if kind == "wall" else "tab:orange",
                    label=f"{kind} s (runs)" if row == 0 else None,
                )
                ax.scatter(
                    [result[name][f"{kind}_s_median"]],
                    [row + offset],
                    marker="|",
                    s=200,
                    color="black",
                    label="median" if row == 0 and kind == "wall" else None,
                )
        for budget, label in ((0.6, "build budget 0.6 s"), (0.4, "check budget 0.4 s")):
            ax.axvline(budget, linestyle=":", color="0.4", linewidth=1.0)
            ax.annotate(
                label, (budget, len(figures) - 0.5), fontsize=6, rotation=90, va="top", ha="right"
            )
        ax.set_yticks(range(len(figures)), [name.replace("_", " ") for name in figures])
        ax.invert_yaxis()
        ax.set_xlim(left=0)
        ax.set_xlabel("seconds (whole process)")
        _legend_beside(ax)
        figure.suptitle(title)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
        plt.close(figure)


def render_host_cost_png(result: dict, title: str, path: Path) -> None:
    """benchmarks/host_cost_ops.py's runs, one per launch path: host µs per call of each entry
    point, the issue's 8 µs target as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = result["runs"]
    names = list(next(iter(runs.values()))["host_us"])
    height = 0.8 / len(runs)
    with matplotlib.rc_context(STYLE):
        figure, ax = plt.subplots(figsize=(SIZE_INCHES[0], SIZE_INCHES[1] * 1.4), dpi=DPI)
        for i, (label, run) in enumerate(runs.items()):
            values = [run["host_us"].get(name, 0.0) for name in names]
            rows = [row - 0.4 + (i + 0.5) * height for row in range(len(names))]
            ax.barh(rows, values, height=height, label=label)
        ax.axvline(result["target_us"], linestyle=":", color="0.3", linewidth=1.0)
        ax.annotate(f"target {result['target_us']} µs", (result["target_us"], -0.6), fontsize=6)
        ax.set_yticks(range(len(names)), [name.replace("_", " ") for name in names])
        ax.invert_yaxis()
        ax.set_xlim(left=0)
        ax.set_xlabel("host µs per call (median of rounds, GPU not awaited)")
        ax.legend(loc="lower right", fontsize=6)
        figure.suptitle(title)
        figure.tight_layout()
        figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
        plt.close(figure)


def write_plot(json_path: Path) -> Path | None:
    """Write <json>.png beside a result file; None when its format is not one plotted here."""
    result = json.loads(Path(json_path).read_text())
    if not isinstance(result, dict):  # a table of rows (mxfp8_nonfinite_h200.json): no plot
        return None
    if result.get("benchmark") == "build_cost":
        png = Path(json_path).with_suffix(".png")
        render_build_cost_png(result, f"{Path(json_path).stem}  ({result.get('label', '')})", png)
        return png
    if result.get("benchmark") == "host_cost":
        png = Path(json_path).with_suffix(".png")
        where = " · ".join(str(result[k]) for k in ("gpu", "date", "torch", "triton", "cuda"))
        render_host_cost_png(result, f"{Path(json_path).stem}  ({where})", png)
        return png
    panels = panels_for(result)
    if panels is None:
        return None
    png = Path(json_path).with_suffix(".png")
    where = " · ".join(
        str(result[k]) for k in ("gpu", "date", "torch", "triton", "cuda") if k in result
    )
    render_png(panels, f"{Path(json_path).stem}  ({where})", png)
    return png


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(RESULTS.glob("*.json"))
    for path in paths:
        png = write_plot(path)
        if png is not None:
            print(png)
        elif argv:
            print(f"{path}: not a result format benchmarks/plot.py knows", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
