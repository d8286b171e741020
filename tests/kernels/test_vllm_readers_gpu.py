"""vLLM 0.33.0's own attention readers read the caches the generated kernel writes (issue 28).

Byte identity with vLLM's writer (test_rope_kv_vllm_gpu.py) shows that the two writers agree;
this shows that what they write is what vLLM's readers expect, at the strides, page paddings and
slot patterns vLLM uses. Each case writes one poisoned, padded paged cache with the generated
op and a copy with vLLM's compiled kernel (the sm_90 cubin, tests/kernels/vllm_oracle.py), then
reads both with vLLM's readers, from the wheel, unchanged:

- the 584 B record (V4, fp8_ds_mla): FlashMLA's ``sparse_decode_fwd``, called as vLLM's
  DeepSeek V4 decode calls it (models/deepseek_v4/nvidia/flashmla.py: the SWA cache, the
  compressed cache as ``extra_k_cache``, ``topk_length``, ``attn_sink``), and vLLM's prefill
  path: the Triton ``dequantize_and_gather_k_cache_triton`` into a bf16 workspace, then
  FlashMLA's ``sparse_prefill_fwd``;
- the 528 B record (V4.1, mxfp8): the Triton gather (its Hopper reader: FlashMLA refuses the
  record on sm_90, which is asserted too), then ``sparse_prefill_fwd``.

Assertions, per case: the two caches are byte-equal; the readers' outputs from the two caches are
bitwise equal; the output matches fp32 attention over the records decoded here from the format
(e4m3 * 2^(byte - 127), bf16 RoPE values); the decoded records are within e4m3's rounding of the
unquantized rotated rows and the output within the error bound that follows from it; and a cache
written in a wrong layout (V4.1's interleaved record for V4, the pre-2026.09.30 separated layout
for V4.1, which FlashMLA's docstring says is misread, not rejected) fails those checks.

DSV41GEN_READER_REPORT=path writes every case's figures there as JSON.
"""

from __future__ import annotations

import json
import os

import pytest
import torch
import vllm_oracle
from test_rope_kv_gpu import EPS, MAX_POSITION, V4, V41, assert_bytes_equal, cos_sin_cache

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(vllm_oracle.available() is not None, reason=str(vllm_oracle.available())),
    pytest.mark.skipif(
        not vllm_oracle.FLASHMLA.is_file(),
        reason=f"{vllm_oracle.FLASHMLA} is missing: run scripts/vllm_oracle.sh",
    ),
]

HEADS = 64  # vLLM pads DeepSeek V4's query heads to 64 or 128 for FlashMLA
SWA_TOPK = 128  # the sliding window
EXTRA_TOPK = 512  # compressed-cache top-k
PREFILL_TOPK = 256
SOFTMAX_SCALE = 512**-0.5
PAGE_PAD = 64  # 64 * 584 + 64 = 65 * 576: vLLM's page alignment for the 584 B record
REPORT: list[dict] = []

RECORDS = {  # record bytes -> (fp8 values, bf16 values, values per scale, scale bytes)
    584: (448, 64, 64, 8),
    528: (512, 0, 32, 16),
}


@pytest.fixture(scope="session")
def oracle():
    return vllm_oracle.Oracle()


@pytest.fixture(scope="session")
def flashmla():
    return vllm_oracle.load_flashmla()


@pytest.fixture(scope="session")
def gather():
    return vllm_oracle.vllm_gather_module().dequantize_and_gather_k_cache_triton


@pytest.fixture(scope="module", autouse=True)
def write_report():
    yield
    path = os.environ.get("DSV41GEN_READER_REPORT")
    if path and REPORT:
        with open(path, "w") as f:
            json.dump(REPORT, f, indent=1)


# --- caches -------------------------------------------------------------------------------------


