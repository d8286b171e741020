"""Regenerate dsv41gen/spec/engine_names.json: the engine names a spec may use, read from vLLM.

    python scripts/engine_names.py SITE_PACKAGES          # rewrite the facts file
    python scripts/engine_names.py SITE_PACKAGES --check  # exit 1 when it is not current

SITE_PACKAGES holds the installed vllm==0.33.0 package (the conformance venv's). Nothing is
imported: every module is read with ``ast``, so this runs with any Python and needs no GPU.
The file is committed; ``dsv41gen build`` reads it and never an installed vLLM
(tests/conformance/test_engine_names.py checks it is current against the conformance venv).

Recorded:
- ``kv_spec_types``: every class of ``vllm.v1.kv_cache_interface`` that descends from
  ``KVCacheSpec``, with the base it names (``kv_cache.spec_types`` keys and parents);
- ``model_modules``: every module under ``vllm.models`` and ``vllm.model_executor.models``, with
  the capitalised names its top level binds (a class, an import, an assignment, in any branch of
  an ``if`` / ``try``), and whether it defines a module ``__getattr__`` (then any name may
  resolve): the registry targets (``architectures.*.module`` / ``class``).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "dsv41gen" / "spec" / "engine_names.json"
KV_MODULE = "vllm/v1/kv_cache_interface.py"
KV_ROOT = "KVCacheSpec"
MODEL_PACKAGES = ("vllm/models", "vllm/model_executor/models")
BACKEND_PACKAGES = ("vllm/v1/attention/backends",)
# the tables written one module a line (a regeneration's diff names the modules that changed)
MODULE_TABLES = ("backend_modules", "model_modules")


def _top_level(body: list[ast.stmt]):
    """The statements a module runs at import: its body and every if / try branch in it."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for part in (node.body, node.orelse, node.finalbody):
                yield from _top_level(part)
            for handler in node.handlers:
                yield from _top_level(handler.body)


def _bound(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _module_names(path: Path) -> dict:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = {n for node in _top_level(tree.body) for n in _bound(node)}
    return {
        "names": sorted(n for n in names if n[:1].isupper()),
        "getattr": "__getattr__" in names,
    }


def _kv_spec_types(site: Path) -> dict[str, str | None]:
    tree = ast.parse((site / KV_MODULE).read_text(encoding="utf-8"))
    bases = {
        node.name: [b.id for b in node.bases if isinstance(b, ast.Name)]
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }

    def descends(name: str) -> bool:
        return name == KV_ROOT or any(descends(b) for b in bases.get(name, []) if b in bases)

    return {
        name: next((b for b in parents if b in bases), None)
        for name, parents in sorted(bases.items())
        if descends(name)
    }


def _version(path: Path) -> str:
    """``__version__`` as the wheel's _version.py assigns it."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise SystemExit(f"{path}: no __version__")


def _module_name(site: Path, path: Path) -> str:
    parts = path.relative_to(site).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(site: Path, packages: tuple[str, ...]) -> dict:
    modules = {
        _module_name(site, path): _module_names(path)
        for package in packages
        for path in sorted((site / package).rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    return dict(sorted(modules.items()))


def facts(site: Path) -> dict:
    version = _version(site / "vllm" / "_version.py")
    return {
        "engine": "vllm",
        "version": version,
        "kv_spec_module": KV_MODULE.removesuffix(".py").replace("/", "."),
        "kv_spec_types": _kv_spec_types(site),
        "backend_modules": _modules(site, BACKEND_PACKAGES),
        "model_modules": _modules(site, MODEL_PACKAGES),
    }


def _table(key: str, modules: dict) -> str:
    rows = [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in modules.items()]
    return "\n".join([f" {json.dumps(key)}: {{", ",\n".join(rows), " }"])


def render(data: dict) -> str:
    """JSON, one module a line in each module table."""
    head = {k: v for k, v in data.items() if k not in MODULE_TABLES}
    tables = [_table(key, data[key]) for key in MODULE_TABLES]
    return json.dumps(head, indent=1, sort_keys=True)[:-2] + ",\n" + ",\n".join(tables) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the site-packages holding vllm==0.33.0")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not (args.site / KV_MODULE).is_file():
        print(f"{args.site}: no {KV_MODULE} there; give the site-packages of vLLM", file=sys.stderr)
        return 2
    text = render(facts(args.site))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != text:
            print(f"{args.out} is not current: run python scripts/engine_names.py {args.site}")
            return 1
        print(f"{args.out}: current")
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
