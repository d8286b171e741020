"""The one-time upstream refactor that turns vLLM 0.33.0's is_state_bucket closure into tables.

In 0.33.0, ``is_state_bucket`` is a function nested in
``vllm.v1.core.kv_cache_planning._get_packed_kv_cache_groups``: a closure over
``repeats_per_group`` that spells the state-like KV spec types inline,
``isinstance(spec.first_spec, (MambaSpec, CircularBufferSpec))`` and
``isinstance(spec.first_spec, SlidingWindowSpec)``. No tool can add a type there safely: the
types are an expression inside a nested function, rebuilt on every call; a generator would have
to own the whole function body. The smallest change that makes it a table keeps the closure (it
needs ``repeats_per_group``) and moves the two type lists to module level:

    _STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (MambaSpec, CircularBufferSpec)
    _UNSPLIT_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (SlidingWindowSpec,)

``isinstance`` takes a tuple of types, so the closure's answers are unchanged. This module
applies exactly that to a 0.33.0 tree (the test tree), and refuses any other shape.
"""

from __future__ import annotations

import libcst as cst

from . import cstutil as c
from .sites import STATE_TABLE, UNSPLIT_STATE_TABLE, SiteError

PATH = "vllm/v1/core/kv_cache_planning.py"
FUNCTION = "_get_packed_kv_cache_groups"

TABLES = f"""
# KV-cache spec types whose buckets hold per-request state rather than per-token
# KV: their size does not grow with the sequence, so is_state_bucket lets such a
# bucket go down to one state per group. Model families add their types here.
{STATE_TABLE}: tuple[type[KVCacheSpec], ...] = ({{always}})
# Spec types that are state-like only while no repeat pattern splits the bucket.
{UNSPLIT_STATE_TABLE}: tuple[type[KVCacheSpec], ...] = ({{unsplit}})
"""

CLOSURE = f"""
def is_state_bucket(spec: UniformTypeKVCacheSpecs) -> bool:
    if isinstance(spec.first_spec, {STATE_TABLE}):
        return True
    return repeats_per_group is None and isinstance(
        spec.first_spec, {UNSPLIT_STATE_TABLE}
    )
"""


def _isinstance_types(node: cst.CSTNode) -> list[str] | None:
    calls = c.find_all(node, cst.Call, lambda n: c.dotted(n.func) == "isinstance")
    if len(calls) != 1 or len(calls[0].args) != 2:
        return None
    types = calls[0].args[1].value
    if isinstance(types, cst.Tuple):
        names = [c.dotted(e.value) for e in types.elements]
        return None if None in names else names  # type: ignore[return-value]
    name = c.dotted(types)
    return [name] if name else None


def needs_refactor(module: cst.Module) -> bool:
    return not any(
        isinstance(s, cst.SimpleStatementLine)
        and any(isinstance(b, cst.AnnAssign) and c.dotted(b.target) == STATE_TABLE for b in s.body)
        for s in module.body
    )


def refactor_state_bucket(source: str) -> str:
    """``source`` (0.33.0's kv_cache_planning.py) with the closure reading the two tables."""
    module = cst.parse_module(source)
    if not needs_refactor(module):
        return source
    functions = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    outer = next((f for f in functions if f.name.value == FUNCTION), None)
    if outer is None:
        raise SiteError(f"{PATH}: no function {FUNCTION}; not vLLM 0.33.0's file")
    inner = c.find_all(outer, cst.FunctionDef, lambda n: n.name.value == "is_state_bucket")
    if len(inner) != 1 or len(inner[0].body.body) != 2:
        raise SiteError(f"{PATH}: is_state_bucket is not 0.33.0's two-statement closure")
    first, second = inner[0].body.body
    always, unsplit = _isinstance_types(first), _isinstance_types(second)
    if not always or not unsplit or "repeats_per_group" not in c.code(second):
        raise SiteError(f"{PATH}: is_state_bucket does not test spec types the 0.33.0 way")
    closure = c.statement(CLOSURE).with_changes(leading_lines=inner[0].leading_lines)
    module = c.replace_nodes(module, {inner[0]: closure})
    tables = c.statements(
        TABLES.format(
            always=", ".join(always) + ("," if len(always) == 1 else ""),
            unsplit=", ".join(unsplit) + ("," if len(unsplit) == 1 else ""),
        )
    )
    tables[0] = tables[0].with_changes(leading_lines=[cst.EmptyLine(), *tables[0].leading_lines])
    body = list(module.body)
    # after the imports and module constants, before the first function or class
    at = next(i for i, s in enumerate(body) if isinstance(s, (cst.FunctionDef, cst.ClassDef)))
    body[at:at] = tables
    module = module.with_changes(body=body)
    return c.with_import(module, "vllm.v1.kv_cache_interface", ["KVCacheSpec"], set()).code
