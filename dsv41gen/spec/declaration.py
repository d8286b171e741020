"""The spec language, declared once: every field's type, range, default, documentation and
review severity.

Derived from it (``derive.py``; ``python -m dsv41gen.spec.derive`` rewrites the files, and a test
fails when a committed one is stale): ``dsv41gen/schema.json``, ``dsv41gen/schema-child.json``,
the severities ``dsv41gen diff`` gives each change (``semdiff.py``), and the language reference
``docs/reference/language.md``.

Adding a field: declare it here (with ``doc`` and, when a change of it is not plain BEHAVIOUR,
its ``review``), run ``python -m dsv41gen.spec.derive``, and read it in the planner.
"""

from __future__ import annotations

from .language import (
    CAPABILITY_FAMILIES,
    DOTTED_NAME,
    IDENTIFIER,
    SNAKE_CASE,
    UPPER_CASE,
    Bool,
    Change,
    Const,
    Enum,
    Field,
    Int,
    List,
    Map,
    Num,
    Obj,
    OneOf,
    Raw,
    Ref,
    Str,
    anchored,
    behaviour,
    breaking,
    cosmetic,
)
from .limits import MAX_SPECULATIVE_TOKENS, MAX_STAGES

# A KV-cache block size in tokens.
# num_speculative_tokens bounds (a maximum from 1, a warning threshold from 0)
_SPECULATIVE_TOKENS_1 = Int(
    minimum=1,
    maximum=MAX_SPECULATIVE_TOKENS,
    range=f"at most {MAX_SPECULATIVE_TOKENS} speculative tokens",
)
_SPECULATIVE_TOKENS_0 = Int(
    minimum=0,
    maximum=MAX_SPECULATIVE_TOKENS,
    range=f"at most {MAX_SPECULATIVE_TOKENS} speculative tokens",
)
_BLOCK_TOKENS = Int(minimum=1, maximum=65536, range="a KV-cache block of at most 65536 tokens")

# A head dimension.
_HEAD_VALUES = Int(minimum=1, maximum=65536, range="a head of at most 65536 values")

# A count of values in one cache record.
_RECORD_VALUES = Int(minimum=0, maximum=65536, range="at most 65536 values per record")

# An E8M0 scale byte (signed, for a bias).
_SCALE_CODE = Int(minimum=-255, maximum=255, range="an 8-bit scale code")

# KV compress ratios.
_COMPRESS_RATIOS = List(
    items=Int(minimum=0, maximum=65536, range="a compress ratio of at most 65536"),
    min_items=1,
    max_items=64,
)

# Per-token byte counts.
_BYTES_PER_TOKEN = List(
    items=Int(minimum=1, maximum=1048576, range="at most 1 MiB per token"),
    min_items=1,
    max_items=64,
)

# The bytes of one token record.
_RECORD_BYTES = Int(minimum=1, maximum=1048576, range="at most 1 MiB per token record")

# Checkpoint or engine weight names (dotted).
_WEIGHT_NAMES = List(items=Str(pattern=DOTTED_NAME))

# Checkpoint name -> engine parameter name.
_RENAMES = Map(keys=Str(pattern=DOTTED_NAME), values=Str(pattern=DOTTED_NAME))

# HF config field names, first one set wins.
_CONFIG_FIELDS = List(items=Str(pattern=SNAKE_CASE), min_items=1)

# HF config field names, at most 16.
_CONFIG_FIELDS_16 = List(items=Str(pattern=SNAKE_CASE), min_items=1, max_items=16)

