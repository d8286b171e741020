"""A consumer's linters and type checkers accept the generated Python as it is.

The oracles are the real tools, run the way a consumer runs them: ruff with its plain defaults
(no configuration anywhere), and mypy with its defaults, told only that vLLM (and its pydantic_core) and Triton have no
types here (vLLM is not installed on these machines; Triton ships no py.typed).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

MYPY_INI = """\
[mypy]
cache_dir = {cache}

[mypy-vllm,vllm.*,triton,triton.*,pydantic_core,pydantic_core.*]
ignore_missing_imports = True
"""
# pydantic_core is here for the same reason as vLLM: it is one of vLLM's own dependencies (the
# generated _binding imports the ValidationError vLLM's config fields raise), so a consumer that
# has vLLM has it; this test's environment has neither.


def test_plain_default_ruff_check_is_clean(reference_build):
    out = reference_build / "out"
    result = subprocess.run(
        [BIN / "ruff", "check", "--isolated", "--no-cache", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_is_clean_and_the_package_is_typed(reference_build, tmp_path):
    pytest.importorskip("mypy", reason="mypy is a test dependency: pip install -e '.[test]'")
    package = reference_build / "out" / "deepseek_v4"
    assert (package / "py.typed").is_file()
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_INI.format(cache=tmp_path / "mypy-cache"))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), str(package)],
        capture_output=True,
        text=True,
        check=False,
        cwd=reference_build / "out",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


# The plugin's two modules, checked the strictest way a consumer may check them: against the
# real vLLM 0.33.0 (the conformance venv's interpreter), not against missing imports.
PLUGIN_MODULES = ("deepseek_v4/plugin.py", "deepseek_v4/_binding.py")


@pytest.fixture(scope="module")
def vllm_python() -> Path:
    from vllmvenv import require_vllm_python

    return require_vllm_python()


@pytest.mark.slow
def test_pyright_is_clean_on_the_plugin_against_vllm(reference_build, vllm_python):
    result = subprocess.run(
        [BIN / "pyright", "--pythonpath", str(vllm_python), *PLUGIN_MODULES],
        capture_output=True,
        text=True,
        check=False,
        cwd=reference_build / "out",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors, 0 warnings" in result.stdout


@pytest.mark.slow
def test_mypy_strict_is_clean_on_the_plugin_against_vllm(reference_build, vllm_python, tmp_path):
    """--follow-imports=silent: the plugin's own two modules are judged, the package's other
    modules only for the types they give these two (backends.py's block sizes are list[int]
    where vLLM declares list[int | MultipleOf]; that is left for the backends)."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent"]
        + ["--python-executable", str(vllm_python), "--cache-dir", str(tmp_path / "cache")]
        + list(PLUGIN_MODULES),
        capture_output=True,
        text=True,
        check=False,
        cwd=reference_build / "out",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found in 2 source files" in result.stdout
