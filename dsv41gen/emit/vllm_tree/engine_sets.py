"""The engine-wide architecture sets in vLLM 0.33.0's text (architectures.<name>.engine_sets).

The plugin widens these sets at run time; here the family's members are written where vLLM
spells them: a module-level ``frozenset({...})`` literal, the literal a function returns on
one platform, or an ``"X" in model_config.architectures or ...`` chain. Members the family did
not put there are vLLM's (or another family's) and stay; a member the specs drop is removed
only when the tree's manifest says the family put it there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import libcst as cst

from ...plan.plugin import engine_set_members
from ...spec.model import Family
from . import cstutil as c
from .sites import Site, SiteResult, _error, _function


def family_members(family: Family, name: str) -> list[str]:
    """The family's architectures in engine set ``name``, in variant and entry order."""
    out: list[str] = []
    for architectures in engine_set_members(family).values():
        for architecture, (_variant, _entry, sets) in architectures.items():
            if name in sets and architecture not in out:
                out.append(architecture)
    return out


def _after_nearest(present: list[str], name: str) -> int:
    """Where a new member goes: after the last one sharing the longest (case-blind) prefix with
    it, so V4.1 lands beside V4's entries; at the end when none shares any."""
    best, best_len = len(present), 0
    for i, other in enumerate(present):
        common = len(os.path.commonprefix([other.lower(), name.lower()]))
        if common and common >= best_len:
            best, best_len = i + 1, common
    return best


def merged_members(present: list[str], wanted: list[str], owned: set[str]) -> list[str]:
    names = [n for n in present if n in wanted or n not in owned]
    for name in wanted:
        if name not in names:
            names.insert(_after_nearest(names, name), name)
    return names


def _frozenset_text(names: list[str]) -> str:
    if not names:
        return "frozenset()"
    if len(names) == 1:
        return f"frozenset({{{c.string(names[0])}}})"
    # a magic trailing comma: one member per line, as vLLM writes its sets
    return "frozenset(\n{\n" + "".join(f"{c.string(n)},\n" for n in names) + "}\n)"


def _set_members(call: cst.BaseExpression) -> list[str] | None:
    """The members of ``frozenset({"a", ...})`` / ``frozenset()``, or None for another shape."""
    if not (isinstance(call, cst.Call) and c.dotted(call.func) == "frozenset"):
        return None
    if not call.args:
        return []
    if len(call.args) != 1 or not isinstance(call.args[0].value, cst.Set):
        return None
    names = [c.string_value(e.value) for e in call.args[0].value.elements]
    return None if None in names else names  # type: ignore[return-value]


def _owned(owned: set[str]) -> set[str]:
    return {k.partition(":")[2] for k in owned if k.startswith("arch:")}


def _rewrite_set(call: cst.Call, wanted: list[str], owned: set[str], path: str) -> cst.Call:
    present = _set_members(call)
    if present is None:
        raise _error(path, f"`{c.code(call)[:40]}...` is no frozenset of architecture names")
    names = merged_members(present, wanted, _owned(owned))
    if names == present:
        return call
    new = cst.parse_expression(_frozenset_text(names))
    assert isinstance(new, cst.Call)
    return new


