"""Plan for the MX quantization configuration (MXFP8: e4m3 values, E8M0 scales).

The kernels are an ordinary source file, ``dsv41gen/kernels/mxfp8.py``, and so is their torch
reference, ``dsv41gen/kernels/mxfp8_reference.py``; a family package gets, per distinct format,
two small generated modules that configure them. Every number the kernels read from that
configuration (the constexpr ``Mxfp8Format``) is decided here, in Python, from the typed
``MxFormat``; the templates only print what this plan holds. The arithmetic the plan encodes is
exact by construction, so the same code path is bit-exact in the Triton interpreter and on the
GPU:

* Input is widened to fp32 *bit patterns* (bf16 through ``int16 << 16``), never through a
  float conversion that may mishandle subnormals.
* ``amax`` is an integer max over ``bits & 0x7FFFFFFF``: positive floats order like their bit
  patterns, NaN sorts above inf, so non-finite blocks are detected in the same reduction.
* The shared exponent ``sb = clamp(ceil(log2(amax / value_max)) + bias)`` is computed from the
  exponent and mantissa fields of ``amax`` (no log2, no division): ``amax <= value_max * 2^n``
  holds for the smallest ``n`` by comparing the mantissa with value_max's mantissa.
* The reciprocal ``2^(bias - sb)`` is assembled from exponent bits. Finite inputs reach only
  ``sb <= 247`` (NaN ``amax`` 248), so it is a normal fp32 for every reachable ``sb``.
* Rounding to the value grid adds and subtracts a normal magic number whose fp32 ulp is the grid
  step, so the cast to the value type that follows is exact, the interpreter's too.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from dsv41gen.errors import assert_never
from dsv41gen.kernels import runtime
from dsv41gen.plan.values import PyCode, PyLiteral
from dsv41gen.spec import capabilities
from dsv41gen.spec.model import AmaxFloor, MxFormat, ScalarType, ScalingForm

FP32_BIAS = 127
FP32_MANT_BITS = 23
# the runtime sources under dsv41gen/kernels/ that the generated modules configure
KERNEL_SOURCE = "mxfp8.py"
REFERENCE_SOURCE = "mxfp8_reference.py"


@dataclass(frozen=True)
class ValueFormat:
    """Bit layout of a narrow float value type (OCP fp8 'fn' style: no inf, one NaN code)."""

    exp_bits: int
    mant_bits: int
    exp_bias: int
    max_finite: float
    name: str  # the torch dtype's name, and the kernels' VALUE_TYPES key


# The value types this emitter can produce. E4M3FN: bias 7, no infinities, S.1111.111 is NaN.
VALUE_FORMATS: dict[ScalarType, ValueFormat] = {
    ScalarType.FLOAT8_E4M3FN: ValueFormat(
        exp_bits=4,
        mant_bits=3,
        exp_bias=7,
        max_finite=448.0,
        name="float8_e4m3fn",
    ),
}


@dataclass(frozen=True)
class Constant:
    """One keyword argument of the generated configuration: a field of the kernels'
    ``Mxfp8Format`` or of the reference's ``Mxfp8Reference``."""

    name: str
    literal: str  # Python literal, already formatted as ruff would
    source: str  # the spec field (or format fact) it comes from, printed as a comment

    # what the templates print
    @property
    def literal_py(self) -> PyCode:
        return PyCode(self.literal)  # the planner formatted it from numbers and dtype names


