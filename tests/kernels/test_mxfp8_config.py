"""The generated MXFP8 modules are configuration of dsv41gen's kernel sources: they hold no kernel,
import the installed sources, and refuse a source they were not generated for."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from dsv41gen.kernels import runtime

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "generated" / "deepseek_v4"
MODULES = {"mxfp8": "mxfp8.py", "mxfp8_reference": "mxfp8_reference.py"}


def _import(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def test_the_committed_modules_hold_tables_only():
    for module in MODULES:
        text = (GENERATED / f"{module}.py").read_text()
        assert "@triton.jit" not in text and "\ndef " not in text and "\nclass " not in text
        assert len(text.splitlines()) < 70, module


def test_the_committed_modules_bind_the_installed_sources():
    kernels = _import(GENERATED / "mxfp8.py", "deepseek_v4_mxfp8_under_test")
    from dsv41gen.kernels import mxfp8 as source

    assert isinstance(kernels.FORMAT, source.Mxfp8Format)
    assert kernels.quantize.__module__ == source.__name__
    assert kernels.scale_shape((2,), 130, 160, "swizzled_128x4") == (2, 256 * 8)
    reference = _import(GENERATED / "mxfp8_reference.py", "deepseek_v4_mxfp8_ref_under_test")
    assert reference.quantize_reference.__self__ is reference.REFERENCE


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_changed_source_fails_the_import_with_what_to_do(
    mxfp8_rendered_dir, tmp_path, monkeypatch, module
):
    source = MODULES[module]
    (tmp_path / source).write_bytes((runtime.KERNELS_DIR / source).read_bytes() + b"# edited\n")
    monkeypatch.setattr(runtime, "KERNELS_DIR", tmp_path)
    with pytest.raises(runtime.KernelSourceMismatch) as raised:
        _import(mxfp8_rendered_dir / f"{module}.py", f"generated_{module}")
    message = str(raised.value)
    assert message.startswith(
        f"generated_{module} was generated for dsv41gen kernel sources {source}"
    )
    assert "dsv41gen build" in message


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_unchanged_source_imports(mxfp8_rendered_dir, module):
    _import(mxfp8_rendered_dir / f"{module}.py", f"generated_{module}")
