"""The Qwen hybrid family (specs/qwen3_next.yaml and its children) beside DeepSeek: adding it
changes no byte of DeepSeek's package, and its MTP drafts' checkpoint names follow vLLM 0.33.0's
loaders where the conformance venv cannot import them (Qwen3.5's and Qwen4Exp's draft modules
need torchvision; Qwen3NextMTP is compared with vLLM itself in tests/conformance/test_hybrid.py).
The expected names below were read off the wheel's code (qwen3_5_mtp.py:302-319,
models/qwen4_exp/nvidia/mtp.py:97-123 and its WeightsMapper), not computed by dsv41gen."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repohelpers import SPECS

QWEN_SPECS = ("qwen3_next.yaml", "qwen3_5.yaml", "qwen4_exp.yaml")
DEEPSEEK_SPECS = ("deepseek_v4.yaml", "deepseek_v41.yaml")


def _build(specs: Path, out: Path, *names: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", *(str(specs / n) for n in names)]
        + ["--out", str(out)],
        check=True,
        capture_output=True,
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_adding_the_qwen_family_changes_no_byte_of_deepseek(tmp_path):
    alone, beside = tmp_path / "alone", tmp_path / "beside"
    for where, names in ((alone, DEEPSEEK_SPECS), (beside, DEEPSEEK_SPECS + QWEN_SPECS)):
        (where / "specs").mkdir(parents=True)
        for name in names:
            shutil.copy(SPECS / name, where / "specs" / name)
    _build(alone / "specs", alone / "out", "deepseek_v41.yaml")
    _build(beside / "specs", beside / "out", "deepseek_v41.yaml", "qwen4_exp.yaml")
    assert sorted(p.name for p in (beside / "out").iterdir()) == ["deepseek_v4", "qwen3_next"]
    assert _tree(alone / "out" / "deepseek_v4") == _tree(beside / "out" / "deepseek_v4")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    out = tmp_path_factory.mktemp("qwen")
    specs = out / "specs"
    specs.mkdir()
    for name in QWEN_SPECS:
        shutil.copy(SPECS / name, specs / name)
    _build(specs, out / "out", "qwen4_exp.yaml")
    saved = {m: sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] == "qwen3_next"}
    sys.path.insert(0, str(out / "out"))
    try:
        yield importlib.import_module("qwen3_next.checkpoint")
    finally:
        sys.path.remove(str(out / "out"))
        for m in [m for m in sys.modules if m.split(".")[0] == "qwen3_next"]:
            del sys.modules[m]
        sys.modules.update(saved)


QWEN3_5_NAMES = {
    "mtp.fc.weight": "model.fc.weight",
    "mtp.layers.0.mtp.weight": "model.layers.0.model.weight",  # str.replace: every "mtp."
    "model.language_model.embed_tokens.weight": "model.embed_tokens.weight",
    "language_model.embed_tokens.weight": "embed_tokens.weight",
    "lm_head.weight": "lm_head.weight",
    "model.language_model.lm_head.weight": "model.language_model.lm_head.weight",
    "model.layers.0.self_attn.q_proj.weight": None,
    "visual.blocks.0.attn.qkv.weight": None,
}
QWEN4_EXP_NAMES = {
    "model.language_model.embed_tokens.weight": "model.embed_tokens.weight",
    "embed_tokens.weight": "model.embed_tokens.weight",
    "model.mtp.layers.0.input_layernorm.weight": "model.layers.0.input_layernorm.weight",
    "mtp.layers.0.mtp.weight": "model.layers.0.mtp.weight",  # replace(..., 1): the first only
    "mtp.shared_head.head.weight": "lm_head.weight",
    "language_model.shared_head.head.weight": "lm_head.weight",
    "model.lm_head.weight": "lm_head.weight",
    "lm_head.weight": "lm_head.weight",
    "model.layers.0.self_attn.q_proj.weight": None,
    "mtp.layers.0.hyper_connection_mixer.block_inject_weight": None,  # the WeightsMapper's drop
}


@pytest.mark.parametrize(
    ("architecture", "names"),
    [
        ("Qwen3_5MTP", QWEN3_5_NAMES),
        ("Qwen3_5MoeMTP", QWEN3_5_NAMES),
        ("Qwen4ExpMTP", QWEN4_EXP_NAMES),
    ],
)
def test_draft_checkpoint_names_are_the_wheels(checkpoint, architecture, names):
    got = {name: checkpoint.remap_draft_weight_name(architecture, name) for name in names}
    assert got == names


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        (
            "- linear_value_head_dim\n",
            "- linear_value_head_dim ** 2\n",
            "a dimension may use integers, HF config field names, tp_size",
        ),
        ("auto: conv}", "auto: comv}", "'comv' is neither model_dtype nor an earlier state's name"),
    ],
)
def test_a_bad_linear_attention_state_is_located(tmp_path, old, new, says):
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in QWEN_SPECS:
        shutil.copy(SPECS / name, specs / name)
    root = specs / "qwen3_next.yaml"
    text = root.read_text()
    assert old in text
    root.write_text(text.replace(old, new, 1))
    line = text[: text.index(old)].count("\n") + 1
    done = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", str(root), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert f"qwen3_next.yaml:{line}:" in done.stderr and says in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
