"""Concrete-syntax-tree helpers for editing vLLM's files in place (libcst).

The rule every site follows: a node the emitter owns is replaced only when the generated node
means something else. "Means" is the node's Python AST plus the words of its comments, so an
existing node that already says what the specs say keeps its exact text, line breaks and
comment wrapping (emitting the shipped specs into the pristine tree changes nothing), and a
node that must change is rewritten and then laid out by the tree's own ``ruff format``.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import io
import re
import textwrap
import tokenize
from collections.abc import Iterable, Sequence

import libcst as cst

_EMPTY = cst.Module(body=[])


def code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


def _comments(text: str) -> list[str]:
    words: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                words += token.string.lstrip("#").split()
    except (tokenize.TokenError, IndentationError):
        words.append(text)
    return words


def _ast_key(text: str) -> str:
    try:
        return ast.dump(ast.parse(textwrap.dedent(text)))
    except SyntaxError:
        return text


def same_meaning(old: str, new: str) -> bool:
    """True when two snippets have the same AST and the same comment words."""
    return _ast_key(old) == _ast_key(new) and _comments(old) == _comments(new)


def same_code(old: str, new: str) -> bool:
    """True when two snippets have the same AST (their comments may differ)."""
    return _ast_key(old) == _ast_key(new)


def keep_or_replace(old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    return old if same_meaning(code(old), code(new)) else new


def statements(text: str) -> list[cst.BaseStatement]:
    """The statements of a snippet (comments before a statement stay attached to it: parsed
    after a placeholder, since libcst gives a module's opening comments to the module)."""
    return list(cst.parse_module("pass\n" + textwrap.dedent(text)).body[1:])


def statement(text: str) -> cst.BaseStatement:
    (only,) = statements(text)
    return only


def string(value: str) -> str:
    """A double-quoted Python literal, as ruff format writes it."""
    text = repr(value)
    if text.startswith("'") and '"' not in value:
        text = '"' + text[1:-1].replace("\\'", "'") + '"'
    return text


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr.value}" if head else None
    return None


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def compared_strings(test: cst.BaseExpression, subject: str) -> set[str] | None:
    """The strings ``subject`` is compared with in ``subject == "a"`` or
    ``subject in ("a", "b")`` (anywhere in an ``and`` chain); None when no such comparison."""
    if isinstance(test, cst.BooleanOperation):
        return compared_strings(test.left, subject) or compared_strings(test.right, subject)
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    if dotted(test.left) != subject and code(test.left).strip() != subject:
        return None  # (a call such as ``getattr(x, "model_type", None)`` has no dotted name)
    target = test.comparisons[0]
    if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
        value = string_value(target.comparator)
        return {value} if value is not None else None
    if isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(
        target.comparator, (cst.Tuple, cst.Set, cst.List)
    ):
        values = {string_value(e.value) for e in target.comparator.elements}
        return None if None in values else values  # type: ignore[return-value]
    return None


def membership(subject: str, values: Sequence[str]) -> str:
    """``subject == "a"`` for one value, ``subject in ("a", "b")`` for more (vLLM's forms)."""
    if len(values) == 1:
        return f"{subject} == {string(values[0])}"
    return f"{subject} in ({', '.join(string(v) for v in values)})"


def non_membership(subject: str, values: Sequence[str]) -> str:
    """``subject != "a"`` for one value, ``subject not in ("a", "b")`` for more."""
    if len(values) == 1:
        return f"{subject} != {string(values[0])}"
    return f"{subject} not in ({', '.join(string(v) for v in values)})"


def wrap_comment(text: str, indent: int, width: int = 80) -> str:
    """``text`` as ``# `` comment lines that end by column ``width`` (vLLM wraps comments at
    80 columns although ruff allows 88)."""
    lines = textwrap.wrap(" ".join(text.split()), width - indent - 2, break_long_words=False)
    return "".join(f"# {line}\n" for line in lines)


