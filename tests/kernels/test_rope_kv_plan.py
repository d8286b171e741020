"""Planner and rendered text of the fused RoPE + KV insert: what the spec decides shows up."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dsv41gen.emit.rope_kv import render_rope_kv
from dsv41gen.kernels.runtime import KERNELS_DIR as KERNELS
from dsv41gen.plan.rope_kv import plan_rope_kv

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


def config_of(plan) -> str:
    return render_rope_kv(plan)[f"{plan.csrc_dir}/rope_kv_config.h"]


def cpp_text(path: Path) -> str:
    """A C++ source with adjacent string literals joined (clang-format splits long ones) and
    runs of white space made one space."""
    text = re.sub(r'"\s*\n\s*"', "", path.read_text())
    return re.sub(r"\s+", " ", re.sub(r'\(\s*\n\s*"', '("', text))


def test_dispatch_error_lists_the_compiled_set(rope_kv_plans, rope_kv_spec_loader):
    plan = rope_kv_plans[V41]
    assert 'kNumHeadsQPaddedText[] = "0, 8, 16, 32, 64, 128";' in config_of(plan)
    assert "kNumHeadsQPadded[] = {0, 8, 16, 32, 64, 128};" in config_of(plan)
    dispatch = cpp_text(KERNELS / "rope_kv_dispatch.cu")
    assert '"unsupported num_heads_q_padded=" + std::to_string(q_head_padded)' in dispatch
    assert '" (compiled instantiations: " + kNumHeadsQPaddedText + ")."' in dispatch
    reduced = plan_rope_kv(
        dataclasses.replace(rope_kv_spec_loader(V41), num_heads_q_padded=(8, 0, 128)), V41
    )
    text = render_rope_kv(reduced)
    assert sorted(p for p in text if "inst_h" in p) == [
        f"{plan.csrc_dir}/rope_kv_inst_h0.cu",
        f"{plan.csrc_dir}/rope_kv_inst_h128.cu",
        f"{plan.csrc_dir}/rope_kv_inst_h8.cu",
    ]
    assert "kNumHeadsQPadded[] = {0, 8, 128};" in config_of(reduced)


def test_grid_rule_and_constants_reach_the_kernel(rope_kv_plans):
    config = config_of(rope_kv_plans[V41])
    assert "return kNumHeadsQPadded == 0 || num_tokens < kNumTokenCutoff;" in config
    assert "constexpr int kNumTokenCutoff = 1024;" in config
    assert "constexpr int kThreadsPerBlock = 256;" in config
    plan = rope_kv_plans[V41]
    assert (plan.fp8_max_exponent, plan.fp8_max_mantissa_field) == (8, 0x600000)  # 1.75 * 2^8


def test_variants_share_nothing_but_tables(rope_kv_plans):
    """Each variant's generated files are its own configuration (a header of constants and
    tables, instantiation lists, a Python module of values); the kernels, launcher, dispatch and
    bindings are dsv41gen's kernel sources, which no generated file holds."""
    v4, v41 = (render_rope_kv(rope_kv_plans[v]) for v in (V4, V41))
    assert not set(v4) & set(v41)
    for variant, text in ((V4, v4), (V41, v41)):
        assert set(text) == {
            f"csrc/{variant}/rope_kv_config.h",
            f"rope_kv_{variant}.py",
            *(f"csrc/{variant}/{u.file_name}" for u in rope_kv_plans[variant].units),
        }
        for path, body in text.items():
            assert "__global__" not in body and "TORCH_LIBRARY" not in body, path
        config = text[f"csrc/{variant}/rope_kv_config.h"]
        assert f"#define DSV41GEN_ROPE_KV_NAMESPACE dsv41gen_{variant}" in config
        assert config.index("#define DSV41GEN_ROPE_KV_NAMESPACE") < config.index(
            "#include <rope_kv_common.h>"
        )
        assert config.index("#include <rope_kv_common.h>") < config.index(
            "struct CacheTraits<CacheKind::kBf16>"
        )
        for unit in rope_kv_plans[variant].units:
            assert "#include <rope_kv_kernel.cuh>" in text[f"csrc/{variant}/{unit.file_name}"]
    assert "CacheKind::kMxfp8" in v41[f"csrc/{V41}/rope_kv_config.h"]
    assert "CacheKind::kMxfp8" not in v4[f"csrc/{V4}/rope_kv_config.h"]
    # the kernels expand inside the variant's namespace: the core has no namespace or include
    core = (KERNELS / "rope_kv_core.cuh").read_text()
    assert "__global__ void __launch_bounds__(kThreadsPerBlock)" in core
    assert not re.search(r"^\s*(namespace\s+\w|#include)", core, re.MULTILINE)
    kernel = (KERNELS / "rope_kv_kernel.cuh").read_text()
    assert (
        kernel.index("#ifndef DSV41GEN_ROPE_KV_NAMESPACE")  # the pre-included configuration's
        < kernel.index("namespace DSV41GEN_ROPE_KV_NAMESPACE::rope_kv {")
        < kernel.index("#include <rope_kv_core.cuh>")
    )


