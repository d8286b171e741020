"""Typed model: the only input of the planner and the emitters.

Modelled on torchgen's model.py: frozen dataclasses, exhaustive enums, and a ``parse`` per class
that turns one resolved (already validated) mapping into the typed value. Nothing after this
stage walks dicts.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ..errors import Location
from .engine_facts import capability_number
from .parse import Record, declared_at, read


class ScalarType(enum.Enum):
    BFLOAT16 = "bfloat16"
    FLOAT16 = "float16"
    FLOAT32 = "float32"
    FLOAT8_E4M3FN = "float8_e4m3fn"
    UINT8 = "uint8"


class ScaleEncoding(enum.Enum):
    E8M0 = "e8m0"


class ScalingForm(enum.Enum):
    # Only the reciprocal form exists: dividing by exp2(sb - bias) makes the divisor 2^-127 for
    # sb == 0, an fp32 subnormal that flushes to zero (seed 000 §3). Validation rejects "divide".
    MULTIPLY_RECIPROCAL = "multiply_reciprocal"


class AmaxFloor(enum.Enum):
    FP32_TINY = "fp32_tiny"


class ScaleLayout(enum.Enum):
    ROW_MAJOR = "row_major"
    SWIZZLED_128X4 = "swizzled_128x4"


@dataclass(frozen=True)
class MxLaunch:
    """Fixed launch parameters of the MX quantize / dequantize kernels (no autotuning)."""

    block_m: int
    block_k: int
    num_warps: int


@dataclass(frozen=True)
class MxFormat:
    name: str  # e.g. "mxfp8"
    block_size: int  # 32 values share one scale
    value_dtype: ScalarType  # FLOAT8_E4M3FN
    value_max: float  # 448.0
    scale_encoding: ScaleEncoding  # E8M0
    scale_dtype: ScalarType  # UINT8
    scale_bias: int  # 127
    scale_min: int  # 0
    scale_max: int  # 254
    scaling: ScalingForm
    amax_floor: AmaxFloor
    layouts: tuple[ScaleLayout, ...]
    launch: MxLaunch


class CacheFormatKind(enum.Enum):
    FP8_DS_MLA = "fp8_ds_mla"  # packed: 448 e4m3 + 64 bf16 + 8 UE8M0 scale bytes (one per 64)
    MXFP8 = "mxfp8"  # packed: 512 e4m3 + 16 UE8M0 (one per 32)
    BF16 = "bf16"  # plain bf16 row
    FP8 = "fp8"  # plain e4m3 row, one float32 per-tensor scale


class PackedLayout(enum.Enum):
    TOKEN_DATA_THEN_SCALES = "token_data_then_scales"  # block_size x data, then block_size x scales
    INTERLEAVED = "interleaved"  # per token: its data, then its own scales (vLLM's 528 B record)
    NONE = "none"  # plain rows


class RopeContraction(enum.Enum):
    # even = fma(x_even, cos, -RN(x_odd * sin)), odd = fma(x_even, sin, RN(x_odd * cos)): what
    # vLLM 0.33.0's compiled kernels do (nvcc contracts the product-and-sum into one FMA)
    FMA = "fma"
    # every product and sum rounded on its own: RN(RN(x_even * cos) - RN(x_odd * sin)), ...
    NONE = "none"


class QRmsNorm(enum.Enum):
    # vLLM 0.33.0's compiled code: s = x0 * x0, then s = fma(xi, xi, s) per lane in order, a
    # butterfly of adds, rsqrtf(fma(s, 1 / head_dim, eps)) (the GPU's approximate reciprocal
    # square root, MUFU.RSQ), x * that
    FMA_RSQRT = "fma_rsqrt"
    # every square and sum rounded on its own, then the correctly rounded 1 / sqrt(s / head_dim + eps)
    EXACT = "exact"


class RoundBeforeQuantize(enum.Enum):
    INPUT_DTYPE = "input_dtype"  # the rotated fp32 row is rounded to the kv dtype, then quantized
    NONE = "none"  # the fp32 row is quantized as it is


class InfiniteAmax(enum.Enum):
    """What a block-scaled format stores for a block whose amax is +-Inf."""

    # [vLLM 0.33.0 SASS] ceilf(log2f(inf / 448)) + 127 clamps to 255 (UE8M0's NaN code) and the
    # reciprocal exp2f(-inf) is 0: the block's finite values store +-0, its infinities NaN.
    NAN_SCALE = "nan_scale"
    # the byte read off inf's exponent field (clamped, 247 for e4m3), reciprocal 2^(127 - byte):
    # the infinities saturate to +-fp8_max, the finite values flush to zero.
    LARGEST_SCALE = "largest_scale"


class Fp8Nan(enum.Enum):
    """What an e4m3 value stores for NaN (NaN takes no part in a block amax either way: fmaxf)."""

    # [vLLM 0.33.0 SASS] fminf(fmaxf(x, -fp8_max), fp8_max) before the conversion: NaN becomes
    # -fp8_max (0xFE for 448)
    NEGATIVE_MAX = "negative_max"
    # the conversion's own NaN (cvt.rn.satfinite: 0x7F), sign dropped
    E4M3_NAN = "e4m3_nan"


class PerTensorScaling(enum.Enum):
    RECIPROCAL_MULTIPLY = "reciprocal_multiply"  # x * RN(1 / scale)
    DIVIDE = "divide"  # RN(x / scale), IEEE division


class RopeStyle(enum.Enum):
    GPTJ_INTERLEAVED = "gptj_interleaved"


class CosSinLayout(enum.Enum):
    COS_THEN_SIN = "cos_then_sin"  # [max_pos, rope_dim]: rope_dim/2 cos, then rope_dim/2 sin


class GridRule(enum.Enum):
    # warp-per-slot when kNumHeadsQPadded == 0 or num_tokens < NUM_TOKEN_CUTOFF, else reduced
    # (seed 002's fix: without the "== 0" term a KV-only insert idles 7 of 8 warps).
    KV_ONLY_OR_BELOW_CUTOFF = "kv_only_or_below_cutoff"


@dataclass(frozen=True)
class CacheFormat:
    name: str  # spec key, e.g. "fp8_ds_mla"
    kind: CacheFormatKind
    cache_dtype: ScalarType  # UINT8 for packed, BFLOAT16, FLOAT8_E4M3FN
    bytes_per_token: int  # 584, 528, 1024, 512
    record_width: int  # k_cache.size(2) in elements of cache_dtype: 584, 528, 512, 512
    fp8_values: int  # e4m3 values per token: 448, 512, 0, 512
    bf16_values: int  # bf16 values per token: 64, 0, 512, 0
    scale_group: int  # values per UE8M0 scale: 64, 32, 0, 0
    scale_bytes: int  # scale bytes per token incl. padding: 8, 16, 0, 0
    per_tensor_scale: bool  # FP8 only: one float32 scale for the whole tensor
    layout: PackedLayout
    # numerics (ref §0): what the kernel rounds where
    rope_contraction: RopeContraction
    round_before_quantize: RoundBeforeQuantize  # formats with e4m3 values
    amax_floor: float  # block-scaled formats: the block amax is at least this (fp32); 0: none
    per_tensor_scaling: PerTensorScaling | None  # per-tensor fp8 only
    infinite_amax: InfiniteAmax | None  # block-scaled formats only
    fp8_nan: Fp8Nan | None  # formats with e4m3 values only


@dataclass(frozen=True)
class RopeKvInsertKernel:
    head_dim: int  # 512
    nope_dim: int  # 448
    rope_dim: int  # 64
    rope_style: RopeStyle
    cos_sin_dtype: ScalarType  # FLOAT32
    cos_sin_layout: CosSinLayout
    input_dtypes: tuple[ScalarType, ...]  # (BFLOAT16, FLOAT16)
    num_heads_q_padded: tuple[int, ...]  # (0, 8, 16, 32, 64, 128); 0 = KV only
    apply_q_norm: tuple[bool, ...]  # which APPLY_Q_NORM instantiations to emit
    num_token_cutoff: int  # 1024
    threads_per_block: int  # 256 (8 warps)
    grid_rule: GridRule
    fp8_max: float  # 448.0
    cache_formats: tuple[CacheFormat, ...]
    q_rope_contraction: RopeContraction  # how the Q rows' RoPE rounds
    q_rms_norm: QRmsNorm  # how the Q RMSNorm rounds
    # which packed cache format each capability family uses (family -> format name), and the
    # format of every other family
    packed_format_by_capability_family: tuple[tuple[str, str], ...]
    packed_format_default: str


# ---------------------------------------------------------------------------------------------
# Everything else a variant spec says. parse() takes resolved, validated values.


def _parse_mx_format(name: str, d: dict) -> MxFormat:
    scale = d["scale"]
    launch = d["launch"]
    return MxFormat(
        name=name,
        block_size=d["block_size"],
        value_dtype=ScalarType(d["value_dtype"]),
        value_max=float(d["value_max"]),
        scale_encoding=ScaleEncoding(scale["encoding"]),
        scale_dtype=ScalarType(scale["dtype"]),
        scale_bias=scale["bias"],
        scale_min=scale["min"],
        scale_max=scale["max"],
        scaling=ScalingForm(d["scaling"]),
        amax_floor=AmaxFloor(d["amax_floor"]),
        layouts=tuple(ScaleLayout(x) for x in d["layouts"]),
        launch=MxLaunch(
            block_m=launch["block_m"], block_k=launch["block_k"], num_warps=launch["num_warps"]
        ),
    )


def _parse_cache_format(name: str, d: dict) -> CacheFormat:
    return CacheFormat(
        name=name,
        kind=CacheFormatKind(d["kind"]),
        cache_dtype=ScalarType(d["cache_dtype"]),
        bytes_per_token=d["bytes_per_token"],
        record_width=d["record_width"],
        fp8_values=d.get("fp8_values", 0),
        bf16_values=d.get("bf16_values", 0),
        scale_group=d.get("scale_group", 0),
        scale_bytes=d.get("scale_bytes", 0),
        per_tensor_scale=d.get("per_tensor_scale", False),
        layout=PackedLayout(d.get("layout", "none")),
        rope_contraction=RopeContraction(d.get("rope_contraction", "none")),
        round_before_quantize=RoundBeforeQuantize(d.get("round_before_quantize", "none")),
        amax_floor=_amax_floor(d.get("amax_floor", 0)),
        per_tensor_scaling=(
            PerTensorScaling(d["per_tensor_scaling"]) if "per_tensor_scaling" in d else None
        ),
        infinite_amax=InfiniteAmax(d["infinite_amax"]) if "infinite_amax" in d else None,
        fp8_nan=Fp8Nan(d["fp8_nan"]) if "fp8_nan" in d else None,
    )


def _amax_floor(value) -> float:
    """A spec amax floor: ``fp32_tiny`` (2^-126) or a positive number (rounded to fp32 by the
    kernel's float literal and the reference's float32 tensor alike); 0 where the format has no
    block scales."""
    return 2.0**-126 if value == AmaxFloor.FP32_TINY.value else float(value)


def _parse_rope_kv(d: dict) -> RopeKvInsertKernel:
    return RopeKvInsertKernel(
        head_dim=d["head_dim"],
        nope_dim=d["nope_dim"],
        rope_dim=d["rope_dim"],
        rope_style=RopeStyle(d["rope_style"]),
        cos_sin_dtype=ScalarType(d["cos_sin_cache"]["dtype"]),
        cos_sin_layout=CosSinLayout(d["cos_sin_cache"]["layout"]),
        input_dtypes=tuple(ScalarType(x) for x in d["input_dtypes"]),
        num_heads_q_padded=tuple(d["num_heads_q_padded"]),
        apply_q_norm=tuple(d["apply_q_norm"]),
        num_token_cutoff=d["num_token_cutoff"],
        threads_per_block=d["threads_per_block"],
        grid_rule=GridRule(d["grid_rule"]),
        fp8_max=float(d["fp8_max"]),
        cache_formats=tuple(
            _parse_cache_format(k, v) for k, v in sorted(d["cache_formats"].items())
        ),
        q_rope_contraction=RopeContraction(d["q_rope_contraction"]),
        q_rms_norm=QRmsNorm(d["q_rms_norm"]),
        packed_format_by_capability_family=tuple(
            sorted(d.get("packed_cache_format", {}).get("by_capability_family", {}).items())
        ),
        # validation requires a default wherever a packed format exists
        packed_format_default=d.get("packed_cache_format", {}).get("default", ""),
    )


class RegistryTable(enum.Enum):
    TEXT_GENERATION = "text_generation"
    MULTIMODAL = "multimodal"
    SPECULATIVE_DECODING = "speculative_decoding"

    @property
    def dict_name(self) -> str:
        """The name of the table in vLLM's registry.py."""
        return f"_{self.value.upper()}_MODELS"


