"""Plan for the CUDA fused RoPE + KV-insert kernel family (spec section ``kernels.rope_kv_insert``).

Every decision the generated CUDA, C++ and Python print is taken here: which template
instantiations exist, how the host dispatch maps runtime values onto them, the grid rule, the
input checks and their messages, and the per-format byte layout. Templates only lay it out.

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
from dataclasses import dataclass, replace

from dsv41gen.codegen_values import (
    Comment,
    CppCode,
    CppFloat,
    CppIdentifier,
    DocText,
    Identifier,
    PyCode,
    PyLiteral,
)
from dsv41gen.model import (
    CacheFormat,
    CacheFormatKind,
    CosSinLayout,
    GridRule,
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

KV_OP = "fused_deepseek_v4_kv_rope_insert"
Q_OP = "fused_deepseek_v4_qnorm_rope_kv_insert"
DEBUG_GRID_OP = "_debug_set_grid"
DEBUG_LAUNCH_OP = "_debug_last_launch"

# KV-only schema: reference §7, verbatim.
KV_OP_SCHEMA = (
    "fused_deepseek_v4_kv_rope_insert(Tensor kv, Tensor! k_cache, Tensor slot_mapping, "
    "Tensor position_ids, Tensor cos_sin_cache, int cache_block_size, Tensor? fp8_scale=None, "
    "bool kv_mxfp8=False) -> ()"
)
# Q + KV schema: the KV-only op plus what seed 002 says the KV-only op dropped from it (q_in,
# q_head_padded, eps, apply_q_norm). The rotated / normalised Q goes to a caller-owned padded
# q_out [tokens, q_head_padded, head_dim] of q_in's dtype; q_in is never written.
Q_OP_SCHEMA = (
    "fused_deepseek_v4_qnorm_rope_kv_insert(Tensor q_in, Tensor! q_out, Tensor kv, "
    "Tensor! k_cache, Tensor slot_mapping, Tensor position_ids, Tensor cos_sin_cache, "
    "int q_head_padded, float eps, bool apply_q_norm, int cache_block_size, "
    "Tensor? fp8_scale=None, bool kv_mxfp8=False) -> ()"
)
DEBUG_GRID_SCHEMA = "_debug_set_grid(str grid) -> ()"
# [programmatic stream serialization set (0/1), grid blocks, threads per block] of the last launch
DEBUG_LAUNCH_SCHEMA = "_debug_last_launch() -> int[]"
# benchmarks only: allow (True, the default) or forbid programmatic serialization on SM90+
DEBUG_PDL_SCHEMA = "_debug_allow_pdl(bool allow) -> ()"
GRID_CHOICES = (("rule", "kRule"), ("warp_per_slot", "kWarpPerSlot"), ("reduced", "kReduced"))


# No fast-math: the kernels spell every rounding with __f*_rn intrinsics anyway, and the
# reference relies on IEEE sqrt / division. No -std either: torch's build picks the standard
# its headers need (a different one than libtorch was built with can break its ABI).
NVCC_FLAGS = ("-O3",)
ARCH_SPECIFIC_TARGETS = ("90", "100")  # sm_90a (Hopper), sm_100a (Blackwell)


class RopeKvPlanError(ValueError):
    """The spec asks for something this kernel structure cannot implement."""


# --- plan dataclasses ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """One input check of a torch op: a C++ condition and the TORCH_CHECK message arguments."""

    condition: str
    message_args: str  # C++ argument list after the condition

    @property
    def condition_cpp(self) -> CppCode:
        return CppCode(self.condition)

    @property
    def message_cpp(self) -> CppCode:
        return CppCode(self.message_args)  # c_string literals and message_arg(...) calls


@dataclass(frozen=True)
class ScalarPlan:
    spec_name: str  # "bfloat16"
    cpp_type: str  # "__nv_bfloat16"
    enumerator: str  # "kBFloat16"
    enum: str  # "ScalarKind::kBFloat16"
    at_type: str  # "at::kBFloat16"
    torch_dtype: str  # "torch.bfloat16"
    mangled_name: str  # how the type appears in a demangled symbol
    pair_type: str  # packed pair type, e.g. "__nv_bfloat162"
    to_float2: str  # pair -> float2 intrinsic
    from_float2: str  # (float, float) -> pair, round to nearest even

    # what the templates print (the fields above are emitter constants)
    @property
    def enum_cpp(self) -> CppCode:
        return CppCode(self.enum)

    @property
    def at_cpp(self) -> CppCode:
        return CppCode(self.at_type)

    @property
    def enumerator_id(self) -> Identifier:
        return CppIdentifier(self.enumerator)

    @property
    def cpp_type_id(self) -> Identifier:
        return CppIdentifier(self.cpp_type)

    @property
    def pair_type_id(self) -> Identifier:
        return CppIdentifier(self.pair_type)

    @property
    def to_float2_id(self) -> Identifier:
        return CppIdentifier(self.to_float2)

    @property
    def from_float2_id(self) -> Identifier:
        return CppIdentifier(self.from_float2)

    @property
    def name_comment(self) -> Comment:
        return Comment(self.spec_name)


@dataclass(frozen=True)
class CachePlan:
    spec_name: str  # "fp8_ds_mla"
    kind: str  # CacheFormatKind value
    enum: str  # "CacheKind::kFp8DsMla"
    enumerator: str  # "kFp8DsMla"
    cache_dtype: str  # spec scalar name of k_cache's dtype
    cache_at_type: str  # "at::kByte"
    cache_torch_dtype: str  # "torch.uint8"
    cache_elem_bytes: int
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
    layout_enum: str  # "RecordLayout::kInterleaved"
    data_bytes: int  # bytes of one token's data (packed: in the data region; plain: the row)
    # numerics (cache_formats.<name>.rope_contraction, round_before_quantize, amax_floor,
    # per_tensor_scaling)
    rope_fma: bool
    round_to_input: bool
    amax_floor: float  # the spec's floor rounded to fp32 (what 1e-4f is in C++); 0: no block scales
    reciprocal_scale: bool  # per-tensor fp8: x * RN(1 / scale), else RN(x / scale)
    selected_by_kv_mxfp8: bool  # uint8 caches: which packed format kv_mxfp8 selects
    description: str
    select_cpp: str = ""  # C++ condition on (k_cache, kv_mxfp8) that picks this format
    checks: tuple[Check, ...] = ()  # checks once this format is picked

    # what the templates print
    @property
    def enum_cpp(self) -> CppCode:
        return CppCode(self.enum)

    @property
    def enumerator_id(self) -> Identifier:
        return CppIdentifier(self.enumerator)

    @property
    def select_code(self) -> CppCode:
        return CppCode(self.select_cpp)

    @property
    def name_comment(self) -> Comment:
        return Comment(self.spec_name)

    @property
    def description_comment(self) -> Comment:
        return Comment(self.description)

    @property
    def spec_name_py(self) -> PyLiteral:
        return PyLiteral(self.spec_name)

    @property
    def torch_dtype_py(self) -> PyCode:
        return PyCode(self.cache_torch_dtype)

    @property
    def layout_cpp(self) -> CppCode:
        return CppCode(self.layout_enum)

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
    def template_args(self) -> str:
        norm = "true" if self.apply_q_norm else "false"
        return f"{self.scalar.cpp_type}, {self.num_heads_q_padded}, {norm}, {self.cache.enum}"

    @property
    def template_args_cpp(self) -> CppCode:
        return CppCode(self.template_args)

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
    unsupported_norm_message: str  # C++ literal: the dispatch error for any other value
    instantiations: tuple[Instantiation, ...]

    @property
    def unsupported_norm_cpp(self) -> CppCode:
        return CppCode(self.unsupported_norm_message)

    @property
    def norms_comment(self) -> Comment:
        return Comment(", ".join(str(n).lower() for n in self.apply_q_norm))


@dataclass(frozen=True)
class GridChoicePlan:
    name: str  # the string the debug op takes
    literal: str  # C++ literal of name
    enum: str  # C++ enumerator

    @property
    def literal_cpp(self) -> CppCode:
        return CppCode(self.literal)

    @property
    def enum_cpp(self) -> CppCode:
        return CppCode(self.enum)


@dataclass(frozen=True)
class OpLiterals:
    """C++ string literals of the op names and schemas."""

    kv_op: str
    q_op: str
    kv_op_schema: str
    q_op_schema: str
    debug_grid_schema: str
    debug_launch_schema: str
    debug_pdl_schema: str


@dataclass(frozen=True)
class SourceFile:
    template: str
    path: str  # relative to the variant's output root
    num_heads_q_padded: int  # instantiation units only; -1 otherwise
    # True: the same text for every variant of the family (rendered without the plan, which is
    # what guarantees it), written once at a path outside the variant's csrc directory
    shared: bool = False


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
    rope_pairs: int
    values_per_lane: int
    rope_first_lane: int
    rope_pairs_per_lane: int
    # spec: rope_style, cos_sin_layout, cos_sin_dtype
    rope_style: str
    cos_sin_layout: str
    # spec: threads_per_block, num_token_cutoff, grid_rule, fp8_max
    threads_per_block: int
    warps_per_block: int
    kv_only_threads_per_sm: int  # the threads per multiprocessor the KV-only kernel is sized for
    kv_only_blocks_per_sm: int  # __launch_bounds__ min blocks of the KV-only instantiations
    num_token_cutoff: int
    grid_rule: str
    grid_rule_cpp: str  # C++ boolean: true selects warp-per-slot
    grid_rule_py: str  # the same rule in Python, for the reference / docs
    fp8_max: float
    fp8_max_cpp: str
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
    packed_caches: tuple[CachePlan, ...]
    units: tuple[InstantiationUnit, ...]
    instantiations: tuple[Instantiation, ...]
    unsupported_heads_format: str  # printf format of the dispatch error
    unsupported_heads_literal: str  # the same, as a C++ string literal
    # torch ops
    kv_op: str
    q_op: str
    debug_grid_op: str
    debug_launch_op: str
    kv_op_schema: str
    q_op_schema: str
    debug_grid_schema: str
    debug_launch_schema: str
    debug_pdl_schema: str
    grid_choices: tuple[GridChoicePlan, ...]
    unknown_grid_message_args: str
    literals: OpLiterals
    kv_checks: tuple[Check, ...]
    q_checks: tuple[Check, ...]
    cache_checks: tuple[Check, ...]
    input_dtypes_text: str
    cache_dtypes_text: str
    has_mxfp8: bool
    sources: tuple[SourceFile, ...]
    extension_sources: tuple[str, ...]  # compiled by the loader, file names in csrc_dir
    nvcc_flags: tuple[str, ...]
    nvcc_flags_py: str  # the same as a Python tuple literal
    arch_specific_targets: tuple[str, ...]  # compute capabilities built as the "a" target
    bindings_file: str
    loader_module: str
    reference_module: str

    # --- what the templates print: the fields above, typed for their target language ------

    @property
    def ns(self) -> Identifier:
        return CppIdentifier(self.namespace)

    @property
    def variant_id(self) -> Identifier:
        return Identifier(self.variant_name)

    @property
    def variant_py(self) -> PyLiteral:
        return PyLiteral(self.variant_name)

    @property
    def kv_op_id(self) -> Identifier:
        return Identifier(self.kv_op)

    @property
    def q_op_id(self) -> Identifier:
        return Identifier(self.q_op)

    @property
    def debug_grid_op_id(self) -> Identifier:
        return Identifier(self.debug_grid_op)

    @property
    def schema_comments(self) -> dict[str, Comment]:
        return {
            "kv": Comment(self.kv_op_schema),
            "q": Comment(self.q_op_schema),
            "debug_grid": Comment(self.debug_grid_schema),
            "debug_launch": Comment(self.debug_launch_schema),
            "debug_pdl": Comment(self.debug_pdl_schema),
        }

    @property
    def op_literals(self) -> dict[str, CppCode]:
        """The C++ string literals of the op names and schemas (built by c_string)."""
        return {
            "kv_op": CppCode(self.literals.kv_op),
            "q_op": CppCode(self.literals.q_op),
            "kv_op_schema": CppCode(self.literals.kv_op_schema),
            "q_op_schema": CppCode(self.literals.q_op_schema),
            "debug_grid_schema": CppCode(self.literals.debug_grid_schema),
            "debug_launch_schema": CppCode(self.literals.debug_launch_schema),
            "debug_pdl_schema": CppCode(self.literals.debug_pdl_schema),
        }

    @property
    def unknown_grid_message_cpp(self) -> CppCode:
        return CppCode(self.unknown_grid_message_args)

    @property
    def unsupported_heads_cpp(self) -> CppCode:
        return CppCode(self.unsupported_heads_literal)

    @property
    def rope_style_comment(self) -> Comment:
        return Comment(self.rope_style)

    @property
    def grid_rule_comment(self) -> Comment:
        return Comment(self.grid_rule)

    @property
    def grid_rule_doc(self) -> DocText:
        return DocText(self.grid_rule)

    @property
    def grid_rule_code(self) -> CppCode:
        return CppCode(self.grid_rule_cpp)

    @property
    def grid_rule_py_code(self) -> PyCode:
        return PyCode(self.grid_rule_py)

    @property
    def fp8_max_float(self) -> CppFloat:
        return CppFloat(self.fp8_max)

    @property
    def packed_format_by_family_py(self) -> PyLiteral:
        return PyLiteral(dict(self.packed_format_by_family))

    @property
    def packed_format_default_py(self) -> PyLiteral:
        return PyLiteral(self.packed_format_default)

    @property
    def csrc_dir_doc(self) -> DocText:
        return DocText(f"{self.csrc_dir}/{self.bindings_file}")

    @property
    def csrc_dir_py(self) -> PyLiteral:
        return PyLiteral(self.csrc_dir)

    @property
    def extension_name_py(self) -> PyLiteral:
        return PyLiteral(self.extension_name)

    @property
    def extension_sources_py(self) -> tuple[PyLiteral, ...]:
        return tuple(PyLiteral(name) for name in self.extension_sources)

    @property
    def nvcc_flags_literal(self) -> PyLiteral:
        return PyLiteral(self.nvcc_flags)

    @property
    def arch_specific_targets_py(self) -> PyLiteral:
        return PyLiteral(self.arch_specific_targets)

    @property
    def grid_choice_names_doc(self) -> DocText:
        return DocText(", ".join(c.name for c in self.grid_choices))


# --- helpers ------------------------------------------------------------------------------------

_SCALARS = {
    ScalarType.BFLOAT16: (
        "__nv_bfloat16",
        "kBFloat16",
        "at::kBFloat16",
        "torch.bfloat16",
        "__nv_bfloat16",
        "__nv_bfloat162",
        "__bfloat1622float2",
        "__floats2bfloat162_rn",
    ),
    ScalarType.FLOAT16: (
        "__half",
        "kHalf",
        "at::kHalf",
        "torch.float16",
        "__half",
        "__half2",
        "__half22float2",
        "__floats2half2_rn",
    ),
}
_CACHE_DTYPES = {
    ScalarType.UINT8: ("at::kByte", "torch.uint8", 1),
    ScalarType.BFLOAT16: ("at::kBFloat16", "torch.bfloat16", 2),
    ScalarType.FLOAT8_E4M3FN: ("at::kFloat8_e4m3fn", "torch.float8_e4m3fn", 1),
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


def c_string(text: str) -> str:
    """A C++ string literal holding ``text``."""
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            raise RopeKvPlanError(f"non-ASCII character {ch!r} in a generated message")
    return '"' + "".join(out) + '"'


def _msg(*parts: str) -> str:
    """TORCH_CHECK message arguments: plain strings become literals, ``{expr}`` parts stay C++,
    passed through ``message_arg`` (integers and shapes become std::string there)."""
    args = []
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            # message_arg (rope_kv_bindings.cpp) formats integers and shapes without iostreams.
            args.append(f"message_arg({part[1:-1]})")
        else:
            args.append(c_string(part))
    return ", ".join(args)


def _join(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _fp32_fields(value: float) -> tuple[int, int]:
    """(unbiased exponent, mantissa field) of a positive normal fp32 value, exactly."""
    exponent = math.floor(math.log2(value))
    mantissa = value / 2.0**exponent - 1.0
    field = mantissa * 2**FP32_MANTISSA_BITS
    if field != int(field) or not 1.0 <= value / 2.0**exponent < 2.0:
        raise RopeKvPlanError(f"fp8_max={value} is not exactly representable in fp32")
    return exponent, int(field)


def _plan_cache(fmt: CacheFormat, kernel: RopeKvInsertKernel, values_per_lane: int) -> CachePlan:
    where = f"kernels.rope_kv_insert.cache_formats.{fmt.name}"
    if fmt.cache_dtype not in _CACHE_DTYPES:
        raise RopeKvPlanError(f"{where}: cache dtype {fmt.cache_dtype.value} is not supported")
    at_type, torch_dtype, elem_bytes = _CACHE_DTYPES[fmt.cache_dtype]
    if fmt.fp8_values + fmt.bf16_values != kernel.head_dim:
        raise RopeKvPlanError(
            f"{where}: fp8_values + bf16_values must equal head_dim {kernel.head_dim}"
        )
    if fmt.fp8_values % values_per_lane:
        raise RopeKvPlanError(
            f"{where}: fp8_values must be a multiple of {values_per_lane} (values per lane)"
        )
    data_bytes = fmt.fp8_values + 2 * fmt.bf16_values
    packed = fmt.layout in (PackedLayout.TOKEN_DATA_THEN_SCALES, PackedLayout.INTERLEAVED)
    num_scales = fmt.fp8_values // fmt.scale_group if fmt.scale_group else 0
    lanes_per_scale = fmt.scale_group // values_per_lane if fmt.scale_group else 0
    if fmt.scale_group:
        if fmt.scale_group % values_per_lane or lanes_per_scale & (lanes_per_scale - 1):
            raise RopeKvPlanError(
                f"{where}: scale_group must be a power-of-two multiple of {values_per_lane}"
            )
        if fmt.fp8_values % fmt.scale_group:
            raise RopeKvPlanError(f"{where}: fp8_values must be a multiple of scale_group")
        if fmt.scale_bytes < num_scales:
            raise RopeKvPlanError(f"{where}: scale_bytes {fmt.scale_bytes} < {num_scales} scales")
        # The kernel writes a token's scale bytes with one 4-, 8- or 16-byte store from lane 0,
        # gathering slot i from lane i * lanes_per_scale (rope_kv_core.cuh store_scales).
        if fmt.scale_bytes not in (4, 8, 16) or fmt.scale_bytes * lanes_per_scale > LANES_PER_WARP:
            raise RopeKvPlanError(
                f"{where}: scale_bytes must be 4, 8 or 16 and at most "
                f"{LANES_PER_WARP // lanes_per_scale} (one slot per {lanes_per_scale} lanes)"
            )
        if (fmt.fp8_values + 2 * fmt.bf16_values) % fmt.scale_bytes:
            raise RopeKvPlanError(
                f"{where}: the token data must be a multiple of scale_bytes long, so that each "
                "token's scale bytes are aligned for one store"
            )
        if not packed:
            raise RopeKvPlanError(f"{where}: block scales need a packed layout")
        if not fmt.amax_floor > 0:
            raise RopeKvPlanError(f"{where}: block scales need an amax_floor above 0")
    if packed:
        if (
            fmt.bytes_per_token != data_bytes + fmt.scale_bytes
            or fmt.record_width != fmt.bytes_per_token
        ):
            raise RopeKvPlanError(
                f"{where}: packed record must be data {data_bytes} + scales {fmt.scale_bytes} bytes"
            )
        if elem_bytes != 1:
            raise RopeKvPlanError(f"{where}: a packed cache must be a byte tensor")
    elif fmt.record_width * elem_bytes != data_bytes:
        raise RopeKvPlanError(
            f"{where}: record_width {fmt.record_width} does not hold {data_bytes} bytes"
        )
    if data_bytes % VECTOR_BYTES or fmt.fp8_values % VECTOR_BYTES:
        raise RopeKvPlanError(f"{where}: record regions must be {VECTOR_BYTES}-byte aligned")
    if fmt.per_tensor_scale and (fmt.scale_group or fmt.fp8_values == 0):
        raise RopeKvPlanError(f"{where}: a per-tensor scale applies to plain fp8 rows only")
    if fmt.fp8_values and not (fmt.scale_group or fmt.per_tensor_scale):
        raise RopeKvPlanError(f"{where}: e4m3 values need block scales or a per-tensor scale")
    parts = []
    if fmt.fp8_values:
        parts.append(f"{fmt.fp8_values} e4m3")
    if fmt.bf16_values:
        parts.append(f"{fmt.bf16_values} bf16")
    if fmt.scale_group:
        parts.append(f"{fmt.scale_bytes} UE8M0 scale bytes (one per {fmt.scale_group})")
    if fmt.per_tensor_scale:
        parts.append("one float32 per-tensor scale")
    if fmt.per_tensor_scale != (fmt.per_tensor_scaling is not None):
        raise RopeKvPlanError(f"{where}: per_tensor_scaling goes with per_tensor_scale")
    enumerator = _CACHE_ENUMERATORS[fmt.kind]
    return CachePlan(
        spec_name=fmt.name,
        kind=fmt.kind.value,
        enum=f"CacheKind::{enumerator}",
        enumerator=enumerator,
        cache_dtype=fmt.cache_dtype.value,
        cache_at_type=at_type,
        cache_torch_dtype=torch_dtype,
        cache_elem_bytes=elem_bytes,
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
        layout_enum=f"RecordLayout::{_LAYOUT_ENUMERATORS[fmt.layout]}",
        data_bytes=data_bytes,
        rope_fma=_ROPE_FMA[fmt.rope_contraction],
        round_to_input=_ROUNDS_TO_INPUT[fmt.round_before_quantize],
        amax_floor=_fp32(fmt.amax_floor),
        reciprocal_scale=fmt.per_tensor_scaling is PerTensorScaling.RECIPROCAL_MULTIPLY,
        selected_by_kv_mxfp8=fmt.kind is CacheFormatKind.MXFP8,
        description=" + ".join(parts) + _LAYOUT_DESCRIPTIONS[fmt.layout],
    )


_LAYOUT_ENUMERATORS = {
    PackedLayout.TOKEN_DATA_THEN_SCALES: "kTokenDataThenScales",
    PackedLayout.INTERLEAVED: "kInterleaved",
    PackedLayout.NONE: "kPlainRow",
}
_LAYOUT_DESCRIPTIONS = {
    PackedLayout.TOKEN_DATA_THEN_SCALES: ", token data then scales per block",
    PackedLayout.INTERLEAVED: ", each token's data then its scales",
    PackedLayout.NONE: ", plain rows",
}


# Every member of each numerics enum has an entry (tests/kernels/test_rope_kv_plan.py checks).
_ROPE_FMA = {RopeContraction.FMA: True, RopeContraction.NONE: False}
_ROUNDS_TO_INPUT = {RoundBeforeQuantize.INPUT_DTYPE: True, RoundBeforeQuantize.NONE: False}
_NORM_RSQRT = {QRmsNorm.FMA_RSQRT: True, QRmsNorm.EXACT: False}


def _checks(plan_caches: tuple[CachePlan, ...], kernel: RopeKvInsertKernel, scalars, variant: str):
    hd = kernel.head_dim
    rd = kernel.rope_dim
    dtypes = _join([s.spec_name for s in scalars])
    dtype_cond = " || ".join(f"kv.scalar_type() == {s.at_type}" for s in scalars)
    kv = [
        Check("kv.is_cuda()", _msg("kv must be a CUDA tensor, got device ", "{kv.device()}")),
        Check(
            dtype_cond,
            _msg(
                f"kv must be {dtypes} (spec kernels.rope_kv_insert.input_dtypes), got ",
                "{kv.scalar_type()}",
            ),
        ),
        Check(
            f"kv.dim() == 2 && kv.size(1) == {hd}",
            _msg(f"kv must have shape [num_tokens, {hd}] (head_dim), got ", "{kv.sizes()}"),
        ),
        Check("kv.is_contiguous()", _msg("kv must be contiguous; call .contiguous() on it first")),
        Check(
            "slot_mapping.device() == kv.device() && slot_mapping.scalar_type() == at::kLong && "
            "slot_mapping.dim() == 1 && slot_mapping.is_contiguous()",
            _msg(
                "slot_mapping must be a contiguous 1-D int64 tensor on ",
                "{kv.device()}",
                ", got ",
                "{slot_mapping.scalar_type()}",
                " ",
                "{slot_mapping.sizes()}",
                " on ",
                "{slot_mapping.device()}",
            ),
        ),
        Check(
            "position_ids.device() == kv.device() && position_ids.scalar_type() == at::kLong && "
            "position_ids.dim() == 1 && position_ids.is_contiguous()",
            _msg(
                "position_ids must be a contiguous 1-D int64 tensor on ",
                "{kv.device()}",
                ", got ",
                "{position_ids.scalar_type()}",
                " ",
                "{position_ids.sizes()}",
                " on ",
                "{position_ids.device()}",
            ),
        ),
        Check(
            "position_ids.size(0) >= kv.size(0)",
            _msg(
                "position_ids must cover every kv row: got ",
                "{position_ids.size(0)}",
                " positions for ",
                "{kv.size(0)}",
                " rows",
            ),
        ),
        Check(
            "slot_mapping.size(0) <= kv.size(0)",
            _msg(
                "slot_mapping has ",
                "{slot_mapping.size(0)}",
                " entries but kv only ",
                "{kv.size(0)}",
                " rows; only padded rows may be left out of slot_mapping",
            ),
        ),
        Check(
            "cos_sin_cache.device() == kv.device() && "
            "cos_sin_cache.scalar_type() == at::kFloat && cos_sin_cache.dim() == 2 && "
            f"cos_sin_cache.size(1) == {rd} && cos_sin_cache.is_contiguous()",
            _msg(
                f"cos_sin_cache must be a contiguous float32 [max_position, {rd}] tensor on ",
                "{kv.device()}",
                f" ({rd // 2} cos then {rd // 2} sin per position), got ",
                "{cos_sin_cache.scalar_type()}",
                " ",
                "{cos_sin_cache.sizes()}",
            ),
        ),
    ]
    kv.append(
        Check(
            f"reinterpret_cast<uintptr_t>(kv.data_ptr()) % {VECTOR_BYTES} == 0 && "
            f"reinterpret_cast<uintptr_t>(cos_sin_cache.data_ptr()) % {VECTOR_BYTES} == 0",
            _msg(
                f"kv and cos_sin_cache must start at {VECTOR_BYTES}-byte aligned addresses "
                "(the kernel reads 16-byte vectors); pass a .clone() of a sliced tensor"
            ),
        )
    )
    cache_dtype_names = sorted(
        {c.cache_dtype for c in plan_caches}, key=[c.cache_dtype for c in plan_caches].index
    )
    cache_at = {c.cache_dtype: c.cache_at_type for c in plan_caches}
    cache_cond = " || ".join(f"k_cache.scalar_type() == {cache_at[n]}" for n in cache_dtype_names)
    cache = [
        Check(
            "k_cache.device() == kv.device()",
            _msg("k_cache must be on ", "{kv.device()}", ", got ", "{k_cache.device()}"),
        ),
        Check(
            "k_cache.dim() == 3",
            _msg(
                "k_cache must be a 3-D paged cache [num_blocks, block_size, record_width], "
                "got sizes ",
                "{k_cache.sizes()}",
            ),
        ),
        Check(
            "k_cache.stride(2) == 1",
            _msg(
                "k_cache's last dimension must be contiguous (stride(2) == 1), got strides ",
                "{k_cache.strides()}",
            ),
        ),
        Check(
            "k_cache.size(1) == cache_block_size",
            _msg(
                "k_cache.size(1) is ",
                "{k_cache.size(1)}",
                " but cache_block_size is ",
                "{cache_block_size}",
                "; pass the block size the cache was allocated with",
            ),
        ),
        Check(
            cache_cond,
            _msg(
                f"k_cache dtype must be {_join([n for n in cache_dtype_names])} "
                f"(cache formats of {variant}: {', '.join(c.spec_name for c in plan_caches)}), "
                "got ",
                "{k_cache.scalar_type()}",
            ),
        ),
    ]
    q = [
        Check(
            "q_in.device() == kv.device()",
            _msg("q_in must be on ", "{kv.device()}", ", got ", "{q_in.device()}"),
        ),
        Check(
            "q_in.scalar_type() == kv.scalar_type() && q_out.scalar_type() == kv.scalar_type()",
            _msg(
                "q_in, q_out and kv must share one dtype, got ",
                "{q_in.scalar_type()}",
                ", ",
                "{q_out.scalar_type()}",
                ", ",
                "{kv.scalar_type()}",
            ),
        ),
        Check(
            f"q_in.dim() == 3 && q_in.size(0) == kv.size(0) && q_in.size(2) == {hd} && "
            "q_in.is_contiguous()",
            _msg(
                f"q_in must be a contiguous [num_tokens, num_heads_q, {hd}] tensor with kv's ",
                "{kv.size(0)}",
                " rows, got ",
                "{q_in.sizes()}",
            ),
        ),
        Check(
            "q_in.size(1) >= 1 && q_in.size(1) <= q_head_padded",
            _msg(
                "q_in has ",
                "{q_in.size(1)}",
                " heads; it needs at least one and at most q_head_padded=",
                "{q_head_padded}",
            ),
        ),
        Check(
            "q_out.device() == kv.device() && q_out.dim() == 3 && q_out.size(0) == q_in.size(0) && "
            f"q_out.size(1) == q_head_padded && q_out.size(2) == {hd} && q_out.is_contiguous()",
            _msg(
                f"q_out must be a contiguous [num_tokens, q_head_padded, {hd}] tensor on ",
                "{kv.device()}",
                ", got ",
                "{q_out.sizes()}",
                " with q_head_padded=",
                "{q_head_padded}",
            ),
        ),
    ]
    q.append(
        Check(
            f"reinterpret_cast<uintptr_t>(q_in.data_ptr()) % {VECTOR_BYTES} == 0 && "
            f"reinterpret_cast<uintptr_t>(q_out.data_ptr()) % {VECTOR_BYTES} == 0",
            _msg(
                f"q_in and q_out must start at {VECTOR_BYTES}-byte aligned addresses "
                "(the kernel moves 16-byte vectors); pass a .clone() of a sliced tensor"
            ),
        )
    )
    return tuple(kv), tuple(q), tuple(cache)


def _with_format_checks(caches: tuple[CachePlan, ...], variant: str) -> tuple[CachePlan, ...]:
    """Attach to each format the condition that selects it and the checks that follow."""
    has_mxfp8 = any(c.selected_by_kv_mxfp8 for c in caches)
    out = []
    for c in caches:
        cond = f"k_cache.scalar_type() == {c.cache_at_type}"
        if c.cache_dtype == ScalarType.UINT8.value and has_mxfp8:
            cond += " && kv_mxfp8" if c.selected_by_kv_mxfp8 else " && !kv_mxfp8"
        hint = ""
        # the other uint8 format, if any: a spec may declare the mxfp8 cache alone
        other = next((o for o in caches if o.cache_dtype == c.cache_dtype and o is not c), None)
        if c.cache_dtype == ScalarType.UINT8.value and has_mxfp8 and other is not None:
            flag = "True" if other.selected_by_kv_mxfp8 else "False"
            hint = f"; for a {other.record_width}-byte {other.spec_name} cache pass kv_mxfp8={flag}"
        rw = c.record_width
        checks = [
            Check(
                f"k_cache.size(2) == {rw}",
                _msg(
                    f"k_cache.size(2) must be {rw} for the {c.spec_name} cache format "
                    f"({c.description}), got ",
                    "{k_cache.size(2)}",
                    hint,
                ),
            )
        ]
        if c.token_data_then_scales or c.interleaved:
            layout = "token data then scales" if c.token_data_then_scales else "token records"
            checks.append(
                Check(
                    f"k_cache.stride(1) == {rw}",
                    _msg(
                        f"a {c.spec_name} cache block must be one contiguous byte range "
                        f"({layout}), so k_cache.stride(1) must be {rw}, "
                        "got strides ",
                        "{k_cache.strides()}",
                    ),
                )
            )
            align = f"k_cache.stride(0) % {VECTOR_BYTES} == 0"
            what = "k_cache.stride(0) (bytes per block)"
        else:
            eb = c.cache_elem_bytes
            align = (
                f"(k_cache.stride(0) * {eb}) % {VECTOR_BYTES} == 0 && "
                f"(k_cache.stride(1) * {eb}) % {VECTOR_BYTES} == 0"
            )
            what = "k_cache's block and token strides in bytes"
        checks.append(
            Check(
                f"{align} && reinterpret_cast<uintptr_t>(k_cache.data_ptr()) % {VECTOR_BYTES} == 0",
                _msg(
                    f"{what} and k_cache's address must be multiples of {VECTOR_BYTES} bytes "
                    "(the kernel writes 16-byte vectors), got strides ",
                    "{k_cache.strides()}",
                ),
            )
        )
        if c.per_tensor_scale:
            checks.append(
                Check(
                    "fp8_scale.has_value() && fp8_scale->device() == kv.device() && "
                    "fp8_scale->scalar_type() == at::kFloat && fp8_scale->numel() == 1",
                    _msg(
                        f"a {c.cache_dtype} ({c.spec_name}) cache needs fp8_scale: "
                        "a float32 tensor on ",
                        "{kv.device()}",
                        " holding exactly one per-tensor scale",
                    ),
                )
            )
        else:
            checks.append(
                Check(
                    "!fp8_scale.has_value()",
                    _msg(
                        "fp8_scale is used only by a per-tensor-scaled fp8 cache; "
                        f"pass None for the {c.spec_name} cache"
                    ),
                )
            )
        out.append(replace(c, select_cpp=cond, checks=tuple(checks)))
    return tuple(out)


def _kv_mxfp8_check(caches: tuple[CachePlan, ...], variant: str) -> Check:
    mx = next((c for c in caches if c.selected_by_kv_mxfp8), None)
    if mx is None:
        names = ", ".join(c.spec_name for c in caches)
        return Check(
            "!kv_mxfp8",
            _msg(
                f"kv_mxfp8=True, but variant {variant} has no mxfp8 cache format "
                f"(spec kernels.rope_kv_insert.cache_formats: {names}); pass kv_mxfp8=False"
            ),
        )
    return Check(
        f"!kv_mxfp8 || k_cache.scalar_type() == {mx.cache_at_type}",
        _msg(
            f"kv_mxfp8=True needs a {mx.cache_dtype} {mx.spec_name} cache, got k_cache dtype ",
            "{k_cache.scalar_type()}",
        ),
    )


# --- the planner --------------------------------------------------------------------------------


def plan_rope_kv(kernel: RopeKvInsertKernel, variant_name: str) -> RopeKvPlan:
    """Build everything the CUDA / C++ / Python templates print for one variant."""
    if not variant_name.isidentifier():
        raise RopeKvPlanError(f"variant name {variant_name!r} is not an identifier")
    where = "kernels.rope_kv_insert"
    if kernel.head_dim % LANES_PER_WARP:
        raise RopeKvPlanError(f"{where}.head_dim must be a multiple of {LANES_PER_WARP}")
    values_per_lane = kernel.head_dim // LANES_PER_WARP
    if values_per_lane * 2 != 2 * VECTOR_BYTES:
        raise RopeKvPlanError(
            f"{where}.head_dim={kernel.head_dim}: this kernel gives each lane two 16-byte vectors "
            f"of 16-bit values, so head_dim must be {LANES_PER_WARP * VECTOR_BYTES}"
        )
    if kernel.nope_dim + kernel.rope_dim != kernel.head_dim:
        raise RopeKvPlanError(f"{where}: nope_dim + rope_dim must equal head_dim")
    if kernel.nope_dim % values_per_lane or kernel.rope_dim % 2:
        raise RopeKvPlanError(
            f"{where}: nope_dim must be a multiple of {values_per_lane}, rope_dim even"
        )
    if kernel.rope_style is not RopeStyle.GPTJ_INTERLEAVED:
        raise RopeKvPlanError(f"{where}.rope_style {kernel.rope_style.value} is not implemented")
    if (
        kernel.cos_sin_layout is not CosSinLayout.COS_THEN_SIN
        or kernel.cos_sin_dtype is not ScalarType.FLOAT32
    ):
        raise RopeKvPlanError(f"{where}: only a float32 cos-then-sin cache is implemented")
    if kernel.grid_rule is not GridRule.KV_ONLY_OR_BELOW_CUTOFF:
        raise RopeKvPlanError(f"{where}.grid_rule {kernel.grid_rule.value} is not implemented")
    if kernel.threads_per_block % LANES_PER_WARP:
        raise RopeKvPlanError(f"{where}.threads_per_block must be a whole number of warps")
    heads = tuple(sorted(set(kernel.num_heads_q_padded)))
    if not heads or heads[0] < 0:
        raise RopeKvPlanError(f"{where}.num_heads_q_padded must be non-negative values")
    norms = tuple(sorted(set(kernel.apply_q_norm)))
    if any(h > 0 for h in heads) and not norms:
        raise RopeKvPlanError(
            f"{where}.apply_q_norm must name at least one value when Q heads exist"
        )
    scalars = []
    for dt in kernel.input_dtypes:
        if dt not in _SCALARS:
            raise RopeKvPlanError(
                f"{where}.input_dtypes: {dt.value} is not supported (bfloat16, float16)"
            )
        cpp, enumerator, at, torch_name, mangled, pair, to_f2, from_f2 = _SCALARS[dt]
        scalars.append(
            ScalarPlan(
                dt.value,
                cpp,
                enumerator,
                f"ScalarKind::{enumerator}",
                at,
                torch_name,
                mangled,
                pair,
                to_f2,
                from_f2,
            )
        )
    scalars = tuple(scalars)
    caches = _with_format_checks(
        tuple(_plan_cache(f, kernel, values_per_lane) for f in kernel.cache_formats), variant_name
    )
    names = [c.spec_name for c in caches]
    if len(set(names)) != len(names) or len({c.kind for c in caches}) != len(caches):
        raise RopeKvPlanError(f"{where}.cache_formats: each format kind may appear once")
    packed = tuple(c for c in caches if c.token_data_then_scales or c.interleaved)
    # The KV-only op tells packed formats apart by kv_mxfp8, and one cache dtype must not name two
    # formats otherwise.
    for dtype in {c.cache_dtype for c in caches}:
        same = [c for c in caches if c.cache_dtype == dtype]
        if len(same) > 1 and not (
            len(same) == 2 and sum(c.selected_by_kv_mxfp8 for c in same) == 1
        ):
            raise RopeKvPlanError(f"{where}.cache_formats: two formats share cache dtype {dtype}")

    fp8_exp, fp8_mant = _fp32_fields(kernel.fp8_max)
    packed_names = [c.spec_name for c in packed]
    named = kernel.packed_format_by_capability_family
    if packed_names:
        named = (*named, ("default", kernel.packed_format_default))
    for family, name in named:
        if name not in packed_names:
            raise RopeKvPlanError(
                f"{where}.packed_cache_format.{family}: {name!r} is not a packed cache format"
            )

    # Instantiations: KV-only (kNumHeadsQPadded == 0) never normalises a Q, so it is emitted with
    # APPLY_Q_NORM=false only; every other value gets each apply_q_norm value of the spec.
    units = []
    for h in heads:
        unit_norms = (False,) if h == 0 else norms
        inst = tuple(Instantiation(s, h, n, c) for s in scalars for n in unit_norms for c in caches)
        compiled = ", ".join(str(n).lower() for n in unit_norms)
        if h == 0:
            message = (
                "apply_q_norm=%s, but the KV-only insert (num_heads_q_padded=0) has no Q to "
                "normalise; pass apply_q_norm=false"
            )
        else:
            message = (
                f"apply_q_norm=%s is not compiled for variant {variant_name} "
                f"(spec kernels.rope_kv_insert.apply_q_norm: {compiled})"
            )
        units.append(
            InstantiationUnit(h, f"rope_kv_inst_h{h}.cu", unit_norms, c_string(message), inst)
        )
    units = tuple(units)
    heads_text = ", ".join(str(h) for h in heads)
    kv_checks, q_checks, cache_checks = _checks(caches, kernel, scalars, variant_name)
    cache_checks = (*cache_checks, _kv_mxfp8_check(caches, variant_name))
    csrc_dir = f"csrc/{variant_name}"
    sources = (
        SourceFile("kernels/rope_kv_core.cuh", "csrc/rope_kv_core.cuh", -1, shared=True),
        SourceFile("cuda/rope_kv_common.h.j2", f"{csrc_dir}/rope_kv_common.h", -1),
        SourceFile("cuda/rope_kv_kernel.cuh.j2", f"{csrc_dir}/rope_kv_kernel.cuh", -1),
        SourceFile("cuda/rope_kv_dispatch.cu.j2", f"{csrc_dir}/rope_kv_dispatch.cu", -1),
        *(
            SourceFile("cuda/rope_kv_inst.cu.j2", f"{csrc_dir}/{u.file_name}", u.num_heads_q_padded)
            for u in units
        ),
        SourceFile("cuda/rope_kv_bindings.cpp.j2", f"{csrc_dir}/rope_kv_bindings.cpp", -1),
        SourceFile("python/rope_kv_loader.py.j2", f"rope_kv_{variant_name}_loader.py", -1),
        # The reference's arithmetic is one ordinary source file (dsv41gen/kernels), copied for
        # the family; each variant's module only configures it.
        SourceFile("kernels/rope_kv_reference.py", "rope_kv_reference.py", -1, shared=True),
        SourceFile("python/rope_kv_reference.py.j2", f"rope_kv_{variant_name}_reference.py", -1),
    )
    cutoff = kernel.num_token_cutoff
    unsupported = f"unsupported num_heads_q_padded=%d (compiled instantiations: {heads_text})."
    return RopeKvPlan(
        variant_name=variant_name,
        namespace=f"dsv41gen_{variant_name}",
        extension_name=f"dsv41gen_rope_kv_{variant_name}",
        csrc_dir=csrc_dir,
        head_dim=kernel.head_dim,
        nope_dim=kernel.nope_dim,
        rope_dim=kernel.rope_dim,
        rope_pairs=kernel.rope_dim // 2,
        values_per_lane=values_per_lane,
        rope_first_lane=kernel.nope_dim // values_per_lane,
        rope_pairs_per_lane=values_per_lane // 2,
        rope_style=kernel.rope_style.value,
        cos_sin_layout=kernel.cos_sin_layout.value,
        threads_per_block=kernel.threads_per_block,
        warps_per_block=kernel.threads_per_block // LANES_PER_WARP,
        kv_only_threads_per_sm=KV_ONLY_THREADS_PER_SM,
        kv_only_blocks_per_sm=max(1, KV_ONLY_THREADS_PER_SM // kernel.threads_per_block),
        num_token_cutoff=cutoff,
        grid_rule=kernel.grid_rule.value,
        grid_rule_cpp="kNumHeadsQPadded == 0 || num_tokens < kNumTokenCutoff",
        grid_rule_py="num_heads_q_padded == 0 or num_tokens < NUM_TOKEN_CUTOFF",
        fp8_max=kernel.fp8_max,
        fp8_max_cpp=f"{kernel.fp8_max!r}f",
        fp8_max_exponent=fp8_exp,
        fp8_max_mantissa_field=fp8_mant,
        q_rope_fma=_ROPE_FMA[kernel.q_rope_contraction],
        q_norm_rsqrt=_NORM_RSQRT[kernel.q_rms_norm],
        packed_format_by_family=kernel.packed_format_by_capability_family,
        packed_format_default=kernel.packed_format_default,
        pdl_min_major=PDL_MIN_MAJOR,
        streaming_accesses=STREAMING_ACCESSES,
        e8m0_bias=E8M0_BIAS,
        e8m0_min=E8M0_MIN,
        e8m0_max=E8M0_MAX,
        scalars=scalars,
        heads=heads,
        heads_text=heads_text,
        apply_q_norm=norms,
        caches=caches,
        packed_caches=packed,
        units=units,
        instantiations=tuple(i for u in units for i in u.instantiations),
        unsupported_heads_format=unsupported,
        unsupported_heads_literal=c_string(unsupported),
        kv_op=KV_OP,
        q_op=Q_OP,
        debug_grid_op=DEBUG_GRID_OP,
        debug_launch_op=DEBUG_LAUNCH_OP,
        kv_op_schema=KV_OP_SCHEMA,
        q_op_schema=Q_OP_SCHEMA,
        debug_grid_schema=DEBUG_GRID_SCHEMA,
        debug_launch_schema=DEBUG_LAUNCH_SCHEMA,
        debug_pdl_schema=DEBUG_PDL_SCHEMA,
        grid_choices=tuple(
            GridChoicePlan(n, c_string(n), f"GridChoice::{e}") for n, e in GRID_CHOICES
        ),
        unknown_grid_message_args=_msg(
            f"{DEBUG_GRID_OP}: unknown grid '",
            "{grid}",
            "'; use " + _join([repr(n) for n, _ in GRID_CHOICES]),
        ),
        literals=OpLiterals(
            c_string(KV_OP),
            c_string(Q_OP),
            c_string(KV_OP_SCHEMA),
            c_string(Q_OP_SCHEMA),
            c_string(DEBUG_GRID_SCHEMA),
            c_string(DEBUG_LAUNCH_SCHEMA),
            c_string(DEBUG_PDL_SCHEMA),
        ),
        kv_checks=kv_checks,
        q_checks=q_checks,
        cache_checks=cache_checks,
        input_dtypes_text=_join([s.spec_name for s in scalars]),
        cache_dtypes_text=_join(sorted({c.cache_dtype for c in caches})),
        has_mxfp8=any(c.selected_by_kv_mxfp8 for c in caches),
        sources=sources,
        extension_sources=(
            "rope_kv_bindings.cpp",
            "rope_kv_dispatch.cu",
            *(u.file_name for u in units),
        ),
        nvcc_flags=NVCC_FLAGS,
        nvcc_flags_py="("
        + ", ".join(f'"{f}"' for f in NVCC_FLAGS)
        + ("," if len(NVCC_FLAGS) == 1 else "")
        + ")",
        arch_specific_targets=ARCH_SPECIFIC_TARGETS,
        bindings_file="rope_kv_bindings.cpp",
        loader_module=f"rope_kv_{variant_name}_loader",
        reference_module=f"rope_kv_{variant_name}_reference",
    )


def source_context(plan: RopeKvPlan, source: SourceFile) -> dict[str, object]:
    """What source's template is rendered with: nothing for a shared file (which is what keeps
    it the same for every variant), else the plan and the file's instantiation unit."""
    if source.shared:
        return {}
    unit = next((u for u in plan.units if u.num_heads_q_padded == source.num_heads_q_padded), None)
    return {"plan": plan, "unit": unit}


def render_rope_kv(plan: RopeKvPlan) -> dict[str, str]:
    """Render every file of the family; keys are paths relative to the family output directory."""
    from dsv41gen.render import render

    return {src.path: render(src.template, **source_context(plan, src)) for src in plan.sources}


def write_rope_kv(plan: RopeKvPlan, directory) -> None:
    """Render the family into ``directory`` for development builds (tests, benchmarks), leaving
    files whose text is unchanged untouched so an extension build there stays up to date."""
    from pathlib import Path

    for relative, text in render_rope_kv(plan).items():
        path = Path(directory) / relative
        if path.is_file() and path.read_text() == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
