"""`dsv41gen check-checkpoint` on checkpoints the tests write: safetensors headers and an index."""

from __future__ import annotations

import json

import pytest
from wiringhelpers import SPECS, copy_specs, decoder_blocks, run_cli, tensor_of

numpy = pytest.importorskip("numpy")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

V41_DSPARK = ["main_proj", "main_norm", "norm", "markov_head.embed", "markov_head.head"]
V4_MTP = [
    "enorm",
    "hnorm",
    "e_proj",
    "h_proj",
    "hc_head_fn",
    "hc_head_base",
    "hc_head_scale",
    "norm",  # vLLM 0.33.0's MTP loader maps these onto shared_head.*
    "head",
]


# V4's mHC head weights and the decoder block's mHC weights and attention sink are
# nn.Parameters: the tensor is the name itself (vLLM 0.33.0's loader fails on hc_head_fn.weight
# and hc_attn_fn.weight; checkpoint.weight_sets.<set>.parameters and .block.parameters), by
# the name's last part here
def _save(path, names):
    safetensors_numpy.save_file(
        {tensor_of(n): numpy.zeros(2, dtype=numpy.float32) for n in names}, str(path)
    )


def _stages(weights, stages):
    return [f"mtp.{i}.{w}" for i in range(stages) for w in weights]


def _v41(last_stage=2):
    """V4.1 DSpark's model-level weights (loaded once, from whichever stage carries them) and
    its three stages' decoder blocks with two routed experts each."""
    return [f"mtp.{last_stage}.{w}" for w in V41_DSPARK] + decoder_blocks(3, EXPERTS)


# routed experts per block in the checkpoints written here (their config.json says so)
EXPERTS = 2
CONFIG = {"n_routed_experts": EXPERTS}


def test_v41_dspark_checkpoint_is_servable(tmp_path):
    _save(tmp_path / "model-00001.safetensors", _v41()[:2])
    _save(tmp_path / "model-00002.safetensors", _v41()[2:] + ["model.embed_tokens"])
    (tmp_path / "config.json").write_text(json.dumps({"num_nextn_predict_layers": 3, **CONFIG}))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path), "--method", "dspark"
    )
    assert result.returncode == 0, result.stderr
    assert "servable speculative methods: dspark" in result.stdout
    assert "all required weights present" in result.stdout


def test_missing_weights_are_named_exactly(tmp_path):
    names = [n for n in _v41() if n not in ("mtp.2.markov_head.embed", "mtp.2.norm")]
    names = [n for n in names if n not in ("mtp.1.attn.wq_a", "mtp.0.ffn.experts.1.w3")]
    _save(tmp_path / "model.safetensors", names)
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    result = run_cli(
        "check-checkpoint",
        str(SPECS / "deepseek_v41.yaml"),
        str(tmp_path / "model.safetensors"),
        "--method",
        "dspark",
    )
    assert result.returncode == 4
    unchecked = "the engine's loader checks every parameter of an unquantized draft"
    never = (
        "is never checked by the engine's loader (a quantizable layer): it is loaded uninitialized"
    )
    assert result.stdout.splitlines()[-6:] == [
        "method 'dspark': 2 missing weight(s) the engine's loader fails on:",
        f"  mtp.*.norm: not loaded: {unchecked}",
        f"  mtp.*.markov_head.embed: not loaded: {unchecked}",
        # a linear of the block and a routed expert are quantizable layers (vLLM 0.33.0)
        "method 'dspark': 2 missing weight(s) the engine loads uninitialized:",
        f"  warning: mtp.0.ffn.experts.1.w3: ffn.experts {never}",
        f"  warning: mtp.1.attn.wq_a: attn.wq_a {never}",
    ]


def test_a_stacked_weight_may_ship_as_the_merged_parameter(tmp_path):
    """vLLM 0.33.0 loads attn.fused_wqa_wkv whole when a checkpoint ships it (every shard); a
    routed expert past the count is dropped by its loader (no expert mapping names it)."""
    names = [n for n in _v41() if not n.endswith((".attn.wq_a", ".attn.wkv"))]
    names += [f"mtp.{i}.attn.fused_wqa_wkv" for i in range(3)] + ["mtp.0.ffn.experts.2.w1"]
    _save(tmp_path / "model.safetensors", names)
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path), "--method", "dspark"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all required weights present" in result.stdout


def test_v4_classic_mtp_from_an_index_file(tmp_path):
    names = _stages(V4_MTP, 1) + decoder_blocks(1, EXPERTS)
    _save(tmp_path / "model-00001.safetensors", names)  # the shard the index names
    index = {"weight_map": {tensor_of(n): "model-00001.safetensors" for n in names}}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v4.yaml"), str(tmp_path), "--method", "mtp"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "servable speculative methods: mtp" in result.stdout


