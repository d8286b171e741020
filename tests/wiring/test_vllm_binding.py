"""Against vLLM 0.33.0 itself, when it is importable (it is not in the default CI run: it pins
a newer torch; DESIGN.md says how to make it importable on the CPU with --no-deps)."""

from __future__ import annotations

import inspect

import pytest

vllm = pytest.importorskip("vllm", reason="vLLM is not installed: the binding test needs vllm==0.33.0")
indexer = pytest.importorskip("vllm.v1.attention.backends.mla.indexer", reason="vLLM's indexer backends do not import here")


def test_generated_code_bound_to_vllm(wiring):
    assert wiring._binding.VLLM_AVAILABLE is True
    from vllm.config.compilation import CUDAGraphMode

    assert wiring._binding.CUDAGraphMode is CUDAGraphMode


@pytest.mark.parametrize(
    "name",
    ["DeepseekV4IndexerBackend", "DeepseekV41IndexerBackend", "DeepseekV41SparseIndexerBackend", "DeepseekV41RocmMxfp4IndexerBackend"],
)
@pytest.mark.parametrize("family", [90, 100, 120])
def test_backend_matches_vllms_class(monkeypatch, wiring, name, family):
    real = getattr(indexer, name)
    generated = getattr(wiring.backends, name)
    assert generated.__bases__[0].__name__ == real.__bases__[0].__name__
    assert generated.get_name() == real.get_name()
    monkeypatch.setattr(indexer.current_platform, "is_device_capability_family", lambda f: f == family, raising=False)
    monkeypatch.setattr(wiring.backends, "device_is_capability_family", lambda f: f == family)
    assert list(generated.get_supported_kernel_block_sizes()) == list(real.get_supported_kernel_block_sizes())


def test_v4_backend_subclasses_vllms_v32(wiring):
    assert issubclass(wiring.backends.DeepseekV4IndexerBackend, indexer.DeepseekV32IndexerBackend)


def test_registry_entries_match_vllm(wiring):
    from vllm.model_executor.models import registry as real

    for table in ("TEXT_GENERATION_MODELS", "MULTIMODAL_MODELS", "SPECULATIVE_DECODING_MODELS"):
        engine = getattr(real, f"_{table}")
        for arch, entry in getattr(wiring.registry, table).items():
            assert tuple(engine[arch]) == entry, arch


def test_messages_are_vllms(wiring):
    from vllm.config import speculative, vllm as vllm_config

    speculative_source = " ".join(inspect.getsource(speculative).split())
    for fragment in ("has no classic-MTP draft", "Use speculative method 'dspark' instead of 'mtp'."):
        assert fragment in speculative_source.replace('" "', "")
    assert "does not support PIECEWISE CUDA graphs with Model Runner V1" in inspect.getsource(vllm_config)