@dataclass(frozen=True)
class NameTest:
    """A test on a checkpoint name: it starts with one of ``starts_with`` or contains one of
    ``contains``."""

    starts_with: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()

    @staticmethod
    def parse(d: dict | None) -> NameTest | None:
        if d is None:
            return None
        return NameTest(tuple(d.get("starts_with", ())), tuple(d.get("contains", ())))


@dataclass(frozen=True)
class NameRule:
    """architectures.<name>.checkpoint_names.rules[i]: acts on a name that passes ``when`` (or
    fails it, ``negate``): removes a prefix, adds one, replaces text, then goes on, keeps or
    drops the name."""

    when: NameTest | None  # None: every name
    negate: bool
    remove_prefix: tuple[str, ...]
    add_prefix: str | None
    replace: tuple[str, str, bool] | None  # (old, new, every occurrence)
    then: str  # continue | keep | drop

    @staticmethod
    def parse(d: dict) -> NameRule:
        replace = d.get("replace")
        return NameRule(
            NameTest.parse(d.get("if", d.get("unless"))),
            "unless" in d,
            tuple(d.get("remove_prefix", ())),
            d.get("add_prefix"),
            None
            if replace is None
            else (replace["old"], replace["new"], replace.get("count", "all") == "all"),
            d.get("then", "continue"),
        )


