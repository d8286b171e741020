"""The GPU tuning scripts' variants, run through the real kernel source on the interpreter (or the
GPU) at a tiny shape, so that a source change cannot make their one-shot GPU run fail.

The sweep's variants are configuration of dsv41gen/kernels/mxfp8.py (CacheHints), not edits:
each must be bit-exact against the reference, like the shipped kernels. The ablation's variants
remove arithmetic on purpose (not always visible in the result: bf16 holds every e4m3 value
times a power of two, so truncating it changes nothing): each must build and run, the base
bit-exact."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import ablate_mxfp8_dequant  # noqa: E402
import sweep_mxfp8_variants  # noqa: E402

from dsv41gen.kernels.mxfp8 import kernel_format  # noqa: E402

SHAPE = (16, 256)  # the sweep's check pins blocks in rows 7, 9, 11 and columns up to 96


@pytest.mark.parametrize("variant", sorted(sweep_mxfp8_variants.VARIANTS))
def test_sweep_variants_are_bit_exact(mxfp8_module, mxfp8_reference_module, kernel_device, variant):
    ops = sweep_mxfp8_variants.variant_ops(mxfp8_module, sweep_mxfp8_variants.VARIANTS[variant])
    assert ops.format == kernel_format(mxfp8_module.FORMAT)
    bm, bk, nw = sweep_mxfp8_variants.LAUNCHES[-1]
    tiles = {"block_m": bm, "block_k": bk, "num_warps": nw}
    assert sweep_mxfp8_variants.exact(ops, mxfp8_reference_module, tiles, kernel_device, SHAPE)


def test_sweep_variants_differ_only_in_hints():
    hints = list(sweep_mxfp8_variants.VARIANTS.values())
    assert hints[0] == sweep_mxfp8_variants.CacheHints() and len(set(hints)) == len(hints)


@pytest.fixture(scope="module")
def quantized(mxfp8_module, kernel_device):
    x = torch.randn(*SHAPE, generator=torch.Generator().manual_seed(5)).to(torch.bfloat16)
    x[3, 40] = float("nan")
    return mxfp8_module.quantize(x.to(kernel_device))


@pytest.mark.parametrize("variant", sorted(ablate_mxfp8_dequant.VARIANTS))
def test_ablation_variants_build_and_run(
    mxfp8_module, mxfp8_reference_module, quantized, kernel_device, tmp_path, variant
):
    removals = ablate_mxfp8_dequant.VARIANTS[variant]
    ops = ablate_mxfp8_dequant.variant_ops(tmp_path, variant, removals, mxfp8_module)
    xq, s = quantized
    out = ops.dequantize(xq, s).cpu()
    want = mxfp8_reference_module.dequantize_reference(xq.cpu(), s.cpu())
    assert out.shape == want.shape and out.dtype == want.dtype
    same = (out.view(torch.int16) == want.view(torch.int16)) | (out.isnan() & want.isnan())
    if not removals:
        assert bool(same.all())
    elif "no_nan" in removals and kernel_device == "cpu":
        # Only the interpreter widens the e4m3 NaN code to a finite +-480; on the GPU the code
        # widens to NaN itself (and quantize writes a NaN block as NaN codes throughout), so
        # there the select's removal is invisible in the result and only its time can show.
        assert not bool(same.all()), "without the NaN select the NaN block must come out finite"
