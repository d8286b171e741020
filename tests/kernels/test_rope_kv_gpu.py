"""GPU tests of the fused RoPE + KV insert: byte-exact against the generated torch reference.

The extension is built once per session from dsv41gen's kernel sources (dsv41gen/kernels) and
each variant's configuration rendered by the conftest fixtures (set ROPE_KV_BUILD_DIR to reuse a
build across processes). Every check compares whole buffers byte
for byte: the paged cache's backing memory (padding between blocks included, poisoned with random
bytes first), q_out (poisoned with random bits first), and kv before / after.
"""

from __future__ import annotations

import os
import re
import sys

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

V4 = "deepseek_v4"
V41 = "deepseek_v41"
EXACT = "exact_math"  # conftest: V4.1 with the exact-math numerics and fp8_max 240
BLOCK_SIZE = 64
MAX_POSITION = 8192
EPS = 1e-6
FP8_SCALE = 0.37  # not a power of two: the division rounds
TOKENS = (1, 17, 1023, 1024, 1025, 16384, 65536, 262144)
HEADS = (0, 8, 16, 128)
LIVE_HEADS = {8: 8, 16: 13, 128: 125}  # 16 and 128 also zero-fill padded heads
Q_CHUNK = 4096  # tokens per reference call for Q (bounds the reference's fp32 temporaries)


def cos_sin_cache(device="cuda"):
    inv_freq = 1.0 / 10000 ** (torch.arange(0, 64, 2, dtype=torch.float64) / 64)
    angles = torch.arange(MAX_POSITION, dtype=torch.float64)[:, None] * inv_freq[None]
    return torch.cat((angles.cos(), angles.sin()), dim=1).float().to(device)


def random_rows(shape, dtype, g, chunk=1 << 12):
    """Normal values with a per-32-value scale 2^[-10, 8], some all-zero groups; chunked."""
    out = torch.empty(shape, dtype=dtype, device="cuda")
    flat = out.view(shape[0], -1, 32)
    for start in range(0, shape[0], chunk):
        part = flat[start : start + chunk]
        x = torch.randn(part.shape, device="cuda", generator=g)
        x *= torch.exp2(
            torch.randint(-10, 9, (*part.shape[:2], 1), device="cuda", generator=g).float()
        )
        x[:, ::7] *= (torch.rand(part.shape[0], 1, 1, device="cuda", generator=g) > 0.9).float()
        part.copy_(x)
    return out


def cache_view(backing, fmt, num_blocks):
    elem = torch.empty((), dtype=fmt.cache_dtype).element_size()
    block_bytes = BLOCK_SIZE * fmt.record_width * elem
    return (
        backing[:, :block_bytes]
        .view(fmt.cache_dtype)
        .view(num_blocks, BLOCK_SIZE, fmt.record_width)
    )


def poisoned_cache(fmt, num_tokens, g):
    """A paged cache with 64 padding bytes after each block, filled with random bytes."""
    num_blocks = num_tokens // BLOCK_SIZE + 3
    elem = torch.empty((), dtype=fmt.cache_dtype).element_size()
    block_bytes = BLOCK_SIZE * fmt.record_width * elem
    backing = torch.randint(
        0, 256, (num_blocks, block_bytes + 64), dtype=torch.uint8, device="cuda", generator=g
    )
    return backing, cache_view(backing, fmt, num_blocks), num_blocks


def random_slots(count, num_blocks, g):
    slots = torch.randperm(num_blocks * BLOCK_SIZE, device="cuda", generator=g)[:count]
    slots[::13] = -1  # skipped rows
    return slots.contiguous()


