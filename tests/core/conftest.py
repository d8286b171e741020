"""Shared fixtures for the compiler-core tests: a copy of the real specs, and the CLI run in a
subprocess exactly as a user runs it (``python -m dsv41gen ...``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from corehelpers import V41, CliResult, cli, cli_in_process, copy_specs


@pytest.fixture
def run_cli(tmp_path):
    """run_cli(*args, cwd=tmp_path, env=None) -> CliResult (rc, stdout, stderr): the command run
    in this process (corehelpers.cli_in_process). End-to-end tests of the real process use
    run_cli_process."""

    # DSV41GEN_TESTS_CLI=process runs these in subprocesses too (to tell the two apart)
    runner = cli if os.environ.get("DSV41GEN_TESTS_CLI") == "process" else cli_in_process

    def run(*args, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
        return runner(args, cwd or tmp_path, env)

    return run


@pytest.fixture
def run_cli_process(tmp_path):
    """run_cli's signature, with ``python -m dsv41gen`` in a subprocess, exactly as a user runs
    it."""

    def run(*args, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
        return cli(args, cwd or tmp_path, env)

    return run


@pytest.fixture
def specs_copy(tmp_path) -> Path:
    """tmp_path/specs: a copy of the V4 and V4.1 specs, free to edit."""
    return copy_specs(tmp_path / "specs")


@pytest.fixture(scope="session")
def reference_build(tmp_path_factory) -> Path:
    """One build of the real specs (copied), shared by the tests that only read it.
    Layout: <root>/specs, <root>/out/deepseek_v4/..."""
    root = tmp_path_factory.mktemp("reference")
    copy_specs(root / "specs")
    result = cli(["build", f"specs/{V41}", "--out", "out"], root)
    assert result.rc == 0, result.output
    return root
