"""Helpers of the plugin tests: the vLLM venv, building and installing the family package,
model directories, and the driver that runs vLLM in a fresh process (see conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# the conformance suite's fork server of vLLM processes (appended: nothing here is shadowed)
sys.path.append(str(REPO / "tests" / "conformance"))
import vllm_forkserver  # noqa: E402

SPECS = REPO / "specs"
DRIVER = Path(__file__).resolve().parent / "vllm_driver.py"
# packages a venv built before requirements-vllm.txt gained them lacks (both runs)
EXTRA_PATH_VARIABLE = "DSV41GEN_VLLM_EXTRA_PATH"


class Driver:
    def __init__(self, vllm_python: Path):
        # VLLM_CACHE_ROOT is left as it is: vLLM caches its model-class inspections (keyed by the
        # model module's file hash) where the conformance suite's driver runs cache theirs, so
        # the inspections those ran (each a vLLM process of its own, about 15 s) are not redone
        self.python = vllm_python

    def run(self, cases: list[dict], site: Path | None, tmp: Path, *prelude: str) -> dict:
        """``{"load": ..., "results": [...]}`` for ``cases`` in a fresh process (forked by
        vllm_forkserver, which imported vLLM once, before any prelude or plugin): stock vLLM
        (site None, load None) or with the plugin at ``site`` loaded through vLLM's
        load_general_plugins() (load: its outcome and the vLLM objects it changed; no results
        when it failed). ``prelude``: Python statements run first, before the plugin loads."""
        tmp.mkdir(parents=True, exist_ok=True)
        cases_file = tmp / "cases.json"
        cases_file.write_text(json.dumps(cases))
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VLLM_PLUGINS")}
        env["DSV41GEN_DRIVER_PRELUDE"] = "\n".join(prelude)
        args = [str(self.python), str(DRIVER), str(cases_file)]
        path = [str(site)] if site is not None else []
        # packages a venv built before requirements-vllm.txt gained them lacks (both runs)
        path += [p for p in os.environ.get(EXTRA_PATH_VARIABLE, "").split(os.pathsep) if p]
        if path:
            env["PYTHONPATH"] = os.pathsep.join(path)
        if site is not None:
            args.append("--plugin")
        result = vllm_forkserver.run(args[0], args[1:], env=env, timeout=900)
        if result.returncode != 0:
            raise DriverFailed(result.returncode, result.stderr[-4000:])
        return json.loads(result.stdout)


class DriverFailed(Exception):
    def __init__(self, returncode: int, stderr: str):
        super().__init__(f"driver exited {returncode}:\n{stderr}")
        self.returncode = returncode
        self.stderr = stderr


def build_family(specs: Path, out: Path) -> Path:
    """``dsv41gen build`` of every spec in ``specs``: the family package directory."""
    result = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", "--out", str(out)]
        + [str(p) for p in sorted(specs.glob("*.yaml"))],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "deepseek_v4"


def family_packages(out: Path) -> list[Path]:
    """Every family package a ``build_family`` into ``out`` wrote (one per root spec)."""
    return sorted(p.parent for p in out.glob("*/pyproject.toml"))


def install_plugin(package: Path | list[Path], vllm_python: Path, where: Path) -> Path:
    """Build the generated package's wheel (offline, with this venv's hatchling) and install
    it, without dependencies, into ``where/site`` for the vLLM venv's python. A list of
    packages installs every one of their wheels into the same site (the plugins together)."""
    packages = package if isinstance(package, list) else [package]
    dist = where / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "-w", str(dist), *map(str, packages)],
        check=True,
        capture_output=True,
    )
    wheels = sorted(dist.glob("*.whl"))
    assert len(wheels) == len(packages), wheels
    site = where / "site"
    subprocess.run(
        [str(vllm_python), "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
        + ["--target", str(site), *map(str, wheels)],
        check=True,
        capture_output=True,
    )
    return site


def write_model(root: Path, name: str, architecture: str, model_type: str, **fields) -> Path:
    """A model directory holding only config.json: what ModelConfig reads."""
    directory = root / name
    directory.mkdir(parents=True)
    config = {
        "architectures": [architecture],
        "model_type": model_type,
        "num_hidden_layers": 4,
        "hidden_size": 256,
        "vocab_size": 1000,
        "num_attention_heads": 4,
        "max_position_embeddings": 4096,
        "torch_dtype": "bfloat16",
        **fields,
    }
    (directory / "config.json").write_text(json.dumps(config))
    return directory
