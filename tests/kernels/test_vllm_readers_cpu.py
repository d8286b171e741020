"""vLLM 0.33.0's Triton dequantize-and-gather reads the records the torch reference writes.

The CPU half of test_vllm_readers_gpu.py (which reads the generated kernel's and vLLM's caches
with FlashMLA and the same gather on the GPU): the gather, vLLM's own source run by Triton's
interpreter, reads the 584 B and 528 B records that dsv41gen's reference writes into a poisoned,
padded paged cache, at several block sizes, and must return exactly the records decoded from the
format; a cache in the other packed layout must not. Reads vLLM's cache_utils.py from
.vllm/oracle (scripts/vllm_oracle.sh), else from the conformance venv's installed wheel, checked
against the wheel's RECORD; never skipped for want of it. About a second.
"""

from __future__ import annotations

import pytest
import torch
import vllm_oracle

V4, V41 = "deepseek_v4", "deepseek_v41"
PAD = 64


@pytest.fixture(scope="module")
def gather():
    if torch.cuda.is_available():
        pytest.skip("the GPU runs test_vllm_readers_gpu.py")
    source = vllm_oracle.cache_utils_v41_source()
    return vllm_oracle.vllm_gather_module(source).dequantize_and_gather_k_cache_triton


def decode(backing, record, block_size, slots, interleaved):
    """fp32 records at slots, read off the format (e4m3 * 2^(byte - 127), bf16 RoPE values)."""
    fp8, bf16, group = (448, 64, 64) if record == 584 else (512, 0, 32)
    data_bytes = fp8 + 2 * bf16
    out = []
    for slot in slots.tolist():
        raw = backing[slot // block_size]
        pos = slot % block_size
        if interleaved:
            data = raw[pos * record : pos * record + data_bytes]
            scales = raw[pos * record + data_bytes : pos * record + record]
        else:
            data = raw[pos * data_bytes : (pos + 1) * data_bytes]
            at = block_size * data_bytes + pos * (record - data_bytes)
            scales = raw[at : at + record - data_bytes]
        values = data[:fp8].view(torch.float8_e4m3fn).float().view(-1, group)
        values = values * torch.exp2(scales[: fp8 // group].float() - 127)[:, None]
        row = [values.flatten()]
        if bf16:
            row.append(data[fp8:].clone().view(torch.bfloat16).float())
        out.append(torch.cat(row))
    return torch.stack(out)


@pytest.mark.parametrize("block_size", [4, 16])
@pytest.mark.parametrize("record", [584, 528])
def test_gather_reads_the_reference_s_records(rope_kv_references, gather, record, block_size):
    variant = V4 if record == 584 else V41
    ref = rope_kv_references[variant]
    assert ref.cache_format(torch.empty(0, dtype=torch.uint8), record == 528).record_width == record
    g = torch.Generator().manual_seed(block_size)
    num_blocks, tokens = 4, 3 * block_size
    backing = torch.randint(
        0, 256, (num_blocks, block_size * record + PAD), dtype=torch.uint8, generator=g
    )
    cache = backing[:, : block_size * record].view(num_blocks, block_size, record)
    kv = torch.randn(tokens, 512, generator=g).to(torch.bfloat16)
    slots = torch.randperm(num_blocks * block_size, generator=g)[:tokens]
    positions = torch.randint(0, 64, (tokens,), generator=g)
    angles = torch.rand(64, 32, generator=g) * 6
    cos_sin = torch.cat((angles.cos(), angles.sin()), dim=1)
    ref.kv_rope_insert(kv, cache, slots, positions, cos_sin, block_size, None, record == 528)

    def read(paged):
        out = torch.zeros(1, num_blocks * block_size, 512, dtype=torch.bfloat16)
        table = torch.arange(num_blocks, dtype=torch.int32)[None]
        seq = torch.tensor([num_blocks * block_size], dtype=torch.int32)
        gather(out, paged, seq, None, table, block_size, 0)
        return out[0, slots]

    expected = decode(backing, record, block_size, slots, interleaved=record == 528)
    got = read(cache)
    assert torch.equal(got.view(torch.int16), expected.bfloat16().view(torch.int16))
    # the same records in the other layout are misread, not rejected: the check catches it
    wrong = backing.clone()
    data_bytes = 576 if record == 584 else 512
    body = backing[:, : block_size * record].view(num_blocks, block_size, record)
    if record == 584:  # V4's separated block, re-laid as interleaved records
        data = backing[:, : block_size * data_bytes].view(num_blocks, block_size, data_bytes)
        scales = backing[:, block_size * data_bytes : block_size * record]
        scales = scales.reshape(num_blocks, block_size, record - data_bytes)
        wrong[:, : block_size * record] = torch.cat((data, scales), 2).view(num_blocks, -1)
    else:  # V4.1's interleaved records, re-laid as the separated (pre-2026.09.30) block
        separated = (
            body[:, :, :data_bytes].reshape(num_blocks, -1),
            body[:, :, data_bytes:].reshape(num_blocks, -1),
        )
        wrong[:, : block_size * record] = torch.cat(separated, dim=1)
    misread = read(wrong[:, : block_size * record].view(num_blocks, block_size, record))
    assert not torch.equal(misread.view(torch.int16), expected.bfloat16().view(torch.int16))
