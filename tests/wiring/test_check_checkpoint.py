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
    "shared_head.norm",
    "shared_head.head",
]


def _save(path, names):
    safetensors_numpy.save_file(
        {f"{n}.weight": numpy.zeros(2, dtype=numpy.float32) for n in names}, str(path)
    )


def _stages(weights, stages):
    return [f"mtp.{i}.{w}" for i in range(stages) for w in weights]


def test_v41_dspark_checkpoint_is_servable(tmp_path):
    _save(tmp_path / "model-00001.safetensors", _stages(V41_DSPARK, 2))
    _save(
        tmp_path / "model-00002.safetensors", _stages(V41_DSPARK, 3)[10:] + ["model.embed_tokens"]
    )
    (tmp_path / "config.json").write_text(json.dumps({"num_nextn_predict_layers": 3}))
    result = run_cli(
        "check-checkpoint", str(SPECS / "deepseek_v41.yaml"), str(tmp_path), "--method", "dspark"
    )
    assert result.returncode == 0, result.stderr
    assert "servable speculative methods: dspark" in result.stdout
    assert "all required weights present" in result.stdout


def test_missing_weights_are_named_exactly(tmp_path):
    names = [
        n for n in _stages(V41_DSPARK, 3) if n not in ("mtp.1.markov_head.embed", "mtp.2.norm")
    ]
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
        "  mtp.1.markov_head.embed",
        "  mtp.2.norm",
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


def test_forbidden_method_prints_the_fix(tmp_path):
    _save(tmp_path / "model.safetensors", _stages(V41_DSPARK, 3))
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
