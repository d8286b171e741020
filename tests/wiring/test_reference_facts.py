"""The generated wiring against the reference facts (../shared/reference), typed in by hand.

The generated tests check the code against the spec; these check the specs themselves: a value
mistyped in a spec fails here even though the generated code faithfully reproduces it.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

V41_MTP_MESSAGE = (
    "DeepSeek V4.1 has no classic-MTP draft: its checkpoints ship DSpark stages under mtp.* "
    "(main_proj/markov_head/confidence_head) and carry no e_proj/h_proj/enorm/hnorm/hc_head "
    "weights. Use speculative method 'dspark' instead of 'mtp'."
)


def test_registry_matches_reference_section_4(wiring):
    assert wiring.registry.TEXT_GENERATION_MODELS == {
        "DeepseekV4ForCausalLM": ("vllm.models.deepseek_v4", "DeepseekV4ForCausalLM"),
    }
    assert wiring.registry.MULTIMODAL_MODELS == {
        "DeepseekV4ForConditionalGeneration": (
            "vllm.models.deepseek_v4",
            "DeepseekV4ForConditionalGeneration",
        ),
        "DeepseekV41ForCausalLM": ("vllm.models.deepseek_v41", "DeepseekV41ForCausalLM"),
    }
    assert wiring.registry.SPECULATIVE_DECODING_MODELS == {
        "DeepSeekV4MTPModel": ("vllm.models.deepseek_v4", "DeepSeekV4MTP"),
        "DSparkDraftModel": ("vllm.models.deepseek_v4", "DSparkDeepseekV4ForCausalLM"),
        "DSparkV41DraftModel": ("vllm.models.deepseek_v41", "DSparkDeepseekV4ForCausalLM"),
    }


@pytest.mark.parametrize(
    ("family", "v4", "v41"),
    [
        (90, [256], [64]),
        (100, [256], [128]),
        (120, [256], [128]),
        (80, [256], [128]),
        (None, [256], [128]),
    ],
)
def test_indexer_block_sizes_match_reference_section_2(monkeypatch, wiring, family, v4, v41):
    monkeypatch.setattr(wiring.backends, "device_is_capability_family", lambda f: f == family)
    assert wiring.backends.DeepseekV4IndexerBackend.get_supported_kernel_block_sizes() == v4
    assert wiring.backends.DeepseekV41IndexerBackend.get_supported_kernel_block_sizes() == v41
    assert wiring.backends.DeepseekV41SparseIndexerBackend.get_supported_kernel_block_sizes() == v41
    assert (
        wiring.backends.DeepseekV41RocmMxfp4IndexerBackend.get_supported_kernel_block_sizes()
        == [64, 128]
    )


def test_v41_backend_overrides_only_name_and_block_sizes(wiring):
    v41 = wiring.backends.DeepseekV41IndexerBackend
    assert v41.__bases__ == (wiring.backends.DeepseekV4IndexerBackend,)
    # (ABCMeta, when bound to vLLM, also puts _abc_impl in each class's own namespace)
    own = {name for name in vars(v41) if not name.startswith("_")}
    assert own == {"get_name", "get_supported_kernel_block_sizes"}
    assert v41.get_name() == "DEEPSEEK_V41_INDEXER"


def test_mtp_on_v41_raises_vllms_message(wiring):
    with pytest.raises(ValueError) as error:
        wiring.speculative.validate_method("deepseek_v41", "mtp")
    assert str(error.value) == V41_MTP_MESSAGE


def test_divisibility_message_matches_vllm(wiring):
    config = {"num_nextn_predict_layers": 3}
    with pytest.raises(ValueError) as error, pytest.warns(UserWarning):
        wiring.speculative.resolve_num_speculative_tokens("deepseek_v4", "mtp", config, 5)
    assert str(error.value) == "num_speculative_tokens:5 must be divisible by n_predict=3"
    # [ref §0] vLLM's own words, for every MTP draft, before the divisibility check
    with pytest.warns(UserWarning) as caught:
        assert (
            wiring.speculative.resolve_num_speculative_tokens("deepseek_v4", "mtp", config, 6) == 6
        )
    assert [str(w.message) for w in caught] == [
        "Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP "
        "layer,which may result in lower acceptance rate"
    ]
    # [vLLM 0.33.0 wheel] no default applies to an MTP draft (`None > 1` raises TypeError before
    # the n_predict default of [ref §0]): the generated code refuses it and says what to set
    with pytest.raises(ValueError) as error:
        wiring.speculative.resolve_num_speculative_tokens("deepseek_v4", "mtp", config)
    assert str(error.value) == (
        "DeepSeek V4 with classic-MTP needs num_speculative_tokens: vLLM 0.33.0 applies no "
        "default for speculative method 'mtp' and fails on a draft given without it. Set "
        "num_speculative_tokens, e.g. to the draft's n_predict (hf_config.num_nextn_predict_layers)."
    )


def test_dspark_default_and_n_predict_match_reference_section_0(wiring):
    resolve = wiring.speculative.resolve_num_speculative_tokens
    flash = {"num_nextn_predict_layers": 3, "dspark_block_size": 5}
    # [ref §0] the draft's block_size, else its dspark_block_size; the draft's n_predict stays
    # num_nextn_predict_layers, and DSpark has no divisibility check (7 for a block of 5)
    assert resolve("deepseek_v41", "dspark", flash) == 5
    assert resolve("deepseek_v41", "dspark", {**flash, "block_size": 4}) == 4
    assert wiring.speculative.tokens_per_round("deepseek_v41", "dspark", flash) == 3
    assert resolve("deepseek_v41", "dspark", flash, 7) == 7
    with pytest.raises(ValueError) as error:
        resolve("deepseek_v4", "dspark", {"num_nextn_predict_layers": 1})
    assert str(error.value) == (
        "A speculative model was provided, but `num_speculative_tokens` was not provided"
    )


def test_draft_config_rewrites_match_reference_section_1(wiring):
    v4 = {"num_nextn_predict_layers": 1, "dspark_block_size": 5}
    v41 = {"num_nextn_predict_layers": 3, "dspark_block_size": 5}
    rewrite = wiring.speculative.draft_config_overrides
    assert rewrite("deepseek_v4", "mtp", v4) == {
        "model_type": "deepseek_mtp",
        "n_predict": 1,
        "architectures": ["DeepSeekV4MTPModel"],
    }
    assert rewrite("deepseek_v4", "dspark", v4)["architectures"] == ["DSparkDraftModel"]
    assert rewrite("deepseek_v4", "dspark", v4)["model_type"] == "deepseek_v4"
    assert rewrite("deepseek_v41", "dspark", v41) == {
        "model_type": "deepseek_v41",
        "n_predict": 3,  # [ref §0] num_nextn_predict_layers, not the block size
        "architectures": ["DSparkV41DraftModel"],
    }


def test_merge_and_fork_follow_seed_000_section_8(wiring):
    dispatch = wiring.dispatch
    # merged: same behaviour for both
    # [ref §0] DSpark forces the target's quantization; MTP takes it only when unset
    assert dispatch.dspark_target_quantization("deepseek_v4") == "force"
    assert dispatch.dspark_target_quantization("deepseek_v41") == "force"
    assert dispatch.mtp_target_quantization("deepseek_v4") == "default_when_unset"
    assert dispatch.dspark_target_quantization("llama") is None
    # no vLLM 0.33.0 site asks these (dsv41gen explain lists why), so nothing is emitted
    assert not hasattr(dispatch, "dspark_reuses_target_kv_layout")
    assert not hasattr(dispatch, "eagle_style_fallback")
    # forked: MTP architecture, draft architecture name, tokens-per-round semantics
    assert (
        dispatch.mtp_draft_architecture("deepseek_v4"),
        dispatch.mtp_draft_architecture("deepseek_v41"),
    ) == (
        "DeepSeekV4MTPModel",
        None,
    )
    assert dispatch.dspark_draft_architecture("deepseek_v41") == "DSparkV41DraftModel"
    assert dispatch.dspark_tokens_per_round_sources("deepseek_v41") == ("num_nextn_predict_layers",)
    assert dispatch.dspark_default_sources("deepseek_v41") == (
        "block_size",
        "dspark_block_size",
    )


@pytest.mark.parametrize(
    ("v2", "arch", "mode", "method", "adaptive", "message"),
    [
        # [ref §0] 0.33.0 has no MRV1 PIECEWISE guard (seed 004's lives on in
        # test_seed004_runner_guard.py): DeepSeek V4 + MRV1 + PIECEWISE is served.
        (False, "DeepseekV4ForCausalLM", "PIECEWISE", None, False, None),
        (False, "DeepseekV4ForCausalLM", "FULL_AND_PIECEWISE", None, False, None),
        (True, "DeepseekV4ForCausalLM", "PIECEWISE", None, False, None),
        # [ref §0] DSpark and adaptive verification are refused on Model Runner V1
        (
            False,
            "DeepseekV4ForCausalLM",
            "FULL",
            "dspark",
            False,
            "Model Runner V1 does not support: dspark speculative decoding",
        ),
        (
            False,
            "DeepseekV41ForCausalLM",
            "FULL",
            "mtp",
            True,
            "Model Runner V1 does not support: adaptive draft verification",
        ),
        (True, "DeepseekV41ForCausalLM", "FULL", "dspark", True, None),
    ],
)
def test_runner_rules_match_reference_section_0(wiring, v2, arch, mode, method, adaptive, message):
    mode_value = getattr(wiring._binding.CUDAGraphMode, mode)
    call = lambda: wiring.runner.check_runner_mode(  # noqa: E731
        [arch], v2, mode_value, method=method, adaptive_verification=adaptive
    )
    if message is None:
        call()
    else:
        with pytest.raises(ValueError) as error:
            call()
        assert str(error.value) == message
    assert not hasattr(wiring.runner, "DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES")  # [ref §0]


@pytest.mark.parametrize(
    ("type_name", "unsplit", "split"),
    [
        ("MambaSpec", True, True),
        ("CircularBufferSpec", True, True),
        ("SlidingWindowSpec", True, False),
        ("SlidingWindowMLASpec", True, False),
        ("FullAttentionSpec", False, False),
        ("MLAAttentionSpec", False, False),
        ("ChunkedLocalAttentionSpec", False, False),
    ],
)
@pytest.mark.parametrize("model_type", ["deepseek_v4", "deepseek_v41"])
def test_state_bucket_matches_reference_section_3(wiring, model_type, type_name, unsplit, split):
    spec = object.__new__(getattr(wiring._binding, type_name))
    bucket = SimpleNamespace(first_spec=spec, kv_cache_specs=[spec])
    assert wiring.kv_cache.is_state_bucket(model_type, bucket, None) is unsplit
    assert wiring.kv_cache.is_state_bucket(model_type, bucket, 4) is split


def test_v41_compress_ratio_message(wiring):
    with pytest.raises(ValueError) as error:
        wiring.kv_cache.validate_compress_ratio("deepseek_v41", 12, 4)
    assert str(error.value) == (
        "DeepSeek V4.1 layer 12 has compress_ratio=4; only 0 (sliding window), 1 and 2 are supported."
    )
    wiring.kv_cache.validate_compress_ratio("deepseek_v4", 12, 4)  # V4 supports C4


def test_v41_kv_source_compressor_refuses_ratio_0(wiring):
    # [vLLM 0.33.0 wheel] a layer in kv_source_layer_ids below num_hidden_layers builds a
    # DeepseekCompressor, which takes ratios 1 and 2 only; other layers build none
    check = wiring.kv_cache.validate_compress_ratio
    source = {"kv_source_layer_ids": [3, 12], "num_hidden_layers": 40}
    with pytest.raises(NotImplementedError) as error:
        check("deepseek_v41", 12, 0, source)
    assert str(error.value) == (
        "DeepSeek V4.1 compressor supports compress_ratio 1 (full-length compressed cache) and "
        "2; got 0. The ratio-4/128 CuTe-DSL kernels are v4.0-specific and not wired here."
    )
    check("deepseek_v41", 12, 2, source)
    check("deepseek_v41", 11, 0, source)  # not a kv source
    check("deepseek_v41", 40, 0, {**source, "kv_source_layer_ids": [40]})  # an MTP layer
    check("deepseek_v41", 12, 0)  # a config listing no kv source
    check("deepseek_v4", 12, 4, source)  # V4 has no kv sources
    with pytest.raises(ValueError):  # the layer's own check comes first
        check("deepseek_v41", 12, 4, source)
