"""The draft's quantization against a real SpeculativeConfig of vLLM 0.33.0: DSpark forces the
target's, MTP takes it only when the user gave none (speculative.methods.<m>.target_quantization)."""

from __future__ import annotations

import pytest
from conformancecases import quantization_cases

CASES = quantization_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_draft_quantization_is_vllms(driver, case_id):
    answer = driver.run("quantization", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
