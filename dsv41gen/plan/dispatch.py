"""Merge or fork, computed: one decision per behaviour site, from the resolved values.

For each site (a question generated code asks about a model_type, such as "which architecture
does a DSpark draft become?"), the variants of the family are grouped by their resolved
answer. Variants that answer alike share one branch with a set-membership test; variants that
answer differently get branches of their own. This is seed 000 §8 done by the planner: nobody
decides by hand where `model_type == "deepseek_v4"` should become `in (...)`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import Family, Method, Variant
from .sources import SourceMap
from .values import Comment, DocText, PyCode, PyLiteral


def model_type_test(model_types: tuple[str, ...] | list[str]) -> PyCode:
    """The condition on ``model_type`` for a group of variants (Python source): one variant is
    an equality test, several share one set-membership test."""
    if len(model_types) == 1:
        return PyCode.format("== {}", PyLiteral(model_types[0]))
    return PyCode("in {" + ", ".join(PyLiteral(m).text for m in model_types) + "}")


@dataclass(frozen=True)
class Branch:
    model_types: tuple[str, ...]
    value: object
    sources: tuple[Comment, ...]

    @property
    def test(self) -> PyCode:
        """The condition on ``model_type`` this branch is taken under (Python source)."""
        return model_type_test(self.model_types)


@dataclass(frozen=True)
class Site:
    name: str  # generated function name
    question: str  # what the site answers, for docstrings and `explain`
    field: str  # the spec field (relative to the variant) that decides it
    values: tuple[tuple[str, object], ...]  # (variant name, value) for every variant
    branches: tuple[Branch, ...]  # variants with a value, grouped by equal value
    boolean: bool
    return_type: str

    @property
    def return_annotation(self) -> PyCode:
        return PyCode(self.return_type)

    @property
    def docstring(self) -> DocText:
        return DocText(f"{self.question} ({self.field}; {self.decision}).")

    @property
    def decision(self) -> str:
        """merged: every variant of the family gives the same answer, so one membership test
        serves them all; forked: some variant answers differently (or not at all)."""
        if len(self.values) == 1:
            return "single variant"
        answers = {value for _, value in self.values}
        return "merged" if len(answers) == 1 else "forked"

    @property
    def true_branch(self) -> Branch | None:
        return next((b for b in self.branches if b.value is True), None)


def _group(
    family: Family, field: str, value_of, sources: SourceMap, source_path, by_model_type=None
) -> tuple[tuple[tuple[str, object], ...], tuple[Branch, ...]]:
    """Group every model type of every variant (its model_type and aliases) by its answer.
    ``by_model_type(variant, model_type)``, where given, answers for one model type (None:
    the variant's answer); ``source_path(variant, model_type)`` then names the field."""
    values = tuple((v.name, value_of(v)) for v in family.variants)
    groups: dict[object, list[tuple[Variant, str]]] = {}
    for variant in family.variants:
        for model_type in variant.model_types:
            own = by_model_type(variant, model_type) if by_model_type else None
            value = value_of(variant) if own is None else own
            if value is None or value is False:
                continue  # no answer: the function's fallthrough covers it
            groups.setdefault(value, []).append((variant, model_type))

    def ref(variant: Variant, model_type: str):
        path = source_path(variant, model_type) if by_model_type else source_path(variant)
        return sources.ref(variant.name, *path)

    branches = tuple(
        Branch(
            tuple(model_type for _, model_type in members),
            value,
            tuple(dict.fromkeys(ref(v, model_type) for v, model_type in members)),
        )
        for value, members in groups.items()
    )
    return values, branches


def _method_field(method: Method, attribute: str):
    def value_of(variant: Variant):
        found = variant.method(method)
        if found is None:
            return None
        value = getattr(found, attribute)
        return tuple(value) if isinstance(value, list) else value

    return value_of


class DraftFieldRows(tuple):
    """The value of a draft-fields site: (field, source path, conversion, default) rows."""

    RETURN_TYPE = "tuple[tuple[str, str, str, object], ...] | None"


def _draft_field_rows(variant: Variant, method: Method) -> DraftFieldRows | None:
    found = variant.method(method)
    if found is None or not found.draft_fields:
        return None
    return DraftFieldRows(
        (f.name, f.source, f.convert.value, f.default) for f in found.draft_fields
    )


def _own_architecture(variant: Variant, method: Method, model_type: str) -> str | None:
    """A model type's own draft architecture (draft_architecture_by_model_type), or None."""
    found = variant.method(method)
    return dict(found.draft_architecture_by_model_type).get(model_type) if found else None


def _own_architecture_path(variant: Variant, method: Method, model_type: str) -> tuple[str, ...]:
    if _own_architecture(variant, method, model_type) is not None:
        return ("draft_architecture_by_model_type", model_type)
    return ("draft_architecture",)


def family_methods(family: Family) -> tuple[Method, ...]:
    seen = {m.method for v in family.variants for m in v.methods}
    return tuple(m for m in Method if m in seen)


def plan_sites(family: Family, sources: SourceMap) -> tuple[Site, ...]:
    sites: list[Site] = []

    def add(name, question, field, value_of, boolean, source_path, by_model_type=None):
        values, branches = _group(family, field, value_of, sources, source_path, by_model_type)
        if not branches:
            return  # no variant answers: nothing to emit, nothing to test
        if boolean:
            return_type = "bool"
        elif all(isinstance(b.value, DraftFieldRows) for b in branches):
            return_type = DraftFieldRows.RETURN_TYPE
        elif all(isinstance(b.value, tuple) for b in branches):
            return_type = "tuple[str, ...] | None"
        else:
            return_type = "str | None"
        sites.append(Site(name, question, field, values, branches, boolean, return_type))

    for method in family_methods(family):
        m = method.value
        base = ("speculative", "methods", m)
        add(
            f"{m}_draft_model_type",
            f"The model_type a {m} draft config is rewritten to",
            f"speculative.methods.{m}.draft_model_type",
            _method_field(method, "draft_model_type"),
            False,
            lambda v, base=base: base + ("draft_model_type",),
        )
        add(
            f"{m}_draft_architecture",
            f"The architecture a {m} draft config is rewritten to",
            f"speculative.methods.{m}.draft_architecture",
            _method_field(method, "draft_architecture"),
            False,
            lambda v, model_type, base=base, method=method: (
                base + _own_architecture_path(v, method, model_type)
            ),
            lambda v, model_type, method=method: _own_architecture(v, method, model_type),
        )
        add(
            f"{m}_draft_fields",
            f"The {m} draft config fields copied from the target's: (field, source path, "
            "conversion, default when unset)",
            f"speculative.methods.{m}.draft_fields",
            lambda v, method=method: _draft_field_rows(v, method),
            False,
            lambda v, base=base: base + ("draft_fields",),
        )
        add(
            f"{m}_tokens_per_round_sources",
            f"The HF config fields that say how many tokens one {m} round drafts, first set wins",
            f"speculative.methods.{m}.tokens_per_round.sources",
            _method_field(method, "tokens_per_round_sources"),
            False,
            lambda v, base=base: base + ("tokens_per_round", "sources"),
        )
        add(
            f"{m}_default_sources",
            f"The draft config fields a {m} default num_speculative_tokens is read from, first set wins (None: tokens per round)",
            f"speculative.methods.{m}.num_speculative_tokens.default_sources",
            lambda v, method=method: (
                v.method(method).num_speculative_tokens.default_sources or None
                if v.method(method) is not None
                else None
            ),
            False,
            lambda v, base=base: base + ("num_speculative_tokens", "default_sources"),
        )
        # Only the questions something asks: the plugin (quantization) and speculative.py
        # (adaptive verification). reuses_target_kv_layout has no vLLM 0.33.0 site to answer
        # (dsv41gen explain lists it), so no function is emitted for it.
        add(
            f"{m}_target_quantization",
            f"How a {m} draft's quantization follows the target's (force / default_when_unset)",
            f"speculative.methods.{m}.target_quantization",
            _method_field(method, "target_quantization_mode"),
            False,
            lambda v, base=base: base + ("target_quantization",),
        )
        for attribute, question in (
            ("adaptive_verification", f"Whether adaptive verification is supported with {m}"),
        ):
            add(
                f"{m}_{attribute}",
                question,
                f"speculative.methods.{m}.{attribute}",
                _method_field(method, attribute),
                True,
                lambda v, base=base, attribute=attribute: base + (attribute,),
            )
    return tuple(sites)
