"""Fixtures for the vLLM-tree emitter: vLLM 0.33.0's sdist, unpacked once into .cache/.

The sdist comes from scripts/fetch_vllm_sdist.py (the index's own link, size and sha256
checked). Without network and without a cached copy the tests here skip with that reason;
DSV41GEN_REQUIRE_VLLM_SDIST=1 (CI) makes that a failure, so they cannot silently stop running.
Trees are copied with hard links: the emitter replaces files (os.replace), never writes into
one, so the cached pristine tree is never changed through a copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from vtreehelpers import REPO, SPECS, copy_tree, fetch_module  # noqa: E402


@pytest.fixture(scope="session")
def fetch_sdist():
    return fetch_module()


@pytest.fixture(scope="session")
def pristine_tree(fetch_sdist) -> Path:
    try:
        return fetch_sdist.extract()
    except fetch_sdist.FetchError as error:
        if os.environ.get("DSV41GEN_REQUIRE_VLLM_SDIST") == "1":
            pytest.fail(f"{error}; DSV41GEN_REQUIRE_VLLM_SDIST=1 requires the sdist")
        pytest.skip(str(error))


@pytest.fixture
def tree(pristine_tree, tmp_path) -> Path:
    return copy_tree(pristine_tree, tmp_path / "vllm-0.33.0")


@pytest.fixture
def v4_only_specs(tmp_path) -> Path:
    """specs/ without V4.1: the family as it was before vLLM PR #56214."""
    directory = tmp_path / "specs-v4"
    directory.mkdir()
    shutil.copyfile(SPECS / "deepseek_v4.yaml", directory / "deepseek_v4.yaml")
    return directory


@pytest.fixture
def dsv41gen(tmp_path):
    """Run the CLI in a subprocess: (exit code, stdout, stderr)."""

    def run(*args: str):
        done = subprocess.run(
            [sys.executable, "-m", "dsv41gen", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return done.returncode, done.stdout, done.stderr

    return run
