"""Planner of the MXFP8 emitter: constants derived from the spec, and formats it refuses."""

from __future__ import annotations

import dataclasses

import pytest

from dsv41gen.plan.mxfp8 import plan_mxfp8
from dsv41gen.spec.model import (
    AmaxFloor,
    MxFormat,
    MxLaunch,
    ScalarType,
    ScaleEncoding,
    ScaleLayout,
    ScalingForm,
)
from dsv41gen.spec.validate import check_mx_capabilities

FMT = MxFormat(
    name="mxfp8",
    block_size=32,
    value_dtype=ScalarType.FLOAT8_E4M3FN,
    value_max=448.0,
    scale_encoding=ScaleEncoding.E8M0,
    scale_dtype=ScalarType.UINT8,
    scale_bias=127,
    scale_min=0,
    scale_max=254,
    scaling=ScalingForm.MULTIPLY_RECIPROCAL,
    amax_floor=AmaxFloor.FP32_TINY,
    layouts=(ScaleLayout.ROW_MAJOR, ScaleLayout.SWIZZLED_128X4),
    launch=MxLaunch(block_m=8, block_k=1024, num_warps=4),
)


def test_derived_constants():
    plan = plan_mxfp8(FMT, "mxfp8")
    c = {x.name: x.literal for x in plan.constants}
    assert c["VALUE_MAX_MANT"] == "0x600000"  # 448 = 1.75 * 2^8
    assert c["SCALE_OFFSET"] == "-8"
    assert c["RESCALE_EXP_BASE"] == "254"
    assert c["VALUE_MIN_NORMAL_BITS"] == "0x3C800000"  # 2^-6
    assert c["VALUE_MAGIC_OFFSET"] == "0xA400000"  # (20 << 23) | (1 << 22)
    assert (plan.reachable_scale_max, plan.reachable_scale_max_nan) == (247, 248)
    assert (plan.block_m, plan.block_k, plan.num_warps) == (8, 1024, 4)
    assert plan.reference_module_name == "mxfp8_reference"
    # every constant names where it comes from
    assert all(x.source for x in plan.constants)


def test_the_constants_are_the_kernels_format_fields_in_order():
    """The generated module passes the plan's constants as keywords of the runtime kernels'
    Mxfp8Format: every field, each once (a missing one would fail at import)."""
    from dsv41gen.kernels.mxfp8 import Mxfp8Format
    from dsv41gen.kernels.mxfp8_reference import Mxfp8Reference

    plan = plan_mxfp8(FMT, "mxfp8")
    assert tuple(c.name for c in plan.constants) == Mxfp8Format._fields
    fields = {f.name for f in dataclasses.fields(Mxfp8Reference)} - {"layouts"}
    assert {c.name for c in plan.reference_constants} == fields


def test_the_value_types_are_the_kernels():
    from dsv41gen.kernels.mxfp8 import VALUE_TYPES
    from dsv41gen.plan.mxfp8 import VALUE_FORMATS

    assert {vf.name for vf in VALUE_FORMATS.values()} <= set(VALUE_TYPES)


def test_layouts_come_from_the_spec_in_order():
    plan = plan_mxfp8(dataclasses.replace(FMT, layouts=(ScaleLayout.ROW_MAJOR,)), "m")
    assert plan.layouts == ("row_major",)
    swapped = (ScaleLayout.SWIZZLED_128X4, ScaleLayout.ROW_MAJOR)
    assert plan_mxfp8(dataclasses.replace(FMT, layouts=swapped), "m").layouts == (
        "swizzled_128x4",
        "row_major",
    )


def test_the_plan_stamps_the_digests_of_the_runtime_sources():
    from dsv41gen.kernels import runtime

    plan = plan_mxfp8(FMT, "mxfp8")
    assert plan.kernel_digest == runtime.source_digest("mxfp8.py")
    assert plan.reference_digest == runtime.source_digest("mxfp8_reference.py")


def test_the_templates_hold_layout_only():
    """Issue 13: no branch and no name list in the MXFP8 templates; the kernels are the
    runtime source and the templates print the plan's tables."""
    import re
    from pathlib import Path

    templates = Path(__file__).resolve().parents[2] / "templates" / "triton"
    for name in ("mxfp8.py.j2", "mxfp8_reference.py.j2"):
        text = (templates / name).read_text()
        assert "{% if" not in text and "@triton.jit" not in text, name
        assert not re.search(r"\.value\b|\bin \[", text), name


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"value_max": 240.0}, ("value_max",), "largest finite value is 448, not 240"),
        ({"block_size": 16}, ("block_size",), "implements block_size 32"),
        ({"scale_max": 255}, ("scale", "max"), "must be at most 254"),
        ({"scale_bias": 126}, ("scale", "bias"), "E8M0 has bias 127, not 126"),
        ({"launch": MxLaunch(block_m=6, block_k=1024, num_warps=4)}, ("launch", "block_m"), "6"),
        ({"launch": MxLaunch(block_m=8, block_k=1024, num_warps=3)}, ("launch", "num_warps"), "3"),
        (
            {"launch": MxLaunch(block_m=8, block_k=1024, num_warps=64)},
            ("launch", "num_warps"),
            "32",
        ),
    ],
)
def test_validation_rejects_what_the_emitter_cannot_generate(change, field, message):
    """The emitter's capability table (capabilities.MXFP8) is checked by validation, each
    violation at its own field; the planner only asserts it."""
    found = []
    check_mx_capabilities(
        dataclasses.replace(FMT, **change), lambda path, text: found.append((path, text))
    )
    assert [path for path, _ in found] == [field]
    assert message in found[0][1]
    with pytest.raises(AssertionError):
        plan_mxfp8(dataclasses.replace(FMT, **change), "mxfp8")


def test_validation_reports_every_violation():
    found = []
    check_mx_capabilities(
        dataclasses.replace(FMT, block_size=16, scale_bias=126),
        lambda path, text: found.append(path),
    )
    assert found == [("block_size",), ("scale", "bias")]


def test_the_real_format_passes_validation():
    found = []
    check_mx_capabilities(FMT, lambda path, text: found.append(path))
    assert found == []
