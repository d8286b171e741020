"""validate_spec runs the schema, then each rule only on sections the schema found well formed,
and catches nothing: a rule that raises on a well-formed section is a bug that surfaces.

Each rule states the top-level sections it reads (spec/validate/__init__.py, RULES). The first
test reads every rule's code (and the validate helpers it calls) for the section names it
uses, so a rule that starts reading a section it does not declare fails here instead of
crashing on a malformed one."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

import pytest

from dsv41gen.errors import Diagnostics
from dsv41gen.spec import validate
from dsv41gen.spec.declaration import SPEC

SECTIONS = {f.name for f in SPEC.fields}


def _function(module_name: str, name: str) -> tuple[object, ast.FunctionDef | None]:
    module = importlib.import_module(module_name)
    tree = ast.parse(inspect.getsource(module))
    found = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    return module, found


def _functions(check) -> list[ast.FunctionDef]:
    """``check`` and every function of the validate package it calls, transitively."""
    found: list[ast.FunctionDef] = []
    todo = [(check.__module__, check.__name__)]
    seen: set[tuple[str, str]] = set()
    while todo:
        where = todo.pop()
        if where in seen:
            continue
        seen.add(where)
        module, node = _function(*where)
        if node is None:
            continue
        found.append(node)
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                callee = getattr(module, n.func.id, None)
                if inspect.isfunction(callee) and callee.__module__.startswith(validate.__name__):
                    todo.append((callee.__module__, callee.__name__))
    return found


def _typed_attributes(check) -> set[str]:
    """The attributes of the TypedSpec that ``check`` and its helpers read (a function's
    first parameter, where it is annotated TypedSpec)."""
    used: set[str] = set()
    for node in _functions(check):
        first_arg = node.args.args[0] if node.args.args else None
        annotation = first_arg.annotation if first_arg else None
        if not (isinstance(annotation, ast.Name) and annotation.id == "TypedSpec"):
            continue
        first = first_arg.arg
        used |= {
            n.attr
            for n in ast.walk(node)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id == first
        }
    return used


def _sections_named(check) -> set[str]:
    """Section names written as string constants in ``check`` and in every function of the
    validate package it calls, transitively, and the sections behind the typed attributes
    they read (TypedSpec.SECTIONS)."""
    from dsv41gen.spec.validate.typed import TypedSpec

    found = {
        n.value
        for node in _functions(check)
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and n.value in SECTIONS
    }
    return found | {
        TypedSpec.SECTIONS[a] for a in _typed_attributes(check) if a in TypedSpec.SECTIONS
    }


@pytest.mark.parametrize("rule", validate.RULES, ids=lambda rule: rule.name)
def test_each_rule_declares_the_sections_it_reads(rule):
    if rule.reads is validate.EVERY_VALUE:
        assert _sections_named(rule.check) == set(), "a walk of any value names no section"
        return
    assert set(rule.reads) <= SECTIONS
    assert _sections_named(rule.check) <= set(rule.reads)


def test_the_reader_follows_helper_calls():
    # _backend_parents reads kv_cache only through _engine_parent_binds_once: a section read
    # only through a helper must still be seen
    rule = next(r for r in validate.RULES if r.name == "backend_parents")
    assert "kv_cache" in _sections_named(rule.check)  # via _engine_parent_binds_once


def test_validate_spec_catches_nothing():
    source = textwrap.dedent(inspect.getsource(validate.validate_spec))
    tree = ast.parse(source)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Try)]


class _Spec:
    """Just enough of a ResolvedSpec for validate_spec to reach its rules."""

    def __init__(self, data):
        self.data = data


def test_a_rule_is_skipped_only_where_the_schema_refused_a_section_it_reads(monkeypatch):
    ran: list[str] = []

    def rule(name):
        def check(spec, report):
            ran.append(name)

        check.__name__ = name
        return check

    monkeypatch.setattr(
        validate,
        "RULES",
        (
            validate.Rule(rule("on_backends"), ("attention_backends",)),
            validate.Rule(rule("on_runner"), ("runner",)),
            validate.Rule(rule("on_anything"), validate.EVERY_VALUE),
        ),
    )
    monkeypatch.setattr(validate.names, "_check_file_names", lambda spec, diagnostics: None)
    monkeypatch.setattr(validate, "_Inherited", lambda spec, diagnostics: diagnostics)
    errors = {"broken": [("attention_backends", "X", "name")], "root": [()], "clean": []}
    for case, paths in errors.items():
        monkeypatch.setattr(validate, "_schema_errors", lambda spec, d, paths=paths: paths)
        ran.clear()
        validate.validate_spec(_Spec({}), Diagnostics())
        expected = {
            "broken": ["on_runner", "on_anything"],
            "root": ["on_anything"],
            "clean": ["on_backends", "on_runner", "on_anything"],
        }[case]
        assert ran == expected, case


def test_a_rule_that_raises_on_a_well_formed_spec_is_not_swallowed(monkeypatch):
    def broken(spec, report):
        raise KeyError("a bug in a rule")

    monkeypatch.setattr(validate, "RULES", (validate.Rule(broken, ("runner",)),))
    monkeypatch.setattr(validate.names, "_check_file_names", lambda spec, diagnostics: None)
    monkeypatch.setattr(validate, "_Inherited", lambda spec, diagnostics: diagnostics)
    # the schema refused another section: the rule still runs, and its bug surfaces
    monkeypatch.setattr(validate, "_schema_errors", lambda spec, d: [("engine",)])
    with pytest.raises(KeyError):
        validate.validate_spec(_Spec({}), Diagnostics())


@pytest.mark.parametrize("rule", [r for r in validate.RULES if r.typed], ids=lambda rule: rule.name)
def test_a_typed_rule_reads_the_typed_model_of_its_declared_sections(rule):
    from dsv41gen.spec.validate.typed import TypedSpec

    used = _typed_attributes(rule.check)  # its helpers' reads too
    assert used and used <= set(TypedSpec.SECTIONS), used  # no `spec.data`: no dicts
    assert {TypedSpec.SECTIONS[a] for a in used} <= set(rule.reads)


def test_there_is_a_typed_rule():
    typed = [r.name for r in validate.RULES if r.typed]
    assert typed == [
        "method_weights_declared",
        "signature_names_declared_weights",
        "weight_set_loader_rules",
        "block_sizes_powers_of_two",
        "sparse_mla_entries",
        "backend_parents",
        "hf_config_counts",
        "speculative_token_limits",
    ]
