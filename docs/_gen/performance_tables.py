"""Performance tables generated from the committed benchmark JSON (benchmarks/results/).

A page writes ``<!-- table: NAME -->`` where a table belongs and ``<!-- source: NAME -->`` where
the result file it comes from is named; NAME is one of ``TABLES``. Each reads the newest result
of its benchmark (by the ``date`` the JSON records), so a figure on the site is always a
committed result's, and a new result replaces the old one on the page by itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def newest(pattern: str, needs: str) -> Path:
    """The result matching pattern with the key needs, newest by its recorded date."""
    found = []
    for path in sorted(RESULTS.glob(pattern)):
        data = json.loads(path.read_text(encoding="utf-8"))
        if needs in data:
            found.append((str(data.get("date", "")), path.name, path))
    if not found:
        raise FileNotFoundError(f"no benchmarks/results/{pattern} with {needs!r}")
    return max(found)[2]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _n(value: object, digits: int = 1) -> str:
    """A measured number as the page prints it (the JSON keeps every digit)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:.{digits}f}"


def _checks(targets: dict) -> str:
    rows = [
        [f"`{k}`", "met" if v else "**not met**"] for k, v in targets.items() if isinstance(v, bool)
    ]
    rows += [[f"`{k}`", _n(v, 3)] for k, v in targets.items() if not isinstance(v, bool)]
    return _table(["target", "value"], rows)


SOURCES: dict[str, Callable[[], Path]] = {
    "mxfp8": lambda: newest("mxfp8_h200*.json", "shapes"),
    "rope_kv": lambda: newest("rope_kv_h200*.json", "kv_only"),
    "build_cost": lambda: RESULTS / "build_cost.json",
    "scale": lambda: RESULTS / "scale.json",
}


def mxfp8() -> str:
    data = _load(SOURCES["mxfp8"]())
    rows = []
    for shape in data["shapes"]:
        cells = [f"{shape['m']} x {shape['k']}"]
        for kernel in ("quantize_row_major", "quantize_swizzled", "dequantize_bf16"):
            r = shape[kernel]
            cells.append(
                f"{_n(r['us'], 2)} µs, {_n(r['tb_s'], 2)} TB/s "
                f"({_n(r['pct_copy'])}% / {_n(r['pct_copy_same_bytes'])}%)"
            )
        rows.append(cells)
    return _table(
        ["M x K", "quantize, row-major scales", "quantize, swizzled scales", "dequantize"], rows
    )


def mxfp8_targets() -> str:
    return _checks(_load(SOURCES["mxfp8"]())["targets"])


def rope_kv() -> str:
    data = _load(SOURCES["rope_kv"]())
    rows = []
    for row in data["kv_only"]:
        if row["tokens"] in (16384, 65536, 262144):
            rows.append(
                [
                    row["format"],
                    row["tokens"],
                    f"{row['rule_us']} µs",
                    row["rule_pct_copy"],
                    row["rule_pct_copy_same_bytes"],
                    row.get("vllm_pct_copy", ""),
                    row.get("ratio_vs_vllm", ""),
                ]
            )
    return _table(
        [
            "format",
            "tokens",
            "time",
            "% of peak copy",
            "% of same-bytes copy",
            "vLLM: % of peak copy",
            "time / vLLM's",
        ],
        rows,
    )


def rope_kv_qkv() -> str:
    data = _load(SOURCES["rope_kv"]())
    rows = [
        [
            r["format"],
            r["heads"],
            r["tokens"],
            f"{r['rule_us']} µs",
            f"{r['vllm_us']} µs",
            r["ratio_vs_vllm"],
        ]
        for r in data["q_kv"]
    ]
    return _table(["format", "Q heads", "tokens", "generated", "vLLM", "time / vLLM's"], rows)


def rope_kv_targets() -> str:
    return _checks(_load(SOURCES["rope_kv"]())["targets"])


def build_cost() -> str:
    data = _load(SOURCES["build_cost"]())
    labels = {
        "fresh_build_cold": "`build specs/deepseek_v41.yaml` into an empty folder, empty cache",
        "fresh_build_warm": "the same, cache of an earlier build",
        "check": "`check specs/*.yaml` (a full regeneration compared with generated/)",
        "import": "`import dsv41gen.commands.cli`",
    }
    before = data.get("before", {})
    rows = []
    for key, label in labels.items():
        if key not in data:
            continue
        row = [label, data[key]["wall_s_median"], data[key]["cpu_s_median"]]
        if before:
            old = before.get(key, {})
            row += [old.get("wall_s_median", ""), old.get("cpu_s_median", "")]
        rows.append(row)
    header = ["what (whole process, median)", "wall s", "CPU s (user + sys)"]
    if before:
        header += [f"before ({before.get('label', '')}): wall s", "CPU s"]
    return _table(header, rows)


def scale() -> str:
    data = _load(SOURCES["scale"]())
    rows = [
        [
            s["variants"],
            s["generated_files"],
            s["build_s_median"],
            s["build_peak_mib"],
            s["check_full_compare_s_median"],
        ]
        for s in data["sizes"]
    ]
    return _table(["variants", "files", "fresh build s", "peak MiB", "check s"], rows)


TABLES: dict[str, Callable[[], str]] = {
    "mxfp8": mxfp8,
    "mxfp8_targets": mxfp8_targets,
    "rope_kv": rope_kv,
    "rope_kv_qkv": rope_kv_qkv,
    "rope_kv_targets": rope_kv_targets,
    "build_cost": build_cost,
    "scale": scale,
}


def _source(name: str) -> str:
    path = SOURCES[name]()
    data = _load(path)
    when = data.get("date", "")
    where = ", ".join(str(data[k]) for k in ("gpu", "torch", "triton", "cuda") if k in data)
    details = "; ".join(x for x in (when, where) if x)
    return f"`benchmarks/results/{path.name}`" + (f" ({details})" if details else "")


def expand(markdown: str) -> str:
    def table(match: re.Match) -> str:
        if match[1] not in TABLES:
            raise KeyError(
                f"no generated table named {match[1]!r} (docs/_gen/performance_tables.py)"
            )
        return TABLES[match[1]]()

    def source(match: re.Match) -> str:
        if match[1] not in SOURCES:
            raise KeyError(
                f"no benchmark source named {match[1]!r} (docs/_gen/performance_tables.py)"
            )
        return _source(match[1])

    markdown = re.sub(r"<!-- table: ([a-z0-9_]+) -->", table, markdown)
    return re.sub(r"<!-- source: ([a-z0-9_]+) -->", source, markdown)