@dataclass(frozen=True)
class CheckpointNames:
    """architectures.<name>.checkpoint_names: the rules in order, then ``keep_otherwise``."""

    rules: tuple[NameRule, ...]
    keep_otherwise: bool

    @staticmethod
    def parse(d: dict | None) -> CheckpointNames | None:
        if d is None:
            return None
        return CheckpointNames(
            tuple(NameRule.parse(r) for r in d["rules"]), d.get("otherwise", "keep") == "keep"
        )


@dataclass(frozen=True)
class Architecture:
    name: str
    registry: RegistryTable
    module: str
    class_name: str
    # The engine-wide sets keyed on the architecture name this architecture is a member of
    # (architectures.<name>.engine_sets, names of plan/engine.py's ENGINE_SETS); None: not
    # stated, so the lineage's architecture of the same module and class decides (plan/plugin.py).
    engine_sets: tuple[str, ...] | None = None
    # architectures.<name>.checkpoint_names: how its load_weights renames checkpoint names
    checkpoint_names: CheckpointNames | None = None

    @staticmethod
    def parse(name: str, d: dict) -> Architecture:
        sets = d.get("engine_sets")
        return Architecture(
            name,
            RegistryTable(d["registry"]),
            d["module"],
            d["class"],
            None if sets is None else tuple(sets),
            CheckpointNames.parse(d.get("checkpoint_names")),
        )


@dataclass(frozen=True)
class StageCount:
    """How the engine's loader counts stages: the first source field set to a positive integer,
    else ``default`` (``a or b or default``); no default: the checkpoint's tensor names say."""

    sources: tuple[str, ...]
    default: int | None

    @staticmethod
    def parse(d: dict) -> StageCount:
        return StageCount(tuple(d["sources"]), d.get("default"))


@dataclass(frozen=True)
class StagePrefix:
    """A parameter prefix with a stage slot: 'model.layers.{num_hidden_layers+i}.' is
    head='model.layers.', offset_field='num_hidden_layers', tail='.'."""

    head: str
    offset_field: str | None
    tail: str

    @staticmethod
    def parse(text: str) -> StagePrefix:
        head, slot = text.split("{", 1)
        inner, tail = slot.split("}", 1)
        field = inner.removesuffix("+i") if inner != "i" else None
        return StagePrefix(head, field, tail)


@dataclass(frozen=True)
class SharedWeights:
    maps_to: str  # "model."
    required: tuple[str, ...]
    optional: tuple[str, ...]

    @staticmethod
    def parse(d: dict) -> SharedWeights:
        return SharedWeights(
            d["maps_to"], tuple(d.get("required", ())), tuple(d.get("optional", ()))
        )


class PastCount(enum.Enum):
    """What the engine's loader does with a tensor at or past a count (a stage, an expert)."""

    SKIPPED = "skipped"  # nothing maps it: dropped
    REJECTED = "rejected"  # no parameter for it: the loader fails


@dataclass(frozen=True)
class Stacked:
    """One checkpoint tensor loading into one shard of a merged engine parameter."""

    into: str  # the engine parameter, relative ("attn.fused_wqa_wkv")
    shard: int | str  # the shard id the loader passes (0, 1 / "w1", "w2", "w3")

    @staticmethod
    def parse(d: dict) -> Stacked:
        return Stacked(d["into"], d["shard"])


