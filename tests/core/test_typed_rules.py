"""The rules on the typed model (spec/validate/typed.py) that the golden cases do not reach,
each with its location and text written out by hand; and the typed parse is total: a method's
`weights:` that names no weight set parses into a value the rule reports."""

from __future__ import annotations

import pytest
from corehelpers import cli, copy_specs, line_of

from dsv41gen.spec.model import SpeculativeMethod, UnresolvedWeightSet

_METHOD = {
    "label": "MTP",
    "weights": "no_such_set",
    "draft_model_type": "deepseek_v4",
    "tokens_per_round": {"sources": ["num_nextn_predict_layers"]},
    "num_speculative_tokens": {"default": "none", "divisibility": "none"},
}


def test_an_undeclared_weight_set_parses_into_an_unresolved_reference():
    method = SpeculativeMethod.parse("mtp", _METHOD, {})
    assert method.weights == UnresolvedWeightSet("no_such_set")


def _check_v4(tmp_path, old: str, new: str):
    specs = copy_specs(tmp_path / "specs")
    spec = specs / "deepseek_v4.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    spec.write_text(text.replace(old, new), encoding="utf-8")
    return spec, cli(["check", "specs/deepseek_v4.yaml"], cwd=tmp_path)


@pytest.mark.parametrize(
    ("old", "new", "at", "column", "field", "message"),
    [
        (
            "  num_hidden_layers: 43\n",
            "  num_hidden_layers: -1\n",
            '      maps_to: "model.layers.{num_hidden_layers+i}."',
            7,
            "checkpoint.weight_sets.classic_mtp.maps_to",
            "hf_config.num_hidden_layers is -1: the stage offset must be a non-negative integer",
        ),
        (
            "        warn_above: 1 #",
            "        maximum: 4\n        warn_above: 4 #",
            "        warn_above: 4 #",
            9,
            "speculative.methods.mtp.num_speculative_tokens.warn_above",
            "warn_above (4) >= maximum (4): the warning could never fire",
        ),
    ],
    ids=["negative stage offset", "warning that cannot fire"],
)
def test_typed_rule_refusals(tmp_path, old, new, at, column, field, message):
    spec, result = _check_v4(tmp_path, old, new)
    assert result.rc == 1, result.output
    assert (
        f"specs/deepseek_v4.yaml:{line_of(spec, at)}:{column}: {field}: {message}"
    ) in result.stderr


def test_a_set_that_requires_no_weight_is_refused(tmp_path):
    old = "      required:\n        - enorm\n"
    spec, result = _check_v4(tmp_path, old, "      optional:\n        - enorm\n")
    assert result.rc == 1, result.output
    line = line_of(spec, "    classic_mtp:")
    assert (
        f"specs/deepseek_v4.yaml:{line}:5: checkpoint.weight_sets.classic_mtp.required: the set "
        "requires no weight: list the weights every stage has under `required` or the "
        "model-level ones under `shared.required`"
    ) in result.stderr
