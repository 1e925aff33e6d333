"""Order of execution: whether TensorFlow's runtime surely started before
a statement (a thread setting after the first op fails on TF2).
"""

from __future__ import annotations

import ast

from . import reaching
from . import symbols as sym

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()


def first_op_before(analysis, node: ast.AST) -> ast.Call | None:
    """A call that surely started TensorFlow's runtime before `node`, in the
    straight-line code leading to it (its block and the blocks around it,
    up to the enclosing function)."""
    containing = _statements_running_ops(analysis)
    if not containing:
        return None
    statement = analysis.statement_of(node)
    while True:
        parent = analysis.parents.get(statement)
        if parent is None:
            return None
        block = reaching.block_holding(parent, statement)
        if block is None:
            return None
        for sibling in block:
            if sibling is statement:
                break
            if sibling in containing:
                return containing[sibling]
        if type(parent) is ast.Module:
            return None
        owner = parent
        while not isinstance(owner, ast.stmt):
            owner = analysis.parents[owner]
        if isinstance(owner, (*_FUNCTIONS, ast.ClassDef)):
            return None
        statement = owner


def _statements_running_ops(analysis) -> dict[ast.stmt, ast.Call]:
    if not hasattr(analysis, "_running"):
        analysis._running: dict[ast.stmt, ast.Call] = {}
        for call, symbol in analysis.calls:
            if not sym.starts_runtime(symbol):
                continue
            node: ast.AST = call
            while node in analysis.parents and not isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
                if isinstance(node, ast.stmt):
                    analysis._running.setdefault(node, call)
                if _runs_maybe(analysis.parents[node], node):
                    break  # `if debug: tf.constant(1)`: the `if` does not surely run it
                node = analysis.parents[node]
    return analysis._running


def _runs_maybe(parent: ast.AST, node: ast.AST) -> bool:
    """`node` is a part of `parent` that running `parent` may skip: a branch
    of an if, a loop's body, an except handler, an else, a match case, the
    arms of `a if c else b`, the operands after the first of `and` / `or`,
    the element of a comprehension."""
    kind = type(parent)
    if kind in (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, *_TRY_STAR) and node is not getattr(
            parent, "test", None) and node is not getattr(parent, "iter", None) and node is not getattr(
            parent, "target", None):
        return not (kind in (ast.Try, *_TRY_STAR) and (any(node is s for s in parent.body) or any(
            node is s for s in parent.finalbody)))
    if kind is ast.IfExp:
        return node is not parent.test
    if kind is ast.BoolOp:
        return node is not parent.values[0]
    return kind in (ast.match_case, ast.comprehension, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
