"""The pure-torch reference of the fused RoPE + KV insert, checked against hand-worked cases.

The reference is the GPU tests' oracle and is generated from the same spec as the kernels, so
here it is held to values worked out by hand (or by an independent float64 / numpy computation):
RoPE of known vectors, known UE8M0 bytes, known e4m3 bytes, the packed block layout offsets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from dsv41gen.kernels.rope_kv_reference import RopeKvReference

V4 = "deepseek_v4"
V41 = "deepseek_v41"


@pytest.fixture(scope="module")
def ref(rope_kv_references):
    return rope_kv_references[V41]


@pytest.mark.parametrize("contract", [False, True])
def test_rope_of_a_known_pair_uses_gptj_pairs(ref, contract):
    x = torch.zeros(64)
    x[2 * 5], x[2 * 5 + 1] = 2.0, 4.0  # pair 5
    cos_sin = torch.zeros(64)
    cos_sin[5], cos_sin[32 + 5] = 0.5, 0.75  # cos[5], sin[5]
    out = ref.rope(x, cos_sin, contract)
    # (x1 cos - x2 sin, x2 cos + x1 sin) = (1 - 3, 2 + 1.5)
    assert out[10].item() == -2.0 and out[11].item() == 3.5
    assert torch.count_nonzero(out).item() == 2


@pytest.mark.parametrize("contract", [False, True])
def test_rope_by_a_quarter_turn(ref, contract):
    x = torch.arange(64, dtype=torch.float32)
    cos_sin = torch.cat((torch.zeros(32), torch.ones(32)))  # angle pi/2 for every pair
    out = ref.rope(x, cos_sin, contract).view(32, 2)
    pairs = x.view(32, 2)
    assert torch.equal(out[:, 0], -pairs[:, 1]) and torch.equal(out[:, 1], pairs[:, 0])


@pytest.mark.parametrize(
    "amax, byte",
    [
        (448.0, 127),  # amax == fp8_max: scale 2^0
        (float(np.nextafter(np.float32(448), np.float32(1e9))), 128),
        (1.0, 119),  # ceil(log2(1 / 448)) = ceil(-8.807) = -8
        (2.0**-10 * 1.75, 109),  # 448 * 2^-18 exactly
        (float(np.nextafter(np.float32(2.0**-10 * 1.75), np.float32(1))), 110),
        (0.0, 0),  # floored at fp32 tiny: ceil(-126 - 8.807) + 127 < 0, clamped
        (3.0e38, 247),  # largest byte a finite amax reaches
    ],
)
def test_ue8m0_known_bytes(ref, amax, byte):
    tiny = torch.finfo(torch.float32).tiny
    assert ref.ue8m0_scale(torch.tensor([amax], dtype=torch.float32), tiny).item() == byte


@pytest.mark.parametrize("amax", [0.0, 1e-30, 9.9e-5])
def test_ue8m0_floor_of_1e_4_gives_byte_105(ref, amax):
    """vLLM 0.33.0's floor (ref §0): any block with amax < 1e-4 gets byte
    ceil(log2(1e-4 / 448)) + 127 = -22 + 127 = 105."""
    assert ref.ue8m0_scale(torch.tensor([amax], dtype=torch.float32), 1e-4).item() == 105


def test_specs_state_vllm_numerics(ref):
    """V4.1's formats carry vLLM 0.33.0's choices (ref §0)."""
    formats = {f.name: f for f in ref.CACHE_FORMATS}
    assert all(f.rope_fma for f in formats.values()) and ref.Q_ROPE_FMA
    assert formats["mxfp8"].interleaved and not formats["mxfp8"].token_data_then_scales
    assert formats["fp8_ds_mla"].token_data_then_scales
    assert formats["mxfp8"].round_to_input and not formats["fp8"].round_to_input
    floor = torch.tensor(1e-4, dtype=torch.float32).item()  # the kernel's 1e-4f
    assert formats["mxfp8"].amax_floor == formats["fp8_ds_mla"].amax_floor == floor
    assert formats["fp8"].reciprocal_scale
    assert ref.packed_cache_format((10, 0)) == "mxfp8"
    assert ref.packed_cache_format((9, 0)) == ref.packed_cache_format((12, 0)) == "fp8_ds_mla"


def _exact_fma(a: float, b: float, c: float) -> float:
    """RN32(a * b + c) through exact rationals (independent of the reference's float64 trick)."""
    from fractions import Fraction

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    lo = float(np.float32(float(exact)))  # a float32 neighbour of the exact value ...
    candidates = [lo, float(np.nextafter(np.float32(lo), np.float32(np.inf)))]
    candidates.append(float(np.nextafter(np.float32(lo), np.float32(-np.inf))))
    best = min(
        candidates, key=lambda v: (abs(Fraction(v) - exact), int(np.float32(v).view(np.int32)) & 1)
    )
    return best


def test_fma_is_one_rounding():
    g = torch.Generator().manual_seed(3)
    a = torch.randn(3000, generator=g) * torch.exp2(torch.randint(-20, 20, (3000,), generator=g))
    b = torch.randn(3000, generator=g)
    c = -(a * b) * (1 + torch.randn(3000, generator=g) * 2.0**-20)  # cancellation
    c[::3] = torch.randn(1000, generator=g) * 2.0**-40  # tiny addends: halfway cases
    a[::7] = 1.0 + 2.0**-23
    b[::7] = 1.0 + 2.0**-23
    c[::7] = 2.0**-47  # a*b = 1 + 2^-22 + 2^-46: exact sum just above a halfway point
    from dsv41gen.kernels.rope_kv_reference import fma  # the family's shared arithmetic

    got = fma(a, b, c)
    for x, y, z, r in zip(a.tolist(), b.tolist(), c.tolist(), got.tolist(), strict=True):
        assert r == _exact_fma(x, y, z), (x, y, z)


def test_ue8m0_matches_float64_ceil_log2(ref):
    g = torch.Generator().manual_seed(0)
    amax = torch.exp2(torch.empty(4000).uniform_(-140, 127, generator=g)).float()
    tiny = torch.finfo(torch.float32).tiny
    got = ref.ue8m0_scale(amax, tiny).tolist()
    for a, b in zip(amax.tolist(), got, strict=True):
        want = min(max(math.ceil(math.log2(max(a, tiny) / 448.0)) + 127, 0), 254)
        assert b == want, a


def test_ue8m0_reciprocal_is_the_exact_power_of_two(ref):
    bytes_ = torch.arange(0, 254, dtype=torch.int32)
    got = ref.ue8m0_reciprocal(bytes_).double()
    assert torch.equal(
        got, torch.tensor([2.0 ** (127 - b) for b in range(254)], dtype=torch.float64)
    )


@pytest.mark.parametrize(
    "value, byte",
    [
        (1.0, 0x38),
        (448.0, 0x7E),
        (500.0, 0x7E),  # saturates
        (-1e30, 0xFE),
        (256.0, 0x78),
        (2.0**-9, 0x01),  # smallest subnormal
        (2.0**-10, 0x00),  # tie between 0 and 2^-9: to even
        (3 * 2.0**-10, 0x02),  # tie between 2^-9 and 2^-8: to even
        (0.0, 0x00),
    ],
)
def test_e4m3_known_bytes(ref, value, byte):
    assert ref.to_e4m3(torch.tensor([value], dtype=torch.float32)).item() == byte


def test_inverse_rms_known_value(ref):
    x = torch.full((3, 512), 2.0)
    assert torch.equal(ref.inverse_rms(x, 0.0), torch.full((3,), 0.5))


def test_inverse_rms_follows_the_kernel_order(ref):
    """numpy float32, one scalar at a time: 32 lanes of 16 in-order sums, then the butterfly."""
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(4, 512, generator=g) * torch.exp2(torch.randn(4, 1, generator=g) * 4)).float()
    got = ref.inverse_rms(x, 1e-6)
    for row, value in zip(x.numpy(), got.tolist(), strict=True):
        lanes = [np.float32(0)] * 32
        for lane in range(32):
            for v in row[16 * lane : 16 * lane + 16]:
                lanes[lane] = np.float32(lanes[lane] + np.float32(v * v))
        offset = 16
        while offset:
            lanes = [np.float32(lanes[i] + lanes[i ^ offset]) for i in range(32)]
            offset //= 2
        mean = np.float32(lanes[0] / np.float32(512))
        want = np.float32(np.float32(1) / np.sqrt(np.float32(mean + np.float32(1e-6))))
        assert value == float(want)
        assert (
            abs(value - 1 / math.sqrt(float((row.astype(np.float64) ** 2).mean()) + 1e-6))
            < 1e-6 * value
        )


