"""Fixtures for the review tooling: a throwaway git repository holding a copy of specs/."""

from __future__ import annotations

import pytest
from reviewhelpers import copy_specs, git


@pytest.fixture
def spec_repo(tmp_path):
    """A git repository with specs/ committed as `base`; edit the specs, then diff against it."""
    root = tmp_path / "repo"
    copy_specs(root / "specs")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "specs")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    return root
