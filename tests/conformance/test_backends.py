"""Attention backends against vLLM 0.33.0's own classes, on every device the platform pretends
to be (vLLM's Platform with a chosen capability, CUDA or ROCm, or no GPU)."""

from __future__ import annotations

import pytest
from conformancecases import backend_cases

CASES = backend_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_backend_is_vllms(driver, case_id):
    answer = driver.run("backends", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
