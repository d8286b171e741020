"""A field added through the declaration alone (dsv41gen/spec/declaration.py), a planner and a
template: ``attention_backends.*.supported_head_sizes`` becomes vLLM's
``get_supported_head_sizes()`` (0.33.0's DeepseekV32IndexerBackend returns [32, 64, 128], its
KpoolTailBackend [] for every size). The typed model reads it from the declaration, with no
hand-written parse."""

from __future__ import annotations

import inspect
import textwrap

from wiringhelpers import child_spec_module

CHILD = textwrap.dedent(
    """\
    spec_version: 1
    extends: deepseek_v4.yaml

    variant:
      name: deepseek_v4_heads
      display_name: DeepSeek V4 heads
      model_type: deepseek_v4_heads

    attention_backends:
      DeepseekV4HeadsIndexerBackend:
        name: DEEPSEEK_V4_HEADS_INDEXER
        parent: DeepseekV4IndexerBackend
        supported_head_sizes: [64, 128]
      DeepseekV4HeadsTailBackend:
        name: DEEPSEEK_V4_HEADS_TAIL
        parent: DeepseekV4HeadsIndexerBackend
      DeepseekV4HeadsAnyBackend:
        name: DEEPSEEK_V4_HEADS_ANY
        parent: DeepseekV4HeadsIndexerBackend
        supported_head_sizes: []
    """
)


def test_supported_head_sizes_is_generated_and_inherited(tmp_path):
    spec = tmp_path / "deepseek_v4_heads.yaml"
    spec.write_text(CHILD, encoding="utf-8")
    with child_spec_module(spec, "backends", tmp_path / "scratch") as backends:
        stated = backends.DeepseekV4HeadsIndexerBackend
        assert stated.get_supported_head_sizes() == [64, 128]
        assert "get_supported_head_sizes" in vars(stated)
        # a backend that states nothing inherits the parent class's list, and says so
        tail = backends.DeepseekV4HeadsTailBackend
        assert "get_supported_head_sizes" not in vars(tail)
        assert tail.get_supported_head_sizes() == [64, 128]
        assert "get_supported_head_sizes" in inspect.getdoc(tail)
        # [] is vLLM's "every head size", and overrides a parent's restriction
        assert backends.DeepseekV4HeadsAnyBackend.get_supported_head_sizes() == []
        # the real V4 backend states none: nothing generated (vLLM's inherited list stands)
        assert "get_supported_head_sizes" not in vars(backends.DeepseekV4IndexerBackend)


# The new-field demonstration of issue 24: `supports_pcp` went in through the declaration, the
# backends planner and the backends template only (vLLM 0.33.0: AttentionBackend.supports_pcp()
# is its impl's answer, else False; DeepseekV32IndexerBackend's is True; v1/worker/cp_utils.py
# asserts it per attention layer).
PCP_CHILD = textwrap.dedent(
    """\
    spec_version: 1
    extends: deepseek_v4.yaml

    variant:
      name: deepseek_v4_pcp
      display_name: DeepSeek V4 PCP
      model_type: deepseek_v4_pcp

    attention_backends:
      DeepseekV4NoPcpIndexerBackend:
        name: DEEPSEEK_V4_NO_PCP_INDEXER
        parent: DeepseekV4IndexerBackend
        supports_pcp: false
      DeepseekV4NoPcpTailBackend:
        name: DEEPSEEK_V4_NO_PCP_TAIL
        parent: DeepseekV4NoPcpIndexerBackend
      DeepseekV4PcpAgainBackend:
        name: DEEPSEEK_V4_PCP_AGAIN
        parent: DeepseekV4NoPcpIndexerBackend
        supports_pcp: true
    """
)


def test_supports_pcp_is_generated_and_inherited(tmp_path):
    spec = tmp_path / "deepseek_v4_pcp.yaml"
    spec.write_text(PCP_CHILD, encoding="utf-8")
    with child_spec_module(spec, "backends", tmp_path / "scratch") as backends:
        stated = backends.DeepseekV4NoPcpIndexerBackend
        assert stated.supports_pcp() is False
        assert "supports_pcp" in vars(stated)
        tail = backends.DeepseekV4NoPcpTailBackend
        assert "supports_pcp" not in vars(tail)
        assert tail.supports_pcp() is False
        assert "supports_pcp" in inspect.getdoc(tail)
        assert backends.DeepseekV4PcpAgainBackend.supports_pcp() is True
        # the real V4 backend states none: nothing generated, vLLM's own answer stands
        assert "supports_pcp" not in vars(backends.DeepseekV4IndexerBackend)
