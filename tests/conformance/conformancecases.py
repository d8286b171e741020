"""The conformance matrices, generated from the specs (never from the generated code).

Each function returns ``{case_id: case}``; a case is plain JSON that ``driver.py`` runs in the
vLLM venv. A new variant, architecture, backend or method in ``specs/`` adds cases here
without new test code.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from dsv41gen.commands.pipeline import load_families
from dsv41gen.spec.model import (
    CapabilityFamily,
    CudaGraphMode,
    Family,
    Method,
    ModelRunner,
    RegistryTable,
    Variant,
)

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


@cache
def families() -> tuple[Family, ...]:
    return tuple(f.family for f in load_families(sorted(SPECS.glob("*.yaml"))))


def registry_cases() -> dict[str, dict]:
    """Every architecture of every variant: its table and (module, class) in vLLM's registry,
    and its resolution through vLLM's ModelRegistry once the plugin registered it."""
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            for arch in variant.architectures:
                cases[f"{variant.name}:{arch.name}"] = {
                    "package": family.name,
                    "architecture": arch.name,
                    "table": arch.registry.dict_name,
                }
    return cases


# Devices the backend matrix pretends to be: every capability family the spec language knows,
# at minor 0 and 5 (a family is every <major>.x), two ROCm devices (MI300 reports 9.4, MI355
# 9.5), and a machine without a GPU.
def devices() -> dict[str, dict]:
    found = {}
    for family in CapabilityFamily:
        major = int(family.value.removeprefix("sm")) // 10
        for minor in (0, 5):
            found[f"cuda{major}.{minor}"] = {"platform": "CUDA", "capability": [major, minor]}
    found["rocm9.4"] = {"platform": "ROCM", "capability": [9, 4]}
    found["rocm9.5"] = {"platform": "ROCM", "capability": [9, 5]}
    found["cpu"] = {"platform": "CPU", "capability": None}
    return found


def backend_cases() -> dict[str, dict]:
    """Every attention backend of every variant on every device."""
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            for backend in variant.backends:
                for device_id, device in devices().items():
                    cases[f"{backend.key}@{device_id}"] = {
                        "package": family.name,
                        "key": backend.key,
                        "name": backend.name,
                        "kind": backend.kind.value,
                        "device": device,
                        # sparse_mla: the class path the spec states (kv-tree emit writes it)
                        "class_path": getattr(backend, "class_path", None),
                    }
    return cases


def hf_config(variant: Variant, architecture: str, **changes: object) -> dict:
    """A config.json for the target: the spec's model_type and reference hf_config values, plus
    the few dimensions a ModelConfig needs to build (no weights are ever read)."""
    config: dict = {
        "model_type": variant.model_type,
        "architectures": [architecture],
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "vocab_size": 1024,
        "max_position_embeddings": 4096,
        "torch_dtype": "bfloat16",
        "hidden_size": 256,
        "num_hidden_layers": 2,
    }
    config.update(dict(variant.hf_config))
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return config


def target_architectures(variant: Variant) -> list[str]:
    return [
        a.name
        for a in variant.architectures
        if a.registry in (RegistryTable.TEXT_GENERATION, RegistryTable.MULTIMODAL)
    ]


def runner_cases() -> dict[str, dict]:
    """Every target architecture x model runner x cudagraph mode x (no speculation, or each
    allowed method, with and without adaptive verification)."""
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            speculation = [(None, False)] + [
                (m.method.value, av) for m in variant.methods for av in (False, True)
            ]
            for arch in target_architectures(variant):
                for runner in ModelRunner:
                    for mode in CudaGraphMode:
                        for method, av in speculation:
                            name = (
                                f"{arch}:{runner.value}:{mode.value}:{method}{'+av' if av else ''}"
                            )
                            cases[name] = {
                                "package": family.name,
                                "variant": variant.name,
                                "architecture": arch,
                                "hf_config": hf_config(variant, arch),
                                "model_runner": runner.value,
                                "cudagraph_mode": mode.value,
                                "method": method,
                                "adaptive_verification": av,
                            }
    return cases


def plugin_cases() -> dict[str, dict]:
    """Every architecture of every family, targets and drafts."""
    return {
        arch.name: {
            "package": family.name,
            "variant": variant.name,
            "module": arch.module,
            "class": arch.class_name,
            "architecture": arch.name,
        }
        for family in families()
        for variant in family.variants
        for arch in variant.architectures
    }


