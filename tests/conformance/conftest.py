"""The conformance suite: vLLM 0.33.0's own code is the oracle of the generated wiring.

vLLM cannot be imported into the project's venv (it pins another torch), so each site's cases
run in the conformance venv that ``scripts/conformance_venv.sh`` builds: one process per
site (``driver.py SITE``) computes vLLM's outcome and the generated code's outcome for every
case, and the tests here compare them, one test per case. Each such process is forked from a
server that imported vLLM once (``vllm_forkserver.py``: a fresh process in all a script can
see; ``DSV41GEN_VLLM_FORK=0`` spawns fresh ones instead). The cases are generated from the
specs (``conformancecases.py``), so a new variant is covered without new test code.

Where the venv is: ``$DSV41GEN_VLLM_VENV``, else ``<repo>/.cache/vllm-0.33.0-venv``. Without it
every test here is skipped with that reason; with ``DSV41GEN_REQUIRE_CONFORMANCE=1`` (CI) a
missing venv is a failure instead, so the suite cannot silently stop running.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import vllm_forkserver

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver.py")
DEFAULT_VENV = REPO / ".cache" / "vllm-0.33.0-venv"
STAMP = ".dsv41gen-conformance-stamp"


def venv_python() -> Path | None:
    venv = Path(os.environ.get("DSV41GEN_VLLM_VENV") or DEFAULT_VENV)
    python = venv / "bin" / "python"
    if (venv / STAMP).is_file() and python.exists():
        return python
    return None


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    python = venv_python()
    if python is not None:
        return python
    reason = (
        f"the vLLM 0.33.0 conformance venv is absent ({os.environ.get('DSV41GEN_VLLM_VENV') or DEFAULT_VENV}): "
        "build it with scripts/conformance_venv.sh (about 3 minutes, once)"
    )
    if os.environ.get("DSV41GEN_REQUIRE_CONFORMANCE") == "1":
        pytest.fail(reason + "; DSV41GEN_REQUIRE_CONFORMANCE=1 requires it")
    pytest.skip(reason)


class Driver:
    """Runs one site's cases in the vLLM venv, once per session, and keeps the answers."""

    def __init__(self, python: Path):
        self.python = python
        self.answers: dict[str, dict[str, object]] = {}

    def run(
        self, site: str, cases: dict[str, object], extra_path: Path | None = None
    ) -> dict[str, object]:
        if site not in self.answers:
            path = [str(REPO / "generated")] + ([str(extra_path)] if extra_path else [])
            env = {
                **os.environ,
                "PYTHONPATH": os.pathsep.join(path),
                "VLLM_LOGGING_LEVEL": "WARNING",
                "VLLM_CONFIGURE_LOGGING": "1",
                "PYTHONDONTWRITEBYTECODE": "1",
            }
            done = vllm_forkserver.run(
                self.python,
                [str(DRIVER), site],
                input=json.dumps(cases),
                env=env,
                cwd=REPO,
                timeout=600,
            )
            if done.returncode != 0:
                raise AssertionError(
                    f"driver {site} exited {done.returncode}:\n{done.stderr[-6000:]}"
                )
            self.answers[site] = json.loads(done.stdout.strip().splitlines()[-1])
        return self.answers[site]


@pytest.fixture(scope="session")
def driver(vllm_python) -> Driver:
    return Driver(vllm_python)
