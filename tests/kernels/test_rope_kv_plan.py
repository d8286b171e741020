"""Planner and rendered text of the fused RoPE + KV insert: what the spec decides shows up."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys

import pytest

from dsv41gen.plan.rope_kv import KV_OP_SCHEMA, RopeKvPlanError, plan_rope_kv, render_rope_kv

V4 = "deepseek_v4"
V41 = "deepseek_v41"


def test_instantiations_follow_the_spec(rope_kv_plans):
    plan = rope_kv_plans[V41]
    assert plan.heads == (0, 8, 16, 32, 64, 128)
    assert [u.file_name for u in plan.units][:2] == ["rope_kv_inst_h0.cu", "rope_kv_inst_h8.cu"]
    kv_only = plan.units[0]
    assert kv_only.apply_q_norm == (False,)  # the KV-only insert has no Q to normalise
    assert all(u.apply_q_norm == (False, True) for u in plan.units[1:])
    assert len(plan.instantiations) == 2 * (1 + 5 * 2) * 4
    assert {c.spec_name for c in rope_kv_plans[V4].caches} == {"bf16", "fp8", "fp8_ds_mla"}


def test_dispatch_error_lists_the_compiled_set(rope_kv_plans, rope_kv_spec_loader):
    plan = rope_kv_plans[V41]
    dispatch = render_rope_kv(plan)[f"{plan.csrc_dir}/rope_kv_dispatch.cu"]
    message = "unsupported num_heads_q_padded=%d (compiled instantiations: 0, 8, 16, 32, 64, 128)."
    assert f'"{message}"' in dispatch
    reduced = plan_rope_kv(
        dataclasses.replace(rope_kv_spec_loader(V41), num_heads_q_padded=(8, 0, 128)), V41
    )
    assert reduced.unsupported_heads_format.endswith("(compiled instantiations: 0, 8, 128).")
    text = render_rope_kv(reduced)
    assert sorted(p for p in text if "inst_h" in p) == [
        f"{plan.csrc_dir}/rope_kv_inst_h0.cu",
        f"{plan.csrc_dir}/rope_kv_inst_h128.cu",
        f"{plan.csrc_dir}/rope_kv_inst_h8.cu",
    ]
    assert "case 16:" not in text[f"{plan.csrc_dir}/rope_kv_dispatch.cu"]


def test_grid_rule_and_constants_reach_the_kernel(rope_kv_plans):
    plan = rope_kv_plans[V41]
    kernel = render_rope_kv(plan)[f"{plan.csrc_dir}/rope_kv_kernel.cuh"]
    assert "kNumHeadsQPadded == 0 || num_tokens < kNumTokenCutoff" in kernel
    common = render_rope_kv(plan)[f"{plan.csrc_dir}/rope_kv_common.h"]
    assert "constexpr int kNumTokenCutoff = 1024;" in common
    assert "constexpr int kThreadsPerBlock = 256;" in common
    assert (plan.fp8_max_exponent, plan.fp8_max_mantissa_field) == (8, 0x600000)  # 1.75 * 2^8


def test_kernels_are_one_copy_shared_by_the_variants(rope_kv_plans):
    """The kernels and launcher live in csrc/rope_kv_core.cuh, identical for V4 and V4.1 (it is
    rendered without a plan); each variant's header declares its own constants, cache traits and
    grid rule, then expands the core in its namespace."""
    v4, v41 = (render_rope_kv(rope_kv_plans[v]) for v in (V4, V41))
    core = "csrc/rope_kv_core.cuh"
    assert v4[core] == v41[core]
    assert "__global__ void __launch_bounds__(kThreadsPerBlock)" in v4[core]
    # no namespace of its own and no includes: it expands inside a variant's namespace
    assert not re.search(r"^\s*(namespace\s+\w|#include)", v4[core], re.MULTILINE)
    for variant, text in ((V4, v4), (V41, v41)):
        header = text[f"csrc/{variant}/rope_kv_kernel.cuh"]
        assert header.index("struct CacheTraits<CacheKind::kBf16>") < header.index(
            '#include "../rope_kv_core.cuh"'
        )
        assert f"namespace dsv41gen_{variant}::rope_kv {{" in header
    assert "CacheKind::kMxfp8" in v41[f"csrc/{V41}/rope_kv_kernel.cuh"]
    assert "CacheKind::kMxfp8" not in v4[f"csrc/{V4}/rope_kv_kernel.cuh"]


def test_the_family_writes_the_core_once(tmp_path):
    from pathlib import Path

    from dsv41gen.pipeline import build_texts

    spec = Path(__file__).resolve().parents[2] / "specs" / "deepseek_v41.yaml"
    (result,) = build_texts((spec,), tmp_path)
    cores = [path for path in result.files if path.endswith("rope_kv_core.cuh")]
    assert cores == ["deepseek_v4/csrc/rope_kv_core.cuh"]


def test_bindings_schemas_and_checks(rope_kv_plans):
    v41 = rope_kv_plans[V41]
    bindings = render_rope_kv(v41)[f"{v41.csrc_dir}/rope_kv_bindings.cpp"]
    # reference §7, verbatim
    assert KV_OP_SCHEMA == (
        "fused_deepseek_v4_kv_rope_insert(Tensor kv, Tensor! k_cache, Tensor slot_mapping, "
        "Tensor position_ids, Tensor cos_sin_cache, int cache_block_size, Tensor? fp8_scale=None, "
        "bool kv_mxfp8=False) -> ()"
    )
    assert f'm.def("{KV_OP_SCHEMA}");' in bindings
    for text in (
        "kv must be bfloat16 or float16",
        "k_cache.size(2) must be 584 for the fp8_ds_mla cache format",
        "pass kv_mxfp8=True",
        "k_cache.size(2) must be 528 for the mxfp8 cache format",
        "cache needs fp8_scale",
        "k_cache.size(1) is ",
        "only padded rows may be left out of slot_mapping",
        "position_ids must cover every kv row",
    ):
        assert text in bindings, text
    v4 = rope_kv_plans[V4]
    v4_bindings = render_rope_kv(v4)[f"{v4.csrc_dir}/rope_kv_bindings.cpp"]
    assert "kv_mxfp8=True, but variant deepseek_v4 has no mxfp8 cache format" in v4_bindings
    assert "528" not in v4_bindings


@pytest.mark.parametrize(
    "change, message",
    [
        ({"head_dim": 256, "nope_dim": 192}, "head_dim must be 512"),
        ({"nope_dim": 440, "rope_dim": 72}, "nope_dim must be a multiple of 16"),
        ({"num_heads_q_padded": ()}, "num_heads_q_padded"),
        ({"fp8_max": 448.1}, "not exactly representable"),
    ],
)
def test_plan_rejects_what_the_kernel_cannot_do(rope_kv_spec_loader, change, message):
    with pytest.raises(RopeKvPlanError, match=message):
        plan_rope_kv(dataclasses.replace(rope_kv_spec_loader(V41), **change), V41)


@pytest.mark.parametrize(
    "change, field, message",
    [
        ({"head_dim": 256, "nope_dim": 192}, ("head_dim",), "implements head_dim 512"),
        ({"nope_dim": 440, "rope_dim": 72}, ("nope_dim",), "not a multiple of 16"),
        ({"fp8_max": 448.1}, ("fp8_max",), "not exactly a float32 value"),
    ],
)
def test_validation_rejects_what_the_kernel_cannot_do(rope_kv_spec_loader, change, field, message):
    """capabilities.ROPE_KV, checked by validation at the field; the planner is not reached."""
    from dsv41gen.validate import check_rope_kv_capabilities

    found = []
    kernel = dataclasses.replace(rope_kv_spec_loader(V41), **change)
    check_rope_kv_capabilities(kernel, lambda path, text: found.append((path, text)))
    assert [path for path, _ in found] == [field]
    assert message in found[0][1]


def test_validation_checks_each_cache_format_at_its_field(rope_kv_spec_loader):
    from dsv41gen.validate import check_rope_kv_capabilities

    kernel = rope_kv_spec_loader(V41)
    broken = tuple(
        dataclasses.replace(f, scale_group=48, per_tensor_scale=True) if f.name == "mxfp8" else f
        for f in kernel.cache_formats
    )
    found = []
    check_rope_kv_capabilities(
        dataclasses.replace(kernel, cache_formats=broken), lambda path, text: found.append(path)
    )
    assert found == [
        ("cache_formats", "mxfp8", "scale_group"),
        ("cache_formats", "mxfp8", "per_tensor_scale"),
    ]
    found.clear()
    check_rope_kv_capabilities(kernel, lambda path, text: found.append(path))
    assert found == []


def test_plan_rejects_an_inconsistent_cache_format(rope_kv_spec_loader):
    kernel = rope_kv_spec_loader(V41)
    broken = tuple(
        dataclasses.replace(f, scale_bytes=4) if f.name == "mxfp8" else f
        for f in kernel.cache_formats
    )
    with pytest.raises(RopeKvPlanError, match="cache_formats.mxfp8"):
        plan_rope_kv(dataclasses.replace(kernel, cache_formats=broken), V41)


def test_rendering_is_deterministic(rope_kv_plans):
    for plan in rope_kv_plans.values():
        assert render_rope_kv(plan) == render_rope_kv(plan)


def ruff() -> list[str] | None:
    if shutil.which("ruff"):
        return ["ruff"]
    probe = subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True)
    return [sys.executable, "-m", "ruff"] if probe.returncode == 0 else None


def test_rendered_python_is_ruff_clean(rope_kv_rendered):
    tool = ruff()
    if tool is None:
        pytest.skip("ruff is not installed")
    files = [str(p) for d in rope_kv_rendered.values() for p in sorted(d.glob("*.py"))]
    # per variant: its loader, its reference and the shared reference
    assert len(files) == 3 * len(rope_kv_rendered)
    fmt = subprocess.run(
        [*tool, "format", "--check", "--line-length", "100", *files], capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    lint = subprocess.run(
        [*tool, "check", "--line-length", "100", *files], capture_output=True, text=True
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr


@pytest.mark.parametrize(
    "value, ok",
    [(448, True), (240, True), (224, True), (0.015625, True), (300, False), (449, False),
     (452, False), (2.0**-10, False)],
)  # fmt: skip
def test_fp8_max_must_be_an_e4m3_value(value, ok):
    """fp8_max is the kernel's saturation bound for e4m3 values, so it must be one (<= 448)."""
    from dsv41gen.validate import _check_fp8_max

    found = []
    _check_fp8_max({"fp8_max": value}, ("k",), lambda path, text: found.append((path, text)))
    assert (not found) == ok, found
    if found:
        assert found[0][0] == ("k", "fp8_max") and "float8_e4m3fn" in found[0][1]


def test_each_cache_kind_states_its_numerics():
    """A format must state the numerics fields its kind uses (ref §0) and no others."""
    from dsv41gen.validate import _check_cache_numerics

    found = []
    fmt = {"kind": "mxfp8", "rope_contraction": "fma", "per_tensor_scaling": "divide"}
    _check_cache_numerics("mxfp8", fmt, ("f",), lambda path, text: found.append((path, text)))
    texts = [t for _, t in found]
    assert any("round_before_quantize" in t for t in texts)
    assert any("amax_floor" in t for t in texts)
    assert (
        ("f", "per_tensor_scaling"),
        "a mxfp8 cache format has no use for `per_tensor_scaling`; remove it",
    ) in found
