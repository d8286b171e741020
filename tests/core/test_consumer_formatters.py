"""A consumer's formatters leave the generated tree alone, and `check` stays clean after them.

Each case is a repository laid out like vLLM's: specs/, generated/, a formatter configuration
at the root and a pre-commit configuration running the real `ruff format` and `clang-format`
(the ones installed with dsv41gen) over every tracked file, the way vLLM's pre-commit does. The
oracle is the formatters themselves: pre-commit exits 1 when a hook changed a file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from corehelpers import SPECS, cli

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent

# vLLM's clang-format style as its repository states it (Google based, 80 columns, pointers to
# the type, includes not sorted). Written out here, not taken from dsv41gen's shipped default,
# so the test does not compare the generator with itself.
VLLM_LIKE_CLANG_FORMAT = """\
BasedOnStyle: Google
UseTab: Never
IndentWidth: 2
ColumnLimit: 80
DerivePointerAlignment: false
PointerAlignment: Left
SortIncludes: false
AlignConsecutiveAssignments: false
AlignConsecutiveDeclarations: false
IndentPPDirectives: BeforeHash
"""

PRE_COMMIT = """\
repos:
  - repo: local
    hooks:
      - id: ruff-format
        name: ruff format
        entry: {bin}/ruff format
        language: system
        types_or: [python, pyi]
      - id: clang-format
        name: clang-format
        entry: {bin}/clang-format -i
        language: system
        types_or: [c++, c, cuda]
