"""The validate stage, in order: the derived schema, then the rules a schema cannot say.

1. ``schema``: the JSON Schema derived from the declaration, every error at its
   ``file:line:col``.
2. ``rules``, ``kernels``, ``capability_rules``, ``names``: the rules on one resolved spec,
   each only where the schema found the sections it reads well formed; a typed rule reads
   them parsed into the typed model (``typed``), the others as dicts.
3. the parse into the typed model (``validate_family``), then ``family``: the rules that
   compare the variants of a family, and identities across families.

Every problem becomes a located Diagnostic; nothing here raises for bad input. This module is
the driver: it runs the stages in order and holds no rule itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ...errors import Diagnostics, SpecError, dotted
from ..load import Path_
from ..model import Provenance, Variant
from ..resolve import ResolvedSpec
from . import (
    checkpoint_names,
    config_hooks,
    engine_names,
    kernels,
    linear_attention,
    model_types,
    names,
    rules,
)
from .capability_rules import (
    _rope_kv_capabilities,
    check_mx_capabilities,
    check_rope_kv_capabilities,
)
from .family import across_families, family_checks
from .report import Report, _Inherited
from .schema import _deleted_at, _schema_errors, schema
from .typed import TypedSpec

__all__ = [
    "across_families",
    "check_mx_capabilities",
    "check_rope_kv_capabilities",
    "family_checks",
    "iter_rules",
    "schema",
    "validate_family",
    "validate_spec",
]


@dataclass(frozen=True)
class Rule:
    """A semantic rule of one spec, and the top-level sections it reads. It runs only where the
    schema found those sections well formed, so it may take their shape for granted (the one
    exception: ``EVERY_VALUE`` rules walk the data as any YAML value, and always run)."""

    check: Callable[[ResolvedSpec, Report], None] | Callable[[TypedSpec, Report], None]
    reads: tuple[str, ...] | None  # None: EVERY_VALUE
    typed: bool = False  # reads the typed model of its sections (TypedSpec), not the dicts

    @property
    def name(self) -> str:
        return self.check.__name__.lstrip("_")


EVERY_VALUE = None


# The semantic rules of one spec, in the order they report. Each takes (spec, report).
# tests/core/test_validate_order.py checks each `reads` against the sections its code names.
RULES: tuple[Rule, ...] = (
    Rule(rules._method_allowed_and_forbidden, ("speculative",)),
    Rule(rules._method_weights_declared, ("checkpoint", "speculative"), typed=True),
    Rule(rules._draft_architecture_registered, ("architectures", "speculative")),
    Rule(model_types.model_type_lists, ("speculative", "variant")),
    Rule(
        model_types.draft_architectures_by_model_type_registered,
        ("architectures", "speculative"),
    ),
    Rule(checkpoint_names.checkpoint_name_rules, ("architectures",)),
    Rule(config_hooks.config_hook_rules, ("architectures", "config_hooks")),
    Rule(rules._signature_names_declared_weights, ("checkpoint",), typed=True),
    Rule(rules._weight_set_loader_rules, ("checkpoint", "hf_config"), typed=True),
    Rule(rules._weight_set_block, ("checkpoint", "hf_config")),
    Rule(rules._block_sizes_powers_of_two, ("attention_backends",), typed=True),
    Rule(rules._sparse_mla_entries, ("attention_backends",), typed=True),
    Rule(rules._backend_parents, ("attention_backends", "kv_cache"), typed=True),
    Rule(rules._num_speculative_tokens_default, ("speculative",)),
    Rule(rules._runner_architectures_known, ("architectures", "runner")),
    Rule(kernels._kv_spec_types, ("kv_cache",)),
    Rule(kernels._kv_cache_spec_types, ("kv_cache",)),
    Rule(engine_names._kv_spec_types_in_engine, ("kv_cache",)),
    Rule(engine_names._registry_targets_in_engine, ("architectures",)),
    Rule(engine_names._backend_names_in_engine, ("attention_backends",)),
    Rule(linear_attention.linear_attention_states, ("kv_cache",)),
    Rule(kernels._mx_format, ("quantization",)),
    Rule(kernels._rope_kv_insert, ("kernels",)),
    Rule(kernels._compress_ratio_message_fields, ("kv_cache", "variant")),
    Rule(kernels._kv_source_compressor, ("kv_cache", "variant")),
    Rule(
        rules._inherited_messages_name_their_variant,
        ("kv_cache", "runner", "speculative", "variant"),
    ),
    Rule(rules._hf_config_counts, ("checkpoint", "hf_config", "speculative"), typed=True),
    Rule(rules._speculative_token_limits, ("hf_config", "speculative"), typed=True),
    Rule(rules._engine_known, ("engine",)),
    Rule(_rope_kv_capabilities, ("kernels",)),
    Rule(names._generated_names, ("attention_backends", "kv_cache", "variant")),
    Rule(names._names_are_not_keywords, EVERY_VALUE),
    Rule(names._text_is_printable, EVERY_VALUE),
    Rule(names._license_lines_are_not_headers, ("license_header",)),
)


def _malformed_sections(schema_errors: list[Path_]) -> set[str] | None:
    """The top-level sections the schema found a problem in; None: the document itself (a
    required section missing, or no mapping at all), which leaves no section to trust."""
    if () in schema_errors:
        return None
    return {str(path[0]) for path in schema_errors}


def validate_spec(spec: ResolvedSpec, diagnostics: Diagnostics) -> None:
    """Schema first; then each semantic rule whose sections the schema found well formed.

    A rule never sees a section of a shape the schema refused, so nothing is caught here: a
    rule that raises on a well-formed section is a bug, and surfaces as one. Validate a
    family's ancestors before their children (the pipeline does): an error a child inherits
    unchanged is then reported once, and an error that only the child's values cause in an
    inherited field says which spec it is about.
    """
    names._check_file_names(spec, diagnostics)
    diagnostics = _Inherited(spec, diagnostics)
    schema_errors = _schema_errors(spec, diagnostics)
    malformed = {p for p in schema_errors if p}
    broken = _malformed_sections(schema_errors)

    def report(path: Path_, message: str) -> None:
        path = tuple(path)
        if any(path[:n] in malformed for n in range(1, len(path) + 1)):
            return  # the schema already reported this field (or the section holding it)
        # a field a spec of the lineage deleted is reported at that `!delete`
        diagnostics.add(_deleted_at(spec, path) or spec.where(path), dotted(path), message)

    def trusted(sections: tuple[str, ...]) -> bool:
        return broken is not None and broken.isdisjoint(sections)

    typed = TypedSpec(spec, {name: trusted((name,)) for name in TypedSpec.SECTIONS.values()})
    for rule in RULES:
        if rule.reads is EVERY_VALUE or trusted(rule.reads):
            rule.check(typed if rule.typed else spec, report)  # type: ignore[arg-type]


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
    return (rule.name for rule in RULES)
