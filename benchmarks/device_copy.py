"""The same-bytes device copy of benchmarks/bench_rope_kv.py and sweep_rope_kv_kv_only.py.

A row that moves B bytes (read + written) is set beside a device copy of B bytes (B / 2 read,
B / 2 written) timed exactly as the row's op is: the same number of independent sets (each its
own source and destination, so a replay touches as many bytes as the op's), one CUDA graph that
runs every set's copy once, the median over replays divided by the number of sets
(bench_rope_kv.time_sets). Two copies:

- `kernel`: an SM copy kernel (Triton, 16-byte vectors, one tile per program, a grid of many
  waves), the fastest of COPY_TILES (tile of int32 words, warps), each timed on its own;
- `memcpy`: cudaMemcpyAsync device to device (torch's copy_) captured into the graph as a
  memcpy node.

`best` is the faster of the two: the same-bytes copy figure the rows are measured against. Both
pay what the op pays per launch (ramp-up, tail, the gap between graph nodes), which the 2 GiB
eager copy (bench_rope_kv.copy_bandwidth) amortizes over 1 ms. (On the H200, 2026-12-01: the
memcpy node ran 3-5% faster than the kernel at 120-600 MB, though a 2 GiB memcpy node ran at
2.8 TB/s.)
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

COPY_TILES = ((2048, 4), (4096, 4), (8192, 8))


@triton.jit
def copy_kernel(src, dst, n, TILE: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * TILE + tl.arange(0, TILE)
    mask = offsets < n
    tl.store(dst + offsets, tl.load(src + offsets, mask=mask), mask=mask)


def launch_copy(src: torch.Tensor, dst: torch.Tensor, tile: int, warps: int) -> None:
    n = src.numel()
    copy_kernel[(triton.cdiv(n, tile),)](src, dst, n, TILE=tile, num_warps=warps)


def same_bytes_copy(nbytes: int, sets: int, time_sets) -> dict:
    """Device copies of nbytes (read + written) per set, over sets sets, timed by time_sets (a
    list of calls -> median µs per call): GB/s of the fastest kernel tile and of the memcpy
    node, counting read plus written bytes."""
    words = max(4, nbytes // 2 // 16 * 4)  # int32 words each way, a whole number of 16 B
    moved = 2 * 4 * words
    pairs = [
        (
            torch.randint(-(2**31), 2**31 - 1, (words,), dtype=torch.int32, device="cuda"),
            torch.empty(words, dtype=torch.int32, device="cuda"),
        )
        for _ in range(sets)
    ]
    kernel = {}
    for tile, warps in COPY_TILES:
        calls = [(lambda s=s, d=d, t=tile, w=warps: launch_copy(s, d, t, w)) for s, d in pairs]
        kernel[(tile, warps)] = time_sets(calls)
    src, dst = pairs[0]
    launch_copy(src, dst, *COPY_TILES[0])
    torch.cuda.synchronize()
    if not torch.equal(src, dst):
        raise RuntimeError("the copy kernel did not copy")
    (tile, warps), kernel_us = min(kernel.items(), key=lambda item: item[1])
    memcpy_us = time_sets([(lambda s=s, d=d: d.copy_(s)) for s, d in pairs])
    del pairs
    return {
        "bytes": moved,
        "kernel_us": round(kernel_us, 3),
        "kernel_GBps": round(moved / kernel_us / 1e3, 1),
        "kernel_tile": [tile, warps],
        "memcpy_us": round(memcpy_us, 3),
        "memcpy_GBps": round(moved / memcpy_us / 1e3, 1),
        "best": "kernel" if kernel_us <= memcpy_us else "memcpy",
        "best_GBps": round(moved / min(kernel_us, memcpy_us) / 1e3, 1),
    }
