"""Generated Triton MXFP8 kernels: bit-exact against the generated torch reference AND against an
independent numpy model of the format written here (e4m3 grid, round to nearest even, E8M0
exponent by brute force). Runs on the GPU when there is one, else under TRITON_INTERPRET=1 with
the same kernels (conftest.py); CPU runs use large tiles, the GPU the spec's launch section.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

# ----------------------------------------------------------------------------------------------
# Independent oracle: the OCP float8 e4m3fn format, from its definition.
# ----------------------------------------------------------------------------------------------
E4M3_MAX = 448.0
FP32_TINY = 2.0**-126


def e4m3_decode(code: np.ndarray) -> np.ndarray:
    """float64 value of each e4m3fn code (S.EEEE.MMM, bias 7, S.1111.111 is NaN)."""
    code = np.asarray(code, dtype=np.int64)
    e, m = (code >> 3) & 15, code & 7
    mag = np.where(e == 0, m * 2.0**-9, (1 + m / 8) * np.exp2(e - 7.0))
    mag = np.where((code & 0x7F) == 0x7F, np.nan, mag)
    return np.where(code & 0x80, -mag, mag)


GRID = e4m3_decode(np.arange(127))  # all finite non-negative values, increasing with the code


def e4m3_encode(v: np.ndarray) -> np.ndarray:
    """Round float64 values to e4m3fn codes: nearest, ties to the even code, saturating to 448."""
    v = np.asarray(v, dtype=np.float64)
    a = np.minimum(np.abs(v), E4M3_MAX)
    hi = np.clip(np.searchsorted(GRID, a, side="left"), 0, 126)  # first grid value >= a
    lo = np.maximum(hi - 1, 0)
    d_lo, d_hi = a - GRID[lo], GRID[hi] - a
    code = np.where(d_lo < d_hi, lo, hi)
    code = np.where((d_lo == d_hi) & (lo != hi), np.where(lo % 2 == 0, lo, hi), code)
    return (code | np.where(np.signbit(v), 0x80, 0)).astype(np.uint8)


def oracle_scale(amax: np.ndarray) -> np.ndarray:
    """E8M0 byte: smallest n with amax <= 448 * 2^n, + 127, clamped to [0, 254]; 255 for NaN/inf."""
    amax = np.asarray(amax, dtype=np.float64)
    finite = np.isfinite(amax)
    a = np.maximum(np.where(finite, amax, 1.0), FP32_TINY)
    n = np.ceil(np.log2(a / E4M3_MAX)).astype(np.int64)
    # log2 is approximate; settle n exactly with comparisons that are exact in float64
    n = np.where(a > np.ldexp(E4M3_MAX, n), n + 1, n)
    n = np.where(a <= np.ldexp(E4M3_MAX, n - 1), n - 1, n)
    return np.where(finite, np.clip(n + 127, 0, 254), 255).astype(np.uint8)


def oracle_quantize(x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Row-major (codes, scales) of x [..., K] by the oracle."""
    xf = x.detach().cpu().to(torch.float64).numpy()
    blocks = xf.reshape(*xf.shape[:-1], -1, 32)
    with np.errstate(invalid="ignore"):
        amax = np.abs(blocks).max(axis=-1)  # NaN propagates
    sb = oracle_scale(amax)
    v = blocks * np.ldexp(1.0, 127 - np.minimum(sb.astype(np.int64), 254))[..., None]
    codes = e4m3_encode(np.where(np.isfinite(v), v, 0.0))
    codes = np.where((sb == 255)[..., None], 0x7F, codes).astype(np.uint8)
    return codes.reshape(xf.shape), sb


# ----------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------
INT_VIEW = {torch.bfloat16: torch.int16, torch.float16: torch.int16, torch.float32: torch.int32}