def binding_cases() -> dict[str, dict]:
    """One engine name per family that the generated _binding takes from vLLM, deleted from
    vLLM's module before the import: a KV spec type the spec names, or, for a family that names
    none (Qwen's hybrid KV is a linear-attention state), CUDAGraphMode, which every family's
    runner rules bind."""
    cases = {}
    for family in families():
        spec_type = next(
            (t.name for v in family.variants if v.kv_cache for t in v.kv_cache.spec_types), None
        )
        module, name = (
            ("vllm.v1.kv_cache_interface", spec_type)
            if spec_type
            else ("vllm.config.compilation", "CUDAGraphMode")
        )
        cases[f"{family.name}:{name}"] = {"package": family.name, "module": module, "name": name}
    return cases


def hf_config_shapes(variant: Variant) -> dict[str, dict]:
    """The target HF configs the speculative matrix uses: the spec's reference config, and the
    same with and without ``block_size`` / ``dspark_block_size`` (the fields a DSpark default
    is read from)."""
    base = {"dspark_block_size": dict(variant.hf_config).get("dspark_block_size", 5)}
    return {
        "dspark_block_size": hf_config_changes(variant, **base),
        "block_size": hf_config_changes(variant, block_size=4, dspark_block_size=None),
        "both": hf_config_changes(variant, block_size=4, **base),
        "neither": hf_config_changes(variant, dspark_block_size=None),
        # a draft n_predict above 1, so MTP's divisibility rule has something to divide by
        "nextn3": hf_config_changes(variant, num_nextn_predict_layers=3, **base),
    }


def hf_config_changes(variant: Variant, **changes: object) -> dict:
    target = target_architectures(variant)[0]
    return hf_config(variant, target, **changes)


def speculative_cases() -> dict[str, dict]:
    """Every variant x method it wires or forbids x num_speculative_tokens in {None, 1..9} x
    target HF config with / without block_size / dspark_block_size."""
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            methods = [m.method.value for m in variant.methods]
            methods += [f.method.value for f in variant.forbidden]
            for method in methods:
                for shape, config in hf_config_shapes(variant).items():
                    for n in [None, *range(1, 10)]:
                        cases[f"{variant.name}:{method}:{shape}:{n}"] = {
                            "package": family.name,
                            "variant": variant.name,
                            "method": method,
                            "hf_config": config,
                            "num_speculative_tokens": n,
                        }
    return cases


# A quantization vLLM accepts for a bf16 checkpoint on any platform (the target's or the user's).
QUANTIZATIONS = (None, "fp8")


def quantization_cases() -> dict[str, dict]:
    """Every variant x wired method x target quantized or not x the user's value or none."""
    return {
        f"{variant.name}:{m.method.value}:target={tq}:requested={rq}": {
            "package": family.name,
            "variant": variant.name,
            "method": m.method.value,
            "hf_config": hf_config_changes(variant),
            "target_quantization": tq,
            "requested": rq,
        }
        for family in families()
        for variant in family.variants
        for m in variant.methods
        for tq in QUANTIZATIONS
        for rq in QUANTIZATIONS
    }


# KVCacheSpec subclasses of the 0.33.0 wheel that no spec names (the family produces none of
# them), so the state-bucket matrix covers every layer spec type vLLM defines; test_kv_cache
# fails when the wheel's set differs from the specs' names plus these. UniformTypeKVCacheSpecs
# is the bucket the predicate is asked about, never a layer's spec.
ENGINE_ONLY_KV_SPEC_TYPES = (
    "CrossAttentionSpec",
    "EncoderOnlyAttentionSpec",
    "HiSparseHotSpec",
    "HiSparseResidentSpec",
    "HiddenStateCacheSpec",
    "RSWASpec",
    "SinkFullAttentionSpec",
)
KV_BUCKET_TYPE = "UniformTypeKVCacheSpecs"
# Types vLLM 0.33.0's _get_packed_kv_cache_groups refuses before it asks is_state_bucket
# (KVCacheSpec has no page size; the others are not in the KV cache spec registry): their cases
# call the closure rebuilt from its code object only. The test checks that vLLM does refuse them.
NOT_PACKABLE_KV_SPEC_TYPES = ("KVCacheSpec", "AttentionSpec", "EncoderOnlyAttentionSpec")