def test_warp_per_slot_rule(ref):
    assert ref.use_warp_per_slot(0, 10**6)  # KV-only: always (seed 002)
    assert ref.use_warp_per_slot(8, 1023)
    assert not ref.use_warp_per_slot(8, 1024)


def test_the_rules_read_each_variant_s_own_values(
    rope_kv_references, rope_kv_plans, rope_kv_renderer, rope_kv_importer, tmp_path
):
    """load, packed_cache_format and use_warp_per_slot are the shared runtime's
    (rope_kv_loader.RopeKvVariant), configured by each generated module's own constants: V4's
    spec maps no capability family (its default everywhere), and a spec with another cutoff moves
    the grid switch."""
    import dataclasses

    v4 = rope_kv_references[V4]
    assert v4.packed_cache_format((10, 0)) == v4.packed_cache_format((9, 0)) == "fp8_ds_mla"
    cutoff = dataclasses.replace(rope_kv_plans[V41], num_token_cutoff=64)
    module = rope_kv_importer(rope_kv_renderer(tmp_path, cutoff), cutoff.module)
    assert module.use_warp_per_slot(8, 63) and not module.use_warp_per_slot(8, 64)
    assert module.use_warp_per_slot(0, 64)
    assert rope_kv_references[V41].use_warp_per_slot(8, 64)


