"""The wheel is complete: built, installed into a bare directory, and run from outside the
repository (so templates and the schema must come from the wheel), it generates exactly what the
source tree generates."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from corehelpers import REPO, SPECS, V41, tree_bytes


@pytest.mark.slow
def test_wheel_builds_and_generates_the_same_tree(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("dsv41gen-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "dsv41gen/schema.json" in names
    templates = {n for n in names if n.startswith("dsv41gen/templates/") and n.endswith(".j2")}
    on_disk = {
        "dsv41gen/templates/" + p.relative_to(REPO / "templates").as_posix()
        for p in (REPO / "templates").rglob("*.j2")
    }
    assert templates == on_disk
    # The kernel sources: generated packages compile and import them from the installed dsv41gen
    kernels = REPO / "dsv41gen" / "kernels"
    assert {f"dsv41gen/kernels/{p.name}" for p in kernels.iterdir() if p.is_file()} <= names
    assert {"dsv41gen/kernels/rope_kv_core.cuh", "dsv41gen/kernels/rope_kv_bindings.cpp"} <= names

    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    work = tmp_path / "elsewhere"  # outside the repository, same layout as the reference build
    shutil.copytree(SPECS, work / "specs")
    env = dict(os.environ, PYTHONPATH=str(target))
    env.pop("DSV41GEN_DEBUG", None)

    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import dsv41gen.emit.render as r; print(r.__file__); print(r.templates_dir())",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert all(line.startswith(str(target)) for line in where), where  # not the editable install

    result = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", f"specs/{V41}", "--out", "out"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr

    # The same build from the source tree (right after, same layout, so headers match too).
    source = tmp_path / "source"
    shutil.copytree(SPECS, source / "specs")
    plain_env = dict(os.environ, PYTHONPATH=str(REPO))  # this checkout, whatever is installed
    from_source = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", f"specs/{V41}", "--out", "out"],
        cwd=source,
        env=plain_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert from_source.returncode == 0, from_source.stdout + from_source.stderr
    assert tree_bytes(work / "out") == tree_bytes(source / "out")


def _build(target: str, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", target, "-d", str(out)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("dsv41gen-*.tar.gz" if target == "sdist" else "dsv41gen-*.whl")
    return built


@pytest.mark.slow
def test_wheel_and_sdist_carry_the_license_and_type_marker(tmp_path):
    pytest.importorskip("hatchling")
    wheel = zipfile.ZipFile(_build("wheel", tmp_path))
    names = set(wheel.namelist())
    assert "dsv41gen/py.typed" in names and "dsv41gen/clang-format.yaml" in names
    [license_file] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert "Apache License" in wheel.read(license_file).decode()
    [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
    text = wheel.read(metadata).decode()
    # PEP 639: the SPDX expression, not the old License field nor a license classifier
    headers = text.split("\n\n", 1)[0].splitlines()
    assert "License-Expression: Apache-2.0" in headers
    assert not any(h.startswith(("License:", "Classifier: License ::")) for h in headers)
    assert "Classifier: Typing :: Typed" in text
    with tarfile.open(_build("sdist", tmp_path)) as sdist:
        assert "dsv41gen-0.1.0/LICENSE" in sdist.getnames()


@pytest.mark.slow
def test_sdist_test_suite_runs_from_the_unpacked_sdist(tmp_path):
    """Everything the suite reads is in the sdist: pytest collects it without an error, the
    sdist's generated/ is what its own specs and generator produce, and the generated tests and
    a slice of the compiler's pass there (the whole suite is the README's command)."""
    pytest.importorskip("hatchling")
    with tarfile.open(_build("sdist", tmp_path)) as sdist:
        sdist.extractall(tmp_path, filter="data")
    (root,) = (p for p in tmp_path.iterdir() if p.is_dir())
    env = dict(os.environ)
    env.pop("DSV41GEN_DEBUG", None)
    # cwd first on sys.path: the sdist's own dsv41gen, not this checkout's editable install.
    where = subprocess.run(
        [sys.executable, "-c", "import dsv41gen; print(dsv41gen.__file__)"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(root)), where.stdout

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=600
        )

    collected = run("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert " error" not in collected.stdout.splitlines()[-1], collected.stdout[-500:]
    check = run("-m", "dsv41gen", "check")
    assert check.returncode == 0, check.stdout + check.stderr
    tests = run(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "generated",
        "tests/core/test_cli_schema_explain.py",
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