@dataclass(frozen=True)
class Experts:
    """A block's routed experts: ``prefix`` with ``{e}`` for e below the count, each shipping
    ``weights`` that load into shards of one fused parameter for all experts."""

    prefix: str  # "ffn.experts.{e}."
    count_sources: tuple[str, ...]  # HF config fields, first positive one wins
    past_count: PastCount
    weights: tuple[tuple[str, Stacked], ...]  # per-expert checkpoint name -> fused parameter

    @staticmethod
    def parse(d: dict) -> Experts:
        return Experts(
            prefix=d["prefix"],
            count_sources=tuple(d["count"]["sources"]),
            past_count=PastCount(d.get("past_count", "skipped")),
            weights=tuple(sorted((k, Stacked.parse(v)) for k, v in d["weights"].items())),
        )


@dataclass(frozen=True)
class Block:
    """The stage's decoder block as the draft loader loads it (attention, norms, MoE)."""

    maps_to: str  # under the stage's maps_to ("mtp_block.", "")
    required: tuple[str, ...]
    optional: tuple[str, ...]
    stacked: tuple[tuple[str, Stacked], ...]  # checkpoint name -> merged parameter shard
    renames: tuple[tuple[str, str], ...]  # checkpoint name -> engine parameter name
    experts: Experts | None
    # names that are one parameter each (hc_attn_fn); every other name is a module, whose name
    # alone (attn_norm, without .weight) the loader cannot place
    parameters: tuple[str, ...] = ()

    @staticmethod
    def parse(d: dict) -> Block:
        return Block(
            maps_to=d.get("maps_to", ""),
            required=tuple(d["required"]),
            optional=tuple(d.get("optional", ())),
            parameters=tuple(d.get("parameters", ())),
            stacked=tuple(sorted((k, Stacked.parse(v)) for k, v in d.get("stacked", {}).items())),
            renames=tuple(sorted(d.get("renames", {}).items())),
            experts=Experts.parse(d["experts"]) if "experts" in d else None,
        )


@dataclass(frozen=True)
class Completeness:
    """Which missing weights the engine's loader fails on (checkpoint.weight_sets.*.completeness);
    the others load uninitialized. Absent from the spec: every missing weight fails."""

    checked_unquantized_only: bool  # checked: unquantized (vLLM's track_weights_loading)
    untracked: tuple[str, ...]  # never checked (a layer with a quant_method, in vLLM)
    every_stage_loads: bool  # a stage that loads no tensor fails, quantized or not

    @staticmethod
    def parse(d: dict | None) -> Completeness:
        d = d or {}
        return Completeness(
            checked_unquantized_only=d.get("checked", "always") == "unquantized",
            untracked=tuple(d.get("untracked", ())),
            every_stage_loads=bool(d.get("every_stage_loads", False)),
        )


@dataclass(frozen=True)
class WeightSet:
    name: str
    stage_prefix: str  # "mtp.{i}."
    stage_count: StageCount
    past_count_rejected: bool  # stages_past_count: rejected
    maps_to: StagePrefix
    required: tuple[str, ...]  # per stage
    optional: tuple[str, ...]
    shared: SharedWeights | None  # model-level: loaded once, from any stage
    derived: tuple[
        tuple[str, str], ...
    ]  # (model-level parameter, the stage weight it is built from)
    signature: tuple[str, ...]
    renames: tuple[tuple[str, str], ...]  # checkpoint name -> engine parameter name
    rejected: tuple[str, ...]
    completeness: Completeness
    block: Block | None = None  # the stage's decoder block
    # declared names that are one parameter each, not a module of parameters: the tensor is
    # the name itself, and a name under it (``hc_head_fn.weight``) is one the loader cannot place
    parameters: tuple[str, ...] = ()

    @staticmethod
    def parse(name: str, d: dict) -> WeightSet:
        return WeightSet(
            name=name,
            stage_prefix=d["stage_prefix"],
            stage_count=StageCount.parse(d["stage_count"]),
            past_count_rejected=d.get("stages_past_count", "skipped") == "rejected",
            maps_to=StagePrefix.parse(d["maps_to"]),
            required=tuple(d.get("required", ())),
            optional=tuple(d.get("optional", ())),
            shared=SharedWeights.parse(d["shared"]) if "shared" in d else None,
            derived=tuple(sorted((k, v["from"]) for k, v in d.get("derived", {}).items())),
            signature=tuple(d["signature"]),
            renames=tuple(sorted(d.get("renames", {}).items())),
            rejected=tuple(d.get("rejected", ())),
            completeness=Completeness.parse(d.get("completeness")),
            block=Block.parse(d["block"]) if "block" in d else None,
            parameters=tuple(d.get("parameters", ())),
        )

    @property
    def stage_glob(self) -> str:
        """'mtp.{i}.' -> 'mtp.*', the way messages name where the stages live."""
        return self.stage_prefix.split("{i}")[0] + "*"

    @property
    def shipped(self) -> tuple[str, ...]:
        """Every weight name a checkpoint of this set carries under its stage prefix."""
        shared = self.shared.required + self.shared.optional if self.shared else ()
        return self.required + self.optional + shared + tuple(src for _, src in self.derived)


class Method(enum.Enum):
    """The speculative methods a spec may wire, all names vLLM 0.33.0's SpeculativeConfig knows
    (medusa and mlp_speculator were the language's once; 0.33.0 rejects both)."""

    MTP = "mtp"
    DSPARK = "dspark"
    EAGLE = "eagle"
    EAGLE3 = "eagle3"
    NGRAM = "ngram"
    DRAFT_MODEL = "draft_model"
    SUFFIX = "suffix"


class TargetQuantization(enum.Enum):
    """How a draft's quantization follows the target's."""

    FORCE = "force"  # the target's, even over the user's value
    DEFAULT_WHEN_UNSET = "default_when_unset"  # the target's only when the user gave none


