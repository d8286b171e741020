"""The draft's quantization against a real SpeculativeConfig of vLLM 0.33.0: DSpark forces the
target's, MTP takes it only when the user gave none (speculative.methods.<m>.target_quantization).

A target vLLM cannot build here (Qwen3.5 and Qwen4Exp: their model modules import torchvision)
is an asserted xfail of its own cases only (test_torchvision_xfails.py says which)."""

from __future__ import annotations

import pytest
from conformancecases import quantization_cases
from conformancerules import xfail_where_vllm_cannot_inspect

CASES = quantization_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_draft_quantization_is_vllms(driver, case_id):
    answer = driver.run("quantization", CASES)[case_id]
    xfail_where_vllm_cannot_inspect(
        answer, "Qwen3-Next's MTP draft quantization is compared, and it is the family's rule"
    )
    assert answer["generated"] == answer["vllm"]
