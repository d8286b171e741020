"""Plan for the CUDA fused RoPE + KV-insert kernel family (spec section ``kernels.rope_kv_insert``).

The kernels, launcher, host dispatch, torch bindings, extension loader and torch reference are
ordinary source files in ``dsv41gen/kernels`` (rope_kv_*.cuh / .h / .cu / .cpp / .py), the
runtime half of the generated package. What a spec decides is planned here and generated per
variant as configuration only: ``csrc/<variant>/rope_kv_config.h`` (constants, the compiled
sets, CacheTraits per format, the grid rule), one ``rope_kv_inst_h<N>.cu`` instantiation list
per kNumHeadsQPadded value, and the Python module ``rope_kv_<variant>.py`` (loader and reference
configuration, plus the digest of the kernel sources it was generated for).

Validation (spec/validate/, against capabilities.ROPE_KV) rejects every spec this structure cannot
implement, at its field; the planner only asserts what validation guarantees.

Kernel structure (fixed by this emitter, checked against the spec below): one warp owns one
512-value row, 16 consecutive values per lane, so each lane moves its values with two 16-byte
accesses. A cache record is ``fp8_values`` e4m3 values followed by ``bf16_values`` bf16 values,
so lanes ``[0, fp8_values / 16)`` quantize and the remaining lanes store bf16.

Quantization rule for the UE8M0 block scales (fp8_ds_mla, mxfp8). The reference (§7) does not fix
it, so the MX rule of the quantization section (§6) is used, computed exactly from bits:
``amax = max(max|x|, fp32 tiny)``; ``sb = clamp(ceil(log2(amax / fp8_max)) + 127, 0, 254)``,
where the ceiling is read off amax's exponent and mantissa fields without rounding
``amax / fp8_max``; values are multiplied by ``2^(127 - sb)`` built from its bit pattern (never
a division, never a subnormal divisor), then rounded to nearest-even e4m3 with saturation to
+-fp8_max. The per-tensor fp8 cache divides by its float32 scale (IEEE division) and saturates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dsv41gen.errors import assert_never
from dsv41gen.kernels import rope_kv_loader
from dsv41gen.kernels.runtime import source_digest
from dsv41gen.plan.values import (
    Comment,
    CppCode,
    CppFloat,
    CppString,
    PyLiteral,
)
from dsv41gen.spec import capabilities
from dsv41gen.spec.model import (
    CacheFormat,
    CacheFormatKind,
    CosSinLayout,
    Fp8Nan,
    GridRule,
    InfiniteAmax,
    PackedLayout,
    PerTensorScaling,
    QRmsNorm,
    RopeContraction,
    RopeKvInsertKernel,
    RopeStyle,
    RoundBeforeQuantize,
    ScalarType,
)

# --- emitter constants (not spec fields) --------------------------------------------------------

LANES_PER_WARP = 32
VECTOR_BYTES = 16  # one 16-byte global access
E8M0_BIAS = 127  # UE8M0: value = 2^(byte - 127)
E8M0_MIN = 0
E8M0_MAX = 254  # 255 encodes NaN
FP32_MANTISSA_BITS = 23
# KV-only instantiations: resident threads per multiprocessor the register budget is sized for
# (__launch_bounds__ min blocks = this / threads_per_block; 1024 threads -> 64 registers each on
# a 64K-register multiprocessor). Each KV-only warp keeps its next token's loads in flight, so the
# resident warps set the bandwidth; 64 registers hold two tokens' rows without spilling.
KV_ONLY_THREADS_PER_SM = 1024

# Programmatic dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization) exists from
# Hopper (compute capability 9.0) on; vLLM 0.33.0's launchers set it there too (ref §0, seed 002
# review 1). The kernels wait on the previous grid before their first global access
# (griddepcontrol.wait) and let the next one start once their stores are issued.
PDL_MIN_MAJOR = 9
# Plain loads through the read-only path and plain stores for the kv rows and cache records
# (the benchmark compares the streaming .cs hints: benchmarks/bench_rope_kv.py --streaming).
STREAMING_ACCESSES = False


# --- plan dataclasses ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScalarPlan:
    spec_name: str  # "bfloat16"
    enumerator: str  # ScalarKind enumerator of rope_kv_common.h: "kBFloat16"
    mangled_name: str  # how the C++ type appears in a demangled symbol


@dataclass(frozen=True)
class CachePlan:
    spec_name: str  # "fp8_ds_mla"
    kind: str  # CacheFormatKind value
    enumerator: str  # CacheKind enumerator of rope_kv_common.h: "kFp8DsMla"
    cache_dtype: str  # spec scalar name of k_cache's dtype
    cache_dtype_enumerator: str  # CacheDtype enumerator: "kUint8"
    record_width: int  # k_cache.size(2)
    bytes_per_token: int
    fp8_values: int
    bf16_values: int
    fp8_lanes: int  # lanes [0, fp8_lanes) store e4m3, the rest bf16
    scale_group: int  # values per UE8M0 scale; 0: none
    lanes_per_scale: int  # lanes sharing one scale; 0: none
    num_scales: int
    scale_bytes: int  # per token, with padding
    pad_bytes: int
    per_tensor_scale: bool
    token_data_then_scales: bool  # packed, per block: every token's data, then every token's scales
    interleaved: bool  # packed, per token: its data, then its own scales
    layout_enumerator: str  # RecordLayout enumerator: "kInterleaved"
    data_bytes: int  # bytes of one token's data (packed: in the data region; plain: the row)
    # numerics (cache_formats.<name>.rope_contraction, round_before_quantize, amax_floor,
    # per_tensor_scaling)
    rope_fma: bool
    round_to_input: bool
    amax_floor: float  # the spec's floor rounded to fp32 (what 1e-4f is in C++); 0: no block scales
    reciprocal_scale: bool  # per-tensor fp8: x * RN(1 / scale), else RN(x / scale)
    nan_scale_for_inf: bool  # infinite_amax nan_scale: byte 255, reciprocal 0 (block-scaled only)
    nan_to_negative_max: bool  # fp8_nan negative_max: fmaxf(x, -fp8_max) before the conversion
    selected_by_kv_mxfp8: bool  # uint8 caches: which packed format kv_mxfp8 selects
    description: str

    # what the templates print
    @property
    def cache_dtype_cpp(self) -> CppCode:
        return CppCode(f"CacheDtype::{self.cache_dtype_enumerator}")

    @property
    def layout_cpp(self) -> CppCode:
        return CppCode(f"RecordLayout::{self.layout_enumerator}")

    @property
    def amax_floor_float(self) -> CppFloat:
        return CppFloat(self.amax_floor)


@dataclass(frozen=True)
class Instantiation:
    scalar: ScalarPlan
    num_heads_q_padded: int
    apply_q_norm: bool
    cache: CachePlan

    @property
    def macro_args_cpp(self) -> CppCode:
        """ROPE_KV_INSTANTIATE's arguments (rope_kv_kernel.cuh)."""
        norm = "true" if self.apply_q_norm else "false"
        return CppCode(
            f"{self.scalar.enumerator}, {self.num_heads_q_padded}, {norm}, {self.cache.enumerator}"
        )

    @property
    def key(self) -> tuple[str, int, bool, str]:
        return (
            self.scalar.spec_name,
            self.num_heads_q_padded,
            self.apply_q_norm,
            self.cache.spec_name,
        )