class Paged:
    """A poisoned paged cache [num_blocks, block_size, record] with PAGE_PAD bytes after each
    block, and its uint8 backing."""

    def __init__(self, record: int, num_blocks: int, block_size: int, g):
        self.record, self.block_size = record, block_size
        block_bytes = block_size * record
        self.backing = torch.randint(
            0, 256, (num_blocks, block_bytes + PAGE_PAD), dtype=torch.uint8, device="cuda",
            generator=g,
        )  # fmt: skip
        self.cache = self.backing[:, :block_bytes].view(num_blocks, block_size, record)

    def copy(self) -> Paged:
        twin = object.__new__(Paged)
        twin.record, twin.block_size = self.record, self.block_size
        twin.backing = self.backing.clone()
        twin.cache = twin.backing[:, : self.block_size * self.record].view(self.cache.shape)
        return twin

    def decode(self, slots: torch.Tensor) -> torch.Tensor:
        """fp32 [n, 512] of the records at slots, read off the format as FlashMLA's docstring
        describes it: V4 puts a block's token data first, then its scale rows; V4.1 puts each
        token's scales after its own data."""
        fp8, bf16, group, scale_bytes = RECORDS[self.record]
        data_bytes = fp8 + 2 * bf16
        block, pos = slots // self.block_size, slots % self.block_size
        raw = self.backing[block]  # [n, padded block bytes]
        if self.record == 584:
            data_at = pos * data_bytes
            scale_at = self.block_size * data_bytes + pos * scale_bytes
        else:
            data_at = pos * self.record
            scale_at = data_at + data_bytes
        columns = torch.arange(data_bytes, device="cuda")
        data = raw.gather(1, data_at[:, None] + columns)
        scales = raw.gather(1, scale_at[:, None] + torch.arange(fp8 // group, device="cuda"))
        values = data[:, :fp8].view(torch.float8_e4m3fn).float()
        values = values.view(-1, fp8 // group, group) * torch.exp2(scales.float() - 127)[..., None]
        parts = [values.flatten(1)]
        if bf16:
            parts.append(data[:, fp8:].contiguous().view(torch.bfloat16).float())
        return torch.cat(parts, dim=1)

    def wrong_layout(self) -> Paged:
        """The same records in the other packed layout: V4's records interleaved (each token's
        data, then its own scales), V4.1's separated (a block's data, then its scales)."""
        fp8, bf16, group, scale_bytes = RECORDS[self.record]
        data_bytes = fp8 + 2 * bf16
        twin = self.copy()
        n, bs = self.backing.shape[0], self.block_size
        body = self.backing[:, : bs * self.record]
        if self.record == 584:
            data = body[:, : bs * data_bytes].reshape(n, bs, data_bytes)
            scales = body[:, bs * data_bytes :].reshape(n, bs, scale_bytes)
            twin.backing[:, : bs * self.record] = torch.cat((data, scales), dim=2).reshape(n, -1)
        else:
            records = body.reshape(n, bs, self.record)
            separated = torch.cat(
                (records[:, :, :data_bytes].reshape(n, -1), records[:, :, data_bytes:].reshape(n, -1)),
                dim=1,
            )  # fmt: skip
            twin.backing[:, : bs * self.record] = separated
        return twin


def kv_rows(num_tokens, dtype, g):
    """Normal rows, a few 32-value groups scaled down into e4m3's subnormals, a few up."""
    kv = torch.randn(num_tokens, 512, device="cuda", generator=g)
    groups = kv.view(num_tokens, 16, 32)
    groups[1::5, 3] *= 2.0**-9
    groups[2::7, 9] *= 2.0**5
    return kv.to(dtype)


def rotated(kv, positions, cos_sin):
    """The unquantized rows the cache should hold: GPT-J interleaved RoPE on the last 64
    dimensions, in fp32 (no fused multiply-add: the bound below does not need the last ulp)."""
    x = kv.float().clone()
    pairs = x[:, 448:].unflatten(1, (32, 2))
    cos, sin = cos_sin[positions, :32], cos_sin[positions, 32:]
    even = pairs[..., 0] * cos - pairs[..., 1] * sin
    odd = pairs[..., 1] * cos + pairs[..., 0] * sin
    x[:, 448:] = torch.stack((even, odd), dim=-1).flatten(1)
    return x


class Written:
    """kv rows inserted at slots (some -1) by the generated op and by vLLM's kernel into two
    copies of one poisoned cache; ``slots_written`` are the slots that hold a record."""

    def __init__(self, ops, oracle, variant, record, num_tokens, block_size, seed, writer="kv"):
        g = torch.Generator("cuda").manual_seed(seed)
        num_blocks = num_tokens // block_size + 4
        self.ours = Paged(record, num_blocks, block_size, g)
        self.theirs = self.ours.copy()
        self.kv = kv_rows(num_tokens, torch.bfloat16, g)
        self.positions = torch.randint(0, MAX_POSITION, (num_tokens,), device="cuda", generator=g)
        self.cos_sin = cos_sin_cache()
        order = torch.randperm(num_blocks * block_size, device="cuda", generator=g)
        self.slots = order[:num_tokens].contiguous()
        self.slots[7::19] = -1  # rows vLLM pads or skips
        kv_mxfp8 = record == 528
        op = ops[variant]
        args = (self.kv, None, self.slots, self.positions, self.cos_sin, block_size)
        if writer == "kv":
            op.fused_deepseek_v4_kv_rope_insert(self.kv, self.ours.cache, *args[2:], None, kv_mxfp8)
            oracle.kv_rope_insert(self.kv, self.theirs.cache, *args[2:], None, kv_mxfp8)
        else:  # the Q + KV op, 64 heads: the reduced grid from 1024 tokens on
            q_in = torch.randn(num_tokens, HEADS, 512, device="cuda", generator=g).bfloat16()
            q_ours, q_theirs = torch.empty_like(q_in), torch.empty_like(q_in)
            op.fused_deepseek_v4_qnorm_rope_kv_insert(
                q_in, q_ours, self.kv, self.ours.cache, *args[2:5],
                HEADS, EPS, True, block_size, None, kv_mxfp8,
            )  # fmt: skip
            oracle.qnorm_rope_kv_insert(
                q_in, q_theirs, self.kv, self.theirs.cache, *args[2:5],
                HEADS, EPS, True, block_size, kv_mxfp8,
            )  # fmt: skip
            torch.cuda.synchronize()
            assert_bytes_equal(q_ours, q_theirs, "q_out vs vLLM")
        torch.cuda.synchronize()
        assert_bytes_equal(self.ours.backing, self.theirs.backing, "cache vs vLLM's")
        written = self.slots >= 0
        self.rows = torch.nonzero(written).flatten()  # kv rows that were inserted
        self.slots_written = self.slots[self.rows]
        self.true_rows = rotated(self.kv[self.rows], self.positions[self.rows], self.cos_sin)


# --- attention references -----------------------------------------------------------------------


def fp32_attention(q, keys_per_query, sink):
    """q [n, h, 512] (fp32); keys_per_query: n tensors [k_i, 512] (fp32, V = K); sink [h] or
    None. softmax(scale q.k) over the keys and the sink, times V."""
    out = torch.empty(q.shape, dtype=torch.float32, device="cuda")
    for i, keys in enumerate(keys_per_query):
        logits = SOFTMAX_SCALE * (q[i].double() @ keys.double().T)  # [h, k]
        top = logits.max(dim=1, keepdim=True).values
        if sink is not None:
            top = torch.maximum(top, sink.double()[:, None])
        p = torch.exp(logits - top)
        denominator = p.sum(dim=1)
        if sink is not None:
            denominator = denominator + torch.exp(sink.double() - top[:, 0])
        out[i] = ((p @ keys.double()) / denominator[:, None]).float()
    return out


def e4m3_bound(decoded, true_rows, record):
    """Each decoded value within e4m3's rounding of the unquantized one: half an ulp of a 3-bit
    mantissa (2^-4 relative), or half the subnormal step of its block (2^-10 * scale), after the
    rotated value's rounding to bf16 (2^-8 relative); the 584 B record's bf16 RoPE values within
    bf16's 2^-8. Returns the largest error over its bound (at most 1 passes)."""
    fp8, _, group, _ = RECORDS[record]
    error = (decoded - true_rows).abs()
    amax = true_rows[:, :fp8].abs().view(-1, fp8 // group, group).amax(dim=-1, keepdim=True)
    block_scale = torch.exp2(torch.ceil(torch.log2(amax.clamp_min(1e-4) / 448)))
    # the kernel takes the block scale from the values rounded to bf16: it may be twice this one
    magnitude = true_rows[:, :fp8].abs().reshape(-1, fp8 // group, group)
    quantized = (2.0**-4 + 2.0**-7) * magnitude + 2.0**-9 * block_scale
    bound = [quantized.flatten(1)]
    if fp8 < 512:
        bound.append(2.0**-8 * true_rows[:, fp8:].abs() + 1e-30)
    return (error / torch.cat(bound, dim=1)).max().item()


def output_bound(q, keys_dec, keys_true):
    """How far attention over keys_dec can lie from attention over keys_true, per query and
    head: with dK = |keys_dec - keys_true|, each logit moves by at most
    scale * sum_d |q_d| dK_d =: D, so every softmax weight by a factor in [e^-2D, e^2D] (the sink's
    logit does not move): |d out| <= max dK + max |V| (e^(2D) - 1)."""
    bounds = []
    for i, (dec, true) in enumerate(zip(keys_dec, keys_true, strict=True)):
        dk = (dec - true).abs()
        logit_move = SOFTMAX_SCALE * (q[i].abs() @ dk.T).max(dim=1).values  # [h]
        bound = dk.max() + true.abs().max() * torch.expm1(2 * logit_move)
        bounds.append(bound)
    return torch.stack(bounds)  # [n, h]


def check_attention(what, out, out_twin, q, keys_dec, keys_true, sink, record, case):
    """The assertions of one read: bitwise equal outputs of the two caches, the fp32 reference
    over the decoded records, the e4m3 bound against the unquantized rows."""
    assert torch.equal(out.view(torch.int16), out_twin.view(torch.int16)), (
        f"{what}: the outputs of the generated op's cache and vLLM's cache differ"
    )
    reference = fp32_attention(q, keys_dec, sink)
    error = (out.float() - reference).abs()
    scale = reference.abs().max().item()
    # bf16 output (2^-9 relative), bf16 P and QK^T inputs inside FlashMLA: 2^-6 of the largest
    # output is far below any layout error and well above FlashMLA's rounding
    assert error.max().item() <= 2.0**-6 * scale, (
        f"{what}: max error {error.max().item():.3g} against fp32 attention over the decoded "
        f"records (largest output {scale:.3g})"
    )
    unquantized = fp32_attention(q, keys_true, sink)
    allowed = output_bound(q, keys_dec, keys_true)[..., None] + error.max()
    excess = ((out.float() - unquantized).abs() - allowed).max().item()
    assert excess <= 0, f"{what}: {excess:.3g} beyond the e4m3 error bound of unquantized attention"
    case.update(
        reader=what,
        bitwise_equal=True,
        max_error_vs_fp32=error.max().item(),
        largest_output=scale,
        max_error_vs_unquantized=(out.float() - unquantized).abs().max().item(),
    )


# --- the 584 B record: FlashMLA decode, as vLLM's DeepSeek V4 calls it --------------------------


class Decode:
    """One decode step of B requests: each query attends to SWA_TOPK slots of the SWA cache
    (the first swa_len valid, some -1 among them) and EXTRA_TOPK slots of the compressed cache."""

    def __init__(self, swa: Written, compressed: Written, batch: int, g):
        self.q = torch.randn(batch, 1, HEADS, 512, device="cuda", generator=g).bfloat16()
        self.sink = torch.randn(HEADS, device="cuda", generator=g)
        self.swa_idx, self.swa_len, self.swa_rows = self.pick(swa, batch, SWA_TOPK, g)
        self.extra_idx, self.extra_len, self.extra_rows = self.pick(
            compressed, batch, EXTRA_TOPK, g
        )

    @staticmethod
    def pick(written: Written, batch, topk, g):
        """indices [batch, 1, topk] int32 into the cache's slots; lengths [batch]; and per query
        the written rows it reads."""
        available = written.rows.numel()
        lengths = torch.randint(topk // 2, topk + 1, (batch,), device="cuda", generator=g)
        lengths = lengths.clamp_max(available)  # a short sequence has fewer tokens than top-k
        indices = torch.full((batch, 1, topk), -1, dtype=torch.int32, device="cuda")
        rows = []
        for b in range(batch):
            n = int(lengths[b])
            pick = torch.randperm(written.rows.numel(), device="cuda", generator=g)[:n]
            slots = written.slots_written[pick].int()
            slots[3::17] = -1  # invalid entries inside topk_length, as vLLM pads
            indices[b, 0, :n] = slots
            rows.append(pick[slots >= 0])
        return indices, lengths.int(), rows

    def keys(self, swa: Written, compressed: Written, decode_from):
        per_query = []
        for b in range(self.q.shape[0]):
            s, c = self.swa_rows[b], self.extra_rows[b]
            per_query.append(torch.cat((decode_from(swa, s), decode_from(compressed, c))))
        return per_query

    def run(self, flashmla, swa_cache, extra_cache, sched=(None, None), out=None):
        result = flashmla.sparse_decode_fwd(
            self.q, swa_cache.unsqueeze(-2), self.swa_idx, self.swa_len, self.sink, *sched,
            extra_cache.unsqueeze(-2), self.extra_idx, self.extra_len, 512, SOFTMAX_SCALE, out,
            False,
        )  # fmt: skip
        return result[0], (result[2], result[3])


def decoded(paged_of):
    return lambda written, rows: paged_of(written).decode(written.slots_written[rows])


def true_keys(written, rows):
    return written.true_rows[rows]


@pytest.mark.parametrize("writer", ["kv", "q_op"])
@pytest.mark.parametrize("num_tokens", [1000, 1024, 1100])
def test_flashmla_decode_reads_the_584_byte_record(ops, oracle, flashmla, num_tokens, writer):
    """SWA cache + compressed cache (extra_k_cache), both written by each writer, 64-token
    pages padded to vLLM's 576-byte alignment, tokens below, at and above the Q op's 1024
    cutoff, slots of -1, indices of -1."""
    swa = Written(ops, oracle, V4, 584, num_tokens, 64, seed=num_tokens, writer=writer)
    compressed = Written(ops, oracle, V4, 584, num_tokens // 2, 64, seed=7 + num_tokens)
    g = torch.Generator("cuda").manual_seed(3)
    step = Decode(swa, compressed, batch=4, g=g)
    out, _ = step.run(flashmla, swa.ours.cache, compressed.ours.cache)
    out_twin, _ = step.run(flashmla, swa.theirs.cache, compressed.theirs.cache)
    keys_dec = step.keys(swa, compressed, decoded(lambda w: w.ours))
    for w in (swa, compressed):
        assert e4m3_bound(w.ours.decode(w.slots_written), w.true_rows, 584) <= 1
    case = dict(record=584, tokens=num_tokens, writer=writer, block_size=64)
    check_attention(
        "FlashMLA sparse_decode_fwd (SWA + extra_k_cache)", out[:, 0], out_twin[:, 0],
        step.q[:, 0].float(), keys_dec, step.keys(swa, compressed, true_keys), step.sink, 584, case,
    )  # fmt: skip
    # the same read of a cache in the wrong layout must fail
    wrong_swa, wrong_c = swa.ours.wrong_layout(), compressed.ours.wrong_layout()
    wrong, _ = step.run(flashmla, wrong_swa.cache, wrong_c.cache)
    with pytest.raises(AssertionError):
        check_attention(
            "wrong layout", wrong[:, 0], wrong[:, 0], step.q[:, 0].float(), keys_dec,
            step.keys(swa, compressed, true_keys), step.sink, 584, {},
        )  # fmt: skip
    case["wrong_layout_caught"] = True
    REPORT.append(case)


def test_flashmla_decode_replays_in_a_cuda_graph(ops, flashmla):
    """The generated insert and FlashMLA's decode captured in one CUDA graph, replayed over new
    kv rows: bit-identical to the same calls run eagerly."""
    g = torch.Generator("cuda").manual_seed(11)
    num_tokens = 512
    paged = Paged(584, num_tokens // 64 + 4, 64, g)
    extra = Paged(584, 8, 64, g)
    kv = kv_rows(num_tokens, torch.bfloat16, g)
    positions = torch.randint(0, MAX_POSITION, (num_tokens,), device="cuda", generator=g)
    cos_sin = cos_sin_cache()
    slots = torch.randperm(paged.cache.shape[0] * 64, device="cuda", generator=g)[:num_tokens]
    extra_kv = kv_rows(256, torch.bfloat16, g)
    extra_slots = torch.arange(256, device="cuda")
    insert = ops[V4].fused_deepseek_v4_kv_rope_insert
    insert(extra_kv, extra.cache, extra_slots, positions[:256], cos_sin, 64, None, False)
    holder = type("W", (), {})()
    holder.rows = torch.arange(num_tokens, device="cuda")
    holder.slots_written = slots
    extra_holder = type("W", (), {})()
    extra_holder.rows = torch.arange(256, device="cuda")
    extra_holder.slots_written = extra_slots
    step = Decode(holder, extra_holder, batch=2, g=g)
    out = torch.empty(2, 1, HEADS, 512, dtype=torch.bfloat16, device="cuda")

    def run(sched):
        insert(kv, paged.cache, slots, positions, cos_sin, 64, None, False)
        return step.run(flashmla, paged.cache, extra.cache, sched, out)[1]

    sched = run((None, None))  # the planner runs once, outside capture (as vLLM warms up)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run(sched)
    for _ in range(2):
        kv.copy_(kv_rows(num_tokens, torch.bfloat16, g))
        graph.replay()
        torch.cuda.synchronize()
        replayed, cache_replayed = out.clone(), paged.backing.clone()
        run(sched)
        torch.cuda.synchronize()
        assert torch.equal(paged.backing, cache_replayed), "cache after replay vs eager"
        assert torch.equal(out.view(torch.int16), replayed.view(torch.int16)), "decode output"
    REPORT.append(dict(record=584, reader="FlashMLA decode in a CUDA graph", bitwise_equal=True))


def test_flashmla_refuses_the_528_byte_record_on_sm90(flashmla):
    """vLLM 0.33.0 picks the 584 B record on Hopper: FlashMLA's sm_90 decode rejects 528 B."""
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("the refusal is sm_90's")
    g = torch.Generator("cuda").manual_seed(5)
    paged = Paged(528, 4, 64, g)
    q = torch.randn(1, 1, HEADS, 512, device="cuda", generator=g).bfloat16()
    indices = torch.zeros(1, 1, SWA_TOPK, dtype=torch.int32, device="cuda")
    with pytest.raises(RuntimeError) as refused:
        flashmla.sparse_decode_fwd(
            q, paged.cache.unsqueeze(-2), indices, None, None, None, None, None, None, None,
            512, SOFTMAX_SCALE, None, False,
        )  # fmt: skip
        torch.cuda.synchronize()
    REPORT.append(
        dict(record=528, reader="FlashMLA sparse_decode_fwd", refused=str(refused.value)[:300])
    )


# --- the prefill path: vLLM's Triton gather, then FlashMLA's sparse prefill ---------------------


def gather_request(gather, paged: Paged, written: Written):
    """One request holding every written record in slot order of its rows: a block table over
    the pages the rows landed in is not contiguous in general, so the request's tokens are the
    written rows sorted by slot, read page by page (vLLM's block table is per request)."""
    slots = written.slots_written
    order = torch.argsort(slots)
    slots = slots[order]
    # a block table of every page, in order: request position p reads page p // bs, offset p % bs
    num_blocks = paged.cache.shape[0]
    table = torch.arange(num_blocks, dtype=torch.int32, device="cuda")[None]
    seq_len = num_blocks * paged.block_size
    out = torch.zeros(1, seq_len, 512, dtype=torch.bfloat16, device="cuda")
    gather(
        out, paged.cache, torch.tensor([seq_len], dtype=torch.int32, device="cuda"), None,
        table, paged.block_size, 0,
    )  # fmt: skip
    return out[0], slots, written.rows[order]


@pytest.mark.parametrize("block_size", [16, 64, 128])
@pytest.mark.parametrize("record", [584, 528])
def test_triton_gather_and_sparse_prefill_read_the_records(
    ops, oracle, flashmla, gather, record, block_size
):
    """vLLM's prefill read: the Triton dequantize-and-gather of every page into a bf16
    workspace (equal, bit for bit, to the records decoded here, rounded to bf16), then
    sparse_prefill_fwd over it (topk_length, attn_sink, -1 indices)."""
    variant = V4 if record == 584 else V41
    num_tokens = 1100
    written = Written(ops, oracle, variant, record, num_tokens, block_size, seed=block_size)
    assert e4m3_bound(written.ours.decode(written.slots_written), written.true_rows, record) <= 1
    work, slots, rows = gather_request(gather, written.ours, written)
    work_twin, _, _ = gather_request(gather, written.theirs, written)
    assert torch.equal(work.view(torch.int16), work_twin.view(torch.int16)), "gathered rows"
    expected = written.ours.decode(slots).bfloat16()
    gathered = work[slots]
    assert torch.equal(gathered.view(torch.int16), expected.view(torch.int16)), (
        f"vLLM's Triton gather of the {record} B record differs from the format's decoding in "
        f"{(gathered != expected).sum().item()} values"
    )
    case = dict(record=record, tokens=num_tokens, block_size=block_size, gather_bitwise=True)

    g = torch.Generator("cuda").manual_seed(9)
    queries = 8
    q = torch.randn(queries, HEADS, 512, device="cuda", generator=g).bfloat16()
    sink = torch.randn(HEADS, device="cuda", generator=g)
    lengths = torch.randint(
        PREFILL_TOPK // 2, PREFILL_TOPK + 1, (queries,), device="cuda", generator=g
    )
    indices = torch.full((queries, 1, PREFILL_TOPK), -1, dtype=torch.int32, device="cuda")
    picks = []
    for i in range(queries):
        pick = torch.randperm(slots.numel(), device="cuda", generator=g)[: int(lengths[i])]
        chosen = slots[pick].int()
        chosen[5::23] = -1
        indices[i, 0, : pick.numel()] = chosen
        picks.append(pick[chosen >= 0])

    def prefill(workspace):
        return flashmla.sparse_prefill_fwd(
            q, workspace.unsqueeze(1), indices, SOFTMAX_SCALE, 512, sink, lengths.int(), None
        )[0]

    out, out_twin = prefill(work), prefill(work_twin)
    keys_dec = [expected[p].float() for p in picks]
    true_by_slot = written.true_rows[torch.argsort(written.slots_written)]  # as slots is
    keys_true = [true_by_slot[p] for p in picks]
    check_attention(
        f"Triton gather + sparse_prefill_fwd ({record} B)", out, out_twin, q.float(), keys_dec,
        keys_true, sink, record, case,
    )  # fmt: skip
    # the wrong layout: the gather misreads it, and the read fails the same checks
    wrong_work, _, _ = gather_request(gather, written.ours.wrong_layout(), written)
    wrong = prefill(wrong_work)
    with pytest.raises(AssertionError):
        check_attention(
            "wrong layout", wrong, wrong, q.float(), keys_dec, keys_true, sink, record, {}
        )
    case["wrong_layout_caught"] = True
    REPORT.append(case)
