"""The generated fused RoPE + KV insert against vLLM 0.33.0's own compiled kernels, byte for byte.

The oracle is the sm_90 cubin of the vLLM 0.33.0 wheel (tests/kernels/vllm_oracle.py launches it;
scripts/vllm_oracle.sh fetches it into the git-ignored .vllm/oracle). Each case runs the
generated op and vLLM's kernel on two copies of one poisoned cache (random bytes, a padded block
stride) and compares the whole backing, padding included; the project's torch reference is
compared with vLLM's bytes too.

Half-precision kv: vLLM's KV-only op takes bf16 only, but its fp16 kernels exist (the Q op uses
them) and are what is compared here. They store the input dtype's bits where a record holds
bf16 values: the bf16 cache and the 64 RoPE values of the fp8_ds_mla record. The project keeps
those bf16 (the cache format says so), so those bytes are compared with the reference instead,
and the fp16 bf16-cache case has no vLLM counterpart (skipped, with that reason).
"""

from __future__ import annotations

import pytest
import torch
import vllm_oracle
from test_rope_kv_gpu import (
    BLOCK_SIZE,
    DTYPES,
    EPS,
    FORMATS_V41,
    LIVE_HEADS,
    MAX_POSITION,
    V4,
    V41,
    assert_bytes_equal,
    cache_view,
    cos_sin_cache,
    poisoned_cache,
    prefill_slots,
    random_rows,
    random_slots,
)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(vllm_oracle.available() is not None, reason=str(vllm_oracle.available())),
]

TOKENS = (1, 17, 1023, 1024, 1025, 4096, 65536, 262144)
FP8_SCALES = (0.37, 1.7)  # neither a power of two: 1 / scale rounds


@pytest.fixture(scope="session")
def oracle():
    return vllm_oracle.Oracle()


def kv_rows(num_tokens, dtype, g):
    """random_rows, plus rows whose blocks all sit below the 1e-4 amax floor and rows scaled up
    (as far as the dtype's range allows)."""
    kv = random_rows((num_tokens, 512), dtype, g)
    kv[3::11] *= 2.0**-22
    kv[5::11] *= 2.0**10 if dtype == torch.bfloat16 else 2.0**4
    return kv


