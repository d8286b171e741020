"""Every benchmark JSON that benchmarks/plot.py knows has its PNG committed beside it, and
replotting it reproduces the PNG byte for byte (fixed size, dpi, font; no metadata)."""

from __future__ import annotations

import importlib.util
import shutil
import struct
import sys

import pytest
from corehelpers import REPO

RESULTS = REPO / "benchmarks" / "results"
PINNED = "3.11.2"  # the `plots` extra: committed PNGs are rendered by this matplotlib


def _plot_module():
    spec = importlib.util.spec_from_file_location("benchmark_plot", REPO / "benchmarks" / "plot.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _chunks(png: bytes) -> list[bytes]:
    names, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        names.append(png[at + 4 : at + 8])
        at += 12 + length
    return names


@pytest.mark.slow
def test_committed_plots_are_reproduced_byte_for_byte(tmp_path):
    matplotlib = pytest.importorskip("matplotlib", reason="pip install -e '.[plots]'")
    assert matplotlib.__version__ == PINNED, (
        f"matplotlib {matplotlib.__version__} is installed; the committed PNGs are {PINNED}'s"
    )
    plot = _plot_module()
    plotted = 0
    for result in sorted(RESULTS.glob("*.json")):
        copy = tmp_path / result.name
        shutil.copy(result, copy)
        png = plot.write_plot(copy)
        if png is None:
            continue
        plotted += 1
        committed = result.with_suffix(".png")
        assert committed.is_file(), f"{committed.name} missing: run python benchmarks/plot.py"
        fresh = png.read_bytes()
        assert fresh == committed.read_bytes(), (
            f"{committed.name} is stale: rerun benchmarks/plot.py"
        )
        assert b"tEXt" not in _chunks(fresh) and b"tIME" not in _chunks(fresh)
        # a guard against a runaway resolution, not a budget: the six-panel RoPE + KV figure with
        # its Q + KV rows at 512 tokens is 151 KB at DPI (a doubled DPI would be about 4x)
        assert len(fresh) < 200_000
    assert plotted >= 2  # the MXFP8 and the RoPE + KV results at least


@pytest.mark.slow
def test_no_legend_covers_a_data_point(tmp_path, monkeypatch):
    """Each committed result replotted: no data point (line vertex or scatter mark) lies inside
    its axes' legend, in the drawn figure's pixels."""
    pytest.importorskip("matplotlib", reason="pip install -e '.[plots]'")
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    plot = _plot_module()
    for result in sorted(RESULTS.glob("*.json")):
        copy = tmp_path / result.name
        shutil.copy(result, copy)
        if plot.write_plot(copy) is None:
            continue
        figure = figures[-1]
        figure.canvas.draw()
        for ax in figure.axes:
            legend = ax.get_legend()
            if legend is None or not ax.get_visible():
                continue
            box = legend.get_window_extent()
            points = [p for line in ax.lines for p in ax.transData.transform(line.get_xydata())]
            points += [
                p for marks in ax.collections for p in ax.transData.transform(marks.get_offsets())
            ]
            covered = [tuple(p) for p in points if box.contains(*p)]
            assert points and not covered, f"{result.name} {ax.get_title()!r}: {covered[:5]}"
    assert figures


def _build_cost_module():
    spec = importlib.util.spec_from_file_location(
        "benchmark_build_cost", REPO / "benchmarks" / "build_cost.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_build_cost_rerun_keeps_the_files_before_comparison():
    """benchmarks/build_cost.py rewrote the JSON whole, so a rerun dropped `before` (the run its
    figures are compared with, which docs/performance.md shows)."""
    build_cost = _build_cost_module()
    before = {"label": "before: main abc", "fresh_build_cold": {"wall_s_median": 1.0}}
    previous = {"label": "old run", "fresh_build_cold": {"wall_s_median": 0.9}, "before": before}
    new = {"label": "new run", "fresh_build_cold": {"wall_s_median": 0.5}}
    rerun = build_cost._with_comparison(new, previous, as_before=False)
    assert rerun == {**new, "before": before}
    baseline = build_cost._with_comparison(new, previous, as_before=True)
    assert baseline["label"] == "old run" and baseline["fresh_build_cold"]["wall_s_median"] == 0.9
    assert baseline["before"]["label"] == "new run"
    assert baseline["before"]["fresh_build_cold"] == {"wall_s_median": 0.5}
    assert build_cost._with_comparison(new, {}, as_before=False) == new