@dataclass(frozen=True)
class InstantiationUnit:
    """One translation unit: every instantiation for one kNumHeadsQPadded value."""

    num_heads_q_padded: int
    file_name: str
    apply_q_norm: tuple[bool, ...]  # APPLY_Q_NORM values compiled for this kNumHeadsQPadded
    instantiations: tuple[Instantiation, ...]

    @property
    def norms_comment(self) -> Comment:
        return Comment(", ".join(str(n).lower() for n in self.apply_q_norm))


@dataclass(frozen=True)
class SourceFile:
    template: str
    path: str  # relative to the family's output directory
    num_heads_q_padded: int  # instantiation units only; -1 otherwise


@dataclass(frozen=True)
class RopeKvPlan:
    variant_name: str
    namespace: str  # C++ namespace and torch library namespace
    extension_name: str
    csrc_dir: str  # relative to the family output directory
    # geometry (spec: head_dim, nope_dim, rope_dim)
    head_dim: int
    nope_dim: int
    rope_dim: int
    # spec: rope_style, threads_per_block, num_token_cutoff, grid_rule, fp8_max
    rope_style: str
    threads_per_block: int
    warps_per_block: int
    kv_only_threads_per_sm: int  # the threads per multiprocessor the KV-only kernel is sized for
    kv_only_blocks_per_sm: int  # __launch_bounds__ min blocks of the KV-only instantiations
    num_token_cutoff: int
    grid_rule: str
    grid_rule_cpp: str  # C++ boolean: true selects warp-per-slot
    fp8_max: float
    fp8_max_exponent: int  # floor(log2(fp8_max))
    fp8_max_mantissa_field: int  # fp8_max's fp32 mantissa field
    q_rope_fma: bool  # spec: q_rope_contraction
    q_norm_rsqrt: bool  # spec: q_rms_norm fma_rsqrt
    # spec: packed_cache_format (capability family -> packed format name; the rest: the default)
    packed_format_by_family: tuple[tuple[str, str], ...]
    packed_format_default: str
    pdl_min_major: int  # launches on devices of this major and up allow programmatic serialization
    streaming_accesses: bool  # kv rows read and cache records written with the .cs cache hint
    e8m0_bias: int
    e8m0_min: int
    e8m0_max: int
    # instantiation sets (spec: input_dtypes, num_heads_q_padded, apply_q_norm, cache_formats)
    scalars: tuple[ScalarPlan, ...]
    heads: tuple[int, ...]
    heads_text: str  # "0, 8, 16, 32, 64, 128"
    apply_q_norm: tuple[bool, ...]
    caches: tuple[CachePlan, ...]
    units: tuple[InstantiationUnit, ...]
    instantiations: tuple[Instantiation, ...]
    input_dtypes_text: str  # "bfloat16 or float16"
    cache_dtypes_text: str  # "bfloat16, float8_e4m3fn or uint8"
    cache_formats_text: str  # "bf16, fp8, fp8_ds_mla, mxfp8"
    sources: tuple[SourceFile, ...]
    # the digest of the kernel sources (dsv41gen/kernels, rope_kv_loader.KERNEL_SOURCES) when
    # this plan was made: the generated module checks it at import
    kernel_digest: str
    module: str  # the variant's Python module: loader and reference configuration

    @property
    def loader_module(self) -> str:
        return self.module

    @property
    def reference_module(self) -> str:
        return self.module

    # --- what the templates print: the fields above, typed for their target language ------

    @property
    def heads_cpp(self) -> CppCode:
        return CppCode(self.heads_text)

    @property
    def apply_q_norm_false(self) -> bool:
        return False in self.apply_q_norm

    @property
    def apply_q_norm_true(self) -> bool:
        return True in self.apply_q_norm

    @property
    def apply_q_norm_text_cpp(self) -> CppString:
        return CppString(", ".join(str(n).lower() for n in self.apply_q_norm))

    @property
    def scalar_enums_cpp(self) -> CppCode:
        return CppCode(", ".join(f"ScalarKind::{s.enumerator}" for s in self.scalars))

    @property
    def cache_enums_cpp(self) -> CppCode:
        return CppCode(", ".join(f"CacheKind::{c.enumerator}" for c in self.caches))

    @property
    def grid_rule_code(self) -> CppCode:
        return CppCode(self.grid_rule_cpp)

    @property
    def grid_rule_py(self) -> PyLiteral:
        # the same rule in Python: dsv41gen.kernels.rope_kv_loader.RopeKvVariant.use_warp_per_slot
        return PyLiteral(self.grid_rule)

    @property
    def fp8_max_float(self) -> CppFloat:
        return CppFloat(self.fp8_max)