def wrap_string(text: str, indent: int, width: int = 80) -> list[str]:
    """``text`` split at spaces into literals that, one per line at ``indent``, end by column
    ``width``; every piece but the last keeps its trailing space (vLLM's message style)."""
    room = max(width - indent - 2, 20)
    pieces: list[str] = []
    current = ""
    for word in re.findall(r"\S+\s*", text):
        if current and len(current + word.rstrip()) > room:
            pieces.append(current)
            current = ""
        current += word
    pieces.append(current)
    return [string(p) for p in pieces if p]


def names_used(module: cst.Module, name: str) -> int:
    """How often ``name`` is read in the module outside import statements."""

    class Count(cst.CSTVisitor):
        count = 0

        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                Count.count += 1

    module.visit(Count())
    return Count.count


def find_all(root: cst.CSTNode, kind: type, predicate=lambda n: True) -> list:
    found = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, kind) and predicate(node):
                found.append(node)
            return True

    root.visit(Finder())
    return found


def replace_nodes(root: cst.CSTNode, mapping: dict) -> cst.CSTNode:
    """``root`` with each node that is a key of ``mapping`` (by identity) replaced by its value;
    a value ``cst.RemovalSentinel.REMOVE`` removes it, a list of statements flattens in.

    Only the nodes on a path from ``root`` to a replaced node are visited: libcst rebuilds every
    node a transformer visits, and a whole vLLM module per replacement was most of an emit's
    and a check's time (a subtree left unvisited is kept as it is, the same code)."""
    ids = {id(k): v for k, v in mapping.items()}
    on_paths = _on_paths_to(root, set(ids))

    class ById(cst.CSTTransformer):
        def on_visit(self, node: cst.CSTNode) -> bool:
            return id(node) in on_paths

        def on_leave(self, original, updated):
            if id(original) in ids:
                value = ids[id(original)]
                if isinstance(value, list):
                    return cst.FlattenSentinel(value) if value else cst.RemovalSentinel.REMOVE
                return value
            return updated

    return root.visit(ById())


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(kind))


def _children(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """The node's child nodes, read from its fields (``node.children`` rebuilds the node)."""
    for name in _field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (item for item in value if isinstance(item, cst.CSTNode))


def _on_paths_to(root: cst.CSTNode, wanted: set[int]) -> set[int]:
    """ids of the nodes on a path from ``root`` to a node whose id is in ``wanted`` (both
    ends included); a walk with a stack, since expression chains nest deeper than the
    recursion limit."""
    parent: dict[int, cst.CSTNode] = {}
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in wanted:
            found.append(node)
        for child in _children(node):
            parent[id(child)] = node
            stack.append(child)
    on_paths: set[int] = set()
    for node in found:
        current: cst.CSTNode | None = node
        while current is not None and id(current) not in on_paths:
            on_paths.add(id(current))
            current = parent.get(id(current))
    return on_paths


def import_names(module: cst.Module, from_module: str) -> cst.ImportFrom | None:
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if (
                    isinstance(small, cst.ImportFrom)
                    and small.module is not None
                    and dotted(small.module) == from_module
                    and not isinstance(small.names, cst.ImportStar)
                ):
                    return small
    return None


def with_import(module: cst.Module, from_module: str, wanted: Iterable[str], owned: set[str]):
    """``from from_module import ...`` holding every ``wanted`` name, and no name of ``owned``
    that the module no longer reads; names stay in ruff's (isort's) order."""
    node = import_names(module, from_module)
    if node is None:
        return module
    assert isinstance(node.names, Sequence)
    present = [a for a in node.names if isinstance(a.name, cst.Name)]
    names = {a.name.value for a in present}
    drop = {n for n in owned if n in names and n not in wanted and names_used(module, n) == 0}
    add = [n for n in wanted if n not in names]
    if not drop and not add:
        return module
    kept = [a for a in present if a.name.value not in drop]
    for name in add:  # before the first name that sorts after it; the rest keep their order
        at = next((i for i, a in enumerate(kept) if a.name.value.lower() > name.lower()), None)
        kept.insert(len(kept) if at is None else at, cst.ImportAlias(name=cst.Name(name)))
    comma = cst.Comma(whitespace_after=cst.ParenthesizedWhitespace())
    aliases = [a.with_changes(comma=comma) for a in kept]
    return replace_nodes(module, {node: node.with_changes(names=aliases)})
