"""Helpers of the wiring tests (a module of its own name: every tests/ directory has a conftest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dsv41gen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
