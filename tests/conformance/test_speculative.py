"""Speculative decoding against a real SpeculativeConfig of vLLM 0.33.0, built from local
config.json files (no weights): the resolved num_speculative_tokens, the draft's model_type,
architectures and n_predict, the warnings, or the exact error.

Compared by conformancerules.assert_conforms: values and vLLM's deliberate errors exactly; where
vLLM crashes (an MTP draft without num_speculative_tokens: 0.33.0 evaluates `None > 1` for its
MTP warning before any default, a TypeError), the generated code must refuse the same config
with its own error naming num_speculative_tokens (the spec says `default: none`).

A case vLLM cannot build here because inspecting the target's model class imports torchvision
(none loads beside torch 2.13.0+cpu: Qwen3.5 and Qwen4Exp) is an xfail, once the driver's record
shows exactly that; test_torchvision_xfails.py checks which cases those are."""

from __future__ import annotations

import pytest
from conformancecases import speculative_cases
from conformancerules import assert_conforms, xfail_where_vllm_cannot_inspect

CASES = speculative_cases()
COMPARED_INSTEAD = (
    "the same draft rewrite, config hooks, GDN state and draft names are compared against "
    "vLLM's lower-level functions in tests/conformance/test_hybrid.py"
)


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_speculative_config_is_vllms(driver, case_id):
    answer = driver.run("speculative", CASES)[case_id]
    xfail_where_vllm_cannot_inspect(answer, COMPARED_INSTEAD)
    assert_conforms(answer["vllm"], answer["generated"], "num_speculative_tokens")
