"""Generated class hierarchies are emitted parent first, or the build says which cycle prevents
it (issue 23, finding 8).

Python binds a class's bases when its class statement runs: a backend declared before its
parent in the spec built with exit 0, and the generated backends.py then raised NameError on
import. A cycle of parents built too (and the same NameError). The KV spec types' stand-in
classes (_binding.py) are ordered by the typed model already, and are held to it here as well.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from securityhelpers import assert_clean_rejection, cli, copy_specs, edit

from dsv41gen.plan.backends import BackendCycle, parent_first
from dsv41gen.spec.model import AttentionBackend

V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"
V4_INDEXER = """  DeepseekV4IndexerBackend:
    name: DEEPSEEK_V4_INDEXER
    parent: DeepseekV32IndexerBackend
    parent_module: vllm.v1.attention.backends.mla.indexer
    kernel_block_sizes:
      default: [256]
      note: "Block sizes count uncompressed tokens: C4 indexer pages hold 64 rows."
    supports_device_cpu_query_lens_mismatch_on_rocm: true # [ref §2] is_rocm or super()
    supported_kv_cache_layouts: [BLHNC, BLNHC]
"""
SPARSE = "  # [ref §2] sparse MLA backends"


@pytest.fixture
def specs(tmp_path):
    return copy_specs(tmp_path / "specs")


def _import(out, module: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=out,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(out)},
    )


def _class_lines(path) -> list[str]:
    return [
        line.split("(")[0][6:]
        for line in path.read_text().splitlines()
        if line.startswith("class ")
    ]


def test_a_backend_declared_before_its_parent_is_emitted_after_it(specs):
    """The root's indexer backend moved below its ROCm subclass: the build emits the parent
    first, backends.py imports, and the class order is the shipped one."""
    text = (specs / V4).read_text()
    assert text.count(V4_INDEXER) == 1
    text = text.replace(V4_INDEXER, "")
    text = text.replace(SPARSE, V4_INDEXER + SPARSE, 1)
    (specs / V4).write_text(text)
    assert text.index("DeepseekV4RocmMxfp4IndexerBackend:") < text.index(
        "DeepseekV4IndexerBackend:"
    )
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent)
    assert result.rc == 0, result.stderr
    out = specs.parent / "out"
    imported = _import(out, "deepseek_v4.backends")
    assert imported.returncode == 0, imported.stderr
    classes = _class_lines(out / "deepseek_v4" / "backends.py")
    assert classes.index("DeepseekV4IndexerBackend") < classes.index(
        "DeepseekV4RocmMxfp4IndexerBackend"
    )
    for parent, child in (
        ("DeepseekV4IndexerBackend", "DeepseekV41IndexerBackend"),
        ("DeepseekV41IndexerBackend", "DeepseekV41SparseIndexerBackend"),
    ):
        assert classes.index(parent) < classes.index(child)


def test_a_cycle_of_backend_parents_is_a_located_error_naming_it(specs):
    edit(
        specs / V4,
        "    parent: DeepseekV32IndexerBackend\n"
        "    parent_module: vllm.v1.attention.backends.mla.indexer\n",
        "    parent: DeepseekV4RocmMxfp4IndexerBackend\n",
    )
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent, timeout=60)
    # the edited parent line, wherever the spec has it now
    lines = (specs / V4).read_text(encoding="utf-8").splitlines()
    line = lines.index("    parent: DeepseekV4RocmMxfp4IndexerBackend") + 1
    assert_clean_rejection(
        result,
        f"specs/{V4}:{line}:5: attention_backends.DeepseekV4IndexerBackend.parent: ",
        "form a cycle: DeepseekV4IndexerBackend -> DeepseekV4RocmMxfp4IndexerBackend -> "
        "DeepseekV4IndexerBackend",
        "give one of them another parent",
    )
    for command in (("check", "--out", "out"), ("explain",)):
        again = cli(*command, f"specs/{V41}", cwd=specs.parent, timeout=60)
        assert again.rc == 1 and "form a cycle" in again.stderr, again.stderr


def _backend(key: str, parent: str | None) -> tuple[str, AttentionBackend]:
    return ("v", AttentionBackend.parse(key, {"name": key.upper(), "parent": parent}))


def test_parent_first_keeps_declaration_order_otherwise_and_has_no_recursion_limit():
    pairs = [_backend("C", "B"), _backend("A", "Engine"), _backend("B", "A"), _backend("D", "A")]
    assert [b.key for _, b in parent_first(pairs)] == ["A", "B", "C", "D"]
    chain = [_backend(f"K{i}", f"K{i + 1}") for i in range(5000)] + [_backend("K5000", "E")]
    ordered = [b.key for _, b in parent_first(chain)]
    assert ordered == [f"K{i}" for i in range(5000, -1, -1)]
    with pytest.raises(BackendCycle) as raised:
        parent_first([_backend("X", "Y"), _backend("Y", "Z"), _backend("Z", "Y")])
    assert raised.value.cycle == ("Y", "Z", "Y")


def test_kv_spec_types_declared_child_first_still_import(specs):
    """The stand-in KV spec classes of the standalone binding, declared child first."""
    edit(
        specs / V4,
        "    KVCacheSpec: {}\n    AttentionSpec: {parent: KVCacheSpec}\n",
        "    AttentionSpec: {parent: KVCacheSpec}\n    KVCacheSpec: {}\n",
    )
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent)
    assert result.rc == 0, result.stderr
    imported = _import(specs.parent / "out", "deepseek_v4._binding")
    assert imported.returncode == 0, imported.stderr
