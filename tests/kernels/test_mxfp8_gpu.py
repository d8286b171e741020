"""MXFP8 kernels on the GPU at the spec's launch parameters and at the benchmark's sizes,
bit-exact against the generated reference (computed on the same GPU in float64). The full
correctness suite in test_mxfp8.py also runs on the GPU when CUDA is available."""

from __future__ import annotations

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def _check(mx, ref, x, layout):
    xq, s = mx.quantize(x, layout)
    rq, rs = ref.quantize_reference(x, layout)
    assert torch.equal(xq.view(torch.uint8), rq.view(torch.uint8)), "xq differs"
    assert torch.equal(s, rs), "scales differ"
    return xq, s


@pytest.mark.parametrize("layout", ["row_major", "swizzled_128x4"])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("shape", [(128, 7168), (4096, 7168), (3, 1000, 4096)])
def test_bit_exact_at_spec_launch(mxfp8_module, mxfp8_reference_module, shape, dtype, layout):
    gen = torch.Generator(device="cuda").manual_seed(hash((shape, str(dtype))) % 2**31)
    x = torch.randn(shape, device="cuda", generator=gen)
    x = x * torch.logspace(-4, 4, shape[-2], device="cuda")[:, None]
    x = x.to(dtype)
    xq, s = _check(mxfp8_module, mxfp8_reference_module, x, layout)
    for out_dtype in (torch.bfloat16, torch.float32):
        out = mxfp8_module.dequantize(xq, s, layout, out_dtype)
        want = mxfp8_reference_module.dequantize_reference(xq, s, layout, out_dtype)
        assert torch.equal(out, want)


def test_bit_exact_large_strided(mxfp8_module, mxfp8_reference_module):
    wide = torch.randn(16384, 7168 + 256, device="cuda", dtype=torch.bfloat16)
    _check(mxfp8_module, mxfp8_reference_module, wide[:, 128 : 128 + 7168], "row_major")


def test_bit_exact_65536x4096(mxfp8_module, mxfp8_reference_module):
    x = torch.randn(65536, 4096, device="cuda", dtype=torch.bfloat16)
    _check(mxfp8_module, mxfp8_reference_module, x, "swizzled_128x4")


@pytest.mark.parametrize("tiles", [(8, 1024, 4), (4, 1024, 4), (16, 512, 4), (4, 2048, 4)])
def test_bit_exact_other_launches(mxfp8_module, mxfp8_reference_module, tiles):
    """Candidate launch parameters for the spec are bit-exact too (the sweep times them)."""
    bm, bk, nw = tiles
    x = torch.randn(1000, 7168, device="cuda", dtype=torch.bfloat16)
    x[7, :32] = 0
    x[9, 64:96] = torch.finfo(torch.bfloat16).tiny / 3
    for layout in ("row_major", "swizzled_128x4"):
        xq, s = mxfp8_module.quantize(x, layout, block_m=bm, block_k=bk, num_warps=nw)
        rq, rs = mxfp8_reference_module.quantize_reference(x, layout)
        assert torch.equal(xq.view(torch.uint8), rq.view(torch.uint8)) and torch.equal(s, rs)
        out = mxfp8_module.dequantize(xq, s, layout, block_m=bm, block_k=bk, num_warps=nw)
        assert torch.equal(out, mxfp8_reference_module.dequantize_reference(xq, s, layout))


def test_direct_launch_across_argument_classes(mxfp8_module, mxfp8_reference_module):
    """After Triton's first launch of a configuration, the launchers call the compiled kernel
    directly, one per argument class (16-byte alignment, == 1, divisibility by 16): calls that
    alternate between classes, each repeated, stay bit-exact."""
    flat = torch.randn(64 * 4096 + 64, device="cuda", dtype=torch.bfloat16)
    cases = []
    for m in (1, 16, 17, 64):
        for offset in (0, 1, 8):  # 2-byte steps: offset 1 misaligns x, 8 is 16-byte aligned
            cases.append(flat[offset : offset + m * 4096].view(m, 4096))
    for _ in range(3):
        for x in cases:
            for layout in ("row_major", "swizzled_128x4"):
                xq, s = _check(mxfp8_module, mxfp8_reference_module, x, layout)
                out = mxfp8_module.dequantize(xq, s, layout)
                want = mxfp8_reference_module.dequantize_reference(xq, s, layout, torch.bfloat16)
                assert torch.equal(out, want)


