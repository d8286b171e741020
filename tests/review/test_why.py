"""`dsv41gen why FILE:LINE` on sample lines from every emitter of a fresh build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from reviewhelpers import copy_specs, run_cli


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("why")

    copy_specs(root / "specs")
    result = run_cli(root, "build", "specs/deepseek_v41.yaml")
    assert result.returncode == 0, result.stderr
    return root


def _line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def _spec_line(root: Path, spec: str, needle: str) -> int:
    return _line_of(root / "specs" / spec, needle)


# (generated file, a line in it, spec file, the spec line it must trace to, field, rule word)
SAMPLES = [
    (
        "registry.py",
        '"DSparkV41DraftModel": (',
        "deepseek_v41.yaml",
        "  DSparkV41DraftModel:",
        "architectures.DSparkV41DraftModel",
        "plan.registry",
    ),
    (
        "backends.py",
        "return _sizes_for_device({90: [64]}, [128])",
        "deepseek_v41.yaml",
        "    kernel_block_sizes:\n",
        None,
        "plan.backends",
    ),
    (
        "dispatch.py",
        'return "DSparkV41DraftModel"',
        "deepseek_v41.yaml",
        "draft_architecture: DSparkV41DraftModel",
        "speculative.methods.dspark.draft_architecture",
        "plan.dispatch",
    ),
    (
        "speculative.py",
        'if target_model_type == "deepseek_v41" and method == "mtp":',
        "deepseek_v41.yaml",
        "use_instead: dspark",
        "speculative.forbidden.mtp",
        "plan.speculative",
    ),
    (
        "runner.py",
        'if adaptive_verification and cudagraph_mode.name in ["NONE", "PIECEWISE"]:',
        "deepseek_v4.yaml",
        "    adaptive_verification_without_full_cudagraphs:",
        "runner.forbidden_modes.adaptive_verification_without_full_cudagraphs",
        "plan.runner",
    ),
    (
        "checkpoint.py",
        'stage_prefix="mtp.{i}."',
        "deepseek_v4.yaml",
        "    classic_mtp:",
        "checkpoint.weight_sets.classic_mtp",
        "plan.checkpoint",
    ),
    (
        "kv_cache.py",
        'if model_type == "deepseek_v41" and compress_ratio not in',
        "deepseek_v41.yaml",
        "  unsupported_compress_ratio_message:",
        "kv_cache.unsupported_compress_ratio_message",
        "plan.kv_cache",
    ),
    (
        "mxfp8.py",
        "DEFAULT_BLOCK_K = ",
        "deepseek_v4.yaml",
        "      block_k:",
        "quantization.mxfp8.launch.block_k",
        "plan.mxfp8",
    ),
    (
        "_binding.py",
        "from vllm.v1.attention.backends.mla.indexer import DeepseekV32IndexerBackend",
        "deepseek_v4.yaml",
        "parent_module: vllm",
        "attention_backends.DeepseekV4IndexerBackend.parent_module",
        "plan.binding",
    ),
    (
        "csrc/deepseek_v41/rope_kv_config.h",
        "constexpr int kNopeDim",
        "deepseek_v4.yaml",
        "nope_dim: 448",
        "kernels.rope_kv_insert.nope_dim",
        "plan.rope_kv",
    ),
    (
        "csrc/deepseek_v41/rope_kv_config.h",
        "kernels.rope_kv_insert.num_heads_q_padded: the compiled",
        "deepseek_v4.yaml",
        "num_heads_q_padded: [",
        "kernels.rope_kv_insert.num_heads_q_padded",
        "plan.rope_kv",
    ),
    (
        "tests/test_runner.py",
        "def _config(",
        None,
        None,
        None,
        "plan.tests",
    ),
    (  # the case table and the test over it follow from the runner section as a whole
        "tests/test_runner.py",
        "def test_runner_rule(",
        "deepseek_v4.yaml",
        "runner:",
        "runner",
        "plan.tests",
    ),
]


@pytest.mark.parametrize(
    ("file", "needle", "spec", "spec_needle", "field", "rule"), SAMPLES, ids=[s[0] for s in SAMPLES]
)
def test_why_names_spec_line_and_rule(built, file, needle, spec, spec_needle, field, rule):
    path = Path("generated/deepseek_v4") / file
    line = _line_of(built / path, needle)
    result = run_cli(built, "why", f"{path}:{line}")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"{path}:{line}: ")
    assert f"rule:     {rule}" in out
    if spec is None:
        assert "spec:     (none" in out
        return
    match = re.search(r"spec:     specs/(\S+):(\d+):\d+  (\S+)", out)
    assert match, out
    assert match[1] == spec
    if spec_needle.endswith("\n"):  # a key that occurs more than once: the one inside the backend
        lines = (built / "specs" / spec).read_text().splitlines()
        start = _line_of(built / "specs" / spec, "  DeepseekV41IndexerBackend:")
        expected = (
            next(i for i in range(start, len(lines)) if "kernel_block_sizes:" in lines[i]) + 1
        )
    elif spec_needle == "use_instead: dspark":  # the key line above it: speculative.forbidden.mtp
        expected = _spec_line(built, spec, spec_needle) - 1
    else:
        expected = _spec_line(built, spec, spec_needle)
    assert int(match[2]) == expected
    if field:
        assert match[3] == field


def test_why_rejects_a_hand_written_file(built, tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n")
    result = run_cli(built, "why", f"{plain}:1")
    assert result.returncode == 2
    assert "not a dsv41gen-generated file" in result.stderr


@pytest.mark.parametrize(
    "target",
    [
        "generated/deepseek_v4/registry.py",
        "generated/deepseek_v4/registry.py:0",
        "generated/deepseek_v4/registry.py:99999",
    ],
)
def test_why_usage_errors(built, target):
    result = run_cli(built, "why", target)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
