"""MX quantize / dequantize: the pure-torch reference of the Triton kernels in ``mxfp8.py``.

An ordinary source file, the runtime half of every generated family package: a family's
generated ``mxfp8_reference`` module holds the format's numbers (each commented with its spec
field) and configures one ``Mxfp8Reference`` with them. Nothing here is rendered.

Same math as the kernels, written the plain way: float64 block amax, the shared exponent from
``torch.frexp`` and an exact comparison with value_max * 2^n, scaling by ``torch.ldexp`` and
torch's own cast to the value dtype. Blocks holding NaN or +-inf get the NaN scale and NaN
values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

# the swizzled_128x4 scale layout: 128 x 4 tiles of 512 bytes, row r at byte (r % 32) * 16 +
# (r // 32) * 4 within its tile
SWIZZLE_ROWS = 128
SWIZZLE_COLS = 4
SWIZZLE_ROW_GROUP = 32
LAYOUTS = ("row_major", "swizzled_128x4")


@dataclass(frozen=True)
class Mxfp8Reference:
    """The reference of one MX format; its methods are what a generated module exports."""

    block_size: int
    value_dtype: str  # the torch dtype's name, e.g. "float8_e4m3fn"
    value_max: float
    scale_bias: int
    scale_min: int
    scale_max: int
    scale_nan: int  # the scale byte of a block holding NaN or +-inf
    layouts: tuple[str, ...]  # the first is the default

    def __post_init__(self) -> None:
        assert self.layouts and set(self.layouts) <= set(LAYOUTS), self.layouts
        assert isinstance(getattr(torch, self.value_dtype), torch.dtype), self.value_dtype

    def _check_layout(self, layout: str | None) -> str:
        layout = self.layouts[0] if layout is None else layout
        if layout not in self.layouts:
            raise ValueError(f"unknown scale layout {layout!r}; expected one of {self.layouts}")
        return layout

    def shared_exponent(self, amax: torch.Tensor) -> torch.Tensor:
        """sb = clamp(ceil(log2(amax / value_max)) + bias), exactly, for finite amax >= 0."""
        amax = amax.to(torch.float64).clamp(min=torch.finfo(torch.float32).tiny)
        _, exponent = torch.frexp(amax)  # amax in [2^(e-1), 2^e)
        value_max_log2 = math.frexp(self.value_max)[1] - 1  # floor(log2(value_max))
        n = exponent.to(torch.int64) - 1 - value_max_log2
        n = n + (amax > torch.ldexp(torch.full_like(amax, self.value_max), n)).to(torch.int64)
        return (n + self.scale_bias).clamp(self.scale_min, self.scale_max)

    @staticmethod
    def swizzle(scales: torch.Tensor) -> torch.Tensor:
        """[..., M, N] row-major scales -> [..., M' * N'] bytes in 128x4 tiles (zero padded)."""
        *lead, m, n = scales.shape
        mp = -(-m // SWIZZLE_ROWS) * SWIZZLE_ROWS
        np_ = -(-n // SWIZZLE_COLS) * SWIZZLE_COLS
        padded = scales.new_zeros((*lead, mp, np_))
        padded[..., :m, :n] = scales
        groups = SWIZZLE_ROWS // SWIZZLE_ROW_GROUP
        tiles = padded.reshape(
            *lead, mp // SWIZZLE_ROWS, groups, SWIZZLE_ROW_GROUP, np_ // SWIZZLE_COLS, SWIZZLE_COLS
        )
        d = len(lead)
        # -> tile row, tile column, r % 32, r // 32, c
        tiles = tiles.permute(*range(d), d, d + 3, d + 2, d + 1, d + 4)
        return tiles.reshape(*lead, mp * np_)

    @staticmethod
    def unswizzle(scales: torch.Tensor, m: int, n: int) -> torch.Tensor:
        """Inverse of ``swizzle``: [..., M' * N'] -> [..., m, n]."""
        *lead, _ = scales.shape
        mp = -(-m // SWIZZLE_ROWS) * SWIZZLE_ROWS
        np_ = -(-n // SWIZZLE_COLS) * SWIZZLE_COLS
        groups = SWIZZLE_ROWS // SWIZZLE_ROW_GROUP
        tiles = scales.reshape(
            *lead, mp // SWIZZLE_ROWS, np_ // SWIZZLE_COLS, SWIZZLE_ROW_GROUP, groups, SWIZZLE_COLS
        )
        d = len(lead)
        tiles = tiles.permute(*range(d), d, d + 3, d + 2, d + 1, d + 4)
        return tiles.reshape(*lead, mp, np_)[..., :m, :n]

    def quantize_reference(
        self, x: torch.Tensor, layout: str | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Reference quantization of x [..., M, K] to (xq, scales) in ``layout`` (default: the
        format's first layout)."""
        layout = self._check_layout(layout)
        *lead, k = x.shape
        blocks = x.to(torch.float64).reshape(*lead, k // self.block_size, self.block_size)
        amax = blocks.abs().amax(dim=-1)
        nonfinite = ~torch.isfinite(amax)
        sb = self.shared_exponent(torch.where(nonfinite, 0.0, amax))
        rescale = torch.ldexp(torch.ones_like(amax), self.scale_bias - sb)
        xq = (blocks * rescale[..., None]).to(torch.float32)
        xq = torch.where(nonfinite[..., None], float("nan"), xq).to(
            getattr(torch, self.value_dtype)
        )
        scales = torch.where(nonfinite, self.scale_nan, sb).to(torch.uint8)
        if layout == "swizzled_128x4":
            scales = self.swizzle(scales)
        return xq.reshape(x.shape), scales

    def dequantize_reference(
        self,
        xq: torch.Tensor,
        scales: torch.Tensor,
        layout: str | None = None,
        out_dtype: torch.dtype = torch.bfloat16,
    ) -> torch.Tensor:
        """Reference dequantization: xq * 2^(scale - bias) in float64, rounded to out_dtype."""
        layout = self._check_layout(layout)
        *lead, m, k = xq.shape
        if layout == "swizzled_128x4":
            scales = self.unswizzle(scales, m, k // self.block_size)
        values = xq.to(torch.float64).reshape(*lead, m, k // self.block_size, self.block_size)
        ones = torch.ones(scales.shape, dtype=torch.float64, device=scales.device)
        factor = torch.ldexp(ones, scales.to(torch.int64) - self.scale_bias)
        nan = (scales == self.scale_nan)[..., None]
        out = torch.where(nan, float("nan"), values * factor[..., None])
        return out.reshape(xq.shape).to(out_dtype)
