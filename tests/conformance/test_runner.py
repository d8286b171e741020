"""Model runner and cudagraph-mode rules against a real VllmConfig of vLLM 0.33.0: what it
accepts, the final cudagraph mode, and the exact message of what it refuses.

A target vLLM cannot build here (Qwen3.5 and Qwen4Exp: their model modules import torchvision)
is an asserted xfail of its own cases only (test_torchvision_xfails.py says which)."""

from __future__ import annotations

import pytest
from conformancecases import runner_cases
from conformancerules import xfail_where_vllm_cannot_inspect

CASES = runner_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_runner_rules_are_vllms(driver, case_id):
    answer = driver.run("runner", CASES)[case_id]
    xfail_where_vllm_cannot_inspect(
        answer, "the same runner rules are compared for Qwen3-Next, which shares them"
    )
    assert answer["generated"] == answer["vllm"]