def bits(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().view(INT_VIEW.get(t.dtype, torch.uint8)).numpy()


def assert_same_bits(a: torch.Tensor, b: torch.Tensor) -> None:
    """Bit-identical, except that any two NaNs are equal (torch's NaN payloads vary by path)."""
    assert a.shape == b.shape and a.dtype == b.dtype
    na, nb = torch.isnan(a.float()).cpu(), torch.isnan(b.float()).cpu()
    assert torch.equal(na, nb), "NaN positions differ"
    ba, bb = bits(a), bits(b)
    keep = ~na.numpy()
    bad = np.nonzero((ba != bb) & keep)
    assert bad[0].size == 0, f"{bad[0].size} elements differ, first at {[i[0] for i in bad]}"


def codes_of(xq: torch.Tensor) -> np.ndarray:
    return xq.detach().cpu().view(torch.uint8).numpy()


@pytest.fixture
def run(mxfp8_module, mxfp8_reference_module, mxfp8_tiles, kernel_device):
    """Quantize on the kernel device; check kernel == reference == oracle; return the results."""

    def check(x: torch.Tensor, layout: str = "row_major"):
        xd = x.to(kernel_device)
        xq, s = mxfp8_module.quantize(xd, layout, **mxfp8_tiles)
        rq, rs = mxfp8_reference_module.quantize_reference(x.cpu(), layout)
        assert xq.dtype == torch.float8_e4m3fn and s.dtype == torch.uint8
        assert xq.shape == x.shape
        np.testing.assert_array_equal(codes_of(xq), codes_of(rq), err_msg="kernel vs reference xq")
        np.testing.assert_array_equal(s.cpu().numpy(), rs.numpy(), err_msg="kernel vs ref scales")
        oq, os_ = oracle_quantize(x)
        np.testing.assert_array_equal(codes_of(xq), oq, err_msg="kernel vs oracle xq")
        if layout == "row_major":
            np.testing.assert_array_equal(s.cpu().numpy(), os_, err_msg="kernel vs oracle scales")
        return xq, s

    return check


def anchored(values: np.ndarray, scale_exp: int = 0) -> torch.Tensor:
    """fp32 rows of 32: 448 * 2^scale_exp first (pins sb = 127 + scale_exp), then 31 values
    (multiplied by 2^scale_exp), zero padded."""
    values = np.asarray(values, dtype=np.float64)
    rows = -(-values.size // 31)
    out = np.zeros((rows, 32))
    out[:, 0] = E4M3_MAX
    flat = np.zeros(rows * 31)
    flat[: values.size] = values
    out[:, 1:] = flat.reshape(rows, 31)
    return torch.from_numpy(np.ldexp(out, scale_exp)).to(torch.float32)


# ----------------------------------------------------------------------------------------------
# Correctness
# ----------------------------------------------------------------------------------------------
def test_oracle_itself_on_hand_worked_values():
    # Hand-worked: the oracle must agree with values computed on paper before it judges anything.
    assert e4m3_decode(np.array([0x7E, 0x08, 0x01, 0x38, 0xB8, 0x7F]))[:5].tolist() == [
        448.0,
        2.0**-6,
        2.0**-9,
        1.0,
        -1.0,
    ]
    cases = {
        448.0: 0x7E,
        464.0: 0x7E,  # saturates
        1.0: 0x38,
        1.0625: 0x38,  # tie between 1.0 (0x38) and 1.125 (0x39): even code
        1.1875: 0x3A,  # tie between 1.125 (0x39) and 1.25 (0x3A): even code
        15.5: 0x58,  # tie between 15 (0x57) and 16 (0x58): carry into the next exponent
        2.0**-10: 0x00,  # half the smallest subnormal: ties to zero
        3 * 2.0**-10: 0x02,  # tie between 1 and 2 subnormal steps: even
        -0.0: 0x80,
        -(2.0**-12): 0x80,
    }
    got = e4m3_encode(np.array(list(cases)))
    assert [int(c) for c in got] == list(cases.values())
    assert oracle_scale(np.array([448.0, 448.0 * (1 + 2**-23), 1.0, 0.0, np.inf])).tolist() == [
        127,
        128,
        119,  # 1.0 <= 448 * 2^-8 = 1.75 and > 448 * 2^-9 = 0.875
        0,
        255,
    ]


def test_hand_worked_blocks(run):
    x = torch.zeros(4, 32)
    x[0, 0] = 1.0  # sb = 119 (1.0 <= 1.75 = 448 * 2^-8), xq = 1.0 * 2^8 = 256 -> 0x78
    x[1, :3] = torch.tensor([448.0, 0.5, -(2.0**-9)])  # sb = 127: 0x7E, 0x30, 0x81
    x[2, :2] = torch.tensor([-3.0, 2.0**-20])  # sb = 127 - 7 = 120 (3 <= 1.75 * 2): 384 -> 0xFC
    x[3, :2] = torch.tensor([2.0**-149, -(2.0**-140)])  # amax floored: sb = 0, x * 2^127
    xq, s = run(x)
    assert s.cpu().flatten().tolist() == [119, 127, 120, 0]
    c = codes_of(xq)
    assert [c[0, 0], c[1, 0], c[1, 1], c[1, 2], c[2, 0]] == [0x78, 0x7E, 0x30, 0x81, 0xFC]
    # 2^-149 * 2^127 = 2^-22 rounds to +0; -2^-140 * 2^127 = -2^-13 rounds to -0
    assert [c[3, 0], c[3, 1], c[3, 2]] == [0x00, 0x80, 0x00]


@pytest.mark.parametrize("scale_exp", [0, -127, -60, 100])
def test_exhaustive_bf16_values(run, scale_exp):
    """Every finite bf16 with |x| <= 448, each in a block anchored at 448 (sb = 127 + scale_exp).
    scale_exp = -127 puts the anchor's block at sb = 0 with values deep in the subnormal range."""
    pats = np.arange(1 << 16, dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        vals = (pats << 16).view(np.float32).astype(np.float64)
    vals = vals[np.isfinite(vals) & (np.abs(vals) <= E4M3_MAX)]
    x = anchored(vals, scale_exp).to(torch.bfloat16)
    assert torch.isfinite(x).all()
    _, s = run(x)
    assert (s.cpu() == max(0, 127 + scale_exp)).all()


def test_ties_carries_and_subnormal_boundaries_fp32(run):
    """Midpoints of every pair of neighbouring e4m3 values (exact ties), one fp32 ulp either side,
    both signs, at several block scales. Covers carries into the next exponent (e.g. 15.5 -> 16),
    the subnormal/normal boundary and the half-smallest-subnormal boundary."""
    grid = GRID
    mids = (grid[:-1] + grid[1:]) / 2
    mids32 = mids.astype(np.float32)
    assert np.array_equal(mids32.astype(np.float64), mids)  # exact in fp32
    near = np.concatenate(
        [
            mids,
            np.nextafter(mids32, np.float32(np.inf)).astype(np.float64),
            np.nextafter(mids32, np.float32(0)).astype(np.float64),
            grid,
            [2.0**-10, 2.0**-11, 2.0**-149],
        ]
    )
    vals = np.concatenate([near, -near])
    for scale_exp in (0, -126, -120, 7, 119):
        x = anchored(vals, scale_exp)
        assert torch.isfinite(x).all()
        run(x)


MAGNITUDES = {
    torch.bfloat16: [1e-38, 1e-20, 1e-3, 1.0, 1e4, 1e30],
    torch.float16: [1e-6, 1e-3, 1.0, 300.0, 1e4],
    torch.float32: [1e-40, 1e-30, 1e-3, 1.0, 1e4, 1e35],
}


@pytest.mark.parametrize("layout", ["row_major", "swizzled_128x4"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_random_magnitudes_2d_3d_strided(run, dtype, layout):
    gen = torch.Generator().manual_seed(1234)
    mags = torch.tensor(MAGNITUDES[dtype])
    # 2-D, M not a multiple of 128 and K / 32 not a multiple of 4 (exercises swizzle padding)
    x = torch.randn(130, 160, generator=gen) * mags[torch.arange(130) % len(mags)][:, None]
    run(x.to(dtype), layout)
    # 3-D
    x3 = torch.randn(3, 37, 96, generator=gen) * mags[torch.arange(37) % len(mags)][:, None]
    run(x3.to(dtype), layout)
    # row stride: a column window of a wider tensor
    wide = torch.randn(45, 256, generator=gen).to(dtype)
    window = wide[:, 64:192]
    assert not window.is_contiguous() and window.stride(-1) == 1
    run(window, layout)
    # 3-D with a batch stride that is not M * row stride
    big = torch.randn(2, 40, 128, generator=gen).to(dtype)
    run(big[:, 3:36, :64], layout)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_subnormal_blocks(run, dtype):
    """Blocks made only of fp32 / bf16 subnormals (random bit patterns), and mixed with zeros."""
    gen = np.random.default_rng(7)
    if dtype == torch.float32:
        pats = gen.integers(1, 1 << 23, size=(64, 64), dtype=np.uint32)
        pats |= gen.integers(0, 2, size=pats.shape, dtype=np.uint32) << 31
        x = torch.from_numpy(pats.view(np.float32).copy())
    else:
        pats = gen.integers(1, 1 << 7, size=(64, 64), dtype=np.uint16)
        pats |= gen.integers(0, 2, size=pats.shape, dtype=np.uint16) << 15
        x = torch.from_numpy(pats.view(np.int16).copy()).view(torch.bfloat16)
    x[::3, :32] = 0
    assert (x.float().abs() < FP32_TINY).all()
    xq, s = run(x)
    assert (s.cpu() == 0).all()
    assert (codes_of(xq)[1::3, :] & 0x7F).any(), "subnormal inputs must not all flush to zero"


def test_zero_blocks(run):
    x = torch.zeros(8, 64)
    x[1] = -0.0
    xq, s = run(x)
    assert (s.cpu() == 0).all()
    c = codes_of(xq)
    assert (c[0] == 0).all() and (c[1] == 0x80).all()


def test_amax_exactly_448_times_power_of_two(run):
    """amax == 448 * 2^k: sb = 127 + k (clamped at 0), the amax element encodes to 448 (0x7E);
    one fp32 ulp more takes the next exponent."""
    ks = np.arange(-155, 120)  # 448 * 2^k = 7 * 2^(k + 6) is an fp32 for these
    exact = np.ldexp(E4M3_MAX, ks).astype(np.float32)
    assert np.array_equal(exact.astype(np.float64), np.ldexp(E4M3_MAX, ks))
    above = np.nextafter(exact, np.float32(np.inf))
    x = torch.zeros(2 * ks.size, 32)
    x[0::2, 5] = torch.from_numpy(exact)
    x[0::2, 9] = -torch.from_numpy(exact) / 3
    x[1::2, 5] = -torch.from_numpy(above)
    xq, s = run(x)
    s = s.cpu().numpy()[:, 0].astype(np.int64)
    assert s[0::2].tolist() == np.clip(127 + ks, 0, 254).tolist()
    assert s[1::2].tolist() == np.clip(128 + ks, 0, 254).tolist()
    normal = ks >= -127  # where the exponent is not clamped, 448 * 2^k scales to exactly 448
    assert (codes_of(xq)[0::2, 5][normal] == 0x7E).all()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_nonfinite_policy(run, mxfp8_module, mxfp8_tiles, kernel_device, dtype):
    """A block holding NaN or +-inf: scale 255 (E8M0 NaN), every value the NaN code 0x7F, and
    dequantization NaN across the block; the other blocks of the row are untouched."""
    x = torch.randn(4, 96, generator=torch.Generator().manual_seed(3)).to(dtype)
    x[0, 40] = float("nan")
    x[1, 0] = float("inf")
    x[2, 95] = float("-inf")
    xq, s = run(x)
    s = s.cpu()
    assert s[0, 1] == 255 and s[1, 0] == 255 and s[2, 2] == 255
    assert (codes_of(xq)[0, 32:64] == 0x7F).all()
    assert (codes_of(xq)[1, 0:32] == 0x7F).all()
    assert s[0, 0] != 255 and s[0, 2] != 255 and (s[3] != 255).all()
    out = mxfp8_module.dequantize(xq, s.to(kernel_device), "row_major", dtype, **mxfp8_tiles).cpu()
    assert torch.isnan(out[0, 32:64]).all() and torch.isnan(out[1, :32]).all()
    assert torch.isfinite(out[0, :32]).all() and torch.isfinite(out[3]).all()


@pytest.mark.parametrize("layout", ["row_major", "swizzled_128x4"])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_dequantize_every_code_and_scale(
    mxfp8_module, mxfp8_reference_module, mxfp8_tiles, kernel_device, layout, out_dtype
):
    """All 256 codes under scales 0 (the subnormal 2^-127 factor), 1, 100, 127, 200, 254, 255:
    kernel == reference, and == the oracle's float64 value rounded once to out_dtype."""
    scales_list = [0, 1, 100, 127, 200, 254, 255]
    codes = torch.arange(256, dtype=torch.uint8).repeat(len(scales_list), 1)  # [7, 256]
    xq = codes.view(torch.float8_e4m3fn)
    rm = torch.tensor(scales_list, dtype=torch.uint8)[:, None].repeat(1, 8)
    ref = mxfp8_reference_module
    s = ref.swizzle(rm) if layout == "swizzled_128x4" else rm
    out = mxfp8_module.dequantize(
        xq.to(kernel_device), s.to(kernel_device), layout, out_dtype, **mxfp8_tiles
    ).cpu()
    assert_same_bits(out, ref.dequantize_reference(xq, s, layout, out_dtype))
    exact = e4m3_decode(codes.numpy()) * np.ldexp(1.0, np.array(scales_list) - 127)[:, None]
    exact = np.where(np.array(scales_list)[:, None] == 255, np.nan, exact)
    # float64 -> float32 is exact here (4 significant bits, >= 2^-136); torch rounds once more
    expected = torch.from_numpy(exact.astype(np.float32)).to(out_dtype)
    assert_same_bits(out, expected)


def test_round_trip_within_documented_bound(mxfp8_module, mxfp8_plan, mxfp8_tiles, kernel_device):
    """|dq(q(x)) - x| <= max(|x| * 2^-4, 2^(sb - 127 - 10)) (half an ulp of e4m3's 3-bit mantissa,
    or half its smallest subnormal step at the block's scale); the bound is also attained."""
    assert (mxfp8_plan.round_trip_rel_exp, mxfp8_plan.round_trip_abs_exp) == (4, -10)
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(96, 256, generator=gen) * torch.logspace(-30, 30, 96)[:, None]
    x[5, :32] = torch.randn(32, generator=gen) * 1e-39  # subnormal block
    xd = x.to(kernel_device)
    xq, s = mxfp8_module.quantize(xd, "row_major", **mxfp8_tiles)
    dq = mxfp8_module.dequantize(xq, s, "row_major", torch.float32, **mxfp8_tiles).cpu()
    x64, dq64 = x.double().numpy(), dq.double().numpy()
    sb = np.repeat(s.cpu().numpy().astype(np.int64), 32, axis=1)
    bound = np.maximum(np.abs(x64) * 2.0**-4, np.ldexp(1.0, sb - 127 - 10))
    err = np.abs(dq64 - x64)
    assert (err <= bound).all()
    assert (err / bound).max() > 0.9


def test_swizzled_layout_positions(mxfp8_module, mxfp8_tiles, kernel_device):
    """Hand formula: scale (r, c) at tile (r // 128, c // 4) of 512 bytes, byte (r % 32) * 16 +
    (r // 32) % 4 * 4 + c % 4; rows and columns past M, K / 32 are zero padding."""
    m, nb = 130, 5  # -> padded 256 x 8, two tile columns
    x = torch.zeros(m, nb * 32)
    # block (r, c) gets amax 448 * 2^((r + 3 * c) % 50 - 25) so every scale is distinct-ish
    r_idx, c_idx = torch.meshgrid(torch.arange(m), torch.arange(nb), indexing="ij")
    exps = (r_idx + 3 * c_idx) % 50 - 25
    x[:, ::32] = 448.0 * torch.exp2(exps.float())
    _, s = mxfp8_module.quantize(x.to(kernel_device), "swizzled_128x4", **mxfp8_tiles)
    s = s.cpu().numpy()
    assert s.shape == (256 * 8,)
    expected = np.zeros(256 * 8, dtype=np.int64)
    for r in range(m):
        for c in range(nb):
            pos = ((r // 128) * 2 + c // 4) * 512 + (r % 32) * 16 + (r // 32) % 4 * 4 + c % 4
            expected[pos] = 127 + exps[r, c]
    np.testing.assert_array_equal(s, expected)


def test_empty_input(mxfp8_module, kernel_device):
    x = torch.zeros(0, 64, device=kernel_device, dtype=torch.bfloat16)
    xq, s = mxfp8_module.quantize(x)
    assert xq.shape == (0, 64) and s.shape == (0, 2)


# ----------------------------------------------------------------------------------------------
# Subnormal safety
# ----------------------------------------------------------------------------------------------
def ftz(v: np.ndarray) -> np.ndarray:
    """Flush-to-zero emulation of a float32 result or operand (CDNA's default)."""
    v = np.asarray(v, dtype=np.float32)
    return np.where(np.abs(v) < np.float32(FP32_TINY), np.float32(0) * np.sign(v), v)


def test_subnormal_safety_every_reachable_scale(run, mxfp8_plan):
    """Drive the kernel through every amax exponent class (each fp32 biased exponent, with the
    fraction at, just above and below value_max's), plus NaN and inf, and collect every sb it
    produces. For each one, every scale-derived fp32 intermediate of the generated kernels is
    normal: the reciprocal 2^(127 - sb), the two dequantization factors, the rounding magic
    (data-dependent products of subnormal inputs are the data's own, not scale intermediates)."""
    consts = {c.name: c.literal for c in mxfp8_plan.constants}
    amaxes = []
    for e in range(0, 255):
        for frac in (0, 0x600000, 0x600001, 0x5FFFFF, 0x7FFFFF):
            amaxes.append(np.uint32((e << 23) | frac).view(np.float32))
    x = torch.zeros(len(amaxes) + 2, 32)
    x[: len(amaxes), 0] = torch.from_numpy(np.array(amaxes, dtype=np.float32))
    x[-2, 3], x[-1, 4] = float("inf"), float("nan")
    _, s = run(x)
    reached = sorted(set(s.cpu().numpy().ravel().tolist()))
    assert reached == list(range(0, mxfp8_plan.reachable_scale_max + 1)) + [255]
    for sb in reached[:-1] + [mxfp8_plan.reachable_scale_max_nan]:
        # the kernel's reciprocal: (RESCALE_EXP_BASE - sb) << 23, checked against 2^(127 - sb)
        recip = np.uint32((int(consts["RESCALE_EXP_BASE"]) - sb) << 23).view(np.float32)
        assert float(recip) == 2.0 ** (127 - sb) and float(recip) >= FP32_TINY, sb
        exp_hi = (sb - 127) >> 1
        for factor_exp in (exp_hi, sb - 127 - exp_hi):
            assert -126 <= factor_exp <= 127, sb
    # the rounding magic 1.5 * 2^(e + 20) for every exponent e a scaled value can have (it is
    # floored at the smallest normal, -6, and |scaled| <= 448 < 2^9)
    for e in range(-6, 9):
        magic_bits = ((e + 127) << 23) + int(consts["VALUE_MAGIC_OFFSET"], 16)
        magic = float(np.uint32(magic_bits).view(np.float32))
        assert magic == 1.5 * 2.0 ** (e + 20) and magic >= FP32_TINY
    # the amax floor is fp32's smallest normal
    assert int(consts["AMAX_FLOOR_BITS"], 16) == np.float32(FP32_TINY).view(np.uint32)


def test_ftz_divide_form_nans_where_reciprocal_form_gives_zeros(run):
    """Under flush-to-zero, dividing an all-zero block by 2^(sb - 127) = 2^-127 (sb == 0) is 0/0;
    multiplying by 2^(127 - sb) gives zeros. The generated kernel gives zeros (sb = 0)."""
    block = np.zeros(32, dtype=np.float32)
    sb = int(oracle_scale(np.array([0.0]))[0])
    assert sb == 0
    divisor = ftz(np.float32(2.0 ** (sb - 127)))
    assert np.float32(2.0 ** (sb - 127)) != 0 and divisor == 0  # subnormal, flushed
    with np.errstate(invalid="ignore", divide="ignore"):
        divided = ftz(ftz(block) / divisor)
    assert np.isnan(divided).all()
    multiplied = ftz(ftz(block) * ftz(np.float32(2.0 ** (127 - sb))))
    assert (multiplied == 0).all() and not np.isnan(multiplied).any()
    # and the real kernel on all-zero blocks
    xq, s = run(torch.zeros(4, 64))
    assert (s.cpu() == 0).all() and (codes_of(xq) == 0).all()


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------
def test_launcher_errors(mxfp8_module, kernel_device):
    mx = mxfp8_module
    x = torch.zeros(4, 64, device=kernel_device)
    with pytest.raises(ValueError, match=r"K = 48 .*multiple of the block size 32"):
        mx.quantize(torch.zeros(4, 48, device=kernel_device))
    with pytest.raises(ValueError, match="2-D .* or 3-D"):
        mx.quantize(torch.zeros(64, device=kernel_device))
    with pytest.raises(ValueError, match="dtype torch.int32 is not supported"):
        mx.quantize(torch.zeros(4, 64, dtype=torch.int32, device=kernel_device))
    with pytest.raises(ValueError, match="unit stride along K"):
        mx.quantize(torch.zeros(64, 4, device=kernel_device).t())
    with pytest.raises(ValueError, match="unknown scale layout 'col_major'"):
        mx.quantize(x, "col_major")
    with pytest.raises(ValueError, match="block_k = 48 must be a power of two"):
        mx.quantize(x, block_k=48)
    with pytest.raises(ValueError, match="M = 65536 needs 65536 row tiles of block_m = 1"):
        mx.quantize(torch.zeros(65536, 32, device=kernel_device), block_m=1)
    other = "cuda" if kernel_device == "cpu" else "cpu"
    with pytest.raises(ValueError, match=f"must be on a {kernel_device} device"):
        mx.quantize(torch.zeros(4, 64, device="meta" if other == "cuda" else other))
    xq, s = mx.quantize(x)
    with pytest.raises(ValueError, match="scales shape"):
        mx.dequantize(xq, s[:, :1].contiguous())
    with pytest.raises(ValueError, match="xq dtype must be torch.float8_e4m3fn"):
        mx.dequantize(xq.view(torch.uint8), s)
    with pytest.raises(ValueError, match="out_dtype torch.int8 is not supported"):
        mx.dequantize(xq, s, out_dtype=torch.int8)


def test_out_writes_into_the_callers_tensors(mxfp8_module, kernel_device):
    """quantize(x, out=(xq, scales)) and dequantize(xq, scales, out=o) write the bytes the
    allocating calls return into the caller's tensors and return those tensors (issue 29: the
    launch path without allocations)."""
    mx = mxfp8_module
    x = torch.randn(3, 40, 96, device=kernel_device).bfloat16()
    for layout in ("row_major", "swizzled_128x4"):
        want_q, want_s = mx.quantize(x, layout)
        xq = torch.full_like(want_q.view(torch.uint8), 0xAB).view(want_q.dtype)
        s = torch.full_like(want_s, 0xCD)
        got_q, got_s = mx.quantize(x, layout, out=(xq, s))
        assert got_q is xq and got_s is s
        assert torch.equal(xq.view(torch.uint8), want_q.view(torch.uint8))
        assert torch.equal(s, want_s)
        for out_dtype in (torch.bfloat16, torch.float32):
            want = mx.dequantize(xq, s, layout, out_dtype)
            out = torch.full(x.shape, 7.0, dtype=out_dtype, device=kernel_device)
            assert mx.dequantize(xq, s, layout, out_dtype, out=out) is out
            assert torch.equal(out.view(torch.uint8), want.view(torch.uint8))


def test_out_is_checked(mxfp8_module, kernel_device):
    mx = mxfp8_module
    x = torch.randn(4, 64, device=kernel_device)
    xq, s = mx.quantize(x)
    with pytest.raises(ValueError, match=r"out must be a tuple \(xq, scales\)"):
        mx.quantize(x, out=xq)
    with pytest.raises(ValueError, match=r"out\[0\] must be \(4, 64\) torch.float8_e4m3fn here"):
        mx.quantize(x, out=(xq[:2], s))
    with pytest.raises(ValueError, match=r"out\[1\] must be \(4, 2\) torch.uint8 here"):
        mx.quantize(x, out=(xq, s.view(torch.int8)))
    with pytest.raises(ValueError, match=r"out\[1\] must be a tensor, got list"):
        mx.quantize(x, out=(xq, [0]))
    with pytest.raises(ValueError, match=r"out\[0\] must be contiguous"):
        strided = torch.empty(64, 4, dtype=xq.dtype, device=kernel_device).t()
        mx.quantize(x, out=(strided, s))
    with pytest.raises(ValueError, match=r"out\[0\] must be \(4, 64\) torch.bfloat16 here"):
        mx.dequantize(xq, s, out=torch.empty(4, 64, device=kernel_device))
    with pytest.raises(ValueError, match=r"out\[0\] must be on"):
        mx.dequantize(xq, s, out=torch.empty(4, 64, dtype=torch.bfloat16, device="meta"))


def test_known_launch_class_keeps_every_check(mxfp8_module, kernel_device):
    """A call's checks run once per launch class (shape, strides, dtypes, devices, layout,
    overrides): an input of a known shape but another stride or dtype is a new class, checked
    again, and a rejected call leaves the known class working."""
    mx = mxfp8_module
    x = torch.randn(64, 64, device=kernel_device)
    want_q, want_s = mx.quantize(x)
    with pytest.raises(ValueError, match="unit stride along K"):
        mx.quantize(x.t())
    with pytest.raises(ValueError, match="dtype torch.int32 is not supported"):
        mx.quantize(x.to(torch.int32))
    got_q, got_s = mx.quantize(x)
    assert torch.equal(got_q.view(torch.uint8), want_q.view(torch.uint8))
    assert torch.equal(got_s, want_s)
    with pytest.raises(ValueError, match="xq and scales must be contiguous"):
        mx.dequantize(want_q.t().contiguous().t(), want_s)
    assert torch.equal(mx.dequantize(want_q, want_s), mx.dequantize(got_q, got_s))


def test_no_warnings_from_normal_data(mxfp8_module, mxfp8_tiles, kernel_device):
    """Finite data runs without numpy overflow / invalid warnings in the interpreter."""
    x = torch.randn(16, 64, device=kernel_device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xq, s = mxfp8_module.quantize(x, **mxfp8_tiles)
        mxfp8_module.dequantize(xq, s, **mxfp8_tiles)


# ----------------------------------------------------------------------------------------------
# Generated text
# ----------------------------------------------------------------------------------------------
def test_rendered_modules_are_ruff_clean(mxfp8_rendered_dir):
    """The rendered kernels and reference are what `ruff format` writes, and lint clean, under
    the project's ruff configuration."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed here")
    config = Path(__file__).resolve().parents[2] / "pyproject.toml"
    files = sorted(str(p) for p in mxfp8_rendered_dir.glob("*.py"))
    for args in (["format", "--check"], ["check"]):
        proc = subprocess.run(
            [ruff, *args, "--config", str(config), *files], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def _triton_specialization(arg):
    """Triton's own specialization of a non-constexpr kernel argument (what its launch path keys
    the compiled kernel on), from the CUDA backend it compiles the kernels with."""
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.nvidia.compiler import CUDABackend

    return native_specialize_impl(CUDABackend, arg, False, True, True)


def test_argument_class_refines_triton_specialization():
    """The launchers reuse a compiled kernel for every call in one argument class
    (dsv41gen/kernels/mxfp8.py, _arg_class): each class must hold one Triton specialization."""
    from dsv41gen.kernels.mxfp8 import _arg_class

    ints = [0, 1, 2, 3, 15, 16, 17, 31, 32, 48, 224, 7168, 7169, 65535]
    ints += [2**31 - 16, 2**31 - 1, 2**31, 2**31 + 1, 2**31 + 16, 2**32, 2**40 + 3]
    ints += [2**63 - 16, 2**63 - 1, 2**63, 2**63 + 16, 2**64 - 1, 2**64 - 16]
    ints += [-1, -16, -17, -(2**31), -(2**31) - 1, -(2**31) - 16]
    base = torch.empty(4096, dtype=torch.bfloat16)
    tensors = [base[offset:] for offset in range(0, 24)]  # 2-byte steps: aligned every 8th
    seen: dict[tuple, set] = {}
    for arg in ints + tensors:
        kind = "int" if type(arg) is int else "tensor"
        seen.setdefault((kind, _arg_class(arg)), set()).add(_triton_specialization(arg))
    split = {key: specs for key, specs in seen.items() if len(specs) > 1}
    assert not split, f"argument classes holding several Triton specializations: {split}"
    # and the class is not trivially fine: aligned and misaligned pointers, 1, D and plain ints
    assert {("tensor", 2), ("tensor", 0), ("int", 1), ("int", 2), ("int", 0)} <= set(seen)


def test_a_patched_copy_uses_the_installed_cpp_launcher(tmp_path, monkeypatch):
    """A copy of the kernels module elsewhere (the benchmarks' ablations), which has no
    triton_launch.cpp beside it, takes the installed module's C++ launcher instead of failing to
    build one (and warning) or loading a second copy of the extension."""
    from dsv41gen.kernels import mxfp8 as installed

    copy_path = tmp_path / "mxfp8_patched_copy.py"
    copy_path.write_text(Path(installed.__file__).read_text())
    spec = importlib.util.spec_from_file_location("mxfp8_patched_copy", copy_path)
    copy = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = copy  # triton.jit looks the module up by name
    try:
        spec.loader.exec_module(copy)
        sentinel = object()
        monkeypatch.setattr(installed, "_native_module", lambda: sentinel)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert copy._native_module() is sentinel
    finally:
        del sys.modules[spec.name]
