"""Planner of the MXFP8 emitter: constants derived from the spec, and formats it refuses."""

from __future__ import annotations

import dataclasses

import pytest

from dsv41gen.model import (
    AmaxFloor,
    MxFormat,
    MxLaunch,
    ScalarType,
    ScaleEncoding,
    ScaleLayout,
    ScalingForm,
)
from dsv41gen.plan.mxfp8 import plan_mxfp8

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


def test_row_major_only_has_no_swizzle_code():
    plan = plan_mxfp8(dataclasses.replace(FMT, layouts=(ScaleLayout.ROW_MAJOR,)), "m")
    assert [layout.name for layout in plan.layouts] == ["row_major"]
    assert not any(x.name.startswith("SWIZZLE") for x in plan.constants)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"value_max": 240.0}, "value_max 240.0 must be the largest finite"),
        ({"block_size": 16}, "block_size must be 32"),
        ({"scale_max": 255}, "scale clamp must lie in"),
        ({"scale_bias": 126}, "scale_bias must be 127"),
        ({"launch": MxLaunch(block_m=6, block_k=1024, num_warps=4)}, "powers of two"),
        ({"launch": MxLaunch(block_m=8, block_k=1024, num_warps=3)}, "num_warps"),
        ({"layouts": ()}, "non-empty"),
    ],
)
def test_rejects(change, message):
    with pytest.raises(ValueError, match=message):
        plan_mxfp8(dataclasses.replace(FMT, **change), "mxfp8")
