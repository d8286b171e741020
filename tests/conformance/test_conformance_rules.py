"""The comparison rule of the conformance suite (conformancerules.py) on hand-written outcomes:
it runs without the vLLM venv, and each way of not conforming fails it."""

from __future__ import annotations

import pytest
from conformancerules import (
    assert_conforms,
    conformance_failure,
    is_engine_crash,
    torchvision_inspection_failure,
)

FIELD = "num_speculative_tokens"
# vLLM 0.33.0's outcome for an MTP draft without num_speculative_tokens, as the driver records it
CRASH = {
    "raises": "TypeError",
    "message": "'>' not supported between instances of 'NoneType' and 'int'",
}
REFUSAL = {
    "raises": "ValueError",
    "message": "DeepSeek V4 with classic-MTP needs num_speculative_tokens: vLLM 0.33.0 ...",
}
DELIBERATE = {
    "raises": "ValueError",
    "message": "num_speculative_tokens:5 must be divisible by n_predict=3",
}


@pytest.mark.parametrize(
    ("outcome", "crash"),
    [
        (CRASH, True),
        ({"raises": "AttributeError", "message": "'NoneType' object has no attribute 'x'"}, True),
        ({"raises": "KeyError", "message": "'model.layers.3'"}, True),
        ({"raises": "AssertionError", "message": ""}, True),
        ({"raises": "AssertionError", "message": "compress_ratio must be 4 or 128"}, False),
        (DELIBERATE, False),
        ({"raises": "NotImplementedError", "message": "ratio 0"}, False),
        ({"raises": "ValidationError", "message": "1 validation error"}, False),
        ({"ok": None}, False),
        ({"ok": {"num_speculative_tokens": 1}}, False),
    ],
)
def test_what_counts_as_an_engine_crash(outcome, crash):
    assert is_engine_crash(outcome) is crash


def test_a_crash_refused_naming_the_field_conforms():
    assert_conforms(CRASH, REFUSAL, FIELD)
    assert_conforms({"raises": "AssertionError", "message": ""}, REFUSAL, FIELD)


@pytest.mark.parametrize(
    ("generated", "why"),
    [
        # the generated code applies a default where vLLM fails: the config is served nowhere
        ({"ok": {"num_speculative_tokens": 1, "warnings": []}}, "must refuse"),
        ({"ok": None}, "must refuse"),
        # the crash reproduced, or another crash type
        (CRASH, "not crash"),
        ({"raises": "KeyError", "message": "'num_speculative_tokens'"}, "not crash"),
        ({"raises": "AssertionError", "message": ""}, "not crash"),
        # a refusal that does not say what to set
        ({"raises": "ValueError", "message": "MTP needs a token count"}, "must name"),
    ],
)
def test_a_crash_not_refused_with_the_field_fails(generated, why):
    failure = conformance_failure(CRASH, generated, FIELD)
    assert failure is not None and why in failure
    with pytest.raises(AssertionError):
        assert_conforms(CRASH, generated, FIELD)


@pytest.mark.parametrize(
    "generated",
    [
        {
            "raises": "ValueError",
            "message": "num_speculative_tokens:5 must be divisible by n_predict=2",
        },
        {"raises": "TypeError", "message": DELIBERATE["message"]},
        {"raises": "ValueError", "message": DELIBERATE["message"] + "."},
        {"ok": 5},
    ],
)
def test_a_deliberate_error_compares_type_and_exact_message(generated):
    assert conformance_failure(DELIBERATE, DELIBERATE, FIELD) is None
    assert conformance_failure(DELIBERATE, generated, FIELD) is not None


def test_an_assertion_with_a_message_is_deliberate():
    vllm = {"raises": "AssertionError", "message": "ratio must be 4 or 128"}
    assert conformance_failure(vllm, vllm, FIELD) is None
    assert conformance_failure(vllm, {"raises": "ValueError", "message": FIELD}, FIELD) is not None


def test_values_compare_exactly():
    value = {"ok": {"num_speculative_tokens": 3, "draft_n_predict": 3, "warnings": ["w"]}}
    assert conformance_failure(value, value, FIELD) is None
    other = {"ok": {"num_speculative_tokens": 3, "draft_n_predict": 3, "warnings": []}}
    assert conformance_failure(value, other, FIELD) is not None
    assert conformance_failure(value, REFUSAL, FIELD) is not None


# vLLM 0.33.0's ModelConfig for a target whose model module does not import, as the driver records it
NOT_INSPECTED = {
    "raises": "ValueError",
    "message": "Model architectures ['Qwen3_5ForCausalLM'] failed to be inspected. "
    "Please check the logs for more details.",
}
NO_TORCHVISION = {"Qwen3_5ForCausalLM": "ModuleNotFoundError: No module named 'torchvision'"}


@pytest.mark.parametrize(
    ("vllm", "failures", "archs"),
    [
        (NOT_INSPECTED, NO_TORCHVISION, ["Qwen3_5ForCausalLM"]),
        (
            NOT_INSPECTED,
            {"Qwen3_5ForCausalLM": "RuntimeError: operator torchvision::nms does not exist"},
            ["Qwen3_5ForCausalLM"],
        ),
        # another import failing, or none recorded: compared as any other outcome
        (
            NOT_INSPECTED,
            {"Qwen3_5ForCausalLM": "ModuleNotFoundError: No module named 'vllm._C'"},
            [],
        ),
        (NOT_INSPECTED, {}, []),
        (NOT_INSPECTED, {"DeepseekV4ForCausalLM": NO_TORCHVISION["Qwen3_5ForCausalLM"]}, []),
        # not exactly that error
        ({**NOT_INSPECTED, "raises": "RuntimeError"}, NO_TORCHVISION, []),
        (
            {**NOT_INSPECTED, "message": NOT_INSPECTED["message"] + " (and more)"},
            NO_TORCHVISION,
            [],
        ),
        (CRASH, NO_TORCHVISION, []),
        ({"ok": {"num_speculative_tokens": 1}}, NO_TORCHVISION, []),
    ],
)
def test_what_counts_as_vllm_failing_on_torchvision(vllm, failures, archs):
    assert torchvision_inspection_failure(vllm, failures) == archs


def test_the_recorded_type_of_the_inspection_failure_is_the_sites():
    wrapped = {**NOT_INSPECTED, "raises": "ValidationError"}
    assert torchvision_inspection_failure(wrapped, NO_TORCHVISION) == []
    assert torchvision_inspection_failure(wrapped, NO_TORCHVISION, "ValidationError") == [
        "Qwen3_5ForCausalLM"
    ]
    assert torchvision_inspection_failure(NOT_INSPECTED, NO_TORCHVISION, "ValidationError") == []
