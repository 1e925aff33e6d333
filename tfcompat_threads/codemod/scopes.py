"""Parents, scopes, bindings and qualified names in ONE walk of the tree.

libcst's ParentNodeProvider, ScopeProvider and QualifiedNameProvider together
cost 20-60 ms even on a 30-line file; the codemod needs far less of them: the
import a name comes from (through aliases and attribute chains), whether a
name is bound once in its scope, and where that binding is read. This module
computes exactly that with Python's static scoping rules (function, class,
comprehension and lambda scopes; `global` and `nonlocal`; class bodies not
enclosing their methods), flow-insensitively like libcst: a name bound twice
in a scope has both bindings. tests/test_scopes.py checks it against libcst's
QualifiedNameProvider.
"""

from __future__ import annotations

import builtins
from dataclasses import fields

import libcst as cst

_BUILTINS = frozenset(dir(builtins))
_LEAVE = object()
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class Binding:
    """One place that binds a name: an assignment target, an import, a def, a parameter."""

    __slots__ = ("name", "node", "kind", "qualified", "references")

    def __init__(self, name: str, node: cst.CSTNode, kind: str, qualified: str | None = None) -> None:
        self.name = name
        self.node = node
        """The Name target, the Import/ImportFrom statement, the FunctionDef/ClassDef."""
        self.kind = kind
        """"assign", "import", "def", "class", "param", "other"."""
        self.qualified = qualified
        """For imports: the dotted name bound (`import a.b as x` -> "a.b")."""
        self.references: list[cst.Name] = []


class Scope:
    __slots__ = ("kind", "parent", "bindings", "global_names", "nonlocal_names")

    def __init__(self, kind: str, parent: Scope | None) -> None:
        self.kind = kind  # "module", "function", "class", "comprehension"
        self.parent = parent
        self.bindings: dict[str, list[Binding]] = {}
        self.global_names: set[str] = set()
        self.nonlocal_names: set[str] = set()

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def visible(self, name: str) -> list[Binding]:
        """The bindings a read of `name` in this scope can see (empty: a
        builtin or unbound)."""
        if name in self.global_names:
            return self.module().bindings.get(name, [])
        if name in self.bindings and name not in self.nonlocal_names:
            return self.bindings[name]
        scope = self.parent
        while scope is not None:
            if scope.kind != "class" or scope.parent is None:
                if name in scope.global_names:
                    return scope.module().bindings.get(name, [])
                if name in scope.bindings:
                    return scope.bindings[name]
            scope = scope.parent
        return []


def _targets(node: cst.CSTNode):
    """Names an assignment target binds (a.b = and a[i] = bind none)."""
    if isinstance(node, cst.Name):
        yield node
    elif isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            yield from _targets(element.value)
    elif isinstance(node, cst.StarredElement):
        yield from _targets(node.value)


def dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    return ""


_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes, read from the node's fields. libcst's own visit
    rebuilds every node it passes (~7 us a node); reading fields does not."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in fields(node))
    found = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, (tuple, list)):
            found += [item for item in value if type(item) in _NODE_TYPES or _is_node(item)]
        elif type(value) in _NODE_TYPES or _is_node(value):
            found.append(value)
    return found


_NODE_TYPES: set[type] = set()


def _is_node(value) -> bool:
    if isinstance(value, cst.CSTNode):
        _NODE_TYPES.add(type(value))
        return True
    return False