# --- helpers ------------------------------------------------------------------------------------

# input dtype -> (ScalarKind enumerator, the C++ type as a symbol names it)
_SCALARS = {
    ScalarType.BFLOAT16: ("kBFloat16", "__nv_bfloat16"),
    ScalarType.FLOAT16: ("kHalf", "__half"),
}
# cache dtype -> CacheDtype enumerator
_CACHE_DTYPES = {
    ScalarType.UINT8: "kUint8",
    ScalarType.BFLOAT16: "kBFloat16",
    ScalarType.FLOAT8_E4M3FN: "kFloat8E4m3fn",
}
_CACHE_ENUMERATORS = {
    CacheFormatKind.FP8_DS_MLA: "kFp8DsMla",
    CacheFormatKind.MXFP8: "kMxfp8",
    CacheFormatKind.BF16: "kBf16",
    CacheFormatKind.FP8: "kFp8",
}


def _fp32(value: float) -> float:
    """value rounded to the nearest fp32 (as a C++ float literal of it would be)."""
    import struct

    return struct.unpack("<f", struct.pack("<f", value))[0]


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _fp32_fields(value: float) -> tuple[int, int]:
    """(unbiased exponent, mantissa field) of a positive normal fp32 value, exactly (validation:
    fp8_max is a float32 and an e4m3 value)."""
    exponent = math.floor(math.log2(value))
    mantissa = value / 2.0**exponent - 1.0
    field = mantissa * 2**FP32_MANTISSA_BITS
    assert field == int(field) and 1.0 <= value / 2.0**exponent < 2.0, value
    return exponent, int(field)