def test_a_generated_module_exports_the_runtime_s_api(ref):
    """The names tests, GPU tests and benchmarks use stay the module's attributes."""
    from dsv41gen.kernels.rope_kv_loader import REFERENCE_OPS, VARIANT_API

    assert set(VARIANT_API) == {"load", "packed_cache_format", "use_warp_per_slot"}
    for name in (*VARIANT_API, *REFERENCE_OPS):
        assert callable(getattr(ref, name)), name
    assert ref.kv_rope_insert.__self__ is ref.rotate_q.__self__  # one configured reference
    assert ref.kv_rope_insert.__self__.cache_formats is ref.CACHE_FORMATS
    with pytest.raises(AttributeError, match=f"module '{ref.__name__}' has no attribute 'nope'"):
        ref.nope  # noqa: B018
    assert not hasattr(ref, "__path__")


def test_every_grid_rule_of_the_spec_language_has_a_runtime_rule():
    from dsv41gen.kernels.rope_kv_loader import GRID_RULES
    from dsv41gen.spec.model import GridRule

    assert sorted(rule.value for rule in GridRule) == sorted(GRID_RULES)


def test_a_grid_rule_the_runtime_lacks_is_refused_with_what_to_do(ref):
    from dsv41gen.kernels.rope_kv_loader import RopeKvVariant

    names = {k: v for k, v in vars(ref).items() if k.isupper() or k == "__name__"}
    with pytest.raises(ValueError, match="grid_rule 'always' is not one this dsv41gen"):
        RopeKvVariant.from_module({**names, "GRID_RULE": "always"})


def paged_cache(fmt, num_blocks, block_size, pad_bytes=32):
    """A poisoned cache with a padded block stride, and the uint8 backing it lives in."""
    elem = torch.empty((), dtype=fmt.cache_dtype).element_size()
    block_bytes = block_size * fmt.record_width * elem
    backing = torch.randint(0, 256, (num_blocks, block_bytes + pad_bytes), dtype=torch.uint8)
    cache = (
        backing[:, :block_bytes]
        .view(fmt.cache_dtype)
        .view(num_blocks, block_size, fmt.record_width)
    )
    return backing, cache