"""

CASES = {
    # ruff with no configuration at all (its defaults: 88 columns, double quotes) and vLLM's
    # .clang-format.
    "vllm-like": {".clang-format": VLLM_LIKE_CLANG_FORMAT},
    # A configuration that differs from every default, found in pyproject.toml / .clang-format.
    "own-style": {
        "pyproject.toml": (
            '[project]\nname = "consumer"\nversion = "0"\n\n'
            '[tool.ruff]\nline-length = 72\n\n[tool.ruff.format]\nquote-style = "single"\n'
        ),
        ".clang-format": "BasedOnStyle: LLVM\nColumnLimit: 110\nIndentWidth: 4\n",
    },
    # generated/ kept out of clang-format (DisableFormat in generated/.clang-format), ruff
    # configured in ruff.toml.
    "clang-format-disabled": {
        "ruff.toml": "line-length = 100\n",
        "generated/.clang-format": "DisableFormat: true\n",
    },
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture(params=sorted(CASES))
def consumer(request, tmp_path):
    root = tmp_path / "consumer"
    shutil.copytree(SPECS, root / "specs")
    for name, text in CASES[request.param].items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".pre-commit-config.yaml").write_text(PRE_COMMIT.format(bin=BIN))
    result = cli(["build"], root)
    assert result.rc == 0, result.output
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    return request.param, root


def test_consumer_formatters_change_nothing_and_check_stays_clean(consumer, tmp_path):
    case, root = consumer
    before = _tree(root / "generated")
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")},
    )
    assert "ruff format" in run.stdout and "clang-format" in run.stdout, run.stdout
    after = _tree(root / "generated")
    changed = sorted(k for k in before if before[k] != after.get(k))
    assert run.returncode == 0 and not changed, (changed, run.stdout + run.stderr)
    check = cli(["check"], root)
    assert check.rc == 0, check.output

    # The formatting really is the configured one (not merely something the tools accept).
    python = after["deepseek_v4/registry.py"].decode()
    cuda = after["deepseek_v4/csrc/deepseek_v41/rope_kv_config.h"].decode()
    widest_cuda = max(len(line) for line in cuda.splitlines())
    if case == "own-style":
        assert "f'{module}:{class_name}'" in python  # quote-style = "single"
        assert widest_cuda <= 110 and "\n    " in cuda  # LLVM style, 4-space indent
    elif case == "vllm-like":
        assert 'f"{module}:{class_name}"' in python
        assert widest_cuda <= 80
    else:
        assert widest_cuda > 100  # the templates' own layout: clang-format was kept out


SPDX = (
    "SPDX-License-Identifier: Apache-2.0",
    "SPDX-FileCopyrightText: Copyright contributors to the vLLM project",
)


def test_license_header_comes_first_in_every_file_and_check_accepts_it(tmp_path):
    """`license_header` in the root spec: every generated file opens with those lines (what
    vLLM's SPDX hook looks for), then dsv41gen's header; check, why and the fast path read it."""
    shutil.copytree(SPECS, tmp_path / "specs")
    root_spec = tmp_path / "specs" / "deepseek_v4.yaml"
    text = root_spec.read_text()
    root_spec.write_text(
        text.replace(
            "\nvariant:",
            "\nlicense_header:\n" + "".join(f"  - '{s}'\n" for s in SPDX) + "\nvariant:",
            1,
        )
    )
    assert cli(["build"], tmp_path).rc == 0
    # Only DeepSeek's root states the header; another family's package keeps its own (none).
    files = _tree(tmp_path / "generated" / "deepseek_v4")
    assert files
    for rel, data in files.items():
        prefix = "//" if rel.endswith((".cu", ".cuh", ".h", ".cpp")) else "#"
        head = data.decode().splitlines()[:3]
        assert head[:2] == [f"{prefix} {line}" for line in SPDX], rel
        assert head[2].startswith(f"{prefix} @generated by dsv41gen"), rel
    for rel, data in _tree(tmp_path / "generated" / "qwen3_next").items():
        assert "SPDX" not in data.decode().splitlines()[0], rel
    assert cli(["check"], tmp_path).rc == 0
    assert "up to date" in cli(["build"], tmp_path).stdout  # the fast path
    why = cli(["why", "generated/deepseek_v4/registry.py:10"], tmp_path)
    assert why.rc == 0, why.output

    # A child may not change the family's header.
    child = tmp_path / "specs" / "deepseek_v41.yaml"
    child.write_text(
        child.read_text().replace("\nvariant:", "\nlicense_header: [MIT]\nvariant:", 1)
    )
    bad = cli(["build"], tmp_path)
    assert bad.rc == 1 and "deepseek_v41.yaml:" in bad.stderr and "license_header" in bad.stderr


def test_a_changed_formatter_configuration_makes_the_tree_stale(tmp_path):
    """After the consumer changes the formatter settings, check compares with output formatted
    under the new ones (and says which formatters it used); the build record keeps the no-op
    fast path from vouching for the old formatting; build reformats."""
    shutil.copytree(SPECS, tmp_path / "specs")
    assert cli(["build"], tmp_path).rc == 0
    assert "up to date" in cli(["check"], tmp_path).stdout
    (tmp_path / "ruff.toml").write_text('[format]\nquote-style = "single"\n')
    stale = cli(["check"], tmp_path)
    assert stale.rc == 3, stale.output
    assert "generated/deepseek_v4/registry.py: differs from what the specs generate" in stale.stderr
    assert f"({tmp_path / 'ruff.toml'}) and clang-format " in stale.stderr  # says what it used
    assert cli(["build"], tmp_path).rc == 0
    assert (
        "f'{module}:{class_name}'" in (tmp_path / "generated/deepseek_v4/registry.py").read_text()
    )
    assert cli(["check"], tmp_path).rc == 0
    # Editing pyproject.toml outside [tool.ruff] changes nothing.
    (tmp_path / "ruff.toml").unlink()
    pyproject = (
        '[project]\nname = "x"\ndependencies = [{}]\n\n[tool.ruff.format]\nquote-style = "single"\n'
    )
    (tmp_path / "pyproject.toml").write_text(pyproject.format('"a"'))
    assert cli(["build"], tmp_path).rc == 0  # the build record names the new configuration
    (tmp_path / "pyproject.toml").write_text(pyproject.format('"a", "b>=2"'))
    again = cli(["build"], tmp_path)
    # Nothing is rewritten: the configuration that counts did not change.
    assert again.rc == 0 and re.search(r": up to date \(\d+ files\)$", again.stdout.strip())
    assert cli(["check"], tmp_path).rc == 0
