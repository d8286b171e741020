"""Typed model: the only input of the planner and the emitters.

Modelled on torchgen's model.py: frozen dataclasses, exhaustive enums, and a ``parse`` per class
that turns one resolved (already validated) mapping into the typed value. Nothing after this
stage walks dicts.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ScalarType(enum.Enum):
    BFLOAT16 = "bfloat16"
    FLOAT16 = "float16"
    FLOAT32 = "float32"
    FLOAT8_E4M3FN = "float8_e4m3fn"
    UINT8 = "uint8"


class ScaleEncoding(enum.Enum):
    E8M0 = "e8m0"


class ScalingForm(enum.Enum):
    # Only the reciprocal form exists: dividing by exp2(sb - bias) makes the divisor 2^-127 for
    # sb == 0, an fp32 subnormal that flushes to zero (seed 000 §3). Validation rejects "divide".
    MULTIPLY_RECIPROCAL = "multiply_reciprocal"


class AmaxFloor(enum.Enum):
    FP32_TINY = "fp32_tiny"


class ScaleLayout(enum.Enum):
    ROW_MAJOR = "row_major"
    SWIZZLED_128X4 = "swizzled_128x4"


@dataclass(frozen=True)
class MxLaunch:
    """Fixed launch parameters of the MX quantize / dequantize kernels (no autotuning)."""

    block_m: int
    block_k: int
    num_warps: int


@dataclass(frozen=True)
class MxFormat:
    name: str  # e.g. "mxfp8"
    block_size: int  # 32 values share one scale
    value_dtype: ScalarType  # FLOAT8_E4M3FN
    value_max: float  # 448.0
    scale_encoding: ScaleEncoding  # E8M0
    scale_dtype: ScalarType  # UINT8
    scale_bias: int  # 127
    scale_min: int  # 0
    scale_max: int  # 254
    scaling: ScalingForm
    amax_floor: AmaxFloor
    layouts: tuple[ScaleLayout, ...]
    launch: MxLaunch


class CacheFormatKind(enum.Enum):
    FP8_DS_MLA = "fp8_ds_mla"  # packed: 448 e4m3 + 64 bf16 + 8 UE8M0 scale bytes (one per 64)
    MXFP8 = "mxfp8"  # packed: 512 e4m3 + 16 UE8M0 (one per 32)
    BF16 = "bf16"  # plain bf16 row
    FP8 = "fp8"  # plain e4m3 row, one float32 per-tensor scale


class PackedLayout(enum.Enum):
    TOKEN_DATA_THEN_SCALES = "token_data_then_scales"  # block_size x data, then block_size x scales
    NONE = "none"  # plain rows


class RopeStyle(enum.Enum):
    GPTJ_INTERLEAVED = "gptj_interleaved"


class CosSinLayout(enum.Enum):
    COS_THEN_SIN = "cos_then_sin"  # [max_pos, rope_dim]: rope_dim/2 cos, then rope_dim/2 sin


class GridRule(enum.Enum):
    # warp-per-slot when kNumHeadsQPadded == 0 or num_tokens < NUM_TOKEN_CUTOFF, else reduced
    # (seed 002's fix: without the "== 0" term a KV-only insert idles 7 of 8 warps).
    KV_ONLY_OR_BELOW_CUTOFF = "kv_only_or_below_cutoff"


@dataclass(frozen=True)
class CacheFormat:
    name: str  # spec key, e.g. "fp8_ds_mla"
    kind: CacheFormatKind
    cache_dtype: ScalarType  # UINT8 for packed, BFLOAT16, FLOAT8_E4M3FN
    bytes_per_token: int  # 584, 528, 1024, 512
    record_width: int  # k_cache.size(2) in elements of cache_dtype: 584, 528, 512, 512
    fp8_values: int  # e4m3 values per token: 448, 512, 0, 512
    bf16_values: int  # bf16 values per token: 64, 0, 512, 0
    scale_group: int  # values per UE8M0 scale: 64, 32, 0, 0
    scale_bytes: int  # scale bytes per token incl. padding: 8, 16, 0, 0
    per_tensor_scale: bool  # FP8 only: one float32 scale for the whole tensor
    layout: PackedLayout


@dataclass(frozen=True)
class RopeKvInsertKernel:
    head_dim: int  # 512
    nope_dim: int  # 448
    rope_dim: int  # 64
    rope_style: RopeStyle
    cos_sin_dtype: ScalarType  # FLOAT32
    cos_sin_layout: CosSinLayout
    input_dtypes: tuple[ScalarType, ...]  # (BFLOAT16, FLOAT16)
    num_heads_q_padded: tuple[int, ...]  # (0, 8, 16, 32, 64, 128); 0 = KV only
    apply_q_norm: tuple[bool, ...]  # which APPLY_Q_NORM instantiations to emit
    num_token_cutoff: int  # 1024
    threads_per_block: int  # 256 (8 warps)
    grid_rule: GridRule
    fp8_max: float  # 448.0
    cache_formats: tuple[CacheFormat, ...]