def one_token(value=1.0, rope_value=0.5):
    kv = torch.full((1, 512), value, dtype=torch.bfloat16)
    kv[0, 448:] = rope_value
    cos_sin = torch.cat((torch.ones(1, 32), torch.zeros(1, 32)), dim=1)  # identity rotation
    return kv, torch.tensor([0]), cos_sin


@pytest.mark.parametrize("variant", [V4, V41])
def test_fp8_ds_mla_block_layout(rope_kv_references, variant):
    ref = rope_kv_references[variant]
    fmt = ref.cache_format(torch.empty(0, dtype=torch.uint8), False)
    assert fmt.name == "fp8_ds_mla" and fmt.record_width == 584
    backing, cache = paged_cache(fmt, num_blocks=3, block_size=4)
    before = backing.clone()
    kv, positions, cos_sin = one_token()
    ref.kv_rope_insert(kv, cache, torch.tensor([6]), positions, cos_sin, 4)  # block 1, row 2
    data = 2 * 576  # row 2 of the block's token records
    scales = 4 * 576 + 2 * 8  # after the block's 4 token records, row 2's 8 scale bytes
    expect = before.clone()
    expect[1, data : data + 448] = 0x78  # 1.0 * 2^(127 - 119) = 256 -> e4m3 0x78
    expect[1, data + 448 : data + 576] = torch.tensor([0x00, 0x3F], dtype=torch.uint8).repeat(64)
    expect[1, scales : scales + 8] = torch.tensor([119] * 7 + [0], dtype=torch.uint8)
    assert torch.equal(backing, expect)


def test_mxfp8_block_layout(ref):
    fmt = ref.cache_format(torch.empty(0, dtype=torch.uint8), True)
    assert fmt.name == "mxfp8" and fmt.record_width == 528
    backing, cache = paged_cache(fmt, num_blocks=2, block_size=8)
    before = backing.clone()
    kv, positions, cos_sin = one_token()
    ref.kv_rope_insert(kv, cache, torch.tensor([8 + 5]), positions, cos_sin, 8, kv_mxfp8=True)
    expect = before.clone()
    record = 5 * 528  # interleaved (ref §0): token 5's 512 values, then its own 16 scales
    expect[1, record : record + 512] = 0x78  # 1.0 * 2^8 and 0.5 * 2^9 are both 256
    scales = record + 512
    expect[1, scales : scales + 16] = torch.tensor([119] * 14 + [118] * 2, dtype=torch.uint8)
    assert torch.equal(backing, expect)


def test_mxfp8_is_not_a_v4_format(rope_kv_references):
    with pytest.raises(ValueError, match="deepseek_v4 has no cache format"):
        rope_kv_references[V4].cache_format(torch.empty(0, dtype=torch.uint8), True)


def test_plain_rows_and_skipped_slots(ref):
    bf16 = ref.cache_format(torch.empty(0, dtype=torch.bfloat16), False)
    backing, cache = paged_cache(bf16, num_blocks=2, block_size=4)
    before = backing.clone()
    kv = torch.randn(3, 512).to(torch.bfloat16)
    cos_sin = torch.cat((torch.ones(1, 32), torch.zeros(1, 32)), dim=1)
    # row 0 -> slot 7, row 1 skipped (-1), row 2 padded (not in slot_mapping)
    ref.kv_rope_insert(
        kv, cache, torch.tensor([7, -1]), torch.zeros(3, dtype=torch.long), cos_sin, 4
    )
    expect = before.clone()
    expect[1, 3 * 1024 : 4 * 1024] = kv[0].view(torch.uint8)
    assert torch.equal(backing, expect)


