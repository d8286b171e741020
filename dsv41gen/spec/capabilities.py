"""What each kernel emitter can implement, declared as data.

The emitters (plan/mxfp8.py, plan/rope_kv.py) generate exact code for a fixed kernel structure;
a spec value outside what that structure implements is a spec error, not a planner failure.
The tables here say what the structure implements; ``spec/validate/`` checks every spec against
them (on the typed model, every violated entry reported at its own field), and the planners
only assert what these tables promise. Widening what an emitter supports means changing its
code and the entry here together.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import ScalarType, ScaleEncoding, ScaleLayout


@dataclass(frozen=True)
class MxCapabilities:
    """The Triton MX quantize / dequantize emitter (plan/mxfp8.py)."""

    # The kernels tile [rows, blocks, 32] and the swizzled layout assumes 32-wide blocks.
    block_sizes: tuple[int, ...]
    # Value types with an exact bit-level rounding path, and their largest finite value.
    value_max: dict[ScalarType, float]
    scale_encodings: tuple[ScaleEncoding, ...]
    scale_dtypes: tuple[ScalarType, ...]
    # 2^(bias - sb) is assembled from fp32 exponent bits: the subnormal-safety argument is
    # worked out for this bias, and the byte 255 is E8M0's NaN.
    scale_bias: int
    scale_byte_range: tuple[int, int]
    layouts: tuple[ScaleLayout, ...]
    max_num_warps: int  # Triton's limit per program


@dataclass(frozen=True)
class RopeKvCapabilities:
    """The CUDA fused RoPE + KV-insert emitter (plan/rope_kv.py)."""

    # One warp owns one row, 16 consecutive 16-bit values per lane, moved with two 16-byte
    # accesses: 32 lanes x 16 values.
    head_dims: tuple[int, ...]
    values_per_lane: int
    vector_bytes: int  # every record region starts on a 16-byte access
    input_dtypes: tuple[ScalarType, ...]
    cache_dtypes: tuple[ScalarType, ...]
    warp_size: int


MXFP8 = MxCapabilities(
    block_sizes=(32,),
    value_max={ScalarType.FLOAT8_E4M3FN: 448.0},
    scale_encodings=(ScaleEncoding.E8M0,),
    scale_dtypes=(ScalarType.UINT8,),
    scale_bias=127,
    scale_byte_range=(0, 254),
    layouts=(ScaleLayout.ROW_MAJOR, ScaleLayout.SWIZZLED_128X4),
    max_num_warps=32,
)

ROPE_KV = RopeKvCapabilities(
    head_dims=(512,),
    values_per_lane=16,
    vector_bytes=16,
    input_dtypes=(ScalarType.BFLOAT16, ScalarType.FLOAT16),
    cache_dtypes=(ScalarType.UINT8, ScalarType.BFLOAT16, ScalarType.FLOAT8_E4M3FN),
    warp_size=32,
)
