"""Each site's xfails are exactly the Qwen3.5 and Qwen4Exp targets' cases: vLLM 0.33.0 cannot
inspect those model classes in the CPU conformance venv (their modules import torchvision), and
no DeepSeek or Qwen3-Next case may hide behind the same xfail. The day torchvision loads there,
this test fails: the xfails are stale, and those cases compare."""

from __future__ import annotations

import pytest
from conformancecases import (
    quantization_cases,
    runner_cases,
    speculative_cases,
    speculative_method_cases,
)
from conformancerules import torchvision_inspection_failure

# The variants whose target model module imports torchvision (vllm/model_executor/models/
# qwen3_5.py and qwen4_exp.py, through qwen3_vl.py and transformers' Qwen2-VL image processor)
NEEDS_TORCHVISION = ("qwen3_5", "qwen4_exp")
# site -> (its cases, vLLM's outcome in an answer of the site)
SITES = {
    "speculative": (speculative_cases, lambda answer: answer["vllm"]),
    "runner": (runner_cases, lambda answer: answer["vllm"]),
    "quantization": (quantization_cases, lambda answer: answer["vllm"]),
    "speculative_methods": (speculative_method_cases, lambda answer: answer["vllm"]["name"]),
}


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_xfails_are_the_qwen35_and_qwen4exp_targets(driver, site):
    make_cases, vllm_of = SITES[site]
    cases = make_cases()
    answers = driver.run(site, cases)
    xfailed = sorted(
        case_id
        for case_id in cases
        if torchvision_inspection_failure(
            vllm_of(answers[case_id]), answers[case_id].get("inspection_failures", {})
        )
    )
    expected = sorted(c for c, case in cases.items() if case["variant"] in NEEDS_TORCHVISION)
    assert expected, f"no Qwen3.5 / Qwen4Exp case in the {site} matrix"
    assert xfailed == expected, {
        "xfailed, not Qwen3.5/Qwen4Exp": sorted(set(xfailed) - set(expected)),
        "Qwen3.5/Qwen4Exp, not xfailed (torchvision loads now?)": sorted(
            set(expected) - set(xfailed)
        ),
    }
    print(f"\n{site}: {len(xfailed)} of {len(cases)} cases xfail (torchvision)")
