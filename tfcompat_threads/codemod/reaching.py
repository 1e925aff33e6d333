"""Which assignment of a name a read sees, when the code says so for sure.

A name bound twice in a scope (`config = tf.ConfigProto(...)` then `config =
itex.ConfigProto(...)`, or `config = dict()` thirty lines down) is one name
with two values. Walking back from a read through the statements that surely
ran before it (its block, then the blocks around it), the first assignment
met is the one it sees, unless something on the way may bind the name too (a
branch, a loop that goes round again): then it is not known.
"""

from __future__ import annotations

import ast

MINE = "mine"
OTHER = "other"
DEFERRED = "deferred"  # the read is in a function body: it runs when the function is called
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_BLOCKS = ("body", "orelse", "finalbody")


def seen_binding(parents: dict, read: ast.AST, mine: ast.stmt, bindings) -> str | None:
    """MINE when `read` surely sees the assignment statement `mine`, OTHER
    when it surely sees another plain assignment of the name, DEFERRED when
    it sits in a function's body (called later), None when it is not known.
    `bindings`: every binding of the name in its scope."""
    others, holders = set(), set()
    for binding in bindings:
        holder = parents.get(binding.node)
        if holder is not mine and type(holder) is ast.Assign and len(holder.targets) == 1:
            others.add(id(holder))
        node = binding.node
        while node in parents:
            node = parents[node]
            holders.add(id(node))
    node = read
    while node in parents:
        parent = parents[node]
        block = block_holding(parent, node)
        if block is not None:
            for sibling in reversed(block[: next(i for i, st in enumerate(block) if st is node)]):
                if sibling is mine:
                    return MINE
                if id(sibling) in others:
                    return OTHER
                if id(sibling) in holders:
                    return None  # it may bind the name (in a branch, a loop, a with)
        if isinstance(parent, _FUNCTIONS) and any(node is st for st in parent.body):
            return DEFERRED
        if type(parent) is ast.Lambda and node is parent.body:
            return DEFERRED
        if isinstance(parent, _LOOPS) and node is not getattr(parent, "iter", None) and id(parent) in holders:
            return None  # a binding in the loop may come round before the read
        node = parent
    return None


def block_holding(parent: ast.AST, statement: ast.AST) -> list | None:
    """The statement list of `parent` (body, orelse, finalbody) that holds `statement`, or None."""
    for field in _BLOCKS:
        block = getattr(parent, field, None)
        if type(block) is list and any(item is statement for item in block):
            return block
    return None