def test_plain_fp8_multiplies_by_the_reciprocal_scale(ref):
    fp8 = ref.cache_format(torch.empty(0, dtype=torch.float8_e4m3fn), False)
    assert fp8.per_tensor_scale
    backing, cache = paged_cache(fp8, num_blocks=1, block_size=2)
    kv, positions, cos_sin = one_token(value=3.0, rope_value=-1024.0)
    ref.kv_rope_insert(kv, cache, torch.tensor([1]), positions, cos_sin, 2, torch.tensor([2.0]))
    assert torch.all(backing[0, 512:960] == 0x3C)  # 1.5 = 2^0 * (1 + 4/8)
    assert torch.all(backing[0, 960:1024] == 0xFE)  # -512 saturates to -448


def test_rotate_q_zero_fills_padded_heads(ref):
    g = torch.Generator().manual_seed(2)
    q = torch.randn(5, 3, 512, generator=g).to(torch.float16)
    cos_sin = torch.cat((torch.ones(1, 32), torch.zeros(1, 32)), dim=1)
    out = ref.rotate_q(q, torch.zeros(5, dtype=torch.long), cos_sin, 8, 1e-6, False)
    assert out.shape == (5, 8, 512) and out.dtype == torch.float16
    assert torch.equal(out[:, :3], q)  # no norm, identity rotation: unchanged
    assert torch.count_nonzero(out[:, 3:]).item() == 0
    normed = ref.rotate_q(q, torch.zeros(5, dtype=torch.long), cos_sin, 8, 1e-6, True)
    rms = normed[:, :3].float().pow(2).mean(-1).sqrt()
    assert torch.allclose(rms, torch.ones_like(rms), atol=2e-3)


# --- non-finite inputs (issue 28): the bytes vLLM 0.33.0's compiled quantizer stores, read off
# its SASS (FMNMX amax from 0 that drops NaN; ceilf(log2f(amax / 448)) + 127 clamped to 255;
# x * exp2f(-e); fminf(fmaxf(x, -448), 448); cvt.rn.satfinite.e4m3): a block holding +-Inf gets
# byte 255 and the reciprocal 0, so its finite values store +-0 and its infinities NaN, which
# the clamp turns into -448 (0xFE), as it does every NaN.


def test_specs_state_the_non_finite_rules(rope_kv_references):
    for variant in (V4, V41):
        for fmt in rope_kv_references[variant].CACHE_FORMATS:
            assert fmt.nan_to_negative_max == bool(fmt.fp8_values), (variant, fmt.name)
            assert fmt.nan_scale_for_inf == bool(fmt.scale_group), (variant, fmt.name)


def test_ue8m0_infinite_amax(ref):
    inf = torch.tensor([math.inf], dtype=torch.float32)
    assert ref.ue8m0_scale(inf, 1e-4, nan_scale_for_inf=True).item() == 255
    assert ref.ue8m0_scale(inf, 1e-4, nan_scale_for_inf=False).item() == 247  # largest_scale
    assert ref.ue8m0_reciprocal(torch.tensor([255], dtype=torch.int32)).item() == 0.0


def test_block_amax_drops_nan():
    groups = torch.tensor([[1.0, math.nan, -3.0], [math.nan, math.nan, math.nan]])
    assert RopeKvReference.block_amax(groups).tolist() == [3.0, 0.0]


@pytest.mark.parametrize(
    "value, saturate, nan_to_negative_max, byte",
    [
        (math.nan, False, True, 0xFE),
        (-math.nan, False, True, 0xFE),
        (math.nan, False, False, 0x7F),  # e4m3_nan: the conversion's NaN, sign dropped
        (-math.nan, True, False, 0x7F),
        (math.inf, False, False, 0x7E),  # cvt.rn.satfinite
        (-math.inf, False, True, 0xFE),
        (-0.0, False, True, 0x80),
        (-0.0, True, True, 0x80),
        (1e30, True, True, 0x7E),
    ],
)
def test_e4m3_non_finite_bytes(ref, value, saturate, nan_to_negative_max, byte):
    x = torch.tensor([value], dtype=torch.float32)
    assert ref.to_e4m3(x, saturate, nan_to_negative_max).item() == byte


def test_bf16_nan_is_canonical():
    x = torch.tensor([math.nan, -math.nan, math.inf, -0.0])
    assert RopeKvReference.to_bf16(x).view(torch.int16).tolist() == [
        0x7FFF,
        0x7FFF,
        0x7F80,
        -0x8000,
    ]


