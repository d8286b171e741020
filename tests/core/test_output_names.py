"""The names the generated code owns are declared once (dsv41gen/spec/output_names.py), and the
name-clash rules read that declaration. These tests keep it true: they parse every generated
module of the shipped packages (and the runtime they import) and fail when a template gains a
name that is not declared, or the declaration keeps one no template writes any more."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from repohelpers import REPO

from dsv41gen.spec import output_names

GENERATED = REPO / "generated"
PACKAGES = sorted(p.parent for p in GENERATED.glob(f"*/{output_names.MANIFEST}"))


def _top_level_names(body: list[ast.stmt]) -> set[str]:
    """What a module binds at its top level, inside top-level if/try blocks too (the binding
    defines its stand-ins under `if not VLLM_AVAILABLE:`), never inside a def or class."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.If):
            names |= _top_level_names(node.body) | _top_level_names(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                names |= _top_level_names(block)
    return names


def _spec_words(package: Path) -> set[str]:
    """Every word of the specs the package was built from: a name found there came from a spec
    (a backend class, its engine parent, a KV-cache spec type), not from a template."""
    manifest = (package / output_names.MANIFEST).read_text(encoding="utf-8")
    specs = {REPO / "specs" / name for name in re.findall(r"([\w.-]+\.yaml)", manifest)}
    assert specs, f"{package}: its MANIFEST names no spec"
    return {w for spec in specs for w in re.findall(r"\w+", spec.read_text(encoding="utf-8"))}


def test_there_is_a_shipped_package_to_check():
    assert PACKAGES, "no generated package under generated/"


@pytest.mark.parametrize("module", sorted(output_names.MODULE_NAMES))
def test_declared_module_names_are_the_generated_modules_own(module):
    """Each package's module defines only declared names, and every declared name is defined by
    some package's module: a family may lack a module (no attention backends) or some of its
    names (no linear-attention state), but no name is declared that no package writes."""
    declared = output_names.MODULE_NAMES[module]
    # backends.py and kv_cache.py also import some of the binding's names (KVCacheLayout)
    seen = declared | output_names.MODULE_NAMES["_binding"]
    written: set[str] = set()
    for package in PACKAGES:
        path = package / f"{module}.py"
        if not path.exists():
            continue
        found = _top_level_names(ast.parse(path.read_text(encoding="utf-8")).body)
        undeclared = found - _spec_words(package) - seen
        assert not undeclared, f"{package.name}/{module}.py defines undeclared {undeclared}"
        written |= found
    stale = declared - written
    assert not stale, f"no generated {module}.py defines {stale} any more"


def _imported(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Attribute, ast.Name))
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "importorskip")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value.split(".")[0])
    return found


def test_declared_imported_packages_are_what_the_generated_code_imports():
    sources = [p for package in PACKAGES for p in package.rglob("*.py")]
    sources += sorted((REPO / "dsv41gen" / "kernels").glob("*.py"))
    found = set().union(*(_imported(ast.parse(p.read_text(encoding="utf-8"))) for p in sources))
    own = {package.name for package in PACKAGES}
    found -= set(sys.stdlib_module_names) | {"__future__"} | own
    assert found == output_names.IMPORTED_PACKAGES


def test_declared_package_modules_are_the_generated_packages_modules():
    """Every module of a package is declared, and every declared module is some package's: a
    family without kernels or attention backends has fewer modules, never an undeclared one."""
    seen: set[str] = set()
    for package in PACKAGES:
        found = {
            p.name.removesuffix(".py")
            for p in package.iterdir()
            if (p.is_dir() or p.suffix == ".py")
            and p.name != "__init__.py"
            and not p.name.startswith(("__", "."))  # __pycache__ where bytecode is written
        }
        found = {name for name in found if not name.startswith("rope_kv_")}
        assert found <= output_names.PACKAGE_MODULES, (
            package.name,
            found - output_names.PACKAGE_MODULES,
        )
        seen |= found
    assert seen == output_names.PACKAGE_MODULES


def test_the_ast_reader_sees_the_binding_stand_ins():
    """The reader above must see names defined under a top-level if: else the binding's
    stand-ins (KVCacheLayout, ModelRegistry) would go unchecked."""
    tree = ast.parse("if X:\n    import a\nelse:\n    class B: ...\n    def f(): c = 1\n")
    assert _top_level_names(tree.body) == {"a", "B", "f"}