def test_a_build_writes_no_kernel_source(tmp_path):
    from dsv41gen.commands.pipeline import build_texts

    spec = Path(__file__).resolve().parents[2] / "specs" / "deepseek_v41.yaml"
    (result,) = build_texts((spec,), tmp_path)
    rope_kv = sorted(p for p in result.files if "rope_kv" in p)
    sources = {p.name for p in KERNELS.iterdir() if p.name.startswith("rope_kv")}
    assert rope_kv and not {Path(p).name for p in rope_kv} & sources
    for path in rope_kv:
        assert path.startswith(
            ("deepseek_v4/csrc/deepseek_v4/", "deepseek_v4/csrc/deepseek_v41/")
        ) or (
            path in ("deepseek_v4/rope_kv_deepseek_v4.py", "deepseek_v4/rope_kv_deepseek_v41.py")
        ), path
    pyproject = result.files["deepseek_v4/pyproject.toml"]
    assert 'dependencies = ["vllm==0.33.0", "dsv41gen==0.1.0"]' in pyproject


def test_bindings_schemas_and_checks(rope_kv_plans):
    bindings = cpp_text(KERNELS / "rope_kv_bindings.cpp")
    # reference §7, verbatim
    assert (
        'm.def("fused_deepseek_v4_kv_rope_insert(Tensor kv, Tensor! k_cache, Tensor slot_mapping, '
        "Tensor position_ids, Tensor cos_sin_cache, int cache_block_size, Tensor? fp8_scale=None, "
        'bool kv_mxfp8=False) -> ()");'
    ) in bindings
    for text in (
        '"kv must be ", kInputDtypesText,',
        '"k_cache.size(2) must be ", message_arg(width), " for the ", format.name,',
        '"; for a " + std::to_string(other.record_width) + "-byte " + other.name +',
        '") cache needs fp8_scale',
        '"k_cache.size(1) is "',
        "only padded rows may be left out of slot_mapping",
        "position_ids must cover every kv row",
        '"kv_mxfp8=True, but variant ", kVariant,',
    ):
        assert text in bindings, text
    v41, v4 = config_of(rope_kv_plans[V41]), config_of(rope_kv_plans[V4])
    assert 'kInputDtypesText[] = "bfloat16 or float16";' in v41
    assert 'kCacheFormatsText[] = "bf16, fp8, fp8_ds_mla, mxfp8";' in v41
    assert 'kCacheFormatsText[] = "bf16, fp8, fp8_ds_mla";' in v4
    assert "kRecordWidth = 528;" in v41 and "528" not in v4
    # the generated strings are typed C++ literals (dsv41gen.plan.values.CppString)
    assert 'kDescription[] = "448 e4m3 + 64 bf16 + 8 UE8M0 scale bytes (one per 64), ' in v41


@pytest.mark.parametrize(
    "change",
    [
        {"head_dim": 256, "nope_dim": 192},
        {"nope_dim": 440, "rope_dim": 72},
        {"num_heads_q_padded": ()},
        {"fp8_max": 448.1},
    ],
)
def test_the_planner_only_asserts(rope_kv_spec_loader, change):
    """What the kernel cannot do is a validation error (below); the planner only asserts it."""
    with pytest.raises(AssertionError):
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
    from dsv41gen.spec.validate import check_rope_kv_capabilities

    found = []
    kernel = dataclasses.replace(rope_kv_spec_loader(V41), **change)
    check_rope_kv_capabilities(kernel, lambda path, text: found.append((path, text)))
    assert [path for path, _ in found] == [field]
    assert message in found[0][1]


def test_validation_checks_each_cache_format_at_its_field(rope_kv_spec_loader):
    from dsv41gen.spec.validate import check_rope_kv_capabilities

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


