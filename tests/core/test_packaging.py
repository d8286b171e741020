"""The wheel is complete: built, installed into a bare directory, and run from outside the
repository (so templates and the schema must come from the wheel), it generates exactly what the
source tree generates."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

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
            "import dsv41gen.render as r; print(r.__file__); print(r.templates_dir())",
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
