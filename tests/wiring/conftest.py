"""Fixtures for the wiring tests: the committed generated package, and fresh builds."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from wiringhelpers import copy_specs


@pytest.fixture(scope="session")
def wiring():
    """The deepseek_v4 family package built from the real specs into a temporary directory
    (not the committed tree, so these tests hold even while generated/ is being rebuilt)."""
    scratch = Path(__import__("tempfile").mkdtemp(prefix="dsv41gen-wiring-"))
    specs = copy_specs(scratch / "specs")
    out = scratch / "out"
    subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", str(specs / "deepseek_v41.yaml")]
        + ["--out", str(out)],
        check=True,
        capture_output=True,
    )
    # A deepseek_v4 package another test imported (the committed tree, another build) would be
    # returned by import_module instead of this build's: set it aside, restore it after.
    ours = [m for m in sys.modules if m == "deepseek_v4" or m.startswith("deepseek_v4.")]
    saved = {name: sys.modules.pop(name) for name in ours}
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
        sys.modules.update(saved)
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture
def spec_dir(tmp_path):
    """A writable copy of the V4 and V4.1 specs."""
    return copy_specs(tmp_path / "specs")
