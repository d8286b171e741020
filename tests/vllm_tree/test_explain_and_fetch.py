"""explain names vLLM 0.33.0's DSpark backend function; the sdist fetch checks what it gets."""

from __future__ import annotations

import hashlib

import pytest
from vtreehelpers import REPO, fetch_module

from dsv41gen.commands.explain import explain_text
from dsv41gen.commands.pipeline import load_families


def test_explain_names_resolve_dspark_attention_backend():
    (inputs,) = load_families([REPO / "specs" / "deepseek_v41.yaml"])
    text = explain_text(inputs)
    section = text.split("== vLLM wiring sites of the deepseek_v4 plugin")[1]
    block = section.split("speculative.dspark.kv_layout\n")[1].split("\n")[:2]
    assert block[0].split() == [
        "vLLM:",
        "vllm.v1.worker.gpu.spec_decode.dspark.utils._resolve_dspark_attention_backend",
    ]
    assert "no config or runner function decides" not in block[1]
    assert "== vLLM source-tree sites of `emit --vllm-tree`" in text
    assert "file:  vllm/v1/worker/gpu/spec_decode/dspark/utils.py" in text


@pytest.fixture
def fetch(monkeypatch, tmp_path):
    module = fetch_module()
    payload = tmp_path / "served.tar.gz"
    monkeypatch.setattr(module, "resolve_link", lambda: payload.as_uri())
    return module, payload


def test_fetch_refuses_a_file_with_the_wrong_hash(fetch, tmp_path):
    module, payload = fetch
    payload.write_bytes(b"not vllm")
    cache = tmp_path / "cache"
    with pytest.raises(module.FetchError, match="got 8 bytes with sha256 .*expected 47101396"):
        module.fetch(cache)
    assert [p.name for p in cache.iterdir()] == [".lock"]  # no partial download, nothing cached


def test_fetch_keeps_a_verified_file(fetch, tmp_path, monkeypatch):
    module, payload = fetch
    payload.write_bytes(b"stand-in")
    monkeypatch.setattr(module, "SIZE", len(b"stand-in"))
    monkeypatch.setattr(module, "SHA256", hashlib.sha256(b"stand-in").hexdigest())
    cache = tmp_path / "cache"
    first = module.fetch(cache)
    payload.unlink()  # a second fetch must not download again
    assert module.fetch(cache) == first and first.read_bytes() == b"stand-in"


def test_the_index_listing_another_hash_is_refused(monkeypatch):
    module = fetch_module()
    listing = {"files": [{"filename": module.FILENAME, "hashes": {"sha256": "0" * 64}, "url": "x"}]}
    monkeypatch.setattr(module, "_get_json", lambda url, accept: listing)
    with pytest.raises(
        module.FetchError, match="the index lists vllm-0.33.0.tar.gz with sha256 0+"
    ):
        module.resolve_link()
