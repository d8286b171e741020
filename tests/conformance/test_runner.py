"""Model runner and cudagraph-mode rules against a real VllmConfig of vLLM 0.33.0: what it
accepts, the final cudagraph mode, and the exact message of what it refuses."""

from __future__ import annotations

import pytest
from conformancecases import runner_cases

CASES = runner_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_runner_rules_are_vllms(driver, case_id):
    answer = driver.run("runner", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
