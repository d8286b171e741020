"""The vLLM half of the hybrid sites (driver_hybrid.py) answers what vLLM 0.33.0's source says,
on inputs written by hand (the facts and their file:line are in /work/cache/qwen-design.md).
This checks the oracle itself: a site that stubbed vLLM away, or read the wrong field, would
agree with a generated package that is wrong in the same way."""

from __future__ import annotations

import pytest
from conformancecases_hybrid import ENGINE_DEFAULT, HOOK_DEVICES
from conftest import Driver

NO_PACKAGE = "dsv41gen_no_such_package"


def _text(**fields):
    return {"model_type": "qwen3_5_moe_text", **fields}


REWRITE = {
    # Qwen3.5: MoE-ness from the model type; n_predict top level first, then text_config
    "moe_text": {
        "model_type": "qwen3_5_moe_text",
        "architectures": ["X"],
        "mtp_num_hidden_layers": 2,
    },
    "dense_nested": {
        "model_type": "qwen3_5",
        "architectures": ["X"],
        "text_config": {"mtp_num_hidden_layers": 1},
    },
    "dense_nextn_ignored": {
        "model_type": "qwen3_5_text",
        "architectures": ["X"],
        "num_nextn_predict_layers": 3,
    },
    # Qwen4Exp: text_config's mtp_num_hidden_layers, then num_nextn_predict_layers; hc_mult
    "q4_nextn": {
        "model_type": "qwen4_exp_text",
        "architectures": ["X"],
        "num_nextn_predict_layers": 3,
        "hc_count": 4,
    },
    "q4_no_hc": {"model_type": "qwen4_exp", "architectures": ["X"]},
    # Qwen3Next: only top-level num_nextn_predict_layers
    "q3n": {"model_type": "qwen3_next", "architectures": ["X"], "mtp_num_hidden_layers": 2},
}


@pytest.fixture
def driver(vllm_python) -> Driver:
    """A driver of this test's own: the session's keeps the spec-generated answers per site."""
    return Driver(vllm_python)


def test_draft_rewrite_oracle(driver):
    cases = {k: {"package": NO_PACKAGE, "hf_config": v} for k, v in REWRITE.items()}
    answers = {k: a["vllm"] for k, a in driver.run("draft_rewrite", cases).items()}
    assert answers["moe_text"] == {
        "ok": {"model_type": "qwen3_5_mtp", "architectures": ["Qwen3_5MoeMTP"], "n_predict": 2}
    }
    assert answers["dense_nested"]["ok"]["architectures"] == ["Qwen3_5MTP"]
    assert answers["dense_nested"]["ok"]["n_predict"] == 1
    assert "n_predict" not in answers["dense_nextn_ignored"]["ok"]
    assert answers["q4_nextn"]["ok"] == {
        "model_type": "qwen4_exp_mtp",
        "architectures": ["Qwen4ExpMTP"],
        "n_predict": 3,
        "hc_mult": 4,
        "index_share_for_mtp_iteration": False,
    }
    # transformers' Qwen4ExpTextConfig defaults hc_count to 4: no AttributeError in 0.33.0
    assert answers["q4_no_hc"]["ok"]["hc_mult"] == 4
    assert answers["q3n"]["ok"] == {
        "model_type": "qwen3_next_mtp",
        "architectures": ["Qwen3NextMTP"],
    }
    # the generated half ran and failed on the missing package: nothing was compared
    assert driver.run("draft_rewrite", cases)["q3n"]["generated"]["raises"] == (
        "ModuleNotFoundError"
    )


# the engine settings and device the case generator starts every hook case from
ENGINE = ENGINE_DEFAULT
CUDA = HOOK_DEVICES["cuda9.0"]
ROPE = {"rope_type": "default", "mrope_section": [1], "mrope_interleaved": True}


def _hook(arch, engine=None, device=CUDA, **text):
    config = {"hc_count": 4, "ple_layer_ids": [], "rope_parameters": dict(ROPE), **text}
    return {
        "package": NO_PACKAGE,
        "architecture": arch,
        "hf_config": config,
        "engine": {**ENGINE, **(engine or {})},
        "device": device,
    }