def non_finite_token(nope_values, rope_values):
    """One bf16 kv row: the first NoPE values and the first RoPE values as given, 1.0 and 0.5
    elsewhere; the identity rotation."""
    kv, positions, cos_sin = one_token()
    kv[0, : len(nope_values)] = torch.tensor(nope_values)
    kv[0, 448 : 448 + len(rope_values)] = torch.tensor(rope_values)
    return kv, positions, cos_sin


@pytest.mark.parametrize("variant", [V4, V41])
def test_fp8_ds_mla_non_finite_blocks(rope_kv_references, variant):
    ref = rope_kv_references[variant]
    fmt = ref.cache_format(torch.empty(0, dtype=torch.uint8), False)
    backing, cache = paged_cache(fmt, num_blocks=1, block_size=2)
    # block 0: +Inf, -2, -0 and 1.0s; block 1 (values 64..127): a NaN among 1.0s
    kv, positions, cos_sin = non_finite_token([math.inf, -2.0, -0.0], [math.nan])
    kv[0, 64] = math.nan
    ref.kv_rope_insert(kv, cache, torch.tensor([0]), positions, cos_sin, 2)
    data, scales = backing[0, :584], backing[0, 2 * 576 : 2 * 576 + 8]
    assert data[:4].tolist() == [0xFE, 0x80, 0x80, 0x00]  # NaN (inf * 0), -0, -0, +0
    assert torch.all(data[4:64] == 0x00)  # finite values of an infinite block: * 0
    assert data[64].item() == 0xFE and torch.all(data[65:128] == 0x78)  # NaN, 1.0 * 2^8
    assert scales.tolist() == [255, 119, 119, 119, 119, 119, 119, 0]
    rope = data[448:576].view(torch.int16)
    # the rotation takes the NaN into both values of its pair; bf16 NaN is canonical
    assert rope[:3].tolist() == [0x7FFF, 0x7FFF, 0x3F00]


def test_mxfp8_non_finite_blocks_and_rotation_overflow(ref):
    fmt = ref.cache_format(torch.empty(0, dtype=torch.uint8), True)
    backing, cache = paged_cache(fmt, num_blocks=1, block_size=1)
    big = 3.0e38  # bf16 3.0e38: x1 cos - x2 sin with a quarter turn of 45 degrees overflows
    kv, positions, _ = non_finite_token([-math.inf], [big, big])
    cos_sin = torch.cat((torch.ones(1, 32), torch.zeros(1, 32)), dim=1)
    cos_sin[0, 0] = cos_sin[0, 32] = math.sqrt(0.5)  # pair 0 turned by 45 degrees
    ref.kv_rope_insert(kv, cache, torch.tensor([0]), positions, cos_sin, 1, kv_mxfp8=True)
    record = backing[0, :528]
    assert record[0].item() == 0xFE and torch.all(record[1:32] == 0x00)  # -Inf -> NaN; 1.0 * 0
    # pair 0: even = big * c - big * s = 0 or tiny, odd = big * s + big * c overflows to +Inf
    assert record[448 + 1].item() == 0xFE  # +Inf (bf16 of the overflowed fp32) * 0 -> NaN
    assert torch.all(record[448 + 2 : 480] == 0x00)  # 0.5 of an infinite block: * 0
    scales = record[512:528].tolist()
    assert scales[0] == 255 and scales[14] == 255 and scales[15] == 118


def test_per_tensor_fp8_nan(ref):
    fp8 = ref.cache_format(torch.empty(0, dtype=torch.float8_e4m3fn), False)
    backing, cache = paged_cache(fp8, num_blocks=1, block_size=1)
    kv, positions, cos_sin = non_finite_token([math.nan, math.inf, -math.inf, -0.0], [])
    ref.kv_rope_insert(kv, cache, torch.tensor([0]), positions, cos_sin, 1, torch.tensor([2.0]))
    assert backing[0, :4].tolist() == [0xFE, 0x7E, 0xFE, 0x80]
