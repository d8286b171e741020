"""Plan for the Triton MX quantization emitter (MXFP8: e4m3 values, E8M0 scales).

Every number the generated kernels use is decided here, in Python, from the typed ``MxFormat``;
the templates only print what this plan holds. The arithmetic the plan encodes is exact by
construction, so the same code path is bit-exact in the Triton interpreter and on the GPU:

* Input is widened to fp32 *bit patterns* (bf16 through ``int16 << 16``), never through a
  float conversion that may mishandle subnormals.
* ``amax`` is an integer max over ``bits & 0x7FFFFFFF``: positive floats order like their bit
  patterns, NaN sorts above inf, so non-finite blocks are detected in the same reduction.
* The shared exponent ``sb = clamp(ceil(log2(amax / value_max)) + bias)`` is computed from the
  exponent and mantissa fields of ``amax`` (no log2, no division): ``amax <= value_max * 2^n``
  holds for the smallest ``n`` by comparing the mantissa with value_max's mantissa.
* The reciprocal ``2^(bias - sb)`` is assembled from exponent bits. Finite inputs reach only
  ``sb <= 247`` (NaN ``amax`` 248), so it is a normal fp32 for every reachable ``sb``.
* Rounding to the value grid is done on integers (normal range: add half-ulp-minus-one plus the
  kept LSB, shift) or by one fp32 add of a normal magic constant (subnormal range), and the code
  byte is stored as uint8: no float -> fp8 cast, whose interpreter emulation is inexact.
"""

from __future__ import annotations

import enum
import math
import struct
from dataclasses import dataclass

from dsv41gen import capabilities
from dsv41gen.codegen_values import (
    Comment,
    DocText,
    DottedPath,
    Identifier,
    PyCode,
    PyLiteral,
    PyMessage,
)
from dsv41gen.errors import assert_never
from dsv41gen.model import (
    AmaxFloor,
    MxFormat,
    ScalarType,
    ScaleLayout,
    ScalingForm,
)

FP32_BIAS = 127
FP32_MANT_BITS = 23


@dataclass(frozen=True)
class ValueFormat:
    """Bit layout of a narrow float value type (OCP fp8 'fn' style: no inf, one NaN code)."""

    exp_bits: int
    mant_bits: int
    exp_bias: int
    max_finite: float
    torch_dtype: str
    triton_dtype: str


# The value types this emitter can produce. E4M3FN: bias 7, no infinities, S.1111.111 is NaN.
VALUE_FORMATS: dict[ScalarType, ValueFormat] = {
    ScalarType.FLOAT8_E4M3FN: ValueFormat(
        exp_bits=4,
        mant_bits=3,
        exp_bias=7,
        max_finite=448.0,
        torch_dtype="torch.float8_e4m3fn",
        triton_dtype="tl.float8e4nv",
    ),
}


class Widen(enum.Enum):
    """How the quantize kernel turns one loaded input element into fp32 bits."""

    BF16_BITS = "bf16_bits"  # bitcast the load to int16, shift into the high half of an int32
    FP16_CONVERT = "fp16_convert"  # fp16 -> fp32 is exact (every fp16 is a normal fp32)
    FP32_BITS = "fp32_bits"  # bitcast the loaded fp32 to int32


class Narrow(enum.Enum):
    """How the dequantize kernel stores an fp32 result into the output dtype."""

    BF16_BITS = "bf16_bits"  # round-to-nearest-even on the bit pattern, store it bitcast to bf16
    FP16_CONVERT = "fp16_convert"  # fp32 -> fp16 conversion (RNE on both targets)
    FP32_BITS = "fp32_bits"  # store the bits bitcast to fp32


@dataclass(frozen=True)
class Constant:
    """A module-level ``tl.constexpr`` of the generated kernel module."""

    name: str
    literal: str  # Python literal, already formatted as ruff would
    source: str  # the spec field (or format fact) it comes from, printed as a comment

    # what the templates print
    @property
    def name_id(self) -> Identifier:
        return Identifier(self.name)

    @property
    def literal_py(self) -> PyCode:
        return PyCode(self.literal)  # the planner formatted it from numbers and dtype names

    @property
    def source_comment(self) -> Comment:
        return Comment(self.source)


@dataclass(frozen=True)
class IoDtype:
    torch_dtype: str  # e.g. "torch.bfloat16"
    kind: int  # the constexpr the kernel dispatches on
    kind_name: str  # name of that constexpr, e.g. "DTYPE_BF16"
    widen: Widen
    narrow: Narrow

    @property
    def torch_dtype_py(self) -> DottedPath:
        return DottedPath(self.torch_dtype)

    @property
    def kind_name_id(self) -> Identifier:
        return Identifier(self.kind_name)


