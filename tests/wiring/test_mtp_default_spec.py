"""An MTP default of tokens per round (the draft's n_predict), as a spec of the language
(tests/wiring/mtp_default/): vLLM 0.33.0 crashes before that default applies, so the real V4
spec says `default: none`; the language must still state the default ([ref §1]) and the
generated code apply it, while the real spec's refusal stays as it is beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from wiringhelpers import child_spec_module


@pytest.fixture(scope="module")
def speculative(tmp_path_factory):
    child = Path(__file__).parent / "mtp_default" / "deepseek_v4_mtp_default.yaml"
    with child_spec_module(child, "speculative", tmp_path_factory.mktemp("mtp_default")) as module:
        yield module


@pytest.mark.parametrize("n_predict", [1, 3])
def test_the_stated_default_is_the_drafts_n_predict(speculative, n_predict):
    config = {"num_nextn_predict_layers": n_predict}
    resolve = speculative.resolve_num_speculative_tokens
    assert resolve("deepseek_v4_mtp_default", "mtp", config) == n_predict


def test_no_n_predict_and_no_request_is_vllms_error(speculative):
    with pytest.raises(ValueError) as error:
        speculative.resolve_num_speculative_tokens("deepseek_v4_mtp_default", "mtp", {})
    assert str(error.value) == (
        "A speculative model was provided, but `num_speculative_tokens` was not provided"
    )


def test_the_real_spec_beside_it_still_refuses(speculative):
    config = {"num_nextn_predict_layers": 3}
    with pytest.raises(ValueError, match="needs num_speculative_tokens: vLLM 0.33.0"):
        speculative.resolve_num_speculative_tokens("deepseek_v4", "mtp", config)
    # a request that names the count is served alike by both
    with pytest.warns(UserWarning):
        assert speculative.resolve_num_speculative_tokens("deepseek_v4", "mtp", config, 6) == 6
    with pytest.warns(UserWarning):
        assert (
            speculative.resolve_num_speculative_tokens("deepseek_v4_mtp_default", "mtp", config, 6)
            == 6
        )
