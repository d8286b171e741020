"""The pre-commit hook, run by pre-commit itself on a temporary repository.

The consumer repository pins the hook repository the way the README shows (a commit SHA in its
committed .pre-commit-config.yaml) and runs `pre-commit run HOOK --all-files`. Every run shares
one pre-commit home (the store), so the hook's environment is installed once for this file, as
a consumer's machine installs it once: `pre-commit try-repo` made a new store, and so a new
environment, for each of its 5 runs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from reviewhelpers import FIXTURE_SPECS, REPO, copy_specs, git, run_cli

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


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    """One store for every run of this file: the hook's environment is built by the first."""
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(consumer, home, hook: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", hook, "--all-files"],
        cwd=consumer,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
    )


@pytest.fixture
def consumer(tmp_path, hook_source):
    root = tmp_path / "consumer"
    copy_specs(root / "specs")
    result = run_cli(root, "build")
    assert result.returncode == 0, result.stderr
    rev = git(hook_source, "rev-parse", "HEAD").strip()
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_source}\n    rev: {rev}\n    hooks:\n"
        "      - id: dsv41gen-build\n      - id: dsv41gen-check\n"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "specs and generated wiring")
    return root


def test_hook_passes_on_a_fresh_build_and_fails_on_a_stale_one(consumer, pre_commit_home):
    clean = pre_commit(consumer, pre_commit_home, "dsv41gen-check")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    spec = consumer / "specs" / "deepseek_v41.yaml"
    spec.write_text(spec.read_text().replace("        sm90: [64]\n", "        sm90: [32]\n"))
    stale = pre_commit(consumer, pre_commit_home, "dsv41gen-check")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert "Failed" in stale.stdout
    assert "differs from what the specs generate" in stale.stdout


def test_fixer_hook_regenerates_and_the_next_run_passes(consumer, pre_commit_home):
    def run(hook: str) -> subprocess.CompletedProcess:
        return pre_commit(consumer, pre_commit_home, hook)

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


def test_the_tag_the_docs_name_is_a_release_the_hook_runs_from(tmp_path, pre_commit_home):
    """docs/consumer.md says ``rev: vX.Y.Z`` works: that tag exists in this repository, names
    the release of the package it points at, and pre-commit fetches it by name and runs the
    hook from it on a consumer repository."""
    pytest.importorskip("pre_commit")
    page = (REPO / "docs" / "consumer.md").read_text(encoding="utf-8")
    (tag,) = set(re.findall(r"`rev: (v\d+\.\d+\.\d+)`", page))
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", f"refs/tags/{tag}^{{commit}}"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if commit.returncode != 0 and not git(REPO, "tag", "--list"):
        pytest.skip(f"needs the repository's tags ({tag}): this clone has none (git fetch --tags)")
    assert commit.returncode == 0, f"docs/consumer.md names {tag}, which is not a tag here"
    init = git(REPO, "show", f"{tag}:dsv41gen/__init__.py")
    assert f'__version__ = "{tag[1:]}"' in init, f"{tag} points at another version"

    # Both hooks come from the tag: the release builds the consumer's wiring and then checks
    # it (this checkout's generator may render differently from the tagged release).
    root = tmp_path / "consumer"
    (root / "specs").mkdir(parents=True)
    for name in FIXTURE_SPECS:  # the specs as the release knew them
        (root / "specs" / name).write_text(git(REPO, "show", f"{tag}:specs/{name}"))
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {tag}\n    hooks:\n"
        "      - id: dsv41gen-build\n      - id: dsv41gen-check\n"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "specs")
    built = pre_commit(root, pre_commit_home, "dsv41gen-build")
    assert (root / "generated").is_dir(), built.stdout + built.stderr
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "generated wiring")
    ran = pre_commit(root, pre_commit_home, "dsv41gen-check")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Passed" in ran.stdout
