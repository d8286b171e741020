"""The spec language is declared once (dsv41gen/spec/declaration.py); the schemas and the
language reference are derived from it and committed. These tests fail when a committed file is
not what the declaration derives, and pin what the declaration promises."""

from __future__ import annotations

import json

import jsonschema
import pytest

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
from dsv41gen.spec.schemas import child_schema


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
    from dsv41gen.spec.model import CapabilityFamily

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
    validate_source = "".join(
        p.read_text(encoding="utf-8")
        for p in (Path(facts.__file__).parent / "validate").glob("*.py")
    )
    assert "plan.engine" not in validate_source


def _instance(node, rng, depth=0):
    """A random value the declaration admits (lists and maps kept short)."""
    from dsv41gen.spec.language import Bool, Const, Enum, Int, Num, OneOf, Raw, Str

    if isinstance(node, Ref):
        return _instance(node.target, rng, depth)
    if isinstance(node, Obj):
        return {
            f.name: _instance(f.type, rng, depth + 1)
            for f in node.fields
            if f.required or rng.random() < 0.5
        }
    if isinstance(node, Map):
        return {f"key{i}": _instance(node.values, rng, depth + 1) for i in range(rng.randint(0, 2))}
    if isinstance(node, List):
        low = node.min_items or 0
        count = rng.randint(low, max(low, 2))
        if node.items is None:
            return [rng.randint(0, 9) for _ in range(count)]
        if isinstance(node.items, Enum) and node.unique:
            return rng.sample(list(node.items.values), min(count, len(node.items.values)))
        if node.unique:
            seen = []
            while len(seen) < count:
                item = _instance(node.items, rng, depth + 1)
                if item not in seen:
                    seen.append(item)
            return seen
        return [_instance(node.items, rng, depth + 1) for _ in range(count)]
    if isinstance(node, OneOf):
        return _instance(rng.choice(node.options), rng, depth)
    if isinstance(node, Enum):
        return rng.choice(node.values)
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Bool):
        return rng.random() < 0.5
    if isinstance(node, Int):
        low = node.minimum if node.minimum is not None else -5
        return rng.randint(low, node.maximum if node.maximum is not None else low + 10)
    if isinstance(node, Num):
        return min(node.maximum or 1.0, 0.5)
    if isinstance(node, Str):
        return None  # a pattern-bound string: the caller fills it
    if isinstance(node, Raw):
        return 1
    raise TypeError(node)


def test_the_declared_read_never_fails_on_what_the_schema_admits():
    """parse.read follows the declaration only: on any value the derived schema accepts (random
    objects of every declared shape), it returns a Record with every declared field."""
    import random

    from dsv41gen.spec.parse import Record, read

    backend = SPEC.field("attention_backends").type.values
    validator = jsonschema.Draft202012Validator(
        derive.full_schema()["properties"]["attention_backends"]["additionalProperties"]
    )
    rng = random.Random(1)
    checked = 0
    for _ in range(300):
        raw = _instance(backend, rng)
        raw = _fill_strings(raw, backend)
        if list(validator.iter_errors(raw)):
            continue
        record = read(backend, raw)
        assert isinstance(record, Record)
        assert set(record) == {f.name for f in backend.fields}
        assert record.kind in ("indexer", "sparse_mla") and record.platform in ("cuda", "rocm")
        checked += 1
    assert checked > 100


def _fill_strings(value, node):
    """Pattern-bound strings get a value that matches the common name patterns."""
    from dsv41gen.spec.language import Str

    if isinstance(node, Ref):
        node = node.target
    if isinstance(node, Str):
        return "NAME" if node.pattern and "[A-Z][A-Z0-9_]" in node.pattern else "name"
    if isinstance(node, Obj) and isinstance(value, dict):
        return {k: _fill_strings(v, node.field(k).type) for k, v in value.items()}
    if isinstance(node, Map) and isinstance(value, dict):
        return {k: _fill_strings(v, node.values) for k, v in value.items()}
    if isinstance(node, List) and isinstance(value, list) and node.items is not None:
        return [_fill_strings(v, node.items) for v in value]
    return value
