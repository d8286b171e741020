"""The GPU tuning scripts patch the rendered MXFP8 kernels textually; check on the CPU that every
patch still finds its anchor in today's kernels and changes them, so a template change cannot
make the one-shot GPU run fail on a stale anchor."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import ablate_mxfp8_dequant  # noqa: E402
import sweep_mxfp8_variants  # noqa: E402
from bench_mxfp8 import load_modules  # noqa: E402


@pytest.fixture(scope="module")
def rendered_kernels(tmp_path_factory) -> str:
    _, module, _ = load_modules(tmp_path_factory.mktemp("mxfp8"))
    return Path(module.__file__).read_text()


@pytest.mark.parametrize("variant", sorted(sweep_mxfp8_variants.VARIANTS))
def test_sweep_patches_apply(rendered_kernels, variant):
    patched = sweep_mxfp8_variants.VARIANTS[variant](rendered_kernels)
    assert (patched == rendered_kernels) == (variant == "base")
    compile(patched, f"<sweep {variant}>", "exec")


@pytest.mark.parametrize("variant", sorted(ablate_mxfp8_dequant.VARIANTS))
def test_ablation_patches_apply(rendered_kernels, variant):
    removals = ablate_mxfp8_dequant.VARIANTS[variant]
    patched = ablate_mxfp8_dequant.patched(rendered_kernels, removals)
    assert (patched == rendered_kernels) == (not removals)
    compile(patched, f"<ablation {variant}>", "exec")
