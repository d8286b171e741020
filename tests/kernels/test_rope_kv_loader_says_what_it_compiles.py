"""The generated CUDA extension loader says what it is about to compile (the first build runs
nvcc for a minute or more; it used to be silent), and compiles dsv41gen's kernel sources with
the variant's generated units. Run on the CPU with torch's build call replaced, so only the
loader's own behaviour is under test."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

GENERATED = Path(__file__).resolve().parents[2] / "generated"

torch = pytest.importorskip("torch")


def test_loader_announces_the_build_on_stderr(monkeypatch, capsys):
    from torch.utils import cpp_extension

    from dsv41gen.kernels.runtime import KERNELS_DIR

    monkeypatch.syspath_prepend(str(GENERATED))
    module = importlib.import_module("deepseek_v4.rope_kv_deepseek_v41")
    calls = []
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda: (9, 0))
    monkeypatch.setattr(cpp_extension, "load", lambda **kwargs: calls.append(kwargs))
    monkeypatch.setattr(torch, "ops", type("Ops", (), {"dsv41gen_deepseek_v41": "the ops"}))
    assert module.load() == "the ops"
    err = capsys.readouterr().err
    assert err.startswith(
        "dsv41gen_rope_kv_deepseek_v41: loading for sm_90; the first time this compiles"
    )
    csrc = GENERATED / "deepseek_v4" / "csrc" / "deepseek_v41"
    assert f"compiles 8 CUDA sources from {csrc} and {KERNELS_DIR}" in err
    [call] = calls
    assert call["name"] == "dsv41gen_rope_kv_deepseek_v41"
    assert call["sources"] == [
        str(KERNELS_DIR / "rope_kv_bindings.cpp"),
        str(KERNELS_DIR / "rope_kv_dispatch.cu"),
        *(str(csrc / f"rope_kv_inst_h{h}.cu") for h in (0, 8, 16, 32, 64, 128)),
    ]
    assert call["extra_include_paths"] == [str(KERNELS_DIR)]
    assert call["extra_cflags"] == ["-O3", "-include", str(csrc / "rope_kv_config.h")]
    assert "-gencode=arch=compute_90a,code=sm_90a" in call["extra_cuda_cflags"]
