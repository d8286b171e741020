"""Adding a variant is YAML only: a new spec beside the real ones, built and imported, changes
behaviour with no Python or template edit (the README walks through the same file)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from wiringhelpers import GENERATED_PYTEST, run_cli

V42 = textwrap.dedent(
    """\
    spec_version: 1
    extends: deepseek_v41.yaml

    variant:
      name: deepseek_v42
      display_name: DeepSeek V4.2
      model_type: deepseek_v42

    architectures:
      DeepseekV41ForCausalLM: !delete
      DSparkV41DraftModel: !delete
      DeepseekV42ForCausalLM:
        registry: multimodal
        module: vllm.models.deepseek_v41
        class: DeepseekV41ForCausalLM

    speculative:
      methods:
        dspark: !delete          # drop a speculative method
      forbidden:
        mtp: !delete

    attention_backends:
      DeepseekV41IndexerBackend: !delete
      DeepseekV41SparseIndexerBackend: !delete
      DeepseekV41RocmMxfp4IndexerBackend: !delete
      FLASHMLA_SPARSE_DSV41: !delete
      FLASHMLA_MEGA_ATTN_DSV41: !delete
      FLASHINFER_MLA_SPARSE_DSV41: !delete
      DeepseekV42IndexerBackend:
        name: DEEPSEEK_V42_INDEXER
        parent: DeepseekV41IndexerBackend
        kernel_block_sizes:      # new block sizes for one capability family
          by_capability_family:
            sm90: [64]
            sm100: [256]
          default: [128]

    runner:
      default_model_runner:
        DeepseekV42ForCausalLM: v2
      forbidden_modes:
        mrv1_full:               # a new forbidden runner mode
          architectures: [DeepseekV42ForCausalLM]
          model_runner: v1
          cudagraph_modes: [FULL, FULL_DECODE_ONLY]
          message: DeepSeek V4.2 needs Model Runner V2 for FULL CUDA graphs.
    """
)

CHECKS = textwrap.dedent(
    """\
    import pytest
    from deepseek_v4 import backends, registry, runner, speculative
    from deepseek_v4._binding import CUDAGraphMode

    # block sizes changed for sm100 only; sm90 and the default are inherited values
    for family, expected in ((90, [64]), (100, [256]), (120, [128]), (None, [128])):
        backends.device_is_capability_family = lambda f, family=family: f == family
        assert backends.DeepseekV42IndexerBackend.get_supported_kernel_block_sizes() == expected
    assert backends.DeepseekV42IndexerBackend.__bases__ == (backends.DeepseekV41IndexerBackend,)
    assert set(vars(backends.DeepseekV42IndexerBackend)) & {"get_name", "get_supported_kernel_block_sizes"} == {
        "get_name", "get_supported_kernel_block_sizes"}

    # the new forbidden runner mode, and V4's guard still in force
    with pytest.raises(ValueError, match="V4.2 needs Model Runner V2"):
        runner.check_runner_mode(["DeepseekV42ForCausalLM"], False, CUDAGraphMode.FULL)
    runner.check_runner_mode(["DeepseekV42ForCausalLM"], True, CUDAGraphMode.FULL)
    runner.check_runner_mode(["DeepseekV41ForCausalLM"], False, CUDAGraphMode.FULL)
    assert runner.default_uses_v2_model_runner("DeepseekV42ForCausalLM") is True

    # the dropped method is rejected for V4.2 only
    # V4.2 wires no method at all: the message says so, not "supported: ."
    with pytest.raises(ValueError) as refused:
        speculative.validate_method("deepseek_v42", "dspark")
    assert str(refused.value) == (
        "DeepSeek V4.2 does not support speculative method 'dspark'; "
        "supported: none (its spec wires no speculative method)."
    ), str(refused.value)
    speculative.validate_method("deepseek_v41", "dspark")
    assert speculative.draft_config_overrides("deepseek_v41", "dspark", {"num_nextn_predict_layers": 3})["n_predict"] == 3

    assert registry.MULTIMODAL_MODELS["DeepseekV42ForCausalLM"] == ("vllm.models.deepseek_v41", "DeepseekV41ForCausalLM")
    print("ok")
    """
)


def test_new_variant_is_yaml_only(spec_dir, tmp_path):
    (spec_dir / "deepseek_v42.yaml").write_text(V42)
    out = tmp_path / "out"
    built = run_cli("build", str(spec_dir / "deepseek_v42.yaml"), "--out", str(out))
    assert built.returncode == 0, built.stderr
    assert "Traceback" not in built.stderr
    checked = run_cli("check", str(spec_dir / "deepseek_v42.yaml"), "--out", str(out))
    assert checked.returncode == 0, checked.stderr

    run = subprocess.run(
        [sys.executable, "-c", CHECKS], cwd=out, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"

    # the new variant's own generated tests pass too
    tests = subprocess.run(
        [
            *GENERATED_PYTEST,
            str(out / "deepseek_v4" / "tests"),
        ],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert " passed" in tests.stdout
