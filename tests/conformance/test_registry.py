"""Registry entries against vLLM 0.33.0's own tables (registry.py)."""

from __future__ import annotations

import pytest
from conformancecases import registry_cases

CASES = registry_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_registry_entry_is_vllms(driver, case_id):
    answer = driver.run("registry", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
