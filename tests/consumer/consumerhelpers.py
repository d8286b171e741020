"""Helpers of the consumer-repository tests: the node tools they drive, and git."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repohelpers import git  # noqa: F401 (re-exported)

REPO = Path(__file__).resolve().parents[2]
NODE_TOOLS = REPO / "tests" / "node"  # package.json + package-lock.json; node_modules ignored
BIN = Path(sys.executable).parent


def node_modules() -> Path:
    """tests/node/node_modules, installed from the lock file on first use (npm ci, a few
    seconds; .ci/run does it up front). Skips, saying why, when node or npm is missing."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for this test (apt-get install nodejs npm)")
    modules = NODE_TOOLS / "node_modules"
    if not (modules / ".package-lock.json").is_file():
        result = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefix", str(NODE_TOOLS)],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            pytest.fail(f"npm ci in {NODE_TOOLS} failed:\n{result.stderr[-2000:]}")
    return modules
