"""The hybrid matrices (conformancecases_hybrid.py) reach every rule vLLM 0.33.0 applies at
their site: run on stand-in variants shaped like the Qwen line (their model types, aliases and
architectures, as /work/cache/qwen-design.md lists them), vLLM's half of each site must meet
each of its refusals and each n_predict source. A matrix that varied the wrong fields would
compare the generated code with vLLM on the easy path only."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace as NS

import conformancecases_hybrid as hybrid
import pytest
from conftest import Driver

from dsv41gen.spec.model import Method, RegistryTable

GDN = (
    ("layer_types", ("linear_attention", "full_attention")),
    ("linear_num_key_heads", 16),
    ("linear_num_value_heads", 32),
    ("linear_key_head_dim", 128),
    ("linear_value_head_dim", 128),
    ("linear_conv_kernel_dim", 4),
)
T, M, S = (
    RegistryTable.TEXT_GENERATION,
    RegistryTable.MULTIMODAL,
    RegistryTable.SPECULATIVE_DECODING,
)


def _variant(name, model_type, aliases, *archs):
    return NS(
        name=name,
        model_type=model_type,
        model_type_aliases=aliases,
        hf_config=GDN,
        methods=[NS(method=Method.MTP)],
        architectures=[NS(name=a, registry=t) for a, t in archs],
    )


STAND_INS = (
    _variant("qwen3_next", "qwen3_next", (), ("Qwen3NextForCausalLM", T), ("Qwen3NextMTP", S)),
    _variant(
        "qwen3_5_moe",
        "qwen3_5_moe",
        ("qwen3_5_moe_text",),
        ("Qwen3_5MoeForConditionalGeneration", M),
        ("Qwen3_5MoeForCausalLM", T),
        ("Qwen3_5MoeMTP", S),
    ),
    _variant(
        "qwen4_exp",
        "qwen4_exp",
        ("qwen4_exp_text",),
        ("Qwen4ExpForConditionalGeneration", M),
        ("Qwen4ExpForCausalLM", T),
        ("Qwen4ExpMTP", S),
    ),
)


@pytest.fixture
def stand_ins(monkeypatch):
    monkeypatch.setattr(hybrid, "families", lambda: (NS(name="nopkg", variants=STAND_INS),))


def _vllm(driver, site, cases) -> dict[str, dict]:
    return {k: a["vllm"] for k, a in driver.run(site, cases).items()}


def test_the_hook_matrix_meets_every_refusal(vllm_python, stand_ins):
    answers = _vllm(Driver(vllm_python), "config_hooks", hybrid.config_hook_cases())
    messages = Counter(a.get("message", "ok").split(" because")[0] for a in answers.values())
    assert set(messages) == {
        "ok",
        "Qwen4Exp requires hc_count > 1",
        "Qwen4Exp MoE SP requires PP=1",
        "Qwen4Exp PLE/QSA does not support dual-batch overlap or microbatching",
        "Qwen4Exp N-gram PLE embedding requires pipeline_parallel_size=1",
        "Qwen4Exp speculative decoding supports only its native MTP checkpoint and linear "
        "n-gram proposers",
    }, messages
    ssm = {a["ok"]["mamba_ssm_cache_dtype"] for a in answers.values() if "ok" in a}
    assert ssm == {"auto", "float32", "bfloat16"}
    assert any(a["ok"]["warnings"] for a in answers.values() if "ok" in a)
    stripped = [a for a in answers.values() if "ok" in a and a["ok"]["rope_parameters"]]
    assert {"mrope_section" in a["ok"]["rope_parameters"] for a in stripped} == {True, False}


def test_the_rewrite_matrix_meets_every_n_predict_source(vllm_python, stand_ins):
    answers = _vllm(Driver(vllm_python), "draft_rewrite", hybrid.draft_rewrite_cases())
    drafted = Counter(
        (a["ok"]["architectures"][0], a["ok"].get("n_predict"))
        for a in answers.values()
        if "ok" in a
    )
    # each draft with each source's value (2: mtp_num_hidden_layers, 3: num_nextn_predict_layers)
    # and without one
    assert {(arch, n) for arch, n in drafted} == {
        (arch, n)
        for arch, sources in (
            ("Qwen3NextMTP", (None, 3)),
            ("Qwen3_5MoeMTP", (None, 2)),
            ("Qwen4ExpMTP", (None, 2, 3)),
        )
        for n in sources
    }, drafted
    # a text-only model type nesting a text_config: vLLM's own refusal, compared like any other
    assert any(a.get("raises") == "ValueError" for a in answers.values())