# An HF config field by its path: `mtp_num_hidden_layers`, or nested, `text_config.hc_count`
# (a `text_config` part is the text config vLLM's get_hf_text_config reads).
CONFIG_PATH = anchored(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*")

# HF config paths, first one set wins, at most 16.
_CONFIG_PATHS_16 = List(items=Str(pattern=CONFIG_PATH), min_items=1, max_items=16)

# vLLM's model runners.
_MODEL_RUNNER = Enum(values=("v1", "v2"))

# How a RoPE rounds its products.
_CONTRACTION = Enum(values=("fma", "none"))

# What a loader does past a count.
_PAST_COUNT = Enum(values=("skipped", "rejected"))

# The speculative methods vLLM 0.33.0 knows (SpeculativeConfig.method).
SPECULATIVE_METHODS = ("mtp", "dspark", "eagle", "eagle3", "ngram", "draft_model", "suffix")

_METHOD = Obj(
    fields=(
        Field(
            "label",
            Str(min_length=1),
            doc="Name used in messages, e.g. 'classic-MTP'.",
            required=True,
            review=(cosmetic("method label (messages) changed", Change.CHANGED),),
        ),
        Field(
            "weights",
            Str(pattern=SNAKE_CASE),
            doc="The checkpoint weight set this method loads.",
            required=True,
        ),
        Field(
            "draft_model_type",
            Str(pattern=SNAKE_CASE),
            doc="model_type the draft config is rewritten to.",
            required=True,
        ),
        Field(
            "draft_architecture",
            Str(pattern=IDENTIFIER),
            doc=("Architecture the draft config is rewritten to (a speculative_decoding entry)."),
            review=(breaking("draft architecture changed", Change.CHANGED, Change.REMOVED),),
        ),
        Field(
            "draft_architecture_by_model_type",
            Map(keys=Str(pattern=SNAKE_CASE), values=Str(pattern=IDENTIFIER)),
            doc=(
                "Per target model type (variant.model_type or one of its aliases): the draft "
                "architecture for that model type, in place of draft_architecture; e.g. a "
                "family whose MoE model types draft with an MoE draft, `{my_model_moe: "
                "MyModelMoeMTP}`. The other model types take draft_architecture."
            ),
            review=(
                breaking("draft architecture changed", Change.CHANGED, Change.REMOVED, below=True),
            ),
        ),
        Field(
            "draft_fields",
            Map(
                keys=Str(pattern=SNAKE_CASE),
                values=Obj(
                    fields=(
                        Field(
                            "source",
                            Str(pattern=CONFIG_PATH),
                            doc=(
                                "The TARGET's HF config field the draft field is copied from "
                                "(a dotted path, as tokens_per_round.sources)."
                            ),
                            required=True,
                        ),
                        Field(
                            "convert",
                            Enum(values=("int", "none")),
                            doc=(
                                "int: the engine takes int(value), and int's own error for a "
                                "value that is not a number; none (the default): as it is."
                            ),
                            default="none",
                        ),
                        Field(
                            "default",
                            Raw(
                                schema_={
                                    "type": ["integer", "boolean", "string", "null"],
                                    "minimum": -9223372036854775808,
                                    "maximum": 9223372036854775807,
                                    "x-range": "a 64-bit integer",
                                }
                            ),
                            doc=(
                                "The value when the source is unset: the engine's getattr "
                                "default, or the default of the HF config class the engine "
                                "reads (null: the field stays unset)."
                            ),
                        ),
                    )
                ),
            ),
            doc=(
                "Fields the draft's HF config gets from the target's, beside model_type, "
                "architectures and n_predict: draft field -> where it comes from, e.g. "
                "`{hc_mult: {source: text_config.hc_count, convert: int, default: 4}}`."
            ),
            review=(behaviour("draft config field derivation changed", below=True),),
        ),
        Field(
            "target_quantization",
            Enum(values=("force", "default_when_unset")),
            doc=(
                "How the draft's quantization follows the target's: force (the target's, even"
                " over a value the user gave: vLLM's DSpark) or default_when_unset (the "
                "target's only when the user gave none: vLLM's MTP). Absent: the draft's own."
            ),
        ),
        Field("reuses_target_kv_layout", Bool()),
        Field("adaptive_verification", Bool()),
        Field(
            "tokens_per_round",
            Obj(
                fields=(
                    Field(
                        "sources",
                        _CONFIG_PATHS_16,
                        doc=(
                            "HF config fields, an ordered fallback list: the first one set (not"
                            " None) wins. A source may be a dotted path into a nested config; "
                            "its `text_config` part is the target's text config as vLLM's "
                            "get_hf_text_config gives it (variant.composite_model_types), e.g. "
                            "`[mtp_num_hidden_layers, text_config.mtp_num_hidden_layers]`: the "
                            "top level first, then the text config."
                        ),
                        required=True,
                        review=(behaviour("tokens-per-round source changed", Change.CHANGED),),
                    ),
                )
            ),
            doc=(
                "The draft config's n_predict: how many draft stages one round runs (vLLM "
                "sets the draft's n_predict from the first set source). Not the default "
                "num_speculative_tokens, which a method may read elsewhere "
                "(num_speculative_tokens.default_sources)."
            ),
            required=True,
        ),
        Field(
            "num_speculative_tokens",
            Obj(
                fields=(
                    Field(
                        "default",
                        Enum(values=("tokens_per_round", "draft_config_fields", "none")),
                        doc=(
                            "tokens_per_round: the draft's n_predict; draft_config_fields: "
                            "the first of default_sources the draft config sets (none set: a "
                            "request without num_speculative_tokens is the engine's error); "
                            "none: no default applies, the engine fails on a draft given "
                            "without num_speculative_tokens, and the generated code refuses "
                            "that request, telling the user to set it."
                        ),
                        required=True,
                    ),
                    Field(
                        "divisibility",
                        Enum(values=("none", "when_above_tokens_per_round", "always")),
                        required=True,
                    ),
                    Field(
                        "maximum",
                        _SPECULATIVE_TOKENS_1,
                        doc="Largest num_speculative_tokens accepted.",
                    ),
                    Field(
                        "warn_above",
                        _SPECULATIVE_TOKENS_0,
                    ),
                    Field(
                        "default_sources",
                        _CONFIG_FIELDS_16,
                        doc=(
                            "With default: draft_config_fields, the draft HF config fields "
                            "the default is read from, first set (not None) wins."
                        ),
                    ),
                    Field(
                        "warning",
                        Str(min_length=1),
                        doc=(
                            "The exact warning text logged when num_speculative_tokens is "
                            "above warn_above (checked before divisibility, as vLLM does)."
                        ),
                        review=(
                            cosmetic("num_speculative_tokens warning reworded", Change.CHANGED),
                        ),
                    ),
                )
            ),
            required=True,
            review=(behaviour("num_speculative_tokens rule changed", below=True),),
        ),
    )
)

METHOD = Ref(name="method", target=_METHOD)

_VARIANT = Obj(
    fields=(
        Field(
            "name",
            Str(pattern=SNAKE_CASE, max_length=64),
            doc=(
                "Variant name: a snake_case identifier (names generated modules and classes);"
                " at most 64 characters (it names files and directories)."
            ),
            required=True,
        ),
        Field(
            "display_name",
            Str(min_length=1),
            doc="Human name used in messages, e.g. 'DeepSeek V4.1'.",
            required=True,
            review=(cosmetic("display name (messages) changed", Change.CHANGED),),
        ),
        Field(
            "model_type",
            Str(pattern=SNAKE_CASE),
            doc="The HF config `model_type` of this variant.",
            required=True,
            review=(breaking("HF model_type changed", Change.CHANGED),),
        ),
        Field(
            "model_type_aliases",
            List(items=Str(pattern=SNAKE_CASE), max_items=32, unique=True),
            doc=(
                "Further HF `model_type`s this variant answers for, e.g. a text-only and an "
                "MoE spelling of one model: `[my_model_text, my_model_moe]`. The engine treats"
                " each as the variant's model type (the speculative sites dispatch on all of "
                "them); each names one variant of the family."
            ),
            review=(breaking("HF model_type alias removed", Change.REMOVED, Change.CHANGED),),
        ),
        Field(
            "composite_model_types",
            List(items=Str(pattern=SNAKE_CASE), max_items=32, unique=True),
            doc=(
                "The variant's model types (model_type or aliases) whose HF config class is "
                "composite: its text config is the nested `text_config` (absent: the class's "
                "defaults, so no top-level field is read through it). Under every other model "
                "type the config is its own text config, and a `text_config` mapping inside it"
                " is refused with vLLM's get_hf_text_config error, as the engine does. Read by"
                " `text_config.` paths (tokens_per_round.sources, draft_fields)."
            ),
            review=(behaviour("composite model types changed"),),
        ),
    )
)

# A condition on a checkpoint name: true when it starts with one of `starts_with` or contains
# one of `contains`.
_NAME_TEST = Obj(
    fields=(
        Field("starts_with", List(items=Str(min_length=1), min_items=1), doc="Prefixes."),
        Field("contains", List(items=Str(min_length=1), min_items=1), doc="Substrings."),
    )
)

_NAME_RULE = Obj(
    fields=(
        Field(
            "if",
            _NAME_TEST,
            doc="The rule acts on a name that passes this test (neither if nor unless: on every"
            " name).",
        ),
        Field("unless", _NAME_TEST, doc="The rule acts on a name that fails this test."),
        Field(
            "remove_prefix",
            List(items=Str(min_length=1), min_items=1),
            doc="Remove the first of these prefixes the name starts with (one only).",
        ),
        Field("add_prefix", Str(min_length=1), doc="Put this in front of the name."),
        Field(
            "replace",
            Obj(
                fields=(
                    Field("old", Str(min_length=1), required=True, doc="Text to replace."),
                    Field("new", Str(), required=True, doc="Its replacement (may be empty)."),
                    Field(
                        "count",
                        Enum(values=("all", "first")),
                        default="all",
                        doc="all: every occurrence (Python's str.replace); first: the first.",
                    ),
                )
            ),
            doc="Replace text anywhere in the name.",
        ),
        Field(
            "then",
            Enum(values=("continue", "keep", "drop")),
            default="continue",
            doc="After acting: go on with the next rule, load the name as it now is (keep), "
            "or skip it (drop).",
        ),
    )
)

_CHECKPOINT_NAMES = Obj(
    fields=(
        Field(
            "rules",
            List(items=_NAME_RULE, max_items=64),
            doc="In order; each acts on the name the rules before it left, e.g. `- {unless: "
            "{starts_with: [mtp.], contains: [embed_tokens]}, then: drop}` then `- {if: "
            '{starts_with: [mtp.]}, replace: {old: "mtp.", new: "model."}, then: keep}`.',
            required=True,
        ),
        Field(
            "otherwise",
            Enum(values=("keep", "drop")),
            default="keep",
            doc="What happens to a name no rule kept or dropped.",
        ),
    )
)

_ARCHITECTURES = Map(
    keys=Str(pattern=IDENTIFIER),
    values=Obj(
        fields=(
            Field(
                "registry",
                Enum(values=("text_generation", "multimodal", "speculative_decoding")),
                doc="Which registry table lists it.",
                required=True,
                review=(breaking("architecture moved to another registry table", Change.CHANGED),),
            ),
            Field(
                "module",
                Str(pattern=DOTTED_NAME),
                doc="Python module that defines the class.",
                required=True,
                review=(breaking("registry target module changed", Change.CHANGED),),
            ),
            Field(
                "class",
                Str(pattern=IDENTIFIER),
                doc="Class name in that module.",
                required=True,
                review=(breaking("registry target class changed", Change.CHANGED),),
            ),
            Field(
                "engine_sets",
                List(
                    items=Enum(
                        values=(
                            "breakable_cudagraph",
                            "breakable_cudagraph_rocm",
                            "flashinfer_moe_ep",
                            "rocm_flattened_query_lens",
                        )
                    ),
                    unique=True,
                ),
                doc="The engine's sets keyed on the architecture name that this architecture is a "
                "member of (vLLM 0.33.0: breakable_cudagraph, config/vllm.py's "
                "DEFAULT_BREAKABLE_CUDAGRAPH_ARCHITECTURES: breakable CUDA graphs and no "
                "torch.compile by default; breakable_cudagraph_rocm, the same on ROCm; "
                "flashinfer_moe_ep, config/kernel.py's FLASHINFER_MOE_EP_ARCHITECTURES; "
                "rocm_flattened_query_lens, the architectures v1/attention/backends/mla/"
                "indexer.py's _rocm_supports_flattened_device_query_lens names: on ROCm, with "
                "adaptive verification, the indexer flattens decode queries and its metadata "
                "builder supports full CUDA graphs). Unset: "
                "the same as the parent lineage's architecture of the same module and class, else "
                "none; [] opts out. The plugin adds the members to the engine's sets.",
            ),
            Field(
                "checkpoint_names",
                _CHECKPOINT_NAMES,
                doc=(
                    "How this (draft) architecture's load_weights renames each checkpoint "
                    "tensor name before loading it, or drops it: `rules` in order, then "
                    "`otherwise`. The generated `checkpoint.remap_draft_weight_name(architecture, "
                    "name)` answers the same, None for a dropped name."
                ),
                review=(behaviour("checkpoint name mapping changed", below=True),),
            ),
        )
    ),
    entry=(breaking("registry architecture removed or renamed", Change.REMOVED, below=True),),
)

_CHECKPOINT = Obj(
    fields=(
        Field(
            "weight_sets",
            Map(
                keys=Str(pattern=SNAKE_CASE),
                values=Obj(
                    fields=(
                        Field(
                            "stage_prefix",
                            Str(pattern=anchored(r"([A-Za-z_][A-Za-z0-9_]*\.)*\{i\}\.")),
                            doc=(
                                "Prefix of each stage's weights; `{i}` is the stage index, "
                                "e.g. 'mtp.{i}.'."
                            ),
                            required=True,
                            review=(breaking("checkpoint stage prefix changed", Change.CHANGED),),
                        ),
                        Field(
                            "stage_count",
                            Obj(
                                fields=(
                                    Field(
                                        "sources",
                                        _CONFIG_FIELDS,
                                        doc=(
                                            "HF config fields holding the number of stages, "
                                            "in the order the engine reads them: the first "
                                            "set to a positive integer wins (the engine's `a "
                                            "or b or default`)."
                                        ),
                                        required=True,
                                    ),
                                    Field(
                                        "default",
                                        Int(
                                            minimum=1,
                                            maximum=MAX_STAGES,
                                            range=f"the {MAX_STAGES} stages a checkpoint may have",
                                        ),
                                        doc=(
                                            "The stage count when no source is set (the "
                                            "engine's literal fallback, or the config class's"
                                            " default). Without it, a checkpoint's tensor "
                                            "names say."
                                        ),
                                    ),
                                )
                            ),
                            doc="How the engine's loader counts the stages it loads.",
                            required=True,
                            review=(behaviour("checkpoint stage count rule changed", below=True),),
                        ),
                        Field(
                            "stages_past_count",
                            _PAST_COUNT,
                            doc=(
                                "What the engine's loader does with a tensor of a stage at or"
                                " past the stage count that is not a model-level weight: "
                                "skips it (classic MTP) or fails on it (DSpark: no such "
                                "decoder layer). Default: skipped."
                            ),
                            review=(
                                behaviour(
                                    "what the loader does with stages past the count changed"
                                ),
                            ),
                        ),
                        Field(
                            "maps_to",
                            Str(
                                pattern=anchored(
                                    r"([A-Za-z_][A-Za-z0-9_]*\.)+\{([a-z][a-z0-9_]*\+)?i\}\."
                                )
                            ),
                            doc=(
                                "The engine parameter prefix a stage's weights load into: "
                                "`{i}` is the stage index, `{field+i}` adds an HF config "
                                "field, e.g. 'model.layers.{num_hidden_layers+i}.'."
                            ),
                            required=True,
                            review=(
                                behaviour("engine parameter names a stage loads into changed"),
                            ),
                        ),
                        Field(
                            "required",
                            _WEIGHT_NAMES,
                            doc=(
                                "Weights every stage must have (under stage_prefix, loaded "
                                "into maps_to)."
                            ),
                            review=(
                                breaking(
                                    "required checkpoint weights renamed or changed",
                                    Change.CHANGED,
                                    Change.REMOVED,
                                ),
                            ),
                        ),
                        Field("optional", _WEIGHT_NAMES, doc="Weights a stage may have."),
                        Field(
                            "shared",
                            Obj(
                                fields=(
                                    Field(
                                        "maps_to",
                                        Str(pattern=anchored(r"([A-Za-z_][A-Za-z0-9_]*\.)+")),
                                        doc=(
                                            "The model-level engine parameter prefix, e.g. "
                                            "'model.'."
                                        ),
                                        required=True,
                                        review=(
                                            behaviour(
                                                "engine parameter names a stage loads into changed"
                                            ),
                                        ),
                                    ),
                                    Field(
                                        "required",
                                        _WEIGHT_NAMES,
                                        doc=(
                                            "Model-level weights the checkpoint ships under "
                                            "some stage's prefix (any stage: the engine loads"
                                            " each once)."
                                        ),
                                        review=(
                                            breaking(
                                                "required model-level checkpoint weights renamed or changed",
                                                Change.CHANGED,
                                                Change.REMOVED,
                                            ),
                                        ),
                                    ),
                                    Field(
                                        "optional",
                                        _WEIGHT_NAMES,
                                        doc=(
                                            "Model-level weights that may be absent (the "
                                            "engine drops the module)."
                                        ),
                                    ),
                                )
                            ),
                            doc=(
                                "Weights a stage prefix carries that the engine maps onto one"
                                " model-level parameter: loaded once, not required per stage."
                            ),
                        ),
                        Field(
                            "derived",
                            Map(
                                keys=Str(pattern=DOTTED_NAME),
                                values=Obj(
                                    fields=(
                                        Field(
                                            "from",
                                            Str(pattern=DOTTED_NAME),
                                            doc=(
                                                "The stage weight each stage's shard is built"
                                                " from, e.g. 'attn.wkv'."
                                            ),
                                            required=True,
                                        ),
                                    )
                                ),
                            ),
                            doc=(
                                "Model-level parameters the engine builds from a weight of "
                                "every stage (one shard per stage, under shared.maps_to) "
                                "instead of loading them: a checkpoint must not ship them."
                            ),
                        ),
                        Field(
                            "renames",
                            _RENAMES,
                            doc=(
                                "Checkpoint name -> engine parameter name (both relative: the"
                                " checkpoint's under stage_prefix, the engine's under maps_to"
                                " / shared.maps_to)."
                            ),
                            review=(
                                breaking(
                                    "checkpoint rename target changed (the engine parameter a "
                                    "shipped weight loads into)",
                                    Change.CHANGED,
                                    Change.REMOVED,
                                    below=True,
                                ),
                            ),
                        ),
                        Field(
                            "rejected",
                            _WEIGHT_NAMES,
                            doc=(
                                "Checkpoint names (or name prefixes, under stage_prefix) the "
                                "engine's loader fails on; a checkpoint carrying one is "
                                "refused."
                            ),
                            review=(
                                breaking(
                                    "checkpoint names newly rejected", Change.ADDED, Change.CHANGED
                                ),
                            ),
                        ),
                        Field(
                            "parameters",
                            List(items=Str(pattern=DOTTED_NAME), unique=True),
                            doc=(
                                "The set's names that are one parameter each (an nn.Parameter,"
                                " e.g. hc_head_fn), not a module of parameters: the checkpoint"
                                " tensor is the name itself, and a name under it"
                                " (hc_head_fn.weight) is one the engine's loader cannot place,"
                                " so it is refused."
                            ),
                            review=(
                                breaking(
                                    "checkpoint names newly rejected", Change.ADDED, Change.CHANGED
                                ),
                            ),
                        ),
                        Field(
                            "block",
                            Obj(
                                fields=(
                                    Field(
                                        "maps_to",
                                        Str(pattern=anchored(r"(([A-Za-z_][A-Za-z0-9_]*\.)+)?")),
                                        doc=(
                                            "Where the block's parameters sit under the "
                                            "stage's maps_to, e.g. 'mtp_block.' (V4 classic "
                                            "MTP), '' (DSpark). Default: ''."
                                        ),
                                        review=(
                                            behaviour(
                                                "engine parameter names a stage loads into changed"
                                            ),
                                        ),
                                    ),
                                    Field(
                                        "required",
                                        _WEIGHT_NAMES,
                                        doc=(
                                            "Decoder-block weights every stage must have "
                                            "(under stage_prefix; attention, norms, MoE gate,"
                                            " shared experts)."
                                        ),
                                        required=True,
                                        review=(
                                            breaking(
                                                "required checkpoint weights renamed or changed",
                                                Change.CHANGED,
                                                Change.REMOVED,
                                            ),
                                        ),
                                    ),
                                    Field(
                                        "optional",
                                        _WEIGHT_NAMES,
                                        doc="Decoder-block weights a stage may have.",
                                    ),
                                    Field(
                                        "parameters",
                                        List(items=Str(pattern=DOTTED_NAME), unique=True),
                                        doc=(
                                            "The block's names that are one parameter each "
                                            "(an nn.Parameter, e.g. hc_attn_fn, "
                                            "attn.attn_sink): the checkpoint tensor is the "
                                            "name itself and a name under it is refused. "
                                            "Every other block name is a module: its tensors "
                                            "lie under it (attn_norm.weight), and the module's"
                                            " name alone (attn_norm) is refused, as the "
                                            "engine's loader has no parameter of that name."
                                        ),
                                        review=(
                                            breaking(
                                                "checkpoint names newly rejected",
                                                Change.REMOVED,
                                                Change.CHANGED,
                                            ),
                                        ),
                                    ),
                                    Field(
                                        "stacked",
                                        Map(
                                            keys=Str(pattern=DOTTED_NAME),
                                            values=Obj(
                                                fields=(
                                                    Field(
                                                        "into",
                                                        Str(pattern=DOTTED_NAME),
                                                        doc=(
                                                            "The engine parameter (relative, "
                                                            "like the checkpoint name) the "
                                                            "tensor loads into."
                                                        ),
                                                        required=True,
                                                    ),
                                                    Field(
                                                        "shard",
                                                        Int(
                                                            minimum=0,
                                                            maximum=63,
                                                            range="a shard index below 64",
                                                        ),
                                                        doc=(
                                                            "The shard id the loader passes "
                                                            "(the engine's "
                                                            "stacked_params_mapping)."
                                                        ),
                                                        required=True,
                                                    ),
                                                ),
                                                doc="One shard of a merged engine parameter.",
                                            ),
                                        ),
                                        doc=(
                                            "Checkpoint name -> the merged engine parameter "
                                            "and shard it loads into (the loader's "
                                            "stacked_params_mapping, many to one). Shipping "
                                            "the merged parameter itself loads every shard."
                                        ),
                                    ),
                                    Field(
                                        "renames",
                                        _RENAMES,
                                        doc=(
                                            "Checkpoint name -> engine parameter name, one to"
                                            " one; the engine's name is accepted too."
                                        ),
                                    ),
                                    Field(
                                        "experts",
                                        Obj(
                                            fields=(
                                                Field(
                                                    "prefix",
                                                    Str(
                                                        pattern=anchored(
                                                            r"([A-Za-z_][A-Za-z0-9_]*\.)+\{e\}\."
                                                        )
                                                    ),
                                                    doc=(
                                                        "Prefix of one routed expert's "
                                                        "weights under the stage prefix; "
                                                        "`{e}` is the expert index, e.g. "
                                                        "'ffn.experts.{e}.'."
                                                    ),
                                                    required=True,
                                                ),
                                                Field(
                                                    "count",
                                                    Obj(
                                                        fields=(
                                                            Field(
                                                                "sources",
                                                                _CONFIG_FIELDS,
                                                                doc=(
                                                                    "HF config fields holding"
                                                                    " the number of routed "
                                                                    "experts, in the order "
                                                                    "the engine reads them: "
                                                                    "the first set to a "
                                                                    "positive integer wins "
                                                                    "(`a or b`)."
                                                                ),
                                                                required=True,
                                                            ),
                                                        )
                                                    ),
                                                    doc=(
                                                        "How the engine counts a stage's "
                                                        "routed experts: expert e < count is "
                                                        "loaded."
                                                    ),
                                                    required=True,
                                                ),
                                                Field(
                                                    "past_count",
                                                    _PAST_COUNT,
                                                    doc=(
                                                        "What the loader does with a tensor "
                                                        "of an expert at or past the count: "
                                                        "skips it (no expert mapping names "
                                                        "it) or fails on it. Default: "
                                                        "skipped."
                                                    ),
                                                ),
                                                Field(
                                                    "weights",
                                                    Map(
                                                        keys=Str(pattern=DOTTED_NAME),
                                                        values=Obj(
                                                            fields=(
                                                                Field(
                                                                    "into",
                                                                    Str(pattern=DOTTED_NAME),
                                                                    doc=(
                                                                        "The engine parameter"
                                                                        " (relative, like the"
                                                                        " checkpoint name) "
                                                                        "the tensor loads "
                                                                        "into."
                                                                    ),
                                                                    required=True,
                                                                ),
                                                                Field(
                                                                    "shard",
                                                                    Str(pattern=SNAKE_CASE),
                                                                    doc=(
                                                                        "The shard id the "
                                                                        "loader passes (the "
                                                                        "expert mapping's w1 "
                                                                        "/ w2 / w3)."
                                                                    ),
                                                                    required=True,
                                                                ),
                                                            ),
                                                            doc=(
                                                                "The per-expert shard of a "
                                                                "fused experts parameter."
                                                            ),
                                                        ),
                                                        min_properties=1,
                                                    ),
                                                    doc=(
                                                        "Per-expert checkpoint name (under "
                                                        "prefix) -> the fused experts "
                                                        "parameter (one for all experts) and "
                                                        "shard it loads into (the loader's "
                                                        "expert_params_mapping). `into` is "
                                                        "the parameter name up to the "
                                                        "tensor's tail, which the loader "
                                                        "appends without a dot: "
                                                        "`ffn.experts.{e}.w1.weight` with "
                                                        "`into: "
                                                        "ffn.experts.routed_experts.w13_` "
                                                        "loads into `ffn.experts.routed_exper"
                                                        "ts.w13_weight`."
                                                    ),
                                                    required=True,
                                                ),
                                            )
                                        ),
                                        doc=(
                                            "The routed experts of the block: per-expert "
                                            "weights for every expert index below the count."
                                        ),
                                    ),
                                )
                            ),
                            doc=(
                                "The stage's decoder block (attention, norms, MoE) as the "
                                "draft loader loads it: required per stage like the set's own"
                                " weights, under maps_to + block.maps_to."
                            ),
                        ),
                        Field(
                            "completeness",
                            Obj(
                                fields=(
                                    Field(
                                        "checked",
                                        Enum(values=("always", "unquantized")),
                                        doc=(
                                            "When the engine fails on a missing weight: "
                                            "always, or only when the draft model is not "
                                            "quantized (vLLM 0.33.0's DefaultModelLoader runs"
                                            " track_weights_loading only for "
                                            "ModelConfig.quantization None; a quantized draft"
                                            " loads a missing weight uninitialized). Default:"
                                            " always."
                                        ),
                                    ),
                                    Field(
                                        "untracked",
                                        _WEIGHT_NAMES,
                                        doc=(
                                            "Weights of the set (checkpoint names; a derived "
                                            "parameter by its own name) the engine never "
                                            "checks, even when it checks completeness: in "
                                            "vLLM 0.33.0 the parameters of a layer with a "
                                            "quant_method (linear, embedding, LM head) count "
                                            "as loaded on an unquantized model. Missing, they"
                                            " load uninitialized."
                                        ),
                                    ),
                                    Field(
                                        "every_stage_loads",
                                        Bool(),
                                        doc=(
                                            "The engine fails when a stage below the stage "
                                            "count loads no tensor, quantized or not (vLLM "
                                            "0.33.0's classic-MTP loader: 'MTP speculative "
                                            "decoding layer N weights missing from "
                                            "checkpoint'). Default: false."
                                        ),
                                    ),
                                )
                            ),
                            doc=(
                                "Which missing weights the engine's loader fails on and which"
                                " it leaves uninitialized. Without it, every missing weight "
                                "fails (the strict rule)."
                            ),
                        ),
                        Field(
                            "signature",
                            List(items=Str(pattern=DOTTED_NAME), min_items=1),
                            doc=(
                                "The weights (or name prefixes) that identify this set in "
                                "messages, in message order."
                            ),
                            required=True,
                        ),
                    )
                ),
                entry=(breaking("checkpoint weight set removed", Change.REMOVED, below=True),),
            ),
            required=True,
        ),
    )
)

_HF_CONFIG = Map(
    keys=Str(pattern=SNAKE_CASE),
    values=Raw(
        schema_={
            "type": ["integer", "number", "string", "boolean", "array", "null"],
            "minimum": -9223372036854775808,
            "maximum": 9223372036854775807,
            "x-range": "a 64-bit integer or a finite number",
            "items": {
                "minimum": -9223372036854775808,
                "maximum": 9223372036854775807,
                "x-range": "a 64-bit integer or a finite number",
            },
        }
    ),
)

FORBIDDEN_METHOD = Obj(
    fields=(
        Field(
            "use_instead",
            Enum(values=SPECULATIVE_METHODS),
            doc="The allowed method to suggest.",
            required=True,
        ),
        Field(
            "message",
            Str(),
            doc="Overrides the message derived from the weight sets.",
            review=(cosmetic("forbidden-method message reworded"),),
        ),
    )
)

_SPECULATIVE = Obj(
    fields=(
        Field(
            "methods",
            Obj(
                fields=tuple(
                    Field(
                        method,
                        METHOD,
                        review=(
                            breaking("speculative method dropped", Change.REMOVED, below=True),
                        ),
                    )
                    for method in SPECULATIVE_METHODS
                )
            ),
            doc="Speculative methods this variant allows.",
            required=True,
        ),
        Field(
            "forbidden",
            Obj(
                fields=tuple(
                    Field(
                        method,
                        FORBIDDEN_METHOD,
                        review=(
                            behaviour(
                                "speculative method newly forbidden", Change.ADDED, below=True
                            ),
                        ),
                    )
                    for method in SPECULATIVE_METHODS
                )
            ),
            doc="Methods this variant rejects, and what to use instead.",
        ),
        Field("eagle_style_fallback", Bool(), doc="Eagle-style drafting uses this family's path."),
    )
)

# One list of block sizes: the default, and each capability family's own.
_BLOCK_SIZES = List(items=_BLOCK_TOKENS, min_items=1, max_items=64)

KERNEL_BLOCK_SIZES = Obj(
    fields=(
        Field(
            "default",
            _BLOCK_SIZES,
            doc="kernel block sizes, each a positive power of two",
            required=True,
        ),
        Field(
            "by_capability_family",
            Obj(
                fields=tuple(
                    Field(
                        family, _BLOCK_SIZES, doc="kernel block sizes, each a positive power of two"
                    )
                    for family in CAPABILITY_FAMILIES
                )
            ),
            doc="Per compute-capability family (sm90 = every 9.x device).",
        ),
        Field(
            "note",
            Str(),
            doc="Why these sizes (copied into the generated comment).",
            review=(cosmetic("block-size note"),),
        ),
    )
)

_ATTENTION_BACKENDS = Map(
    keys=Str(pattern=IDENTIFIER),
    values=Obj(
        fields=(
            Field(
                "name",
                Str(pattern=UPPER_CASE),
                doc="get_name() value.",
                required=True,
                review=(breaking("backend registered name changed", Change.CHANGED),),
            ),
            Field(
                "kind",
                Enum(values=("indexer", "sparse_mla")),
                doc=(
                    "indexer: a generated class; sparse_mla: a registered name with block "
                    "sizes only."
                ),
                default="indexer",
            ),
            Field(
                "parent",
                Str(pattern=IDENTIFIER),
                doc=(
                    "Parent class: another backend of the family, or an engine class (with "
                    "parent_module)."
                ),
            ),
            Field(
                "parent_module", Str(pattern=DOTTED_NAME), doc="Module of an engine parent class."
            ),
            Field(
                "kernel_block_sizes",
                KERNEL_BLOCK_SIZES,
                review=(behaviour("kernel block sizes changed", below=True),),
            ),
            Field(
                "supported_head_sizes",
                List(items=_HEAD_VALUES, max_items=64, unique=True),
                doc="get_supported_head_sizes(): the head sizes vLLM lets this backend run "
                "(AttentionBackend.supports_head_size, checked when the backend is selected); "
                "[] accepts every size. Without it the parent's list is inherited.",
            ),
            Field(
                "class_path",
                Str(pattern=DOTTED_NAME),
                doc="sparse_mla: the dotted path of the backend class, the value of vLLM's "
                "AttentionBackendEnum member of this name (v1/attention/backends/registry.py); "
                "`emit --vllm-tree` writes that member. The class itself is the model "
                "package's.",
                review=(breaking("attention backend class path changed", Change.CHANGED),),
            ),
            Field(
                "supports_pcp",
                Bool(),
                doc="supports_pcp(): whether the backend runs under prefill context "
                "parallelism. With prefill_context_parallel_size > 1, vLLM asserts it for the "
                "backend of every attention layer at start (v1/worker/cp_utils.py), so `false` "
                "refuses PCP with vLLM's message. Without it the parent's answer is inherited.",
            ),
            Field("supports_device_cpu_query_lens_mismatch_on_rocm", Bool()),
            Field("supported_kv_cache_layouts", List(items=Str(pattern=UPPER_CASE))),
            Field(
                "metadata_builder",
                Obj(
                    fields=(
                        Field(
                            "module",
                            Str(pattern=DOTTED_NAME),
                            doc="Module of the engine's metadata builder class.",
                            required=True,
                        ),
                        Field(
                            "class",
                            Str(pattern=IDENTIFIER),
                            doc="The metadata builder class get_builder_cls() returns.",
                            required=True,
                        ),
                    )
                ),
                doc=(
                    "get_builder_cls(): the engine class that builds this backend's attention"
                    " metadata. vLLM's kernels assert on the metadata type, so a backend with"
                    " a builder of its own must name it; without it the parent's builder is "
                    "inherited. Indexer backends only."
                ),
            ),
            Field(
                "platform",
                Enum(values=("cuda", "rocm")),
                doc=(
                    "The platform vLLM runs this backend on (a ROCm backend is selected only "
                    "on ROCm); default cuda."
                ),
                default="cuda",
            ),
        )
    ),
    entry=(breaking("attention backend removed", Change.REMOVED, below=True),),
)

# A shape dimension: an integer expression over the HF text config's fields and the engine's
# tp_size / num_speculative_tokens: + - * and divide(a, b) (vLLM's divide: asserts b divides a).
_DIM = OneOf(
    options=(
        Int(minimum=1, maximum=1048576, range="a dimension of at most 1048576"),
        Str(pattern=anchored(r"[a-z0-9_ ()+*,-]+"), max_length=200),
    )
)

_STATE = Obj(
    fields=(
        Field(
            "name", Str(pattern=SNAKE_CASE), doc="The state's name (conv, temporal).", required=True
        ),
        Field(
            "shape",
            List(items=_DIM, min_items=1, max_items=8),
            doc=(
                "Its dimensions, each an integer or an expression, e.g. "
                "`divide(linear_num_value_heads, tp_size)` or "
                "`linear_conv_kernel_dim - 1 + num_speculative_tokens`."
            ),
            required=True,
        ),
        Field(
            "layout",
            Enum(values=("as_written", "conv_state")),
            doc=(
                "conv_state: a (dim, length) shape stored length-first unless the engine's "
                'conv-state layout is "DS" (vLLM\'s _orient_conv_shape); as_written (the '
                "default): as the shape says."
            ),
            default="as_written",
        ),
        Field(
            "dtype",
            Obj(
                fields=(
                    Field(
                        "setting",
                        Enum(values=("mamba_cache_dtype", "mamba_ssm_cache_dtype")),
                        doc="The engine's cache setting the dtype comes from.",
                        required=True,
                    ),
                    Field(
                        "auto",
                        Str(pattern=SNAKE_CASE),
                        doc=(
                            'What the setting\'s "auto" means: model_dtype, or the dtype of an '
                            "earlier state (by name)."
                        ),
                        required=True,
                    ),
                )
            ),
            required=True,
        ),
    )
)

_LINEAR_ATTENTION = Obj(
    fields=(
        Field(
            "backend",
            Str(pattern=DOTTED_NAME),
            doc=(
                "The engine's attention backend class of these layers, by its path (a "
                "linear-attention backend is the engine's own: nothing is generated for it), "
                "e.g. `vllm.v1.attention.backends.gdn_attn.GDNAttentionBackend`."
            ),
            required=True,
        ),
        Field(
            "states",
            List(items=_STATE, min_items=1, max_items=8),
            doc=(
                "The per-layer state tensors (vLLM's MambaSpec shapes and dtypes), in order: "
                "shapes as expressions of the HF text config, dtypes from the engine settings."
            ),
            required=True,
        ),
    )
)

_KV_CACHE = Obj(
    fields=(
        Field(
            "linear_attention",
            _LINEAR_ATTENTION,
            doc=(
                "The family's linear-attention layers (a hybrid model: full-attention layers "
                "between recurrent ones whose state does not grow with the sequence). The "
                "generated `kv_cache.linear_attention_state(hf_text_config, ...)` gives their "
                "state shapes, dtypes and backend."
            ),
            review=(behaviour("linear-attention state changed", below=True),),
        ),
        Field(
            "spec_types",
            Map(
                keys=Str(pattern=IDENTIFIER),
                values=Obj(
                    fields=(
                        Field("parent", Str(pattern=IDENTIFIER)),
                        Field(
                            "state_like",
                            Enum(values=("always", "when_unsplit", "never")),
                            doc="Space use does not grow with sequence length.",
                        ),
                    )
                ),
            ),
        ),
        Field(
            "cache_spec_types",
            Map(keys=Str(pattern=SNAKE_CASE), values=Str(pattern=IDENTIFIER)),
            doc=(
                "Per cache the variant's layers allocate (swa, compressed_kv, "
                "compressor_state, ...): the KV spec type vLLM plans it with, a key of "
                "spec_types. The state-like types among them (or their state-like "
                "ancestors) are the entries `emit --vllm-tree` writes into is_state_bucket's "
                "tables, so dropping the only variant whose caches use a type drops the type."
            ),
        ),
        Field("compress_ratios", _COMPRESS_RATIOS),
        Field(
            "unsupported_compress_ratio_message",
            Str(),
            review=(cosmetic("compress-ratio message reworded", Change.CHANGED),),
        ),
        Field(
            "compress_ratio_floor",
            Int(minimum=1, maximum=65536, range="a compress ratio of at least 1 and at most 65536"),
            doc=(
                "The layer constructor checks max(compress_ratio_floor, the config's ratio), "
                "as vLLM 0.33.0's V4 attention layer does with max(1, ...): a ratio below the"
                " floor is the floor (for V4, a plain sliding window). Unset: the ratio is "
                "checked as it is."
            ),
        ),
        Field(
            "unsupported_compress_ratio_error",
            Enum(values=("AssertionError", "ValueError")),
            doc=(
                "What a ratio outside compress_ratios raises, as vLLM's layer constructor "
                "does: AssertionError (vLLM 0.33.0's V4 compressor asserts `compress_ratio in"
                " [4, 128]`) or ValueError (the default). Without "
                "unsupported_compress_ratio_message the exception has no message. Setting "
                "either field generates the check."
            ),
        ),
        Field(
            "kv_source_compressor",
            Obj(
                fields=(
                    Field(
                        "layers_listed_in",
                        Str(pattern=SNAKE_CASE),
                        doc=(
                            "The HF config field listing the kv-source layer ids (absent or "
                            "empty: no layer is a kv source)."
                        ),
                        required=True,
                    ),
                    Field(
                        "layers_below",
                        Str(pattern=SNAKE_CASE),
                        doc=(
                            "The HF config field bounding them: only a listed layer id below "
                            "its value is a kv source (vLLM's backbone layers, layer_id < "
                            "num_hidden_layers)."
                        ),
                        required=True,
                    ),
                    Field(
                        "compress_ratios",
                        _COMPRESS_RATIOS,
                        doc="The ratios the compressor accepts.",
                        required=True,
                    ),
                    Field(
                        "unsupported_compress_ratio_error",
                        Enum(values=("AssertionError", "ValueError", "NotImplementedError")),
                        doc=(
                            "What the compressor raises for another ratio (vLLM 0.33.0's "
                            "V4.1: NotImplementedError)."
                        ),
                        required=True,
                    ),
                    Field(
                        "unsupported_compress_ratio_message",
                        Str(min_length=1),
                        doc=(
                            "Its exact message; may use {layer_id}, {compress_ratio} and "
                            "{display_name}. Without it the exception has no message."
                        ),
                        review=(cosmetic("kv-source compressor message reworded", Change.CHANGED),),
                    ),
                )
            ),
            doc=(
                "The compressor a kv-source layer builds, and the ratios it accepts (checked "
                "after the layer's own compress-ratio check, with the ratio the layer settled"
                " on): vLLM 0.33.0's V4.1 builds a DeepseekCompressor on each layer listed in"
                " the HF config's kv_source_layer_ids that is below num_hidden_layers (MTP "
                "layers never are), and that compressor refuses every ratio but 1 and 2 "
                "(NotImplementedError), so a kv-source layer of ratio 0 fails. Other layers "
                "build none."
            ),
        ),
    )
)

_RUNNER = Obj(
    fields=(
        Field(
            "default_model_runner",
            Map(keys=Str(pattern=IDENTIFIER), values=_MODEL_RUNNER),
            review=(behaviour("default model runner changed", below=True),),
        ),
        Field(
            "forbidden_modes",
            Map(
                keys=Str(pattern=SNAKE_CASE),
                values=Obj(
                    fields=(
                        Field(
                            "architectures",
                            List(items=Str(pattern=IDENTIFIER), min_items=1),
                            doc=(
                                "The architectures the guard applies to; absent: every "
                                "architecture of the family."
                            ),
                        ),
                        Field(
                            "model_runner",
                            _MODEL_RUNNER,
                            doc=(
                                "The model runner the combination is forbidden on; absent: either."
                            ),
                        ),
                        Field(
                            "cudagraph_modes",
                            List(
                                items=Enum(
                                    values=(
                                        "NONE",
                                        "PIECEWISE",
                                        "FULL",
                                        "FULL_DECODE_ONLY",
                                        "FULL_AND_PIECEWISE",
                                    )
                                ),
                                min_items=1,
                            ),
                            doc=(
                                "The FINAL cudagraph modes (after every adjustment) that are "
                                "refused."
                            ),
                            required=True,
                        ),
                        Field(
                            "message",
                            Str(min_length=1),
                            doc="The exact ValueError message.",
                            required=True,
                            review=(cosmetic("runner-mode message reworded", Change.CHANGED),),
                        ),
                        Field(
                            "adaptive_verification",
                            Const(value=True),
                            doc=(
                                "The guard applies only when speculative decoding uses "
                                "adaptive verification."
                            ),
                        ),
                    )
                ),
                entry=(
                    behaviour("runner mode newly forbidden", Change.ADDED, below=True),
                    behaviour("runner-mode guard removed", Change.REMOVED, below=True),
                    behaviour("forbidden runner modes changed", Change.CHANGED, below=True),
                ),
            ),
        ),
        Field(
            "requires_model_runner",
            Map(
                keys=Str(pattern=SNAKE_CASE),
                values=Obj(
                    fields=(
                        Field(
                            "model_runner",
                            _MODEL_RUNNER,
                            doc="The runner that implements the feature.",
                            required=True,
                        ),
                        Field(
                            "speculative_method",
                            Str(pattern=IDENTIFIER),
                            doc="The feature is this speculative method.",
                        ),
                        Field(
                            "adaptive_verification",
                            Const(value=True),
                            doc="The feature is adaptive verification.",
                        ),
                        Field(
                            "feature",
                            Str(min_length=1),
                            doc="How the engine names the feature in its message.",
                            required=True,
                        ),
                    ),
                    extra={
                        "oneOf": [
                            {"required": ["speculative_method"]},
                            {"required": ["adaptive_verification"]},
                        ]
                    },
                ),
            ),
            doc=(
                "Speculative methods and features only one model runner implements. vLLM "
                "joins the features a config asks for and the other runner lacks into one "
                "message (`Model Runner V1 does not support: a, b`), in the order written "
                "here."
            ),
        ),
    )
)

_QUANTIZATION = Obj(
    fields=(
        Field(
            "mxfp8",
            Obj(
                fields=(
                    Field(
                        "block_size",
                        Int(minimum=1, maximum=1024, range="a scale block of at most 1024 values"),
                        required=True,
                    ),
                    Field("value_dtype", Enum(values=("float8_e4m3fn",)), required=True),
                    Field(
                        "value_max",
                        Num(
                            exclusive_minimum=0,
                            maximum=65504,
                            range="a finite float8 / float16 value",
                        ),
                        required=True,
                    ),
                    Field(
                        "scale",
                        Obj(
                            fields=(
                                Field("encoding", Enum(values=("e8m0",)), required=True),
                                Field("dtype", Enum(values=("uint8",)), required=True),
                                Field("bias", _SCALE_CODE, required=True),
                                Field("min", _SCALE_CODE, required=True),
                                Field("max", _SCALE_CODE, required=True),
                            )
                        ),
                        required=True,
                    ),
                    Field(
                        "scaling",
                        Enum(values=("multiply_reciprocal", "divide")),
                        doc="Only multiply_reciprocal is emitted.",
                        required=True,
                    ),
                    Field("amax_floor", Enum(values=("fp32_tiny",)), required=True),
                    Field(
                        "layouts",
                        List(
                            items=Enum(values=("row_major", "swizzled_128x4")),
                            min_items=1,
                            max_items=8,
                            unique=True,
                        ),
                        required=True,
                        review=(
                            breaking(
                                "MXFP8 scale layout removed", Change.CHANGED, when_shrinks=True
                            ),
                        ),
                    ),
                    Field(
                        "launch",
                        Obj(
                            fields=(
                                Field(
                                    "block_m",
                                    Int(
                                        minimum=1,
                                        maximum=4096,
                                        range="a Triton tile of at most 4096 rows",
                                    ),
                                    required=True,
                                ),
                                Field(
                                    "block_k",
                                    Int(
                                        minimum=1,
                                        maximum=65536,
                                        range="a Triton tile of at most 65536 columns",
                                    ),
                                    required=True,
                                ),
                                Field(
                                    "num_warps",
                                    Int(minimum=1, maximum=1024, range="a Triton program's warps"),
                                    required=True,
                                ),
                            )
                        ),
                        required=True,
                    ),
                )
            ),
        ),
    )
)

_KERNELS = Obj(
    fields=(
        Field(
            "rope_kv_insert",
            Obj(
                fields=(
                    Field("head_dim", _HEAD_VALUES, required=True),
                    Field(
                        "nope_dim",
                        Int(minimum=0, maximum=65536, range="a head of at most 65536 values"),
                        required=True,
                    ),
                    Field(
                        "rope_dim",
                        Int(minimum=2, maximum=65536, range="a head of at most 65536 values"),
                        required=True,
                    ),
                    Field("rope_style", Enum(values=("gptj_interleaved",)), required=True),
                    Field(
                        "cos_sin_cache",
                        Obj(
                            fields=(
                                Field("dtype", Enum(values=("float32",)), required=True),
                                Field("layout", Enum(values=("cos_then_sin",)), required=True),
                            )
                        ),
                        required=True,
                    ),
                    Field(
                        "input_dtypes",
                        List(items=Enum(values=("bfloat16", "float16")), min_items=1, unique=True),
                        required=True,
                        review=(
                            breaking(
                                "kernel input dtype removed", Change.CHANGED, when_shrinks=True
                            ),
                        ),
                    ),
                    Field(
                        "num_heads_q_padded",
                        List(
                            items=Int(
                                minimum=0,
                                maximum=1024,
                                range=(
                                    "the C++ template parameter kNumHeadsQPadded; at most "
                                    "1024 Q heads"
                                ),
                            ),
                            min_items=1,
                            max_items=32,
                        ),
                        doc="kNumHeadsQPadded values to instantiate; 0 = KV-only.",
                        required=True,
                        review=(
                            breaking(
                                "compiled kNumHeadsQPadded instantiation removed",
                                Change.CHANGED,
                                when_shrinks=True,
                            ),
                        ),
                    ),
                    Field(
                        "apply_q_norm", List(items=Bool(), min_items=1, unique=True), required=True
                    ),
                    Field(
                        "num_token_cutoff",
                        Int(
                            minimum=1,
                            maximum=2147483647,
                            range="the CUDA host code holds it in a 32-bit int",
                        ),
                        required=True,
                    ),
                    Field(
                        "threads_per_block",
                        Int(
                            minimum=32, maximum=1024, range="CUDA's limit of 1024 threads per block"
                        ),
                        required=True,
                    ),
                    Field("grid_rule", Enum(values=("kv_only_or_below_cutoff",)), required=True),
                    Field(
                        "fp8_max",
                        Num(
                            exclusive_minimum=0,
                            maximum=448,
                            range="float8_e4m3fn's largest finite value is 448",
                        ),
                        required=True,
                    ),
                    Field(
                        "cache_formats",
                        Map(
                            keys=Str(pattern=SNAKE_CASE),
                            values=Obj(
                                fields=(
                                    Field(
                                        "kind",
                                        Enum(values=("fp8_ds_mla", "mxfp8", "bf16", "fp8")),
                                        required=True,
                                    ),
                                    Field(
                                        "cache_dtype",
                                        Enum(values=("uint8", "bfloat16", "float8_e4m3fn")),
                                        required=True,
                                    ),
                                    Field("bytes_per_token", _RECORD_BYTES, required=True),
                                    Field("record_width", _RECORD_BYTES, required=True),
                                    Field("fp8_values", _RECORD_VALUES),
                                    Field("bf16_values", _RECORD_VALUES),
                                    Field("scale_group", _RECORD_VALUES),
                                    Field("scale_bytes", _RECORD_VALUES),
                                    Field("per_tensor_scale", Bool()),
                                    Field(
                                        "layout",
                                        Enum(
                                            values=("token_data_then_scales", "interleaved", "none")
                                        ),
                                        doc=(
                                            "Packed formats: token_data_then_scales (per "
                                            "block: every token's data, then every token's "
                                            "scales) or interleaved (per token: its data, "
                                            "then its own scales; vLLM 0.33.0's 528 B "
                                            "record)."
                                        ),
                                    ),
                                    Field(
                                        "rope_contraction",
                                        _CONTRACTION,
                                        doc=(
                                            "fma: even = fma(x_even, cos, -RN(x_odd*sin)), "
                                            "odd = fma(x_even, sin, RN(x_odd*cos)), as vLLM "
                                            "0.33.0's compiled kernels; none: every product "
                                            "and sum rounded on its own."
                                        ),
                                    ),
                                    Field(
                                        "round_before_quantize",
                                        Enum(values=("input_dtype", "none")),
                                        doc=(
                                            "input_dtype: the values quantized to e4m3 are "
                                            "first rounded to the kv dtype (vLLM 0.33.0: fp32"
                                            " -> bf16 -> e4m3); none: quantized from fp32."
                                        ),
                                    ),
                                    Field(
                                        "amax_floor",
                                        OneOf(
                                            options=(
                                                Enum(values=("fp32_tiny",)),
                                                Num(
                                                    exclusive_minimum=0,
                                                    maximum=448,
                                                    range=(
                                                        "a block amax floor above e4m3's "
                                                        "largest value, 448, would scale "
                                                        "every block below it"
                                                    ),
                                                ),
                                            )
                                        ),
                                        doc=(
                                            "Block-scaled formats: the block amax is raised "
                                            "to at least this fp32 value before the UE8M0 "
                                            "exponent is taken (vLLM 0.33.0: 1.0e-4)."
                                        ),
                                    ),
                                    Field(
                                        "per_tensor_scaling",
                                        Enum(values=("reciprocal_multiply", "divide")),
                                        doc=(
                                            "Per-tensor fp8: x * RN(1 / scale) (vLLM 0.33.0) "
                                            "or the IEEE quotient RN(x / scale)."
                                        ),
                                    ),
                                    Field(
                                        "infinite_amax",
                                        Enum(values=("nan_scale", "largest_scale")),
                                        doc=(
                                            "Block-scaled formats, a block whose amax is +-Inf: "
                                            "nan_scale stores scale byte 255 and multiplies by "
                                            "exp2(-inf) = 0, so finite values store +-0 and "
                                            "infinities NaN (vLLM 0.33.0); largest_scale stores "
                                            "the byte of inf's exponent field, so infinities "
                                            "saturate to +-fp8_max."
                                        ),
                                    ),
                                    Field(
                                        "fp8_nan",
                                        Enum(values=("negative_max", "e4m3_nan")),
                                        doc=(
                                            "Formats with e4m3 values, a NaN value: negative_max "
                                            "saturates fminf(fmaxf(x, -fp8_max), fp8_max), so NaN "
                                            "stores -fp8_max (0xFE; vLLM 0.33.0); e4m3_nan stores "
                                            "the conversion's NaN (0x7F). NaN takes no part in a "
                                            "block amax either way (fmaxf)."
                                        ),
                                    ),
                                ),
                            ),
                            min_properties=1,
                            entry=(
                                breaking("KV cache format removed", Change.REMOVED, below=True),
                            ),
                        ),
                        required=True,
                    ),
                    Field(
                        "q_rope_contraction",
                        _CONTRACTION,
                        doc=("How the Q rows' RoPE rounds (see cache_formats.*.rope_contraction)."),
                        required=True,
                    ),
                    Field(
                        "packed_cache_format",
                        Obj(
                            fields=(
                                Field(
                                    "by_capability_family",
                                    Map(keys=Enum(values=CAPABILITY_FAMILIES), values=Str()),
                                    required=True,
                                ),
                                Field("default", Str()),
                            )
                        ),
                        doc=(
                            "Which packed cache format (a key of cache_formats) each "
                            "capability family uses; required when the variant has a packed "
                            "format (fp8_ds_mla, mxfp8), with a default."
                        ),
                    ),
                    Field(
                        "q_rms_norm",
                        Enum(values=("fma_rsqrt", "exact")),
                        doc=(
                            "How the Q RMSNorm rounds. fma_rsqrt (vLLM 0.33.0): s = x0*x0, s "
                            "= fma(xi, xi, s) per lane in order, a butterfly of adds, x * "
                            "rsqrtf(fma(s, 1/head_dim, eps)) with the GPU's approximate "
                            "rsqrt; exact: every square and sum rounded, the correctly "
                            "rounded 1/sqrt(s/head_dim + eps)."
                        ),
                        required=True,
                    ),
                )
            ),
        ),
    )
)

_REVIEW = Obj(
    fields=(
        Field(
            "accepted_breaking_changes",
            List(
                items=Obj(
                    fields=(
                        Field(
                            "change",
                            Str(min_length=1),
                            doc=(
                                "The change id `dsv41gen diff` prints: '<variant>:<field "
                                "path>:<added|removed|changed>', or '<variant>:<field path>'."
                            ),
                            required=True,
                        ),
                        Field(
                            "reason",
                            # bounded: it is shown in the review comment's table
                            Str(min_length=10, max_length=300),
                            doc="Why the break is acceptable (at most 300 characters).",
                            required=True,
                        ),
                    )
                )
            ),
        ),
    )
)

# A path into the engine config an architecture hook is handed (vLLM's VllmConfig):
# `model_config.hf_text_config.hc_count`, `parallel_config.pipeline_parallel_size`. A step
# through an unset value reads as unset.
_ENGINE_PATH = Str(pattern=anchored(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*"))

# A hook compares an engine setting with a literal: an integer the generated rules table holds
# as a Python int, bounded to 64 bits like the HF config's values.
_HOOK_SCALAR = {
    "type": ["integer", "string", "boolean"],
    "minimum": -9223372036854775808,
    "maximum": 9223372036854775807,
    "x-range": "a 64-bit integer",
}
_HOOK_INT = Int(minimum=-9223372036854775808, maximum=9223372036854775807, range="a 64-bit integer")

_HOOK_TEST_FIELDS = (
    Field("path", _ENGINE_PATH, doc="The value tested (with one comparison below)."),
    Field("eq", Raw(schema_=_HOOK_SCALAR), doc="Equal to."),
    Field("ne", Raw(schema_=_HOOK_SCALAR), doc="Not equal to."),
    Field("lt", _HOOK_INT, doc="Below."),
    Field("le", _HOOK_INT, doc="At most."),
    Field("gt", _HOOK_INT, doc="Above."),
    Field("ge", _HOOK_INT, doc="At least."),
    Field("in", List(items=Str(), min_items=1), doc="One of."),
    Field("not_in", List(items=Str(), min_items=1), doc="None of."),
    Field("set", Bool(), doc="true: the value is set (not None); false: it is unset."),
    Field("truthy", Bool(), doc="true: the value is truthy (bool(value)); false: falsy."),
    Field(
        "platform",
        Enum(values=("cuda_alike", "cuda", "rocm")),
        doc="The engine's current platform is of this kind (instead of a path).",
    ),
)

_HOOK_TEST = Obj(
    fields=(
        *_HOOK_TEST_FIELDS,
        Field(
            "any",
            List(items=Obj(fields=_HOOK_TEST_FIELDS), min_items=2, max_items=16),
            doc="Holds when one of these tests holds (instead of a path or platform).",
        ),
    )
)

_HOOK_RULE = Obj(
    fields=(
        Field(
            "when",
            List(items=_HOOK_TEST, min_items=1, max_items=16),
            doc="The rule acts when every test holds (unset: always), e.g. `[{path: "
            "parallel_config.pipeline_parallel_size, gt: 1}]`.",
        ),
        Field(
            "refuse",
            Obj(
                fields=(
                    Field(
                        "error",
                        Enum(values=("ValueError", "NotImplementedError")),
                        required=True,
                        doc="The exception type the engine raises.",
                    ),
                    Field("message", Str(min_length=1), required=True, doc="Its exact words."),
                )
            ),
            doc="Raise (a validation rule).",
        ),
        Field(
            "pop_keys",
            Obj(
                fields=(
                    Field(
                        "from",
                        List(items=_ENGINE_PATH, min_items=1),
                        required=True,
                        doc="Mappings to pop from (an unset one is skipped).",
                    ),
                    Field("keys", List(items=Str(min_length=1), min_items=1), required=True),
                )
            ),
            doc="Remove keys from config mappings (a rewrite rule), e.g. RoPE fields.",
        ),
        Field(
            "default_setting",
            Obj(
                fields=(
                    Field("setting", _ENGINE_PATH, required=True, doc="The engine setting."),
                    Field(
                        "unset",
                        Str(min_length=1),
                        required=True,
                        doc="The setting's value that means not chosen (`auto`).",
                    ),
                    Field(
                        "source",
                        _ENGINE_PATH,
                        required=True,
                        doc="The config field that fills an unchosen setting when set.",
                    ),
                    Field(
                        "warning",
                        Str(min_length=1),
                        doc="Logged when both are set and differ (the setting wins); "
                        "`{source}` and `{setting}` stand for the two values.",
                    ),
                )
            ),
            doc="Fill an engine setting from the model's config (a rewrite rule).",
        ),
    )
)

_CONFIG_HOOKS = Obj(
    fields=(
        Field(
            "rules",
            Map(keys=Str(pattern=SNAKE_CASE), values=_HOOK_RULE),
            doc="Named rules, each one action (refuse, pop_keys or default_setting).",
            required=True,
        ),
        Field(
            "architectures",
            Map(
                keys=Str(pattern=IDENTIFIER),
                values=List(items=Str(pattern=SNAKE_CASE), max_items=32, unique=True),
            ),
            doc="Per architecture, the rules its engine config hook runs, in order (vLLM: "
            "MODELS_CONFIG_MAP[architecture].verify_and_update_config); an architecture not "
            "listed has no hook.",
            required=True,
        ),
    )
)

SPEC = Obj(
    fields=(
        Field("spec_version", Const(value=1), doc="Version of the spec language.", required=True),
        Field(
            "extends", Str(), doc="Parent spec file, relative to this file (no '..', not absolute)."
        ),
        Field(
            "engine",
            Str(pattern=anchored(r"vllm==[0-9]+\.[0-9]+\.[0-9]+")),
            doc=(
                "The inference engine release this spec describes, as a pip requirement "
                "(`vllm==0.33.0`). The generated vLLM plugin refuses to load on any other "
                "release. Inherited by child specs."
            ),
        ),
        Field(
            "variant",
            _VARIANT,
            required=True,
            review=(breaking("variant removed", Change.REMOVED),),
        ),
        Field(
            "architectures",
            _ARCHITECTURES,
            doc="Architecture name (HF `architectures` entry) -> registry entry.",
            required=True,
        ),
        Field("checkpoint", _CHECKPOINT),
        Field(
            "hf_config",
            _HF_CONFIG,
            doc="HF config fields this family reads, with a reference checkpoint's values.",
            review=(cosmetic("reference checkpoint config value", below=True),),
        ),
        Field("speculative", _SPECULATIVE, required=True),
        Field("attention_backends", _ATTENTION_BACKENDS),
        Field("kv_cache", _KV_CACHE),
        Field(
            "config_hooks",
            _CONFIG_HOOKS,
            doc="The engine's per-architecture config hooks, as rewrite and validation rules; "
            "generated: `config_hooks.verify_and_update_config(architecture, vllm_config)`.",
            review=(behaviour("config hook changed", below=True),),
        ),
        Field("runner", _RUNNER),
        Field("quantization", _QUANTIZATION),
        Field("kernels", _KERNELS),
        Field(
            "review",
            _REVIEW,
            doc=(
                "Review bookkeeping: breaking changes accepted on purpose (see `dsv41gen diff "
                "--against`)."
            ),
            review=(cosmetic("review waivers", below=True),),
        ),
        Field(
            "license_header",
            List(
                items=Str(
                    pattern=anchored(r"([^\u0000-\u001f\u007f]*[^\u0000-\u001f\u007f\\])?"),
                    max_length=200,
                ),
                max_items=8,
            ),
            doc=(
                "Lines put at the top of every generated file, before dsv41gen's own header, "
                "each as a comment (for a license check such as vLLM's SPDX hook), e.g. "
                "['SPDX-License-Identifier: Apache-2.0']. One line each: no control "
                "characters, no trailing backslash (it would continue a C++ comment). A "
                "family's files share one header: set it in the root spec."
            ),
        ),
    )
)
