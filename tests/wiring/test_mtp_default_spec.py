"""An MTP default of tokens per round (the draft's n_predict), as a spec of the language
(tests/wiring/mtp_default/): vLLM 0.33.0 crashes before that default applies, so the real V4
spec says `default: none`; the language must still state the default ([ref §1]) and the
generated code apply it, while the real spec's refusal stays as it is beside it."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def speculative(tmp_path_factory):
    specs = tmp_path_factory.mktemp("mtp-default-specs")
    shutil.copy(REPO / "specs" / "deepseek_v4.yaml", specs)
    shutil.copy(Path(__file__).parent / "mtp_default" / "deepseek_v4_mtp_default.yaml", specs)
    out = tmp_path_factory.mktemp("mtp-default-out")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dsv41gen",
            "build",
            str(specs / "deepseek_v4_mtp_default.yaml"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # Another test's build of the package may be imported already: set it aside, then restore.
    ours = [m for m in sys.modules if m == "deepseek_v4" or m.startswith("deepseek_v4.")]
    saved = {name: sys.modules.pop(name) for name in ours}
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("deepseek_v4.speculative")
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == "deepseek_v4" or m.startswith("deepseek_v4.")]:
            del sys.modules[name]
        sys.modules.update(saved)


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
