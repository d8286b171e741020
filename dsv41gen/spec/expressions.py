"""Integer expressions a spec writes for a shape dimension (kv_cache.linear_attention.states):
``+ - *``, integers, names and ``divide(a, b)``, vLLM's divide (it asserts that b divides a).

A name is an HF text config field, or one the engine passes (``ENGINE_NAMES``). The text is
parsed with Python's own parser and only the nodes above are accepted; the planner prints the
accepted tree back as code, so no spec text is ever pasted into generated code.
"""

from __future__ import annotations

import ast

ENGINE_NAMES = frozenset({"tp_size", "num_speculative_tokens"})
_OPERATORS = (ast.Add, ast.Sub, ast.Mult)


class ExpressionError(ValueError):
    """What is wrong with an expression, worded for the spec author."""


def parse_dimension(text: str | int) -> ast.expr:
    """The checked tree of a dimension (an int is a constant)."""
    if isinstance(text, int):
        return ast.Constant(text)
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise ExpressionError(f"{text!r} is not an expression") from None
    _check(tree, text)
    return tree


def _check(node: ast.AST, text: str) -> None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        _check(node.left, text)
        _check(node.right, text)
        return
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "divide"
        and len(node.args) == 2
        and not node.keywords
    ):
        for arg in node.args:
            _check(arg, text)
        return
    raise ExpressionError(
        f"{text!r} uses {ast.unparse(node)!r}; a dimension may use integers, HF config field "
        "names, tp_size, num_speculative_tokens, + - * and divide(a, b)"
    )


def field_names(tree: ast.expr) -> list[str]:
    """The HF config fields a dimension reads, in order."""
    names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
    return list(dict.fromkeys(n for n in names if n not in ENGINE_NAMES and n != "divide"))


def as_python(tree: ast.expr, field: str, divide: str) -> str:
    """The dimension as Python source: an HF field ``x`` reads ``{field}("x")``, ``divide``
    calls ``divide``, engine names stay the caller's parameters."""

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            return ast.Call(ast.Name(divide), [self.visit(a) for a in node.args], [])

        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id in ENGINE_NAMES:
                return node
            return ast.Call(ast.Name(field), [ast.Constant(node.id)], [])

    return ast.unparse(Rewrite().visit(ast.parse(ast.unparse(tree), mode="eval").body))
