"""The vLLM 0.33.0 conformance venv, found or built: one helper for tests/conformance and
tests/plugin (a module with a unique name, importable from every conftest under tests/).

The README's test command runs the conformance suite on a fresh machine: when the venv is
absent, the first test that needs it builds it with ``scripts/conformance_venv.sh`` (about 3.5
minutes on 2 cores, once; the script's lock makes every other pytest worker wait for that one
build, and its stamp makes later runs reuse it). ``DSV41GEN_VLLM_VENV`` names another place
(worktrees can share one); ``DSV41GEN_VLLM_VENV=off`` skips the suite, saying so. A build that
fails fails the tests: it is never a silent skip.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV_VARIABLE = "DSV41GEN_VLLM_VENV"
DEFAULT_VENV = REPO / ".cache" / "vllm-0.33.0-venv"
STAMP = ".dsv41gen-conformance-stamp"
BUILD_SCRIPT = REPO / "scripts" / "conformance_venv.sh"


def venv_dir() -> Path:
    return Path(os.environ.get(VENV_VARIABLE) or DEFAULT_VENV)


def built_venv() -> Path | None:
    """The venv when a build of it finished (its stamp is written last), else None."""
    venv = venv_dir()
    return venv if (venv / STAMP).is_file() and (venv / "bin" / "python").exists() else None


def require_vllm_python() -> Path:
    """The conformance venv's python, building the venv first when it is absent. For a
    session fixture: skips only when the caller turned the suite off."""
    if os.environ.get(VENV_VARIABLE, "").lower() == "off":
        if os.environ.get("DSV41GEN_REQUIRE_CONFORMANCE") == "1":
            pytest.fail(
                f"{VENV_VARIABLE}=off, but DSV41GEN_REQUIRE_CONFORMANCE=1 requires the suite"
            )
        pytest.skip(f"needs the vLLM 0.33.0 conformance venv; turned off by {VENV_VARIABLE}=off")
    venv = built_venv()
    if venv is None:
        proc = subprocess.run(
            ["bash", str(BUILD_SCRIPT), str(venv_dir())], capture_output=True, text=True
        )
        venv = built_venv()
        if proc.returncode != 0 or venv is None:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
            pytest.fail(
                f"building the vLLM 0.33.0 conformance venv ({BUILD_SCRIPT.name} "
                f"{venv_dir()}) failed with exit {proc.returncode}:\n{tail}"
            )
    return venv / "bin" / "python"
