"""`dsv41gen check-checkpoint` on checkpoints the tests write: safetensors headers and an index."""

from __future__ import annotations

import json

import pytest
from wiringhelpers import SPECS, run_cli

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


def _save(path, names):
    safetensors_numpy.save_file(
        {f"{n}.weight": numpy.zeros(2, dtype=numpy.float32) for n in names}, str(path)
    )


def _stages(weights, stages):
    return [f"mtp.{i}.{w}" for i in range(stages) for w in weights]


def _v41(last_stage=2):
    """V4.1 DSpark's model-level weights: loaded once, from whichever stage carries them."""
    return [f"mtp.{last_stage}.{w}" for w in V41_DSPARK]


def test_v41_dspark_checkpoint_is_servable(tmp_path):
    _save(tmp_path / "model-00001.safetensors", _v41()[:2])
    _save(tmp_path / "model-00002.safetensors", _v41()[2:] + ["model.embed_tokens"])
    (tmp_path / "config.json").write_text(json.dumps({"num_nextn_predict_layers": 3}))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path), "--method", "dspark"
    )
    assert result.returncode == 0, result.stderr
    assert "servable speculative methods: dspark" in result.stdout
    assert "all required weights present" in result.stdout


def test_missing_weights_are_named_exactly(tmp_path):
    names = [n for n in _v41() if n not in ("mtp.2.markov_head.embed", "mtp.2.norm")]
    _save(tmp_path / "model.safetensors", names)
    result = run_cli(
        "check-checkpoint",
        str(SPECS / "deepseek_v41.yaml"),
        str(tmp_path / "model.safetensors"),
        "--method",
        "dspark",
    )
    assert result.returncode == 4
    assert result.stdout.splitlines()[-3:] == [
        "method 'dspark': 2 required weight(s) missing:",
        "  mtp.*.norm",
        "  mtp.*.markov_head.embed",
    ]


def test_v4_classic_mtp_from_an_index_file(tmp_path):
    _save(tmp_path / "model-00001.safetensors", _stages(V4_MTP, 1))  # the shard the index names
    index = {"weight_map": {f"{n}.weight": "model-00001.safetensors" for n in _stages(V4_MTP, 1)}}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v4.yaml"), str(tmp_path), "--method", "mtp"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "servable speculative methods: mtp" in result.stdout


def test_v4_classic_mtp_with_shared_head_names_is_rejected(tmp_path):
    """vLLM 0.33.0's loader rewrites mtp.0.shared_head.norm into shared_head.shared_head.norm
    (a KeyError): such a checkpoint fails to load, so the check refuses it and names it."""
    names = [n for n in _stages(V4_MTP, 1) if not n.endswith((".norm", ".head"))]
    _save(tmp_path / "model.safetensors", names + ["mtp.0.shared_head.norm", "mtp.0.head"])
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v4.yaml"), str(tmp_path), "--method", "mtp"
    )
    assert result.returncode == 4, result.stdout + result.stderr
    assert result.stdout.splitlines()[-4:] == [
        "method 'mtp': 1 required weight(s) missing:",
        "  mtp.0.norm",
        "method 'mtp': 1 tensor(s) the engine's loader fails on:",
        "  mtp.0.shared_head.norm.weight: the engine's loader has no parameter for this name",
    ]


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
