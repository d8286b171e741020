"""Helpers of the review tests (a module of its own name: every tests/ directory has a conftest)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


# The specs these tests are written about. A fixture copies these, not the whole specs/
# directory, so a variant added beside them (the README's worked example, say) changes no
# expected value here.
FIXTURE_SPECS = ("deepseek_v4.yaml", "deepseek_v41.yaml")


def copy_specs(target: Path) -> Path:
    """target/: a copy of FIXTURE_SPECS."""
    import shutil

    target.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_SPECS:
        shutil.copy(SPECS / name, target / name)
    return target


def git(cwd: Path, *args: str) -> str:
    env_args = [
        "-c",
        "user.email=review@example.invalid",
        "-c",
        "user.name=review",
        "-c",
        "commit.gpgsign=false",
    ]
    return subprocess.run(
        ["git", *env_args, *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


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
