"""A message a child inherits names the child (issue 26 item 5): V4.1's compress-ratio messages
say `{display_name}`, so a V4.2 that extends V4.1 raises "DeepSeek V4.2 layer ...", not
"DeepSeek V4.1 layer ...", while V4.1 keeps vLLM 0.33.0's exact text. Expected texts are
written out here."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from wiringhelpers import copy_specs, run_cli

V42 = textwrap.dedent(
    """\
    spec_version: 1
    extends: deepseek_v41.yaml
    variant: {name: deepseek_v42, display_name: DeepSeek V4.2, model_type: deepseek_v42}
    architectures:
      DeepseekV42ForCausalLM:
        registry: text_generation
        module: vllm.models.deepseek_v41
        class: DeepseekV41ForCausalLM
    """
)

ASK = """
import sys
sys.path.insert(0, "out")
from deepseek_v4 import kv_cache
for model_type, hf in [("deepseek_v41", None), ("deepseek_v42", None),
                       ("deepseek_v42", {"kv_source_layer_ids": [3], "num_hidden_layers": 40})]:
    try:
        kv_cache.validate_compress_ratio(model_type, 3, 4 if hf is None else 0, hf)
    except Exception as error:
        print(type(error).__name__, error)
"""


def test_an_inherited_message_names_the_variant_it_is_raised_for(tmp_path):
    copy_specs(tmp_path / "specs")
    (tmp_path / "specs" / "deepseek_v42.yaml").write_text(V42, encoding="utf-8")
    built = run_cli("build", "--out", "out", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    asked = subprocess.run(
        [sys.executable, "-c", ASK], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert asked.stdout.splitlines() == [
        "ValueError DeepSeek V4.1 layer 3 has compress_ratio=4; only 0 (sliding window), 1 and 2 "
        "are supported.",
        "ValueError DeepSeek V4.2 layer 3 has compress_ratio=4; only 0 (sliding window), 1 and 2 "
        "are supported.",
        "NotImplementedError DeepSeek V4.2 compressor supports compress_ratio 1 (full-length "
        "compressed cache) and 2; got 0. The ratio-4/128 CuTe-DSL kernels are v4.0-specific and "
        "not wired here.",
    ]
