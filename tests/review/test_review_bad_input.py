"""`diff --against` and `why` with bad arguments: usage errors (exit 2) that say what is wrong,
never an internal error."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from reviewhelpers import REPO, git, run_cli


@pytest.mark.parametrize(
    "ref", ["base:specs", "base:specs/deepseek_v4.yaml", "nosuchref", "--output=pwned"]
)
def test_a_ref_that_is_not_a_commit_is_a_usage_error(spec_repo, ref):
    tree = git(spec_repo, "rev-parse", "base:specs").strip()
    for shown in (ref, tree):
        result = run_cli(spec_repo, "diff", "--against", shown)
        assert result.returncode == 2, result.stderr
        assert result.stderr == (
            f"error: cannot read specs at {shown!r}: not a commit; name a branch, tag or commit id "
            "(e.g. HEAD, origin/main, v0.1.0)\n"
        )
        assert result.stdout == ""
    assert not (spec_repo / "pwned").exists()


def test_a_commit_id_and_a_tag_are_accepted(spec_repo):
    commit = git(spec_repo, "rev-parse", "base").strip()
    for ref in ("base", commit, "HEAD"):
        result = run_cli(spec_repo, "diff", "--against", ref)
        assert result.returncode == 0, result.stderr


def test_a_spec_outside_the_repository_is_a_usage_error(spec_repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(REPO / "specs" / "deepseek_v4.yaml", outside / "spec.yaml")
    result = run_cli(spec_repo, "diff", "--against", "HEAD", str(outside / "spec.yaml"))
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"error: {outside / 'spec.yaml'} is outside the git repository {spec_repo}; `diff "
        "--against` compares the specs a repository tracks with their state at a ref\n"
    )


def test_an_oversized_spec_at_the_ref_is_refused_before_it_is_read(spec_repo):
    (spec_repo / "specs" / "huge.yaml").write_text("a: '" + "x" * (2 << 20) + "'\n")
    git(spec_repo, "add", "specs")
    git(spec_repo, "commit", "-q", "-m", "huge")
    (spec_repo / "specs" / "huge.yaml").unlink()
    result = run_cli(spec_repo, "diff", "--against", "HEAD")
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "error: cannot read specs at 'HEAD': specs/huge.yaml is 2097158 bytes, over the "
        "1048576-byte limit\n"
    )


@pytest.mark.parametrize("line", ["9" * 5000, "²", "0", "-1", "1e3", ""])
def test_why_with_a_line_that_is_not_a_line_number(line):
    result = run_cli(REPO, "why", f"generated/deepseek_v4/backends.py:{line}")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: expected GENERATED_FILE:LINE, got ")
    assert "internal error" not in result.stderr


def test_why_past_the_end_of_the_file():
    result = run_cli(REPO, "why", "generated/deepseek_v4/backends.py:999999999")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: generated/deepseek_v4/backends.py has ")


def test_why_on_a_fifo_a_device_or_binary_is_a_usage_error(tmp_path):
    """`why` reads the generated file through the same bounded reader as specs: a FIFO would
    block it forever, /dev/zero would never end."""
    import os

    os.mkfifo(tmp_path / "fifo.py")
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00" * 10)
    for target, message in (
        (tmp_path / "fifo.py", "is not a regular file (a FIFO, a device or a directory?)"),
        (Path("/dev/zero"), "is not a regular file (a FIFO, a device or a directory?)"),
        (tmp_path / "binary.py", "is not UTF-8 text: not a generated file"),
    ):
        result = run_cli(REPO, "why", f"{target}:1")
        assert result.returncode == 2, result.stderr
        assert message in result.stderr


def _object(repo: Path, kind: bytes, body: bytes) -> str:
    """Write a loose git object as a hostile server could send it (git fetch checks no names
    unless transfer.fsckObjects is set); git's own commands refuse to make these trees."""
    import hashlib
    import zlib

    data = kind + b" %d\0" % len(body) + body
    sha = hashlib.sha1(data).hexdigest()
    folder = repo / ".git" / "objects" / sha[:2]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / sha[2:]).write_bytes(zlib.compress(data))
    return sha


@pytest.mark.parametrize("entry", [b"100644 " + b"../" * 12 + b"{target}", b"100644 .."])
def test_a_ref_whose_spec_tree_names_a_path_outside_is_refused(spec_repo, tmp_path, entry):
    """A tree entry named `../../../<anywhere>.yaml` made `diff --against` write the blob
    there: a file write anywhere the user can write, from a fetched branch."""
    target = tmp_path / "WRITTEN_BY_THE_REF.yaml"
    entry = entry.replace(b"{target}", str(target).lstrip("/").encode())
    specs_tree = git(spec_repo, "rev-parse", "base:specs").strip()
    listing = subprocess.run(
        ["git", "cat-file", "tree", specs_tree], cwd=spec_repo, capture_output=True, check=True
    ).stdout
    blob = _object(spec_repo, b"blob", str(target).encode())
    tree = _object(spec_repo, b"tree", entry + b"\0" + bytes.fromhex(blob) + listing)
    root = _object(spec_repo, b"tree", b"40000 specs\0" + bytes.fromhex(tree))
    commit = git(spec_repo, "commit-tree", root, "-m", "hostile").strip()
    result = run_cli(spec_repo, "diff", "--against", commit)
    assert not target.exists()
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"error: cannot read specs at {commit!r}: 'specs/")
    assert "is not a spec file of the directory specs/" in result.stderr
