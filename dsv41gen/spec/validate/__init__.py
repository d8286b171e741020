"""The validate stage, in order: the derived schema, then the rules a schema cannot say.

1. ``schema``: the JSON Schema derived from the declaration, every error at its
   ``file:line:col``.
2. ``rules``, ``kernels``, ``capability_rules``, ``names``: the rules on one resolved spec.
3. the parse into the typed model (``validate_family``), then ``family``: the rules that
   compare the variants of a family, and identities across families.

Every problem becomes a located Diagnostic; nothing here raises for bad input. This module is
the driver: it runs the stages in order and holds no rule itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ...errors import Diagnostics, SpecError, dotted
from ..load import Path_
from ..model import Provenance, Variant
from ..resolve import ResolvedSpec
from . import checkpoint_names, config_hooks, kernels, linear_attention, model_types, names, rules
from .capability_rules import (
    _rope_kv_capabilities,
    check_mx_capabilities,
    check_rope_kv_capabilities,
)
from .family import across_families, family_checks
from .report import Report, _Inherited
from .rules import MAX_EXPERTS, MAX_STAGES
from .schema import _deleted_at, _schema_errors, schema

__all__ = [
    "MAX_EXPERTS",
    "MAX_STAGES",
    "across_families",
    "check_mx_capabilities",
    "check_rope_kv_capabilities",
    "family_checks",
    "iter_rules",
    "schema",
    "validate_family",
    "validate_spec",
]

# The semantic rules of one spec, in the order they report. Each takes (spec, report).
RULES: tuple[Callable[[ResolvedSpec, Report], None], ...] = (
    rules._method_allowed_and_forbidden,
    rules._method_weights_declared,
    rules._draft_architecture_registered,
    model_types.model_type_lists,
    model_types.draft_architectures_by_model_type_registered,
    checkpoint_names.checkpoint_name_rules,
    config_hooks.config_hook_rules,
    rules._signature_names_declared_weights,
    rules._weight_set_loader_rules,
    rules._weight_set_block,
    rules._block_sizes_powers_of_two,
    rules._backend_parents,
    rules._num_speculative_tokens_default,
    rules._runner_architectures_known,
    kernels._kv_spec_types,
    kernels._kv_cache_spec_types,
    linear_attention.linear_attention_states,
    kernels._mx_format,
    kernels._rope_kv_insert,
    kernels._compress_ratio_message_fields,
    kernels._kv_source_compressor,
    rules._inherited_messages_name_their_variant,
    rules._hf_config_counts,
    rules._speculative_token_limits,
    rules._engine_known,
    _rope_kv_capabilities,
    names._generated_names,
    names._names_are_not_keywords,
    names._text_is_printable,
    names._license_lines_are_not_headers,
)


def validate_spec(spec: ResolvedSpec, diagnostics: Diagnostics) -> None:
    """Schema first; semantic rules after, skipping a rule that trips over malformed input.

    Validate a family's ancestors before their children (the pipeline does): an error a child
    inherits unchanged is then reported once, and an error that only the child's values cause
    in an inherited field says which spec it is about.
    """
    names._check_file_names(spec, diagnostics)
    diagnostics = _Inherited(spec, diagnostics)
    schema_errors = _schema_errors(spec, diagnostics)
    malformed = {p for p in schema_errors if p}

    def report(path: Path_, message: str) -> None:
        path = tuple(path)
        if any(path[:n] in malformed for n in range(1, len(path) + 1)):
            return  # the schema already reported this field (or the section holding it)
        # a field a spec of the lineage deleted is reported at that `!delete`
        diagnostics.add(_deleted_at(spec, path) or spec.where(path), dotted(path), message)

    for check in RULES:
        try:
            check(spec, report)
        except (TypeError, KeyError, AttributeError, ValueError, ArithmeticError):
            if not schema_errors:
                raise  # a well-formed spec must never trip a rule: that is a bug here


def validate_family(members: list[ResolvedSpec]) -> list[Variant]:
    """The typed variants of one family (``members`` valid, parents before children), once the
    family rules hold; SpecError with every problem they find."""
    variants: list[Variant] = []
    parsed: dict[Path, Variant] = {}
    for spec in members:
        ancestors = tuple(
            parsed[doc.path] for doc in reversed(spec.lineage[:-1]) if doc.path in parsed
        )
        variant = Variant.parse(
            spec.data, spec.file, ancestors, Provenance(spec.file, spec.provenance)
        )
        parsed[spec.document.path] = variant
        variants.append(variant)
    diagnostics = Diagnostics()
    family_checks(members, variants, diagnostics)
    if diagnostics:
        raise SpecError(diagnostics.items)
    return variants


def iter_rules() -> Iterator[str]:
    return (r.__name__.lstrip("_") for r in RULES)
