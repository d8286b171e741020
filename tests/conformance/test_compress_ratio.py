"""Compress-ratio checks against vLLM 0.33.0's layer constructors.

vLLM checks a layer's compress ratio inline in constructors, so the driver
(``site_compress_ratio``) builds the layer: the real ``DeepseekV4Attention.__init__`` of the
variant's vLLM package (``vllm.models.deepseek_v4`` / ``vllm.models.deepseek_v41``, from the
spec's target architecture) and, where that layer builds one for the ratio, the real
``DeepseekCompressor.__init__`` with its real ``CompressorStateCache``. They run on the CPU on
stub configs that answer only the fields read up to the checks: the first other field read ends
the construction, and the driver checks with ``ast`` that this happened after the statements
that set and test ``self.compress_ratio`` (and, for the compressor, after its state cache was
built). What follows in the constructors (GPU kernels, TP linear layers, caches) does not depend
on the ratio. Patched out: the TP world size and the compressor's fused linear layer.

Compared per case: accepted, or the exception type and exact message (V4's
``assert compress_ratio in [4, 128]`` raises an AssertionError without a message; V4.1 raises
its ValueError, and its compressor on a kv-source layer its NotImplementedError for ratio 0).
Matrix: every variant with ``kv_cache.compress_ratios`` x every ratio any spec lists and
``COMPRESS_RATIO_PROBES`` x the kv-source configs of ``kv_source_shapes`` (built from the HF
fields ``kv_cache.kv_source_compressor`` names): a config listing none, the layer a kv source, a
consumer of a source below it, and an MTP layer (at ``num_hidden_layers``) listed as a source.
The stub answers what V4.1's constructor reads on the way to the compressor (the index sources,
as the kv sources, and no candidate layer); with no kv-source fields the construction ends where
the layer first reads one, after its own ratio check.
"""

from __future__ import annotations

import pytest
from conformancecases import compress_ratio_cases

CASES = compress_ratio_cases()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_compress_ratio_check_is_vllms(driver, case_id):
    answer = driver.run("compress_ratio", CASES)[case_id]
    assert answer["generated"] == answer["vllm"]
