"""The JSON Schemas editors and CI validators read: the spec language (``schema.json``) and its
child form (``schema-child.json``).

``schema.json`` describes a resolved spec, so a child spec, which states only what differs from
its parent, fails it: required sections are missing, and ``key: !delete`` is not a value of
the key's type. The child schema is derived from it here, mechanically: no ``required``
anywhere, and every property may also be "no value" (an empty string or null), which is what
the YAML language server sees for ``!delete`` once its ``customTags`` setting declares
``"!delete scalar"``. Unknown
keys are still errors (every object keeps ``additionalProperties: false``), so a typo in a
child is caught. ``dsv41gen build`` validates the resolved spec against the full schema either
way.

Both are derived from the language's declaration (``spec/declaration.py``) and committed
(specs point their ``$schema`` modeline at them): ``python -m dsv41gen.spec.derive`` rewrites
them, and tests/core/test_declaration.py fails when either is stale.
"""

from __future__ import annotations

import json
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema.json"
CHILD_SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema-child.json"

# The YAML language server reads a `!delete` declared as a scalar tag as an empty string, and a
# YAML loader without the tag as null: either spelling of "no value" is `!delete`.
_DELETE = {
    "enum": [None, ""],
    "description": "`!delete`: remove what the parent spec has here (editors: declare the tag "
    'with the YAML language server setting `yaml.customTags: ["!delete scalar"]`).',
}


def _deletable(schema: dict) -> dict:
    """The property's own schema, or `!delete`; its description stays on top for hovers."""
    wrapper: dict = {"anyOf": [schema, _DELETE]}
    if "description" in schema:
        wrapper = {"description": schema["description"], **wrapper}
    return wrapper


def _partial(node: object) -> object:
    if isinstance(node, list):
        return [_partial(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict = {}
    for key, value in node.items():
        if key == "required":
            continue  # a parent may provide it
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {name: _deletable(_partial(schema)) for name, schema in value.items()}
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _deletable(_partial(value))
        else:
            out[key] = _partial(value)
    return out


def child_schema(full: dict) -> dict:
    """The schema of a child spec (one with `extends`), derived from the full schema."""
    child = _partial(full)
    assert isinstance(child, dict)
    child["$id"] = full["$id"].replace(".json", "-child.json")
    child["title"] = f"{full['title']} (child: extends a parent)"
    child["description"] = (
        "A spec that `extends:` a parent and states only what differs: nothing is required, "
        "and any key may be `!delete` (remove what the parent has). The merged spec must then "
        "satisfy the full schema (schema.json), which `dsv41gen build` checks."
    )
    return child


def schema_text(child: bool) -> str:
    """The shipped schema file's text (the child schema is derived, then committed)."""
    if child:
        full = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
        return json.dumps(child_schema(full), indent=2, ensure_ascii=False) + "\n"
    return SCHEMA_PATH.read_text(encoding="utf-8")