class Inputs:
    def __init__(self, fmt, dtype, num_tokens, seed, scale=None, pad=None, prefill=False):
        g = torch.Generator("cuda").manual_seed(seed)
        self.fmt = fmt
        self.kv = kv_rows(num_tokens, dtype, g)
        pad = min(3, num_tokens // 8) if pad is None else pad
        self.backing, self.cache, num_blocks = poisoned_cache(fmt, num_tokens, g)
        if prefill:  # consecutive runs from mid-block, every 29th row skipped
            self.slots = prefill_slots(num_tokens - pad, num_blocks, g, first=5, skip_every=29)
        else:
            self.slots = random_slots(num_tokens - pad, num_blocks, g)
        self.positions = torch.randint(0, MAX_POSITION, (num_tokens,), device="cuda", generator=g)
        self.cos_sin = cos_sin_cache()
        self.scale = torch.tensor([scale], device="cuda") if fmt.per_tensor_scale else None

    def args(self, cache):
        return (
            *(self.kv, cache, self.slots, self.positions, self.cos_sin, BLOCK_SIZE),
            *(self.scale, self.fmt.kv_mxfp8),
        )

    def view(self, backing):
        return cache_view(backing, self.fmt, backing.shape[0])


def bf16_field_mask(fmt, backing):
    """True on the bytes of every record's bf16 values (fp8_ds_mla: bytes [448, 576) of each token
    record in the block's data region)."""
    mask = torch.zeros_like(backing, dtype=torch.bool)
    if fmt.bf16_values and fmt.fp8_values:
        data = mask[:, : BLOCK_SIZE * fmt.data_bytes].view(mask.shape[0], BLOCK_SIZE, -1)
        data[:, :, fmt.fp8_values :] = True
    return mask


def compare_with_vllm(ops, oracle, ref, inputs, dtype):
    ours, theirs = inputs.backing, inputs.backing.clone()
    reference = inputs.backing.clone()
    launches = oracle.launches
    ops.fused_deepseek_v4_kv_rope_insert(*inputs.args(inputs.cache))
    oracle.kv_rope_insert(*inputs.args(inputs.view(theirs)))
    torch.cuda.synchronize()
    assert oracle.launches == launches + 1, "vLLM's kernel was not launched"
    if dtype == torch.float16 and inputs.fmt.bf16_values:
        keep = ~bf16_field_mask(inputs.fmt, ours)
        assert_bytes_equal(ours[keep], theirs[keep], f"k_cache vs vLLM ({inputs.fmt.name})")
    else:
        assert_bytes_equal(ours, theirs, f"k_cache vs vLLM 0.33.0 ({inputs.fmt.name})")
    if inputs.kv.shape[0] <= 65536:
        ref.kv_rope_insert(*inputs.args(inputs.view(reference)))
        assert_bytes_equal(ours, reference, f"k_cache vs the reference ({inputs.fmt.name})")


def skip_without_counterpart(fmt_name, dtype):
    if fmt_name == "bf16" and dtype == torch.float16:
        pytest.skip(
            "no vLLM counterpart: vLLM 0.33.0's fp16 kernel writes fp16 bits into the bf16 "
            "cache (its KV-only op takes bf16 kv only)"
        )


def fmt_of(ref, name):
    return next(f for f in ref.CACHE_FORMATS if f.name == name)


@pytest.mark.parametrize("num_tokens", TOKENS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt_name", FORMATS_V41)
def test_kv_only_matches_vllm(ops, oracle, rope_kv_references, fmt_name, dtype, num_tokens):
    dtype = DTYPES[dtype]
    skip_without_counterpart(fmt_name, dtype)
    ref = rope_kv_references[V41]
    scales = FP8_SCALES if fmt_name == "fp8" else (None,)
    for i, scale in enumerate(scales):
        inputs = Inputs(fmt_of(ref, fmt_name), dtype, num_tokens, seed=num_tokens + i, scale=scale)
        compare_with_vllm(ops[V41], oracle, ref, inputs, dtype)


@pytest.mark.parametrize("num_tokens", (1025, 65536))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt_name", FORMATS_V41)
def test_kv_only_prefill_slots_match_vllm(
    ops, oracle, rope_kv_references, fmt_name, dtype, num_tokens
):
    """A fresh prefill's slot_mapping, as the benchmark times it: consecutive tokens fill whole
    cache blocks (in random order), from mid-block, with skipped rows."""
    dtype = DTYPES[dtype]
    skip_without_counterpart(fmt_name, dtype)
    ref = rope_kv_references[V41]
    inputs = Inputs(
        fmt_of(ref, fmt_name), dtype, num_tokens, seed=7 + num_tokens, scale=0.37, prefill=True
    )
    compare_with_vllm(ops[V41], oracle, ref, inputs, dtype)


@pytest.mark.parametrize("fmt_name", FORMATS_V41)
def test_kv_only_all_slots_skipped_and_none_given(ops, oracle, rope_kv_references, fmt_name):
    """Every slot -1, and a slot_mapping of length 0 (every row a padded row)."""
    ref = rope_kv_references[V41]
    inputs = Inputs(fmt_of(ref, fmt_name), torch.bfloat16, 300, seed=9, scale=0.37)
    inputs.slots.fill_(-1)
    compare_with_vllm(ops[V41], oracle, ref, inputs, torch.bfloat16)
    inputs = Inputs(fmt_of(ref, fmt_name), torch.bfloat16, 7, seed=9, scale=0.37, pad=7)
    compare_with_vllm(ops[V41], oracle, ref, inputs, torch.bfloat16)


@pytest.mark.parametrize("num_tokens", (17, 4096))
@pytest.mark.parametrize("fmt_name", FORMATS_V41)
def test_cuda_graph_replay_matches_vllm(ops, oracle, rope_kv_references, fmt_name, num_tokens):
    """Both kernels captured in CUDA graphs, replayed over changed inputs."""
    ref = rope_kv_references[V41]
    inputs = Inputs(fmt_of(ref, fmt_name), torch.bfloat16, num_tokens, seed=21, scale=1.7)
    theirs = inputs.backing.clone()
    theirs_view = inputs.view(theirs)
    ops[V41].fused_deepseek_v4_kv_rope_insert(*inputs.args(inputs.cache))
    oracle.kv_rope_insert(*inputs.args(theirs_view))
    ours_graph, theirs_graph = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
    with torch.cuda.graph(ours_graph):
        ops[V41].fused_deepseek_v4_kv_rope_insert(*inputs.args(inputs.cache))
    with torch.cuda.graph(theirs_graph):
        oracle.kv_rope_insert(*inputs.args(theirs_view))
    g = torch.Generator("cuda").manual_seed(22)
    num_blocks = inputs.backing.shape[0]
    for _ in range(3):
        inputs.kv.copy_(kv_rows(num_tokens, torch.bfloat16, g))
        inputs.positions.copy_(
            torch.randint(0, MAX_POSITION, (num_tokens,), device="cuda", generator=g)
        )
        inputs.slots.copy_(random_slots(inputs.slots.shape[0], num_blocks, g))
        ours_graph.replay()
        theirs_graph.replay()
        torch.cuda.synchronize()
        assert_bytes_equal(inputs.backing, theirs, f"k_cache after replay ({fmt_name})")


@pytest.mark.parametrize("num_tokens", (17, 1023, 1024, 4096))
@pytest.mark.parametrize("heads", (0, 8, 16, 128))
@pytest.mark.parametrize("apply_q_norm", (False, True))
@pytest.mark.parametrize("fmt_name", ("fp8_ds_mla", "mxfp8"))
def test_q_op_matches_vllm(
    ops, oracle, rope_kv_references, fmt_name, apply_q_norm, heads, num_tokens
):
    """The Q + KV op: the cache dump and q_out (padded heads zero-filled) against vLLM's Q op;
    with 0 heads, vLLM's zero-head Q path against the generated KV-only op (seed 002's open
    risk 2: a cache dump of the zero-head path against the KV-only path)."""
    if heads == 0 and apply_q_norm:
        pytest.skip("no Q heads to normalise: apply_q_norm=true is rejected for 0 heads")
    ref = rope_kv_references[V41]
    fmt = fmt_of(ref, fmt_name)
    inputs = Inputs(fmt, torch.bfloat16, num_tokens, seed=heads + num_tokens)
    g = torch.Generator("cuda").manual_seed(31)
    live = LIVE_HEADS.get(heads, 0)
    q_in = random_rows((num_tokens, live, 512), torch.bfloat16, g) if heads else None
    q_in = q_in if heads else torch.empty(num_tokens, 0, 512, dtype=torch.bfloat16, device="cuda")
    q_ours = torch.empty(num_tokens, heads, 512, dtype=torch.bfloat16, device="cuda")
    q_ours.view(torch.int16).random_(generator=g)
    q_theirs = q_ours.clone()
    theirs, kv_only = inputs.backing.clone(), inputs.backing.clone()
    if heads:
        ops[V41].fused_deepseek_v4_qnorm_rope_kv_insert(
            q_in, q_ours, *(inputs.kv, inputs.cache, inputs.slots, inputs.positions),
            *(inputs.cos_sin, heads, EPS, apply_q_norm, BLOCK_SIZE, None, fmt.kv_mxfp8),
        )  # fmt: skip
    else:  # the generated Q op needs a Q head; its zero-head path is the KV-only op
        ops[V41].fused_deepseek_v4_kv_rope_insert(*inputs.args(inputs.cache))
    oracle.qnorm_rope_kv_insert(
        q_in, q_theirs, *(inputs.kv, inputs.view(theirs), inputs.slots, inputs.positions),
        *(inputs.cos_sin, heads, EPS, apply_q_norm, BLOCK_SIZE, fmt.kv_mxfp8),
    )  # fmt: skip
    ops[V41].fused_deepseek_v4_kv_rope_insert(*inputs.args(inputs.view(kv_only)))
    torch.cuda.synchronize()
    assert_bytes_equal(inputs.backing, theirs, f"k_cache of the Q op vs vLLM ({fmt_name})")
    assert_bytes_equal(inputs.backing, kv_only, "k_cache of the Q op vs the KV-only op")
    assert_bytes_equal(q_ours, q_theirs, f"q_out vs vLLM ({heads} heads, norm {apply_q_norm})")


# --- non-finite inputs (issue 28) --------------------------------------------------------------

NON_FINITE_ROWS = 64  # one cache block


def non_finite_rows(dtype, g):
    """kv rows, each with one kind of non-finite or overflowing input (the rest random):
    +-Inf and NaN in a NoPE block and in the RoPE lanes, blocks of -0, a block of NaN only, Inf
    and NaN in one block, and RoPE pairs at the dtype's largest values, whose rotation overflows
    fp32 (bf16: 3e38) or the dtype when rounded back to it (fp16: 6e4)."""
    kv = kv_rows(NON_FINITE_ROWS, dtype, g)
    big = 3.0e38 if dtype == torch.bfloat16 else 6.0e4
    inf, nan = float("inf"), float("nan")
    for row in range(0, NON_FINITE_ROWS, 16):  # every kind at several rows and columns
        col = row // 16 * 3
        kv[row + 0, 5 + col] = inf
        kv[row + 1, 70 + col] = -inf
        kv[row + 2, 130 + col] = nan
        kv[row + 3, 192:256] = -0.0
        kv[row + 3, 256:320] = 0.0
        kv[row + 4, 449 + col] = nan  # RoPE lanes
        kv[row + 5, 460 + col] = inf
        kv[row + 6, 448:512] = big  # every rotation of a pair of equal maxima
        kv[row + 7, 448:512:2] = big
        kv[row + 7, 449:512:2] = -big
        kv[row + 8, 0:64] = nan
        kv[row + 9, 300 + col] = inf
        kv[row + 9, 301 + col] = nan
        kv[row + 10, 400 + col] = -inf
        kv[row + 10, 480 + col] = inf
        kv[row + 11, :] = -0.0
        kv[row + 12, 1 + col] = big  # finite large values beside the specials
    return kv


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fmt_name", FORMATS_V41)
def test_non_finite_inputs_match_vllm(ops, oracle, rope_kv_references, fmt_name, dtype):
    """The non-finite rows, byte for byte against vLLM's kernel and against the reference (the
    fp16 rows' bf16 fields against the reference only, as in compare_with_vllm)."""
    dtype = DTYPES[dtype]
    skip_without_counterpart(fmt_name, dtype)
    ref = rope_kv_references[V41]
    fmt = fmt_of(ref, fmt_name)
    for scale in FP8_SCALES if fmt_name == "fp8" else (None,):
        inputs = Inputs(fmt, dtype, NON_FINITE_ROWS, seed=41, scale=scale, pad=0)
        g = torch.Generator("cuda").manual_seed(42)
        inputs.kv = non_finite_rows(dtype, g)
        every_slot = inputs.backing.shape[0] * BLOCK_SIZE
        inputs.slots = torch.randperm(every_slot, device="cuda", generator=g)[:NON_FINITE_ROWS]
        compare_with_vllm(ops[V41], oracle, ref, inputs, dtype)


@pytest.mark.parametrize("fmt_name", ("fp8_ds_mla",))
def test_non_finite_inputs_match_vllm_v4(ops, oracle, rope_kv_references, fmt_name):
    """V4's 584 B record (its own spec and build) on the same rows."""
    ref = rope_kv_references[V4]
    inputs = Inputs(fmt_of(ref, fmt_name), torch.bfloat16, NON_FINITE_ROWS, seed=43, pad=0)
    g = torch.Generator("cuda").manual_seed(44)
    inputs.kv = non_finite_rows(torch.bfloat16, g)
    compare_with_vllm(ops[V4], oracle, ref, inputs, torch.bfloat16)