class Divisibility(enum.Enum):
    NONE = "none"
    WHEN_ABOVE_TOKENS_PER_ROUND = "when_above_tokens_per_round"
    ALWAYS = "always"


class NumSpeculativeTokensDefault(enum.Enum):
    """Where num_speculative_tokens comes from when a request gives none."""

    TOKENS_PER_ROUND = "tokens_per_round"  # the draft's n_predict
    DRAFT_CONFIG_FIELDS = "draft_config_fields"  # the first set default_sources field
    # No default applies: the engine fails on such a request (vLLM 0.33.0's MTP compares the
    # unset value with its warning threshold first), so the generated code refuses it.
    NONE = "none"


@dataclass(frozen=True)
class NumSpeculativeTokensRule:
    divisibility: Divisibility
    maximum: int | None
    warn_above: int | None
    # Where the default comes from: () = tokens per round (the draft's n_predict); else the
    # first of these draft-config fields that is set. No default either way is an error.
    default_sources: tuple[str, ...]
    warning: str | None  # the exact text when above warn_above; None: a derived one
    default: NumSpeculativeTokensDefault = NumSpeculativeTokensDefault.TOKENS_PER_ROUND

    @property
    def required(self) -> bool:
        """No default applies (default: none): a request without num_speculative_tokens is
        refused."""
        return self.default is NumSpeculativeTokensDefault.NONE


class Conversion(enum.Enum):
    """How the engine converts a value it copies into a draft config."""

    INT = "int"  # int(value): int's own error for a value that is not a number
    NONE = "none"  # as it is


@dataclass(frozen=True)
class DraftField:
    """speculative.methods.<method>.draft_fields.<name>: a draft HF config field copied from
    the target's config."""

    name: str
    source: str  # a config path (text_config.hc_count)
    convert: Conversion
    default: object  # when the source is unset; None: the field stays unset

    @staticmethod
    def parse(name: str, d: dict) -> DraftField:
        return DraftField(name, d["source"], Conversion(d.get("convert", "none")), d.get("default"))


@dataclass(frozen=True)
class UnresolvedWeightSet:
    """A method's ``weights:`` that names no weight set of the spec. The typed parse is total
    over what the schema admits, so the reference stays a value, and the rule that reads it
    reports it at its file:line:col (validate's _method_weights_declared); a variant that
    passed validation holds none."""

    name: str


@dataclass(frozen=True)
class SpeculativeMethod:
    method: Method
    label: str
    weights: WeightSet | UnresolvedWeightSet
    draft_model_type: str
    draft_architecture: str | None
    tokens_per_round_sources: tuple[str, ...]
    num_speculative_tokens: NumSpeculativeTokensRule
    target_quantization: TargetQuantization | None  # None: the draft's own
    reuses_target_kv_layout: bool
    adaptive_verification: bool
    # target model type -> its own draft architecture (draft_architecture_by_model_type)
    draft_architecture_by_model_type: tuple[tuple[str, str], ...] = ()
    draft_fields: tuple[DraftField, ...] = ()

    def draft_architecture_for(self, model_type: str) -> str | None:
        return dict(self.draft_architecture_by_model_type).get(model_type, self.draft_architecture)

    @property
    def target_quantization_mode(self) -> str | None:
        return self.target_quantization.value if self.target_quantization else None

    @staticmethod
    def parse(name: str, d: dict, weight_sets: Mapping[str, WeightSet]) -> SpeculativeMethod:
        rules = d["num_speculative_tokens"]
        return SpeculativeMethod(
            method=Method(name),
            label=d["label"],
            weights=weight_sets.get(d["weights"], UnresolvedWeightSet(d["weights"])),
            draft_model_type=d["draft_model_type"],
            draft_architecture=d.get("draft_architecture"),
            tokens_per_round_sources=tuple(d["tokens_per_round"]["sources"]),
            num_speculative_tokens=NumSpeculativeTokensRule(
                Divisibility(rules["divisibility"]),
                rules.get("maximum"),
                rules.get("warn_above"),
                tuple(rules.get("default_sources", ()))
                if rules["default"] == "draft_config_fields"
                else (),
                " ".join(rules["warning"].split()) if "warning" in rules else None,
                NumSpeculativeTokensDefault(rules["default"]),
            ),
            target_quantization=TargetQuantization(d["target_quantization"])
            if "target_quantization" in d
            else None,
            reuses_target_kv_layout=d.get("reuses_target_kv_layout", False),
            adaptive_verification=d.get("adaptive_verification", False),
            draft_architecture_by_model_type=tuple(
                sorted(d.get("draft_architecture_by_model_type", {}).items())
            ),
            draft_fields=tuple(
                DraftField.parse(k, v) for k, v in d.get("draft_fields", {}).items()
            ),
        )


@dataclass(frozen=True)
class ForbiddenMethod:
    method: Method
    use_instead: Method
    message: str | None  # None: the planner derives it from the weight sets
    # What the method meant in the nearest ancestor that allowed it (for the derived message).
    ancestor_definition: SpeculativeMethod | None


class CapabilityFamily(enum.Enum):
    SM70 = "sm70"
    SM80 = "sm80"
    SM90 = "sm90"
    SM100 = "sm100"
    SM110 = "sm110"
    SM120 = "sm120"

    @property
    def number(self) -> int:
        """The family as generated code compares it: sm90 -> 90."""
        return capability_number(self.value)

    @property
    def major(self) -> int:
        return self.number // 10


