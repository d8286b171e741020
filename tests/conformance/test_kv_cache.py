"""The KV state-bucket predicate against vLLM 0.33.0's own: the closure ``is_state_bucket``
nested in ``vllm.v1.core.kv_cache_planning._get_packed_kv_cache_groups``.

A closure cannot be imported, so the driver (``site_kv_state_bucket``) runs vLLM's bytecode two
ways. *outer*: the real ``_get_packed_kv_cache_groups`` on real spec objects of each type, in an
unsplit layer set (no balanced bucket mixes page sizes: ``repeats_per_group`` is None) and a
split one (a balanced full-attention bucket of two page sizes beside the type's layer:
``repeats_per_group`` is a number); a profile hook records each call of the closure's code
object with its bucket, ``repeats_per_group`` and return value, and the generated
``kv_cache.is_state_bucket`` is asked about the same bucket and number. *closure*: the closure
rebuilt from its code object (``types.FunctionType`` with the outer function's globals and a
cell for ``repeats_per_group``) on a one-layer bucket of each type, for None (unsplit) or 1 and 2
(split); this also covers the types the outer function refuses before it asks.

Matrix: every target variant x every spec type (the specs' ``kv_cache.spec_types`` and every
other KVCacheSpec subclass of the wheel) x unsplit / split.
"""

from __future__ import annotations

import pytest
from conformancecases import (
    ENGINE_ONLY_KV_SPEC_TYPES,
    KV_BUCKET_TYPE,
    kv_state_bucket_cases,
)

CASES = kv_state_bucket_cases()


@pytest.fixture(scope="module")
def answers(driver):
    return driver.run("kv_state_bucket", CASES)


def test_matrix_covers_every_spec_type_of_the_wheel(answers):
    covered = {case["spec_type"] for case in CASES.values()} | {KV_BUCKET_TYPE}
    assert sorted(covered) == answers["__wheel__"]["kv_spec_types"], (
        "the 0.33.0 wheel's KVCacheSpec subclasses differ from the specs' spec_types plus "
        f"ENGINE_ONLY_KV_SPEC_TYPES {ENGINE_ONLY_KV_SPEC_TYPES}"
    )


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_state_bucket_is_vllms(answers, case_id):
    case, answer = CASES[case_id], answers[case_id]
    assert "ok" in answer["vllm"]["closure"], answer["vllm"]["closure"]
    assert answer["generated"]["closure"] == answer["vllm"]["closure"]
    if not case["packable"]:
        # vLLM's outer function refuses this type before it asks the closure
        assert "raises" in answer["vllm"]["outer"], answer["vllm"]["outer"]
        return
    seen = answer["vllm"]["outer"]["ok"]
    assert seen, "vLLM's _get_packed_kv_cache_groups never asked about this type"
    assert all((r is not None) is case["split"] for r, _ in seen), seen
    assert answer["generated"]["outer"] == answer["vllm"]["outer"]
