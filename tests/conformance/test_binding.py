"""_binding never falls back to stand-ins while vLLM is installed: a vLLM that lacks one name
fails the import, naming the name and the installed version (vLLM 0.33.0 with that one name
deleted, in a fresh process)."""

from __future__ import annotations

import pytest
from conformancecases import binding_cases

CASES = binding_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_missing_engine_name_fails_the_import(driver, case_id):
    case = CASES[case_id]
    seen = driver.run("binding", CASES)[case_id]["vllm"]["ok"]
    assert seen.startswith("EngineMismatchError: "), seen
    assert f"{case['module']}.{case['name']}" in seen
    assert "the installed vLLM 0.33.0 lacks" in seen
