"""The conformance sites of the hybrid (full attention + gated-delta-net) family, run by
``driver.py`` in the vLLM 0.33.0 venv: the MTP draft rewrite, the per-architecture config hooks,
the linear-attention state specs and the MTP draft's checkpoint names.

Each site records what vLLM 0.33.0's own code does with the case, and what the generated
package does with it (the API qwen-spec's generated code answers, /work/cache/qwen-api.md), as
``{"ok": value}`` or ``{"raises": type, "message": text}``. It never judges.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace

from driver import _Captured, outcome

# The fields a rewritten draft config answers for, where vLLM set them.
DRAFT_FIELDS = (
    "model_type",
    "architectures",
    "n_predict",
    "hc_mult",
    "index_share_for_mtp_iteration",
)


def _pretrained(config: dict):
    """The config AutoConfig builds from this config.json: the transformers class of its
    model_type, with that class's defaults (Qwen4ExpTextConfig defaults hc_count to 4) and its
    own text_config class for a nested text_config."""
    from transformers import CONFIG_MAPPING, PretrainedConfig

    model_type = config["model_type"]
    fields = {k: v for k, v in config.items() if k != "model_type"}
    if model_type in CONFIG_MAPPING:
        built = CONFIG_MAPPING[model_type].from_dict(fields)
    else:  # an MTP model type (qwen3_next_mtp) has no class of its own
        built = PretrainedConfig.from_dict(fields)
    built.model_type = model_type
    return built


def _draft_answer(read) -> dict:
    return {name: read(name) for name in DRAFT_FIELDS if read(name) is not None}


def site_draft_rewrite(cases: dict[str, dict]) -> dict[str, dict]:
    """SpeculativeConfig.hf_config_override on the target's config (the MTP draft rewrite)."""
    from vllm.config.speculative import SpeculativeConfig

    answers = {}
    for case_id, case in sorted(cases.items()):

        def engine(case=case):
            draft = SpeculativeConfig.hf_config_override(_pretrained(case["hf_config"]))
            return _draft_answer(lambda name: getattr(draft, name, None))

        def ours(case=case):
            speculative = importlib.import_module(f"{case['package']}.speculative")
            config = case["hf_config"]
            overrides = speculative.draft_config_overrides(config["model_type"], "mtp", config)
            draft = {**config, **overrides}
            return _draft_answer(draft.get)

        answers[case_id] = {"vllm": outcome(engine), "generated": outcome(ours)}
    return answers


def _vllm_config(case: dict, hf_config, hf_text_config):
    """The parts of a VllmConfig the architecture config hooks read, as plain attributes."""
    engine = case["engine"]
    method = engine.get("speculative_method")
    return SimpleNamespace(
        cache_config=SimpleNamespace(mamba_ssm_cache_dtype=engine["mamba_ssm_cache_dtype"]),
        model_config=SimpleNamespace(
            hf_config=hf_config,
            hf_text_config=hf_text_config,
            multimodal_config=(
                SimpleNamespace(language_model_only=engine["language_model_only"])
                if engine["multimodal"]
                else None
            ),
        ),
        parallel_config=SimpleNamespace(
            use_sequence_parallel_moe=engine["use_sequence_parallel_moe"],
            pipeline_parallel_size=engine["pipeline_parallel_size"],
            enable_dbo=engine["enable_dbo"],
            ubatch_size=engine["ubatch_size"],
        ),
        speculative_config=None if method is None else SimpleNamespace(method=method),
    )


def _hook_answer(config, captured: _Captured) -> dict:
    """What a hook changed: the SSM cache dtype, both configs' RoPE fields, its warnings."""
    model = config.model_config
    return {
        "mamba_ssm_cache_dtype": config.cache_config.mamba_ssm_cache_dtype,
        "rope_parameters": getattr(model.hf_config, "rope_parameters", None),
        "text_rope_parameters": getattr(model.hf_text_config, "rope_parameters", None),
        "warnings": captured.messages,
    }


def _configs(case: dict):
    """The HF config and its text config as the hook sees them: one object when the checkpoint
    is text-only, two when it nests a text_config."""
    hf = SimpleNamespace(**{k: v for k, v in case["hf_config"].items() if k != "text_config"})
    text = case["hf_config"].get("text_config")
    if text is None:
        return hf, hf
    hf.text_config = SimpleNamespace(**text)
    return hf, hf.text_config


