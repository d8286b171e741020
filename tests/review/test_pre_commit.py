"""The pre-commit hook, run by pre-commit itself on a temporary repository."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from reviewhelpers import REPO, copy_specs, git, run_cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hook_source(tmp_path_factory):
    """dsv41gen as a hook repository: a git clone of the working tree's files, committed."""
    pytest.importorskip("pre_commit")
    source = tmp_path_factory.mktemp("hook-source")
    for item in ("dsv41gen", "templates", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        src = REPO / item
        if src.is_dir():
            shutil.copytree(src, source / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, source / item)
    git(source, "init", "-q", "-b", "main")
    git(source, "add", ".")
    git(source, "commit", "-q", "-m", "hook source")
    return source


@pytest.fixture
def consumer(tmp_path):
    root = tmp_path / "consumer"
    copy_specs(root / "specs")
    result = run_cli(root, "build")
    assert result.returncode == 0, result.stderr
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "specs and generated wiring")
    return root


def test_hook_passes_on_a_fresh_build_and_fails_on_a_stale_one(hook_source, consumer, tmp_path):
    env_home = tmp_path / "pre-commit-home"
    run = lambda: subprocess.run(  # noqa: E731
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hook_source),
            "dsv41gen-check",
            "--all-files",
        ],
        cwd=consumer,
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "PRE_COMMIT_HOME": str(env_home)},
    )
    clean = run()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    spec = consumer / "specs" / "deepseek_v41.yaml"
    spec.write_text(spec.read_text().replace("        sm90: [64]\n", "        sm90: [32]\n"))
    stale = run()
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "Failed" in stale.stdout
    assert "stale" in stale.stdout


def test_fixer_hook_regenerates_and_the_next_run_passes(hook_source, consumer, tmp_path):
    env_home = tmp_path / "pre-commit-home"

    def run(hook: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hook_source), hook, "--all-files"],
            cwd=consumer,
            capture_output=True,
            text=True,
            check=False,
            env={**__import__("os").environ, "PRE_COMMIT_HOME": str(env_home)},
        )

    spec = consumer / "specs" / "deepseek_v41.yaml"
    spec.write_text(spec.read_text().replace("        sm90: [64]\n", "        sm90: [32]\n"))
    fixed = run("dsv41gen-build")
    # pre-commit's own verdict on a fixer: it changed files, so the commit stops.
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr
    assert "files were modified by this hook" in fixed.stdout
    assert "{90: [32]}" in (consumer / "generated" / "deepseek_v4" / "backends.py").read_text()
    git(consumer, "add", "-A")
    again = run("dsv41gen-build")
    assert again.returncode == 0, again.stdout + again.stderr
    check = run("dsv41gen-check")
    assert check.returncode == 0, check.stdout + check.stderr
