"""Rules on config_hooks: each architecture's hook names declared rules, of a declared
architecture, and each rule has exactly one action."""

from __future__ import annotations

import string

from ...errors import did_you_mean
from ..resolve import ResolvedSpec
from .report import Report

_ACTIONS = ("refuse", "pop_keys", "default_setting")


def config_hook_rules(spec: ResolvedSpec, report: Report) -> None:
    hooks = spec.data.get("config_hooks")
    if not isinstance(hooks, dict):
        return
    rules = hooks.get("rules", {})
    for name, rule in rules.items():
        actions = [a for a in _ACTIONS if a in rule]
        if len(actions) != 1:
            report(
                ("config_hooks", "rules", name),
                f"a rule has exactly one action ({', '.join(_ACTIONS)}); this one has "
                f"{len(actions) or 'none'}: split it into one rule per action",
            )
        warning = rule.get("default_setting", {}).get("warning")
        if isinstance(warning, str):
            _warning_fields(
                warning, ("config_hooks", "rules", name, "default_setting", "warning"), report
            )
    archs = spec.data.get("architectures", {})  # after the child's deletions
    for arch, listed in hooks.get("architectures", {}).items():
        if arch not in archs:
            report(
                ("config_hooks", "architectures", arch),
                f"unknown architecture {arch!r}; declare it under `architectures` or remove "
                "the hook (`!delete` in a child spec)" + did_you_mean(arch, archs),
            )
        for i, name in enumerate(listed):
            if name not in rules:
                report(
                    ("config_hooks", "architectures", arch, i),
                    f"no rule {name!r} under config_hooks.rules" + did_you_mean(name, rules),
                )


_WARNING_FIELDS = ("source", "setting")


def _warning_fields(text: str, here: tuple, report: Report) -> None:
    """The warning is formatted with the two values: any other replacement field (or a lone
    brace) would fail when the engine config is checked, so it fails here."""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as error:
        report(here, f"{error}; write a literal brace as {{{{ or }}}}")
        return
    for field in fields:
        if field not in _WARNING_FIELDS:
            report(
                here,
                f"{{{field}}} is not a value the warning can name; use {{source}} or {{setting}}"
                + did_you_mean(field, _WARNING_FIELDS),
            )