def _copy_rope(namespace) -> None:
    # each side gets its own rope_parameters dicts: the hooks pop from them
    for obj in {id(o): o for o in (namespace, getattr(namespace, "text_config", None))}.values():
        if obj is not None and isinstance(getattr(obj, "rope_parameters", None), dict):
            obj.rope_parameters = dict(obj.rope_parameters)


def site_config_hooks(cases: dict[str, dict]) -> dict[str, dict]:
    """MODELS_CONFIG_MAP[architecture].verify_and_update_config on a config stub, on a CUDA
    platform (the MoE-SP rule is CUDA/ROCm only)."""
    from driver import install_pretend_platform

    platform = install_pretend_platform()
    from vllm.model_executor.models.config import MODELS_CONFIG_MAP

    answers = {}
    for case_id, case in sorted(cases.items()):
        platform.pretend(case["device"])

        def run(hook, case=case):
            hf, text = _configs(case)
            _copy_rope(hf)
            config = _vllm_config(case, hf, text)
            with _Captured() as captured:
                hook(config)
            return _hook_answer(config, captured)

        def engine(case=case):
            hook = MODELS_CONFIG_MAP.get(case["architecture"])
            return run(hook.verify_and_update_config if hook else lambda config: None)

        def ours(case=case):
            hooks = importlib.import_module(f"{case['package']}.config_hooks")
            return run(lambda config: hooks.verify_and_update_config(case["architecture"], config))

        answers[case_id] = {"vllm": outcome(engine), "generated": outcome(ours)}
    return answers


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def site_linear_attention_state(cases: dict[str, dict]) -> dict[str, dict]:
    """A gated-delta-net layer's MambaSpec state: vLLM's calculators with the fields the Qwen
    GDN layer passes them, the conv layout, and the layer's attention backend."""
    import torch
    from vllm.model_executor.layers.mamba import mamba_utils
    from vllm.v1.attention.backends.registry import MambaAttentionBackendEnum

    answers = {}
    for case_id, case in sorted(cases.items()):
        text, engine = case["hf_text_config"], case["engine"]

        def vllm_side(case=case, text=text, engine=engine):
            mamba_utils.get_conv_state_layout = lambda: engine["conv_state_layout"]
            shapes = mamba_utils.MambaStateShapeCalculator.gated_delta_net_state_shape(
                engine["tp_size"],
                text["linear_num_key_heads"],
                text["linear_num_value_heads"],
                text["linear_key_head_dim"],
                text["linear_value_head_dim"],
                text["linear_conv_kernel_dim"],
                engine["num_speculative_tokens"],
            )
            dtypes = mamba_utils.MambaStateDtypeCalculator.gated_delta_net_state_dtype(
                getattr(torch, engine["model_dtype"]),
                engine["mamba_cache_dtype"],
                engine["mamba_ssm_cache_dtype"],
            )
            return {
                "shapes": [list(s) for s in shapes],
                "dtypes": [_dtype_name(d) for d in dtypes],
                "backend": MambaAttentionBackendEnum.GDN_ATTN.get_path(),
            }

        def ours(case=case, text=text, engine=engine):
            kv = importlib.import_module(f"{case['package']}.kv_cache")
            state = kv.linear_attention_state(text, **engine)
            return {
                "shapes": [list(s) for s in state["shapes"]],
                "dtypes": [_dtype_name(d) for d in state["dtypes"]],
                "backend": state["backend"],
            }

        answers[case_id] = {"vllm": outcome(vllm_side), "generated": outcome(ours)}
    return answers


class _NamesLoader:
    """Stands in for AutoWeightsLoader: the names the draft's load_weights hands it, after the
    mapper it passes (vLLM's own WeightsMapper), are the outcome."""

    def __init__(self, module, **_kwargs):
        self.module = module

    def load_weights(self, weights, mapper=None):
        names = [name for name, _ in weights]
        if mapper is not None:
            names = [mapper._map_name(n) for n in names]
        return [n for n in names if n is not None]


# The draft classes whose module imports in the CPU conformance venv (Qwen3.5's and Qwen4Exp's
# MTP modules import qwen3_vl, which needs torchvision: not in the venv).
_DRAFT_MODULES = {"Qwen3NextMTP": "vllm.model_executor.models.qwen3_next_mtp"}

