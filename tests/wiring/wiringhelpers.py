"""Helpers of the wiring tests (a module of its own name: every tests/ directory has a conftest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


# The specs these tests are written about. A fixture copies these, not the whole specs/
# directory, so a variant added beside them (the README's worked example, say) changes no
# expected value here.
FIXTURE_SPECS = ("deepseek_v4.yaml", "deepseek_v41.yaml")


def copy_specs(target: Path) -> Path:
    """target/: a copy of FIXTURE_SPECS."""
    import shutil

    target.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_SPECS:
        shutil.copy(SPECS / name, target / name)
    return target


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dsv41gen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
