"""Where vLLM 0.33.0 keeps the things generated code binds to.

These are facts about the engine, not about a model variant, so they live here rather than in
every spec. The generated ``_binding.py`` imports them when vLLM is importable and defines
stand-ins with the same names and behaviour otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.engine_facts import VLLM_VERSION

__all__ = ["VLLM_VERSION"]  # the fact lives in spec/engine_facts.py; planners import it here


@dataclass(frozen=True)
class EngineImport:
    module: str
    name: str


MODEL_REGISTRY = EngineImport("vllm", "ModelRegistry")
CURRENT_PLATFORM = EngineImport("vllm.platforms", "current_platform")
CUDA_GRAPH_MODE = EngineImport("vllm.config.compilation", "CUDAGraphMode")
KV_SPEC_MODULE = "vllm.v1.kv_cache_interface"
# supported_kv_cache_layouts() returns members of this enum (vllm/v1/attention/backend.py).
KV_CACHE_LAYOUT = EngineImport("vllm.v1.kv_cache_layout", "KVCacheLayout")


# The vLLM 0.33.0 functions the generated plugin hooks. Each is a fact about the engine (where
# the function lives, how it is bound, its parameters), checked at plugin load: a vLLM whose
# function is missing or takes other parameters is not the engine the spec was written for.
ENGINE_DISTRIBUTION = "vllm"


@dataclass(frozen=True)
class EngineFunction:
    module: str
    # the class that defines the function; "": a module-level function (static True) or a
    # module-level table, a dict (static False)
    owner: str
    attribute: str
    static: bool  # a staticmethod (True) or a plain method taking self (False)
    parameters: tuple[str, ...]  # inspect.signature(...).parameters, in order

    @property
    def qualified(self) -> str:
        return ".".join(p for p in (self.module, self.owner, self.attribute) if p)


# Builds every draft's HF config; rewrites a target-checkpoint (MTP) draft's model_type,
# architectures and n_predict (vllm/config/speculative.py).
DRAFT_HF_CONFIG_OVERRIDE = EngineFunction(
    "vllm.config.speculative",
    "SpeculativeConfig",
    "hf_config_override",
    True,
    ("hf_config", "transformers_mtp_overrides"),
)
# Detects the method, builds the draft ModelConfig, rewrites DSpark drafts, sets the draft's
# quantization and resolves num_speculative_tokens (vllm/config/speculative.py).
SPECULATIVE_CONFIG_POST_INIT = EngineFunction(
    "vllm.config.speculative", "SpeculativeConfig", "__post_init__", False, ("self",)
)
# Resolves the final cudagraph mode and the model runner, then validates them
# (vllm/config/vllm.py); the last word on both.
VLLM_CONFIG_POST_INIT = EngineFunction(
    "vllm.config.vllm", "VllmConfig", "__post_init__", False, ("self",)
)
# model_type -> HF config class, consulted before transformers' AutoConfig
# (vllm/transformers_utils/config.py): a model_type neither knows cannot be loaded at all.
HF_CONFIG_REGISTRY = EngineFunction(
    "vllm.transformers_utils.config", "", "_CONFIG_REGISTRY", False, ()
)
# Out-of-tree architectures enter the registry here (vllm/model_executor/models/registry.py).
REGISTER_MODEL = EngineFunction(
    "vllm.model_executor.models.registry",
    "_ModelRegistry",
    "register_model",
    False,
    ("self", "model_arch", "model_cls"),
)


@dataclass(frozen=True)
class UnhookableSite:
    """A vLLM 0.33.0 site a spec section describes, but no plugin can replace: why not."""

    where: str
    reason: str


KV_STATE_BUCKET = UnhookableSite(
    "vllm.v1.core.kv_cache_planning._get_packed_kv_cache_groups.<locals>.is_state_bucket",
    "a closure over repeats_per_group, rebuilt on every call of _get_packed_kv_cache_groups; "
    "no module or class attribute holds it, so nothing can be replaced",
)
COMPRESS_RATIO_CHECK = UnhookableSite(
    "vllm.models.deepseek_v4.compressor.CompressorStateCache.__init__; "
    "vllm.models.deepseek_v41.attention.DeepseekV4Attention.__init__",
    "inline statements in layer constructors that also build the layer; replacing the "
    "check means replacing the constructor, i.e. copying vLLM's model code",
)
# The layer of each model package that picks the indexer backend class (by its own flags:
# rocm_mxfp4, sparse_logits), keyed by the module an architecture entry names.
INDEXER_BACKEND_CHOICE: dict[str, EngineFunction] = {
    package: EngineFunction(
        f"{package}.attention", "DeepseekV4IndexerCache", "get_attn_backend", False, ("self",)
    )
    for package in ("vllm.models.deepseek_v4", "vllm.models.deepseek_v41")
}
SPARSE_MLA_BACKENDS = UnhookableSite(
    "vllm.v1.attention.backends.mla.* (FLASHMLA_SPARSE_*, FLASHINFER_MLA_SPARSE_*, ...)",
    "chosen by registered name through vLLM's attention selector; the spec names these "
    "backends, their block sizes and vLLM's classes (class_path), but declares no class of "
    "its own, so there is nothing to put in their place",
)
# Which attention backend a DSpark draft gets when the user names none: the target's for
# drafts whose layers share its KV layout (v1/worker/gpu/spec_decode/dspark/utils.py, a
# module function its caller looks up in the module at each call).
DSPARK_ATTENTION_BACKEND = EngineFunction(
    "vllm.v1.worker.gpu.spec_decode.dspark.utils",
    "",
    "_resolve_dspark_attention_backend",
    True,
    ("draft_model_config", "draft_backend", "target_backend"),
)
EAGLE_STYLE_FALLBACK = UnhookableSite(
    "(no function in vLLM 0.33.0)",
    "the older _is_deepseek_v4_eagle is gone; 0.33.0 asks nothing about an eagle-style "
    "fallback for this family",
)


# vllm/config/speculative.py: MTPModelTypes, the MTP draft model_types; SpeculativeConfig's
# __post_init__ rewrites every one but "mtp" itself to "mtp" (logging that it is deprecated).
MTP_MODEL_TYPES = (
    "deepseek_mtp", "dots3_note_mtp", "mimo_mtp", "mimo_v2_mtp", "glm4_moe_mtp",
    "glm4_moe_lite_mtp", "glm_ocr_mtp", "ernie_mtp", "nemotron_h_mtp", "exaone_moe_mtp",
    "exaone4_5_mtp", "qwen3_next_mtp", "qwen4_exp_mtp", "qwen3_5_mtp", "longcat_flash_mtp",
    "bailing_hybrid_v3_mtp", "minimax_m3_mtp", "bailing_hybrid_mtp", "mtp", "kimi_k3_mtp",
    "pangu_ultra_moe_mtp", "step3p5_mtp", "step5_mtp", "hy_v3_mtp", "hy_v4_mtp", "gemma4_mtp",
    "inkling_mtp", "glm5_next_mtp",
)  # fmt: skip
# SpeculativeMethod, the type of SpeculativeConfig.method, flattened in its order: pydantic
# rejects any other name (a literal_error on `method`) before __post_init__ runs.
METHODS_BEFORE_MTP = (
    "ngram", "draft_model", "suffix", "custom_class", "eagle", "eagle3", "extract_hidden_states",
)  # fmt: skip
METHODS_AFTER_MTP = ("dflash", "ngram_gpu", "dspark")
SPECULATIVE_METHODS = METHODS_BEFORE_MTP + MTP_MODEL_TYPES + METHODS_AFTER_MTP
# The pydantic dataclass whose `method` field rejects the name (the error's title).
SPECULATIVE_CONFIG_TITLE = "SpeculativeConfig"


@dataclass(frozen=True)
class EngineSet:
    """An engine-wide set of architecture names that changes what the engine does for its
    members (architectures.<name>.engine_sets). ``attribute`` is a module-level frozenset the
    plugin widens, or, with ``reader``, a module function that returns the set in force on the
    platform (``platform``: the one where its answer is this set; "" for every other), or,
    with ``predicate``, a module function of the VllmConfig that answers whether the model's
    architectures meet the set (its members spelled inline), on that platform only."""

    module: str
    attribute: str
    reader: bool
    platform: str
    what: str  # what membership does, for explain and docs
    predicate: bool = False


# vLLM 0.33.0's sets keyed on the architecture name (the schema's engine_sets enum; a third
# family picks its memberships from the same names).
ENGINE_SETS: dict[str, EngineSet] = {
    # config/vllm.py: VllmConfig turns VLLM_USE_BREAKABLE_CUDAGRAPH on for these (the model runs
    # without torch.compile's piecewise graphs); read through an lru_cache'd function
    "breakable_cudagraph": EngineSet(
        "vllm.config.vllm",
        "default_breakable_cudagraph_architectures",
        True,
        "",
        "breakable CUDA graphs by default (VLLM_USE_BREAKABLE_CUDAGRAPH=1)",
    ),
    # the same function's answer on ROCm: a set of its own (a literal inside the function)
    "breakable_cudagraph_rocm": EngineSet(
        "vllm.config.vllm",
        "default_breakable_cudagraph_architectures",
        True,
        "rocm",
        "breakable CUDA graphs by default on ROCm",
    ),
    # config/kernel.py: the MoE backends that may use FlashInfer's expert parallelism
    "flashinfer_moe_ep": EngineSet(
        "vllm.config.kernel",
        "FLASHINFER_MOE_EP_ARCHITECTURES",
        False,
        "",
        "FlashInfer MoE expert parallelism allowed",
    ),
    # v1/attention/backends/mla/indexer.py: `"X" in model_config.architectures or ...` under
    # current_platform.is_rocm(); _use_flattening asks it when adaptive verification is on
    "rocm_flattened_query_lens": EngineSet(
        "vllm.v1.attention.backends.mla.indexer",
        "_rocm_supports_flattened_device_query_lens",
        False,
        "rocm",
        "on ROCm with adaptive verification, flattened decode queries with device query lens "
        "(full CUDA graphs for the indexer)",
        predicate=True,
    ),
}

# vllm/transformers_utils/config.py get_hf_text_config: a config whose get_text_config() is a
# sub-config without num_attention_heads (a text-only config class keeping a nested
# text_config as a plain dict) is refused with these words.
TEXT_CONFIG_WITHOUT_HEADS = (
    "The text_config extracted from the model config does not have `num_attention_heads` "
    "attribute. This indicates a mismatch between the model config and vLLM's expectations. "
    "Please ensure that the model config is compatible with vLLM."
)

# How vLLM 0.33.0 picks the general plugins it loads (vllm/plugins/__init__.py
# load_plugins_by_group, vllm/envs.py): every entry point of the group whose name is in
# VLLM_PLUGINS split on ",", or every one when the variable is unset; the generated
# plugin_status module answers the same way without importing vLLM.
GENERAL_PLUGINS_GROUP = "vllm.general_plugins"
PLUGINS_VARIABLE = "VLLM_PLUGINS"
PLUGINS_SEPARATOR = ","
# Every group vLLM 0.33.0 filters by VLLM_PLUGINS (load_plugins_by_group's callers, and the
# endpoint plugins, loaded only when named there).
PLUGIN_GROUPS = (
    GENERAL_PLUGINS_GROUP,
    "vllm.platform_plugins",
    "vllm.io_processor_plugins",
    "vllm.stat_logger_plugins",
    "vllm.endpoint_plugins",
)

# vllm/utils/torch_utils.py STR_DTYPE_TO_TORCH_DTYPE: a cache dtype setting -> the torch dtype
# (by name) the engine allocates; get_kv_cache_torch_dtype raises "Invalid kv cache dtype: x"
# for any other setting, and "auto" takes the model dtype.
STR_DTYPE_TO_TORCH_DTYPE = {
    "float32": "float32", "half": "float16", "float16": "float16", "bfloat16": "bfloat16",
    "float": "float32", "fp8": "uint8", "fp8_e4m3": "uint8", "fp8_e5m2": "uint8",
    "int8": "int8", "int4_per_token_head": "uint8", "int8_per_token_head": "int8",
    "fp8_per_token_head": "uint8", "fp8_inc": "float8_e4m3fn", "fp8_ds_mla": "uint8",
    "nvfp4_ds_mla": "uint8", "turboquant_k8v4": "uint8", "turboquant_4bit_nc": "uint8",
    "turboquant_k3v4_nc": "uint8", "turboquant_3bit_nc": "uint8", "octave_k3v4": "uint8",
    "octave_k3v3": "uint8", "octave_k3v3_compact": "uint8", "ultraquant_4bit": "uint8",
    "nvfp4": "uint8", "nvfp4_4over6": "uint8",
}  # fmt: skip
