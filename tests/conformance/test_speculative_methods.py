"""Speculative method names against a real SpeculativeConfig of vLLM 0.33.0.

vLLM types ``SpeculativeConfig.method`` as a Literal: pydantic rejects a name outside it with a
ValidationError before ``__post_init__`` runs, and ``__post_init__`` turns every MTP draft
model_type (``deepseek_mtp``, ``glm4_moe_mtp``, ...) into ``mtp``. The driver
(``site_speculative_methods``) builds a SpeculativeConfig per (target, name) with
``__post_init__`` wrapped to record the method vLLM settled on, and compares:

- *name*: vLLM's ValidationError (type and exact text), or the method it settled on, with the
  generated ``speculative.engine_method``;
- *refusal*: where that method is one the target's spec judges (``speculative.methods``,
  ``speculative.forbidden``), the whole construction's outcome with the generated
  ``validate_method``; for any other method the generated code judges nothing (vLLM's own
  checks of eagle, ngram, ... are not the family's).

Matrix: every target variant x every name vLLM 0.33.0 knows, every method the spec language
names and ``UNKNOWN_METHODS`` (medusa and mlp_speculator among them). A target vLLM cannot
build in the CPU venv (Qwen3.5, Qwen4Exp: torchvision) is an asserted xfail of its own cases
(test_torchvision_xfails.py says which).
"""

from __future__ import annotations

import pytest
from conformancecases import speculative_method_cases
from conformancerules import (
    CPU_VENV_CANNOT_INSPECT,
    assert_conforms,
    torchvision_inspection_failure,
)

from dsv41gen.plan.engine import MTP_MODEL_TYPES, SPECULATIVE_METHODS

CASES = speculative_method_cases()


@pytest.fixture(scope="module")
def answers(driver):
    return driver.run("speculative_methods", CASES)


def test_engine_facts_are_the_wheels(answers):
    wheel = answers["__wheel__"]
    assert list(SPECULATIVE_METHODS) == wheel["methods"]
    assert list(MTP_MODEL_TYPES) == wheel["mtp_model_types"]


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_method_name_is_judged_as_vllm_does(answers, case_id):
    answer = answers[case_id]
    vllm, generated = answer["vllm"], answer["generated"]
    # a target vLLM cannot build here never reaches the method: its name is not judged
    archs = torchvision_inspection_failure(vllm["name"], answer.get("inspection_failures", {}))
    if archs:
        pytest.xfail(CPU_VENV_CANNOT_INSPECT.format(archs=", ".join(archs)))
    # conformancerules: exact, but for an engine crash, which must be refused naming the method
    assert_conforms(vllm["name"], generated["name"], "method")
    if "refusal" in vllm:
        assert_conforms(vllm["refusal"], generated["refusal"], "method")
    elif "ok" in vllm["name"]:
        assert generated["refusal"] == {"ok": None}, "a method the spec does not judge"
    else:
        assert generated["refusal"] == vllm["name"]  # the unknown name, from validate_method too


def test_standalone_error_has_vllms_text(answers):
    """Without vLLM (this venv), _binding's stand-in raises a ValueError with pydantic's text
    for each unknown name, less pydantic's documentation link."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    unknown = {
        c["method"]: answers[i]["vllm"]["name"]
        for i, c in CASES.items()
        if "raises" in answers[i]["vllm"]["name"] and "inspection_failures" not in answers[i]
    }
    assert unknown
    script = (
        "import json, sys\n"
        "from deepseek_v4 import _binding, speculative\n"
        "assert not _binding.VLLM_AVAILABLE\n"
        "out = {}\n"
        "for name in json.load(sys.stdin):\n"
        "    try:\n"
        "        speculative.engine_method(name)\n"
        "    except ValueError as error:\n"
        "        out[name] = {'raises': type(error).__name__, 'message': str(error)}\n"
        "print(json.dumps(out))\n"
    )
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(sorted(unknown)),
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(repo / "generated"), "PATH": ""},
        check=True,
    )
    standalone = json.loads(done.stdout)
    for name, vllm in unknown.items():
        text, link = vllm["message"].rsplit("\n", 1)
        assert link.strip().startswith("For further information visit https://errors.pydantic.dev/")
        assert standalone[name] == {"raises": "ValidationError", "message": text}, name
