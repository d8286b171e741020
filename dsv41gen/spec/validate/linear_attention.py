"""Rules on kv_cache.linear_attention: each shape dimension is an expression the language
accepts, and each dtype's "auto" names the model dtype or an earlier state."""

from __future__ import annotations

from ..expressions import ExpressionError, parse_dimension
from ..resolve import ResolvedSpec
from .report import Report


def linear_attention_states(spec: ResolvedSpec, report: Report) -> None:
    section = spec.data.get("kv_cache", {}).get("linear_attention")
    if not isinstance(section, dict):
        return
    if spec.data.get("kv_cache", {}).get("spec_types"):
        report(
            ("kv_cache", "linear_attention"),
            "a family's kv_cache module holds either the state-bucket predicates "
            "(kv_cache.spec_types) or the linear-attention state, not both yet; drop one",
        )
    earlier: list[str] = []
    for i, state in enumerate(section.get("states", [])):
        here = ("kv_cache", "linear_attention", "states", i)
        for j, dim in enumerate(state.get("shape", [])):
            try:
                parse_dimension(dim)
            except ExpressionError as error:
                report((*here, "shape", j), str(error))
        auto = state.get("dtype", {}).get("auto")
        if auto is not None and auto != "model_dtype" and auto not in earlier:
            choices = ", ".join(["model_dtype", *earlier])
            report(
                (*here, "dtype", "auto"),
                f"{auto!r} is neither model_dtype nor an earlier state's name; use one of: "
                f"{choices}",
            )
        name = state.get("name")
        if name in earlier:
            report((*here, "name"), f"state {name!r} is declared twice; give each its own name")
        earlier.append(name)
