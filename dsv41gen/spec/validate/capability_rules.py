"""Capability rules: what the kernel emitters implement (capabilities.py), checked on the typed
model of one section, every violation at its own field. The planners only assert these."""

from __future__ import annotations

import math
import struct

from .. import capabilities
from ..load import Path_
from ..model import (
    CacheFormat,
    CacheFormatKind,
    MxFormat,
    PackedLayout,
    RopeKvInsertKernel,
    ScalarType,
    _parse_rope_kv,
)
from ..resolve import ResolvedSpec
from .report import FieldReport, Report
from .rules import _is_power_of_two

E8M0_NAN = 255
FLOAT32_MAX = 3.4028234663852886e38


def check_mx_capabilities(fmt: MxFormat, report: FieldReport) -> None:
    caps = capabilities.MXFP8
    if fmt.block_size not in caps.block_sizes:
        report(
            ("block_size",),
            f"is {fmt.block_size}; the MXFP8 emitter implements block_size "
            f"{_one_of(caps.block_sizes)} (its kernels tile [rows, blocks, 32] and the swizzled "
            "scale layout assumes 32-value blocks)",
        )
    value_max = caps.value_max.get(fmt.value_dtype)
    if value_max is None:
        report(
            ("value_dtype",),
            f"{fmt.value_dtype.value} has no exact rounding path here; use "
            + _one_of([t.value for t in caps.value_max]),
        )
    elif fmt.value_max != value_max:
        report(
            ("value_max",),
            f"{fmt.value_dtype.value}'s largest finite value is {value_max:g}, not "
            f"{fmt.value_max:g}",
        )
    if fmt.scale_encoding not in caps.scale_encodings:
        report(("scale", "encoding"), "only E8M0 scales are implemented")
    if fmt.scale_dtype not in caps.scale_dtypes:
        report(("scale", "dtype"), "E8M0 scales are stored as uint8")
    if fmt.scale_bias != caps.scale_bias:
        report(("scale", "bias"), f"E8M0 has bias {caps.scale_bias}, not {fmt.scale_bias}")
    low, high = caps.scale_byte_range
    if fmt.scale_min < low:
        report(("scale", "min"), "an E8M0 scale byte cannot be negative")
    if fmt.scale_max > high:
        report(
            ("scale", "max"),
            f"must be at most {high}: the byte {E8M0_NAN} encodes NaN in E8M0",
        )
    if fmt.scale_min > fmt.scale_max:
        report(("scale",), f"min ({fmt.scale_min}) is greater than max ({fmt.scale_max})")
    for i, layout in enumerate(fmt.layouts):
        if layout not in caps.layouts:
            report(("layouts", i), f"the {layout.value} scale layout is not implemented")
    if len(set(fmt.layouts)) == 1:
        # The emitted kernels switch on a LAYOUT constexpr with one branch per layout; a switch
        # of one branch has no form there yet (it rendered `if:` with no condition).
        report(
            ("layouts",),
            f"lists only {fmt.layouts[0].value}; the MXFP8 emitter generates its scale layouts "
            f"together, so list {', '.join(layout.value for layout in caps.layouts)}",
        )
    launch = fmt.launch
    for key, value in (
        ("block_m", launch.block_m),
        ("block_k", launch.block_k),
        ("num_warps", launch.num_warps),
    ):
        if not _is_power_of_two(value):
            report(("launch", key), f"{value!r} is not a power of two (Triton tiles need one)")
    if _is_power_of_two(launch.block_k) and launch.block_k % fmt.block_size:
        report(
            ("launch", "block_k"),
            f"block_k={launch.block_k} is not a multiple of block_size={fmt.block_size}: a tile "
            f"would split a scale block, which can never be computed; use a multiple of "
            f"{fmt.block_size}",
        )
    if launch.num_warps > caps.max_num_warps:
        report(("launch", "num_warps"), f"must be at most {caps.max_num_warps} (Triton's limit)")


def _rope_kv_capabilities(spec: ResolvedSpec, report: Report) -> None:
    kernel = spec.data.get("kernels", {}).get("rope_kv_insert")
    if kernel is None:
        return
    here = ("kernels", "rope_kv_insert")
    check_rope_kv_capabilities(
        _parse_rope_kv(kernel), lambda path, message: report(here + path, message)
    )


