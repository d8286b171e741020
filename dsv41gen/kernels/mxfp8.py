"""MX quantize / dequantize (e4m3 values, E8M0 block scales): the Triton kernels and launchers.

An ordinary source file, the runtime half of every generated family package: a family's
generated ``mxfp8`` module holds only what its spec decides (an ``Mxfp8Format`` of constants, its
scale layouts and launch defaults, each commented with the spec field it comes from) and binds
this module's launchers to it with ``Mxfp8Ops``. Nothing here is rendered; the numbers the
kernels use arrive as the constexpr argument ``FMT``, which compiles to the same code as module
constants (Triton folds it at compile time, one compiled kernel per format).

Format: blocks of ``BLOCK_SIZE`` values along K share one E8M0 scale byte ``sb``;
``xq = x * 2^(bias - sb)`` rounded to the value type (round to nearest even), ``sb`` the
smallest exponent with ``amax <= value_max * 2^(sb - bias)``, clamped to [scale min, scale max]
(amax floored at ``AMAX_FLOOR_BITS``). Dequantization: ``x ~= xq * 2^(sb - bias)``.

Non-finite policy: a block holding any NaN or +-inf gets the E8M0 NaN scale (``SCALE_NAN``) and
all its values are the NaN code (``VALUE_NAN``); dequantizing such a block gives NaN everywhere.
The value type has no infinity, so no finite stand-in is invented.

Subnormal safety: no scale-derived intermediate is subnormal. The planner (dsv41gen/plan/mxfp8.py)
checks that the reciprocal 2^(bias - sb) is a normal fp32 for every sb a block can reach (e4m3:
sb <= 247, NaN blocks 248 before the NaN select); dequantization applies 2^(sb - bias) as two
normal factors, because 2^-127 alone (sb == 0) is subnormal.

Exactness: input is widened to fp32 bit patterns (bf16 through ``int16 << 16``); amax is an
integer max over ``bits & 0x7FFFFFFF`` (NaN sorts above inf above every finite value); sb comes
from amax's exponent and fraction fields (no log2, no division); rounding to the value grid adds
and subtracts a normal magic number. The same code is bit-exact under the interpreter and on
the GPU.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from pathlib import Path
from typing import Any, NamedTuple

import torch
import triton
import triton.language as tl
from triton import knobs


class Mxfp8Format(NamedTuple):
    """What one MX format decides, as the kernels read it (the constexpr argument ``FMT``).

    A generated family module builds one from its planned constants; every field is a number
    the planner derived from the spec (``dsv41gen/plan/mxfp8.py`` says how)."""

    BLOCK_SIZE: int  # values per scale byte
    VALUE_TYPE: Any  # the value dtype: its name in VALUE_TYPES; the kernels see its tl.dtype
    VALUE_MAX: float  # largest finite value
    VALUE_MAX_MANT: int  # value_max's fp32 fraction bits
    VALUE_MIN_NORMAL_BITS: int  # the value type's smallest normal, as fp32 bits
    VALUE_MAGIC_OFFSET: int  # added to an fp32 exponent field: the rounding magic number
    VALUE_NAN: int  # the value type's NaN code, without the sign
    AMAX_FLOOR_BITS: int  # amax floor, as fp32 bits
    SCALE_BIAS: int
    SCALE_MIN: int
    SCALE_MAX: int
    SCALE_NAN: int  # the scale byte of a block holding NaN or +-inf
    SCALE_OFFSET: int  # sb = amax's biased fp32 exponent + SCALE_OFFSET (+ 1 above value_max)
    RESCALE_EXP_BASE: int  # bits of 2^(bias - sb) are (RESCALE_EXP_BASE - sb) << 23


class CacheHints(NamedTuple):
    """Memory hints of the kernels' streamed loads and stores (the constexpr argument ``HINTS``).

    The defaults are Triton's own (no hint): the shipped kernels. benchmarks/sweep_mxfp8_variants.py
    times others through ``Mxfp8Ops(..., hints=...)``."""

    LOAD_EVICTION: str = ""  # eviction_policy of the x / xq loads, e.g. "evict_first"
    STORE_CACHE: str = ""  # cache_modifier of the xq / output stores, e.g. ".cs"


NO_HINTS = CacheHints()  # what the generated modules launch with


# The kernels' constants are local constexprs of each jitted function, not module globals: the
# launch path re-checks every global a kernel reads on every call, which costs microseconds each.


@triton.jit
def _load_fp32_bits(ptrs, mask, DTYPE: tl.constexpr, EVICTION: tl.constexpr):
    """Load one tile and widen it to fp32 bit patterns (exact, subnormals included)."""
    DTYPE_BF16: tl.constexpr = 0  # torch.bfloat16
    DTYPE_FP16: tl.constexpr = 1  # torch.float16
    BF16_SHIFT: tl.constexpr = 16  # bf16 is the high half of an fp32
    if DTYPE == DTYPE_BF16:
        raw = tl.load(ptrs, mask=mask, other=0.0, eviction_policy=EVICTION)
        bits = raw.to(tl.int16, bitcast=True).to(tl.int32) << BF16_SHIFT
    elif DTYPE == DTYPE_FP16:
        raw = tl.load(ptrs, mask=mask, other=0.0, eviction_policy=EVICTION)
        bits = raw.to(tl.float32).to(tl.int32, bitcast=True)
    else:  # DTYPE_FP32
        bits = tl.load(ptrs, mask=mask, other=0.0, eviction_policy=EVICTION).to(
            tl.int32, bitcast=True
        )
    return bits


@triton.jit
def _store_from_fp32_bits(ptrs, bits, mask, DTYPE: tl.constexpr, CACHE: tl.constexpr):
    """Narrow fp32 bit patterns to the output dtype (round to nearest even) and store them."""
    DTYPE_BF16: tl.constexpr = 0  # torch.bfloat16
    DTYPE_FP16: tl.constexpr = 1  # torch.float16
    BF16_SHIFT: tl.constexpr = 16  # bf16 is the high half of an fp32
    BF16_ROUND_HALF: tl.constexpr = 0x7FFF  # bf16 narrowing: half an ulp minus one
    if DTYPE == DTYPE_BF16:
        rounded = (bits + BF16_ROUND_HALF + ((bits >> BF16_SHIFT) & 1)) >> BF16_SHIFT
        out = rounded.to(tl.int16).to(tl.bfloat16, bitcast=True)
        tl.store(ptrs, out, mask=mask, cache_modifier=CACHE)
    elif DTYPE == DTYPE_FP16:
        out = bits.to(tl.float32, bitcast=True).to(tl.float16)
        tl.store(ptrs, out, mask=mask, cache_modifier=CACHE)
    else:  # DTYPE_FP32
        tl.store(ptrs, bits.to(tl.float32, bitcast=True), mask=mask, cache_modifier=CACHE)


@triton.jit
def _scale_offsets(rows, blocks, scale_cols, LAYOUT: tl.constexpr):
    """Byte offsets of the scales of rows x blocks within one matrix's scale buffer."""
    LAYOUT_ROW_MAJOR: tl.constexpr = 0  # "row_major"
    # the swizzled_128x4 layout: 128 x 4 tiles of 512 bytes, rows m and m + 32 16 bytes apart
    SWIZZLE_ROWS: tl.constexpr = 128
    SWIZZLE_COLS: tl.constexpr = 4
    SWIZZLE_ROW_GROUP: tl.constexpr = 32
    SWIZZLE_TILE_BYTES: tl.constexpr = 512
    if LAYOUT == LAYOUT_ROW_MAJOR:
        offsets = rows[:, None] * scale_cols + blocks[None, :]
    else:  # LAYOUT_SWIZZLED_128X4
        # scale (r, c): tile (r // 128, c // 4), byte (r % 32) * 16 + (r // 32 % 4) * 4 + c % 4
        groups: tl.constexpr = SWIZZLE_ROWS // SWIZZLE_ROW_GROUP
        tile_row = rows // SWIZZLE_ROWS
        tile_col = blocks // SWIZZLE_COLS
        tile = tile_row[:, None] * (scale_cols // SWIZZLE_COLS) + tile_col[None, :]
        inner = (rows % SWIZZLE_ROW_GROUP) * (groups * SWIZZLE_COLS)
        inner += (rows // SWIZZLE_ROW_GROUP % groups) * SWIZZLE_COLS
        offsets = tile * SWIZZLE_TILE_BYTES + inner[:, None] + (blocks % SWIZZLE_COLS)[None, :]
    return offsets


@triton.jit
def _quantize_kernel(
    x_ptr,
    xq_ptr,
    s_ptr,
    M,
    K,
    scale_rows,
    scale_cols,
    stride_x_batch,
    stride_x_row,
    FMT: tl.constexpr,
    HINTS: tl.constexpr,
    DTYPE: tl.constexpr,
    LAYOUT: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    # fp32 format
    FP32_ABS_MASK: tl.constexpr = 0x7FFFFFFF  # all bits but the sign
    FP32_MANT_BITS: tl.constexpr = 23
    FP32_MANT_MASK: tl.constexpr = 0x7FFFFF
    FP32_EXP_MASK: tl.constexpr = 0x7F800000
    FP32_SIGN_MASK: tl.constexpr = -0x80000000  # the sign bit, as an int32
    FP32_NONFINITE_BITS: tl.constexpr = 0x7F800000  # |x| bits >= this is inf or NaN
    # the format (Mxfp8Format)
    BLOCK_SIZE: tl.constexpr = FMT.BLOCK_SIZE
    AMAX_FLOOR_BITS: tl.constexpr = FMT.AMAX_FLOOR_BITS
    VALUE_MAX_MANT: tl.constexpr = FMT.VALUE_MAX_MANT
    SCALE_OFFSET: tl.constexpr = FMT.SCALE_OFFSET
    SCALE_MIN: tl.constexpr = FMT.SCALE_MIN
    SCALE_MAX: tl.constexpr = FMT.SCALE_MAX
    SCALE_NAN: tl.constexpr = FMT.SCALE_NAN
    RESCALE_EXP_BASE: tl.constexpr = FMT.RESCALE_EXP_BASE
    VALUE_MIN_NORMAL_BITS: tl.constexpr = FMT.VALUE_MIN_NORMAL_BITS
    VALUE_MAGIC_OFFSET: tl.constexpr = FMT.VALUE_MAGIC_OFFSET
    VALUE_NAN: tl.constexpr = FMT.VALUE_NAN
    VALUE_TYPE: tl.constexpr = FMT.VALUE_TYPE
    CACHE: tl.constexpr = HINTS.STORE_CACHE
    # Bound to a constexpr name before a call passes it on: Triton 3.6 hands a NamedTuple
    # field read inside a call's arguments to the callee as a plain str, and fails to compile.
    EVICTION: tl.constexpr = HINTS.LOAD_EVICTION
    # The grid covers the (padded) scale extents; rows >= M and columns >= K load as zeros,
    # which is exactly what padding scales must hold (an all-zero block has sb == SCALE_MIN).
    NUM_BLOCKS: tl.constexpr = BLOCK_K // BLOCK_SIZE
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    blocks = tl.program_id(0) * NUM_BLOCKS + tl.arange(0, NUM_BLOCKS)
    cols = blocks[None, :, None] * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)[None, None, :]
    rows3 = rows.to(tl.int64)[:, None, None]
    mask = (rows3 < M) & (cols < K)
    x_ptrs = x_ptr + pid_b * stride_x_batch + rows3 * stride_x_row + cols
    bits = _load_fp32_bits(x_ptrs, mask, DTYPE, EVICTION)

    # amax on bit patterns: |x| orders like its bits, NaN above inf above every finite value.
    amax = tl.maximum(tl.max(bits & FP32_ABS_MASK, axis=2), AMAX_FLOOR_BITS)
    nonfinite = amax >= FP32_NONFINITE_BITS
    # Smallest sb with amax <= value_max * 2^(sb - bias), from amax's exponent and fraction.
    above = ((amax & FP32_MANT_MASK) > VALUE_MAX_MANT).to(tl.int32)
    sb = (amax >> FP32_MANT_BITS) + SCALE_OFFSET + above
    sb = tl.minimum(tl.maximum(sb, SCALE_MIN), SCALE_MAX)
    # 2^(bias - sb) assembled from exponent bits: normal for every reachable sb (module docstring).
    rescale = ((-sb + RESCALE_EXP_BASE) << FP32_MANT_BITS).to(tl.float32, bitcast=True)
    scaled = bits.to(tl.float32, bitcast=True) * rescale[:, :, None]

    # Round |scaled| (<= value_max by the choice of sb) to the value grid, to nearest even, by
    # adding and subtracting a magic number whose fp32 ulp is the grid step at |scaled|'s exponent
    # (floored at the smallest normal, below which the step is the smallest subnormal). The
    # result lies on the grid, so the cast below is exact on every target, the interpreter too.
    exponent = tl.maximum(scaled.to(tl.int32, bitcast=True) & FP32_EXP_MASK, VALUE_MIN_NORMAL_BITS)
    magic = (exponent + VALUE_MAGIC_OFFSET).to(tl.float32, bitcast=True)
    rounded = (tl.abs(scaled) + magic) - magic
    rounded = (rounded.to(tl.int32, bitcast=True) | (bits & FP32_SIGN_MASK)).to(
        tl.float32, bitcast=True
    )
    xq_ptrs = xq_ptr + pid_b * M * K + rows3 * K + cols
    tl.store(xq_ptrs, rounded.to(VALUE_TYPE), mask=mask, cache_modifier=CACHE)
    # A block holding NaN or inf gets the NaN code over every value, by a second store predicated
    # on the block (no extra traffic otherwise): selecting per value cost quantize 7% on the H200.
    nan_codes = tl.full([BLOCK_M, NUM_BLOCKS, BLOCK_SIZE], VALUE_NAN, tl.uint8)
    tl.store(
        xq_ptrs,
        nan_codes.to(VALUE_TYPE, bitcast=True),
        mask=mask & nonfinite[:, :, None],
        cache_modifier=CACHE,
    )

    scale_mask = (rows[:, None] < scale_rows) & (blocks[None, :] < scale_cols)
    s_batch = pid_b * scale_rows * scale_cols
    scale_ptrs = s_ptr + s_batch + _scale_offsets(rows, blocks, scale_cols, LAYOUT)
    tl.store(scale_ptrs, tl.where(nonfinite, SCALE_NAN, sb).to(tl.uint8), mask=scale_mask)


@triton.jit
def _dequantize_kernel(
    xq_ptr,
    s_ptr,
    out_ptr,
    M,
    K,
    scale_rows,
    scale_cols,
    FMT: tl.constexpr,
    HINTS: tl.constexpr,
    DTYPE: tl.constexpr,
    LAYOUT: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    # fp32 format
    FP32_MANT_BITS: tl.constexpr = 23
    FP32_BIAS: tl.constexpr = 127
    FP32_QNAN_BITS: tl.constexpr = 0x7FC00000  # the quiet NaN torch produces
    # the format (Mxfp8Format)
    BLOCK_SIZE: tl.constexpr = FMT.BLOCK_SIZE
    SCALE_NAN: tl.constexpr = FMT.SCALE_NAN
    VALUE_MAX: tl.constexpr = FMT.VALUE_MAX
    SCALE_BIAS: tl.constexpr = FMT.SCALE_BIAS
    VALUE_TYPE: tl.constexpr = FMT.VALUE_TYPE
    EVICTION: tl.constexpr = HINTS.LOAD_EVICTION
    CACHE: tl.constexpr = HINTS.STORE_CACHE  # a constexpr name for the call below (Triton 3.6)
    NUM_BLOCKS: tl.constexpr = BLOCK_K // BLOCK_SIZE
    pid_b = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    blocks = tl.program_id(0) * NUM_BLOCKS + tl.arange(0, NUM_BLOCKS)
    cols = blocks[None, :, None] * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)[None, None, :]
    rows3 = rows.to(tl.int64)[:, None, None]
    mask = (rows3 < M) & (cols < K)
    offsets = pid_b * M * K + rows3 * K + cols
    code = tl.load(xq_ptr + offsets, mask=mask, other=0.0, eviction_policy=EVICTION)
    code = code.to(tl.uint8, bitcast=True)
    scale_mask = (rows[:, None] < M) & (blocks[None, :] < K // BLOCK_SIZE)
    s_batch = pid_b * scale_rows * scale_cols
    scale_ptrs = s_ptr + s_batch + _scale_offsets(rows, blocks, scale_cols, LAYOUT)
    sb = tl.load(scale_ptrs, mask=scale_mask, other=0).to(tl.int32)

    # The value type widens to fp32 exactly, except its NaN codes: NaN on the GPU, +-480 under
    # the interpreter. Both fail |v| <= value_max, one unordered compare per value (measured
    # on the H200: the former mask-and-compare on the code cost dequantize 12% of its time).
    value = code.to(VALUE_TYPE, bitcast=True).to(tl.float32)
    nan = ~(tl.abs(value) <= VALUE_MAX) | (sb == SCALE_NAN)[:, :, None]
    # 2^(sb - bias) as two normal factors: 2^-127 (sb == 0) alone would be subnormal.
    exp_hi = (sb - SCALE_BIAS) >> 1
    exp_lo = (sb - SCALE_BIAS) - exp_hi
    factor_hi = ((exp_hi + FP32_BIAS) << FP32_MANT_BITS).to(tl.float32, bitcast=True)
    factor_lo = ((exp_lo + FP32_BIAS) << FP32_MANT_BITS).to(tl.float32, bitcast=True)
    value = value * factor_hi[:, :, None] * factor_lo[:, :, None]
    out_bits = tl.where(nan, FP32_QNAN_BITS, value.to(tl.int32, bitcast=True))
    _store_from_fp32_bits(out_ptr + offsets, out_bits, mask, DTYPE, CACHE)


# the value dtypes the kernels implement, by name -> (torch dtype, triton.language dtype)
VALUE_TYPES = {"float8_e4m3fn": (torch.float8_e4m3fn, tl.float8e4nv)}
# torch dtype -> the DTYPE constexpr of the kernels (x of quantize, out_dtype of dequantize)
DTYPES = {torch.bfloat16: 0, torch.float16: 1, torch.float32: 2}
# scale layout -> (LAYOUT constexpr, scale row tile, scale column tile)
LAYOUTS = {"row_major": (0, 1, 1), "swizzled_128x4": (1, 128, 4)}
MAX_BATCH = 65535  # CUDA grid dimension z
MAX_ROW_TILES = 65535  # CUDA grid dimension y (grid: K tiles, row tiles, batch)


# Triton's launch path (JITFunction.run) re-derives on every call what a configuration fixes:
# it binds and specializes every argument, formats the options into its cache key, looks the
# compiled kernel up, re-checks the globals the kernel read and builds the launch hooks'
# metadata. That took most of the launchers' host time on the H200 machine (28 to 47 us a call
# against a 2.8 us kernel at 128 x 7168, benchmarks/host_launch_mxfp8.py measures it). So the
# launchers let Triton launch the first call of a configuration and argument class, keep the
# compiled kernel it returns, and launch later calls of that class with its launcher directly.
# The argument class refines Triton's specialization (tests/kernels/test_mxfp8.py checks it
# against Triton's own specialize function): a pointer's 16-byte alignment, and an integer's
# equality to 1, divisibility by 16 and width (i32 / i64 / u64). Triton folds the same facts
# into its key (and nothing else of a non-constexpr argument), so one class never needs two
# compiled kernels; the constexprs and num_warps are fixed per configuration. The kernels read
# no globals (their constants are local), so there is nothing for the skipped re-check to catch.
# On top of that the launchers keep, per launch class (input shapes, strides, dtypes and devices,
# layout, launch overrides), everything the checks and the shape arithmetic decide (_Launch): a
# call that repeats a class costs a dict lookup, its outputs' allocation (none with ``out=``) and
# the compiled launcher's call (benchmarks/host_cost_ops.py times each entry point).
_I32_MIN, _I32_MAX, _U64_MIN = -(1 << 31), (1 << 31) - 1, 1 << 63


def _arg_class(arg: Any) -> int:
    """The class of a kernel argument (a tensor or an int) that decides its specialization."""
    if type(arg) is int:
        if arg == 1:
            return 1  # Triton passes 1 as a constexpr
        wide = (not _I32_MIN <= arg <= _I32_MAX) * 4 + (arg >= _U64_MIN) * 8
        return (arg % 16 == 0) * 2 + wide
    return (arg.data_ptr() % 16 == 0) * 2  # a tensor: its dtype is fixed by the configuration


class _TritonCuda:
    """The current device and stream as Triton's active driver reports them (what its launch
    path launches on), bound on first use: the CPU machines, which have no CUDA driver, never
    use them."""

    def __getattr__(self, name: str) -> Any:  # only while unbound
        active = triton.runtime.driver.active
        self.current_device = active.get_current_device
        self.current_stream = active.get_current_stream
        return getattr(self, name)


_CUDA = _TritonCuda()


def _hooked(hook: Any) -> bool:
    """Whether a Triton launch hook would do anything: None, or a HookChain (Triton 3.6 and
    later) with no hooks, does not."""
    return hook is not None and bool(getattr(hook, "calls", True))


class _DirectLaunch:
    """Launches one compiled kernel (what ``kernel[grid](...)`` returned) as Triton's own launch
    path does: the compiled launcher, the current stream, the arguments in the kernel's order
    with the constexprs, and the launch hooks when any are installed (profilers). Pointers are
    passed as the integers the caller read from its tensors (``data_ptr``): the launcher then
    skips its per-pointer driver query, which only tells a CUDA tensor from a CPU one, and the
    launchers check every tensor's device themselves."""

    __slots__ = ("compiled", "run", "function", "packed_metadata", "constexprs")

    def __init__(self, compiled: Any, constexprs: tuple) -> None:
        self.compiled = compiled
        self.run = compiled.run  # loads the binary on the current device once
        self.function = compiled.function
        self.packed_metadata = compiled.packed_metadata
        self.constexprs = constexprs

    def __call__(self, grid: tuple[int, int, int], args: tuple, device: int) -> None:
        stream = _CUDA.current_stream(device)
        runtime = knobs.runtime
        enter = runtime.launch_enter_hook
        exit_ = runtime.launch_exit_hook
        if _hooked(enter) or _hooked(exit_):
            metadata = self.compiled.launch_metadata(grid, stream, *args, *self.constexprs)
        else:
            metadata = enter = exit_ = None
        self.run(
            grid[0],
            grid[1],
            grid[2],
            stream,
            self.function,
            self.packed_metadata,
            metadata,
            enter,
            exit_,
            *args,
            *self.constexprs,
        )


def _native_module() -> Any:
    """The compiled C++ launcher (triton_launch.cpp), built on first use; None where it cannot
    be built (no C++ compiler or CUDA headers) or DSV41GEN_MXFP8_NATIVE=0 turns it off, and the
    launchers then stay on Triton's compiled launcher."""
    global _NATIVE
    source = Path(__file__).with_name("triton_launch.cpp")
    if _NATIVE is _UNSET and not source.is_file():
        # A patched copy of this module elsewhere (the benchmarks' ablations): the installed
        # module's extension, one build and one load per process.
        from dsv41gen.kernels import mxfp8 as installed

        if installed.__file__ != __file__:
            _NATIVE = installed._native_module()
    if _NATIVE is _UNSET:
        _NATIVE = None
        if os.environ.get("DSV41GEN_MXFP8_NATIVE", "1") != "0":
            try:
                from torch.utils import cpp_extension

                _NATIVE = cpp_extension.load(
                    name="dsv41gen_triton_launch",
                    sources=[str(source)],
                    extra_cflags=["-O2"],
                    with_cuda=True,
                )
            except Exception as error:  # noqa: BLE001 - any build failure keeps Triton's path
                warnings.warn(
                    f"dsv41gen MXFP8: the C++ launcher did not build ({error}); launching"
                    " through Triton's launcher (about 6 us more host time a call)",
                    stacklevel=3,
                )
    return _NATIVE


_UNSET: Any = object()
_NATIVE: Any = _UNSET


def _native_launch(compiled, grid, args, num_inputs, out_shapes, out_dtypes, device) -> Any:
    """A C++ Launch of ``compiled`` for one launch class (grid, the call's arguments in the
    kernel's order, the first three being the pointers), or None where the kernel needs what the
    C++ path does not do: scratch memory, clusters, PDL or cooperative launches, or a parameter
    type other than a pointer, i32 or i64."""
    metadata = compiled.metadata
    if (
        getattr(metadata, "global_scratch_size", 0)
        or getattr(metadata, "profile_scratch_size", 0)
        or getattr(metadata, "num_ctas", 1) != 1
        or getattr(metadata, "launch_cooperative_grid", False)
        or getattr(metadata, "launch_pdl", False)
    ):
        return None
    signature = getattr(getattr(compiled, "src", None), "signature", None)
    if not isinstance(signature, dict) or len(signature) != len(args):
        return None
    module = _native_module()
    if module is None:
        return None
    kinds, values = [], []
    for index, (kind, arg) in enumerate(zip(signature.values(), args, strict=True)):
        if kind == "constexpr":
            continue  # folded into the binary (a constexpr, or an integer equal to 1)
        if kind.startswith("*") and index < 3:
            kinds.append("ptr")
            values.append(index)
        elif kind in ("i32", "i64") and type(arg) is int:
            kinds.append(kind)
            values.append(arg)
        else:
            return None
    # Triton's kernels end with the global and the profile scratch pointers (null: none used).
    kinds += ["i64", "i64"]
    values += [0, 0]
    return module.Launch(
        compiled.function,
        list(grid),
        metadata.num_warps,
        metadata.shared,
        kinds,
        values,
        device,
        num_inputs,
        [list(shape) for shape in out_shapes],
        list(out_dtypes),
    )


class _Launch:
    """One launch class of one kernel: what a (shape, strides, dtypes, devices, layout, launch
    overrides) key fixes, validated and derived once (the grid, the integer arguments, the output
    shapes), and the compiled kernels of its calls by (pointer alignments, current device).
    ``shared`` holds those compiled kernels across the launch classes of one configuration, by
    Triton's specialization (the integer arguments' classes, the alignments, the device), so a new
    shape of a known class goes through Triton's launch path not even once. ``native`` holds, by
    the same (alignments, device), the C++ launches of this class (triton_launch.cpp), where the
    kernel allows one."""

    __slots__ = (
        "kernel",
        "grid",
        "ints",
        "constexprs",
        "options",
        "out_shapes",
        "out_dtypes",
        "num_inputs",
        "device",
        "device_index",
        "direct",
        "native",
        "shared",
        "shared_key",
    )

    def __init__(
        self, kernel, grid, ints, decided, fmt, hints, out_shapes, out_dtypes, device, shared
    ):
        dtype_kind, layout_kind, _, _, block_m, block_k, num_warps = decided
        self.kernel = kernel
        self.grid = grid
        self.ints = ints
        self.constexprs = (fmt, hints, dtype_kind, layout_kind, block_m, block_k)
        self.options = dict(
            FMT=fmt,
            HINTS=hints,
            DTYPE=dtype_kind,
            LAYOUT=layout_kind,
            BLOCK_M=block_m,
            BLOCK_K=block_k,
            num_warps=num_warps,
        )
        self.out_shapes = out_shapes
        self.out_dtypes = out_dtypes
        self.num_inputs = 3 - len(out_shapes)
        self.device = device
        self.device_index = -1 if device.index is None else device.index  # Tensor.get_device()
        # (alignment bits of the three pointers, device index) -> _DirectLaunch
        self.direct: dict[tuple[int, int], _DirectLaunch] = {}
        # the same key -> the C++ Launch, or None where the kernel needs Triton's launcher
        self.native: dict[tuple[int, int], Any] = {}
        self.shared = shared
        self.shared_key = (kernel.__name__, decided, *map(_arg_class, ints))

    def interpret(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
        """The Triton interpreter's launch (CPU tensors)."""
        self.kernel[self.grid](a, b, c, *self.ints, **self.options)

    def check_device(self, what: str) -> int:
        device = _current_device()
        if device != self.device.index:
            raise ValueError(
                f"{what}: the tensors are on {self.device} but the current CUDA device is"
                f" cuda:{device}; launch under torch.cuda.device({self.device})"
            )
        return device

    def cuda(self, what: str, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> Any:
        """Launch on the current CUDA device: through Triton the first time per alignment class
        and device, then from C++ (or Triton's compiled launcher where the C++ path cannot).
        Returns the C++ Launch of this alignment class, None while it has none."""
        device = self.check_device(what)
        pa, pb, pc = a.data_ptr(), b.data_ptr(), c.data_ptr()
        key = ((pa & 15 == 0) + (pb & 15 == 0) * 2 + (pc & 15 == 0) * 4, device)
        native = self.native.get(key)
        if native is not None and not _hooks_installed():
            native.launch(pa, pb, pc)
            return native
        direct = self.direct.get(key)
        if direct is None:
            direct = self.shared.get((*self.shared_key, *key))
            if direct is None:
                compiled = self.kernel[self.grid](a, b, c, *self.ints, **self.options)
                self.shared[(*self.shared_key, *key)] = _DirectLaunch(compiled, self.constexprs)
                return None
            self.direct[key] = direct
            args = (pa, pb, pc, *self.ints, *self.constexprs)
            self.native[key] = _native_launch(
                direct.compiled,
                self.grid,
                args,
                self.num_inputs,
                self.out_shapes,
                self.out_dtypes,
                device,
            )
        direct(self.grid, (pa, pb, pc, *self.ints), device)
        return self.native[key]

    def cuda_new(self, what: str, a: torch.Tensor, b: torch.Tensor | None = None) -> Any:
        """The allocating launch from C++ (outputs allocated there, 16-byte aligned as every
        allocation of torch's caching allocator), or None where this class has no C++ launch
        yet: the caller then allocates and calls ``cuda``."""
        device = self.check_device(what)
        pa = a.data_ptr()
        pb = 0 if b is None else b.data_ptr()
        key = ((pa & 15 == 0) + (b is None or pb & 15 == 0) * 2 + 4, device)
        native = self.native.get(key)
        if native is None or _hooks_installed():
            return None
        return native.launch_new(pa, pb)


def _hooks_installed() -> bool:
    """Whether a Triton launch hook is installed (a profiler): launches then go through
    Triton's launcher, which calls them."""
    runtime = knobs.runtime
    return _hooked(runtime.launch_enter_hook) or _hooked(runtime.launch_exit_hook)


# The current CUDA device index (torch's, as Triton's launch path reads it), without
# torch.cuda.current_device's Python wrapper where torch exposes the call it makes.
_current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


class Mxfp8Ops(NamedTuple):
    """One format's launchers: what a generated module exports as its quantize / dequantize."""

    quantize: Any
    dequantize: Any
    scale_shape: Any
    format: Mxfp8Format  # as the kernels see it (kernel_format)
    hints: CacheHints
    # the same launchers as torch custom ops with fake implementations (torch.compile traces
    # them without a graph break): quantize_op(x, layout), dequantize_op(xq, scales, layout,
    # out_dtype). The plain launchers stay the eager path: a custom op's dispatch costs host time.
    quantize_op: Any
    dequantize_op: Any


CUSTOM_OP_NAMESPACE = "dsv41gen_mxfp8"
# qualified op name -> (quantize_op, dequantize_op): a rendered module imported twice (same
# format, layouts and launch) reuses its ops; torch.library refuses to define a name twice.
_CUSTOM_OPS: dict[str, tuple[Any, Any]] = {}
_LIBRARIES: list[torch.library.Library] = []


def _custom_ops(name, fingerprint, value_dtype, quantize, dequantize, scale_shape, table=None):
    """torch.library custom ops over one format's launchers, named by the format's name and a
    digest of its configuration; their fake implementations give the outputs' shapes and dtypes
    (scale_shape), so FakeTensor tracing and torch.compile need no kernel launch."""
    # The module's name too: a patched copy of this module (the benchmarks' ablations)
    # registers ops of its own instead of colliding with the installed module's.
    digest = hashlib.sha256(repr((__name__, fingerprint)).encode()).hexdigest()[:12]
    ident = f"{re.sub(r'[^0-9A-Za-z_]', '_', name)}_{digest}"
    if ident in _CUSTOM_OPS:
        return _CUSTOM_OPS[ident]

    def quantize_impl(x: torch.Tensor, layout: str) -> tuple[torch.Tensor, torch.Tensor]:
        return quantize(x, layout)

    def quantize_fake(x: torch.Tensor, layout: str) -> tuple[torch.Tensor, torch.Tensor]:
        *batch, m, k = x.shape
        scales = x.new_empty(scale_shape(tuple(batch), m, k, layout), dtype=torch.uint8)
        return x.new_empty(x.shape, dtype=value_dtype), scales

    def dequantize_impl(
        xq: torch.Tensor, scales: torch.Tensor, layout: str, out_dtype: torch.dtype
    ) -> torch.Tensor:
        return dequantize(xq, scales, layout, out_dtype)

    def dequantize_fake(
        xq: torch.Tensor, scales: torch.Tensor, layout: str, out_dtype: torch.dtype
    ) -> torch.Tensor:
        return xq.new_empty(xq.shape, dtype=out_dtype)

    # Registered through torch.library.Library (define + a CPU and a CUDA kernel + a fake)
    # rather than torch.library.custom_op: a call then goes through the C++ dispatcher straight
    # to the launcher, without custom_op's Python autograd and argument handling (host cost
    # below in docs/kernels.md). The launchers reject tensors on the other device themselves.
    # With the C++ table (``table``), the CUDA kernels are C++ (triton_launch.cpp): a known
    # launch class launches without entering Python, anything else calls the launcher.
    library = torch.library.Library(CUSTOM_OP_NAMESPACE, "FRAGMENT")
    quantize_name, dequantize_name = f"quantize_{ident}", f"dequantize_{ident}"
    library.define(f"{quantize_name}(Tensor x, str layout) -> (Tensor, Tensor)")
    library.define(
        f"{dequantize_name}(Tensor xq, Tensor scales, str layout, ScalarType out_dtype) -> Tensor"
    )
    for dispatch_key in ("CPU",) if table is not None else ("CPU", "CUDA"):
        library.impl(quantize_name, quantize_impl, dispatch_key)
        library.impl(dequantize_name, dequantize_impl, dispatch_key)
    if table is not None:
        table.register_ops(
            CUSTOM_OP_NAMESPACE, quantize_name, dequantize_name, quantize_impl, dequantize_impl
        )
    namespace = getattr(torch.ops, CUSTOM_OP_NAMESPACE)
    torch.library.register_fake(
        f"{CUSTOM_OP_NAMESPACE}::{quantize_name}", quantize_fake, lib=library
    )
    torch.library.register_fake(
        f"{CUSTOM_OP_NAMESPACE}::{dequantize_name}", dequantize_fake, lib=library
    )
    quantize_op = getattr(namespace, quantize_name).default
    dequantize_op = getattr(namespace, dequantize_name).default
    _LIBRARIES.append(library)  # a Library deregisters its ops when it is collected
    _CUSTOM_OPS[ident] = (quantize_op, dequantize_op)
    return quantize_op, dequantize_op


def kernel_format(fmt: Mxfp8Format) -> Mxfp8Format:
    """``fmt`` with its value dtype name replaced by the triton.language dtype: the ``FMT``
    constexpr of the kernels."""
    return fmt._replace(VALUE_TYPE=VALUE_TYPES[fmt.VALUE_TYPE][1])


def mxfp8_ops(
    name: str,
    fmt: Mxfp8Format,
    *,
    layouts: tuple[str, ...],
    block_m: int,
    block_k: int,
    num_warps: int,
    hints: CacheHints = NO_HINTS,
) -> Mxfp8Ops:
    """The launchers of format ``fmt`` (called ``name`` in messages) with scale ``layouts`` (the
    first is the default) and the default launch parameters block_m / block_k / num_warps.

    A call's checks and shape arithmetic run once per launch class (``_Launch``: input shapes,
    strides, dtypes and devices, layout, launch overrides); a repeated class costs a dict lookup,
    the outputs' allocation (none when the caller passes ``out``) and the launch. On a CUDA
    device the launch goes through Triton's ``kernel[grid](...)`` once per launch class, pointer
    alignment and device, then straight to the compiled kernel (``_DirectLaunch``)."""
    assert layouts and set(layouts) <= set(LAYOUTS), layouts
    value_dtype = VALUE_TYPES[fmt.VALUE_TYPE][0]
    fmt = kernel_format(fmt)
    BLOCK = fmt.BLOCK_SIZE
    default_layout = layouts[0]
    known = {layout: LAYOUTS[layout] for layout in layouts}
    # The Triton interpreter (TRITON_INTERPRET=1, read before triton is imported) runs the same
    # kernels on CPU tensors.
    device_type = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
    # (what, dtype, layout, block_m, block_k, num_warps) -> the validated launch decisions
    configs: dict[tuple, tuple[int, int, int, int, int, int, int]] = {}
    # launch class key -> _Launch, one dict per entry point
    quantize_launches: dict[tuple, _Launch] = {}
    dequantize_launches: dict[tuple, _Launch] = {}
    # (kernel, decisions, integer classes, pointer alignments, device) -> its compiled kernel
    compiled_launches: dict[tuple, _DirectLaunch] = {}
    default_block_m, default_block_k, default_num_warps = block_m, block_k, num_warps

    def fail(what: str, message: str) -> None:
        raise ValueError(f"{name} {what}: {message}")

    def layout_of(what: str, layout: str) -> tuple[int, int, int]:
        if layout not in known:
            fail(what, f"unknown scale layout {layout!r}; expected one of {sorted(known)}")
        return known[layout]

    def config(what, dtype, layout, block_m, block_k, num_warps):
        """Validate dtype, layout and launch overrides once per combination; cache the decisions
        (DTYPE, LAYOUT, scale row tile, scale column tile, block_m, block_k, num_warps)."""
        key = (what, dtype, layout, block_m, block_k, num_warps)
        known_config = configs.get(key)
        if known_config is not None:
            return known_config
        if dtype not in DTYPES:
            what_dtype = "x dtype" if what == "quantize" else "out_dtype"
            fail(what, f"{what_dtype} {dtype} is not supported; expected one of {list(DTYPES)}")
        kind, row_tile, col_tile = layout_of(what, layout)
        block_m = default_block_m if block_m is None else block_m
        block_k = default_block_k if block_k is None else block_k
        num_warps = default_num_warps if num_warps is None else num_warps
        for arg, value in (("block_m", block_m), ("block_k", block_k), ("num_warps", num_warps)):
            if type(value) is not int or value < 1 or value & (value - 1):
                fail(what, f"{arg} = {value} must be a power of two")
        if block_k < BLOCK:
            fail(what, f"block_k = {block_k} must be at least the block size {BLOCK}")
        decided = (DTYPES[dtype], kind, row_tile, col_tile, block_m, block_k, num_warps)
        configs[key] = decided
        return decided

    def check_device(what: str, device: torch.device, *others: torch.Tensor) -> None:
        if device.type != device_type:
            fail(what, f"tensors must be on a {device_type} device, got {device}")
        for t in others:
            if t.device != device:
                fail(what, f"all tensors must be on one device, got {device} and {t.device}")

    def scale_shape(
        batch: tuple[int, ...], m: int, k: int, layout: str = default_layout
    ) -> tuple[int, ...]:
        """Shape of the scale tensor for an [*batch, m, k] input.

        row_major: [*batch, m, k / BLOCK_SIZE]. swizzled_128x4: [*batch, M' * N'] bytes, M' = m
        rounded up to 128 and N' = k / BLOCK_SIZE rounded up to 4, in 128x4 tiles of 512 bytes
        (row-major over tiles), scale (r, c) of a tile at byte (r % 32) * 16 + (r // 32) * 4 + c;
        padding holds zeros.
        """
        _, row_tile, col_tile = layout_of("scale_shape", layout)
        if row_tile == 1:
            return (*batch, m, k // BLOCK)
        return (*batch, -(-m // row_tile) * row_tile * (-(-(k // BLOCK) // col_tile) * col_tile))

    def out_ok(launch: _Launch, t: Any, shape: torch.Size, dtype: torch.dtype) -> bool:
        """Whether t is a contiguous tensor of shape and dtype on the launch's device (the
        launch passes its address to the kernel unchecked)."""
        return (
            isinstance(t, torch.Tensor)
            and t.shape == shape
            and t.dtype == dtype
            and t.get_device() == launch.device_index
            and (t.is_cuda if launch.device_index >= 0 else t.device == launch.device)
            and t.is_contiguous()
        )

    def check_out(what: str, launch: _Launch, outs: tuple, dtypes: tuple) -> None:
        """Caller-provided outputs: each a contiguous tensor of the shape and dtype the launch
        writes, on the inputs' device."""
        for i, (t, shape, dtype) in enumerate(zip(outs, launch.out_shapes, dtypes, strict=True)):
            if not isinstance(t, torch.Tensor):
                fail(what, f"out[{i}] must be a tensor, got {type(t).__name__}")
            if t.shape != shape or t.dtype != dtype:
                got = f"{tuple(t.shape)} {t.dtype}"
                fail(what, f"out[{i}] must be {tuple(shape)} {dtype} here, got {got}")
            if t.device != launch.device:
                fail(what, f"out[{i}] must be on {launch.device}, got {t.device}")
            if not t.is_contiguous():
                fail(what, f"out[{i}] must be contiguous")

    def plan_quantize(x, layout, block_m, block_k, num_warps) -> _Launch:
        """Every check of a quantize call that its launch class decides, and its launch."""
        decided = config("quantize", x.dtype, layout, block_m, block_k, num_warps)
        _, _, row_tile, col_tile, block_m, block_k, _ = decided
        shape = x.shape
        if len(shape) == 2:
            batch, stride_batch = 1, 0
            m, k = shape
        elif len(shape) == 3:
            batch, m, k = shape
            stride_batch = x.stride(0)
        else:
            fail("quantize", f"x must be 2-D [M, K] or 3-D [B, M, K], got shape {tuple(shape)}")
        if k % BLOCK:
            fail("quantize", f"K = {k} (x.shape[-1]) must be a multiple of the block size {BLOCK}")
        if x.stride(-1) != 1 and k > 1:
            fail(
                "quantize",
                f"x must have unit stride along K, got strides {x.stride()}; use .contiguous()",
            )
        check_device("quantize", x.device)
        if batch > MAX_BATCH:
            fail("quantize", f"batch B = {batch} exceeds {MAX_BATCH}")
        scale_rows = -(-m // row_tile) * row_tile
        scale_cols = -(-k // (BLOCK * col_tile)) * col_tile
        # K tiles first: consecutive programs stream along a row (measured faster on the H200).
        grid = (-(-scale_cols * BLOCK // block_k), -(-scale_rows // block_m), batch)
        if grid[1] > MAX_ROW_TILES:
            fail(
                "quantize",
                f"M = {m} needs {grid[1]} row tiles of block_m = {block_m}; at most {MAX_ROW_TILES}",
            )
        if row_tile == 1:
            scales = torch.Size((*shape[:-1], scale_cols))
        else:
            scales = torch.Size((*shape[:-2], scale_rows * scale_cols))
        ints = (m, k, scale_rows, scale_cols, stride_batch, x.stride(-2))
        out_shapes = (torch.Size(shape), scales)
        return _Launch(
            _quantize_kernel,
            grid,
            ints,
            decided,
            fmt,
            hints,
            out_shapes,
            (value_dtype, torch.uint8),
            x.device,
            compiled_launches,
        )

    def quantize(
        x: torch.Tensor,
        layout: str = default_layout,
        *,
        out: tuple[torch.Tensor, torch.Tensor] | None = None,
        block_m: int | None = None,
        block_k: int | None = None,
        num_warps: int | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Quantize x [M, K] or [B, M, K] (bf16, fp16 or fp32; unit stride along K) to
        (xq, scales).

        xq has x's shape and the format's value dtype; scales are uint8 E8M0 in ``layout`` (see
        ``scale_shape``). ``out=(xq, scales)`` writes into caller-provided contiguous tensors of
        those shapes and dtypes instead of new ones. block_m / block_k / num_warps override the
        spec's launch parameters.
        """
        if block_m is None and block_k is None and num_warps is None:
            done = fast_quantize(x, layout, out)  # a known launch class, launched from C++
            if done is not None:
                return done
        key = (x.shape, x.stride(), x.dtype, x.device, layout, block_m, block_k, num_warps)
        launch = quantize_launches.get(key)
        if launch is None:
            launch = plan_quantize(x, layout, block_m, block_k, num_warps)
            quantize_launches[key] = launch
        if out is None and device_type == "cuda":
            new = launch.cuda_new(f"{name} quantize", x)
            if new is not None:
                return new
        if out is None:
            xq_shape, scales_shape = launch.out_shapes
            xq = torch.empty(xq_shape, dtype=value_dtype, device=launch.device)
            scales = torch.empty(scales_shape, dtype=torch.uint8, device=launch.device)
        else:
            if type(out) is not tuple or len(out) != 2:
                fail("quantize", "out must be a tuple (xq, scales)")
            xq, scales = out
            xq_shape, scales_shape = launch.out_shapes
            if not (
                out_ok(launch, xq, xq_shape, value_dtype)
                and out_ok(launch, scales, scales_shape, torch.uint8)
            ):
                check_out("quantize", launch, out, (value_dtype, torch.uint8))
        if device_type == "cuda":
            native = launch.cuda(f"{name} quantize", x, xq, scales)
            if native is not None and block_m is None and block_k is None and num_warps is None:
                add_quantize(native, x, layout, xq, scales)
        else:
            launch.interpret(x, xq, scales)
        return xq, scales

    def plan_dequantize(xq, scales, layout, out_dtype, block_m, block_k, num_warps) -> _Launch:
        """Every check of a dequantize call that its launch class decides, and its launch."""
        what = "dequantize"
        decided = config(what, out_dtype, layout, block_m, block_k, num_warps)
        _, _, row_tile, col_tile, block_m, block_k, _ = decided
        shape = xq.shape
        if len(shape) == 2:
            batch = 1
            m, k = shape
        elif len(shape) == 3:
            batch, m, k = shape
        else:
            fail(what, f"xq must be 2-D [M, K] or 3-D [B, M, K], got shape {tuple(shape)}")
        if xq.dtype != value_dtype:
            fail(what, f"xq dtype must be {value_dtype}, got {xq.dtype}")
        if scales.dtype != torch.uint8:
            fail(what, f"scales dtype must be {torch.uint8}, got {scales.dtype}")
        check_device(what, xq.device, scales)
        if k % BLOCK:
            fail(what, f"K = {k} (xq.shape[-1]) must be a multiple of the block size {BLOCK}")
        scale_rows = -(-m // row_tile) * row_tile
        scale_cols = -(-k // (BLOCK * col_tile)) * col_tile
        if row_tile == 1:
            expected = (*shape[:-1], scale_cols)
        else:
            expected = (*shape[:-2], scale_rows * scale_cols)
        if scales.shape != expected:
            got = tuple(scales.shape)
            fail(what, f"scales shape {got} must be {expected} for xq {tuple(shape)} in {layout}")
        if not (xq.is_contiguous() and scales.is_contiguous()):
            fail(what, "xq and scales must be contiguous")
        if batch > MAX_BATCH:
            fail(what, f"batch B = {batch} exceeds {MAX_BATCH}")
        grid = (-(-k // block_k), -(-m // block_m), batch)
        if grid[1] > MAX_ROW_TILES:
            fail(
                what,
                f"M = {m} needs {grid[1]} row tiles of block_m = {block_m}; at most {MAX_ROW_TILES}",
            )
        ints = (m, k, scale_rows, scale_cols)
        out_shapes = (torch.Size(shape),)
        return _Launch(
            _dequantize_kernel,
            grid,
            ints,
            decided,
            fmt,
            hints,
            out_shapes,
            (out_dtype,),
            xq.device,
            compiled_launches,
        )

    def dequantize(
        xq: torch.Tensor,
        scales: torch.Tensor,
        layout: str = default_layout,
        out_dtype: torch.dtype = torch.bfloat16,
        *,
        out: torch.Tensor | None = None,
        block_m: int | None = None,
        block_k: int | None = None,
        num_warps: int | None = None,
    ) -> torch.Tensor:
        """Dequantize contiguous (xq, scales) from ``quantize`` to ``out_dtype`` (nearest even),
        into a new tensor or into ``out`` (contiguous, xq's shape, ``out_dtype``)."""
        if block_m is None and block_k is None and num_warps is None:
            done = fast_dequantize(xq, scales, layout, out_dtype, out)
            if done is not None:
                return done
        key = (
            xq.shape,
            xq.stride(),
            xq.dtype,
            xq.device,
            scales.shape,
            scales.stride(),
            scales.dtype,
            scales.device,
            layout,
            out_dtype,
            block_m,
            block_k,
            num_warps,
        )
        launch = dequantize_launches.get(key)
        if launch is None:
            launch = plan_dequantize(xq, scales, layout, out_dtype, block_m, block_k, num_warps)
            dequantize_launches[key] = launch
        if out is None and device_type == "cuda":
            new = launch.cuda_new(f"{name} dequantize", xq, scales)
            if new is not None:
                return new
        if out is None:
            out = torch.empty(launch.out_shapes[0], dtype=out_dtype, device=launch.device)
        elif not out_ok(launch, out, launch.out_shapes[0], out_dtype):
            check_out("dequantize", launch, (out,), (out_dtype,))
        if device_type == "cuda":
            native = launch.cuda(f"{name} dequantize", xq, scales, out)
            if native is not None and block_m is None and block_k is None and num_warps is None:
                add_dequantize(native, xq, scales, layout, out_dtype, out)
        else:
            launch.interpret(xq, scales, out)
        return out

    # The launch classes that have a C++ launch, in C++ (triton_launch.cpp's Launchers): a call
    # of one is a single C++ entry, checks included (they are the class's); anything else misses
    # and takes the path above, which adds the class once it has its C++ launch.
    table = _native_launchers(device_type)
    if table is None:
        fast_quantize = fast_dequantize = add_quantize = add_dequantize = _nothing
    else:
        fast_quantize, fast_dequantize = table.quantize, table.dequantize
        add_quantize, add_dequantize = table.add_quantize, table.add_dequantize
    fingerprint = (fmt, hints, layouts, block_m, block_k, num_warps, device_type)
    ops = _custom_ops(name, fingerprint, value_dtype, quantize, dequantize, scale_shape, table)
    return Mxfp8Ops(quantize, dequantize, scale_shape, fmt, hints, *ops)


def _nothing(*args: Any) -> None:
    """The C++ table's stand-in where there is none: every call misses."""
    return None


def _native_launchers(device_type: str) -> Any:
    """A new C++ table of launch classes (triton_launch.cpp's Launchers), or None where the
    launchers run under the interpreter, torch has no CUDA, or the C++ launcher is off or did
    not build. Built when the launchers are made, not at the first launch, because the ops'
    CUDA kernels are registered then; building does not initialize CUDA."""
    if device_type != "cuda" or torch.version.cuda is None:
        return None
    module = _native_module()
    return None if module is None else module.Launchers(knobs.runtime)
