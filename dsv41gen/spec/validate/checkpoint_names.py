"""Rules on a draft architecture's checkpoint-name mapping (architectures.<name>.checkpoint_names)."""

from __future__ import annotations

from ..resolve import ResolvedSpec
from .report import Report

_ACTIONS = ("remove_prefix", "add_prefix", "replace")


def checkpoint_name_rules(spec: ResolvedSpec, report: Report) -> None:
    """Each rule has at most one test, and does something: a rule that neither changes the
    name nor keeps or drops it is a mistake, not a no-op to carry."""
    for arch, body in spec.data.get("architectures", {}).items():
        names = body.get("checkpoint_names") if isinstance(body, dict) else None
        if not isinstance(names, dict):
            continue
        for i, rule in enumerate(names.get("rules", [])):
            here = ("architectures", arch, "checkpoint_names", "rules", i)
            if "if" in rule and "unless" in rule:
                report(
                    (*here, "unless"),
                    "a rule has one test, `if` or `unless`, not both; split it into two rules",
                )
            if not any(a in rule for a in _ACTIONS) and rule.get("then", "continue") == "continue":
                report(
                    here,
                    "this rule does nothing; give it remove_prefix, add_prefix or replace, or "
                    "`then: keep` / `then: drop`",
                )