def test_an_inconsistent_cache_format_is_a_validation_error(rope_kv_spec_loader):
    from dsv41gen.spec.validate.kernels import _check_cache_format

    kernel = rope_kv_spec_loader(V41)
    broken = tuple(
        dataclasses.replace(f, scale_bytes=4) if f.name == "mxfp8" else f
        for f in kernel.cache_formats
    )
    with pytest.raises(AssertionError, match="mxfp8"):
        plan_rope_kv(dataclasses.replace(kernel, cache_formats=broken), V41)
    found = []
    fmt = {
        "kind": "mxfp8", "cache_dtype": "uint8", "fp8_values": 512, "scale_group": 32,
        "scale_bytes": 4, "layout": "interleaved", "bytes_per_token": 516, "record_width": 516,
    }  # fmt: skip
    kv = {"head_dim": 512, "nope_dim": 448}
    _check_cache_format("mxfp8", fmt, kv, ("f",), lambda path, text: found.append((path, text)))
    assert found == [
        (("f", "scale_bytes"), "512 values in groups of 32 need 16 scale bytes, not 4")
    ]


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
    # per variant: its one Python module (loader and reference configuration)
    assert len(files) == len(rope_kv_rendered)
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
    from dsv41gen.spec.validate.kernels import _check_fp8_max

    found = []
    _check_fp8_max({"fp8_max": value}, ("k",), lambda path, text: found.append((path, text)))
    assert (not found) == ok, found
    if found:
        assert found[0][0] == ("k", "fp8_max") and "float8_e4m3fn" in found[0][1]


def test_each_cache_kind_states_its_numerics():
    """A format must state the numerics fields its kind uses (ref §0) and no others."""
    from dsv41gen.spec.validate.kernels import _check_cache_numerics

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


def test_non_finite_rules_are_stated_where_they_apply():
    """infinite_amax belongs to the block-scaled formats, fp8_nan to every format with e4m3
    values (issue 28); a bf16 cache has no use for either."""
    from dsv41gen.spec.validate.kernels import _check_cache_numerics

    def errors(kind, **fields):
        found = []
        fmt = {"kind": kind, **fields}
        _check_cache_numerics(kind, fmt, ("f",), lambda path, text: found.append((path, text)))
        return found

    stated = dict(rope_contraction="fma", round_before_quantize="input_dtype", amax_floor=1e-4)
    texts = [t for _, t in errors("fp8_ds_mla", **stated)]
    assert any("must state `infinite_amax`" in t for t in texts)
    assert any("must state `fp8_nan`" in t for t in texts)
    assert not errors("mxfp8", **stated, infinite_amax="nan_scale", fp8_nan="negative_max")
    fp8 = dict(rope_contraction="fma", round_before_quantize="none", per_tensor_scaling="divide")
    assert [p for p, _ in errors("fp8", **fp8, infinite_amax="nan_scale", fp8_nan="e4m3_nan")] == [
        ("f", "infinite_amax")
    ]
    assert [p for p, _ in errors("bf16", rope_contraction="fma", fp8_nan="negative_max")] == [
        ("f", "fp8_nan")
    ]


def test_the_specs_non_finite_rules_reach_the_kernel_config(rope_kv_plans):
    """Both specs state vLLM 0.33.0's rules; the plan carries them into CacheTraits."""
    for variant in ("deepseek_v4", "deepseek_v41"):
        for cache in rope_kv_plans[variant].caches:
            assert cache.nan_scale_for_inf == bool(cache.scale_group), cache.spec_name
            assert cache.nan_to_negative_max == bool(cache.fp8_values), cache.spec_name
        config = config_of(rope_kv_plans[variant])
        assert "kNanScaleForInf = true" in config and "kNanToNegativeMax = true" in config


def test_kernel_core_keeps_only_the_winning_paths():
    """The sweeps' losing candidates left rope_kv_core.cuh (issue 29): no -D tuning switch is
    read there any more; the sweeps compile their candidates from the commit that had them
    (benchmarks/sweep_rope_kv_kv_only.SWITCHES_COMMIT)."""
    from pathlib import Path

    core = Path(__file__).resolve().parents[2] / "dsv41gen" / "kernels" / "rope_kv_core.cuh"
    switches = sorted(set(re.findall(r"\bDSV41GEN_[A-Z0-9_]+", core.read_text())))
    assert switches == [], f"tuning switches left in {core.name}: {switches}"
