"""A unit: one ConfigProto construction (or several that reach the same
session) and everything it reaches, with its status: what the rules read
and the native fix replaces. Made by codemod/flow.py.
"""

from __future__ import annotations

import ast
import weakref
from typing import NamedTuple

CONFIG_ONLY = "config-only"  # every session only carries the config: TF2 calls replace it
GRAPH = "graph"  # the config reaches a session that runs graphs, or a graph API: it stays
EXTERNAL = "external"  # it goes to code outside the repository: it stays, reported only on request
UNFOLLOWED = "unfollowed"  # the codemod cannot tell: it stays, and is reported
_RANK = {CONFIG_ONLY: 0, GRAPH: 1, EXTERNAL: 2, UNFOLLOWED: 3}



class Field(NamedTuple):
    """One field a statement sets: dotted path, value (None when it cannot
    be read), and the node whose comments go with it (a keyword argument, a
    dict entry as (key, value, dict), or None for `config.x = v`)."""

    path: str
    value: ast.expr | None
    carrier: object


class FieldSet(NamedTuple):
    """Fields set by one statement, in source order."""

    statement: ast.stmt
    node: ast.AST
    fields: list[Field]


class Unit:
    """ConfigProto constructions and everything they reach. One per
    construction at first; constructions that reach the same session (one
    name assigned in both branches of an if/else) are merged into one."""

    def __init__(self, config: ast.Call) -> None:
        self.config = config
        self.status = CONFIG_ONLY
        self.reason = ""
        self.reason_node: ast.AST | None = None
        self.statements: dict[ast.stmt, None] = {}
        """Statements the native fix replaces (an ordered set)."""
        self.field_sets: list[FieldSet] = []
        self.helper_calls: list[ast.Call] = []
        """Calls of helpers that built the config or session: kept as statements."""
        self.sessions: list[ast.Call] = []
        self.set_session_calls: list[ast.Call] = []
        self.constructors: list[ast.Call] = [config]
        """ConfigProto and GPUOptions calls of this unit."""
        self.kwargs = False
        """Its fields come from **kwargs or setattr(config, name, value): only known at run time."""
        self.foreign: tuple[str, ast.AST | None] | None = None
        """Why its sessions may get another config too (a name also bound to
        something else), and where."""
        self._home = None
        self.elsewhere: list[str] = []
        """Where its flow went outside its module or into a function it was
        passed to ("train.py:12"): it is followed there, not fixed there."""
        self.reached_elsewhere = False
        """It reaches a session in another module."""
        self.readers: list[tuple[str, str, str]] = []
        """(name, place, how) of readers of a module-level name the fix would
        delete that cannot be followed (codemod/readers.py): the name stays."""
        self.calls_entered: list[tuple] = []
        """(analysis, call, function) of the calls it was passed into, innermost last."""
        self.stored: frozenset[str] = frozenset()
        """Attributes it is followed through as stored (`c.session_config`): no cycle."""
        self.settled = False
        """Its status is known whatever its flow: made in a graph-mode program,
        where every session it can reach honours it."""

    @property
    def home(self):
        """The module (its Analysis) it is made in; statements elsewhere are
        not its to edit. Held weakly: the analysis holds its units, and a
        cycle would leave the module's whole tree to the cyclic collector."""
        return self._home() if self._home is not None else None

    @home.setter
    def home(self, analysis) -> None:
        self._home = weakref.ref(analysis) if analysis is not None else None

    def stop(self, status: str, reason: str, node: ast.AST) -> None:
        if self.settled:
            return
        if _RANK[status] > _RANK[self.status]:  # the first reason of the strongest status stays
            self.status, self.reason, self.reason_node = status, reason, node

    @property
    def calls(self) -> list[ast.Call]:
        """The TensorFlow calls of the unit: constructors, sessions, set_session."""
        return self.constructors + self.sessions + self.set_session_calls

    def absorb(self, other: Unit) -> None:
        """Merge a unit that shares a session, a set_session or a statement."""
        for name in ("constructors", "sessions", "set_session_calls", "helper_calls"):
            mine = getattr(self, name)
            mine += [node for node in getattr(other, name) if not any(node is m for m in mine)]
        known = {id(fs.node) for fs in self.field_sets}
        self.field_sets += [fs for fs in other.field_sets if id(fs.node) not in known]
        self.statements.update(other.statements)
        self.kwargs = self.kwargs or other.kwargs
        self.foreign = self.foreign or other.foreign
        self.elsewhere += [e for e in other.elsewhere if e not in self.elsewhere]
        self.readers += [r for r in other.readers if r not in self.readers]
        if self.settled or other.settled:
            self.settled = True
            if other.settled and not (self.status == GRAPH and self.reason):
                self.status, self.reason, self.reason_node = other.status, other.reason, other.reason_node
        elif _RANK[other.status] > _RANK[self.status] or (
                self.status == GRAPH == other.status and not self.reason):
            self.status, self.reason, self.reason_node = other.status, other.reason, other.reason_node


def merged(units: list[Unit]) -> list[Unit]:
    """Units that reach a common session, set_session or statement become one;
    then a unit that only gets its config from what it follows, and whose
    field statements are all its own, stays config-only."""
    owner: dict[int, Unit] = {}
    merged: list[Unit] = []
    for unit in units:
        shared = [owner[id(n)] for n in (*unit.sessions, *unit.set_session_calls, *unit.statements)
                  if id(n) in owner]
        target = next((u for u in merged if any(u is s for s in shared)), None)
        if target is None:
            merged.append(unit)
            target = unit
        else:
            target.absorb(unit)
        for other in shared:
            if other is not target and any(other is m for m in merged):
                target.absorb(other)
                merged = [m for m in merged if m is not other]
        for node in (*target.sessions, *target.set_session_calls, *target.statements):
            owner[id(node)] = target
    for unit in merged:
        if unit.status != CONFIG_ONLY:
            continue
        if unit.foreign is not None:
            unit.stop(UNFOLLOWED, unit.foreign[0], unit.foreign[1])
            continue
        for field_set in unit.field_sets:
            if field_set.statement not in unit.statements:
                unit.stop(UNFOLLOWED, "it is made inside a compound statement", field_set.node)
                break
    return merged
