"""Sinks that run graphs with the config they are given: graph APIs
(symbols.GRAPH_SINKS), an Estimator's RunConfig.replace(), and
enable_eager_execution's config argument.
"""

from __future__ import annotations

import ast

from . import symbols as sym
from .scopes import dotted


def run_config_replace(analysis, call: ast.Call) -> bool:
    """`RunConfig(...).replace(session_config=...)`, also on a name bound
    only to a RunConfig (or to a replace() of one)."""
    return type(call.func) is ast.Attribute and call.func.attr == "replace" and any(
        k.arg == "session_config" for k in call.keywords) and _is_run_config(analysis, call.func.value, 0)


def _is_run_config(analysis, node: ast.AST, depth: int, visiting: frozenset = frozenset()) -> bool:
    """A RunConfig; a name being looked at (`rc = rc.replace(...)`) is one
    if its other bindings are."""
    if depth > 3:
        return False
    if type(node) is ast.Call:
        symbol = analysis.symbol(node.func)
        if symbol is not None and symbol.name in sym.ESTIMATOR_RUN_CONFIGS:
            return True
        return type(node.func) is ast.Attribute and node.func.attr == "replace" and _is_run_config(analysis, 
            node.func.value, depth + 1, visiting)
    if type(node) is ast.Name:
        if node.id in visiting:
            return True
        scope = analysis.scope_of(node)
        bindings = scope.visible(node.id) if scope is not None else []
        holders = [analysis.parents.get(b.node) for b in bindings]
        return bool(holders) and all(b.kind == "assign" for b in bindings) and all(
            type(h) is ast.Assign and _is_run_config(analysis, h.value, depth + 1, visiting | {node.id})
            for h in holders)
    return False


def graph_sink(analysis, func: ast.AST) -> bool:
    """A call that runs graphs with the config it is given (GRAPH_SINKS),
    also through a module alias bound once in its scope (`slim =
    tf.contrib.slim`, as TF1 code writes it)."""
    names = analysis.qnames(func)
    root, path = func, dotted(func)
    while type(root) is ast.Attribute:
        root = root.value
    if not names and path and type(root) is ast.Name and path != root.id:
        scope = analysis.scope_of(root)
        bindings = scope.visible(root.id) if scope is not None else []
        holder = analysis.parents.get(bindings[0].node) if len(bindings) == 1 else None
        if type(holder) is ast.Assign and type(holder.value) in (ast.Attribute, ast.Name):
            names = frozenset(base + path[len(root.id):] for base in analysis.qnames(holder.value))
    symbol = sym.symbol_for(names)
    return (symbol is not None and symbol.name in sym.GRAPH_SINKS) or not names.isdisjoint(
        sym.LIBRARY_GRAPH_SINKS)


def eager_config(call: ast.Call) -> ast.AST | None:
    """The config argument of enable_eager_execution(config=...) (its first
    positional parameter), as a keyword or the expression itself."""
    for keyword in call.keywords:
        if keyword.arg == "config":
            return keyword
    return call.args[0] if call.args and type(call.args[0]) is not ast.Starred else None
