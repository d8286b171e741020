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


# --- one C++ entry per call of a known launch class (issue 29) ---------------------------------


def _python_calls(fn) -> list[str]:
    """The Python functions of dsv41gen's kernels module that one call of fn enters."""
    import sys

    from dsv41gen.kernels import mxfp8 as kernels

    entered = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == kernels.__file__:
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return entered


def _warm(fn, times=3):
    for _ in range(times):
        fn()
    torch.cuda.synchronize()


def test_known_class_is_one_cpp_entry(mxfp8_module):
    """Once a launch class has its C++ launch, a plain launcher's call enters no Python
    function but the launcher itself (the table in triton_launch.cpp does the lookup, the checks
    its class decides and the launch), allocating or into ``out=``, quantize and dequantize."""
    mx = mxfp8_module
    x = torch.randn(128, 7168, device="cuda", dtype=torch.bfloat16)
    xq, s = mx.quantize(x)
    out = torch.empty_like(x)
    calls = {
        "quantize": lambda: mx.quantize(x),
        "quantize out=": lambda: mx.quantize(x, out=(xq, s)),
        "dequantize": lambda: mx.dequantize(xq, s),
        "dequantize out=": lambda: mx.dequantize(xq, s, out=out),
    }
    for what, fn in calls.items():
        _warm(fn)
        entered = _python_calls(fn)
        assert entered in (["quantize"], ["dequantize"]), f"{what} entered {entered}"


@pytest.mark.parametrize("layout", ["row_major", "swizzled_128x4"])
def test_ops_do_not_call_back_into_python(mxfp8_module, mxfp8_reference_module, layout):
    """quantize_op / dequantize_op have C++ CUDA kernels: a known class launches with no Python
    function of the kernels module entered, gives new outputs each call, and stays bit-exact."""
    mx = mxfp8_module
    x = torch.randn(256, 7168, device="cuda", dtype=torch.bfloat16)
    rq, rs = mxfp8_reference_module.quantize_reference(x, layout)
    want = mxfp8_reference_module.dequantize_reference(rq, rs, layout, torch.float32)

    def quantize():
        return mx.quantize_op(x, layout)

    def dequantize():
        return mx.dequantize_op(rq, rs, layout, torch.float32)

    _warm(quantize)
    _warm(dequantize)
    assert _python_calls(quantize) == []
    assert _python_calls(dequantize) == []
    pairs = [quantize() for _ in range(3)]
    assert len({q.data_ptr() for q, _ in pairs}) == 3, "outputs must be new tensors"
    for q, scales in pairs:
        assert torch.equal(q.view(torch.uint8), rq.view(torch.uint8))
        assert torch.equal(scales, rs)
    outs = [dequantize() for _ in range(3)]
    assert all(torch.equal(o.view(torch.int32), want.view(torch.int32)) for o in outs)


def test_known_class_keeps_every_error(mxfp8_module):
    """The C++ table takes only what it knows; every other call of a known class reaches the
    Python launcher and its messages, unchanged: wrong ``out``, another device current, another
    layout, dtype or stride."""
    mx = mxfp8_module
    x = torch.randn(4, 64, device="cuda")
    xq, s = mx.quantize(x)
    out = torch.empty(4, 64, dtype=torch.bfloat16, device="cuda")
    _warm(lambda: mx.quantize(x, out=(xq, s)))
    _warm(lambda: mx.quantize(x))
    _warm(lambda: mx.dequantize(xq, s, out=out))
    cases = [
        (lambda: mx.quantize(x, out=xq), r"out must be a tuple \(xq, scales\)"),
        (lambda: mx.quantize(x, out=[xq, s]), r"out must be a tuple \(xq, scales\)"),
        (lambda: mx.quantize(x, out=(xq[:2], s)), r"out\[0\] must be \(4, 64\)"),
        (lambda: mx.quantize(x, out=(xq, s.view(torch.int8))), r"out\[1\] must be \(4, 2\)"),
        (lambda: mx.quantize(x, out=(xq, [0])), r"out\[1\] must be a tensor, got list"),
        (lambda: mx.quantize(x, out=(xq, s.cpu())), r"out\[1\] must be on cuda"),
        (
            lambda: mx.quantize(x, out=(torch.empty(64, 4, dtype=xq.dtype, device="cuda").t(), s)),
            r"out\[0\] must be contiguous",
        ),
        (lambda: mx.quantize(x, "col_major"), "unknown scale layout 'col_major'"),
        (lambda: mx.quantize(x.t()), "K = 4 .*multiple of the block size"),
        (lambda: mx.dequantize(xq, s, out=out.float()), r"out\[0\] must be \(4, 64\) torch.bf"),
        (lambda: mx.dequantize(xq, s, out=out[:, :32]), r"out\[0\] must be \(4, 64\)"),
        (lambda: mx.dequantize(xq, s, out_dtype=torch.int8), "out_dtype torch.int8 is not"),
        (lambda: mx.dequantize(xq.view(torch.uint8), s), "xq dtype must be"),
    ]
    for fn, message in cases:
        with pytest.raises(ValueError, match=message):
            fn()
    if torch.cuda.device_count() > 1:
        with torch.cuda.device(1), pytest.raises(ValueError, match="current CUDA device"):
            mx.quantize(x)
    # and the known classes still launch, bit for bit as before
    want_q, want_s = mx.quantize(x)
    got_q, got_s = mx.quantize(x, out=(torch.empty_like(xq), torch.empty_like(s)))
    assert torch.equal(got_q.view(torch.uint8), want_q.view(torch.uint8))
    assert torch.equal(got_s, want_s)


def test_ops_errors_and_hooks_go_through_python(mxfp8_module):
    """A custom op's call of an unknown class raises the launcher's own ValueError through the
    dispatcher, and a Triton launch hook sees the ops' launches of a known class."""
    from triton import knobs

    mx = mxfp8_module
    with pytest.raises(ValueError, match=r"K = 48 .*multiple of the block size 32"):
        mx.quantize_op(torch.zeros(4, 48, device="cuda"), "row_major")
    x = torch.randn(128, 7168, device="cuda", dtype=torch.bfloat16)
    _warm(lambda: mx.quantize_op(x, "row_major"))
    with pytest.raises(ValueError, match="unknown scale layout 'col_major'"):
        mx.quantize_op(x, "col_major")
    names = []

    def hook(metadata):
        names.append(metadata.get()["name"])

    knobs.runtime.launch_enter_hook.add(hook)
    try:
        mx.quantize_op(x, "row_major")
    finally:
        knobs.runtime.launch_enter_hook.remove(hook)
    torch.cuda.synchronize()
    assert names == ["_quantize_kernel"]


def test_empty_input_of_a_known_class(mxfp8_module):
    """An empty input's class launches nothing from C++ either (an empty grid)."""
    x = torch.zeros(0, 64, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        xq, s = mxfp8_module.quantize(x)
        assert xq.shape == (0, 64) and s.shape == (0, 2)
        assert mxfp8_module.dequantize(xq, s).shape == (0, 64)
    torch.cuda.synchronize()
