"""Helpers of the review tests (a module of its own name: every tests/ directory has a conftest)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from repohelpers import FIXTURE_SPECS, REPO, SPECS, copy_specs, git  # noqa: F401 (re-exported)


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dsv41gen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"edit anchor {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def drop_q_head_128_with_waiver(root: Path, reason_yaml: str) -> None:
    """A BREAKING change (V4 stops instantiating 128 padded Q heads) and a waiver accepting it,
    with ``reason_yaml`` as the reason's YAML scalar (written as is: quoted or not)."""
    spec = root / "specs" / "deepseek_v4.yaml"
    edit(
        spec,
        "num_heads_q_padded: [0, 8, 16, 32, 64, 128]",
        "num_heads_q_padded: [0, 8, 16, 32, 64]",
    )
    with spec.open("a") as out:
        out.write(
            "\nreview:\n  accepted_breaking_changes:\n"
            "    - change: deepseek_v4:kernels.rope_kv_insert.num_heads_q_padded:changed\n"
            f"      reason: {reason_yaml}\n"
        )


def review(root: Path) -> tuple[int, dict]:
    result = run_cli(root, "diff", "--against", "base", "--format", "json")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 5), result.stderr
    return result.returncode, json.loads(result.stdout)