def _layout(layout: PackedLayout) -> tuple[str, str]:
    """(RecordLayout enumerator, how the description ends)."""
    match layout:
        case PackedLayout.TOKEN_DATA_THEN_SCALES:
            return "kTokenDataThenScales", ", token data then scales per block"
        case PackedLayout.INTERLEAVED:
            return "kInterleaved", ", each token's data then its scales"
        case PackedLayout.NONE:
            return "kPlainRow", ", plain rows"
        case _:
            assert_never(layout)


def _rope_fma(contraction: RopeContraction) -> bool:
    match contraction:
        case RopeContraction.FMA:
            return True
        case RopeContraction.NONE:
            return False
        case _:
            assert_never(contraction)


def _rounds_to_input(rounding: RoundBeforeQuantize) -> bool:
    match rounding:
        case RoundBeforeQuantize.INPUT_DTYPE:
            return True
        case RoundBeforeQuantize.NONE:
            return False
        case _:
            assert_never(rounding)


def _norm_rsqrt(norm: QRmsNorm) -> bool:
    match norm:
        case QRmsNorm.FMA_RSQRT:
            return True
        case QRmsNorm.EXACT:
            return False
        case _:
            assert_never(norm)


def _reciprocal_scale(scaling: PerTensorScaling | None) -> bool:
    match scaling:
        case PerTensorScaling.RECIPROCAL_MULTIPLY:
            return True
        case PerTensorScaling.DIVIDE | None:
            return False
        case _:
            assert_never(scaling)


def _nan_scale_for_inf(rule: InfiniteAmax | None) -> bool:
    match rule:
        case InfiniteAmax.NAN_SCALE:
            return True
        case InfiniteAmax.LARGEST_SCALE | None:
            return False
        case _:
            assert_never(rule)


def _nan_to_negative_max(rule: Fp8Nan | None) -> bool:
    match rule:
        case Fp8Nan.NEGATIVE_MAX:
            return True
        case Fp8Nan.E4M3_NAN | None:
            return False
        case _:
            assert_never(rule)


