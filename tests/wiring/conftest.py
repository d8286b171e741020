"""Fixtures for the wiring tests: the committed generated package, and fresh builds."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


@pytest.fixture(scope="session")
def wiring():
    """The deepseek_v4 family package built from the real specs into a temporary directory
    (not the committed tree, so these tests hold even while generated/ is being rebuilt)."""
    out = Path(__import__("tempfile").mkdtemp(prefix="dsv41gen-wiring-"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "dsv41gen",
            "build",
            str(SPECS / "deepseek_v41.yaml"),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, str(out))
    try:
        modules = {
            name: importlib.import_module(f"deepseek_v4.{name}")
            for name in (
                "backends",
                "registry",
                "speculative",
                "runner",
                "kv_cache",
                "checkpoint",
                "dispatch",
                "_binding",
            )
        }
        yield type("Wiring", (), modules)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == "deepseek_v4" or m.startswith("deepseek_v4.")]:
            del sys.modules[name]
        shutil.rmtree(out, ignore_errors=True)


@pytest.fixture
def spec_dir(tmp_path):
    """A writable copy of specs/."""
    target = tmp_path / "specs"
    shutil.copytree(SPECS, target)
    return target