@dataclass(frozen=True)
class KernelBlockSizes:
    default: tuple[int, ...]
    by_family: tuple[tuple[CapabilityFamily, tuple[int, ...]], ...]
    note: str | None

    @staticmethod
    def parse(d: dict) -> KernelBlockSizes:
        families = d.get("by_capability_family", {})
        order = list(CapabilityFamily)
        by_family = sorted(
            ((CapabilityFamily(k), tuple(v)) for k, v in families.items()),
            key=lambda kv: order.index(kv[0]),
        )
        return KernelBlockSizes(tuple(d["default"]), tuple(by_family), d.get("note"))

    def stated(self) -> Iterator[tuple[tuple[str, ...], int, int]]:
        """Each size as (its list's path under kernel_block_sizes, index, size): the default
        list, then each family's, in family order."""
        for i, size in enumerate(self.default):
            yield ("default",), i, size
        for family, sizes in self.by_family:
            for i, size in enumerate(sizes):
                yield ("by_capability_family", family.value), i, size


class BackendKind(enum.Enum):
    INDEXER = "indexer"
    SPARSE_MLA = "sparse_mla"


class BackendPlatform(enum.Enum):
    """Where vLLM runs a backend: a ROCm backend is selected only on ROCm."""

    CUDA = "cuda"
    ROCM = "rocm"


@dataclass(frozen=True)
class EngineClass:
    """A class of the engine, named by module and class (a metadata builder)."""

    module: str
    class_name: str


@dataclass(frozen=True)
class AttentionBackend:
    key: str  # spec key: the class name for indexer backends
    name: str  # get_name()
    kind: BackendKind
    parent: str | None
    parent_module: str | None  # set when the parent is an engine class
    kernel_block_sizes: KernelBlockSizes | None  # None: inherited
    supports_device_cpu_query_lens_mismatch_on_rocm: bool | None
    supported_kv_cache_layouts: tuple[str, ...] | None
    metadata_builder: EngineClass | None  # None: inherited from the parent
    platform: BackendPlatform
    # Every declared field, read from the declaration (spec/parse.py): a field without a
    # hand-written one above is read here, and reads as an attribute (backend.<field>).
    declared: Record

    def __getattr__(self, name: str) -> object:
        if name.startswith("_") or name == "declared":
            raise AttributeError(name)
        try:
            return self.declared[name]
        except KeyError:
            raise AttributeError(name) from None

    def block_sizes(self) -> Iterator[tuple[tuple[str | int, ...], int]]:
        """Each block size the backend states, with its path in the spec (for a rule's report)."""
        if self.kernel_block_sizes is None:
            return
        for where, i, size in self.kernel_block_sizes.stated():
            yield ("attention_backends", self.key, "kernel_block_sizes", *where, i), size

    @staticmethod
    def parse(key: str, d: dict) -> AttentionBackend:
        declared = read(declared_at("attention_backends.*"), d)
        sizes = d.get("kernel_block_sizes")
        layouts = d.get("supported_kv_cache_layouts")
        builder = d.get("metadata_builder")
        return AttentionBackend(
            key=key,
            name=d["name"],
            kind=BackendKind(declared.kind),
            parent=d.get("parent"),
            parent_module=d.get("parent_module"),
            kernel_block_sizes=KernelBlockSizes.parse(sizes) if sizes is not None else None,
            supports_device_cpu_query_lens_mismatch_on_rocm=d.get(
                "supports_device_cpu_query_lens_mismatch_on_rocm"
            ),
            supported_kv_cache_layouts=tuple(layouts) if layouts is not None else None,
            metadata_builder=EngineClass(builder["module"], builder["class"])
            if builder is not None
            else None,
            platform=BackendPlatform(declared.platform),
            declared=declared,
        )


class StateLike(enum.Enum):
    ALWAYS = "always"
    WHEN_UNSPLIT = "when_unsplit"  # only when the bucket is not split by a repeat pattern
    NEVER = "never"


@dataclass(frozen=True)
class KvSpecType:
    name: str
    parent: str | None
    state_like: StateLike


@dataclass(frozen=True)
class KvSourceCompressor:
    """kv_cache.kv_source_compressor: a layer listed in hf_config.<layers_listed_in> and below
    hf_config.<layers_below> builds a compressor that accepts only ``compress_ratios``."""

    layers_listed_in: str
    layers_below: str
    compress_ratios: tuple[int, ...]
    error: str  # a builtin exception class name (the schema's enum)
    message: str | None  # None: the exception has no message

    @staticmethod
    def parse(d: dict) -> KvSourceCompressor:
        return KvSourceCompressor(
            d["layers_listed_in"],
            d["layers_below"],
            tuple(d["compress_ratios"]),
            d["unsupported_compress_ratio_error"],
            d.get("unsupported_compress_ratio_message"),
        )


@dataclass(frozen=True)
class StateDtype:
    setting: str  # the engine setting: mamba_cache_dtype | mamba_ssm_cache_dtype
    auto: str  # what "auto" means: model_dtype, or an earlier state's name


@dataclass(frozen=True)
class LinearAttentionState:
    name: str
    shape: tuple[int | str, ...]  # integers and expressions (spec/expressions.py)
    conv_layout: bool  # layout: conv_state
    dtype: StateDtype


@dataclass(frozen=True)
class LinearAttention:
    """kv_cache.linear_attention: the state of a hybrid model's linear-attention layers."""

    backend: str  # the engine backend class, by path
    states: tuple[LinearAttentionState, ...]

    @staticmethod
    def parse(d: dict) -> LinearAttention:
        return LinearAttention(
            d["backend"],
            tuple(
                LinearAttentionState(
                    s["name"],
                    tuple(s["shape"]),
                    s.get("layout", "as_written") == "conv_state",
                    StateDtype(s["dtype"]["setting"], s["dtype"]["auto"]),
                )
                for s in d["states"]
            ),
        )