def _plan_cache(fmt: CacheFormat, kernel: RopeKvInsertKernel, values_per_lane: int) -> CachePlan:
    """One cache format. spec/validate/ (_check_cache_format, _check_cache_numerics and
    check_rope_kv_capabilities) guarantees everything asserted here."""
    dtype_enumerator = _CACHE_DTYPES[fmt.cache_dtype]
    data_bytes = fmt.fp8_values + 2 * fmt.bf16_values
    packed = fmt.layout is not PackedLayout.NONE
    num_scales = fmt.fp8_values // fmt.scale_group if fmt.scale_group else 0
    lanes_per_scale = fmt.scale_group // values_per_lane if fmt.scale_group else 0
    assert fmt.fp8_values + fmt.bf16_values == kernel.head_dim, fmt
    assert fmt.fp8_values % values_per_lane == 0 and data_bytes % VECTOR_BYTES == 0, fmt
    assert fmt.fp8_values % VECTOR_BYTES == 0, fmt
    if fmt.scale_group:
        # rope_kv_core.cuh store_scales: lane 0 writes a token's scale bytes with one 4-, 8- or
        # 16-byte store, gathering slot i from lane i * lanes_per_scale.
        assert packed and fmt.amax_floor > 0, fmt
        assert fmt.scale_group % values_per_lane == 0, fmt
        assert lanes_per_scale & (lanes_per_scale - 1) == 0, fmt
        assert fmt.fp8_values % fmt.scale_group == 0 and fmt.scale_bytes >= num_scales, fmt
        assert fmt.scale_bytes in (4, 8, 16), fmt
        assert fmt.scale_bytes * lanes_per_scale <= LANES_PER_WARP, fmt
        assert data_bytes % fmt.scale_bytes == 0, fmt
    if packed:
        assert fmt.bytes_per_token == data_bytes + fmt.scale_bytes == fmt.record_width, fmt
        assert fmt.cache_dtype is ScalarType.UINT8, fmt
    else:
        elem_bytes = 2 if fmt.cache_dtype is ScalarType.BFLOAT16 else 1
        assert fmt.record_width * elem_bytes == data_bytes, fmt
    assert not fmt.per_tensor_scale or (fmt.fp8_values and not fmt.scale_group), fmt
    assert not fmt.fp8_values or fmt.scale_group or fmt.per_tensor_scale, fmt
    assert fmt.per_tensor_scale == (fmt.per_tensor_scaling is not None), fmt
    assert bool(fmt.scale_group) == (fmt.infinite_amax is not None), fmt
    assert bool(fmt.fp8_values) == (fmt.fp8_nan is not None), fmt
    parts = []
    if fmt.fp8_values:
        parts.append(f"{fmt.fp8_values} e4m3")
    if fmt.bf16_values:
        parts.append(f"{fmt.bf16_values} bf16")
    if fmt.scale_group:
        parts.append(f"{fmt.scale_bytes} UE8M0 scale bytes (one per {fmt.scale_group})")
    if fmt.per_tensor_scale:
        parts.append("one float32 per-tensor scale")
    layout_enumerator, layout_text = _layout(fmt.layout)
    return CachePlan(
        spec_name=fmt.name,
        kind=fmt.kind.value,
        enumerator=_CACHE_ENUMERATORS[fmt.kind],
        cache_dtype=fmt.cache_dtype.value,
        cache_dtype_enumerator=dtype_enumerator,
        record_width=fmt.record_width,
        bytes_per_token=fmt.bytes_per_token,
        fp8_values=fmt.fp8_values,
        bf16_values=fmt.bf16_values,
        fp8_lanes=fmt.fp8_values // values_per_lane,
        scale_group=fmt.scale_group,
        lanes_per_scale=lanes_per_scale,
        num_scales=num_scales,
        scale_bytes=fmt.scale_bytes,
        pad_bytes=fmt.scale_bytes - num_scales if fmt.scale_group else 0,
        per_tensor_scale=fmt.per_tensor_scale,
        token_data_then_scales=fmt.layout is PackedLayout.TOKEN_DATA_THEN_SCALES,
        interleaved=fmt.layout is PackedLayout.INTERLEAVED,
        layout_enumerator=layout_enumerator,
        data_bytes=data_bytes,
        rope_fma=_rope_fma(fmt.rope_contraction),
        round_to_input=_rounds_to_input(fmt.round_before_quantize),
        amax_floor=_fp32(fmt.amax_floor),
        reciprocal_scale=_reciprocal_scale(fmt.per_tensor_scaling),
        nan_scale_for_inf=_nan_scale_for_inf(fmt.infinite_amax),
        nan_to_negative_max=_nan_to_negative_max(fmt.fp8_nan),
        selected_by_kv_mxfp8=fmt.kind is CacheFormatKind.MXFP8,
        description=" + ".join(parts) + layout_text,
    )


