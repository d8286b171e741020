"""The compiler's stages are layers (pyproject.toml, [tool.importlinter]): spec < plan < emit <
commands, errors and faults at the bottom, and the runtime package (dsv41gen.kernels) imports
nothing of the compiler. lint-imports checks the real import graph; this test runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from repohelpers import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_stages_are_layers():
    result = _lint()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_layer_violation_fails(tmp_path):
    """The runner reports a broken contract: plan is made the lower layer, which every
    planner's import of spec/ breaks."""
    config = tmp_path / "importlinter.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_package = "dsv41gen"\n\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "inverted"\n'
        'type = "layers"\n'
        'layers = ["dsv41gen.spec", "dsv41gen.plan"]\n',
        encoding="utf-8",
    )
    result = _lint("--config", str(config))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "dsv41gen.plan is not allowed to import dsv41gen.spec" in result.stdout


def test_the_pipeline_drives_and_holds_no_rule():
    """Every spec error comes from spec/validate/: the pipeline reports none of its own (it
    once held the family rules), so no `diagnostics.add(location, path, message)` call is left
    in it."""
    import ast

    tree = ast.parse((REPO / "dsv41gen" / "commands" / "pipeline.py").read_text(encoding="utf-8"))
    reports = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add"
        and len(node.args) == 3
    ]
    assert reports == []