class LayoutForm(enum.Enum):
    ROW_MAJOR = "row_major"  # scales[..., m, k // 32]
    TILED = "tiled"  # 128x4 tiles of 512 contiguous bytes, (m % 32) * 16 + (m // 32) * 4 + k % 4


@dataclass(frozen=True)
class LayoutPlan:
    name: str  # the string users pass: "row_major" / "swizzled_128x4"
    form: LayoutForm
    kind: int
    kind_name: str  # constexpr name, e.g. "LAYOUT_ROW_MAJOR"
    row_tile: int  # scale rows are padded to a multiple of this (1: no padding)
    col_tile: int  # scale columns are padded to a multiple of this

    @property
    def name_py(self) -> PyLiteral:
        return PyLiteral(self.name)

    @property
    def name_comment(self) -> Comment:
        return Comment(self.name)

    @property
    def kind_name_id(self) -> Identifier:
        return Identifier(self.kind_name)


@dataclass(frozen=True)
class Mxfp8Plan:
    module_name: str
    reference_module_name: str
    format_name: str
    block_size: int
    value_dtype: str  # torch dtype of xq
    value_triton_dtype: str  # the same type in triton.language
    value_max: float
    value_mant_bits: int
    value_exp_bias: int
    value_min_normal_exp: int  # e4m3: -6
    value_min_subnormal_exp: int  # e4m3: -9
    value_nan_code: int  # 0x7F
    scale_dtype: str  # torch dtype of scales
    scale_bias: int
    scale_min: int
    scale_max: int
    scale_nan: int  # E8M0 NaN code, used for blocks holding NaN or +-inf
    reachable_scale_max: int  # largest sb a finite block produces (247 for e4m3 / 448)
    reachable_scale_max_nan: int  # largest clamped sb any input produces before the NaN select
    constants: tuple[Constant, ...]
    reference_constants: tuple[Constant, ...]
    dtypes: tuple[IoDtype, ...]
    layouts: tuple[LayoutPlan, ...]
    block_m: int
    block_k: int
    num_warps: int
    max_grid_batch: int  # CUDA grid dimension z limit (batch axis)
    # documented round-trip bound: |dq - x| <= max(|x| * 2^-rel_exp, 2^(sb - bias + abs_exp))
    round_trip_rel_exp: int
    round_trip_abs_exp: int

    # what the templates print
    @property
    def format_doc(self) -> DocText:
        return DocText(self.format_name)

    @property
    def fail_message(self) -> PyMessage:
        return PyMessage((f"{self.format_name} ", PyCode("what"), ": ", PyCode("message")))

    @property
    def value_dtype_py(self) -> DottedPath:
        return DottedPath(self.value_dtype)

    @property
    def value_triton_dtype_py(self) -> DottedPath:
        return DottedPath(self.value_triton_dtype)

    @property
    def scale_dtype_py(self) -> DottedPath:
        return DottedPath(self.scale_dtype)


def _hex(value: int) -> str:
    """Hex literal the way ruff format writes it (lowercase prefix, uppercase digits)."""
    if value < 0:
        return "-0x" + format(-value, "X")
    return "0x" + format(value, "X")


def _float_literal(value: float) -> str:
    return repr(float(value))