def test_v4_classic_mtp_with_shared_head_names_is_rejected(tmp_path):
    """vLLM 0.33.0's loader rewrites mtp.0.shared_head.norm into shared_head.shared_head.norm
    (a KeyError): such a checkpoint fails to load, so the check refuses it and names it."""
    names = [n for n in _stages(V4_MTP, 1) if not n.endswith((".norm", ".head"))]
    names += decoder_blocks(1, EXPERTS)
    _save(tmp_path / "model.safetensors", names + ["mtp.0.shared_head.norm", "mtp.0.head"])
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v4.yaml"), str(tmp_path), "--method", "mtp"
    )
    assert result.returncode == 4, result.stdout + result.stderr
    assert result.stdout.splitlines()[-4:] == [
        "method 'mtp': 1 missing weight(s) the engine's loader fails on:",
        "  mtp.0.norm: not loaded: the engine's loader checks every parameter of an unquantized draft",
        "method 'mtp': 1 tensor(s) the engine's loader fails on:",
        "  mtp.0.shared_head.norm.weight: the engine's loader has no parameter for this name",
    ]


QUANTIZED = {"quantization_config": {"quant_method": "fp8"}}


def _check(tmp_path, spec, method, names, config, *flags):
    _save(tmp_path / "model.safetensors", names)
    (tmp_path / "config.json").write_text(json.dumps(config))
    return run_cli("check-checkpoint", str(SPECS / spec), str(tmp_path), "--method", method, *flags)


def test_quantized_draft_loads_a_missing_weight_uninitialized(tmp_path):
    """vLLM 0.33.0 checks completeness only for an unquantized draft (DefaultModelLoader): a
    quantized checkpoint lacking a head weight loads, the parameter uninitialized: a warning,
    exit 0; --strict makes it an error."""
    names = [n for n in _stages(V4_MTP, 1) if n != "mtp.0.enorm"] + decoder_blocks(1, EXPERTS)
    config = {"num_nextn_predict_layers": 1, **QUANTIZED, **CONFIG}
    result = _check(tmp_path, "deepseek_v4.yaml", "mtp", names, config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-3:] == [
        "method 'mtp': 1 missing weight(s) the engine loads uninitialized (config.json: quantized):",
        "  warning: mtp.0.enorm: the draft is quantized: the engine's loader checks no parameter, "
        "this one is loaded uninitialized",
        "method 'mtp': loads, with uninitialized weights (--strict: exit 4)",
    ]
    strict = _check(tmp_path, "deepseek_v4.yaml", "mtp", names, config, "--strict")
    assert strict.returncode == 4, strict.stdout + strict.stderr
    unquantized = _check(tmp_path, "deepseek_v4.yaml", "mtp", names, CONFIG)
    assert unquantized.returncode == 4, unquantized.stdout
    assert "  mtp.0.enorm: not loaded:" in unquantized.stdout


def test_untracked_weight_is_a_warning_even_unquantized(tmp_path):
    """e_proj is a ReplicatedLinear: vLLM's track_weights_loading counts a layer with a
    quant_method as loaded, so an unquantized draft without it loads too."""
    names = [n for n in _stages(V4_MTP, 1) if n != "mtp.0.e_proj"] + decoder_blocks(1, EXPERTS)
    result = _check(tmp_path, "deepseek_v4.yaml", "mtp", names, CONFIG)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "  warning: mtp.0.e_proj: e_proj is never checked by the engine's loader (a quantizable "
        "layer): it is loaded uninitialized" in result.stdout
    )


def test_mtp_stage_without_tensors_fails_even_quantized(tmp_path):
    """DeepSeekV4MTP.load_weights fails on a stage that loaded nothing, quantized or not."""
    config = {"num_nextn_predict_layers": 2, **QUANTIZED, **CONFIG}
    names = _stages(V4_MTP, 1) + decoder_blocks(1, EXPERTS)
    result = _check(tmp_path, "deepseek_v4.yaml", "mtp", names, config)
    assert result.returncode == 4, result.stdout + result.stderr
    assert result.stdout.splitlines()[2:4] == [
        "method 'mtp': 1 missing weight(s) the engine's loader fails on:",
        "  mtp.1.*: stage 1 loads no tensor: the engine's loader fails on such a stage, "
        "quantized or not",
    ]


def test_dspark_context_wkv_shard_is_a_warning(tmp_path):
    """V4 DSpark builds context_wkv_proj from every stage's attn.wkv; vLLM tracks the parameter
    (a quantizable layer), not its shards: a stage without attn.wkv loads, its shard unset (and
    its block's fused_wqa_wkv shard: a quantizable layer too)."""
    shared = [
        "main_proj",
        "main_norm",
        "norm",
        "hc_head_fn",
        "hc_head_base",
        "hc_head_scale",
        "markov_head.markov_w1",
        "markov_head.markov_w2",
    ]
    names = [f"mtp.2.{w}" for w in shared] + decoder_blocks(3, EXPERTS)
    names = [n for n in names if n != "mtp.1.attn.wkv"]
    result = _check(tmp_path, "deepseek_v4.yaml", "dspark", names, CONFIG)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "  warning: mtp.1.attn.wkv: context_wkv_proj is never checked by the engine's loader (a "
        "quantizable layer): this stage's shard is loaded uninitialized" in result.stdout
    )
    assert _check(tmp_path, "deepseek_v4.yaml", "dspark", names, {}, "--strict").returncode == 4


