"""The README's "Use it in vLLM" commands, as the README writes them (read from it, not
copied): in a copy of the repository holding the README's worked example as
``specs/deepseek_v42.yaml``, the build line builds, the pip line's ``--no-deps`` packages are what
the installed plugin needs (dsv41gen included, which the kernel modules import), every module
the example names is in the vLLM 0.33.0 wheel, and the serve line's arguments go through
``vllm serve``'s own parser into ``AsyncEngineArgs.create_engine_config`` with the plugin loaded
by vLLM, and come out as the config the serve line asks for."""

from __future__ import annotations

import ast
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from pluginhelpers import REPO, write_model

SERVE_DRIVER = Path(__file__).resolve().parent / "serve_driver.py"


def _readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def readme_commands() -> dict[str, list[str]]:
    """The indented command lines of the README's "Use it in vLLM" section, by program."""
    section = _readme().split("## Use it in vLLM", 1)[1].split("\n## ", 1)[0]
    commands = {}
    for line in section.splitlines():
        if line.startswith("    ") and line.strip():
            words = shlex.split(line, comments=True)
            commands[" ".join(words[:2])] = words
    return commands


def readme_example() -> str:
    return re.search(r"```yaml\n(.*?)```", _readme(), re.S)[1]


def _repository_copy(root: Path) -> Path:
    """The repository's tracked files (what a clone holds) under ``root``, without generated/."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, text=True
    ).stdout.split("\0")
    for name in filter(None, files):
        if name.startswith("generated/") or not (REPO / name).is_file():
            continue
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO / name).read_bytes())
    return root


def _install(paths: list[str], cwd: Path, vllm_python: Path) -> Path:
    """``pip install --no-deps PATHS`` for vLLM's python, offline: each path's wheel is built
    with this venv's backend (the vLLM venv has none) and installed into a private site."""
    dist, site = cwd / "dist", cwd / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["--no-index", "-w", str(dist), *paths],
        cwd=cwd,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [str(vllm_python), "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
        + ["--target", str(site), *map(str, dist.glob("*.whl"))],
        check=True,
        capture_output=True,
    )
    return site


def _imported_modules(package: Path) -> set[str]:
    """The dsv41gen modules the generated package imports."""
    found = set()
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dsv41gen"):
                found.add(node.module)
    return found


def test_the_readme_commands_serve_its_example_in_vllm(vllm_python, tmp_path):
    commands = readme_commands()
    build, pip, serve = commands["dsv41gen build"], commands["pip install"], commands["vllm serve"]
    assert "--no-deps" in pip, pip
    repo = _repository_copy(tmp_path / "repo")
    example = readme_example()
    (repo / build[2]).write_text(example, encoding="utf-8")

    built = subprocess.run(
        [sys.executable, "-m", "dsv41gen", *build[1:]], cwd=repo, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr
    packages = [p for p in pip[2:] if not p.startswith("-")]
    site = _install(packages, repo, vllm_python)

    spec = yaml.safe_load(example.replace("!delete", ""))
    targets = [
        (name, entry)
        for name, entry in spec["architectures"].items()
        if entry and entry["registry"] != "speculative_decoding"
    ]
    ((architecture, _entry),) = targets
    modules = {e["module"] for e in spec["architectures"].values() if e}
    modules |= _imported_modules(repo / "generated" / "deepseek_v4")
    model_type = spec["variant"]["model_type"]
    fields = {"num_nextn_predict_layers": 3, "dspark_block_size": 5}
    model = write_model(tmp_path / "models", "model", architecture, model_type, **fields)
    argv = [str(model) if word == serve[2] else word for word in serve[2:]]

    given = tmp_path / "serve.json"
    given.write_text(json.dumps({"argv": argv, "modules": sorted(modules)}))
    ran = subprocess.run(
        [str(vllm_python), str(SERVE_DRIVER), str(given)],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{site}:{SERVE_DRIVER.parent}"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert ran.returncode == 0, ran.stderr[-4000:]
    report = json.loads(ran.stdout)
    missing = sorted(m for m, found in report["modules"].items() if not found)
    assert not missing, f"not in the vLLM 0.33.0 venv with the README's install: {missing}"
    asked = json.loads(serve[serve.index("--speculative-config") + 1])
    assert report["serve"] == {
        "outcome": "ok",
        "architectures": [architecture],
        "method": asked["method"],
        "num_speculative_tokens": asked["num_speculative_tokens"],
        "draft_architectures": report["serve"].get("draft_architectures"),
        "use_v2_model_runner": True,
    }, report["serve"]


def test_every_module_the_worked_examples_name_is_in_the_vllm_wheel(vllm_python):
    """docs/variant.md's example and the README's name only modules vLLM 0.33.0 ships (a
    spec naming one it lacks builds, and vLLM's start fails on it)."""
    pages = [_readme(), (REPO / "docs" / "variant.md").read_text(encoding="utf-8")]
    modules = sorted(
        {
            entry["module"]
            for page in pages
            for entry in yaml.safe_load(
                re.search(r"```yaml\n(.*?)```", page, re.S)[1].replace("!delete", "")
            )["architectures"].values()
            if entry
        }
    )
    assert modules
    lookup = (
        "import importlib.util as u, sys; print([m for m in sys.argv[1:] if not u.find_spec(m)])"
    )
    ran = subprocess.run(
        [str(vllm_python), "-c", lookup, *modules], capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "[]", f"not in vLLM 0.33.0: {ran.stdout.strip()}"