def test_config_hooks_oracle(driver):
    cases = {
        "q35_ssm": _hook("Qwen3_5ForConditionalGeneration", mamba_ssm_dtype="float32"),
        "q35_user": _hook(
            "Qwen3_5ForCausalLM", {"mamba_ssm_cache_dtype": "bfloat16"}, mamba_ssm_dtype="float32"
        ),
        "q4_hc1": _hook("Qwen4ExpForCausalLM", hc_count=1),
        "q4_sp": _hook(
            "Qwen4ExpForCausalLM", {"use_sequence_parallel_moe": True, "pipeline_parallel_size": 2}
        ),
        "q4_sp_cpu": _hook(
            "Qwen4ExpForCausalLM",
            {"use_sequence_parallel_moe": True, "pipeline_parallel_size": 2},
            device={"platform": "CPU", "capability": None},
        ),
        "q4_eagle": _hook("Qwen4ExpMTP", {"speculative_method": "eagle3"}),
        "q3n": _hook("Qwen3NextForCausalLM", mamba_ssm_dtype="float32"),
    }
    answers = {k: a["vllm"] for k, a in driver.run("config_hooks", cases).items()}
    assert answers["q35_ssm"]["ok"]["mamba_ssm_cache_dtype"] == "float32"
    assert answers["q35_ssm"]["ok"]["rope_parameters"] == ROPE  # the VL class keeps M-RoPE
    user = answers["q35_user"]["ok"]
    assert user["mamba_ssm_cache_dtype"] == "bfloat16"
    assert user["rope_parameters"] == {"rope_type": "default"}
    assert user["warnings"] == [
        "Qwen3.5 model specifies mamba_ssm_dtype='float32' in its config, but "
        "--mamba-ssm-cache-dtype='bfloat16' was passed. Using the user-specified value."
    ]
    assert answers["q4_hc1"] == {
        "raises": "ValueError",
        "message": "Qwen4Exp requires hc_count > 1",
    }
    assert answers["q4_sp"] == {"raises": "ValueError", "message": "Qwen4Exp MoE SP requires PP=1"}
    assert "ok" in answers["q4_sp_cpu"]
    assert answers["q4_eagle"]["raises"] == "NotImplementedError"
    assert answers["q3n"]["ok"]["mamba_ssm_cache_dtype"] == "auto"  # no hook for Qwen3Next


GDN = {
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4,
}


@pytest.mark.parametrize(
    ("engine", "expected"),
    [
        # conv_dim = 128*16*2 + 128*32 = 8192; SD layout is (state_len, dim)
        (
            {"tp_size": 2, "num_speculative_tokens": 0, "conv_state_layout": "SD"},
            {"shapes": [[3, 4096], [16, 128, 128]], "dtypes": ["bfloat16", "float32"]},
        ),
        (
            {"tp_size": 1, "num_speculative_tokens": 2, "conv_state_layout": "DS"},
            {"shapes": [[8192, 5], [32, 128, 128]], "dtypes": ["bfloat16", "float32"]},
        ),
    ],
)
def test_linear_attention_state_oracle(driver, engine, expected):
    engine = {
        "model_dtype": "bfloat16",
        "mamba_cache_dtype": "auto",
        "mamba_ssm_cache_dtype": "float32",
        **engine,
    }
    case_id = repr(sorted(engine.items()))
    cases = {case_id: {"package": NO_PACKAGE, "hf_text_config": GDN, "engine": engine}}
    (answer,) = driver.run("linear_attention_state", cases).values()
    assert answer["vllm"]["ok"] == {
        **expected,
        "backend": "vllm.v1.attention.backends.gdn_attn.GDNAttentionBackend",
    }


def test_draft_checkpoint_oracle(driver):
    names = [
        "mtp.layers.0.mtp.w",
        "mtp.fc.weight",
        "model.layers.0.q_proj.weight",
        "model.language_model.embed_tokens.weight",
        "lm_head.weight",
    ]
    cases = {"q3n": {"package": NO_PACKAGE, "architecture": "Qwen3NextMTP", "names": names}}
    (answer,) = driver.run("draft_checkpoint", cases).values()
    assert answer["vllm"]["ok"] == {
        "mtp.layers.0.mtp.w": "model.layers.0.model.w",  # str.replace renames both
        "mtp.fc.weight": "model.fc.weight",
        "model.layers.0.q_proj.weight": None,
        "model.language_model.embed_tokens.weight": "model.language_model.embed_tokens.weight",
        "lm_head.weight": "lm_head.weight",
    }