def test_direct_launch_calls_triton_launch_hooks(mxfp8_module):
    """A profiler's Triton launch hook (knobs.runtime.launch_enter_hook) sees the direct
    launches too, with Triton's launch metadata."""
    from triton import knobs

    x = torch.randn(128, 7168, device="cuda", dtype=torch.bfloat16)
    mxfp8_module.quantize(x)  # Triton's first launch of the configuration
    names = []

    def hook(metadata):
        names.append(metadata.get()["name"])

    knobs.runtime.launch_enter_hook.add(hook)
    try:
        mxfp8_module.quantize(x)
        mxfp8_module.quantize(x)
    finally:
        knobs.runtime.launch_enter_hook.remove(hook)
    torch.cuda.synchronize()
    assert names == ["_quantize_kernel", "_quantize_kernel"]
    mxfp8_module.quantize(x)
    assert len(names) == 2


def _launches(launcher):
    """The _Launch objects a launcher keeps (its launch classes)."""
    from dsv41gen.kernels import mxfp8 as kernels

    return [
        launch
        for cell in launcher.__closure__ or ()
        if isinstance(getattr(cell, "cell_contents", None), dict)
        for launch in cell.cell_contents.values()
        if isinstance(launch, kernels._Launch)
    ]


@pytest.mark.parametrize("layout", ["row_major", "swizzled_128x4"])
def test_native_launch_bit_exact_with_fresh_outputs(mxfp8_module, mxfp8_reference_module, layout):
    """From the second call of a launch class on, the launchers launch from C++
    (triton_launch.cpp): allocating (a new output every call) and into ``out=``, both bit-exact
    against the reference, and dequantize alike."""
    from dsv41gen.kernels import mxfp8 as kernels

    assert kernels._native_module() is not None, "the C++ launcher must build on a CUDA machine"
    gen = torch.Generator(device="cuda").manual_seed(29)
    x = torch.randn(256, 7168, device="cuda", generator=gen, dtype=torch.bfloat16)
    x = x * torch.logspace(-4, 4, 256, device="cuda", dtype=torch.bfloat16)[:, None]
    rq, rs = mxfp8_reference_module.quantize_reference(x, layout)
    calls = [mxfp8_module.quantize(x, layout) for _ in range(4)]
    natives = [n for launch in _launches(mxfp8_module.quantize) for n in launch.native.values()]
    assert any(n is not None for n in natives), "no launch class went through the C++ launcher"
    assert len({xq.data_ptr() for xq, _ in calls}) == len(calls), "outputs must be new tensors"
    for xq, s in calls:
        assert torch.equal(xq.view(torch.uint8), rq.view(torch.uint8)) and torch.equal(s, rs)
    xq_out = torch.full_like(rq.view(torch.uint8), 0xFF).view(rq.dtype)
    s_out = torch.full_like(rs, 0xFF)
    for _ in range(3):
        mxfp8_module.quantize(x, layout, out=(xq_out, s_out))
        assert torch.equal(xq_out.view(torch.uint8), rq.view(torch.uint8))
        assert torch.equal(s_out, rs)
        xq_out.view(torch.uint8).fill_(0xFF), s_out.fill_(0xFF)
    want = mxfp8_reference_module.dequantize_reference(rq, rs, layout, torch.bfloat16)
    outs = [mxfp8_module.dequantize(rq, rs, layout) for _ in range(4)]
    assert len({o.data_ptr() for o in outs}) == len(outs)
    assert all(torch.equal(o, want) for o in outs)
    out = torch.full_like(want, float("nan"))
    for _ in range(3):
        mxfp8_module.dequantize(rq, rs, layout, out=out)
        assert torch.equal(out, want)
        out.fill_(float("nan"))
