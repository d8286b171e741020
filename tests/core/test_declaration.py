"""The spec language is declared once (dsv41gen/spec/declaration.py); the schemas and the
language reference are derived from it and committed. These tests fail when a committed file is
not what the declaration derives, and pin what the declaration promises."""

from __future__ import annotations

import json

import jsonschema
import pytest

from dsv41gen.schemas import child_schema
from dsv41gen.spec import derive
from dsv41gen.spec.declaration import SPEC
from dsv41gen.spec.language import (
    CAPABILITY_FAMILIES,
    Field,
    List,
    Map,
    Obj,
    Ref,
    capability_number,
)


@pytest.mark.parametrize("path", sorted(derive.derived_files(), key=str), ids=lambda p: p.name)
def test_committed_file_is_derived_from_the_declaration(path):
    text = derive.derived_files()[path]
    assert path.read_text(encoding="utf-8") == text, (
        f"{path.name} is stale: run `python -m dsv41gen.spec.derive`"
    )


def test_check_names_a_stale_file_and_fails(monkeypatch, capsys):
    real = derive.derived_files()
    first = sorted(real, key=str)[0]
    monkeypatch.setattr(derive, "derived_files", lambda: {**real, first: real[first] + " "})
    assert derive.main(["--check"]) == 1
    assert f"{first.name} is stale" in capsys.readouterr().out
    monkeypatch.setattr(derive, "derived_files", lambda: real)
    assert derive.main(["--check"]) == 0


def test_derived_schemas_are_valid_draft_2020_12():
    full = derive.full_schema()
    jsonschema.Draft202012Validator.check_schema(full)
    jsonschema.Draft202012Validator.check_schema(child_schema(full))


def test_block_sizes_are_declared_once_for_every_capability_family():
    """The default and each family's list are one declaration, so they cannot drift apart."""
    backend = SPEC.field("attention_backends").type
    assert isinstance(backend, Map) and isinstance(backend.values, Obj)
    sizes = backend.values.field("kernel_block_sizes").type
    default = sizes.field("default").type
    families = sizes.field("by_capability_family").type
    assert [f.name for f in families.fields] == list(CAPABILITY_FAMILIES)
    assert all(f.type is default for f in families.fields)
    schema = derive.full_schema()["properties"]["attention_backends"]["additionalProperties"]
    by_family = schema["properties"]["kernel_block_sizes"]["properties"]["by_capability_family"]
    assert by_family["properties"]["sm90"]["items"]["maximum"] == 65536


def test_capability_number_reads_the_family_name():
    assert [capability_number(f) for f in CAPABILITY_FAMILIES] == [70, 80, 90, 100, 110, 120]
    with pytest.raises(ValueError):
        capability_number("sm91")


def _fields(node, path=""):
    if isinstance(node, Ref):
        node = node.target
    if isinstance(node, Obj):
        for item in node.fields:
            yield f"{path}.{item.name}".lstrip("."), item
            yield from _fields(item.type, f"{path}.{item.name}")
    elif isinstance(node, Map):
        yield from _fields(node.values, f"{path}.*")
    elif isinstance(node, List) and node.items is not None:
        yield from _fields(node.items, f"{path}[]")


def test_every_required_field_is_in_the_schema_required_list():
    schema = json.dumps(derive.full_schema())
    fields = list(_fields(SPEC))
    assert len(fields) > 150
    assert all(isinstance(item, Field) for _, item in fields)
    assert '"required": ["spec_version", "variant", "architectures", "speculative"]' in schema


def test_the_typed_capability_families_are_the_declared_ones():
    from dsv41gen.model import CapabilityFamily

    assert [f.value for f in CapabilityFamily] == list(CAPABILITY_FAMILIES)
    assert [f.number for f in CapabilityFamily] == [70, 80, 90, 100, 110, 120]


def test_engine_facts_sit_at_the_bottom_floor():
    """Validation reads the engine release from spec/engine_facts.py, which imports nothing of
    dsv41gen; the planner re-exports the same object."""
    import ast
    from pathlib import Path

    import dsv41gen.spec.engine_facts as facts
    from dsv41gen.plan import engine

    tree = ast.parse(Path(facts.__file__).read_text(encoding="utf-8"))
    imported = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert all(n.module == "__future__" for n in imported)
    assert engine.VLLM_VERSION is facts.VLLM_VERSION
    validate_source = (Path(facts.__file__).parents[1] / "validate.py").read_text(encoding="utf-8")
    assert "plan.engine" not in validate_source