class Scopes:
    """Walk a module once; then ask `parents`, `scope_of`, `qualified_names`."""

    def __init__(self, module: cst.Module) -> None:
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.scopes: dict[cst.CSTNode, Scope] = {}
        self.module_scope = Scope("module", None)
        self.star_modules: list[str] = []
        self._scope = self.module_scope
        self._not_loads: set[cst.Name] = set()
        self._loads: list[tuple[cst.Name, Scope]] = []
        self._opens: dict[cst.CSTNode, Scope] = {}
        self._walk(module)
        for name, scope in self._loads:
            for binding in scope.visible(name.value):
                binding.references.append(name)
        self._qualified: dict[cst.CSTNode, frozenset[str]] = {}

    # -- walking ---------------------------------------------------------------

    def _walk(self, module: cst.Module) -> None:
        """Depth first, in field order (which is source order for the nodes
        that bind or read names); a scope opens and closes around its node."""
        pending: list = [module]
        while pending:
            node = pending.pop()
            if node is _LEAVE:
                left = pending.pop()
                if left in self._opens:
                    self._scope = self._scope.parent
                continue
            self._enter(node)
            children = _children(node)
            for child in children:
                self.parents[child] = node
            pending += [node, _LEAVE]
            pending += reversed(children)

    def _enter(self, node: cst.CSTNode) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is not None:  # binds in the enclosing scope, may open a scope
            handler(self, node)
        opened = self._opens.get(node)
        if opened is not None:
            self._scope = opened
        self.scopes[node] = self._scope
        if type(node) is cst.Name and node not in self._not_loads:  # `type is`: isinstance on libcst's ABCs is slow
            self._loads.append((node, self._scope))

    # -- bindings ----------------------------------------------------------------

    def _bind(self, name: str, node: cst.CSTNode, kind: str, qualified: str | None = None, scope=None) -> None:
        scope = scope or self._scope
        while scope.kind == "comprehension" and kind == "walrus":
            scope = scope.parent
        if name in scope.global_names:
            scope = scope.module()
        elif name in scope.nonlocal_names:
            outer = scope.parent
            while outer is not None and (outer.kind != "function" or name not in outer.bindings):
                outer = outer.parent
            scope = outer or scope
        scope.bindings.setdefault(name, []).append(Binding(name, node, kind, qualified))

    def _bind_target(self, target: cst.CSTNode, kind: str = "assign") -> None:
        for name in _targets(target):
            self._not_loads.add(name)
            self._bind(name.value, name, kind)

    def _open(self, node: cst.CSTNode, kind: str) -> Scope:
        scope = Scope(kind, self._scope)
        self._opens[node] = scope
        return scope

    # -- handlers, by node type ------------------------------------------------------

    def _assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target)

    def _ann_assign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def _aug_assign(self, node: cst.AugAssign) -> None:
        for name in _targets(node.target):  # read and bound
            self._bind(name.value, name, "assign")

    def _for(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def _comp_for(self, node: cst.CompFor) -> None:
        self._bind_target(node.target)

    def _with_item(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name)

    def _except(self, node) -> None:
        if node.name is not None:
            self._bind_target(node.name.name)

    def _named_expr(self, node: cst.NamedExpr) -> None:
        for name in _targets(node.target):
            self._not_loads.add(name)
            self._bind(name.value, name, "walrus")

    def _attribute(self, node: cst.Attribute) -> None:
        self._not_loads.add(node.attr)

    def _arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_loads.add(node.keyword)

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            self._hide(alias)
            if alias.asname is not None:
                self._bind(alias.asname.name.value, node, "import", full)
            else:
                top = full.split(".")[0]
                self._bind(top, node, "import", top)

    def _import_from(self, node: cst.ImportFrom) -> None:
        module = ("." * len(node.relative)) + (dotted(node.module) if node.module is not None else "")
        if node.module is not None:
            self._hide(node.module)
        if isinstance(node.names, cst.ImportStar):
            if not node.relative:
                self.star_modules.append(module)
            return
        for alias in node.names:
            self._hide(alias)
            name = dotted(alias.name)
            bound = alias.asname.name.value if alias.asname is not None else name
            self._bind(bound, node, "import", f"{module}.{name}" if not node.relative else None)

    def _hide(self, node: cst.CSTNode) -> None:
        """Names inside an import are not reads."""
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Name):
                self._not_loads.add(current)
            elif isinstance(current, (cst.Attribute, cst.ImportAlias, cst.AsName)):
                stack += [c for c in (getattr(current, f, None) for f in ("value", "attr", "name", "asname"))
                          if isinstance(c, cst.CSTNode)]

    def _function(self, node: cst.FunctionDef) -> None:
        self._not_loads.add(node.name)
        self._bind(node.name.value, node, "def")
        scope = self._open(node.body, "function")
        for param in _params(node.params):
            self._not_loads.add(param.name)
            self._bind(param.name.value, param.name, "param", scope=scope)

    def _lambda(self, node: cst.Lambda) -> None:
        scope = self._open(node.body, "function")
        for param in _params(node.params):
            self._not_loads.add(param.name)
            self._bind(param.name.value, param.name, "param", scope=scope)

    def _class(self, node: cst.ClassDef) -> None:
        self._not_loads.add(node.name)
        self._bind(node.name.value, node, "class")
        self._open(node.body, "class")

    def _comprehension(self, node) -> None:
        self._open(node, "comprehension")

    def _global(self, node: cst.Global) -> None:
        for item in node.names:
            self._not_loads.add(item.name)
            self._scope.global_names.add(item.name.value)

    def _nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._not_loads.add(item.name)
            self._scope.nonlocal_names.add(item.name.value)

    def _match_as(self, node) -> None:
        name = getattr(node, "name", None)
        if isinstance(name, cst.Name):
            self._not_loads.add(name)
            self._bind(name.value, name, "assign")

    # -- questions ------------------------------------------------------------------

    def scope_of(self, node: cst.CSTNode) -> Scope | None:
        return self.scopes.get(node)

    def order(self, node: cst.CSTNode) -> int:
        """Position of a node in source order (the walk's order)."""
        if not hasattr(self, "_order"):
            self._order = {n: i for i, n in enumerate(self.scopes)}
        return self._order[node]

    def qualified_names(self, node: cst.CSTNode) -> frozenset[str]:
        """Dotted names an expression can stand for, as far as imports and
        builtins tell: `tf.compat.v1.Session` -> {"tensorflow.compat.v1.Session"}."""
        cached = self._qualified.get(node)
        if cached is not None:
            return cached
        names: frozenset[str] = frozenset()
        if isinstance(node, cst.Name) and node not in self._not_loads:
            scope = self.scopes.get(node)
            bindings = scope.visible(node.value) if scope is not None else []
            if bindings:
                names = frozenset(b.qualified for b in bindings if b.kind == "import" and b.qualified)
            elif node.value in _BUILTINS:
                names = frozenset({f"builtins.{node.value}"})
        elif isinstance(node, cst.Attribute):
            names = frozenset(f"{base}.{node.attr.value}" for base in self.qualified_names(node.value))
        self._qualified[node] = names
        return names

    def is_read(self, node: cst.Name) -> bool:
        """A name that is read (not a binding site, an attribute name or a keyword)."""
        return node in self.scopes and node not in self._not_loads

    def unbound(self, node: cst.Name) -> bool:
        """A read of a name that no scope binds (nor builtins): a star import's."""
        scope = self.scopes.get(node)
        return scope is not None and not scope.visible(node.value) and node.value not in _BUILTINS