@dataclass(frozen=True)
class FrozensetEngineSet(Site):
    """A module-level ``NAME = frozenset({...})`` of architecture names."""

    set_name: str = ""
    constant: str = ""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        wanted = family_members(family, self.set_name)
        found = [
            small
            for stmt in module.body
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            for small in stmt.body
            if isinstance(small, (cst.Assign, cst.AnnAssign))
            and any(
                c.dotted(t) == self.constant
                for t in (
                    [x.target for x in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                )
            )
        ]
        if len(found) != 1 or not isinstance(found[0].value, cst.Call):
            raise _error(self.path, f"no one `{self.constant} = frozenset({{...}})`")
        old = found[0].value
        new = _rewrite_set(old, wanted, owned, self.path)
        result.module = c.replace_nodes(module, {old: new})
        result.owned = [f"arch:{a}" for a in wanted]
        result.regions = [(self.constant, c.code(new))]
        return result


@dataclass(frozen=True)
class PlatformReturnEngineSet(Site):
    """The ``return frozenset({...})`` under ``if current_platform.is_<platform>():`` in a
    module function: the set that function answers with on that platform."""

    set_name: str = ""
    function: str = ""
    platform: str = ""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        wanted = family_members(family, self.set_name)
        function = _function(module, self.path, None, self.function)
        test = f"current_platform.is_{self.platform}()"
        branches = c.find_all(function, cst.If, lambda n: c.code(n.test).strip() == test)
        returns = [
            r
            for b in branches
            for r in c.find_all(b.body, cst.Return, lambda n: _set_members(n.value) is not None)
        ]
        if len(returns) != 1:
            raise _error(self.path, f"no one `return frozenset(...)` under `if {test}:`")
        old = returns[0].value
        new = _rewrite_set(old, wanted, owned, self.path)
        result.module = c.replace_nodes(module, {old: new})
        result.owned = [f"arch:{a}" for a in wanted]
        result.regions = [(f"{self.function} on {self.platform}", c.code(new))]
        return result


ARCHITECTURES = "model_config.architectures"


def _arch_test(node: cst.CSTNode) -> str | None:
    """The architecture of ``"X" in model_config.architectures``, else None."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    if not isinstance(target.operator, cst.In) or c.dotted(target.comparator) != ARCHITECTURES:
        return None
    return c.string_value(node.left)


def _arch_chain(node: cst.CSTNode) -> list[str] | None:
    """The architectures of an ``or`` chain made only of such tests, else None."""
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
        left, right = _arch_chain(node.left), _arch_chain(node.right)
        return None if left is None or right is None else left + right
    name = _arch_test(node)
    return None if name is None else [name]


@dataclass(frozen=True)
class ArchitectureChainEngineSet(Site):
    """A module function's ``"A" in model_config.architectures or "B" in ...``: the one chain of
    such tests in it (its platform check around it stays vLLM's)."""

    set_name: str = ""
    function: str = ""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        wanted = family_members(family, self.set_name)
        function = _function(module, self.path, None, self.function)
        chains = c.find_all(function, cst.BaseExpression, lambda n: _arch_chain(n) is not None)
        # the outermost chain: no other chain holds it
        outer = [n for n in chains if not any(n is not m and _holds(m, n) for m in chains)]
        if len(outer) != 1:
            raise _error(
                self.path, f'no one `"..." in {ARCHITECTURES} or ...` chain in {self.function}'
            )
        old = outer[0]
        present = _arch_chain(old) or []
        names = merged_members(present, wanted, _owned(owned))
        if names != present:
            text = " or ".join(f"{c.string(n)} in {ARCHITECTURES}" for n in names) or "False"
            new = cst.parse_expression(text)
            if len(names) > 1:
                new = new.with_changes(
                    lpar=old.lpar or [cst.LeftParen()], rpar=old.rpar or [cst.RightParen()]
                )
            result.module = c.replace_nodes(module, {old: new})
            old = new
        result.owned = [f"arch:{a}" for a in wanted]
        result.regions = [(self.function, c.code(old))]
        return result


def _holds(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    return any(n is inner for n in c.find_all(outer, type(inner)))


ENGINE_SET_SITES: tuple[Site, ...] = (
    FrozensetEngineSet(
        "engine_sets.breakable_cudagraph",
        "vllm/config/vllm.py",
        "DEFAULT_BREAKABLE_CUDAGRAPH_ARCHITECTURES: breakable CUDA graphs by default",
        "breakable_cudagraph",
        "DEFAULT_BREAKABLE_CUDAGRAPH_ARCHITECTURES",
    ),
    PlatformReturnEngineSet(
        "engine_sets.breakable_cudagraph_rocm",
        "vllm/config/vllm.py",
        "default_breakable_cudagraph_architectures: the set it returns on ROCm",
        "breakable_cudagraph_rocm",
        "default_breakable_cudagraph_architectures",
        "rocm",
    ),
    FrozensetEngineSet(
        "engine_sets.flashinfer_moe_ep",
        "vllm/config/kernel.py",
        "FLASHINFER_MOE_EP_ARCHITECTURES: FlashInfer MoE expert parallelism allowed",
        "flashinfer_moe_ep",
        "FLASHINFER_MOE_EP_ARCHITECTURES",
    ),
    ArchitectureChainEngineSet(
        "engine_sets.rocm_flattened_query_lens",
        "vllm/v1/attention/backends/mla/indexer.py",
        "_rocm_supports_flattened_device_query_lens: the architectures it names",
        "rocm_flattened_query_lens",
        "_rocm_supports_flattened_device_query_lens",
    ),
)


# --- the attention backend registry: AttentionBackendEnum's members ------------------------

ENUM_LINE = 88  # vLLM's ruff line length: a longer member is wrapped as vLLM wraps it


def _member_value(name: str, path: str) -> str:
    """``"a.b.C"``, or where ``    NAME = "a.b.C"`` is too long, the path split after a dot into
    a parenthesized concatenation (ruff does not split strings; vLLM's members are so)."""
    if len(f'    {name} = "{path}"') <= ENUM_LINE:
        return c.string(path)
    pieces, current = [], ""
    for part in path.split("."):
        candidate = f"{current}.{part}" if current else part
        if current and len(candidate) + 11 > ENUM_LINE:  # 8 indent, quotes, the trailing dot
            pieces.append(current + ".")
            current = part
        else:
            current = candidate
    pieces.append(current)
    return "(\n" + "\n".join(c.string(p) for p in pieces) + "\n)"


def sparse_mla_members(family: Family) -> dict[str, str]:
    """The family's sparse MLA backends: registered name -> class path, in spec order."""
    out: dict[str, str] = {}
    for variant in family.variants:
        for backend in variant.backends:
            path = getattr(backend, "class_path", None)
            if backend.kind.value == "sparse_mla" and path:
                out.setdefault(backend.name, path)
    return out


@dataclass(frozen=True)
class BackendEnumMembers(Site):
    """``class AttentionBackendEnum``: a member ``NAME = "module.Class"`` per sparse MLA backend
    of the specs (attention_backends.<name>.class_path). vLLM's other members stay; a new one
    goes after the family's last member."""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        wanted = sparse_mla_members(family)
        mine = {k.partition(":")[2] for k in owned if k.startswith("backend:")}
        classes = [
            s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == ENUM_CLASS
        ]
        if len(classes) != 1:
            raise _error(self.path, f"no class {ENUM_CLASS}")
        body = list(classes[0].body.body)
        kept: list[cst.BaseStatement] = []
        present: set[str] = set()
        last_mine = None
        for stmt in body:
            name = _member_name(stmt)
            if name is None or (name not in wanted and name not in mine):
                kept.append(stmt)
                continue
            if name not in wanted:
                continue  # the specs no longer name it
            present.add(name)
            small = stmt.body[0]
            if c.string_value(small.value) != wanted[name]:
                new_value = cst.parse_expression(_member_value(name, wanted[name]))
                stmt = stmt.with_changes(body=[small.with_changes(value=new_value)])
            kept.append(stmt)
            last_mine = len(kept)
        missing = [
            c.statement(f"{n} = {_member_value(n, p)}\n")
            for n, p in wanted.items()
            if n not in present
        ]
        at = last_mine if last_mine is not None else len(kept)
        kept[at:at] = missing
        updated = classes[0].with_changes(body=classes[0].body.with_changes(body=kept))
        result.module = c.replace_nodes(module, {classes[0]: updated})
        result.owned = [f"backend:{n}" for n in wanted]
        result.regions = [(f"{ENUM_CLASS}.{n}", p) for n, p in wanted.items()]
        return result


ENUM_CLASS = "AttentionBackendEnum"


def _member_name(stmt: cst.CSTNode) -> str | None:
    """``NAME`` of a ``NAME = "..."`` enum member line, else None."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    if c.string_value(small.value) is None:
        return None
    return c.dotted(small.targets[0].target)


ENGINE_SET_SITES += (
    BackendEnumMembers(
        "backends.registry",
        "vllm/v1/attention/backends/registry.py",
        "AttentionBackendEnum: a member per sparse MLA backend (its class_path)",
    ),
)