# --- the planner --------------------------------------------------------------------------------


def plan_rope_kv(kernel: RopeKvInsertKernel, variant_name: str) -> RopeKvPlan:
    """Plan the configuration one variant's kernels are compiled and imported with.

    The spec is validated first (spec/validate/: _rope_kv_insert and check_rope_kv_capabilities,
    against capabilities.ROPE_KV); a failed assertion here is a bug in dsv41gen."""
    caps = capabilities.ROPE_KV
    assert variant_name.isidentifier(), variant_name
    assert kernel.head_dim in caps.head_dims, kernel.head_dim
    values_per_lane = kernel.head_dim // LANES_PER_WARP
    assert values_per_lane == caps.values_per_lane and 2 * values_per_lane == 2 * VECTOR_BYTES
    assert kernel.nope_dim + kernel.rope_dim == kernel.head_dim
    assert kernel.nope_dim % values_per_lane == 0 and kernel.rope_dim % 2 == 0
    assert kernel.threads_per_block % LANES_PER_WARP == 0
    match kernel.rope_style:
        case RopeStyle.GPTJ_INTERLEAVED:
            pass
        case _:
            assert_never(kernel.rope_style)
    match kernel.cos_sin_layout:
        case CosSinLayout.COS_THEN_SIN:
            assert kernel.cos_sin_dtype is ScalarType.FLOAT32, kernel.cos_sin_dtype
        case _:
            assert_never(kernel.cos_sin_layout)
    match kernel.grid_rule:
        case GridRule.KV_ONLY_OR_BELOW_CUTOFF:
            grid_rule_cpp = "kNumHeadsQPadded == 0 || num_tokens < kNumTokenCutoff"
            # the Python side of the rule: the runtime's RopeKvVariant.use_warp_per_slot
            assert kernel.grid_rule.value in rope_kv_loader.GRID_RULES, kernel.grid_rule
        case _:
            assert_never(kernel.grid_rule)
    heads = tuple(sorted(set(kernel.num_heads_q_padded)))
    assert heads and heads[0] >= 0, heads
    norms = tuple(sorted(set(kernel.apply_q_norm)))
    assert norms or heads == (0,), norms
    scalars = []
    for dt in kernel.input_dtypes:
        assert dt in caps.input_dtypes, dt
        enumerator, mangled = _SCALARS[dt]
        scalars.append(ScalarPlan(dt.value, enumerator, mangled))
    caches = tuple(_plan_cache(f, kernel, values_per_lane) for f in kernel.cache_formats)
    assert len({c.kind for c in caches}) == len(caches), caches
    for dtype in {c.cache_dtype for c in caches}:
        # the KV-only op tells two formats of one cache dtype apart by kv_mxfp8 only
        same = [c for c in caches if c.cache_dtype == dtype]
        assert len(same) == 1 or (len(same) == 2 and sum(c.selected_by_kv_mxfp8 for c in same))
    packed_names = [c.spec_name for c in caches if c.token_data_then_scales or c.interleaved]
    for _, name in kernel.packed_format_by_capability_family:
        assert name in packed_names, name
    assert not packed_names or kernel.packed_format_default in packed_names
    fp8_exp, fp8_mant = _fp32_fields(kernel.fp8_max)

    # Instantiations: KV-only (kNumHeadsQPadded == 0) never normalises a Q, so it is emitted with
    # APPLY_Q_NORM=false only; every other value gets each apply_q_norm value of the spec. One
    # unit per value: the extension build compiles the units side by side.
    units = []
    for h in heads:
        unit_norms = (False,) if h == 0 else norms
        inst = tuple(Instantiation(s, h, n, c) for s in scalars for n in unit_norms for c in caches)
        units.append(InstantiationUnit(h, f"rope_kv_inst_h{h}.cu", unit_norms, inst))
    csrc_dir = f"csrc/{variant_name}"
    module = f"rope_kv_{variant_name}"
    sources = (
        SourceFile("cuda/rope_kv_config.h.j2", f"{csrc_dir}/rope_kv_config.h", -1),
        *(
            SourceFile("cuda/rope_kv_inst.cu.j2", f"{csrc_dir}/{u.file_name}", u.num_heads_q_padded)
            for u in units
        ),
        SourceFile("python/rope_kv_variant.py.j2", f"{module}.py", -1),
    )
    cache_dtype_names = list(dict.fromkeys(c.cache_dtype for c in caches))
    return RopeKvPlan(
        variant_name=variant_name,
        namespace=f"dsv41gen_{variant_name}",
        extension_name=f"dsv41gen_rope_kv_{variant_name}",
        csrc_dir=csrc_dir,
        head_dim=kernel.head_dim,
        nope_dim=kernel.nope_dim,
        rope_dim=kernel.rope_dim,
        rope_style=kernel.rope_style.value,
        threads_per_block=kernel.threads_per_block,
        warps_per_block=kernel.threads_per_block // LANES_PER_WARP,
        kv_only_threads_per_sm=KV_ONLY_THREADS_PER_SM,
        kv_only_blocks_per_sm=max(1, KV_ONLY_THREADS_PER_SM // kernel.threads_per_block),
        num_token_cutoff=kernel.num_token_cutoff,
        grid_rule=kernel.grid_rule.value,
        grid_rule_cpp=grid_rule_cpp,
        fp8_max=kernel.fp8_max,
        fp8_max_exponent=fp8_exp,
        fp8_max_mantissa_field=fp8_mant,
        q_rope_fma=_rope_fma(kernel.q_rope_contraction),
        q_norm_rsqrt=_norm_rsqrt(kernel.q_rms_norm),
        packed_format_by_family=kernel.packed_format_by_capability_family,
        packed_format_default=kernel.packed_format_default,
        pdl_min_major=PDL_MIN_MAJOR,
        streaming_accesses=STREAMING_ACCESSES,
        e8m0_bias=E8M0_BIAS,
        e8m0_min=E8M0_MIN,
        e8m0_max=E8M0_MAX,
        scalars=tuple(scalars),
        heads=heads,
        heads_text=", ".join(str(h) for h in heads),
        apply_q_norm=norms,
        caches=caches,
        units=tuple(units),
        instantiations=tuple(i for u in units for i in u.instantiations),
        input_dtypes_text=_join([s.spec_name for s in scalars]),
        cache_dtypes_text=_join(cache_dtype_names),
        cache_formats_text=", ".join(c.spec_name for c in caches),
        sources=sources,
        kernel_digest=source_digest(*rope_kv_loader.KERNEL_SOURCES),
        module=module,
    )


def source_context(plan: RopeKvPlan, source: SourceFile) -> dict[str, object]:
    """What source's template is rendered with: the plan, and the file's instantiation unit."""
    unit = next((u for u in plan.units if u.num_heads_q_padded == source.num_heads_q_padded), None)
    return {"plan": plan, "unit": unit}
