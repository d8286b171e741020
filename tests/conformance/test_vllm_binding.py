"""The generated package bound to vLLM 0.33.0 itself, in the conformance venv (this was
tests/wiring/test_vllm_binding.py, which vLLM's torch pin kept skipped in the default venv):
``_binding`` takes vLLM's own objects; each indexer backend answers parent, name and kernel
block sizes as vLLM's class does on each capability family, subclasses its engine parent, and
negotiates KV-cache layouts the same through vLLM's
``vllm.v1.attention.backends.utils.get_supported_kv_cache_layouts``; every forbidden method's
message is vLLM's own text; CUDAGraphMode's piecewise semantics are vLLM's."""

from __future__ import annotations

import pytest
from conformancecases import vllm_binding_cases

CASES = vllm_binding_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_bound_to_vllm(driver, case_id):
    answer = driver.run("vllm_binding", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
