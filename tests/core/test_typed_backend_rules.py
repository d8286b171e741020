"""The backend-parent rule on the typed model (spec/validate/typed.py): a child's backend may
name a backend an ancestor defines, deleted entries included, and each refusal keeps its
location and text. The expected messages are written out by hand."""

from __future__ import annotations

import pytest
from corehelpers import cli, copy_specs, line_of

_V41_SPARSE = "    parent: DeepseekV41IndexerBackend # block sizes inherited"


def _check_v41(tmp_path, old: str, new: str):
    specs = copy_specs(tmp_path / "specs")
    spec = specs / "deepseek_v41.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count(old) == 1
    spec.write_text(text.replace(old, new), encoding="utf-8")
    return spec, cli(["check", "specs/deepseek_v41.yaml"], cwd=tmp_path)


def test_a_deleted_ancestor_sparse_mla_entry_is_still_no_parent(tmp_path):
    # FLASHMLA_SPARSE_DSV4 is deleted by deepseek_v41.yaml: the lineage view still knows its kind
    new = "    parent: FLASHMLA_SPARSE_DSV4"
    spec, result = _check_v41(tmp_path, _V41_SPARSE, new)
    assert result.rc == 1, result.output
    assert (
        f"specs/deepseek_v41.yaml:{line_of(spec, new)}:5: attention_backends."
        "DeepseekV41SparseIndexerBackend.parent: 'FLASHMLA_SPARSE_DSV4' is a sparse_mla entry, "
        "which generates no class; name an indexer backend of the family, or an engine class "
        "with `parent_module`"
    ) in result.stderr


@pytest.mark.parametrize(
    ("new", "field", "message"),
    [
        (
            "    parent: DeepseekV41SparseIndexerBackend",
            ".parent",
            "a backend cannot be its own parent",
        ),
        (
            "    parent: DeepseekV4IndexerBackend\n    parent_module: vllm.x",
            ".parent_module",
            "'DeepseekV4IndexerBackend' is a backend of this family; drop `parent_module`",
        ),
        (
            "    parent: SomeEngineBackend\n    parent_module: vllm.x",
            "",
            "an engine-parented backend must state kernel_block_sizes",
        ),
    ],
    ids=["own parent", "family parent with a module", "engine parent without sizes"],
)
def test_backend_parent_refusals(tmp_path, new, field, message):
    spec, result = _check_v41(tmp_path, _V41_SPARSE, new)
    assert result.rc == 1, result.output
    wanted = "  DeepseekV41SparseIndexerBackend:" if not field else new.splitlines()[-1]
    column = 3 if not field else 5
    assert (
        f"specs/deepseek_v41.yaml:{line_of(spec, wanted)}:{column}: attention_backends."
        f"DeepseekV41SparseIndexerBackend{field}: {message}"
    ) in result.stderr


def test_one_engine_parent_name_from_two_modules_is_refused(tmp_path):
    # two backends that name one engine class from two modules would bind one name twice in
    # the generated _binding module
    specs = copy_specs(tmp_path / "specs")
    spec = specs / "deepseek_v41.yaml"
    text = spec.read_text(encoding="utf-8")
    sizes = "    kernel_block_sizes:\n      default: [64]\n"
    text = text.replace(
        _V41_SPARSE, "    parent: EngineBackend\n    parent_module: vllm.a\n" + sizes.rstrip("\n")
    ).replace(
        "  DeepseekV41RocmMxfp4IndexerBackend:\n    name: DEEPSEEK_V41_ROCM_MXFP4_INDEXER\n"
        "    parent: DeepseekV41IndexerBackend\n",
        "  DeepseekV41RocmMxfp4IndexerBackend:\n    name: DEEPSEEK_V41_ROCM_MXFP4_INDEXER\n"
        "    parent: EngineBackend\n    parent_module: vllm.b\n",
    )
    spec.write_text(text, encoding="utf-8")
    result = cli(["check", "specs/deepseek_v41.yaml"], cwd=tmp_path)
    assert result.rc == 1, result.output
    # reported at the later key (Rocm... < Sparse...): the sparse indexer's parent, line 105
    line = text.splitlines().index("    parent: EngineBackend") + 1
    assert (
        f"specs/deepseek_v41.yaml:{line}:5: attention_backends.DeepseekV41SparseIndexerBackend"
        ".parent: 'EngineBackend' is imported from 'vllm.b' by DeepseekV41RocmMxfp4IndexerBackend "
        "and from 'vllm.a' here; one name binds one class: use the same parent_module"
    ) in result.stderr
