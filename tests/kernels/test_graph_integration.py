"""The generated kernels inside vLLM's compiled graphs (issue 29): each is a torch custom op with
a fake implementation, so torch.compile(fullgraph=True) traces a module that calls them with no
graph break, the compiled module replays in a CUDA graph bit for bit, and torch.library.opcheck
passes.

- MXFP8 quantize / dequantize (Triton): ``quantize_op`` / ``dequantize_op`` of the generated
  module, torch.library.Library ops with register_fake (C++ CUDA kernels, the launchers on
  the CPU; dsv41gen/kernels/triton_launch.cpp). On the CPU they run
  under the Triton interpreter (opcheck, and compile with the aot_eager backend: inductor's CPU
  code generation needs a C++ toolchain the suite does not assume); on the GPU with inductor.
- The fused RoPE + KV insert (CUDA extension): its TORCH_LIBRARY ops, with Meta kernels (the
  ops mutate only what their schemas mark and return nothing). GPU only: the extension is built
  there.

DSV41GEN_GRAPH_REPORT=path writes what each check found as JSON.
"""

from __future__ import annotations

import json
import os

import pytest
import torch

REPORT: list[dict] = []
CUDA = torch.cuda.is_available()


@pytest.fixture(scope="module", autouse=True)
def write_report():
    yield
    path = os.environ.get("DSV41GEN_GRAPH_REPORT")
    if path and REPORT:
        with open(path, "w") as f:
            json.dump(REPORT, f, indent=1)


FLOAT8 = (torch.float8_e4m3fn, torch.float8_e5m2)
ALL_CHECKS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)


