"""What is derived from the declaration: the JSON Schemas (and, through ``docs``, the language
reference). ``python -m dsv41gen.spec.derive`` rewrites every derived file; ``--check`` exits 1
naming the stale ones (tests/core/test_declaration.py runs it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .declaration import SPEC
from .language import Ref, Type

PACKAGE_DIR = Path(__file__).resolve().parent.parent
SCHEMA_PATH = PACKAGE_DIR / "schema.json"
CHILD_SCHEMA_PATH = PACKAGE_DIR / "schema-child.json"

_HEADER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://dsv41gen.invalid/schema/spec-v1.json",
    "title": "dsv41gen model-variant spec",
    "description": "One model variant of an inference engine. A spec may `extends:` a parent "
    "spec and state only what differs; this schema applies to the resolved (merged) spec.",
}


def shared_definitions(root: Type) -> dict[str, Type]:
    """Every ``Ref`` target under ``root``, by name (the schema's ``$defs``)."""
    found: dict[str, Type] = {}

    def visit(node: Type) -> None:
        if isinstance(node, Ref):
            if node.name in found:
                return
            found[node.name] = node.target
            visit(node.target)
            return
        for child, _ in node.children().values():
            visit(child)
        for attribute in ("items", "options"):
            value = getattr(node, attribute, None)
            for inner in value if isinstance(value, tuple) else (value,):
                if isinstance(inner, Type):
                    visit(inner)

    visit(root)
    return found


def full_schema() -> dict[str, Any]:
    """The schema of a resolved spec (``schema.json``)."""
    schema = {**_HEADER, **SPEC.schema()}
    definitions = shared_definitions(SPEC)
    if definitions:
        schema["$defs"] = {name: target.schema() for name, target in sorted(definitions.items())}
    return schema


def schema_json(child: bool = False) -> str:
    """The text of ``schema.json`` (or, with ``child``, of ``schema-child.json``)."""
    from .schemas import child_schema

    schema = full_schema()
    if child:
        schema = child_schema(schema)
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def derived_files() -> dict[Path, str]:
    """Every file derived from the declaration, with the text it must have."""
    from .docs import LANGUAGE_REFERENCE_PATH, language_reference

    return {
        SCHEMA_PATH: schema_json(),
        CHILD_SCHEMA_PATH: schema_json(child=True),
        LANGUAGE_REFERENCE_PATH: language_reference(),
    }


def stale_files() -> list[Path]:
    return [
        path
        for path, text in derived_files().items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check"]:
        stale = stale_files()
        for path in stale:
            print(
                f"{path.relative_to(PACKAGE_DIR.parent)} is stale: run python -m dsv41gen.spec.derive"
            )
        return 1 if stale else 0
    if args:
        print("usage: python -m dsv41gen.spec.derive [--check]", file=sys.stderr)
        return 2
    for path, text in derived_files().items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(PACKAGE_DIR.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