def kv_state_bucket_cases() -> dict[str, dict]:
    """Every target variant that names kv_cache.spec_types (the generated is_state_bucket
    judges those; a variant naming none has no such rule) x every KV spec type (theirs, plus the
    wheel's others) x unsplit / split (vLLM's repeats_per_group None, or a number: whether a
    balanced bucket mixing page sizes splits the layers into pattern repeats)."""
    cases: dict[str, dict] = {}
    for family in families():
        named = sorted(
            {t.name for v in family.variants if v.kv_cache for t in v.kv_cache.spec_types}
        )
        for variant in family.variants:
            if not (variant.kv_cache and variant.kv_cache.spec_types):
                continue  # no state-bucket rule to compare (Qwen's KV is a linear-attention state)
            for type_name in named + sorted(set(ENGINE_ONLY_KV_SPEC_TYPES) - set(named)):
                for split in (False, True):
                    cases[f"{variant.name}:{type_name}:{'split' if split else 'unsplit'}"] = {
                        "package": family.name,
                        "variant": variant.name,
                        "target_model_type": variant.model_type,
                        "spec_type": type_name,
                        "split": split,
                        "packable": type_name not in NOT_PACKABLE_KV_SPEC_TYPES,
                    }
    return cases


# Ratios every variant is asked about besides the ones any spec lists: each power of two up to
# 1024, the neighbours of V4's 4 and 128, and -1 (vLLM's V4 layer clamps it to 1).
COMPRESS_RATIO_PROBES = (-1, 0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 127, 128, 129, 256, 512, 1024)


# The layer every compress-ratio case builds, and the HF config's layer count in the stub.
COMPRESS_RATIO_LAYER = 7
COMPRESS_RATIO_LAYERS = 43


def kv_source_shapes(family) -> dict[str, tuple[int, dict | None]]:
    """(layer id, kv-source HF config fields) per shape, from the fields the family's specs name
    (kv_cache.kv_source_compressor): a config that states none (``plain``), the layer a kv source
    (``kv_source``), a layer below it the source (``consumer``), and an MTP layer (at the layer
    count) listed as a source (``past_backbone``), which only the variants stating the compressor
    are asked about (V4's layers past the count are ratio 1 whatever the config says)."""
    shapes: dict[str, tuple[int, dict | None]] = {"plain": (COMPRESS_RATIO_LAYER, None)}
    for variant in family.variants:
        compressor = variant.kv_cache.kv_source_compressor if variant.kv_cache else None
        if compressor is None:
            continue
        listed, below = compressor.layers_listed_in, compressor.layers_below
        layer = COMPRESS_RATIO_LAYER
        shapes["kv_source"] = (layer, {listed: [layer], below: COMPRESS_RATIO_LAYERS})
        shapes["consumer"] = (layer, {listed: [0], below: COMPRESS_RATIO_LAYERS})
        past = COMPRESS_RATIO_LAYERS
        shapes["past_backbone"] = (past, {listed: [0, past], below: COMPRESS_RATIO_LAYERS})
    return shapes


def compress_ratio_cases() -> dict[str, dict]:
    """Every variant with kv_cache.compress_ratios x every ratio any spec lists and the probes x
    the kv-source shapes: the layer constructors of its target architecture's vLLM package
    (attention, compressor)."""
    cases: dict[str, dict] = {}
    for family in families():
        listed = {r for v in family.variants if v.kv_cache for r in v.kv_cache.compress_ratios}
        shapes = kv_source_shapes(family)
        for variant in family.variants:
            if variant.kv_cache is None or not variant.kv_cache.compress_ratios:
                continue
            module = next(
                a.module for a in variant.architectures if a.name in target_architectures(variant)
            )
            for shape, (layer_id, fields) in shapes.items():
                if shape == "past_backbone" and variant.kv_cache.kv_source_compressor is None:
                    continue
                for ratio in sorted(listed | set(COMPRESS_RATIO_PROBES)):
                    cases[f"{variant.name}:{shape}:{ratio}"] = {
                        "package": family.name,
                        "model_type": variant.model_type,
                        "engine_package": module,
                        "layer_id": layer_id,
                        "layers": COMPRESS_RATIO_LAYERS,
                        "ratio": ratio,
                        "shape": shape,
                        "hf_config": fields,
                    }
    return cases


