"""The spec-language reference page, generated from the language's one declaration.

Every row comes from ``dsv41gen/schema.json``: the field's path, its type, whether it is required,
its constraints and its ``description``. Nothing here is written by hand, so the page cannot drift
from what ``dsv41gen`` accepts; a field without a description shows as such, which is a defect
of the declaration, not of this page.

    python docs/_gen/language_reference.py > language.md    # what the docs build does in memory
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

SCHEMA = Path(__file__).resolve().parents[2] / "dsv41gen" / "schema.json"


def _cell(text: str) -> str:
    """One table cell: GitHub/Python-Markdown tables end a cell at '|' and a row at a newline."""
    return text.replace("|", "\\|").replace("\n", " ")


def _code(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return "`" + text.replace("`", "'") + "`"


def _resolve(node: dict, defs: dict) -> dict:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        merged = dict(defs[ref.removeprefix("#/$defs/")])
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return merged
    return node


def _type(node: dict) -> str:
    if "const" in node:
        return _code(node["const"])
    if "enum" in node:
        return " \\| ".join(_code(v) for v in node["enum"])
    kind = node.get("type")
    if isinstance(kind, list):
        return " \\| ".join(kind)
    if kind == "array":
        items = node.get("items")
        inner = _type(items) if isinstance(items, dict) else ""
        return f"list of {inner}" if inner else "list"
    if kind == "object" and "properties" not in node and isinstance(
        node.get("additionalProperties"), dict
    ):
        return "mapping"
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(_type(choice) for choice in node[key])
    return kind or ""


def _constraints(node: dict) -> str:
    parts = []
    for key, label in (("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥"),
                       ("maxLength", "length ≤"), ("minItems", "items ≥"), ("maxItems", "items ≤")):
        if key in node:
            parts.append(f"{label} {node[key]}")
    if "pattern" in node:
        parts.append("matches " + _code(node["pattern"].removesuffix("$(?![\\s\\S])") + "$"))
    if "default" in node:
        parts.append("default " + _code(node["default"]))
    if isinstance(node.get("x-range"), str):
        parts.append(node["x-range"])
    return "; ".join(parts)


def _rows(node: dict, path: str, defs: dict, required: bool) -> Iterator[tuple[str, ...]]:
    node = _resolve(node, defs)
    description = node.get("description", "")
    yield (path, _type(node), "yes" if required else "", _constraints(node), description)
    needed = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        yield from _rows(child, f"{path}.{name}", defs, name in needed)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        yield from _rows(extra, f"{path}.<name>", defs, False)
    items = node.get("items")
    if isinstance(items, dict) and ("properties" in _resolve(items, defs)):
        yield from _rows(items, f"{path}[]", defs, False)


def render(schema: dict) -> str:
    defs = schema.get("$defs", {})
    needed = set(schema.get("required", ()))
    lines = [
        "# Spec language reference",
        "",
        "<!-- Generated from dsv41gen/schema.json by docs/_gen/language_reference.py. -->",
        "",
        _cell(schema.get("description", "")),
        "",
        "Generated at docs build time from the language's declaration, the JSON Schema that "
        "`dsv41gen schema` prints and editors validate against; `<name>` stands for a key "
        "the spec chooses. The guide to writing specs is [Writing specs](../specs.md).",
        "",
    ]
    for section, node in schema["properties"].items():
        lines += [f"## `{section}`", ""]
        rows = list(_rows(node, section, defs, section in needed))
        lines += ["| field | type | required | constraints | description |", "|---|---|---|---|---|"]
        for path, kind, req, constraints, description in rows:
            lines.append(
                f"| `{_cell(path)}` | {kind} | {req} | {_cell(constraints)} | {_cell(description)} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    sys.stdout.write(render(json.loads(SCHEMA.read_text(encoding="utf-8"))))


if __name__ == "__main__":
    main()
