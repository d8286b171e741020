"""Names: what a spec names becomes a file, a Python package or module, a class or a C++ name.
None of it may shadow what the language, the standard library or the generated modules
themselves define."""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from ...errors import Diagnostics, Location
from ..load import Path_
from ..output_names import (
    IMPORTED_PACKAGES,
    MANIFEST,
    MODULE_NAMES,
    PACKAGE_MODULES,
    header_like,
)
from ..resolve import ResolvedSpec
from .report import Report

# ---------------------------------------------------------------------------------------------
# Names: what a spec names becomes a file, a Python package or module, a class or a C++ name.
# None of it may shadow what the language, the standard library or the generated modules
# themselves define; a spec file name reaches generated files (headers, source-map comments)
# and must be plain too.

SPEC_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def _bad_file_name(name: str) -> str | None:
    if SPEC_FILE_NAME.fullmatch(name) and name not in (".", ".."):
        return None
    return (
        f"the spec file name {name!r} may only hold letters, digits, '_', '.' and '-' "
        "(it is written into every generated file)"
    )


def _check_file_names(spec: ResolvedSpec, diagnostics: Diagnostics) -> None:
    """The spec's own file name (reported at its first line) and its ``extends`` target."""
    problem = _bad_file_name(Path(spec.file).name)
    if problem:
        diagnostics.add(Location(spec.file, 1, 1), "", problem + "; rename the file")
    target = spec.document.data.get("extends")
    if isinstance(target, str):
        problem = _bad_file_name(Path(target).name)
        if problem:
            where = spec.document.where(("extends",))
            diagnostics.add(where, "extends", problem + "; rename the parent spec")


def _name_clash(name: str, *, module_names: frozenset[str] = frozenset()) -> str | None:
    """Why ``name`` cannot be a generated identifier, or None (keywords: see
    _names_are_not_keywords, which covers every name field)."""
    import builtins

    if hasattr(builtins, name):
        return f"{name!r} is a Python builtin"
    if name in module_names:
        return f"{name!r} is already a name of the generated module"
    return None


# Modules Python imports by itself from sys.path at start-up (site): a generated package of
# that name would run at every interpreter start of whoever puts the output directory there.
_STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})


def _package_clash(name: str) -> str | None:
    import sys

    if name in sys.stdlib_module_names:
        return f"{name!r} is a Python standard-library module"
    if name in IMPORTED_PACKAGES or name == __package__.partition(".")[0]:
        return (
            f"{name!r} is a package the generated code imports: a generated package of that "
            "name would shadow it (and installing the plugin would overwrite its files)"
        )
    if name in _STARTUP_MODULES:
        return f"{name!r} is a module Python imports by itself at every start (site)"
    if name in PACKAGE_MODULES:
        return f"{name!r} is the name of a module of the generated package"
    where = installed_module(name)
    if where is not None:
        return (
            f"{name!r} is a module installed in this environment ({where}): a generated "
            "package of that name would shadow it for every importer with the output directory "
            "on sys.path, and installing the plugin wheel would overwrite its files"
        )
    return _name_clash(name)


@functools.lru_cache(maxsize=64)
def installed_module(name: str) -> str | None:
    """Where a top-level module ``name`` is importable from in the build's environment, or None.

    Asked of the import system itself, as ``import name`` would: every finder on sys.meta_path
    (an editable install's finder included) over sys.path, except the working directory that
    `python -m` puts first (a spec directory is no installed package). Nothing is imported. A
    package that dsv41gen generated (its MANIFEST says so) is not counted: it is this package,
    built or installed before."""
    import importlib.machinery
    import os
    import sys

    cwd = os.path.realpath(os.getcwd())
    path = [e for e in sys.path if e and os.path.realpath(e) != cwd]
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            if finder is importlib.machinery.PathFinder:
                found = finder.find_spec(name, path)
            else:
                found = find(name, None)
        except (ImportError, ValueError, OSError):  # a finder's own trouble is no module
            continue
        if found is None:
            continue
        locations = list(found.submodule_search_locations or ())
        if any(_generated_by_dsv41gen(Path(location)) for location in locations):
            return None
        return (
            found.origin
            if found.origin not in (None, "built-in", "frozen")
            else (", ".join(locations) or found.origin or "built in")
        )
    return None


def _generated_by_dsv41gen(package: Path) -> bool:
    try:
        with open(package / MANIFEST, encoding="utf-8") as handle:
            return handle.readline().startswith("# @generated by dsv41gen ")
    except (OSError, UnicodeDecodeError):
        return False


_RENAME = "; choose another name"


