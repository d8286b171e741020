"""The generated Python fits the consumer's line length, prose included (issue 26 item 13).

A consumer repository with ruff configured at 80 or 88 columns, or with no configuration (ruff's
defaults), builds both shipped specs into its tree. The oracle is ruff's own check, run with
the consumer's configuration: E501 (line too long) over every generated file, the generated
tests too, and W505 (doc line too long) where the consumer sets it, plus ruff's default rules (a split literal must not bring F541 or ISC004). Before
the prose wrap the tree had 405 E501 at 80 columns and 328 at 88 (622 and 413 for the
repository's own tree, formatted at 100, checked at 80 and 88).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from corehelpers import REPO, V41, cli, copy_specs

pytestmark = pytest.mark.slow

RUFF = Path(sys.executable).parent / "ruff"

CONSUMERS = {
    "ruff.toml at 80": ("ruff.toml", "line-length = 80\n"),
    "pyproject.toml at 88": (
        "pyproject.toml",
        '[project]\nname = "consumer"\nversion = "0"\n\n[tool.ruff]\nline-length = 88\n',
    ),
    # W505's limit on comments and docstrings, shorter than the line's: prose follows it
    "max-doc-length 80 under line-length 88": (
        "ruff.toml",
        "line-length = 88\n\n[lint.pycodestyle]\nmax-doc-length = 80\n",
    ),
    "ruff defaults": (None, ""),
}


def _ruff_check(root: Path, config: list[str], *rules: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [RUFF, "check", "--no-cache", *config, *rules, "--output-format", "concise", "generated"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("consumer", CONSUMERS, ids=list(CONSUMERS))
def test_generated_python_fits_the_consumers_line_length(tmp_path, consumer):
    name, text = CONSUMERS[consumer]
    if name is not None:
        (tmp_path / name).write_text(text)
    copy_specs(tmp_path / "specs")
    result = cli(["build", f"specs/{V41}", "--out", "generated"], tmp_path)
    assert result.rc == 0, result.output
    config = ["--config", str(tmp_path / name)] if name else ["--isolated"]
    too_long = _ruff_check(tmp_path, config, "--select", "E501,W505")
    assert too_long.returncode == 0, too_long.stdout[-3000:]
    defaults = _ruff_check(tmp_path, config)
    assert defaults.returncode == 0, defaults.stdout[-3000:]
    generated_tests = sorted((tmp_path / "generated").glob("*/tests/test_*.py"))
    assert generated_tests, "the generated tests were checked too"


def test_the_committed_tree_fits_the_repositorys_line_length():
    """generated/ as committed, against this repository's own ruff configuration (100)."""
    result = subprocess.run(
        [
            RUFF,
            "check",
            "--no-cache",
            "--select",
            "E501",
            "--output-format",
            "concise",
            "generated",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:]


def test_a_consumers_ruff_configuration_it_cannot_read_is_a_clear_error(tmp_path):
    """ruff's own words, with the file, line and column, exit 2 and no tree: not an internal
    error (exit 70, "a bug in dsv41gen"), as a formatter's failure was."""
    (tmp_path / "ruff.toml").write_text('line-length = "eighty"\n')
    copy_specs(tmp_path / "specs")
    result = cli(["build", f"specs/{V41}", "--out", "generated"], tmp_path)
    assert result.rc == 2, result.output
    assert "internal error" not in result.stderr
    assert "error: ruff could not format the generated code" in result.stderr
    assert "ruff.toml" in result.stderr and "line 1, column 15" in result.stderr
    assert not (tmp_path / "generated").exists()
