"""The conformance suite: vLLM 0.33.0's own code is the oracle of the generated wiring.

vLLM cannot be imported into the project's venv (it pins another torch), so each site's cases
run in the conformance venv that ``scripts/conformance_venv.sh`` builds: one process per
site (``driver.py SITE``) computes vLLM's outcome and the generated code's outcome for every
case, and the tests here compare them, one test per case. Each such process is forked from a
server that imported vLLM once (``vllm_forkserver.py``: a fresh process in all a script can
see; ``DSV41GEN_VLLM_FORK=0`` spawns fresh ones instead). The cases are generated from the
specs (``conformancecases.py``), so a new variant is covered without new test code.

Where the venv is: ``$DSV41GEN_VLLM_VENV``, else ``<repo>/.cache/vllm-0.33.0-venv``. When it is
absent the first test that needs it builds it (tests/vllmvenv.py), so the suite never silently
stops running; ``DSV41GEN_VLLM_VENV=off`` skips it, saying so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import vllm_forkserver
from vllmvenv import require_vllm_python

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver.py")


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    return require_vllm_python()


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