# routed experts per decoder block in the checkpoint matrix: few, so the model vLLM builds and
# the complete checkpoint stay small (the reference checkpoint's 256 are alike)
CHECKPOINT_EXPERTS = 4


def _expert_sources(weight_set) -> tuple[str, ...]:
    block = weight_set.block
    return block.experts.count_sources if block and block.experts else ()


def _stage_count_shapes(variant: Variant, weight_set) -> dict[str, dict]:
    """The configs the checkpoint matrix loads under: the spec's reference config, each stage
    count source alone set to 2 (the sources before it absent), and no source at all (the
    loader's fallback); each with CHECKPOINT_EXPERTS routed experts in the last expert-count
    source (the others absent), and, for each other source, one more config with it set to 2."""
    sources = weight_set.stage_count.sources
    experts = _expert_sources(weight_set)
    small = {**dict.fromkeys(experts[:-1]), experts[-1]: CHECKPOINT_EXPERTS} if experts else {}
    shapes = {"reference": hf_config_changes(variant, **small)}
    for k, source in enumerate(sources):
        absent = dict.fromkeys(sources[:k])
        shapes[f"{source}=2"] = hf_config_changes(variant, **{**small, **absent, source: 2})
    shapes["no_source"] = hf_config_changes(variant, **{**small, **dict.fromkeys(sources)})
    for k, source in enumerate(experts[:-1]):
        absent = dict.fromkeys(experts[:k])
        shapes[f"{source}=2"] = hf_config_changes(variant, **{**small, **absent, source: 2})
    return shapes


def _expert_count(weight_set, config: dict) -> int | None:
    """vLLM's `a or b`: the routed experts a block of this config builds (None: no experts)."""
    sources = _expert_sources(weight_set)
    return next((config[s] for s in sources if config.get(s)), None) if sources else None


def _declared_names(weight_set, stages: int, experts: int | None) -> dict[str, list[str]]:
    """The checkpoint names the spec declares, per stage (the driver prefers these among the
    names vLLM's loader maps, so a checkpoint is laid out the way the spec says when vLLM
    accepts that layout), the decoder block's and its routed experts' included; and the names
    the spec says vLLM rejects or builds itself."""
    shared = weight_set.shared
    block = weight_set.block
    per_stage = weight_set.required + weight_set.optional
    per_stage += tuple(source for _, source in weight_set.derived)
    per_stage += shared.required + shared.optional if shared else ()
    per_stage += block.required + block.optional if block else ()
    if block and block.experts:
        per_stage += tuple(
            block.experts.prefix.format(e=e) + w
            for e in range(experts or 0)
            for w, _ in block.experts.weights
        )
    prefixes = [weight_set.stage_prefix.format(i=i) for i in range(stages)]
    renames = weight_set.renames + (block.renames if block else ())
    # a stacked weight shipped as its merged parameter (vLLM loads it whole: every shard), where
    # no derived parameter is built from that weight (the generated check names a missing
    # source once, for the block's shard and the derived one alike)
    sources = {source for _, source in weight_set.derived}
    renames += tuple(
        (name, target.into)
        for name, target in (block.stacked if block else ())
        if name not in sources
    )
    return {
        "declared": [p + w for p in prefixes for w in per_stage],
        "renames": [[old, new] for old, new in renames],
        "rejected": [prefixes[0] + r for r in weight_set.rejected]
        + [derived for derived, _ in weight_set.derived],
    }