# The others: their name-mapping code, read from the wheel's module file and compiled alone
# (file, class whose methods are lifted, module-level functions they call). Their modules'
# imports are what fails, not this code: it needs only the loader and mapper it is handed.
_LIFTED_DRAFTS = {
    "Qwen3_5MTP": ("model_executor/models/qwen3_5_mtp.py", "Qwen3_5MTP", ()),
    # Qwen3_5MoeMTP(Qwen3_5MTP, ...) inherits both methods
    "Qwen3_5MoeMTP": ("model_executor/models/qwen3_5_mtp.py", "Qwen3_5MTP", ()),
    "Qwen4ExpMTP": (
        "models/qwen4_exp/nvidia/mtp.py",
        "Qwen4ExpMTP",
        ("_remap_mtp_weight_name",),
    ),
}
_LIFTED_METHODS = ("is_unused_checkpoint_weight", "load_weights")


def _lifted_draft(architecture: str):
    """A class holding the draft's own checkpoint-name methods, compiled from the wheel's
    source with the loader stand-in and vLLM's real WeightsMapper as their globals."""
    import ast
    from collections.abc import Iterable
    from pathlib import Path

    import torch
    import vllm
    from vllm.model_executor.models.utils import WeightsMapper

    relative, class_name, functions = _LIFTED_DRAFTS[architecture]
    tree = ast.parse((Path(vllm.__file__).parent / relative).read_text(encoding="utf-8"))
    namespace = {
        "AutoWeightsLoader": _NamesLoader,
        "WeightsMapper": WeightsMapper,
        "Iterable": Iterable,
        "torch": torch,
        # the loader's ignored suffixes: the stand-in loader takes no notice of them
        "_QWEN4_EXP_IGNORED_MISSING_SUFFIXES": set(),
    }
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for name in functions:
        exec(compile(ast.Module([top[name]], []), relative, "exec"), namespace)
    methods = [
        n
        for n in top[class_name].body
        if isinstance(n, ast.FunctionDef) and n.name in _LIFTED_METHODS
    ]
    body = ast.ClassDef(class_name, [], [], methods or [ast.Pass()], [])
    exec(compile(ast.fix_missing_locations(ast.Module([body], [])), relative, "exec"), namespace)
    return namespace[class_name]


def _draft_class(architecture: str):
    if architecture in _LIFTED_DRAFTS:
        return _lifted_draft(architecture)
    module = importlib.import_module(_DRAFT_MODULES[architecture])
    module.AutoWeightsLoader = _NamesLoader
    return getattr(module, architecture)


def site_draft_checkpoint(cases: dict[str, dict]) -> dict[str, dict]:
    """Which checkpoint names an MTP draft loads, and under which name: the draft class's own
    load_weights, run unbound on a stand-in self with the loader recording the names."""
    answers = {}
    for case_id, case in sorted(cases.items()):

        def engine(case=case):
            cls = _draft_class(case["architecture"])
            me = SimpleNamespace()
            me.is_unused_checkpoint_weight = lambda name: cls.is_unused_checkpoint_weight(me, name)
            return {n: None for n in case["names"]} | dict(
                zip(*_loaded(cls, me, case["names"]), strict=True)
            )

        def ours(case=case):
            checkpoint = importlib.import_module(f"{case['package']}.checkpoint")
            return {
                n: checkpoint.remap_draft_weight_name(case["architecture"], n)
                for n in case["names"]
            }

        answers[case_id] = {"vllm": outcome(engine), "generated": outcome(ours)}
    return answers


def _loaded(cls, me, names: list[str]) -> tuple[list[str], list[str]]:
    """(checkpoint name, loaded name) of each name the draft keeps: one name at a time, so a
    dropped name is told apart from a renamed one."""
    kept, loaded = [], []
    for name in names:
        out = cls.load_weights(me, [(name, None)])
        if out:
            kept.append(name)
            loaded.append(out[0])
    return kept, loaded


SITES = {
    "draft_rewrite": site_draft_rewrite,
    "config_hooks": site_config_hooks,
    "linear_attention_state": site_linear_attention_state,
    "draft_checkpoint": site_draft_checkpoint,
}
