"""Fixtures for running the generated plugin inside the real vLLM 0.33.0.

vLLM lives in the conformance venv (``scripts/conformance_venv.sh``: ``--no-deps`` beside the
CPU torch). Each run is a fresh process of that venv's python executing ``vllm_driver.py``
(forked from a server that imported vLLM once: tests/conformance/vllm_forkserver.py):
with the plugin, the built family package is on its path, so vLLM's own
``load_general_plugins()`` finds the entry point; without, the same process is stock vLLM. The
package is installed into a private ``--target`` directory, so the shared venv stays stock.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pluginhelpers import SPECS, Driver, build_family, install_plugin
from vllmvenv import require_vllm_python


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    return require_vllm_python()


@pytest.fixture(scope="session")
def driver(vllm_python) -> Driver:
    return Driver(vllm_python)


@pytest.fixture(scope="session")
def real_family(vllm_python, tmp_path_factory) -> tuple[Path, Path]:
    """(package, site): the family built from the repository's specs, installed for vLLM."""
    root = tmp_path_factory.mktemp("real-family")
    specs = root / "specs"
    shutil.copytree(SPECS, specs)
    package = build_family(specs, root / "out")
    return package, install_plugin(package, vllm_python, root)
