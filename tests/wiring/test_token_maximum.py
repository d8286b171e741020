"""num_speculative_tokens.maximum holds for a default as for an explicit count (issue 26 item
3): with `maximum: 5`, a draft config saying `dspark_block_size: 7` used to resolve to 7. The
expected messages are written out here, not taken from the planner."""

from __future__ import annotations

from pathlib import Path

import pytest
from wiringhelpers import child_spec_module

MT = "deepseek_v4_capped"


@pytest.fixture(scope="module")
def speculative(tmp_path_factory):
    child = Path(__file__).parent / "token_maximum" / "deepseek_v4_capped.yaml"
    with child_spec_module(child, "speculative", tmp_path_factory.mktemp("capped")) as module:
        yield module


@pytest.mark.parametrize("field", ["block_size", "dspark_block_size"])
def test_a_default_above_the_maximum_is_refused_naming_its_field(speculative, field):
    with pytest.raises(ValueError) as error:
        speculative.resolve_num_speculative_tokens(MT, "dspark", {field: 7})
    assert str(error.value) == (
        f"num_speculative_tokens defaults to 7 (the draft config's {field}), above the maximum "
        "of 5 for DeepSeek V4 Capped with DSpark; set num_speculative_tokens to at most 5."
    )


def test_a_default_at_the_maximum_stands(speculative):
    assert speculative.resolve_num_speculative_tokens(MT, "dspark", {"dspark_block_size": 5}) == 5


def test_an_explicit_count_is_still_checked(speculative):
    with pytest.raises(ValueError, match="num_speculative_tokens:6 is above the maximum of 5"):
        speculative.resolve_num_speculative_tokens(MT, "dspark", {"dspark_block_size": 7}, 6)
    assert (
        speculative.resolve_num_speculative_tokens(MT, "dspark", {"dspark_block_size": 7}, 4) == 4
    )


def test_the_parent_without_a_maximum_keeps_its_default(speculative):
    assert (
        speculative.resolve_num_speculative_tokens("deepseek_v4", "dspark", {"block_size": 7}) == 7
    )
