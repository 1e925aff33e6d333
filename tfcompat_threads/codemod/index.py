"""What the analysis asks of one module, gathered once: after it is made,
every question about the module's calls, attributes and names is a lookup
(as LibCST keeps its metadata providers apart from the visitors that read
them). The scopes walk (codemod/scopes.py) files every node by class and
every Name by identifier as it goes; each table below is made from those
lists the first time it is asked for, never by another walk of the module:

- `functions`: every def, in the order `ast.walk` meets them (outer first);
- `calls_named(name)`: the calls whose callee's last name is `name`
  (`f(...)`, `obj.f(...)`);
- `loads_of(attr)`: the reads of `<anything>.attr`;
- `names(id)`: every `Name` node of that identifier;
- `method_uses(cls)`: for each attribute, every `<first parameter>.attr` in
  the methods of a class (reads and stores, in method order);
- `dynamic`: the calls of eval/exec/globals/locals/vars and the
  `<x>.modules` attributes (what can read a module's names by a computed key);
- `of_type(kind)`: every node of that class (`ast.Assign`, `ast.Import`).

    index = Index(scopes)
    index.calls_named("make_session")  ->  [<Call make_session(...) line 12>, ...]
"""

from __future__ import annotations

import ast

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
DYNAMIC = ("eval", "exec", "globals", "locals", "vars")


class Index:
    def __init__(self, scopes) -> None:
        self._nodes = scopes.scopes  # every node, in walk order (codemod/scopes.py)
        self._parents = scopes.parents
        self._by_type = scopes.by_type  # filled by the same walk: Names by identifier, the rest by class
        self._by_id = scopes.names_by_id
        self._calls: dict[str, list[ast.Call]] | None = None
        self._loads: dict[str, list[ast.Attribute]] | None = None
        self._functions: list | None = None
        self._dynamic: list[ast.AST] | None = None
        self._methods: dict[ast.ClassDef, dict[str, list[ast.Attribute]]] | None = None

    @property
    def functions(self) -> list:
        """Every def, in `ast.walk` order: by depth, then in source order."""
        if self._functions is None:
            parents = self._parents
            found = []
            for number, node in enumerate(self._nodes):
                if type(node) in _FUNCTIONS:
                    depth, up = 0, node
                    while up in parents:
                        up = parents[up]
                        depth += 1
                    found.append((depth, number, node))
            self._functions = [node for _, _, node in sorted(found, key=lambda entry: entry[:2])]
        return self._functions

    def calls_named(self, name: str) -> list[ast.Call]:
        if self._calls is None:
            self._calls = {}
            for node in self.of_type(ast.Call):
                func = node.func
                last = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
                if last is not None:
                    self._calls.setdefault(last, []).append(node)
        return self._calls.get(name, [])

    def loads_of(self, attr: str) -> list[ast.Attribute]:
        if self._loads is None:
            self._loads = {}
            for node in self.of_type(ast.Attribute):
                if type(node.ctx) is ast.Load:
                    self._loads.setdefault(node.attr, []).append(node)
        return self._loads.get(attr, [])

    def names(self, identifier: str) -> list[ast.Name]:
        return self._by_id.get(identifier, [])

    def of_type(self, kind: type) -> list[ast.AST]:
        """Every node of class `kind`, in walk order (Names: `names(identifier)`)."""
        if kind is ast.Name:
            raise ValueError("Names are filed by identifier: ask names(identifier)")
        return self._by_type.get(kind, [])

    @property
    def dynamic(self) -> list[ast.AST]:
        if self._dynamic is None:
            dynamic = [node for node in self.of_type(ast.Call) if type(node.func) is ast.Name and node.func.id in DYNAMIC]
            dynamic += [node for node in self.of_type(ast.Attribute) if node.attr == "modules"]
            self._dynamic = dynamic  # the calls, then the attributes, each in walk order
        return self._dynamic

    def method_uses(self, owner: ast.ClassDef) -> dict[str, list[ast.Attribute]]:
        """attr -> `<first parameter>.attr` in each method that has a first
        parameter (its nested functions included), methods in order, each
        method's in `ast.walk` order (by depth, then in source order)."""
        if self._methods is None:
            self._methods = self._gather_methods()
        return self._methods.get(owner, {})

    def _gather_methods(self) -> dict:
        """One pass for every class: each `<name>.attr` is a use of each
        method above it whose first parameter is `name` (what is above a
        node, its depth and the methods, is found once per node and kept)."""
        found: dict[ast.ClassDef, list] = {}
        positions: dict[int, int] = {}  # a method: its place in its class's body
        above = _Above(self._parents)
        for number, node in enumerate(self.of_type(ast.Attribute)):  # walk order among them is what sorts
            if type(node.value) is not ast.Name:
                continue
            count, methods = above(self._parents[node])
            for method, owner in methods:
                if first_param(method) == node.value.id:
                    if id(method) not in positions:
                        positions.update((id(m), i) for i, m in enumerate(owner.body))
                    found.setdefault(owner, []).append((positions[id(method)], count + 1, number, node))
        tables: dict = {}
        for owner, uses in found.items():
            table = tables[owner] = {}
            for *_, node in sorted(uses, key=lambda use: use[:3]):
                table.setdefault(node.attr, []).append(node)
        return tables


class _Above:
    """For a node: how many nodes are above it, and the methods among it
    and them, each with its class ((method, class), nearest first). Each
    node's answer is made from its parent's, once."""

    def __init__(self, parents: dict) -> None:
        self._parents = parents
        self._known: dict[ast.AST, tuple[int, tuple]] = {}

    def __call__(self, node: ast.AST) -> tuple[int, tuple]:
        known, parents = self._known, self._parents
        answer = known.get(node)
        if answer is not None:
            return answer
        pending = []
        up = node
        while up is not None and up not in known:
            pending.append(up)
            up = parents.get(up)
        count, methods = known[up] if up is not None else (-1, ())
        for below in reversed(pending):
            parent = parents.get(below)
            count += 1
            if type(below) in _FUNCTIONS and type(parent) is ast.ClassDef:
                methods = ((below, parent), *methods)
            known[below] = (count, methods)
        return known[node]


def first_param(function) -> str | None:
    arguments = function.args
    first = (arguments.posonlyargs + arguments.args)[:1]
    return first[0].arg if first else None
