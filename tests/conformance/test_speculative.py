"""Speculative decoding against a real SpeculativeConfig of vLLM 0.33.0, built from local
config.json files (no weights): the resolved num_speculative_tokens, the draft's model_type,
architectures and n_predict, the warnings, or the exact error.

Compared by conformancerules.assert_conforms: values and vLLM's deliberate errors exactly; where
vLLM crashes (an MTP draft without num_speculative_tokens: 0.33.0 evaluates `None > 1` for its
MTP warning before any default, a TypeError), the generated code must refuse the same config
with its own error naming num_speculative_tokens (the spec says `default: none`)."""

from __future__ import annotations

import pytest
from conformancecases import speculative_cases
from conformancerules import assert_conforms

CASES = speculative_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_speculative_config_is_vllms(driver, case_id):
    answer = driver.run("speculative", CASES)[case_id]
    assert_conforms(answer["vllm"], answer["generated"], "num_speculative_tokens")
