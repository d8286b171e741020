"""What every test directory's helpers share: the repository's paths, the specs the tests are
written about, and git in a scratch repository (a top-level module: tests/ is on sys.path)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "specs"

# The specs these tests are written about. A fixture copies these, not the whole specs/
# directory, so a variant added beside them (the README's worked example, say) changes no
# expected value here.
FIXTURE_SPECS = ("deepseek_v4.yaml", "deepseek_v41.yaml")


def copy_specs(target: Path) -> Path:
    """target/: a copy of FIXTURE_SPECS."""
    target.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_SPECS:
        shutil.copy(SPECS / name, target / name)
    return target


def git(cwd: Path, *args: str) -> str:
    """git's stdout in cwd, as a throwaway identity that signs nothing (no user config needed)."""
    identity = ["-c", "user.email=test@example.invalid", "-c", "user.name=test"]
    return subprocess.run(
        ["git", *identity, "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
