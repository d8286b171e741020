"""Pure-torch reference of the fused RoPE + KV insert: the test oracle, shared by every variant.

It computes, bit for bit, what a variant's CUDA ops write, on any device. A variant's generated
``rope_kv_<variant>_reference`` module holds what its spec decides (the dimensions, the fp8
bound, the cache formats) and configures one ``RopeKvReference`` with it.

Rounding, step by step (the kernels use the same explicitly rounded fp32 operations):

- inputs widen exactly to fp32; RoPE is GPT-J interleaved on dims [nope_dim, head_dim): pair i is
  (x1, x2) = dims (nope_dim + 2i, nope_dim + 2i + 1), cos / sin = cos_sin_cache[position, i] /
  [rope_dim/2 + i]; with rope_contraction fma, out = (fma(x1, cos, -RN(x2*sin)),
  fma(x1, sin, RN(x2*cos))) (what vLLM 0.33.0's compiled kernels do), with none,
  out = (RN(RN(x1*cos) - RN(x2*sin)), RN(RN(x2*cos) + RN(x1*sin)));
- round_before_quantize input_dtype: the values quantized to e4m3 are first rounded to the kv
  dtype (values stored as bf16 are rounded to bf16 once);
- the Q RMSNorm (no weight) is x * r, where the sum of squares s runs in the kernel's order: 32
  lanes each add head_dim / 32 consecutive squares in order (q_rms_norm fma_rsqrt: by FMAs), then
  a butterfly over the lanes; r = rsqrt(fma(s, 1 / head_dim, eps)) (fma_rsqrt: the GPU's rsqrtf,
  matched by torch.rsqrt on CUDA tensors only) or 1 / sqrt(s / head_dim + eps) (exact); Q is
  rounded once, to its input dtype, at the end;
- UE8M0 block scales (MX rule): amax = max(max|x|, the format's amax_floor), NaN values taking
  no part (fmaxf); the scale byte is clamp(ceil(log2(amax / fp8_max)) + e8m0_bias, e8m0_min,
  e8m0_max), read exactly off amax's exponent and mantissa bits (no rounded division); values
  are multiplied by 2^(127 - byte), built from its bits, and rounded to nearest-even e4m3
  (cvt.rn.satfinite: finite values saturate, NaN is 0x7F);
- infinite_amax nan_scale: an infinite amax gets byte 255 and the reciprocal 0 (vLLM's
  exp2f(-inf)): the block's finite values become +-0, its infinities NaN; largest_scale: the
  byte of inf's exponent field, the infinities saturate;
- fp8_nan negative_max: NaN becomes -fp8_max before the conversion (fmaxf(x, -max));
- a per-tensor fp8 cache stores e4m3(x * RN(1 / scale)) (per_tensor_scaling reciprocal_multiply)
  or e4m3(x / scale) with IEEE division (divide), saturated to +-fp8_max first;
- bf16 cache values are the fp32 values rounded to nearest-even bf16;
- the record layouts: token_data_then_scales (per block, every token's data, then every token's
  scales) and interleaved (each token's data, then its own scales: vLLM 0.33.0's 528 B record).

Non-finite inputs (and rotations that overflow fp32 or the kv dtype) follow the same rules;
positions outside cos_sin_cache are outside the contract.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

LANES = 32  # one warp owns one row
# k_cache's dtype by its spec name (cache_formats.*.cache_dtype)
CACHE_DTYPES = {
    "uint8": torch.uint8,
    "bfloat16": torch.bfloat16,
    "float8_e4m3fn": torch.float8_e4m3fn,
}


def fma(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """RN32(a * b + c) of fp32 tensors, rounded once, like the GPU's fused multiply-add.

    a * b is exact in float64 (48 significant bits); s = RN64(a * b + c) and its error (TwoSum)
    are exact too. Rounding s to fp32 rounds the exact sum the same way unless s lies exactly
    halfway between two fp32 values while the sum does not: then s is moved one float64 step
    towards the sum first."""
    p = a.double() * b.double()
    c64 = c.double()
    s = p + c64
    virtual = s - p
    err = (p - (s - virtual)) + (c64 - virtual)
    s32 = s.float()
    below = s - s32.double()
    up = torch.nextafter(s32, torch.full_like(s32, float("inf"))).double() - s32.double()
    down = torch.nextafter(s32, torch.full_like(s32, -float("inf"))).double() - s32.double()
    halfway = (below != 0) & ((below == up / 2) | (below == down / 2))
    s = torch.where(halfway & (err != 0), torch.nextafter(s, s + err), s)
    return s.float()


@dataclass(frozen=True)
class CacheFormat:
    name: str
    cache_dtype: torch.dtype
    kv_mxfp8: bool  # the value of the op's kv_mxfp8 argument that selects this format
    record_width: int  # k_cache.size(2)
    fp8_values: int  # e4m3 values first ...
    bf16_values: int  # ... then bf16 values
    scale_group: int  # values per UE8M0 scale; 0: none
    scale_bytes: int  # UE8M0 bytes per token, padding included
    per_tensor_scale: bool
    token_data_then_scales: bool  # per block: block_size token records, then the scales
    interleaved: bool  # per token: its data, then its own scales
    data_bytes: int  # bytes of one token record, scales excluded
    rope_fma: bool  # rope_contraction fma
    round_to_input: bool  # round_before_quantize input_dtype
    amax_floor: float  # amax_floor, as the fp32 value the kernel holds (0: no block scales)
    reciprocal_scale: bool  # per_tensor_scaling reciprocal_multiply
    nan_scale_for_inf: bool  # infinite_amax nan_scale
    nan_to_negative_max: bool  # fp8_nan negative_max


@dataclass(frozen=True)
class RopeKvReference:
    """One variant's reference, configured with what its spec decides."""

    variant: str
    head_dim: int
    nope_dim: int
    rope_dim: int
    fp8_max: float
    # fp8_max = (1 + fp8_max_mantissa / 2^23) * 2^fp8_max_exponent
    fp8_max_exponent: int
    fp8_max_mantissa: int
    e8m0_bias: int
    e8m0_min: int
    e8m0_max: int
    q_rope_fma: bool  # q_rope_contraction fma
    q_norm_fma_rsqrt: bool  # q_rms_norm fma_rsqrt
    cache_formats: tuple[CacheFormat, ...]

    def cache_format(self, k_cache: torch.Tensor, kv_mxfp8: bool) -> CacheFormat:
        """The format the ops pick for this cache tensor and kv_mxfp8."""
        for fmt in self.cache_formats:
            if fmt.cache_dtype == k_cache.dtype and fmt.kv_mxfp8 == kv_mxfp8:
                return fmt
        raise ValueError(
            f"{self.variant} has no cache format for {k_cache.dtype} with kv_mxfp8={kv_mxfp8}"
        )

    def rope(self, x: torch.Tensor, cos_sin: torch.Tensor, contract: bool) -> torch.Tensor:
        """GPT-J interleaved RoPE of fp32 x [..., rope_dim] with cos_sin [..., rope_dim] rows;
        contract: the FMA form of rope_contraction fma."""
        half = self.rope_dim // 2
        pairs = x.unflatten(-1, (half, 2))
        x1, x2 = pairs[..., 0], pairs[..., 1]
        cos, sin = cos_sin[..., :half], cos_sin[..., half:]
        if contract:
            cos, sin = cos.expand_as(x1), sin.expand_as(x1)
            even, odd = fma(x1, cos, -(x2 * sin)), fma(x1, sin, x2 * cos)
        else:
            even, odd = x1 * cos - x2 * sin, x2 * cos + x1 * sin
        return torch.stack((even, odd), dim=-1).flatten(-2)

    def inverse_rms(self, x: torch.Tensor, eps: float) -> torch.Tensor:
        """The RMSNorm factor over the last dim of fp32 x, summed in the kernel's order (see
        the module docstring: q_rms_norm fma_rsqrt or exact)."""
        values = x.unflatten(-1, (LANES, self.head_dim // LANES))
        total = values[..., 0] * values[..., 0]
        for i in range(1, values.shape[-1]):
            v = values[..., i]
            total = fma(v, v, total) if self.q_norm_fma_rsqrt else total + v * v
        lane = torch.arange(LANES, device=x.device)
        offset = LANES // 2
        while offset:
            total = total + total[..., lane ^ offset]
            offset //= 2
        total = total[..., 0]
        if self.q_norm_fma_rsqrt:
            scale = torch.full_like(total, 1.0 / self.head_dim)
            return torch.rsqrt(fma(total, scale, torch.full_like(total, eps)))
        return torch.sqrt(total / self.head_dim + eps).reciprocal()

    @staticmethod
    def block_amax(groups: torch.Tensor) -> torch.Tensor:
        """max |x| over the last dimension with NaN taking no part (the kernel's fmaxf, which
        returns the other operand), from 0: a block of NaN only has amax 0."""
        magnitudes = groups.abs()
        return torch.where(magnitudes.isnan(), 0.0, magnitudes).amax(dim=-1)

    def ue8m0_scale(
        self, amax: torch.Tensor, floor: float, nan_scale_for_inf: bool = False
    ) -> torch.Tensor:
        """UE8M0 scale bytes (int32) of fp32 block maxima: ceil(log2(max(amax, floor) /
        fp8_max)) + bias, exact; floor is held in fp32, as the kernel's float literal is.
        nan_scale_for_inf: an infinite amax gets 255."""
        floor32 = torch.tensor(floor, dtype=torch.float32, device=amax.device)
        bits = torch.maximum(amax, floor32).view(torch.int32)
        round_up = ((bits & 0x7FFFFF) > self.fp8_max_mantissa).to(torch.int32)
        scale = ((bits >> 23) - self.fp8_max_exponent + round_up).clamp(
            self.e8m0_min, self.e8m0_max
        )
        if nan_scale_for_inf:
            scale = torch.where(amax.isinf(), 255, scale)
        return scale

    def ue8m0_reciprocal(self, scale: torch.Tensor) -> torch.Tensor:
        """2^(e8m0_bias - scale) as fp32, built from its bits; byte 255 (an infinite block under
        nan_scale) gives 0."""
        reciprocal = ((2 * self.e8m0_bias - scale) << 23).view(torch.float32)
        return torch.where(scale == 255, 0.0, reciprocal)

    def to_e4m3(
        self, x: torch.Tensor, saturate: bool = True, nan_to_negative_max: bool = True
    ) -> torch.Tensor:
        """Round-to-nearest-even e4m3 bytes of fp32 x as the kernel stores them: saturate clamps
        to +-fp8_max first (the per-tensor scaled values); nan_to_negative_max (fp8_nan
        negative_max) turns NaN into -fp8_max, as fminf(fmaxf(x, -max), max) does; otherwise
        NaN is e4m3's 0x7F (torch writes 0x7F or 0xFF by the sign: the kernel's conversion
        drops it). Finite values beyond 448 saturate, as cvt.rn.satfinite does."""
        limit = torch.tensor(self.fp8_max, dtype=torch.float32, device=x.device)
        nan = x.isnan()
        if saturate:
            x = torch.where(nan, x, torch.clamp(x, -limit, limit))
        if nan_to_negative_max:
            x = torch.where(nan, -limit, x)
        finite_max = torch.tensor(torch.finfo(torch.float8_e4m3fn).max, device=x.device)
        x = torch.where(nan, x, torch.clamp(x, -finite_max, finite_max))
        out = x.to(torch.float8_e4m3fn).view(torch.uint8)
        return torch.where(x.isnan(), 0x7F, out).to(torch.uint8)

    @staticmethod
    def to_bf16(x: torch.Tensor) -> torch.Tensor:
        """Round-to-nearest-even bf16 of fp32 x as the kernel's cvt.rn.bf16x2.f32 stores it:
        every NaN is the canonical 0x7FFF (torch keeps the sign and writes 0x7FC0 / 0xFFC0)."""
        bits = x.to(torch.bfloat16).view(torch.int16)
        return torch.where(x.isnan(), 0x7FFF, bits).to(torch.int16).view(torch.bfloat16)

    def encode_kv(
        self,
        x: torch.Tensor,
        fmt: CacheFormat,
        fp8_scale: torch.Tensor | None,
        dtype: torch.dtype,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Token records (uint8 [n, data_bytes]) and scale records (uint8 [n, scale_bytes] or
        None) of fp32 rows x [n, head_dim] that RoPE has already been applied to; dtype: the kv
        dtype (round_before_quantize)."""
        parts = []
        scales = None
        if fmt.fp8_values:
            values = x[:, : fmt.fp8_values]
            if fmt.round_to_input:
                values = values.to(dtype).float()
            if fmt.scale_group:
                groups = values.unflatten(1, (-1, fmt.scale_group))
                amax = self.block_amax(groups)
                scale = self.ue8m0_scale(amax, fmt.amax_floor, fmt.nan_scale_for_inf)
                scaled = groups * self.ue8m0_reciprocal(scale).unsqueeze(-1)
                encoded = self.to_e4m3(scaled, False, fmt.nan_to_negative_max)
                parts.append(encoded.flatten(1))
                padding = scale.new_zeros(scale.shape[0], fmt.scale_bytes - scale.shape[1])
                scales = torch.cat((scale, padding), dim=1).to(torch.uint8)
            else:
                if fp8_scale is None:
                    raise ValueError(
                        f"the {fmt.name} cache format needs fp8_scale (its per-tensor scale)"
                    )
                if fmt.reciprocal_scale:
                    reciprocal = torch.ones_like(fp8_scale).div(fp8_scale)
                    quotient = values * reciprocal
                else:
                    quotient = values / fp8_scale
                parts.append(self.to_e4m3(quotient, True, fmt.nan_to_negative_max))
        if fmt.bf16_values:
            parts.append(self.to_bf16(x[:, fmt.fp8_values :]).view(torch.uint8))
        return torch.cat(parts, dim=1), scales

    def kv_rope_insert(
        self,
        kv: torch.Tensor,
        k_cache: torch.Tensor,
        slot_mapping: torch.Tensor,
        position_ids: torch.Tensor,
        cos_sin_cache: torch.Tensor,
        cache_block_size: int,
        fp8_scale: torch.Tensor | None = None,
        kv_mxfp8: bool = False,
    ) -> None:
        """Reference of the KV-only insert op: writes k_cache in place.

        Rows >= len(slot_mapping) and rows with a negative slot are not written; kv is only
        read.
        """
        fmt = self.cache_format(k_cache, kv_mxfp8)
        rows = slot_mapping.shape[0]
        keep = slot_mapping >= 0
        x = kv[:rows].float()
        nope = self.nope_dim
        x[:, nope:] = self.rope(x[:, nope:], cos_sin_cache[position_ids[:rows]], fmt.rope_fma)
        data, scales = self.encode_kv(x[keep], fmt, fp8_scale, kv.dtype)
        slots = slot_mapping[keep]
        block = slots // cache_block_size
        offset = slots % cache_block_size
        raw = k_cache.view(torch.uint8)  # [num_blocks, block_size, record bytes], in bytes
        if fmt.interleaved:
            assert scales is not None  # block-scaled: an interleaved record holds its scales
            raw[block, offset] = torch.cat((data, scales), dim=1)
        elif fmt.token_data_then_scales:
            records = raw.as_strided(
                (raw.shape[0], cache_block_size, fmt.data_bytes),
                (raw.stride(0), fmt.data_bytes, 1),
            )
            records[block, offset] = data
            scale_records = raw.as_strided(
                (raw.shape[0], cache_block_size, fmt.scale_bytes),
                (raw.stride(0), fmt.scale_bytes, 1),
                raw.storage_offset() + cache_block_size * fmt.data_bytes,
            )
            assert scales is not None  # a format with token data then scales has a scale group
            scale_records[block, offset] = scales
        else:
            raw[block, offset] = data

    def rotate_q(
        self,
        q_in: torch.Tensor,
        position_ids: torch.Tensor,
        cos_sin_cache: torch.Tensor,
        q_head_padded: int,
        eps: float,
        apply_q_norm: bool,
    ) -> torch.Tensor:
        """The q_out that the Q RMSNorm + RoPE + KV insert op writes.

        Shape [tokens, q_head_padded, head_dim] in q_in's dtype; heads past q_in's are zero.
        """
        tokens, heads, _ = q_in.shape
        x = q_in.float()
        if apply_q_norm:
            x = x * self.inverse_rms(x, eps).unsqueeze(-1)
        cos_sin = cos_sin_cache[position_ids[:tokens]].unsqueeze(1)
        x[..., self.nope_dim :] = self.rope(x[..., self.nope_dim :], cos_sin, self.q_rope_fma)
        q_out = q_in.new_zeros(tokens, q_head_padded, self.head_dim)
        q_out[:, :heads] = x.to(q_in.dtype)
        return q_out

    def qnorm_rope_kv_insert(
        self,
        q_in: torch.Tensor,
        q_out: torch.Tensor,
        kv: torch.Tensor,
        k_cache: torch.Tensor,
        slot_mapping: torch.Tensor,
        position_ids: torch.Tensor,
        cos_sin_cache: torch.Tensor,
        q_head_padded: int,
        eps: float,
        apply_q_norm: bool,
        cache_block_size: int,
        fp8_scale: torch.Tensor | None = None,
        kv_mxfp8: bool = False,
    ) -> None:
        """Reference of the Q RMSNorm + RoPE + KV insert op: writes q_out and k_cache in place."""
        rotated = self.rotate_q(q_in, position_ids, cos_sin_cache, q_head_padded, eps, apply_q_norm)
        q_out.copy_(rotated)
        self.kv_rope_insert(
            kv,
            k_cache,
            slot_mapping,
            position_ids,
            cos_sin_cache,
            cache_block_size,
            fp8_scale,
            kv_mxfp8,
        )
