"""The generated CUDA extension loader says what it is about to compile (the first build runs
nvcc for a minute or more; it used to be silent). Run on the CPU with torch's build call
replaced, so only the loader's own behaviour is under test."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

GENERATED = Path(__file__).resolve().parents[2] / "generated"

torch = pytest.importorskip("torch")


def test_loader_announces_the_build_on_stderr(monkeypatch, capsys):
    from torch.utils import cpp_extension

    monkeypatch.syspath_prepend(str(GENERATED))
    loader = importlib.import_module("deepseek_v4.rope_kv_deepseek_v41_loader")
    calls = []
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda: (9, 0))
    monkeypatch.setattr(cpp_extension, "load", lambda **kwargs: calls.append(kwargs))
    loader.load()
    err = capsys.readouterr().err
    assert err.startswith(
        f"{loader.EXTENSION_NAME}: loading for sm_90; the first time this compiles"
    )
    assert f"compiles {len(loader.SOURCES)} CUDA sources from {loader.CSRC_DIR}" in err
    [call] = calls
    assert call["name"] == loader.EXTENSION_NAME and len(call["sources"]) == len(loader.SOURCES)
