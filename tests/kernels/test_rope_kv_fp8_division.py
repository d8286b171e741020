"""The per-tensor fp8 KV insert divides by the scale as RN32(x * RN64(1 / scale)) in double (see
fp8_divide in dsv41gen/kernels/rope_kv_core.cuh). These CPU tests check that arithmetic itself
against IEEE float division, with numpy's correctly rounded float64 and float32 operations in the
roles of __drcp_rn, __dmul_rn and __double2float_rn: random bit patterns over the whole float
range, quotients that land on or next to float rounding boundaries, and every special value.

They also show why the kernel does not use the float reciprocal alone: x * RN32(1 / scale) in
float differs from x / scale for ordinary inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

RNG_SEED = 20261129


def kernel_divide(x: np.ndarray, scale: np.float32) -> np.ndarray:
    """fp8_divide: y = RN64(1 / scale) once, then RN32(RN64(x * y)) per value."""
    y = np.float64(1.0) / np.float64(scale)
    with np.errstate(over="ignore", invalid="ignore"):
        return (x.astype(np.float64) * y).astype(np.float32)


def ieee_divide(x: np.ndarray, scale: np.float32) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        return (x / scale).astype(np.float32)


def assert_same_floats(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-identical, except that any two NaNs are equal."""
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    bad = np.nonzero((got.view(np.uint32) != want.view(np.uint32)) & ~nan)[0]
    assert bad.size == 0, f"{bad.size} quotients differ, first x={got[bad[0]]!r}"


def random_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform over bit patterns: every exponent, subnormals, both signs, some inf and NaN."""
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)


SCALES = [
    0.37,  # the benchmark's scale: the quotients round
    1.0,
    0.5,
    3.0e-3,
    2.0**-32,
    2.0**32,
    1.0e-12,
    7.0e11,
    1.0e-40,  # a float subnormal: its reciprocal needs double's range
    3.4e38,
    1.0000001,  # next float after 1: the hard case for a float reciprocal
    -0.37,
]


@pytest.mark.parametrize("scale", SCALES)
def test_double_product_is_ieee_division_on_random_floats(scale):
    rng = np.random.default_rng(RNG_SEED)
    x = random_floats(rng, 400_000)
    s = np.float32(scale)
    assert_same_floats(kernel_divide(x, s), ieee_divide(x, s))


@pytest.mark.parametrize("scale", SCALES)
def test_double_product_is_ieee_division_next_to_rounding_boundaries(scale):
    """x = q * scale rounded to float, for q on and next to float midpoints: the quotients x / s
    that come closest to a rounding boundary of their own."""
    rng = np.random.default_rng(RNG_SEED + 1)
    s = np.float32(scale)
    q = random_floats(rng, 200_000)
    q = q[np.isfinite(q)].astype(np.float64)
    ulp = np.spacing(np.abs(q).astype(np.float32)).astype(np.float64)
    candidates = np.concatenate([q, q + ulp / 2, q - ulp / 2, q + ulp / 4])
    with np.errstate(over="ignore", invalid="ignore"):
        x = (candidates * np.float64(s)).astype(np.float32)
    x = x[np.isfinite(x)]
    assert x.size > 100_000  # most candidates stay finite, at every scale
    assert_same_floats(kernel_divide(x, s), ieee_divide(x, s))


def test_special_values():
    specials = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0e-45, -1.0e-45, 3.4028235e38, 1.1754944e-38],
        dtype=np.float32,
    )
    for scale in [*SCALES, 0.0, -0.0, np.inf, -np.inf, np.nan]:
        s = np.float32(scale)
        assert_same_floats(kernel_divide(specials, s), ieee_divide(specials, s))


def test_float_reciprocal_alone_is_not_division():
    """The arithmetic the kernel avoids: x * RN32(1 / scale) in float is off for ordinary x."""
    rng = np.random.default_rng(RNG_SEED + 2)
    x = rng.standard_normal(100_000).astype(np.float32)
    s = np.float32(0.37)
    reciprocal = np.float32(1.0) / s
    assert np.count_nonzero((x * reciprocal) != ieee_divide(x, s)) > 1000
