"""Run vLLM 0.33.0's own tests (from the sdist) against a vLLM source tree, on the CPU.

The tree's Python files are laid over the conformance venv's installed wheel: an overlay
directory holds a symlink for every file of the wheel's ``vllm`` package (so its compiled
``.so`` parts stay the wheel's) with each ``.py`` of the tree's ``vllm/`` copied over it, and
it comes first on ``PYTHONPATH``. The tests are the tree's own ``tests/`` (so the emitted
``tests/models/registry.py`` is the one vLLM's tests read), run by the conformance venv's
Python. That venv has no pytest, so pytest and its two pure-Python dependencies come from this
project's environment, put on the path after the overlay (the venv's own packages stay first).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Per emitter site, the CPU-runnable tests of vLLM 0.33.0 that exercise it (node ids relative
# to the tree's root). Chosen by reading which tests import the touched modules; every one runs
# in seconds on the CPU. Tests that need a GPU or the network are listed in docs/vllm-source-tree.md.
SITE_TESTS: dict[str, tuple[str, ...]] = {
    "registry": (
        "tests/models/test_registry.py::test_hf_registry_coverage",
        "tests/models/test_registry.py::test_lazy_modelinfo_package_hash_includes_submodules",
    ),
    "speculative": (
        "tests/test_config.py::test_dsa_models_select_matching_mtp",
        "tests/test_config.py::test_v2_model_runner_supports_speculative_method",
    ),
    "indexer backends": ("tests/v1/attention/test_backend_per_kind.py",),
    "kv planning": (
        "tests/v1/core/test_kv_cache_utils.py",
        "tests/v1/core/test_contiguous_kv_packing.py",
    ),
    "dspark backend": ("tests/v1/spec_decode/test_draft_attention_backend_override.py",),
    # get_eagle3_aux_layers_from_config (the DSpark layer-id offset) and its callers
    # (tests/v1/worker/test_eagle3_aux_hidden_states_pp.py fails to collect on the pristine
    # tree too, on the CPU venv)
    "eagle3 layer ids": ("tests/v1/spec_decode/test_dflash_causality.py",),
    # dsa_indexer_uses_fp4 (the ROCm MXFP4 model-type gate) is called by these model builds
    "indexer mxfp4 gate": ("tests/models/test_beam_construction.py",),
    # the engine sets: config/vllm.py's breakable-CUDA-graph set and its ROCm answer
    "engine set breakable cudagraph": (
        "tests/test_config.py::test_rocm_keeps_compiled_deepseek_defaults",
        "tests/test_config.py::test_dsa_models_default_to_mrv2_and_breakable_cudagraph",
        "tests/test_config.py::test_breakable_cudagraph_platform_default",
    ),
    # config/kernel.py's FLASHINFER_MOE_EP_ARCHITECTURES (the file's architecture gates).
    # _rocm_supports_flattened_device_query_lens' own tests,
    # tests/v1/attention/test_deepseek_v4_rocm_adaptive.py, cannot run on the CPU: they import
    # vllm.models.deepseek_v4.amd.rocm, whose vllm.platforms.rocm reads the GPU's GCN arch at
    # import (a ROCm device); the plugin tests drive that function on a pretended ROCm instead.
    "engine set flashinfer moe ep": ("tests/models/test_deepseek_v4_fi_moe_ep.py",),
}

# Imported at module level by vLLM's tests/utils.py or conftest helpers, never called by the
# tests above; absent from the conformance venv (outcome_plugin.py stubs them).
STUB_MODULES = ("anthropic", "httpx", "tblib", "pytest_asyncio", "uvicorn", "watchfiles", "orjson")
# Tests of the files above that build a ModelConfig of a Hugging Face Hub model
# ("Qwen/Qwen3-0.6B", ...): they fail on the pristine tree too, offline. Deselected, by name.
NEEDS_HUB = (
    "test_hisparse_derived_specs_do_not_affect_kv_cache_layout",
    "test_dcp_target_allocates_replicated_draft_independently",
    "test_dcp_replicated_kpool_tail_keeps_block_interior_layout",
    "test_full_attention_merge_preserves_replicated_cache_geometry",
    "test_uniform_type_spec_block_table_width_matches_layer_spec",
    "test_get_max_concurrency_for_kv_cache_config",
    "test_hma_not_disabled_when_kv_events_enabled",
)
_PYTEST_PACKAGES = ("pytest", "_pytest", "pluggy", "iniconfig", "py.py", "pygments")


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def wheel_package(venv: Path) -> Path:
    found = sorted(venv.glob("lib/python*/site-packages/vllm/__init__.py"))
    if not found:
        raise FileNotFoundError(f"{venv}: no vllm package installed")
    return found[0].parent


def build_overlay(tree: Path, venv: Path, overlay: Path) -> Path:
    """``overlay`` (recreated): the wheel's vllm as symlinks, the tree's .py files over them,
    and the pytest shim; returns the PYTHONPATH entry for the overlay."""
    if overlay.exists():
        shutil.rmtree(overlay)
    packages = overlay / "packages"
    wheel = wheel_package(venv)
    for source in wheel.rglob("*"):
        if "__pycache__" in source.parts:
            continue
        target = packages / "vllm" / source.relative_to(wheel)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
    for source in (tree / "vllm").rglob("*.py"):
        target = packages / "vllm" / source.relative_to(tree / "vllm")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.exists():
            target.unlink()
        shutil.copyfile(source, target)
    shim = overlay / "pytest-shim"
    shim.mkdir()
    import pytest

    site = Path(pytest.__file__).resolve().parent.parent
    for name in _PYTEST_PACKAGES:
        if (site / name).exists():
            (shim / name).symlink_to(site / name)
    return packages


@dataclass(frozen=True)
class Outcome:
    per_file: dict[str, dict[str, int]]  # test file -> {"passed": n, "failed": n, ...}
    output: str

    def counts(self, path: str) -> dict[str, int]:
        found = self.per_file.get(path, {})
        return {k: found.get(k, 0) for k in ("passed", "failed", "skipped", "error")}


def run_vllm_tests(
    tree: Path, venv: Path, overlay: Path, tests: tuple[str, ...], timeout: int = 900
) -> Outcome:
    tree, overlay = tree.resolve(), overlay.resolve()
    packages = build_overlay(tree, venv, overlay)
    report = overlay / "report.json"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "PYTEST", "VIRTUAL_ENV", "TRITON"))
    }
    env.update(
        PYTHONPATH=os.pathsep.join([str(packages), str(tree), str(overlay / "pytest-shim")]),
        PYTHONDONTWRITEBYTECODE="1",
        VLLM_TARGET_DEVICE="cpu",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    plugin = Path(__file__).with_name("outcome_plugin.py")
    shutil.copyfile(plugin, overlay / "pytest-shim" / "dsv41gen_outcome.py")
    command = [
        str(venv_python(venv)),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "dsv41gen_outcome",
        "--noconftest",
        "--continue-on-collection-errors",
        "-rfEs",
        "--tb=line",
        "-k",
        "not (" + " or ".join(NEEDS_HUB) + ")",
        "--rootdir",
        str(tree),
        *tests,
    ]
    env["DSV41GEN_OUTCOME"] = str(report)
    env["DSV41GEN_STUB_MODULES"] = ",".join(STUB_MODULES)
    done = subprocess.run(
        command, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout
    )
    if not report.is_file():
        raise RuntimeError(
            f"vLLM's pytest wrote no report:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
        )
    return Outcome(json.loads(report.read_text()), done.stdout[-8000:] + done.stderr[-3000:])


if __name__ == "__main__":
    tree, venv, overlay = (Path(p) for p in sys.argv[1:4])
    outcome = run_vllm_tests(tree, venv, overlay, tuple(sys.argv[4:]))
    print(outcome.output)
    print(json.dumps(outcome.per_file, indent=1))
