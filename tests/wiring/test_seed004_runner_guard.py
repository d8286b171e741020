"""Seed 004's MRV1 PIECEWISE guard and default-runner set, as a spec of the language
(tests/wiring/seed004/), with seed 004's own reject / allow matrix (tests/test_config.py of
vLLM PR #51768). vLLM 0.33.0 dropped both, so the real V4 spec does not state them; the language
must still say them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from wiringhelpers import child_spec_module

MESSAGE = (
    "DeepSeek V4 does not support PIECEWISE CUDA graphs with Model Runner V1. "
    "Use Model Runner V2 or disable PIECEWISE CUDA graphs."
)


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    child = Path(__file__).parent / "seed004" / "deepseek_v4_seed004.yaml"
    with child_spec_module(child, "runner", tmp_path_factory.mktemp("seed004")) as module:
        yield module


def _config(use_v2_model_runner, architecture, mode, runner):
    return SimpleNamespace(
        use_v2_model_runner=use_v2_model_runner,
        model_config=SimpleNamespace(architectures=[architecture]),
        compilation_config=SimpleNamespace(cudagraph_mode=getattr(runner.CUDAGraphMode, mode)),
        speculative_config=None,
    )


@pytest.mark.parametrize("mode", ["PIECEWISE", "FULL_AND_PIECEWISE"])
def test_deepseek_v4_rejects_mrv1_piecewise_cudagraph(runner, mode):
    with pytest.raises(ValueError) as raised:
        runner.validate_runner_modes(_config(False, "DeepseekV4ForCausalLM", mode, runner))
    assert str(raised.value) == MESSAGE


@pytest.mark.parametrize(
    ("use_v2_model_runner", "architecture", "mode"),
    [
        (True, "DeepseekV4ForCausalLM", "PIECEWISE"),  # MRV2
        (False, "DeepseekV4ForCausalLM", "NONE"),  # eager
        (False, "DeepseekV4ForCausalLM", "FULL"),  # full graphs
        (False, "DeepseekV4ForCausalLM", "FULL_DECODE_ONLY"),
        (False, "LlamaForCausalLM", "PIECEWISE"),  # another architecture
    ],
)
def test_mrv1_piecewise_cudagraph_allowed(runner, use_v2_model_runner, architecture, mode):
    runner.validate_runner_modes(_config(use_v2_model_runner, architecture, mode, runner))


def test_deepseek_v4_defaults_to_model_runner_v2(runner):
    assert runner.default_uses_v2_model_runner("DeepseekV4ForCausalLM") is True
    assert runner.default_uses_v2_model_runner("LlamaForCausalLM") is None
