"""The spec-language reference, written from the declaration: ``docs/reference/language.md``.

``python -m dsv41gen.spec.docs`` (or ``python -m dsv41gen.spec.derive``, which rewrites every
derived file) writes it; tests/core/test_declaration.py fails when the committed page is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import language as lang
from .declaration import SPEC

LANGUAGE_REFERENCE_PATH = Path(__file__).resolve().parents[2] / "docs" / "reference" / "language.md"

_NAMED_PATTERNS = {
    lang.IDENTIFIER: "a Python identifier",
    lang.SNAKE_CASE: "a snake_case name",
    lang.UPPER_CASE: "an UPPER_CASE name",
    lang.DOTTED_NAME: "a dotted Python name",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(value: object) -> str:
    import json

    return f"`{json.dumps(value)}`"


def type_summary(node: lang.Type, path: str) -> str:
    """A field's type in words, as one table cell."""
    if isinstance(node, lang.Ref):
        return f"{node.name} (see [{node.name}](#{_anchor(node.name)}))"
    if isinstance(node, lang.Str):
        words = "string"
        if node.pattern is not None:
            words += f", {_NAMED_PATTERNS.get(node.pattern, f'matching `{node.pattern}`')}"
        if node.min_length is not None:
            words += (
                ", not empty"
                if node.min_length == 1
                else f", at least {node.min_length} characters"
            )
        if node.max_length is not None:
            words += f", at most {node.max_length} characters"
        return words
    if isinstance(node, lang.Int | lang.Num):
        words = "integer" if isinstance(node, lang.Int) else "number"
        low = node.minimum if isinstance(node, lang.Int) else node.exclusive_minimum
        if low is not None and node.maximum is not None:
            sign = "≤" if isinstance(node, lang.Int) else "<"
            words += f" {low} {sign} n ≤ {node.maximum}"
        elif node.maximum is not None:
            words += f" ≤ {node.maximum}"
        elif low is not None:
            words += f" ≥ {low}"
        if node.range:
            words += f" ({node.range})"
        return words
    if isinstance(node, lang.Bool):
        return "boolean"
    if isinstance(node, lang.Enum):
        return "one of " + ", ".join(_code(v) for v in node.values)
    if isinstance(node, lang.Const):
        return f"exactly {_code(node.value)}"
    if isinstance(node, lang.List):
        words = "list"
        if node.items is not None:
            words += f" of {type_summary(node.items, path)}"
        bounds = []
        if node.min_items is not None:
            bounds.append(f"at least {node.min_items}")
        if node.max_items is not None:
            bounds.append(f"at most {node.max_items}")
        if bounds:
            words += f" ({' and '.join(bounds)} items)"
        if node.unique:
            words += ", no repeats"
        return words
    if isinstance(node, lang.Map):
        key = type_summary(node.keys, path) if node.keys is not None else "string"
        return f"map: {key} → {type_summary(node.values, path + '.*')}"
    if isinstance(node, lang.Obj):
        return f"object (see [{path}](#{_anchor(path)}))"
    if isinstance(node, lang.OneOf):
        return " or ".join(type_summary(option, path) for option in node.options)
    if isinstance(node, lang.Raw):
        return "any JSON value (see the schema)"
    raise TypeError(f"no summary for {type(node).__name__}")  # pragma: no cover


def _anchor(path: str) -> str:
    return "".join(
        c for c in path.lower().replace(".", "").replace("*", "") if c.isalnum() or c in "-_"
    )


def _review_cell(item: lang.Field) -> str:
    """The field's review entries; a map's per-entry ones prefixed 'an entry'."""
    entries = [("", review) for review in item.review]
    if isinstance(item.type, lang.Map):
        entries += [("an entry ", review) for review in item.type.entry]
    return "; ".join(
        f"{prefix}{'/'.join(c.value for c in r.changes)}: {r.severity.value} ({r.what}"
        + (", and every field below" if r.below else "")
        + (", when it loses an item" if r.when_shrinks else "")
        + ")"
        for prefix, r in entries
    )


def _default_cell(item: lang.Field) -> str:
    from .language import MISSING

    return "" if item.default is MISSING else _code(item.default)


def _objects(node: lang.Type, path: str, out: list[tuple[str, lang.Obj]], seen: set[str]) -> None:
    """Every object below ``node`` in document order, by path (a shared definition once)."""
    if isinstance(node, lang.Ref):
        if node.name not in seen:
            seen.add(node.name)
            _objects(node.target, node.name, out, seen)
        return
    if isinstance(node, lang.Obj):
        out.append((path, node))
        for item in node.fields:
            _objects(item.type, f"{path}.{item.name}" if path else item.name, out, seen)
    elif isinstance(node, lang.Map):
        _objects(node.values, f"{path}.*", out, seen)
    elif isinstance(node, lang.List) and node.items is not None:
        _objects(node.items, f"{path}[]", out, seen)


def language_reference() -> str:
    """The Markdown page."""
    lines = [
        "# Spec language reference",
        "",
        "<!-- Generated from dsv41gen/spec/declaration.py by `python -m dsv41gen.spec.derive`;",
        "     do not edit: tests/core/test_declaration.py fails when this page is stale. -->",
        "",
        "Every field a spec may write, with its type, whether it is required, its default, what",
        "it means, and how `dsv41gen diff` rates a change of it (fields without a review entry",
        "are BEHAVIOUR: generated behaviour changes). `*` stands for a key the spec names (an",
        "architecture, a backend, a weight set). A child spec (one with `extends:`) may leave any",
        "field out and write `!delete` to remove what its parent has; the merged spec must satisfy",
        "this reference.",
        "",
    ]
    objects: list[tuple[str, lang.Obj]] = []
    _objects(SPEC, "", objects, set())
    for path, node in objects:
        title = path or "Top level"
        lines += [f"## {title}", ""]
        if path and node.doc:
            lines += [node.doc, ""]
        lines += [
            "| field | type | required | default | review | description |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for item in node.fields:
            child = f"{path}.{item.name}" if path else item.name
            lines.append(
                "| "
                + " | ".join(
                    _cell(cell)
                    for cell in (
                        f"`{item.name}`",
                        type_summary(item.type, child),
                        "yes" if item.required else "",
                        _default_cell(item),
                        _review_cell(item),
                        item.doc or "",
                    )
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    LANGUAGE_REFERENCE_PATH.parent.mkdir(parents=True, exist_ok=True)
    LANGUAGE_REFERENCE_PATH.write_text(language_reference(), encoding="utf-8")
    print(f"wrote {LANGUAGE_REFERENCE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