def _generated_names(spec: ResolvedSpec, report: Report) -> None:
    """Every name a spec gives that becomes a Python or C++ name of the generated code."""
    variant = spec.data.get("variant", {})
    if len(spec.lineage) == 1 and isinstance(variant.get("name"), str):
        problem = _package_clash(variant["name"])
        if problem:
            report(("variant", "name"), problem + " (the root variant names the package)" + _RENAME)
    in_backends = MODULE_NAMES["backends"] | MODULE_NAMES["_binding"]
    sparse_functions: dict[str, str] = {}
    for key, backend in (spec.data.get("attention_backends") or {}).items():
        if not isinstance(backend, dict):
            continue
        if backend.get("kind") == "sparse_mla":
            name = backend.get("name")
            if isinstance(name, str):
                # generated as _<name lower>_block_sizes(): names that differ only in case clash
                other = sparse_functions.setdefault(name.lower(), key)
                if other != key:
                    report(
                        ("attention_backends", key, "name"),
                        f"{name!r} and the name of {other} differ only in case; they would "
                        "generate one function" + _RENAME,
                    )
            continue
        problem = _name_clash(key, module_names=in_backends)
        if problem:
            report(("attention_backends", key), problem + " (it names a generated class)" + _RENAME)
        parent = backend.get("parent")
        if isinstance(parent, str) and backend.get("parent_module") is not None:
            problem = _name_clash(parent, module_names=in_backends)
            if problem:
                report(
                    ("attention_backends", key, "parent"),
                    problem + " (an engine parent is imported under its own name)",
                )
        for i, member in enumerate(backend.get("supported_kv_cache_layouts") or ()):
            if isinstance(member, str) and (member.startswith("_") or member in ("name", "value")):
                report(
                    ("attention_backends", key, "supported_kv_cache_layouts", i),
                    f"{member!r} cannot be an enum member name",
                )
    in_kv = MODULE_NAMES["kv_cache"] | MODULE_NAMES["_binding"]
    kv = spec.data.get("kv_cache") or {}
    spec_types = kv.get("spec_types") if isinstance(kv, dict) else None
    for key in spec_types or {}:
        problem = _name_clash(key, module_names=in_kv)
        if problem:
            report(
                ("kv_cache", "spec_types", key), problem + " (it names a generated class)" + _RENAME
            )


def _keyword_parts(text: object) -> list[str]:
    import keyword

    if not isinstance(text, str):
        return []
    return [part for part in text.split(".") if keyword.iskeyword(part)]


def _names_are_not_keywords(spec: ResolvedSpec, report: Report) -> None:
    """A field the declaration calls an identifier (or a dotted path of them) becomes a Python
    name somewhere in the generated code, where a keyword cannot stand."""
    from ..declaration import SPEC
    from ..language import NAME_PATTERNS, List, Map, Obj, OneOf, Ref, Str, Type

    def is_name(node: Type | None) -> bool:
        return isinstance(node, Str) and node.pattern in NAME_PATTERNS

    def keywords_in(text: object, path: Path_) -> None:
        for part in _keyword_parts(text):
            report(path, f"{part!r} is a Python keyword, which cannot be a generated name")

    def walk(node: Type, value: object, path: Path_) -> None:
        if isinstance(node, Ref):
            walk(node.target, value, path)
        elif isinstance(node, OneOf):
            for option in node.options:
                walk(option, value, path)
        elif is_name(node):
            keywords_in(value, path)
        elif isinstance(node, Map) and isinstance(value, dict):
            for key, item in value.items():
                if is_name(node.keys):
                    keywords_in(key, path + (key,))
                walk(node.values, item, path + (key,))
        elif isinstance(node, Obj) and isinstance(value, dict):
            for key, item in value.items():
                declared = node.field(key)
                if declared is not None:
                    walk(declared.type, item, path + (key,))
        elif isinstance(node, List) and node.items is not None and isinstance(value, list):
            for i, item in enumerate(value):
                walk(node.items, item, path + (i,))

    walk(SPEC, spec.data, ())


def _unprintable(text: str) -> str | None:
    """The first character of ``text`` that is not printable, named for the message."""
    if text.isprintable():  # one C pass; the loop names the character in the rare other case
        return None
    for column, ch in enumerate(text, 1):
        if not ch.isprintable():
            return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character')}) at character {column}"
    return None


def _text_is_printable(spec: ResolvedSpec, report: Report) -> None:
    """Every string of a spec is printable text: no control, bidi, line-separator or NUL
    character. Spec text reaches generated code only escaped, but a message also reaches
    people at run time (the exception vLLM prints, its logs): a bidi control or an escape code
    there would make the terminal show something other than what the string says (Trojan
    Source, CVE-2021-42574). Comments clean such text; a message must not need cleaning."""

    def walk(value: object, path: Path_) -> None:
        if isinstance(value, str):
            found = _unprintable(value)
            if found is not None:
                report(
                    path,
                    f"must be printable text on one line, found {found}; write the text "
                    "without control, bidi or line-separator characters",
                )
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _unprintable(key) is not None:
                    report(path, f"the key {key!r} is not printable text: {_unprintable(key)}")
                walk(item, path + (key,))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, path + (i,))

    walk(spec.data, ())


def _license_lines_are_not_headers(spec: ResolvedSpec, report: Report) -> None:
    """A license line is printed above dsv41gen's own header, and the header is found as the
    first line that reads like one: a license line `dsv41gen-content: 0000000000000000` made
    every generated file look hand-edited (check failed, build refused without --force) and
    one reading `@generated by dsv41gen ... from X.` above it would name other spec files."""
    lines = spec.data.get("license_header")
    for i, line in enumerate(lines if isinstance(lines, list) else ()):
        if isinstance(line, str) and header_like(line.rstrip()):
            report(
                ("license_header", i),
                f"{line!r} reads like dsv41gen's own header line, which follows the license "
                "lines; reword it (a license line cannot start with `dsv41gen-content:`, "
                "`dsv41gen-inputs:` or `@generated by dsv41gen`)",
            )
