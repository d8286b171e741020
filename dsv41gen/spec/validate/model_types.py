"""Rules on the model types a variant answers for: its aliases, the composite ones, and the
per-model-type draft architectures."""

from __future__ import annotations

from ...errors import did_you_mean
from ..resolve import ResolvedSpec
from .report import Report
from .rules import _lineage_section, check_draft_architecture


def _model_types(spec: ResolvedSpec) -> list[str]:
    variant = spec.data.get("variant", {})
    return [variant.get("model_type"), *variant.get("model_type_aliases", [])]


def model_type_lists(spec: ResolvedSpec, report: Report) -> None:
    """An alias is not the model type itself, and every model type a list or map names is one
    of the variant's (a child inherits its parent's maps key by key: a key of the parent's
    model types is reported where the child can `!delete` it)."""
    variant = spec.data.get("variant", {})
    model_types = _model_types(spec)
    for i, alias in enumerate(variant.get("model_type_aliases", [])):
        if alias == variant.get("model_type"):
            report(
                ("variant", "model_type_aliases", i),
                f"{alias!r} is the variant's model_type already; list only further model types "
                "here",
            )
    for i, name in enumerate(variant.get("composite_model_types", [])):
        if name not in model_types:
            report(
                ("variant", "composite_model_types", i),
                _not_a_model_type(name, model_types, "list it in variant.model_type_aliases"),
            )
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        for name in body.get("draft_architecture_by_model_type", {}):
            if name not in model_types:
                report(
                    ("speculative", "methods", method, "draft_architecture_by_model_type", name),
                    _not_a_model_type(
                        name, model_types, "remove the entry (`!delete` in a child spec)"
                    ),
                )


def _not_a_model_type(name: str, model_types: list[str], fix: str) -> str:
    return (
        f"{name!r} is not one of this variant's model types ({', '.join(model_types)}); {fix}"
        + did_you_mean(name, model_types)
    )


def draft_architectures_by_model_type_registered(spec: ResolvedSpec, report: Report) -> None:
    archs = _lineage_section(spec, "architectures")
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        for model_type, arch in body.get("draft_architecture_by_model_type", {}).items():
            here = (
                "speculative",
                "methods",
                method,
                "draft_architecture_by_model_type",
                model_type,
            )
            check_draft_architecture(arch, archs, here, report)