def prefill_slots(count, num_blocks, g, block_size=BLOCK_SIZE, first=0, skip_every=0):
    """A fresh prefill's slot_mapping: consecutive tokens fill whole cache blocks, the blocks in
    random order, the first token at in-block offset first; skip_every > 0: every skip_every-th
    row skipped (-1): runs that cross block boundaries, which random slots never exercise (a
    former KV-only candidate stored such runs a block's step at a time)."""
    assert num_blocks * block_size >= count + first
    blocks = torch.randperm(num_blocks, device="cuda", generator=g)
    token = torch.arange(count, device="cuda") + first
    slots = blocks[token // block_size] * block_size + token % block_size
    if skip_every:
        slots[::skip_every] = -1
    return slots.contiguous()


def assert_bytes_equal(got, want, what):
    a, b = got.reshape(-1).view(torch.uint8), want.reshape(-1).view(torch.uint8)
    if not torch.equal(a, b):
        bad = torch.nonzero(a != b).flatten()
        raise AssertionError(
            f"{what}: {bad.numel()} of {a.numel()} bytes differ, first at {bad[0].item()}"
        )


class Case:
    """One call's inputs; ``run`` calls the op, ``check`` compares with the reference."""

    def __init__(self, ref, fmt_name, dtype, num_tokens, heads, apply_q_norm, seed, pad_rows=None):  # noqa: E501
        g = torch.Generator("cuda").manual_seed(seed)
        self.ref, self.heads, self.apply_q_norm = ref, heads, apply_q_norm
        self.fmt = next(f for f in ref.CACHE_FORMATS if f.name == fmt_name)
        self.kv = random_rows((num_tokens, 512), dtype, g)
        self.kv_before = self.kv.clone()
        pad = min(3, num_tokens // 8) if pad_rows is None else pad_rows
        self.backing, self.cache, num_blocks = poisoned_cache(self.fmt, num_tokens, g)
        self.slots = random_slots(num_tokens - pad, num_blocks, g)
        self.positions = torch.randint(0, MAX_POSITION, (num_tokens,), device="cuda", generator=g)
        self.cos_sin = cos_sin_cache()
        self.scale = torch.tensor([FP8_SCALE], device="cuda") if self.fmt.per_tensor_scale else None
        if heads:
            self.q_in = random_rows((num_tokens, LIVE_HEADS[heads], 512), dtype, g)
            self.q_out = torch.empty(num_tokens, heads, 512, dtype=dtype, device="cuda")
            self.q_out.view(torch.int16).random_(generator=g)

    def kv_args(self, cache):
        return (
            self.kv,
            cache,
            self.slots,
            self.positions,
            self.cos_sin,
            BLOCK_SIZE,
            self.scale,
            self.fmt.kv_mxfp8,
        )

    def run(self, ops):
        if self.heads == 0:
            ops.fused_deepseek_v4_kv_rope_insert(*self.kv_args(self.cache))
        else:
            ops.fused_deepseek_v4_qnorm_rope_kv_insert(
                self.q_in, self.q_out, self.kv, self.cache, self.slots, self.positions,
                self.cos_sin, self.heads, EPS, self.apply_q_norm, BLOCK_SIZE, self.scale,
                self.fmt.kv_mxfp8,
            )  # fmt: skip

    def check(self, expected_backing):
        """Compare with the reference run on ``expected_backing`` (the cache's state before)."""
        num_blocks = self.backing.shape[0]
        self.ref.kv_rope_insert(*self.kv_args(cache_view(expected_backing, self.fmt, num_blocks)))
        assert_bytes_equal(self.backing, expected_backing, f"k_cache ({self.fmt.name})")
        assert_bytes_equal(self.kv, self.kv_before, "kv (must stay unchanged)")
        if self.heads:
            for start in range(0, self.kv.shape[0], Q_CHUNK):
                stop = start + Q_CHUNK
                want = self.ref.rotate_q(
                    self.q_in[start:stop], self.positions[start:stop], self.cos_sin,
                    self.heads, EPS, self.apply_q_norm,
                )  # fmt: skip
                assert_bytes_equal(self.q_out[start:stop], want, f"q_out rows {start}:{stop}")


def run_and_check(ops, case):
    expected = case.backing.clone()
    case.run(ops)
    torch.cuda.synchronize()
    case.check(expected)


FORMATS_V41 = ("fp8_ds_mla", "mxfp8", "bf16", "fp8")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


@pytest.mark.parametrize("num_tokens", TOKENS)
@pytest.mark.parametrize("heads", HEADS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS_V41)
def test_byte_exact(ops, rope_kv_references, fmt, dtype, heads, num_tokens):
    # apply_q_norm alternates in a checkerboard over (heads, tokens): both values at every size.
    norm = (HEADS.index(heads) + TOKENS.index(num_tokens)) % 2 == 0
    case = Case(
        rope_kv_references[V41],
        fmt,
        DTYPES[dtype],
        num_tokens,
        heads,
        norm,
        seed=num_tokens + heads,
    )
    run_and_check(ops[V41], case)


@pytest.mark.parametrize("num_tokens", (17, 1025, 65536))
@pytest.mark.parametrize("heads", (0, 16))
@pytest.mark.parametrize("fmt", ("fp8_ds_mla", "bf16", "fp8"))
def test_byte_exact_v4(ops, rope_kv_references, fmt, heads, num_tokens):
    case = Case(rope_kv_references[V4], fmt, torch.bfloat16, num_tokens, heads, True, seed=7)
    run_and_check(ops[V4], case)


@pytest.mark.parametrize(
    "heads, num_tokens, choice",
    [(0, 1025, "reduced"), (0, 65536, "reduced"), (16, 17, "reduced"), (16, 4096, "warp_per_slot"),
     (128, 2048, "warp_per_slot")],
)  # fmt: skip
@pytest.mark.parametrize("fmt", FORMATS_V41)
def test_both_grids_write_the_same_bytes(
    ops, rope_kv_references, grid, fmt, heads, num_tokens, choice
):
    grid(V41, choice)
    case = Case(rope_kv_references[V41], fmt, torch.bfloat16, num_tokens, heads, True, seed=3)
    run_and_check(ops[V41], case)


@pytest.mark.parametrize("scale", (0.37, 3.0e-3, 2.0**-32, 2.0**32, 1.0e-12, 7.0e11, 1.0e-40))
@pytest.mark.parametrize("heads", (0, 16))
@pytest.mark.parametrize("variant", (V41, EXACT))
def test_fp8_per_tensor_scaling_matches_the_reference(
    ops, rope_kv_references, variant, scale, heads
):
    """The fp8 format's scaling against the reference (torch's IEEE float32 arithmetic), on kv
    rows spanning 2^-140 .. 2^125 with signed zeros, at scales from a float subnormal to 7e11
    (quotients from 0 to inf): V4.1's x * RN(1 / scale) (per_tensor_scaling reciprocal_multiply,
    RN(1 / scale) taken as RN32(RN64(1 / scale))) and the exact-math variant's x / scale (divide:
    x * RN64(1 / scale) in double, rounded to float)."""
    case = Case(rope_kv_references[variant], "fp8", torch.bfloat16, 4099, heads, True, seed=11)
    g = torch.Generator("cuda").manual_seed(5)
    kv = torch.randn(case.kv.shape, device="cuda", generator=g)
    kv *= torch.exp2(torch.randint(-140, 126, kv.shape, device="cuda", generator=g).float())
    kv[::5, ::3] = 0.0
    kv[1::5, ::3] = -0.0
    case.kv.copy_(kv.to(case.kv.dtype))
    case.kv_before = case.kv.clone()
    case.scale.fill_(scale)
    run_and_check(ops[variant], case)


@pytest.mark.parametrize("num_tokens", (17, 2048))
@pytest.mark.parametrize("heads", (0, 16))
@pytest.mark.parametrize("fmt", FORMATS_V41)
def test_cuda_graph_replay_with_changed_inputs(ops, rope_kv_references, fmt, heads, num_tokens):
    ref = rope_kv_references[V41]
    case = Case(ref, fmt, torch.bfloat16, num_tokens, heads, True, seed=11)
    case.run(ops[V41])  # eager first: module load stays out of the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        case.run(ops[V41])
    g = torch.Generator("cuda").manual_seed(12)
    num_blocks = case.backing.shape[0]
    for round_ in range(3):
        case.kv.copy_(random_rows(case.kv.shape, case.kv.dtype, g))
        case.kv_before = case.kv.clone()
        case.positions.copy_(
            torch.randint(0, MAX_POSITION, case.positions.shape, device="cuda", generator=g)
        )
        slots = random_slots(case.slots.shape[0], num_blocks, g)
        case.slots.copy_(slots if round_ < 2 else torch.full_like(slots, -1))
        if heads:
            case.q_in.copy_(random_rows(case.q_in.shape, case.q_in.dtype, g))
            case.q_out.view(torch.int16).random_(generator=g)
        expected = case.backing.clone()
        graph.replay()
        torch.cuda.synchronize()
        case.check(expected)


def test_no_slots_writes_nothing(ops, rope_kv_references):
    case = Case(
        rope_kv_references[V41], "fp8_ds_mla", torch.bfloat16, 5, 0, False, seed=1, pad_rows=5
    )
    assert case.slots.numel() == 0
    run_and_check(ops[V41], case)


def test_padded_rows_of_the_q_op_are_rotated_but_not_inserted(ops, rope_kv_references):
    case = Case(
        rope_kv_references[V41], "mxfp8", torch.float16, 2000, 16, True, seed=5, pad_rows=700
    )
    run_and_check(ops[V41], case)


def small_case(rope_kv_references, variant, fmt, heads=0):
    return Case(rope_kv_references[variant], fmt, torch.bfloat16, 4, heads, True, seed=2)


def test_unsupported_q_head_padded_names_the_compiled_set(ops, rope_kv_references):
    case = small_case(rope_kv_references, V41, "fp8_ds_mla", heads=16)
    q_out = torch.zeros(4, 24, 512, dtype=torch.bfloat16, device="cuda")
    message = "unsupported num_heads_q_padded=24 (compiled instantiations: 0, 8, 16, 32, 64, 128)."
    with pytest.raises(RuntimeError, match=re.escape(message)):
        ops[V41].fused_deepseek_v4_qnorm_rope_kv_insert(
            case.q_in, q_out, case.kv, case.cache, case.slots, case.positions, case.cos_sin,
            24, EPS, True, BLOCK_SIZE, None, False,
        )  # fmt: skip


INPUT_CHECKS = [
    (V41, "fp8", {"scale": None}, "cache needs fp8_scale"),
    (V41, "bf16", {"scale": "ones"}, "pass None for the bf16 cache"),
    (V41, "fp8_ds_mla", {"kv_mxfp8": True}, "k_cache.size(2) must be 528 for the mxfp8"),
    (V41, "mxfp8", {"kv_mxfp8": False}, "pass kv_mxfp8=True"),
    (V4, "fp8_ds_mla", {"kv_mxfp8": True}, "variant deepseek_v4 has no mxfp8 cache format"),
    (V41, "bf16", {"slots": "int32"}, "slot_mapping must be a contiguous 1-D int64"),
    (V41, "bf16", {"block_size": 32}, "k_cache.size(1) is 64 but cache_block_size is 32"),
    (V41, "bf16", {"kv": "float32"}, "kv must be bfloat16 or float16"),
    (V41, "bf16", {"positions": "short"}, "position_ids must cover every kv row"),
    (V41, "bf16", {"slots": "long"}, "only padded rows may be left out"),
    (V41, "bf16", {"cos_sin": "float64"}, "cos_sin_cache must be a contiguous float32"),
]


def input_check_case(ops, rope_kv_references, variant, fmt, change, message):
    """Call the KV-only op with one bad input: it must raise ``message`` and write nothing."""
    case = small_case(rope_kv_references, variant, fmt)
    kv, cache, slots, positions, cos_sin, block, scale, mx = case.kv_args(case.cache)
    scale = change.get("scale", scale)
    scale = torch.ones(1, device="cuda") if scale == "ones" else scale
    mx = change.get("kv_mxfp8", mx)
    block = change.get("block_size", block)
    if change.get("slots") == "int32":
        slots = slots.int()
    if change.get("slots") == "long":
        slots = torch.arange(5, device="cuda")
    if change.get("kv") == "float32":
        kv = kv.float()
    if change.get("positions") == "short":
        positions = positions[:2]
    if change.get("cos_sin") == "float64":
        cos_sin = cos_sin.double()
    before = case.backing.clone()
    with pytest.raises(RuntimeError, match=re.escape(message)):
        ops[variant].fused_deepseek_v4_kv_rope_insert(
            kv, cache, slots, positions, cos_sin, block, scale, mx
        )
    torch.cuda.synchronize()
    assert_bytes_equal(case.backing, before, "k_cache after a rejected call")


CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rope_kv_input_check_child.py")


def run_child(index, sources, builds, variants=None, timeout=300):
    """Run INPUT_CHECKS[index] in a fresh Python process; (returncode, output)."""
    import json
    import subprocess

    variants = variants or list(sources)
    spec = {"index": index, "variants": variants, "sources": sources, "builds": builds}
    run = subprocess.run(
        [sys.executable, "-X", "faulthandler", CHILD, json.dumps(spec)],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    return run.returncode, run.stdout + run.stderr


@pytest.fixture(scope="session")
def child_build(ops, rope_kv_rendered, rope_kv_plans):
    """Where a child process finds each variant's sources and (already built) extension."""
    root = os.environ.get("ROPE_KV_BUILD_DIR")
    sources, builds = {}, {}
    for variant in (V4, V41):  # the specs' variants (the child plans them from their specs)
        if root:
            sources[variant] = os.path.join(root, "src", variant)
            builds[variant] = os.path.join(root, variant)
        else:
            sources[variant] = str(rope_kv_rendered[variant])
            builds[variant] = None
    return sources, builds


@pytest.mark.parametrize(
    "index", range(len(INPUT_CHECKS)), ids=[f"{c[0]}-{c[1]}-{c[3][:40]}" for c in INPUT_CHECKS]
)
def test_input_checks(child_build, index):
    """Each bad call runs in a process of its own (both variants' extensions loaded, as in this
    one): a crash fails this case, with the child's output, instead of ending the test run."""
    import signal

    sources, builds = child_build
    code, output = run_child(index, sources, builds)
    if code < 0:
        name = signal.Signals(-code).name
        pytest.fail(f"the op crashed the process with {name}:\n{output[-4000:]}", pytrace=False)
    assert code == 0, output[-4000:]


@pytest.mark.parametrize("num_tokens", (1, 1023, 1025, 65536))
@pytest.mark.parametrize("heads", (0, 16))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt", FORMATS_V41)
def test_exact_math_variant_matches_its_reference(
    ops, rope_kv_references, fmt, dtype, heads, num_tokens
):
    """The numerics a spec may still ask for (rope_contraction none, round_before_quantize none,
    amax_floor fp32_tiny, per_tensor_scaling divide, the token_data_then_scales mxfp8 record)
    with fp8_max 240: kernel and reference agree byte for byte, so fp8_max reaches the kernel's
    saturation (not cvt's 448)."""
    case = Case(
        rope_kv_references[EXACT], fmt, DTYPES[dtype], num_tokens, heads, True, seed=num_tokens
    )
    # push values past 240 after scaling (saturation), within the dtype's range
    case.kv.mul_(64 if dtype == "bf16" else 16)
    case.kv_before = case.kv.clone()
    run_and_check(ops[EXACT], case)


def test_launches_allow_programmatic_serialization_on_sm90(ops, rope_kv_references):
    """PDL: on SM90+ the launcher passes cudaLaunchAttributeProgrammaticStreamSerialization, read
    back from what the last launch was given."""
    major = torch.cuda.get_device_capability()[0]
    for heads in (0, 16):
        case = Case(rope_kv_references[V41], "mxfp8", torch.bfloat16, 3000, heads, True, seed=4)
        case.run(ops[V41])
        torch.cuda.synchronize()
        serialization, blocks, threads = ops[V41]._debug_last_launch()
        assert serialization == (1 if major >= 9 else 0)
        assert threads == 256 and blocks > 0


def test_kv_only_large_prefills_take_three_blocks_per_multiprocessor(ops, rope_kv_references):
    """The KV-only grid from a large token count on (kv_only_blocks): 3 blocks per multiprocessor
    for the all-bf16 record from 131072 tokens and for the block-scaled formats from 196608
    (sweeps 3 and 8), one full wave of resident blocks below those and for per-tensor fp8 at any
    size. The count is the slot_mapping's length (the rows the op writes), one below and at each
    threshold; read back from what the launches were given."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    sizes = (131071, 131072, 196607, 196608)
    blocks = {}
    for fmt in FORMATS_V41:
        for num_tokens in sizes:
            case = Case(
                rope_kv_references[V41], fmt, torch.bfloat16, num_tokens, 0, True, 5, pad_rows=0
            )
            case.run(ops[V41])
            torch.cuda.synchronize()
            blocks[fmt, num_tokens] = ops[V41]._debug_last_launch()[1]
    full_wave = blocks["fp8", 131071]
    assert full_wave > 3 * sms and full_wave % sms == 0, blocks
    three = 3 * sms
    assert blocks == {
        **{("fp8", n): full_wave for n in sizes},
        **{("bf16", n): full_wave if n < 131072 else three for n in sizes},
        **{
            (f, n): full_wave if n < 196608 else three
            for f in ("fp8_ds_mla", "mxfp8")
            for n in sizes
        },
    }


def test_q_op_below_the_cutoff_strides_over_one_wave(ops, rope_kv_references, grid):
    """Below num_token_cutoff the grid rule picks the warp-per-slot grid; with Q heads it is laid
    out as one wave of resident blocks whose warps stride over the (token, slot) items
    (qkv_strided_kernel), not a block per kWarpsPerBlock items, which the forced grid
    keeps. Both write what the reference writes (test_byte_exact, test_both_grids_...)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    case = Case(rope_kv_references[V41], "fp8_ds_mla", torch.bfloat16, 1000, 16, True, seed=9)
    case.run(ops[V41])
    torch.cuda.synchronize()
    per_item = -(-1000 * 17 // 8)  # a block per 8 (token, slot) items: 2125
    # one wave: at most 2048 resident threads, 8 blocks of 256, per multiprocessor
    assert ops[V41]._debug_last_launch()[1] <= 8 * sms < per_item
    grid(V41, "warp_per_slot")
    case.run(ops[V41])
    torch.cuda.synchronize()
    assert ops[V41]._debug_last_launch()[1] == per_item


def test_debug_grid_rejects_unknown_names(ops):
    with pytest.raises(RuntimeError, match="unknown grid 'fast'"):
        ops[V41]._debug_set_grid("fast")
