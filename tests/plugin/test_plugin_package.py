"""The generated family package as a vLLM plugin, without vLLM: its pyproject.toml, its entry
point, and a load that refuses, naming every site, when the engine is not there.

What the plugin does inside vLLM 0.33.0 is tested in test_plugin_in_vllm.py, in the venv that
holds the real vLLM.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


def build(specs: Path, out: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "dsv41gen",
            "build",
            str(specs / "deepseek_v41.yaml"),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    return out / "deepseek_v4"


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    return build(SPECS, tmp_path_factory.mktemp("plugin"))


def test_pyproject_is_a_vllm_plugin(package):
    project = tomllib.loads((package / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["vllm.general_plugins"] == {
        "deepseek_v4": "deepseek_v4:vllm_plugin"
    }
    # spec: engine; the plugin is for that release only. dsv41gen: the kernel sources the
    # package compiles and imports (dsv41gen/kernels), of the version that generated it
    from dsv41gen import __version__

    assert project["project"]["dependencies"] == ["vllm==0.33.0", f"dsv41gen=={__version__}"]
    assert project["build-system"]["build-backend"] == "hatchling.build"


def build_wheel(package: Path, dist: Path) -> Path:
    """pip builds the generated directory as it is, offline, writing nothing into it."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(dist),
            str(package),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = dist.glob("deepseek_v4_vllm_plugin-*.whl")
    return wheel


def test_the_wheel_carries_the_package_and_its_entry_point(package, tmp_path):
    import zipfile

    before = sorted(p.relative_to(package) for p in package.rglob("*"))
    wheel = build_wheel(package, tmp_path)
    assert sorted(p.relative_to(package) for p in package.rglob("*")) == before
    names = zipfile.ZipFile(wheel).namelist()
    assert "deepseek_v4/plugin.py" in names and "deepseek_v4/speculative.py" in names
    # the kernels' per-variant configuration; the kernels are dsv41gen's (a dependency)
    assert "deepseek_v4/csrc/deepseek_v41/rope_kv_config.h" in names
    assert "deepseek_v4/rope_kv_deepseek_v41.py" in names
    assert not any(name.endswith("rope_kv_core.cuh") for name in names)
    assert not any(name.startswith("deepseek_v4/tests/") for name in names)
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[vllm.general_plugins]\ndeepseek_v4 = deepseek_v4:vllm_plugin" in text


def test_the_wheel_is_typed_licensed_and_linked(package, tmp_path):
    """PEP 561's py.typed and PEP 639's license metadata, read from the built wheel's own
    METADATA and RECORD (what pip and PyPI read), not from pyproject.toml."""
    import zipfile

    wheel = zipfile.ZipFile(build_wheel(package, tmp_path))
    (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    (record,) = [n for n in wheel.namelist() if n.endswith(".dist-info/RECORD")]
    headers = wheel.read(metadata).decode().split("\n\n", 1)[0].splitlines()
    assert "License-Expression: Apache-2.0" in headers
    assert not any(line.startswith("License:") for line in headers), "the old field is gone"
    assert "License-File: LICENSE" in headers
    urls = [line for line in headers if line.startswith("Project-URL: ")]
    assert urls == [
        "Project-URL: vLLM plugin system, https://docs.vllm.ai/en/stable/design/plugin_system/"
    ]
    recorded = {line.split(",", 1)[0] for line in wheel.read(record).decode().splitlines()}
    assert "deepseek_v4/py.typed" in recorded
    (license_file,) = [n for n in recorded if n.endswith(".dist-info/licenses/LICENSE")]
    assert "Apache License" in wheel.read(license_file).decode()


def _fresh_import(package: Path, name: str):
    sys.path.insert(0, str(package.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(package.parent))


@pytest.fixture
def plugin(package):
    yield _fresh_import(package, "deepseek_v4.plugin")
    for name in [m for m in sys.modules if m == "deepseek_v4" or m.startswith("deepseek_v4.")]:
        del sys.modules[name]


def test_without_vllm_the_load_names_every_site_and_patches_nothing(plugin):
    if plugin._installed_version() is not None:
        pytest.skip("vLLM is installed in this venv: test_plugin_in_vllm.py covers it")
    with pytest.raises(plugin.PluginLoadError) as raised:
        plugin.install()
    message = str(raised.value)
    assert (
        "engine: the deepseek_v4 specs describe vllm==0.33.0, but vllm is not installed" in message
    )
    for site in plugin.SITES:
        where = ".".join(part for part in (site.module, site.owner) if part)
        assert f"site {site.name}: {where} cannot be imported" in message
    assert plugin._ORIGINALS == {}


def test_every_replaced_site_has_its_hook(plugin):
    for site in plugin.SITES:
        assert site.hook == "" or callable(getattr(plugin, site.hook)), site.name


def test_a_spec_without_engine_gets_no_plugin(tmp_path):
    import shutil

    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    v4 = specs / "deepseek_v4.yaml"
    v4.write_text(
        "".join(line for line in v4.read_text().splitlines(True) if not line.startswith("engine:"))
    )
    package = build(specs, tmp_path / "out")
    assert not (package / "plugin.py").exists()
    assert not (package / "pyproject.toml").exists()
    assert "vllm_plugin" not in (package / "__init__.py").read_text()


def test_two_subclasses_of_one_deleted_backend_replace_nothing(tmp_path):
    """Fuzz case 1623: without V4.1's delete of V4's ROCm backend, two V4.1 backends subclass
    one deleted class; the layer's choice stays vLLM's and the table repeats no key."""
    import shutil

    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    v41 = specs / "deepseek_v41.yaml"
    v41.write_text(v41.read_text().replace("  DeepseekV4RocmMxfp4IndexerBackend: !delete\n", ""))
    package = build(specs, tmp_path / "out")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", str(package / "plugin.py")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout
