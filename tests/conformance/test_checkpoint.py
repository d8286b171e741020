"""Checkpoint weight names judged by vLLM 0.33.0's own loaders and by the generated check.

For each variant x method with checkpoint weights x stage-count config shape, the driver builds
vLLM's draft model (the spec's draft architecture class, on the meta device, with vLLM's real
decoder blocks: attention, norms, MoE; see driver.py) from a real SpeculativeConfig's draft HF
config, with few routed experts, and runs vLLM's ``load_weights`` on tensor names. The complete
checkpoint comes from vLLM: for every parameter (and shard, and routed expert's shard) its model
has, a tensor name vLLM's loader maps onto it, found among vLLM's parameter names and the
checkpoint names its stacked and expert mappings turn into them (the spec's name where vLLM maps
that one). Each checkpoint below is loaded by vLLM's DefaultModelLoader.load_weights with
the draft ModelConfig of an unquantized and of a quantized (fp8) target, so vLLM decides whether
completeness is checked and what it raises; each mode is a test:

- ``full``: the complete checkpoint is accepted by both, and both count the stages vLLM built;
- ``mapped``: the vLLM parameter (and shard) each of its tensors loads into (mode-independent);
- ``each_removed``: each tensor removed in turn (of the routed experts', the last expert's);
- ``renamed``: a renamed weight shipped under the engine's name instead (V4 MTP's
  ``shared_head.*`` fails in vLLM; V4.1's ``markov_head.markov_w1`` loads), and a stacked
  block weight shipped as its merged parameter (``attn.fused_wqa_wkv``: vLLM loads it whole);
- ``rejected``: each name the spec says vLLM fails on (or builds itself) added: both reject it;
- ``past_count``: each stage tensor moved to the first stage vLLM does not build added: vLLM's
  MTP loader skips it, its DSpark loaders fail on a decoder-layer name and load a model-level
  one;
- ``stage_removed``: every tensor of one stage removed (classic MTP's per-stage check);
- ``expert_past_count``: each per-expert tensor of stage 0's last expert added as the expert the
  count stops at and as expert 1000: no expert mapping names it, vLLM's loaders drop it;
- ``hostile``: one name added at a time: an unknown tensor under every stage vLLM builds, the
  other methods' tensors there, the classic-MTP and
  DSpark heads (``hc_head_fn``, ``confidence_head``) and the shared head under the engine's
  name (``shared_head.*``), each module's name without its tensor's ``.weight``
  (``mtp.0.attn_norm``) and each one-tensor parameter's name with one
  (``mtp.0.hc_attn_fn.weight``): where vLLM's loader cannot place a name, the generated check
  rejects it for that method;
- ``unsuffixed``: each ``.weight`` tensor of a stage shipped under its module's name instead
  (of the routed experts', the last expert's).

Compared for each: vLLM accepts exactly when the generated check does; a tensor vLLM's loader
raises on (KeyError, AttributeError) is the one the generated check rejects; where vLLM's
track_weights_loading raises, its ValueError names exactly the parameters of the generated
check's failing weights (parameters, not shards); where MTP's per-stage check raises, the stage
is the generated check's first failing stage; where vLLM accepts, the generated check fails on
nothing (what is missing is loaded uninitialized: its warnings); and what vLLM's recorder saw
unloaded, checked or not, is what the generated check's missing weights stand for.
"""

from __future__ import annotations

import ast

import pytest
from conformancecases import checkpoint_cases

CASES = checkpoint_cases()
KINDS = (
    "full",
    "mapped",
    "each_removed",
    "renamed",
    "rejected",
    "past_count",
    "stage_removed",
    "expert_past_count",
    "hostile",
    "unsuffixed",
)
MODES = ("unquantized", "quantized")  # the target (and so the draft) quantized or not


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


def _params(names: list[str], full: list[str], mapped: dict, head: str) -> list[str]:
    """The vLLM parameters (not shards: vLLM tracks parameters) the generated names stand for."""
    unloaded = _unloaded({"missing": names}, full, mapped, head)
    return sorted({param.partition("#")[0] for param in unloaded})


def _not_initialized(message: str) -> list[str]:
    """The parameter names in DefaultModelLoader.track_weights_loading's ValueError."""
    prefix = "Following weights were not initialized from checkpoint: "
    assert message.startswith(prefix), message
    return sorted(ast.literal_eval(message[len(prefix) :]))


PARAMS = [(kind, mode) for kind in KINDS for mode in (MODES if kind != "mapped" else ("any",))]


@pytest.mark.parametrize(("kind", "mode"), PARAMS, ids=[f"{k}-{m}" for k, m in PARAMS])
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_checkpoint_check_agrees_with_vllm_loader(answers, case_id, kind, mode):
    answer = answers[case_id]
    head = CASES[case_id]["stage_head"]
    full = sorted(answer["mapped"]["vllm"])
    mapped = answer["mapped"]["generated"]
    vllm, generated = answer[kind]["vllm"], answer[kind]["generated"]
    if kind == "mapped":
        assert generated == vllm
        return
    if kind == "full":
        stages = vllm["stages"]  # the decoder layers vLLM's draft model built
        assert (vllm[mode], vllm["unloaded"]) == ({"accept": True}, [])
        assert generated[mode] == {"accept": True, "fails": [], "uninitialized": [], "rejected": []}
        assert generated["stages"] == stages
        return
    assert sorted(vllm) == sorted(generated)  # the same tensors tried on both sides
    if kind == "rejected":
        assert vllm, "the spec names no tensor vLLM rejects for this set"
    for tensor in sorted(vllm):
        engine, ours = vllm[tensor][mode], generated[tensor][mode]
        where = f"{tensor}: vLLM {vllm[tensor]}, generated {generated[tensor]}"
        # vLLM's model.load_weights raised on a tensor (KeyError, AttributeError): the tensor is
        # the one vLLM fails on when loading it alone raises too (alone, a skipped tensor trips
        # MTP's "layer N weights missing" instead, which a whole checkpoint does not); what it
        # left unloaded is then unknown
        raised = vllm[tensor]["unloaded"] is None
        fails = raised and "raises" in vllm[tensor].get("probe", {})
        assert ours["accept"] == engine["accept"], where
        assert ours["rejected"] == ([tensor] if fails else []), where
        if raised:
            continue
        # what vLLM's recorder saw unloaded, checked or not: the generated check's missing names
        assert _unloaded(generated[tensor], full, mapped, head) == vllm[tensor]["unloaded"], where
        stage_fails = [n for n in ours["fails"] if n.endswith(".*")]
        assert sorted(ours["fails"] + ours["uninitialized"]) == sorted(
            stage_fails + generated[tensor]["missing"]
        ), where
        if engine["accept"]:  # vLLM left them uninitialized
            assert ours["fails"] == [], where
        elif "stage" in engine:  # DeepSeekV4MTP.load_weights: the first stage that loaded nothing
            assert stage_fails[:1] == [f"{head}{engine['stage']}.*"], where
        else:  # track_weights_loading: exactly the parameters vLLM names
            assert engine["raises"] == "ValueError", where
            assert not stage_fails, where
            expected = _not_initialized(engine["message"])
            assert _params(ours["fails"], full, mapped, head) == expected, where


def test_the_hostile_corpus_is_tried_on_every_case(answers):
    """Every case gets hostile names, and vLLM's loader rejects some (an unknown tensor under a
    stage always); the comparison above judges each."""
    tried = {case_id: answers[case_id]["hostile"]["vllm"] for case_id in CASES}
    assert all(tried.values()), [c for c, names in tried.items() if not names]
    verdicts = [
        vllm[mode]["accept"]
        for names in tried.values()
        for vllm in names.values()
        for mode in MODES
    ]
    assert False in verdicts
    print(
        f"\nhostile checkpoints: {sum(map(len, tried.values()))} tensors x {len(MODES)} modes over "
        f"{len(CASES)} cases: vLLM rejects {verdicts.count(False)}, loads {verdicts.count(True)}"
    )
    unsuffixed = sum(len(answers[c]["unsuffixed"]["vllm"]) for c in CASES)
    print(f"unsuffixed checkpoints: {unsuffixed} x {len(MODES)} modes")