@dataclass(frozen=True)
class KvCache:
    spec_types: tuple[KvSpecType, ...]  # parents before children
    compress_ratios: tuple[int, ...]
    unsupported_compress_ratio_message: str | None
    # what a ratio outside compress_ratios raises (None: not stated; ValueError where a message is)
    unsupported_compress_ratio_error: str | None
    # the layer constructor checks max(floor, the config's ratio) (None: the ratio as it is)
    compress_ratio_floor: int | None = None
    kv_source_compressor: KvSourceCompressor | None = None
    # kv_cache.cache_spec_types: cache name -> the KV spec type vLLM plans it with
    cache_spec_types: tuple[tuple[str, str], ...] = ()
    linear_attention: LinearAttention | None = None

    def nearest_state_like(self, name: str) -> KvSpecType | None:
        """The type ``name`` or its nearest ancestor that is state-like (isinstance covers
        subclasses); None when neither it nor any ancestor is."""
        by_name = {t.name: t for t in self.spec_types}
        t = by_name.get(name)
        while t is not None and t.state_like is StateLike.NEVER:
            t = by_name.get(t.parent) if t.parent else None
        return t

    def state_types_in_use(self) -> tuple[list[str], list[str]]:
        """The state-like types (always, when unsplit) the variant's caches are planned with:
        each cache's type or its nearest state-like ancestor."""
        always: list[str] = []
        unsplit: list[str] = []
        for _, name in self.cache_spec_types:
            t = self.nearest_state_like(name)
            if t is None:
                continue
            target = always if t.state_like is StateLike.ALWAYS else unsplit
            if t.name not in target:
                target.append(t.name)
        return always, unsplit

    @staticmethod
    def parse(d: dict) -> KvCache:
        types = d.get("spec_types", {})
        ordered: list[KvSpecType] = []

        def visit(name: str) -> None:
            if any(t.name == name for t in ordered):
                return
            body = types[name]
            if body.get("parent"):
                visit(body["parent"])
            ordered.append(
                KvSpecType(name, body.get("parent"), StateLike(body.get("state_like", "never")))
            )

        for name in types:
            visit(name)
        return KvCache(
            tuple(ordered),
            tuple(d.get("compress_ratios", ())),
            d.get("unsupported_compress_ratio_message"),
            d.get("unsupported_compress_ratio_error"),
            d.get("compress_ratio_floor"),
            KvSourceCompressor.parse(d["kv_source_compressor"])
            if "kv_source_compressor" in d
            else None,
            tuple(d.get("cache_spec_types", {}).items()),
            LinearAttention.parse(d["linear_attention"]) if "linear_attention" in d else None,
        )


class ModelRunner(enum.Enum):
    V1 = "v1"
    V2 = "v2"


class CudaGraphMode(enum.Enum):
    NONE = "NONE"
    PIECEWISE = "PIECEWISE"
    FULL = "FULL"
    FULL_DECODE_ONLY = "FULL_DECODE_ONLY"
    FULL_AND_PIECEWISE = "FULL_AND_PIECEWISE"

    @property
    def has_piecewise_cudagraphs(self) -> bool:
        # [ref §5] true for PIECEWISE and FULL_AND_PIECEWISE only
        return self in (CudaGraphMode.PIECEWISE, CudaGraphMode.FULL_AND_PIECEWISE)


@dataclass(frozen=True)
class ForbiddenRunnerMode:
    name: str
    architectures: tuple[str, ...] | None  # None: every architecture
    model_runner: ModelRunner | None  # None: either runner
    cudagraph_modes: tuple[CudaGraphMode, ...]
    message: str
    adaptive_verification: bool  # only when speculative decoding verifies adaptively


@dataclass(frozen=True)
class RunnerRequirement:
    """A speculative method or feature only one model runner implements."""

    name: str
    model_runner: ModelRunner
    speculative_method: str | None  # the feature is this method ...
    adaptive_verification: bool  # ... or adaptive verification
    feature: str  # how the engine names it in "Model Runner V1 does not support: ..."


@dataclass(frozen=True)
class Runner:
    default_model_runner: tuple[tuple[str, ModelRunner], ...]
    forbidden_modes: tuple[ForbiddenRunnerMode, ...]
    requirements: tuple[RunnerRequirement, ...]  # in the order written (the message's order)

    @staticmethod
    def parse(d: dict) -> Runner:
        order = list(CudaGraphMode)
        return Runner(
            tuple(
                sorted((k, ModelRunner(v)) for k, v in d.get("default_model_runner", {}).items())
            ),
            tuple(
                ForbiddenRunnerMode(
                    name=name,
                    architectures=tuple(body["architectures"]) if "architectures" in body else None,
                    model_runner=ModelRunner(body["model_runner"])
                    if "model_runner" in body
                    else None,
                    cudagraph_modes=tuple(
                        sorted((CudaGraphMode(m) for m in body["cudagraph_modes"]), key=order.index)
                    ),
                    message=" ".join(body["message"].split()),
                    adaptive_verification=body.get("adaptive_verification", False),
                )
                for name, body in sorted(d.get("forbidden_modes", {}).items())
            ),
            tuple(
                RunnerRequirement(
                    name=name,
                    model_runner=ModelRunner(body["model_runner"]),
                    speculative_method=body.get("speculative_method"),
                    adaptive_verification=body.get("adaptive_verification", False),
                    feature=" ".join(body["feature"].split()),
                )
                for name, body in d.get("requires_model_runner", {}).items()
            ),
        )


def _freeze(value: object) -> object:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True)
class Provenance:
    """Where each resolved field of a variant was written (torchgen's ``loc``): the planners
    name spec fields in source-map comments and errors from this, never from the raw specs."""

    file: str  # the variant's own spec, as messages name it
    locations: Mapping[tuple, Location] = field(compare=False, repr=False)

    def where(self, path: tuple) -> Location:
        """The field's position, or its nearest written ancestor's."""
        path = tuple(path)
        while path:
            if path in self.locations:
                return self.locations[path]
            path = path[:-1]
        return self.locations.get((), Location(self.file, 1, 1))


