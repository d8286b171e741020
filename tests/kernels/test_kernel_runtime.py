"""The generated packages' import-time check of the installed kernel sources."""

from __future__ import annotations

import pytest

from dsv41gen.kernels import runtime

NAME = "rope_kv_core.cuh"


def test_require_sources_accepts_the_digest_of_the_installed_file():
    runtime.require_sources("pkg", runtime.source_digest(NAME), NAME)


def test_a_changed_kernel_source_fails_with_what_to_do(tmp_path, monkeypatch):
    expected = runtime.source_digest(NAME)
    (tmp_path / NAME).write_bytes((runtime.KERNELS_DIR / NAME).read_bytes() + b"// edited\n")
    monkeypatch.setattr(runtime, "KERNELS_DIR", tmp_path)
    with pytest.raises(runtime.KernelSourceMismatch) as raised:
        runtime.require_sources("deepseek_v4", expected, NAME)
    message = str(raised.value)
    assert f"digest {expected}" in message and "dsv41gen build" in message
    assert message.startswith(
        "deepseek_v4 was generated for dsv41gen kernel sources rope_kv_core.cuh"
    )


def test_the_digest_depends_on_names_and_order():
    a, b = NAME, "rope_kv_reference.py"
    assert (
        len({runtime.source_digest(a, b), runtime.source_digest(b, a), runtime.source_digest(a)})
        == 3
    )


def test_the_runtime_module_imports_only_the_standard_library():
    import ast
    import sys

    tree = ast.parse((runtime.KERNELS_DIR / "runtime.py").read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert imported - {"__future__", "dsv41gen"} <= set(sys.stdlib_module_names)


GENERATED = runtime.KERNELS_DIR.parents[1] / "generated"


@pytest.mark.parametrize("edited", ["rope_kv_core.cuh", "rope_kv_bindings.cpp"])
def test_a_generated_module_refuses_changed_kernel_sources_at_import(tmp_path, monkeypatch, edited):
    """The generated rope_kv_<variant> module checks the installed kernel sources when it is
    imported: one edited byte (here in a copy of the kernels directory) stops the import."""
    import importlib
    import shutil
    import sys

    pytest.importorskip("torch")
    kernels = tmp_path / "kernels"
    shutil.copytree(runtime.KERNELS_DIR, kernels)
    (kernels / edited).write_bytes((kernels / edited).read_bytes() + b"// edited\n")
    monkeypatch.syspath_prepend(str(GENERATED))
    for name in ("deepseek_v4.rope_kv_deepseek_v41", "deepseek_v4"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    importlib.import_module("deepseek_v4.rope_kv_deepseek_v41")  # the installed sources: fine
    monkeypatch.delitem(sys.modules, "deepseek_v4.rope_kv_deepseek_v41")
    monkeypatch.setattr(runtime, "KERNELS_DIR", kernels)
    with pytest.raises(runtime.KernelSourceMismatch) as raised:
        importlib.import_module("deepseek_v4.rope_kv_deepseek_v41")
    message = str(raised.value)
    assert message.startswith("deepseek_v4.rope_kv_deepseek_v41 was generated for dsv41gen")
    assert edited in message and "Run `dsv41gen build`" in message


def test_the_generator_hash_covers_the_kernel_sources(tmp_path, monkeypatch):
    """The MANIFEST's generator hash: a kernel source edit changes the generated digest, so the
    no-op fast path must not vouch for the old tree."""
    import shutil

    from dsv41gen.emit import inputs

    package = tmp_path / "dsv41gen"
    shutil.copytree(runtime.KERNELS_DIR.parent, package, ignore=shutil.ignore_patterns("__py*"))
    monkeypatch.setattr(inputs, "_PACKAGE_DIR", package)
    before = inputs.generator_hash()
    core = package / "kernels" / NAME
    core.write_bytes(core.read_bytes() + b"// edited\n")
    assert inputs.generator_hash() != before


def test_kernel_sources_never_import_the_compiler():
    """No import cycle: the runtime half (what generated packages import in vLLM's processes)
    imports no dsv41gen module outside dsv41gen.kernels (dsv41gen itself: its version only);
    the compiler (dsv41gen.plan) imports it, never the other way round."""
    import ast

    for path in sorted(runtime.KERNELS_DIR.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0 or path.name == "__init__.py", (path.name, node.module)
                names = [node.module or ""]
            else:
                continue
            for name in names:
                if name == "dsv41gen" or name.startswith("dsv41gen."):
                    assert name in ("dsv41gen", "dsv41gen.kernels") or name.startswith(
                        "dsv41gen.kernels."
                    ), (path.name, name)
