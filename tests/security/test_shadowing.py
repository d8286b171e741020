"""A root variant cannot be named after a module installed where the build runs (issue 23,
finding 4): only vllm, dsv41gen, torch, triton, pytest, transformers, pydantic_core and the
standard library were refused, and `numpy`, `yaml`, `typing_extensions` built a package that
shadowed them, whose plugin wheel overwrote numpy's __init__.py when installed (and deleted it
when uninstalled).

The import system is asked, as `import NAME` would be, so a module installed only on
PYTHONPATH is refused as well: it is the environment that decides, not a list.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from securityhelpers import REPO, assert_clean_rejection, copy_specs, edit
from securityhelpers import Result as CliResult

V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"


@pytest.fixture
def specs(tmp_path):
    return copy_specs(tmp_path / "specs")


def _build(specs: Path, *, pythonpath: Path | None = None) -> CliResult:
    env = {k: v for k, v in os.environ.items() if k not in ("DSV41GEN_DEBUG", "PYTHONPATH")}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    run = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", f"specs/{V41}", "--out", "out"],
        cwd=specs.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return CliResult(run.returncode, run.stdout, run.stderr)


def _name_root(specs: Path, name: str) -> None:
    edit(specs / V4, "  name: deepseek_v4\n", f"  name: {name}\n")


# numpy is not here: the generated tests import it, so it is refused as an imported package
# (test_names), before this rule
@pytest.mark.parametrize("name", ["click", "yaml", "typing_extensions", "jinja2", "markupsafe"])
def test_a_root_named_after_an_installed_module_is_a_located_error(specs, name):
    __import__(name)  # installed here: the case is real
    _name_root(specs, name)
    assert_clean_rejection(
        _build(specs),
        f"specs/{V4}:11:3: variant.name: {name!r} is a module installed in this environment (",
        "installing the plugin wheel would overwrite its files",
        "choose another name",
    )
    assert not (specs.parent / "out").exists()


def test_a_module_installed_only_on_pythonpath_is_found_too(specs, tmp_path):
    site = tmp_path / "site"
    (site / "acme_widgets").mkdir(parents=True)
    (site / "acme_widgets" / "__init__.py").write_text("")
    _name_root(specs, "acme_widgets")
    assert_clean_rejection(
        _build(specs, pythonpath=site),
        f"'acme_widgets' is a module installed in this environment ({site / 'acme_widgets'}",
    )
    assert _build(specs).rc == 0  # not installed: builds


def test_the_package_itself_installed_or_built_before_is_no_clash(specs, tmp_path):
    """A rebuild where the plugin (a dsv41gen-stamped package) is importable: the package is
    this one, not another's."""
    assert _build(specs, pythonpath=REPO / "generated").rc == 0


def test_the_working_directory_is_no_installed_package(specs):
    """`python -m` puts the working directory first on sys.path; a directory there is not in
    the environment."""
    (specs.parent / "deepseek_v4").mkdir()
    (specs.parent / "deepseek_v4" / "__init__.py").write_text("")
    result = _build(specs)
    assert result.rc == 0, result.stderr


def test_the_plugin_wheel_writes_only_its_own_package(specs, tmp_path):
    """What an install of the wheel writes: the package directory the name check keeps free,
    and the distribution's own metadata, nothing else."""
    assert _build(specs).rc == 0
    package = specs.parent / "out" / "deepseek_v4"
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "-w", str(tmp_path / "dist"), str(package)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"deepseek_v4", "deepseek_v4_vllm_plugin-0.1.0.dist-info"}
