"""The engine's per-architecture config hooks (vLLM's MODELS_CONFIG_MAP): each architecture's
rules in order, as data the generated ``config_hooks`` module runs."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.model import Family, HookRule
from .engine import VLLM_VERSION
from .sources import SourceMap
from .values import Comment


@dataclass(frozen=True)
class HookPlan:
    architecture: str
    rules: tuple[str, ...]  # rule names, in order
    source: Comment


@dataclass(frozen=True)
class RulePlan:
    name: str
    when: tuple[dict, ...]
    action: str
    arguments: dict
    source: Comment


@dataclass(frozen=True)
class ConfigHooksPlan:
    family: str
    rules: tuple[RulePlan, ...]
    hooks: tuple[HookPlan, ...]
    vllm_version: str = VLLM_VERSION

    @property
    def tests_platform(self) -> bool:
        """Some rule tests the engine's platform: only then does the module ask vLLM for it."""
        return any(
            "platform" in test or any("platform" in t for t in test.get("any", ()))
            for r in self.rules
            for test in r.when
        )


def _rule_key(rule: HookRule) -> tuple:
    return (rule.when, rule.action, tuple(sorted(rule.arguments.items(), key=str)))


def plan_config_hooks(family: Family, sources: SourceMap) -> ConfigHooksPlan | None:
    """Each architecture's hook from the first variant that lists it; a rule used by several
    variants under one name is printed once (two different rules of one name are renamed
    after their variant)."""
    rules: dict[str, RulePlan] = {}
    hooks: dict[str, HookPlan] = {}
    for variant in family.variants:
        if variant.config_hooks is None:
            continue
        own = {r.name: r for r in variant.config_hooks.rules}
        names: dict[str, str] = {}
        for rule in variant.config_hooks.rules:
            name = rule.name
            if name in rules and _rule_key(rule) != _rule_key(_as_rule(rules[name])):
                name = f"{variant.name}_{rule.name}"
            names[rule.name] = name
            if name not in rules:
                rules[name] = RulePlan(
                    name,
                    rule.when,
                    rule.action,
                    rule.arguments,
                    sources.ref(variant.name, "config_hooks", "rules", rule.name),
                )
        for arch, listed in variant.config_hooks.architectures:
            if arch in hooks or not any(a.name == arch for a in variant.architectures):
                continue  # a parent's architecture the child dropped is the parent's business
            assert all(n in own for n in listed)  # validation: every listed rule is declared
            hooks[arch] = HookPlan(
                arch,
                tuple(names[n] for n in listed),
                sources.ref(variant.name, "config_hooks", "architectures", arch),
            )
    if not hooks:
        return None
    used = {n for h in hooks.values() for n in h.rules}
    return ConfigHooksPlan(
        family.name, tuple(r for r in rules.values() if r.name in used), tuple(hooks.values())
    )


def _as_rule(plan: RulePlan) -> HookRule:
    return HookRule(plan.name, plan.when, plan.action, plan.arguments)
