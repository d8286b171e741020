"""Performance tables generated from the committed benchmark JSON (benchmarks/results/).

A page writes ``<!-- table: NAME -->`` where a table belongs; NAME is a function of this module
reading its JSON, so a figure on the site is always the committed result's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def _load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


TABLES: dict[str, callable] = {}


def expand(markdown: str) -> str:
    def one(match: re.Match) -> str:
        name = match.group(1)
        if name not in TABLES:
            raise KeyError(f"no generated table named {name!r} (docs/_gen/performance_tables.py)")
        return TABLES[name]()

    return re.sub(r"<!-- table: ([a-z0-9_]+) -->", one, markdown)