def test_forbidden_method_prints_the_fix(tmp_path):
    _save(tmp_path / "model.safetensors", _v41())
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path), "--method", "mtp"
    )
    assert result.returncode == 4
    assert "Use speculative method 'dspark' instead of 'mtp'." in result.stdout


def test_unreadable_checkpoint_is_a_usage_error(tmp_path):
    (tmp_path / "model.safetensors.index.json").write_text("{}")
    result = run_cli("check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path))
    assert result.returncode == 2
    assert "no 'weight_map'" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_expert_past_the_count_is_dropped_or_rejected_as_the_spec_says(tmp_path):
    """vLLM 0.33.0's expert mapping names experts below the count only, so its loaders drop a
    tensor of expert 2 of 2 (`past_count: skipped`, the specs'); a loader that failed on one
    (`past_count: rejected`) makes the check refuse and name it."""
    names = _v41() + ["mtp.0.ffn.experts.2.w1"]
    _save(tmp_path / "model.safetensors", names)
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    skipped = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path), "--method", "dspark"
    )
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    specs = copy_specs(tmp_path / "specs")
    v4 = specs / "deepseek_v4.yaml"
    text = v4.read_text()
    assert text.count("past_count: skipped") == 1
    v4.write_text(text.replace("past_count: skipped", "past_count: rejected"))
    rejected = run_cli(
        "check-checkpoint", str(specs / "deepseek_v41.yaml"), str(tmp_path), "--method", "dspark"
    )
    assert rejected.returncode == 4, rejected.stdout + rejected.stderr
    assert rejected.stdout.splitlines()[-2:] == [
        "method 'dspark': 1 tensor(s) the engine's loader fails on:",
        "  mtp.0.ffn.experts.2.w1.weight: the engine's loader builds 2 routed expert(s): expert 2 "
        "has no parameter",
    ]


def _shipped(names):
    """Tensor names as _save writes them."""
    return [tensor_of(n) for n in names]


def _check_tensors(tmp_path, spec, method, tensors, config):
    safetensors_numpy.save_file(
        {t: numpy.zeros(2, dtype=numpy.float32) for t in tensors}, str(tmp_path / "m.safetensors")
    )
    (tmp_path / "config.json").write_text(json.dumps(config))
    return run_cli("check-checkpoint", str(SPECS / spec), str(tmp_path), "--method", method)


@pytest.mark.parametrize("beside", [True, False], ids=["beside-the-tensor", "instead"])
def test_a_module_shipped_without_its_weight_suffix_is_refused(tmp_path, beside):
    """vLLM 0.33.0's loaders look `mtp.1.attn_norm` up as a parameter and raise KeyError: the
    block's parameter is attn_norm.weight (the conformance site's `hostile` and `unsuffixed`
    kinds compare this with DefaultModelLoader for every module name)."""
    tensors = _shipped(_v41())
    tensors = [t for t in tensors if beside or t != "mtp.1.attn_norm.weight"]
    result = _check_tensors(
        tmp_path, "deepseek_v41.yaml", "dspark", tensors + ["mtp.1.attn_norm"], CONFIG
    )
    assert result.returncode == 4, result.stdout + result.stderr
    assert result.stdout.splitlines()[-2:] == [
        "method 'dspark': 1 tensor(s) the engine's loader fails on:",
        "  mtp.1.attn_norm: the engine's loader has no parameter for this name: no weight of the "
        "dspark set maps it",
    ]


def test_a_tensor_under_a_block_parameter_is_refused(tmp_path):
    """hc_attn_fn is an nn.Parameter of vLLM's decoder layer: hc_attn_fn.weight is a KeyError."""
    tensors = _shipped(_v41()) + ["mtp.0.hc_attn_fn.weight"]
    result = _check_tensors(tmp_path, "deepseek_v41.yaml", "dspark", tensors, CONFIG)
    assert result.returncode == 4, result.stdout + result.stderr
    assert "  mtp.0.hc_attn_fn.weight: the engine's loader has no parameter" in result.stdout


def test_an_experts_name_no_mapping_names_is_dropped(tmp_path):
    """vLLM 0.33.0 hands every `.experts.` name to its expert mapping, which skips
    `ffn.experts.1.w1` (the mapping names `experts.1.w1.`): it loads, as vLLM does."""
    tensors = _shipped(_v41()) + ["mtp.0.ffn.experts.1.w1"]
    result = _check_tensors(tmp_path, "deepseek_v41.yaml", "dspark", tensors, CONFIG)
    assert result.returncode == 0, result.stdout + result.stderr