def check_rope_kv_capabilities(kernel: RopeKvInsertKernel, report: FieldReport) -> None:
    caps = capabilities.ROPE_KV
    lane = caps.values_per_lane
    if kernel.head_dim not in caps.head_dims:
        report(
            ("head_dim",),
            f"is {kernel.head_dim}; the RoPE + KV emitter implements head_dim "
            f"{_one_of(caps.head_dims)} (one warp per row: {caps.warp_size} lanes x {lane} "
            "16-bit values, two 16-byte accesses a lane)",
        )
    if kernel.nope_dim % lane:
        report(
            ("nope_dim",),
            f"{kernel.nope_dim} is not a multiple of {lane}: each lane holds {lane} values, and "
            "a lane is either all NoPE or all RoPE",
        )
    for i, dtype in enumerate(kernel.input_dtypes):
        if dtype not in caps.input_dtypes:
            report(
                ("input_dtypes", i),
                f"{dtype.value} is not implemented; use {_one_of([t.value for t in caps.input_dtypes])}",
            )
    if not _is_float32(kernel.fp8_max):
        report(
            ("fp8_max",),
            f"{kernel.fp8_max!r} is not exactly a float32 value: the kernel compares and "
            "saturates in float32, so the bound must be one (e.g. 448)",
        )
    kinds: dict[CacheFormatKind, str] = {}
    dtypes: dict[ScalarType, list[CacheFormat]] = {}
    for fmt in kernel.cache_formats:
        at = ("cache_formats", fmt.name)
        _check_cache_capabilities(fmt, at, report)
        if fmt.kind in kinds:
            report(
                at + ("kind",),
                f"{kinds[fmt.kind]} already has kind {fmt.kind.value}; each kind may appear once",
            )
        kinds.setdefault(fmt.kind, fmt.name)
        dtypes.setdefault(fmt.cache_dtype, []).append(fmt)
    for dtype, same in dtypes.items():
        # The KV-only op tells the two packed uint8 formats apart by `kv_mxfp8`; any other pair
        # of formats on one cache dtype could not be told apart at run time.
        mx = sum(f.kind is CacheFormatKind.MXFP8 for f in same)
        if len(same) > 1 and not (len(same) == 2 and mx == 1):
            report(
                ("cache_formats", same[-1].name, "cache_dtype"),
                f"{', '.join(f.name for f in same)} share cache dtype {dtype.value}; the "
                "insert could not tell them apart (only an mxfp8 format may share one, told "
                "apart by kv_mxfp8)",
            )


def _is_float32(value: float) -> bool:
    """Exactly a finite float32 (struct refuses to pack what overflows one)."""
    if not math.isfinite(value) or abs(value) > FLOAT32_MAX:
        return False
    return struct.unpack("<f", struct.pack("<f", value))[0] == value


_PACKED_KINDS = (CacheFormatKind.FP8_DS_MLA, CacheFormatKind.MXFP8)


def _check_cache_capabilities(fmt: CacheFormat, at: Path_, report: FieldReport) -> None:
    caps = capabilities.ROPE_KV
    lane = caps.values_per_lane
    if fmt.cache_dtype not in caps.cache_dtypes:
        report(at + ("cache_dtype",), f"{fmt.cache_dtype.value} caches are not implemented")
    if fmt.fp8_values % lane:
        report(
            at + ("fp8_values",),
            f"{fmt.fp8_values} is not a multiple of {lane}: a lane quantizes all {lane} of its "
            "values or none",
        )
    if (2 * fmt.bf16_values) % caps.vector_bytes:
        report(
            at + ("bf16_values",),
            f"{fmt.bf16_values} bf16 values are not a whole number of {caps.vector_bytes}-byte "
            "accesses",
        )
    if fmt.scale_group:
        lanes = fmt.scale_group // lane
        if fmt.scale_group % lane or lanes & (lanes - 1):
            report(
                at + ("scale_group",),
                f"{fmt.scale_group} is not a power-of-two multiple of {lane}: a scale group "
                "spans whole lanes, reduced by a butterfly",
            )
    packed_layout = fmt.layout in (PackedLayout.TOKEN_DATA_THEN_SCALES, PackedLayout.INTERLEAVED)
    if packed_layout and fmt.kind not in _PACKED_KINDS:
        report(at + ("layout",), f"a {fmt.kind.value} cache is plain rows: write `layout: none`")
    lanes = fmt.scale_group // lane
    if fmt.scale_group and fmt.scale_group % lane == 0 and not lanes & (lanes - 1):
        # rope_kv_core.cuh store_scales: lane 0 writes a token's scale bytes with one 4-, 8- or
        # 16-byte store, gathering slot i from lane i * (scale_group / values per lane).
        data_bytes = fmt.fp8_values + 2 * fmt.bf16_values
        if (
            fmt.scale_bytes not in (4, 8, 16)
            or fmt.scale_bytes * lanes > caps.warp_size
            or data_bytes % fmt.scale_bytes
        ):
            report(
                at + ("scale_bytes",),
                f"{fmt.scale_bytes} is not implemented: a token's scale bytes are written with one "
                f"4-, 8- or 16-byte store gathering one byte per {lanes} lanes (so at most "
                f"{caps.warp_size // lanes}), aligned by a token record of a multiple of them",
            )
    if fmt.per_tensor_scale and fmt.kind is not CacheFormatKind.FP8:
        report(
            at + ("per_tensor_scale",),
            f"a per-tensor scale applies to plain fp8 rows only, not to a {fmt.kind.value} cache",
        )


def _one_of(values) -> str:
    values = [str(v) for v in values]
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]