@dataclass(frozen=True)
class HookRule:
    """config_hooks.rules.<name>: its tests (all must hold) and its one action, as the spec
    states them (plain data: the generated module interprets them)."""

    name: str
    when: tuple[dict, ...]
    action: str  # refuse | pop_keys | default_setting
    arguments: dict

    @staticmethod
    def parse(name: str, d: dict) -> HookRule:
        action = next(a for a in ("refuse", "pop_keys", "default_setting") if a in d)
        return HookRule(name, tuple(d.get("when", ())), action, dict(d[action]))


@dataclass(frozen=True)
class ConfigHooks:
    """config_hooks: the named rules, and per architecture the rules its hook runs."""

    rules: tuple[HookRule, ...]
    architectures: tuple[tuple[str, tuple[str, ...]], ...]

    @staticmethod
    def parse(d: dict | None) -> ConfigHooks | None:
        if d is None:
            return None
        return ConfigHooks(
            tuple(HookRule.parse(k, v) for k, v in d["rules"].items()),
            tuple((k, tuple(v)) for k, v in d["architectures"].items()),
        )


@dataclass(frozen=True)
class Variant:
    name: str
    display_name: str
    model_type: str
    spec_file: str  # as shown in messages and headers
    parent: str | None  # the parent variant's name
    architectures: tuple[Architecture, ...]
    weight_sets: tuple[WeightSet, ...]
    hf_config: tuple[tuple[str, object], ...]
    methods: tuple[SpeculativeMethod, ...]
    forbidden: tuple[ForbiddenMethod, ...]
    eagle_style_fallback: bool
    backends: tuple[AttentionBackend, ...]
    kv_cache: KvCache | None
    runner: Runner
    mxfp8: MxFormat | None
    rope_kv_insert: RopeKvInsertKernel | None
    # review.accepted_breaking_changes: (change id or field path, reason), as the spec wrote them
    accepted_breaking_changes: tuple[tuple[str, str], ...]
    provenance: Provenance = field(compare=False, repr=False)
    # The engine release the spec describes (`engine: vllm==0.33.0`): the version after `==`.
    # None: the spec names no engine, and its family gets no vLLM plugin.
    engine_version: str | None = None
    # variant.model_type_aliases: further HF model types the variant answers for
    model_type_aliases: tuple[str, ...] = ()
    # variant.composite_model_types: those whose HF config class nests the text config
    composite_model_types: tuple[str, ...] = ()
    # config_hooks: the engine's per-architecture config hooks as rules
    config_hooks: ConfigHooks | None = None

    @property
    def model_types(self) -> tuple[str, ...]:
        """The variant's model type, then its aliases."""
        return (self.model_type, *self.model_type_aliases)

    @staticmethod
    def parse(
        d: dict, spec_file: str, ancestors: tuple[Variant, ...], provenance: Provenance
    ) -> Variant:
        """``ancestors``: the typed ancestor variants, nearest first (a forbidden method names
        what the nearest ancestor that wired it defined)."""
        weight_sets = {
            name: WeightSet.parse(name, body)
            for name, body in d.get("checkpoint", {}).get("weight_sets", {}).items()
        }
        speculative = d["speculative"]
        methods = tuple(
            SpeculativeMethod.parse(name, body, weight_sets)
            for name, body in sorted(speculative["methods"].items())
        )
        forbidden = tuple(
            ForbiddenMethod(
                Method(name),
                Method(body["use_instead"]),
                " ".join(body["message"].split()) if "message" in body else None,
                next((m for a in ancestors if (m := a.method(Method(name)))), None),
            )
            for name, body in sorted(speculative.get("forbidden", {}).items())
        )
        quantization = d.get("quantization", {})
        kernels = d.get("kernels", {})
        return Variant(
            name=d["variant"]["name"],
            display_name=d["variant"]["display_name"],
            model_type=d["variant"]["model_type"],
            spec_file=spec_file,
            parent=ancestors[0].name if ancestors else None,
            architectures=tuple(Architecture.parse(k, v) for k, v in d["architectures"].items()),
            weight_sets=tuple(weight_sets[k] for k in sorted(weight_sets)),
            hf_config=tuple(sorted((k, _freeze(v)) for k, v in d.get("hf_config", {}).items())),
            methods=methods,
            forbidden=forbidden,
            eagle_style_fallback=speculative.get("eagle_style_fallback", False),
            backends=tuple(
                AttentionBackend.parse(k, v) for k, v in d.get("attention_backends", {}).items()
            ),
            kv_cache=KvCache.parse(d["kv_cache"]) if "kv_cache" in d else None,
            runner=Runner.parse(d.get("runner", {})),
            mxfp8=_parse_mx_format("mxfp8", quantization["mxfp8"])
            if "mxfp8" in quantization
            else None,
            rope_kv_insert=_parse_rope_kv(kernels["rope_kv_insert"])
            if "rope_kv_insert" in kernels
            else None,
            accepted_breaking_changes=tuple(
                (item["change"], " ".join(item["reason"].split()))
                for item in d.get("review", {}).get("accepted_breaking_changes", [])
            ),
            provenance=provenance,
            engine_version=d["engine"].partition("==")[2] if "engine" in d else None,
            model_type_aliases=tuple(d["variant"].get("model_type_aliases", ())),
            composite_model_types=tuple(d["variant"].get("composite_model_types", ())),
            config_hooks=ConfigHooks.parse(d.get("config_hooks")),
        )

    def method(self, method: Method) -> SpeculativeMethod | None:
        return next((m for m in self.methods if m.method is method), None)

    def hf_value(self, field_name: str) -> object:
        return dict(self.hf_config).get(field_name)


@dataclass(frozen=True)
class Family:
    """Variants that share a root spec; generated code for them lives in one package."""

    name: str  # the root variant's name, also the generated package name
    variants: tuple[Variant, ...]  # parents before children

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants if v.name == name)
