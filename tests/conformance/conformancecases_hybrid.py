"""The hybrid family's conformance matrices, generated from the specs (never from the
generated code): the MTP draft rewrite, the config hooks, the linear-attention state and the MTP
draft's checkpoint names (sites in driver_hybrid.py).

A variant takes part when its reference hf_config has linear-attention layers
(``layer_types`` naming ``linear_attention``); its model types are its ``model_type`` and its
aliases. The inputs vary each field vLLM 0.33.0 reads; the expected values are vLLM's.
"""

from __future__ import annotations

import itertools

from conformancecases import families, hf_config

from dsv41gen.spec.model import Method, RegistryTable

# The fields the MTP rewrite reads, each absent, at the top level or in text_config.
DRAFT_SOURCE_FIELDS = {
    "mtp_num_hidden_layers": 2,
    "num_nextn_predict_layers": 3,
    "hc_count": 4,
    "index_share_for_mtp_iteration": True,
}
PLACES = ("absent", "top", "text")


def hybrid_variants():
    """(family, variant) of each variant whose reference config has linear-attention layers."""
    for family in families():
        for variant in family.variants:
            if "linear_attention" in (dict(variant.hf_config).get("layer_types") or ()):
                yield family, variant


def model_types(variant) -> list[str]:
    return [variant.model_type, *getattr(variant, "model_type_aliases", ())]


def _base_config(variant) -> dict:
    arch = variant.architectures[0].name
    config = hf_config(variant, arch)
    for name in DRAFT_SOURCE_FIELDS:
        config.pop(name, None)
    config.pop("text_config", None)
    return config


def _placed(base: dict, places: dict[str, str]) -> dict:
    config = dict(base)
    # the text_config's own model type is its class's (qwen3_5_text under qwen3_5)
    text = {k: v for k, v in config.items() if k not in ("architectures", "model_type")}
    nested = False
    for name, place in places.items():
        if place == "top":
            config[name] = DRAFT_SOURCE_FIELDS[name]
        elif place == "text":
            text[name] = DRAFT_SOURCE_FIELDS[name]
            nested = True
    if nested:
        config["text_config"] = text
    return config


def draft_rewrite_cases() -> dict[str, dict]:
    """Every hybrid variant with an MTP draft x each of its model types x each source field
    absent / top-level / in text_config."""
    cases: dict[str, dict] = {}
    for family, variant in hybrid_variants():
        if not any(m.method is Method.MTP for m in variant.methods):
            continue
        base = _base_config(variant)
        for model_type in model_types(variant):
            for choice in itertools.product(PLACES, repeat=len(DRAFT_SOURCE_FIELDS)):
                places = dict(zip(DRAFT_SOURCE_FIELDS, choice, strict=True))
                config = _placed(base, places) | {"model_type": model_type}
                label = ",".join(f"{k}={v}" for k, v in places.items())
                cases[f"{variant.name}:{model_type}:{label}"] = {
                    "package": family.name,
                    "hf_config": config,
                }
    return cases


HOOK_DEVICES = {
    "cuda9.0": {"platform": "CUDA", "capability": [9, 0]},
    "rocm9.4": {"platform": "ROCM", "capability": [9, 4]},
    "cpu": {"platform": "CPU", "capability": None},
}
ENGINE_DEFAULT = {
    "mamba_ssm_cache_dtype": "auto",
    "multimodal": False,
    "language_model_only": False,
    "use_sequence_parallel_moe": False,
    "pipeline_parallel_size": 1,
    "enable_dbo": False,
    "ubatch_size": 1,
    "speculative_method": None,
}
# One engine setting changed at a time, and the pairs vLLM's rules combine.
ENGINE_CHANGES = {
    "default": {},
    "ssm=float32": {"mamba_ssm_cache_dtype": "float32"},
    "ssm=bfloat16": {"mamba_ssm_cache_dtype": "bfloat16"},
    "mm": {"multimodal": True},
    "mm+lmo": {"multimodal": True, "language_model_only": True},
    "sp_moe": {"use_sequence_parallel_moe": True},
    "sp_moe+pp2": {"use_sequence_parallel_moe": True, "pipeline_parallel_size": 2},
    "pp2": {"pipeline_parallel_size": 2},
    "dbo": {"enable_dbo": True},
    "ubatch2": {"ubatch_size": 2},
    "mtp": {"speculative_method": "mtp"},
    "ngram": {"speculative_method": "ngram"},
    "ngram_gpu": {"speculative_method": "ngram_gpu"},
    "eagle3": {"speculative_method": "eagle3"},
}
# The text-config fields the hooks read, per config shape.
TEXT_CHANGES = {
    "plain": {},
    "ssm_dtype": {"mamba_ssm_dtype": "float32"},
    "hc1": {"hc_count": 1},
    "ple": {"ple_layer_ids": [1]},
    "qsa": {"indexer_n_heads": 4},
}
ROPE = {"rope_type": "default", "mrope_section": [2, 1, 1], "mrope_interleaved": True}


def _hook_config(variant, arch: str, text_change: dict, nested: bool) -> dict:
    config = hf_config(variant, arch)
    text = {"hc_count": 4, "ple_layer_ids": [], "rope_parameters": dict(ROPE)}
    text = {**text, **{k: v for k, v in config.items() if k in text}, **text_change}
    if not nested:
        return config | text
    config.pop("rope_parameters", None)
    return config | {"text_config": text, "vision_config": {}, "rope_parameters": dict(ROPE)}