def checkpoint_cases() -> dict[str, dict]:
    """Every variant x method with checkpoint weights x stage-count config shape. The driver
    builds vLLM's own draft model for the method (its draft architecture's class), derives the
    complete checkpoint from the names vLLM's loader maps, and runs both checks on it, with each
    tensor removed in turn, with each rename's engine-side name shipped instead, with each name
    the spec rejects added and with each stage emptied, each through vLLM's DefaultModelLoader
    for an unquantized and a quantized target (both modes in one case: the probes are shared)."""
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            archs = {a.name: a for a in variant.architectures}
            for method in variant.methods:
                draft = archs[method.draft_architecture]
                weight_set = method.weights
                if weight_set.block is None:
                    # the driver derives the complete checkpoint from the declared decoder
                    # block; a set that declares none (Qwen's MTP drafts: their names are
                    # architectures.<draft>.checkpoint_names rules) is compared with vLLM's
                    # own name rules in test_hybrid.py instead
                    continue
                # the other methods' tensors, shipped beside this method's (a hostile case);
                # the names both sets declare are this set's own
                own = set(weight_set.required + weight_set.optional)
                own |= (
                    set(weight_set.shared.required + weight_set.shared.optional)
                    if weight_set.shared
                    else set()
                )
                others = sorted(
                    {
                        stage_weight
                        for other in variant.methods
                        if other.method != method.method
                        for stage_weight in other.weights.required
                        + (other.weights.shared.required if other.weights.shared else ())
                    }
                    - own
                )
                for shape, config in _stage_count_shapes(variant, weight_set).items():
                    experts = _expert_count(weight_set, config)
                    block = weight_set.block
                    cases[f"{variant.name}:{method.method.value}:{shape}"] = {
                        "package": family.name,
                        "variant": variant.name,
                        "model_type": variant.model_type,
                        "method": method.method.value,
                        "module": draft.module,
                        "class": draft.class_name,
                        "hf_config": config,
                        "stage_head": weight_set.stage_prefix.split("{i}")[0],
                        # the routed experts' prefix (before "{e}") and count, or None
                        "experts": {
                            "head": block.experts.prefix.split("{e}")[0],
                            "count": experts,
                        }
                        if block and block.experts and experts
                        else None,
                        **_declared_names(weight_set, 8, experts),
                        "other_methods_weights": others,
                    }
    return cases


# Names vLLM 0.33.0 does not know: the methods the spec language once had (medusa,
# mlp_speculator), another case, separator and whitespace, and the empty name.
UNKNOWN_METHODS = ("medusa", "mlp_speculator", "MTP", "deepseek-mtp", "mtp ", "", "eagle2", "foo")


def speculative_method_cases() -> dict[str, dict]:
    """Every target variant x every method name vLLM 0.33.0's SpeculativeConfig knows
    (dsv41gen's engine facts; test_speculative_methods checks them against the wheel), every
    method the spec language names and UNKNOWN_METHODS."""
    from dsv41gen.plan.engine import SPECULATIVE_METHODS

    names = list(SPECULATIVE_METHODS)
    names += [m.value for m in Method if m.value not in names]
    names += [m for m in UNKNOWN_METHODS if m not in names]
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            judged = sorted(
                {m.method.value for m in variant.methods}
                | {f.method.value for f in variant.forbidden}
            )
            for method in names:
                cases[f"{variant.name}:{method!r}"] = {
                    "package": family.name,
                    "variant": variant.name,
                    "method": method,
                    "hf_config": hf_config_changes(variant),
                    "judged": judged,
                }
    return cases


def vllm_binding_cases() -> dict[str, dict]:
    """What was tests/wiring/test_vllm_binding.py (skipped where vLLM is absent), in the
    conformance venv: the package bound to vLLM's own objects; each indexer backend's parent,
    name and block sizes per capability family, its engine parent and its KV-cache layouts
    as vLLM's negotiation reads them; every forbidden method's message in vLLM's source; and
    CUDAGraphMode's piecewise semantics per mode."""
    cases: dict[str, dict] = {}
    for family in families():
        cases[f"{family.name}:bound"] = {"check": "bound", "package": family.name}
        for mode in CudaGraphMode:
            cases[f"{family.name}:cudagraph:{mode.value}"] = {
                "check": "cudagraph_mode",
                "package": family.name,
                "mode": mode.value,
            }
        for variant in family.variants:
            for b in variant.backends:
                if b.kind.value != "indexer":
                    continue
                for cap in (90, 100, 120):
                    cases[f"{b.key}:sm{cap}"] = {
                        "check": "indexer_backend",
                        "package": family.name,
                        "key": b.key,
                        "family": cap,
                    }
                if b.parent_module:
                    cases[f"{b.key}:engine_parent"] = {
                        "check": "engine_parent",
                        "package": family.name,
                        "key": b.key,
                        "module": b.parent_module,
                        "parent": b.parent,
                    }
                if b.supported_kv_cache_layouts:
                    cases[f"{b.key}:kv_cache_layouts"] = {
                        "check": "kv_cache_layouts",
                        "package": family.name,
                        "key": b.key,
                    }
            for f in variant.forbidden:
                cases[f"{variant.name}:forbidden:{f.method.value}"] = {
                    "check": "forbidden_message_in_vllm",
                    "package": family.name,
                    "model_type": variant.model_type,
                    "method": f.method.value,
                }
    return cases
