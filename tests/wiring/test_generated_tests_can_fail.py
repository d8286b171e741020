"""The generated tests are not vacuous: plant one defect in a built package (a typical hand-wiring
slip from the seeds) and the generated tests for that file must fail."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from wiringhelpers import GENERATED_PYTEST, SPECS, run_cli

MUTATIONS = [
    # (file, text to find, replacement, the generated test module that must catch it)
    (
        "backends.py",
        "_sizes_for_device({90: [64]}, [128])",
        "_sizes_for_device({90: [128]}, [128])",
        "test_backends.py",
    ),
    (
        "backends.py",
        'return "DEEPSEEK_V41_INDEXER"',
        'return "DEEPSEEK_V4_INDEXER"',
        "test_backends.py",
    ),
    (
        "speculative.py",
        'target_model_type == "deepseek_v41" and method == "mtp"',
        "False",
        "test_speculative.py",
    ),
    (
        "speculative.py",
        "num > n_predict and num % n_predict != 0",
        "num % n_predict != 0",
        "test_speculative.py",
    ),
    (
        "dispatch.py",
        'if model_type in {"deepseek_v4", "deepseek_v41"}:',
        'if model_type == "deepseek_v4":',
        "test_speculative.py",
    ),
    ("runner.py", "not use_v2_model_runner", "use_v2_model_runner", "test_runner.py"),
    ("kv_cache.py", "return repeats_per_group is None and", "return", "test_kv_cache.py"),
    (
        "checkpoint.py",
        "if not _present(weight_set, stages, w, i)\n",
        "if False\n",
        "test_checkpoint.py",
    ),
    (
        "registry.py",
        'ModelRegistry.register_model(architecture, f"{module}:{class_name}")',
        "None if table is SPECULATIVE_DECODING_MODELS else "
        'ModelRegistry.register_model(architecture, f"{module}:{class_name}")',
        "test_registry.py",
    ),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("built")
    result = run_cli("build", str(SPECS / "deepseek_v41.yaml"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


def _run_generated_test(root: Path, test_file: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            *GENERATED_PYTEST,
            "-x",
            f"deepseek_v4/tests/{test_file}",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("file", "find", "replace", "test_file"), MUTATIONS, ids=[m[1][:40] for m in MUTATIONS]
)
def test_planted_defect_is_caught(built, tmp_path, file, find, replace, test_file):
    root = tmp_path / "mutant"
    shutil.copytree(built, root)
    target = root / "deepseek_v4" / file
    text = target.read_text()
    assert find in text, f"mutation anchor {find!r} no longer in {file}"
    target.write_text(text.replace(find, replace, 1))
    result = _run_generated_test(root, test_file)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "failed" in result.stdout


def test_unmutated_package_passes(built):
    for test_file in sorted({m[3] for m in MUTATIONS}):
        result = _run_generated_test(built, test_file)
        assert result.returncode == 0, result.stdout + result.stderr
