"""Helpers of the security tests (a module with a unique name, so it cannot clash with another
directory's helpers): the real specs copied, and the CLI run as a user runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
# the conformance suite's fork server (appended: nothing here is shadowed)
sys.path.append(str(REPO / "tests" / "conformance"))
import vllm_forkserver  # noqa: E402

# and the wiring tests' pytest command for generated tests, which the security tests run too
sys.path.append(str(REPO / "tests" / "wiring"))
from wiringhelpers import GENERATED_PYTEST as GENERATED_PYTEST  # noqa: E402


@dataclass(frozen=True)
class Result:
    rc: int
    stdout: str
    stderr: str


def cli(*args: object, cwd: Path, timeout: float = 120) -> Result:
    env = dict(os.environ)
    env.pop("DSV41GEN_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "dsv41gen", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def copy_specs(target: Path) -> Path:
    shutil.copytree(SPECS, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def assert_clean_rejection(result: Result, *needles: str) -> None:
    """Exit 1, a located message naming each needle, no traceback, nothing written."""
    assert result.rc == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "nothing was written" in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr


def run_after_torch(script: Path, *args: object, cwd: Path, timeout: float) -> Result:
    """``python SCRIPT ARGS`` in cwd, forked from a server that imported torch once (import
    torch took 2 of the 3.5 CPU-s of a run of the payload driver); otherwise a fresh process
    (tests/conformance/vllm_forkserver.py says what may differ). DSV41GEN_VLLM_FORK=0 runs a
    fresh interpreter instead."""
    run = vllm_forkserver.run(
        sys.executable,
        [str(script), *map(str, args)],
        env={**os.environ, "DSV41GEN_FORK_PRELOAD": "torch"},
        cwd=cwd,
        timeout=timeout,
    )
    return Result(run.returncode, run.stdout, run.stderr)
