"""Fixtures for running the generated plugin inside the real vLLM 0.33.0.

vLLM lives in the conformance venv (``scripts/conformance_venv.sh``: ``--no-deps`` beside the
CPU torch). Each run is a fresh process of that venv's python executing ``vllm_driver.py``
(forked from a server that imported vLLM once: tests/conformance/vllm_forkserver.py):
with the plugin, the built family package is on its path, so vLLM's own
``load_general_plugins()`` finds the entry point; without, the same process is stock vLLM. The
package is installed into a private ``--target`` directory, so the shared venv stays stock.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pluginhelpers import SPECS, VENV_VARIABLE, Driver, build_family, install_plugin, vllm_venv


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    venv = vllm_venv()
    if venv is not None:
        return venv / "bin" / "python"
    reason = (
        f"the vLLM 0.33.0 conformance venv is absent (${VENV_VARIABLE}, else "
        "<repo>/.cache/vllm-0.33.0-venv): build it with scripts/conformance_venv.sh"
    )
    if os.environ.get("DSV41GEN_REQUIRE_CONFORMANCE") == "1":
        pytest.fail(reason + "; DSV41GEN_REQUIRE_CONFORMANCE=1 requires it")
    pytest.skip(reason)


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