# The text-config fields that meet an engine setting in one of vLLM's rules: each such text
# change runs with those settings only (the SSM dtype meets every setting).
TEXT_MEETS = {
    "plain": tuple(ENGINE_CHANGES),
    "ssm_dtype": tuple(ENGINE_CHANGES),
    "hc1": ("default", "mm+lmo", "mtp"),
    "ple": ("default", "pp2", "dbo", "ubatch2", "sp_moe+pp2"),
    "qsa": ("default", "pp2", "dbo", "ubatch2"),
}
# The device matters to one rule only (MoE SP is refused on CUDA and ROCm alike).
DEVICE_MEETS = {"default", "sp_moe+pp2"}


def config_hook_cases() -> dict[str, dict]:
    """Every architecture of every hybrid variant x text-only / nested config x each text field
    the hooks read, with the engine settings it meets x device where the device matters."""
    cases: dict[str, dict] = {}
    for family, variant in hybrid_variants():
        for arch in variant.architectures:
            for nested in (False, True):
                for text_id, engine_ids in TEXT_MEETS.items():
                    config = _hook_config(variant, arch.name, TEXT_CHANGES[text_id], nested)
                    for engine_id in engine_ids:
                        devices = HOOK_DEVICES if engine_id in DEVICE_MEETS else ("cuda9.0",)
                        for device_id in devices:
                            shape = "nested" if nested else "flat"
                            name = f"{arch.name}:{shape}:{text_id}:{engine_id}@{device_id}"
                            cases[name] = {
                                "package": family.name,
                                "architecture": arch.name,
                                "hf_config": config,
                                "engine": {**ENGINE_DEFAULT, **ENGINE_CHANGES[engine_id]},
                                "device": HOOK_DEVICES[device_id],
                            }
    return cases


# The shape's inputs and the dtypes' inputs are independent in vLLM's calculators: each group
# is crossed in full with the other group at its first value.
STATE_SHAPE = {
    "tp_size": (1, 2, 4, 3),  # 3 divides no head count of a shipped config: vLLM's assertion
    "num_speculative_tokens": (0, 1, 3),
    "conv_state_layout": ("SD", "DS"),
}
STATE_DTYPE = {
    "model_dtype": ("bfloat16", "float16"),
    "mamba_cache_dtype": ("auto", "float32"),
    "mamba_ssm_cache_dtype": ("auto", "float32", "bfloat16"),
}
GDN_FIELDS = (
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
)


def _state_engines():
    first = {k: v[0] for group in (STATE_SHAPE, STATE_DTYPE) for k, v in group.items()}
    for group in (STATE_SHAPE, STATE_DTYPE):
        for values in itertools.product(*group.values()):
            yield {**first, **dict(zip(group, values, strict=True))}


def linear_attention_state_cases() -> dict[str, dict]:
    """Every hybrid variant's reference GDN dimensions x (tensor parallel size x speculative
    tokens x conv-state layout) and x (model x conv x SSM dtype)."""
    cases: dict[str, dict] = {}
    for family, variant in hybrid_variants():
        reference = dict(variant.hf_config)
        text = {name: reference[name] for name in GDN_FIELDS if name in reference}
        for engine in _state_engines():
            label = ",".join(f"{v}" for v in engine.values())
            cases[f"{variant.name}:{label}"] = {
                "package": family.name,
                "hf_text_config": text,
                "engine": engine,
            }
    return cases


# Checkpoint names each MTP draft loader could meet: its own stage, the target's layers, the
# shared embedding and head under every prefix a Qwen checkpoint uses, and names with `mtp.`
# inside (vLLM's str.replace renames every occurrence).
CHECKPOINT_NAMES = (
    "mtp.layers.0.mlp.gate.weight",
    "mtp.fc.weight",
    "mtp.pre_fc_norm_embedding.weight",
    "mtp.norm.weight",
    "mtp.layers.0.mtp.weight",
    "model.mtp.layers.0.input_layernorm.weight",
    "model.embed_tokens.weight",
    "model.language_model.embed_tokens.weight",
    "language_model.embed_tokens.weight",
    "embed_tokens.weight",
    "lm_head.weight",
    "model.lm_head.weight",
    "mtp.shared_head.head.weight",
    "model.layers.0.self_attn.q_proj.weight",
    "model.language_model.layers.0.linear_attn.A_log",
    "visual.blocks.0.attn.qkv.weight",
    "mtp.layers.0.hyper_connection_mixer.block_inject_weight",
    # Qwen4Exp's prefix steps, alone and stacked
    "model.language_model.mtp.layers.0.fc.weight",
    "language_model.model.mtp.fc.weight",
    "model.language_model.language_model.embed_tokens.weight",
    "model.shared_head.head.weight",
    "shared_head.head.weight",
    "language_model.lm_head.weight",
    "model.mtp.shared_head.head.weight",
    "mtp.shared_head.head.mtp.weight",
    "language_model.embed_tokens.mtp.weight",
    "norm.weight",
)
# The drafts whose checkpoint names are compared: Qwen3NextMTP's module imports in the CPU
# conformance venv; the others' name-mapping code is compiled from the wheel's source alone
# (driver_hybrid.py's _LIFTED_DRAFTS says why). A draft in neither is listed, not compared.
IMPORTABLE_DRAFTS = ("Qwen3NextMTP", "Qwen3_5MTP", "Qwen3_5MoeMTP", "Qwen4ExpMTP")


def draft_architectures() -> list[tuple[str, str]]:
    return [
        (family.name, arch.name)
        for family, variant in hybrid_variants()
        for arch in variant.architectures
        if arch.registry is RegistryTable.SPECULATIVE_DECODING
    ]


def draft_checkpoint_cases() -> dict[str, dict]:
    return {
        arch: {"package": package, "architecture": arch, "names": list(CHECKPOINT_NAMES)}
        for package, arch in draft_architectures()
        if arch in IMPORTABLE_DRAFTS
    }