def _params(parameters: cst.Parameters):
    yield from parameters.posonly_params
    yield from parameters.params
    if isinstance(parameters.star_arg, cst.Param):
        yield parameters.star_arg
    yield from parameters.kwonly_params
    if parameters.star_kwarg is not None:
        yield parameters.star_kwarg


_HANDLERS = {
    cst.Assign: Scopes._assign,
    cst.AnnAssign: Scopes._ann_assign,
    cst.AugAssign: Scopes._aug_assign,
    cst.For: Scopes._for,
    cst.CompFor: Scopes._comp_for,
    cst.WithItem: Scopes._with_item,
    cst.ExceptHandler: Scopes._except,
    cst.ExceptStarHandler: Scopes._except,
    cst.NamedExpr: Scopes._named_expr,
    cst.Attribute: Scopes._attribute,
    cst.Arg: Scopes._arg,
    cst.Import: Scopes._import,
    cst.ImportFrom: Scopes._import_from,
    cst.FunctionDef: Scopes._function,
    cst.Lambda: Scopes._lambda,
    cst.ClassDef: Scopes._class,
    cst.Global: Scopes._global,
    cst.Nonlocal: Scopes._nonlocal,
    cst.MatchAs: Scopes._match_as,
    cst.MatchStar: Scopes._match_as,
    **{kind: Scopes._comprehension for kind in _COMPREHENSIONS},
}
