"""Speculative decoding against a real SpeculativeConfig of vLLM 0.33.0, built from local
config.json files (no weights): the resolved num_speculative_tokens, the draft's model_type,
architectures and n_predict, the warnings, or the exact error."""

from __future__ import annotations

import pytest
from conformancecases import speculative_cases

CASES = speculative_cases()

# vLLM 0.33.0 crashes on these: an MTP draft given without num_speculative_tokens reaches
# `self.num_speculative_tokens > 1` (the MTP warning) before the default is applied, and raises
# TypeError. The generated code applies the default vLLM's code means (the draft's n_predict);
# the README lists this as a limitation. strict: the day vLLM stops crashing, this fails.
ENGINE_CRASH = pytest.mark.xfail(
    strict=True,
    reason="vLLM 0.33.0 raises TypeError ('>' between None and int) for MTP without num_speculative_tokens",
)


@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(c, marks=ENGINE_CRASH) if CASES[c]["engine_crashes"] else c
        for c in sorted(CASES)
    ],
)
def test_speculative_config_is_vllms(driver, case_id):
    answer = driver.run("speculative", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