@dataclass(frozen=True)
class Mxfp8Plan:
    module_name: str
    reference_module_name: str
    format_name: str
    block_size: int
    value_dtype: str  # name of the torch dtype of xq
    value_nan_code: int  # 0x7F
    scale_nan: int  # E8M0 NaN code, used for blocks holding NaN or +-inf
    reachable_scale_max: int  # largest sb a finite block produces (247 for e4m3 / 448)
    reachable_scale_max_nan: int  # largest clamped sb any input produces before the NaN select
    constants: tuple[Constant, ...]  # the fields of the kernels' Mxfp8Format, in order
    reference_constants: tuple[Constant, ...]  # the keyword arguments of Mxfp8Reference
    layouts: tuple[str, ...]  # the spec's scale layouts; the first is the default
    block_m: int
    block_k: int
    num_warps: int
    # documented round-trip bound: |dq - x| <= max(|x| * 2^-rel_exp, 2^(sb - bias + abs_exp))
    round_trip_rel_exp: int
    round_trip_abs_exp: int
    scale_bias: int
    # runtime.source_digest of the kernel and reference sources, checked at import
    kernel_digest: str
    reference_digest: str
    # the sources the digests cover, as the generated modules name them to require_sources
    kernel_source: str = KERNEL_SOURCE
    reference_source: str = REFERENCE_SOURCE


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
    """Turn the typed MX format into everything the configuration templates print.

    The format is validated against ``capabilities.MXFP8`` (spec/validate/capability_rules.py) before planning; what
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
            amax_floor_bits = 1 << FP32_MANT_BITS  # 2^-126, the smallest normal fp32
            amax_floor_doc = "fp32_tiny = 2^-126"
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
    assert fmt.layouts and len(set(fmt.layouts)) == len(fmt.layouts)  # the schema's rule
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
    value_nan = (1 << (vf.exp_bits + vf.mant_bits)) - 1  # S.1111.111 without the sign

    sec = f"quantization.{fmt.name}"
    src_vd = f"{sec}.value_dtype"
    # The kernels' Mxfp8Format, field by field (dsv41gen/kernels/mxfp8.py declares the order).
    constants = (
        Constant("BLOCK_SIZE", str(fmt.block_size), f"{sec}.block_size"),
        Constant("VALUE_TYPE", PyLiteral(vf.name).text, src_vd),
        Constant("VALUE_MAX", _float_literal(fmt.value_max), f"{sec}.value_max"),
        Constant(
            "VALUE_MAX_MANT",
            _hex(vm_mant_field),
            f"{sec}.value_max ({fmt.value_max:g} = {vm_mant * 2:g} * 2^{vm_exp}): fraction bits",
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
        Constant("VALUE_NAN", _hex(value_nan), f"{src_vd}: the NaN code (no infinities)"),
        Constant(
            "AMAX_FLOOR_BITS",
            _hex(amax_floor_bits),
            f"{sec}.amax_floor ({amax_floor_doc})",
        ),
        Constant("SCALE_BIAS", str(fmt.scale_bias), f"{sec}.scale.bias"),
        Constant("SCALE_MIN", str(fmt.scale_min), f"{sec}.scale.min"),
        Constant("SCALE_MAX", str(fmt.scale_max), f"{sec}.scale.max"),
        Constant("SCALE_NAN", str(e8m0_nan), f"{sec}.scale.encoding: the E8M0 NaN code"),
        Constant(
            "SCALE_OFFSET",
            str(sb_offset),
            f"{sec}.scale.bias - 127 - floor(log2({sec}.value_max))",
        ),
        Constant(
            "RESCALE_EXP_BASE",
            str(rescale_exp_base),
            f"127 + {sec}.scale.bias: bits of 2^(bias - sb) are (base - sb) << 23",
        ),
    )
    reference_constants = (
        Constant("block_size", str(fmt.block_size), f"{sec}.block_size"),
        Constant("value_dtype", PyLiteral(vf.name).text, src_vd),
        Constant("value_max", _float_literal(fmt.value_max), f"{sec}.value_max"),
        Constant("scale_bias", str(fmt.scale_bias), f"{sec}.scale.bias"),
        Constant("scale_min", str(fmt.scale_min), f"{sec}.scale.min"),
        Constant("scale_max", str(fmt.scale_max), f"{sec}.scale.max"),
        Constant("scale_nan", str(e8m0_nan), f"{sec}.scale.encoding: the E8M0 NaN code"),
    )
    return Mxfp8Plan(
        module_name=module_name,
        reference_module_name=reference_module_name or module_name + "_reference",
        format_name=fmt.name,
        block_size=fmt.block_size,
        value_dtype=vf.name,
        value_nan_code=value_nan,
        scale_nan=e8m0_nan,
        reachable_scale_max=reachable_max,
        reachable_scale_max_nan=reachable_max_nan,
        constants=constants,
        reference_constants=reference_constants,
        layouts=tuple(layout.value for layout in fmt.layouts),
        block_m=launch.block_m,
        block_k=launch.block_k,
        num_warps=launch.num_warps,
        round_trip_rel_exp=vf.mant_bits + 1,
        round_trip_abs_exp=min_sub_exp - 1,
        scale_bias=fmt.scale_bias,
        kernel_digest=runtime.source_digest(KERNEL_SOURCE),
        reference_digest=runtime.source_digest(REFERENCE_SOURCE),
    )
