"""The speculative site's xfails are exactly the Qwen3.5 and Qwen4Exp targets' cases: vLLM
0.33.0 cannot inspect those model classes in the CPU conformance venv (their modules import
torchvision), and no DeepSeek or Qwen3-Next case may hide behind the same xfail. The day
torchvision loads there, this test fails: the xfails are stale, and those cases compare."""

from __future__ import annotations

from conformancecases import speculative_cases
from conformancerules import torchvision_inspection_failure

CASES = speculative_cases()
# The variants whose target model module imports torchvision (vllm/model_executor/models/
# qwen3_5.py and qwen4_exp.py, through qwen3_vl.py and transformers' Qwen2-VL image processor)
NEEDS_TORCHVISION = ("qwen3_5", "qwen4_exp")


def test_the_speculative_xfails_are_the_qwen35_and_qwen4exp_targets(driver):
    answers = driver.run("speculative", CASES)
    xfailed = sorted(
        case_id
        for case_id, answer in answers.items()
        if torchvision_inspection_failure(answer["vllm"], answer.get("inspection_failures", {}))
    )
    expected = sorted(c for c in CASES if c.split(":")[0] in NEEDS_TORCHVISION)
    assert expected, "no Qwen3.5 / Qwen4Exp case in the speculative matrix"
    assert xfailed == expected, {
        "xfailed, not Qwen3.5/Qwen4Exp": sorted(set(xfailed) - set(expected)),
        "Qwen3.5/Qwen4Exp, not xfailed (torchvision loads now?)": sorted(
            set(expected) - set(xfailed)
        ),
    }
    print(f"\nspeculative: {len(xfailed)} of {len(CASES)} cases xfail (torchvision)")