def opcheck(op, args) -> list[str]:
    """torch.library.opcheck, every check; with a float8 tensor among the arguments, test_schema
    is replaced by the same check done here: torch's SchemaCheckMode compares tensors with
    allclose, which float8 lacks ('mul_cpu_reduced_float' not implemented for 'Float8_e4m3fn').
    It checks that the op writes only the arguments its schema marks (Tensor!) and returns no
    alias of an argument. Returns the checks run."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if not any(t.dtype in FLOAT8 for t in tensors):
        torch.library.opcheck(op, args, test_utils=ALL_CHECKS)
        return list(ALL_CHECKS)
    checks = [c for c in ALL_CHECKS if c != "test_schema"]
    torch.library.opcheck(op, args, test_utils=checks)
    schema = (op._opoverload if hasattr(op, "_opoverload") else op)._schema
    written = [a.alias_info is not None and a.alias_info.is_write for a in schema.arguments]
    before = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    out = op(*args)
    for i, (arg, old) in enumerate(zip(args, before, strict=True)):
        if isinstance(arg, torch.Tensor) and not written[i]:
            assert torch.equal(arg.view(torch.uint8), old.view(torch.uint8)), (
                f"{schema.name} wrote argument {schema.arguments[i].name}, which its schema does "
                "not mark as written"
            )
    results = out if isinstance(out, tuple) else (out,)
    for r in results:
        if isinstance(r, torch.Tensor):
            for t in tensors:
                assert r.untyped_storage().data_ptr() != t.untyped_storage().data_ptr(), (
                    f"{schema.name} returned an alias of an argument"
                )
    return checks + ["schema (float8: checked here)"]


def graph_breaks(fn, *args) -> int:
    import torch._dynamo

    torch._dynamo.reset()
    return torch._dynamo.explain(fn)(*args).graph_break_count


def compiled(fn):
    import torch._dynamo

    torch._dynamo.reset()
    return torch.compile(fn, fullgraph=True, backend="inductor" if CUDA else "aot_eager")


def replay_matches_eager(fn, make_inputs, inputs, outputs_of) -> bool:
    """Capture fn (compiled) in a CUDA graph over static inputs, replay over new values, and
    compare with fn run eagerly on the same values."""
    for _ in range(2):  # warm up (compilation, autotuning) outside the capture
        fn(*inputs)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = fn(*inputs)
    for seed in range(3):
        for dst, src in zip(inputs, make_inputs(seed), strict=True):
            if src is not None:  # None: keep (a cache the graph writes into)
                dst.copy_(src)
        graph.replay()
        torch.cuda.synchronize()
        replayed = [t.clone() for t in outputs_of(static_out, inputs)]
        eager = outputs_of(fn(*inputs), inputs)
        torch.cuda.synchronize()
        if not all(
            torch.equal(a.view(torch.uint8), b.view(torch.uint8))
            for a, b in zip(replayed, eager, strict=True)
        ):
            return False
    return True


# --- MXFP8 --------------------------------------------------------------------------------------


def mxfp8_inputs(seed, device):
    g = torch.Generator(device).manual_seed(seed)
    return (torch.randn(64, 256, device=device, generator=g).to(torch.bfloat16),)


def test_mxfp8_ops_are_custom_ops_with_fakes(mxfp8_module, kernel_device):
    (x,) = mxfp8_inputs(0, kernel_device)
    for layout in ("row_major", "swizzled_128x4"):
        checks = opcheck(mxfp8_module.quantize_op, (x, layout))
    xq, scales = mxfp8_module.quantize(x, "row_major")
    checks += opcheck(mxfp8_module.dequantize_op, (xq, scales, "row_major", torch.bfloat16))
    # the op gives the launchers' bytes
    q_op, s_op = mxfp8_module.quantize_op(x, "row_major")
    assert torch.equal(q_op.view(torch.uint8), xq.view(torch.uint8)) and torch.equal(s_op, scales)
    REPORT.append(dict(kernel="mxfp8 quantize/dequantize", device=kernel_device, opcheck=checks))


def test_mxfp8_compiles_without_graph_breaks(mxfp8_module, kernel_device):
    def round_trip(x):
        xq, scales = mxfp8_module.quantize_op(x * 2, "row_major")
        return mxfp8_module.dequantize_op(xq, scales, "row_major", torch.bfloat16) + 1

    (x,) = mxfp8_inputs(1, kernel_device)
    breaks = graph_breaks(round_trip, x)
    assert breaks == 0
    fn = compiled(round_trip)
    assert torch.equal(fn(x).view(torch.int16), round_trip(x).view(torch.int16))
    case = dict(kernel="mxfp8", device=kernel_device, graph_breaks=breaks, compiled_equal=True)
    if CUDA:
        assert replay_matches_eager(
            fn, lambda s: mxfp8_inputs(s + 10, "cuda"), [x.clone()], lambda out, _: [out]
        ), "the compiled MXFP8 round trip replayed in a CUDA graph differs from eager"
        case["cuda_graph_replay_bitwise"] = True
    REPORT.append(case)


# --- the fused RoPE + KV insert (GPU) -----------------------------------------------------------

gpu = pytest.mark.skipif(not CUDA, reason="the RoPE + KV extension is built on the GPU")
V41 = "deepseek_v41"


class RopeKvCase:
    def __init__(self, ref, fmt_name, seed, tokens=300, heads=16):
        from test_rope_kv_gpu import (
            MAX_POSITION,
            cos_sin_cache,
            poisoned_cache,
            random_rows,
            random_slots,
        )

        g = torch.Generator("cuda").manual_seed(seed)
        self.fmt = next(f for f in ref.CACHE_FORMATS if f.name == fmt_name)
        self.heads = heads
        self.kv = random_rows((tokens, 512), torch.bfloat16, g)
        self.q_in = random_rows((tokens, heads, 512), torch.bfloat16, g)
        self.q_out = torch.zeros(tokens, heads, 512, dtype=torch.bfloat16, device="cuda")
        self.backing, self.cache, num_blocks = poisoned_cache(self.fmt, tokens, g)
        self.slots = random_slots(tokens, num_blocks, g)
        self.positions = torch.randint(0, MAX_POSITION, (tokens,), device="cuda", generator=g)
        self.cos_sin = cos_sin_cache()
        self.scale = torch.tensor([0.37], device="cuda") if self.fmt.per_tensor_scale else None

    def inputs(self):
        return [self.kv, self.q_in, self.positions, self.slots, self.cache, self.q_out]


def rope_kv_module(ops, case):
    """A small module as vLLM's attention layer uses the kernels: the Q + KV op, then the
    KV-only op into the same cache, between ordinary torch operations."""
    ns = ops[V41]

    def forward(kv, q_in, positions, slots, k_cache, q_out):
        # the cache and q_out are arguments, as vLLM passes its KV cache to the attention op
        # powers of two only: inductor fuses kv * a + b without rounding kv * a to bf16, so an
        # inexact product would differ from eager before any kernel runs
        kv = kv * 2
        ns.fused_deepseek_v4_qnorm_rope_kv_insert(
            q_in, q_out, kv, k_cache, slots, positions, case.cos_sin, case.heads,
            1e-6, True, 64, case.scale, case.fmt.kv_mxfp8,
        )  # fmt: skip
        ns.fused_deepseek_v4_kv_rope_insert(
            kv * 0.25, k_cache, slots.flip(0), positions, case.cos_sin, 64, case.scale,
            case.fmt.kv_mxfp8,
        )  # fmt: skip
        # elementwise only: a reduction compiled by inductor may round in another order
        return q_out.float() * 2

    return forward


@gpu
@pytest.mark.parametrize("fmt_name", ["mxfp8", "fp8_ds_mla", "bf16", "fp8"])
def test_rope_kv_ops_opcheck(ops, rope_kv_references, fmt_name):
    case = RopeKvCase(rope_kv_references[V41], fmt_name, seed=1)
    ns = ops[V41]
    checks = opcheck(
        ns.fused_deepseek_v4_kv_rope_insert.default,
        (case.kv, case.cache, case.slots, case.positions, case.cos_sin, 64, case.scale,
         case.fmt.kv_mxfp8),
    )  # fmt: skip
    checks += opcheck(
        ns.fused_deepseek_v4_qnorm_rope_kv_insert.default,
        (case.q_in, case.q_out, case.kv, case.cache, case.slots, case.positions, case.cos_sin,
         case.heads, 1e-6, True, 64, case.scale, case.fmt.kv_mxfp8),
    )  # fmt: skip
    REPORT.append(dict(kernel=f"rope_kv ({fmt_name})", opcheck=checks))


@gpu
@pytest.mark.parametrize("fmt_name", ["mxfp8", "fp8_ds_mla", "bf16", "fp8"])
def test_rope_kv_compiles_and_replays(ops, rope_kv_references, fmt_name):
    ref = rope_kv_references[V41]
    case = RopeKvCase(ref, fmt_name, seed=2)
    forward = rope_kv_module(ops, case)
    breaks = graph_breaks(forward, *case.inputs())
    assert breaks == 0
    before = case.backing.clone()
    eager_out = forward(*case.inputs())
    eager_cache = case.backing.clone()
    case.backing.copy_(before)
    fn = compiled(forward)
    out = fn(*case.inputs())
    torch.cuda.synchronize()
    differing = (case.backing != eager_cache).sum().item()
    unwritten = torch.equal(case.backing, before)
    assert differing == 0, (
        f"the compiled module's cache differs from eager in {differing} bytes"
        + (" (the compiled module wrote nothing)" if unwritten else "")
    )
    assert torch.equal(out, eager_out), "the compiled module's output differs from eager"

    def new_inputs(seed):
        other = RopeKvCase(ref, fmt_name, seed=100 + seed)
        return other.inputs()[:4] + [None, None]  # the same cache and q_out, new rows

    assert replay_matches_eager(
        fn, new_inputs, case.inputs(), lambda out, _: [out, case.backing, case.q_out]
    ), "the compiled module replayed in a CUDA graph differs from eager"
    REPORT.append(
        dict(kernel=f"rope_kv ({fmt_name})", graph_breaks=breaks, compiled_equal=True,
             cuda_graph_replay_bitwise=True)
    )  # fmt: skip