def _fp32_bits(value: float) -> int:
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    return bits


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def plan_mxfp8(
    fmt: MxFormat, module_name: str, reference_module_name: str | None = None
) -> Mxfp8Plan:
    """Turn the typed MX format into everything the kernel and reference templates print.

    The format is validated against ``capabilities.MXFP8`` (validate.py) before planning; what
    this emitter cannot generate exactly never reaches it, so a failed assertion here is a bug.
    """
    caps = capabilities.MXFP8
    match fmt.scaling:
        case ScalingForm.MULTIPLY_RECIPROCAL:
            pass
        case _:
            assert_never(fmt.scaling)
    match fmt.amax_floor:
        case AmaxFloor.FP32_TINY:
            pass
        case _:
            assert_never(fmt.amax_floor)
    assert fmt.scale_encoding in caps.scale_encodings and fmt.scale_dtype in caps.scale_dtypes
    assert fmt.block_size in caps.block_sizes and fmt.scale_bias == caps.scale_bias
    assert caps.value_max.get(fmt.value_dtype) == fmt.value_max
    assert caps.scale_byte_range[0] <= fmt.scale_min <= fmt.scale_max <= caps.scale_byte_range[1]
    vf = VALUE_FORMATS[fmt.value_dtype]
    launch = fmt.launch
    assert _is_pow2(launch.block_m) and _is_pow2(launch.block_k) and _is_pow2(launch.num_warps)
    assert launch.block_k % fmt.block_size == 0 and launch.num_warps <= caps.max_num_warps
    e8m0_nan = (1 << 8) - 1

    # value_max = vm_mant * 2^vm_exp with vm_mant in [1, 2).
    vm_mant, vm_exp2 = math.frexp(fmt.value_max)  # vm_mant in [0.5, 1)
    vm_exp = vm_exp2 - 1
    vm_mant_field = _fp32_bits(fmt.value_max) & ((1 << FP32_MANT_BITS) - 1)
    # sb = n + bias with n the smallest integer such that amax <= value_max * 2^n. With
    # amax = (1 + f) * 2^(E - 127): n = E - 127 - vm_exp, plus one when f > value_max's fraction.
    sb_offset = fmt.scale_bias - FP32_BIAS - vm_exp

    def sb_of(biased_exp: int, mant_field: int) -> int:
        raw = biased_exp + sb_offset + (1 if mant_field > vm_mant_field else 0)
        return min(max(raw, fmt.scale_min), fmt.scale_max)

    # Largest finite amax: biased exponent 254; NaN amax: biased exponent 255, any mantissa.
    reachable_max = sb_of(254, (1 << FP32_MANT_BITS) - 1)
    reachable_max_nan = sb_of(255, (1 << FP32_MANT_BITS) - 1)
    rescale_exp_base = FP32_BIAS + fmt.scale_bias  # bits of 2^(bias - sb) = (base - sb) << 23
    # Subnormal safety of the reciprocal: its biased exponent must be >= 1 for every sb the
    # kernel can compute (the NaN select happens after the multiply).
    assert rescale_exp_base - max(reachable_max, reachable_max_nan) >= 1, "subnormal 2^(bias - sb)"

    min_normal_exp = 1 - vf.exp_bias  # e4m3: -6
    min_sub_exp = min_normal_exp - vf.mant_bits  # e4m3: -9
    round_shift = FP32_MANT_BITS - vf.mant_bits  # 20
    value_sign = 1 << (vf.exp_bits + vf.mant_bits)
    value_nan = value_sign - 1  # S.1111.111 without the sign

    sec = f"quantization.{fmt.name}"
    src_vd = f"{sec}.value_dtype"
    # spec values both the kernels and the reference print
    block_size = Constant("BLOCK_SIZE", str(fmt.block_size), f"{sec}.block_size")
    value_max = Constant("VALUE_MAX", _float_literal(fmt.value_max), f"{sec}.value_max")
    scale_bias = Constant("SCALE_BIAS", str(fmt.scale_bias), f"{sec}.scale.bias")
    scale_min = Constant("SCALE_MIN", str(fmt.scale_min), f"{sec}.scale.min")
    scale_max = Constant("SCALE_MAX", str(fmt.scale_max), f"{sec}.scale.max")
    scale_nan = Constant("SCALE_NAN", str(e8m0_nan), f"{sec}.scale.encoding: the E8M0 NaN code")
    c = [
        block_size,
        Constant("FP32_ABS_MASK", _hex(0x7FFFFFFF), "fp32 format: all bits but the sign"),
        Constant("FP32_MANT_BITS", str(FP32_MANT_BITS), "fp32 format"),
        Constant("FP32_MANT_MASK", _hex((1 << FP32_MANT_BITS) - 1), "fp32 format"),
        Constant("FP32_EXP_MASK", _hex(0xFF << FP32_MANT_BITS), "fp32 format"),
        Constant("FP32_SIGN_MASK", _hex(-(1 << 31)), "fp32 format: the sign bit, as an int32"),
        Constant(
            "FP32_NONFINITE_BITS", _hex(0x7F800000), "fp32 format: |x| bits >= this is inf or NaN"
        ),
        Constant(
            "AMAX_FLOOR_BITS",
            _hex(1 << FP32_MANT_BITS),
            f"{sec}.amax_floor (fp32_tiny = 2^-126)",
        ),
        Constant(
            "VALUE_MAX_MANT",
            _hex(vm_mant_field),
            f"{sec}.value_max ({fmt.value_max:g} = {vm_mant * 2:g} * 2^{vm_exp}): fraction bits",
        ),
        Constant(
            "SCALE_OFFSET",
            str(sb_offset),
            f"{sec}.scale.bias - 127 - floor(log2({sec}.value_max))",
        ),
        scale_min,
        scale_max,
        scale_nan,
        Constant(
            "RESCALE_EXP_BASE",
            str(rescale_exp_base),
            f"127 + {sec}.scale.bias: bits of 2^(bias - sb) are (base - sb) << 23",
        ),
        Constant(
            "VALUE_MIN_NORMAL_BITS",
            _hex((FP32_BIAS + min_normal_exp) << FP32_MANT_BITS),
            f"{src_vd}: smallest normal 2^{min_normal_exp} as fp32 bits",
        ),
        Constant(
            "VALUE_MAGIC_OFFSET",
            _hex((round_shift << FP32_MANT_BITS) | (1 << (FP32_MANT_BITS - 1))),
            f"{src_vd}: magic = 1.5 * 2^(e + 23 - mantissa bits), ulp = grid step at 2^e",
        ),
        value_max,
        Constant("VALUE_NAN", _hex(value_nan), f"{src_vd}: the NaN code (no infinities)"),
        Constant("FP32_BIAS", str(FP32_BIAS), "fp32 format"),
        Constant("FP32_QNAN_BITS", _hex(0x7FC00000), "fp32 format: the quiet NaN torch produces"),
        scale_bias,
        Constant("BF16_SHIFT", "16", "bf16 is the high half of an fp32"),
        Constant("BF16_ROUND_HALF", _hex(0x7FFF), "bf16 narrowing: half an ulp minus one"),
    ]
    if ScaleLayout.SWIZZLED_128X4 in fmt.layouts:
        c += [
            Constant("SWIZZLE_ROWS", "128", f"{sec}.layouts: swizzled_128x4 tile rows"),
            Constant("SWIZZLE_COLS", "4", f"{sec}.layouts: swizzled_128x4 tile columns"),
            Constant(
                "SWIZZLE_ROW_GROUP", "32", "swizzled_128x4: rows m and m + 32 are 16 bytes apart"
            ),
            Constant("SWIZZLE_TILE_BYTES", "512", "swizzled_128x4: bytes per 128x4 tile"),
        ]
    ref = [
        block_size,
        Constant("VALUE_DTYPE", vf.torch_dtype, src_vd),
        value_max,
        scale_bias,
        scale_min,
        scale_max,
        scale_nan,
    ]

    dtypes = (
        IoDtype("torch.bfloat16", 0, "DTYPE_BF16", Widen.BF16_BITS, Narrow.BF16_BITS),
        IoDtype("torch.float16", 1, "DTYPE_FP16", Widen.FP16_CONVERT, Narrow.FP16_CONVERT),
        IoDtype("torch.float32", 2, "DTYPE_FP32", Widen.FP32_BITS, Narrow.FP32_BITS),
    )
    layout_tiles = {ScaleLayout.ROW_MAJOR: (1, 1), ScaleLayout.SWIZZLED_128X4: (128, 4)}
    assert fmt.layouts and len(set(fmt.layouts)) == len(fmt.layouts)  # the schema's rule
    layouts = tuple(
        LayoutPlan(
            name=layout.value,
            form=LayoutForm.ROW_MAJOR if layout is ScaleLayout.ROW_MAJOR else LayoutForm.TILED,
            kind=i,
            kind_name="LAYOUT_" + layout.value.upper(),
            row_tile=layout_tiles[layout][0],
            col_tile=layout_tiles[layout][1],
        )
        for i, layout in enumerate(fmt.layouts)
    )
    return Mxfp8Plan(
        module_name=module_name,
        reference_module_name=reference_module_name or module_name + "_reference",
        format_name=fmt.name,
        block_size=fmt.block_size,
        value_dtype=vf.torch_dtype,
        value_triton_dtype=vf.triton_dtype,
        value_max=fmt.value_max,
        value_mant_bits=vf.mant_bits,
        value_exp_bias=vf.exp_bias,
        value_min_normal_exp=min_normal_exp,
        value_min_subnormal_exp=min_sub_exp,
        value_nan_code=value_nan,
        scale_dtype="torch.uint8",
        scale_bias=fmt.scale_bias,
        scale_min=fmt.scale_min,
        scale_max=fmt.scale_max,
        scale_nan=e8m0_nan,
        reachable_scale_max=reachable_max,
        reachable_scale_max_nan=reachable_max_nan,
        constants=tuple(c),
        reference_constants=tuple(ref),
        dtypes=dtypes,
        layouts=layouts,
        block_m=launch.block_m,
        block_k=launch.block_k,
        num_warps=launch.num_warps,
        max_grid_batch=65535,
        round_trip_rel_exp=vf.mant_bits + 1,
        round_trip_abs_exp=min_sub_exp - 1,
    )
