"""The hybrid family against vLLM 0.33.0's own code, at the sites only a hybrid family has:
the MTP draft rewrite (model-type aliases, the draft chosen by MoE-ness, n_predict's fallback
chain, draft fields derived from the target), the architecture config hooks (SSM dtype, M-RoPE
strip, the Qwen4Exp refusals), each gated-delta-net layer's MambaSpec state and backend, and the
MTP draft's checkpoint names. Cases come from the specs (conformancecases_hybrid.py); values,
exception types and messages compare exactly, by conformancerules.assert_conforms.

Registry, backends, speculative validation, engine sets and the plugin are the generic sites
(test_registry.py, ...): they take the hybrid specs' cases with no code of their own."""

from __future__ import annotations

import pytest
from conformancecases_hybrid import (
    IMPORTABLE_DRAFTS,
    config_hook_cases,
    draft_architectures,
    draft_checkpoint_cases,
    draft_rewrite_cases,
    linear_attention_state_cases,
)
from conformancerules import assert_conforms

REWRITE = draft_rewrite_cases()
HOOKS = config_hook_cases()
STATE = linear_attention_state_cases()
CHECKPOINT = draft_checkpoint_cases()


@pytest.mark.parametrize("case_id", sorted(REWRITE))
def test_mtp_draft_rewrite_is_vllms(driver, case_id):
    answer = driver.run("draft_rewrite", REWRITE)[case_id]
    assert_conforms(answer["vllm"], answer["generated"], "hc_count")


@pytest.mark.parametrize("case_id", sorted(HOOKS))
def test_config_hook_is_vllms(driver, case_id):
    answer = driver.run("config_hooks", HOOKS)[case_id]
    assert_conforms(answer["vllm"], answer["generated"], "hc_count")


@pytest.mark.parametrize("case_id", sorted(STATE))
def test_linear_attention_state_is_vllms(driver, case_id):
    answer = driver.run("linear_attention_state", STATE)[case_id]
    assert_conforms(answer["vllm"], answer["generated"], "tensor_parallel_size")


@pytest.mark.parametrize("case_id", sorted(CHECKPOINT))
def test_mtp_draft_checkpoint_names_are_vllms(driver, case_id):
    answer = driver.run("draft_checkpoint", CHECKPOINT)[case_id]
    assert_conforms(answer["vllm"], answer["generated"], "checkpoint")


def test_every_draft_is_compared():
    """A draft with no way to run vLLM's name mapping in the CPU venv would be named here,
    not passed; today each one's is run."""
    not_compared = sorted(a for _, a in draft_architectures() if a not in IMPORTABLE_DRAFTS)
    assert not_compared == [], not_compared
    assert len(CHECKPOINT) == 4
