"""An indexer backend cannot derive from a sparse_mla entry: that entry is a registered name with
block sizes and generates no class, so the generated `class X(FLASHMLA_SPARSE_DSV4)` named an
undefined base (ruff F821, NameError at import; found by the fuzz campaign's
shadow_backend_parent mutation)."""

from __future__ import annotations

import re

from corehelpers import cli, copy_specs, line_of


def test_parent_that_is_a_sparse_mla_entry_is_a_located_error(tmp_path):
    specs = copy_specs(tmp_path / "specs")
    spec = specs / "deepseek_v4.yaml"
    text = spec.read_text(encoding="utf-8")
    block = text.index("  DeepseekV4RocmMxfp4IndexerBackend:")
    parent = re.compile(r"    parent: \S+").search(text, block)
    assert parent is not None
    text = text[: parent.start()] + "    parent: FLASHMLA_SPARSE_DSV4" + text[parent.end() :]
    spec.write_text(text, encoding="utf-8")
    line = line_of(spec, "    parent: FLASHMLA_SPARSE_DSV4")
    result = cli(["build", "specs/deepseek_v4.yaml", "--out", "out"], cwd=tmp_path)
    assert result.rc == 1, result.output
    assert (
        f"specs/deepseek_v4.yaml:{line}:5: attention_backends.DeepseekV4RocmMxfp4IndexerBackend"
        ".parent: 'FLASHMLA_SPARSE_DSV4' is a sparse_mla entry, which generates no class; name "
        "an indexer backend of the family, or an engine class with `parent_module`"
    ) in result.stderr
    assert not (tmp_path / "out").exists()
