"""Checkpoint weight names judged by vLLM 0.33.0's own loaders and by the generated check.

For each variant x method with checkpoint weights x stage-count config shape, the driver builds
vLLM's draft model (the spec's draft architecture class, on the meta device, its decoder blocks
stubbed; see driver.py) from a real SpeculativeConfig's draft HF config, and runs vLLM's
``load_weights`` on tensor names. The complete checkpoint comes from vLLM: for every parameter
(and shard) its model has, a tensor name vLLM's loader maps onto it (the spec's name where vLLM
maps that one). The cases compare, with vLLM's strict completeness rule as the oracle:

- ``full``: the complete checkpoint is accepted by both, and both count the stages vLLM built;
- ``mapped``: the vLLM parameter (and shard) each of its tensors loads into;
- ``each_removed``: each tensor removed in turn: both reject, and the parameters left unloaded
  are the same (the generated check's missing names, mapped to vLLM parameters);
- ``renamed``: a renamed weight shipped under the engine's name instead: the same outcome
  (V4 MTP's ``shared_head.*`` fails in vLLM; V4.1's ``markov_head.markov_w1`` loads);
- ``rejected``: each name the spec says vLLM fails on (or builds itself) added: both reject it;
- ``past_count``: each stage tensor moved to the first stage vLLM does not build (and that
  stage's decoder-block tensor) added: vLLM's MTP loader skips it, its DSpark loaders fail on a
  decoder-layer name and load a model-level one; the same outcome.

vLLM's rejection is an exception from its loader (KeyError, AttributeError: recorded with its
message in the answers); the generated check reports the tensor instead of raising, so the
comparison is the outcome and the tensor named, not the exception type.
"""

from __future__ import annotations

import pytest
from conformancecases import checkpoint_cases

CASES = checkpoint_cases()
KINDS = ("full", "mapped", "each_removed", "renamed", "rejected", "past_count")


@pytest.fixture(scope="module")
def answers(driver):
    return driver.run("checkpoint", CASES)


def _covers(missing: str, tensor: str, head: str) -> bool:
    """A missing weight name of the generated check (``mtp.*.norm``: any stage) names this tensor."""
    if missing.startswith(head + "*."):
        index, _, rest = tensor[len(head) :].partition(".")
        weight = missing[len(head) + 2 :]
        return (
            tensor.startswith(head)
            and index.isdigit()
            and (rest == weight or rest.startswith(weight + "."))
        )
    return tensor == missing or tensor.startswith(missing + ".")


def _unloaded(generated: dict, full: list[str], mapped: dict, head: str) -> list[str]:
    """The vLLM parameters the generated check's missing names stand for."""
    return sorted(
        {
            param
            for missing in generated["missing"]
            for tensor in full
            if _covers(missing, tensor, head)
            for param in mapped[tensor]["ok"]
        }
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_checkpoint_check_agrees_with_vllm_loader(answers, case_id, kind):
    answer = answers[case_id]
    head = CASES[case_id]["stage_head"]
    full = sorted(answer["mapped"]["vllm"])
    mapped = answer["mapped"]["generated"]
    vllm, generated = answer[kind]["vllm"], answer[kind]["generated"]
    if kind == "full":
        stages = vllm["stages"]  # the decoder layers vLLM's draft model built
        assert vllm == {"accept": True, "missing": [], "stages": stages}
        assert generated == {"accept": True, "missing": [], "rejected": [], "stages": stages}
        return
    if kind == "mapped":
        assert generated == vllm
        return
    assert sorted(vllm) == sorted(generated)  # the same tensors tried on both sides
    if kind == "rejected":
        assert vllm, "the spec names no tensor vLLM rejects for this set"
    for tensor in sorted(vllm):
        engine, ours = vllm[tensor], generated[tensor]
        # the tensor is the one vLLM fails on: loading the checkpoint raised, and so does
        # loading that tensor alone (alone, a skipped tensor trips MTP's "layer N weights
        # missing" instead, which a whole checkpoint does not)
        fails = "raises" in engine and "raises" in engine.get("probe", {})
        # vLLM stops at the first tensor it fails on: what it left unloaded is then unknown
        raised = "raises" in engine
        expected = (
            engine["accept"],
            None if raised else engine["missing"],
            [tensor] if fails else [],
        )
        unloaded = None if raised else _unloaded(ours, full, mapped, head)
        got = (ours["accept"], unloaded, ours["rejected"])
        assert got == expected, f"{tensor}: vLLM {engine}, generated {ours}"
