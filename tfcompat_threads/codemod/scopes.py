"""Parents, scopes, bindings and qualified names in ONE walk of CPython's own
syntax tree (`ast`).

The codemod needs the import a name comes from (through aliases and
attribute chains), whether a name is bound once in its scope, and where that
binding is read. This module computes exactly that with Python's static
scoping rules (function, class, comprehension and lambda scopes; `global`
and `nonlocal`; class bodies not enclosing their methods), flow-insensitively:
a name bound twice in a scope has both bindings. The walk is iterative, so
deep nesting costs memory, never the interpreter's stack.
tests/test_scopes.py checks the qualified names against libcst's
QualifiedNameProvider.
"""

from __future__ import annotations

import ast
import builtins

_BUILTINS = frozenset(dir(builtins))
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Fields that hold no node worth a visit: contexts and operators (shared
# singletons), names and numbers, a constant's value, and the aliases of an
# import (the import's handler reads them).
_NOT_NODES = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "asname", "module", "level", "kind",
                        "type_comment", "conversion", "is_async", "names"})


class _AllFields:
    def __contains__(self, field: str) -> bool:
        return True


_ALL_FIELDS = _AllFields()
_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}


class Binding:
    """One place that binds a name: an assignment target, an import, a def, a parameter."""

    __slots__ = ("name", "node", "kind", "qualified", "references")

    def __init__(self, name: str, node: ast.AST, kind: str, qualified: str | None = None) -> None:
        self.name = name
        self.node = node
        """The Name target, the Import/ImportFrom statement, the def/class, the arg."""
        self.kind = kind
        """"assign", "walrus", "import", "def", "class", "param", "other"."""
        self.qualified = qualified
        """For imports: the dotted name bound (`import a.b as x` -> "a.b")."""
        self.references: list[ast.Name] = []


class Scope:
    __slots__ = ("kind", "parent", "bindings", "global_names", "nonlocal_names", "node")

    def __init__(self, kind: str, parent: Scope | None, node: ast.AST | None = None) -> None:
        self.kind = kind  # "module", "function", "class", "comprehension"
        self.parent = parent
        self.node = node
        """The def, lambda, class or comprehension that opens it (None: the module)."""
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


def dotted(node: ast.AST) -> str:
    """`a.b.c` for a Name or an Attribute chain of Names; "" otherwise."""
    parts = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name:
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def _params(arguments: ast.arguments):
    yield from arguments.posonlyargs
    yield from arguments.args
    if arguments.vararg is not None:
        yield arguments.vararg
    yield from arguments.kwonlyargs
    if arguments.kwarg is not None:
        yield arguments.kwarg


class Scopes:
    """Walk a module once; then ask `parents`, `scope_of`, `qualified_names`."""

    def __init__(self, module: ast.Module) -> None:
        self.parents: dict[ast.AST, ast.AST] = {}
        self.scopes: dict[ast.AST, Scope] = {}
        self.module_scope = Scope("module", None)
        self.star_modules: list[str] = []
        self.star_imports: list[ast.ImportFrom] = []
        """Every `from m import *`, relative ones too (in walk order)."""
        self.star_names: dict[str, str] = {}
        """Names a star import of one of the repository's modules brings, bound
        there by an import (`tf` of `from utils import *` when utils.py does
        `import tensorflow as tf`): name -> qualified name. Set by the analysis
        before any name is resolved."""
        self.returned_modules: dict[ast.AST, str] = {}
        """Names assigned a module a function of the repository imports and
        returns (`tf = import_tf()`, its def doing `import tensorflow as tf;
        return tf`): the target node -> qualified name. Set by the analysis."""
        self.imported: set[str] = set()
        """Every name an import binds, in any scope: only these (and what a
        star import brings) can stand for a module's symbol."""
        self._reads: list[tuple[ast.Name, Scope]] = []
        self.by_type: dict[type, list[ast.AST]] = {}
        """Every node but the Names, by class, each list in walk order (codemod/index.py's tables)."""
        self.names_by_id: dict[str, list[ast.Name]] = {}
        """Every Name node, by identifier, in walk order."""
        self._walk(module)
        for name, scope in self._reads:
            for binding in scope.visible(name.id):
                binding.references.append(name)
        self._qualified: dict[ast.AST, frozenset[str]] = {}

    # -- walking ---------------------------------------------------------------

    def _walk(self, module: ast.Module) -> None:
        """Depth first, in field order; every node is recorded with its parent
        and the scope its code runs in. A def's decorators, defaults and
        annotations run in the enclosing scope, its body in its own."""
        parents, scopes, reads = self.parents, self.scopes, self._reads
        by_type, by_id = self.by_type, self.names_by_id
        handlers, fields_of = _HANDLERS, _FIELDS
        Name, Load, Store, AST = ast.Name, ast.Load, ast.Store, ast.AST
        pending: list[tuple[ast.AST, Scope]] = [(module, self.module_scope)]
        pop, push = pending.pop, pending.append
        while pending:
            node, scope = pop()
            scopes[node] = scope
            kind = type(node)
            if kind is Name:
                known = by_id.get(node.id)
                if known is None:
                    by_id[node.id] = [node]
                else:
                    known.append(node)
                context = type(node.ctx)
                if context is Load:
                    reads.append((node, scope))
                elif context is Store:
                    self._bind(node.id, node, "assign", scope=scope)
                continue
            known = by_type.get(kind)
            if known is None:
                by_type[kind] = [node]
            else:
                known.append(node)
            handler = handlers.get(kind)
            inner = handler(self, node, scope) if handler is not None else None
            names = fields_of.get(kind)
            if names is None:
                names = fields_of[kind] = tuple(reversed([f for f in kind._fields if f not in _NOT_NODES]))
            for field in names:  # reversed: the first field is popped first
                value = getattr(node, field, None)
                if value is None:
                    continue
                child_scope = scope if inner is None or field not in inner[1] else inner[0]
                if type(value) is list:
                    for item in reversed(value):
                        if isinstance(item, AST):
                            parents[item] = node
                            push((item, child_scope))
                elif isinstance(value, AST):
                    parents[value] = node
                    push((value, child_scope))

    # -- bindings ----------------------------------------------------------------

    def _bind(self, name: str, node: ast.AST, kind: str, qualified: str | None = None, scope=None) -> None:
        if kind == "assign" and isinstance(self.parents.get(node), ast.NamedExpr):
            kind = "walrus"
            while scope.kind == "comprehension":
                scope = scope.parent
        if kind == "import":
            self.imported.add(name)
        if name in scope.global_names:
            scope = scope.module()
        elif name in scope.nonlocal_names:
            outer = scope.parent
            while outer is not None and (outer.kind != "function" or name not in outer.bindings):
                outer = outer.parent
            scope = outer or scope
        scope.bindings.setdefault(name, []).append(Binding(name, node, kind, qualified))

    # -- handlers, by node type: bind, and say which scope each child runs in ------------

    def _import(self, node: ast.Import, scope: Scope):
        for alias in node.names:
            if alias.asname is not None:
                self._bind(alias.asname, node, "import", alias.name, scope)
            else:
                top = alias.name.split(".")[0]
                self._bind(top, node, "import", top, scope)
        return None

    def _import_from(self, node: ast.ImportFrom, scope: Scope):
        module = ("." * node.level) + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                self.star_imports.append(node)
                if not node.level:
                    self.star_modules.append(module)
                continue
            bound = alias.asname if alias.asname is not None else alias.name
            self._bind(bound, node, "import", f"{module}.{alias.name}" if node.module else f"{module}{alias.name}",
                       scope)
        return None

    def _function(self, node, scope: Scope):
        if not isinstance(node, ast.Lambda):
            self._bind(node.name, node, "def", scope=scope)
        inner = Scope("function", scope, node)
        for param in _params(node.args):
            self._bind(param.arg, param, "param", scope=inner)
        return inner, ("body",)

    def _class(self, node: ast.ClassDef, scope: Scope):
        self._bind(node.name, node, "class", scope=scope)
        return Scope("class", scope, node), ("body",)

    def _comprehension(self, node, scope: Scope):
        return Scope("comprehension", scope, node), _ALL_FIELDS

    def _global(self, node: ast.Global, scope: Scope):
        scope.global_names.update(node.names)
        return None

    def _nonlocal(self, node: ast.Nonlocal, scope: Scope):
        scope.nonlocal_names.update(node.names)
        return None

    def _except(self, node: ast.ExceptHandler, scope: Scope):
        if node.name is not None:
            self._bind(node.name, node, "assign", scope=scope)
        return None

    def _match_name(self, node, scope: Scope):
        name = getattr(node, "name", None) or getattr(node, "rest", None)
        if name is not None:
            self._bind(name, node, "assign", scope=scope)
        return None

    # -- questions ------------------------------------------------------------------

    def scope_of(self, node: ast.AST) -> Scope | None:
        return self.scopes.get(node)

    def qualified_names(self, node: ast.AST) -> frozenset[str]:
        """Dotted names an expression can stand for, as far as imports and
        builtins tell: `tf.compat.v1.Session` -> {"tensorflow.compat.v1.Session"}."""
        cached = self._qualified.get(node)
        if cached is not None:
            return cached
        kind = type(node)
        names: frozenset[str] = frozenset()
        if kind is ast.Name and type(node.ctx) is ast.Load:
            scope = self.scopes.get(node)
            bindings = scope.visible(node.id) if scope is not None else []
            if bindings:
                returned = self.returned_modules
                names = frozenset(b.qualified if b.kind == "import" else returned.get(b.node) for b in bindings
                                  if (b.kind == "import" and b.qualified) or b.node in returned)
            elif node.id in self.star_names:
                names = frozenset({self.star_names[node.id]})
            elif node.id in _BUILTINS:
                names = frozenset({f"builtins.{node.id}"})
        elif kind is ast.Attribute:
            chain = [node.attr]
            root = node.value
            while type(root) is ast.Attribute:  # iterative: chains can be long
                chain.append(root.attr)
                root = root.value
            suffix = "." + ".".join(reversed(chain))
            names = frozenset(base + suffix for base in self.qualified_names(root))
        self._qualified[node] = names
        return names

    def unbound(self, node: ast.Name) -> bool:
        """A read of a name that no scope binds (nor builtins): a star import's."""
        scope = self.scopes.get(node)
        return scope is not None and not scope.visible(node.id) and node.id not in _BUILTINS


_HANDLERS = {
    ast.Import: Scopes._import,
    ast.ImportFrom: Scopes._import_from,
    ast.FunctionDef: Scopes._function,
    ast.AsyncFunctionDef: Scopes._function,
    ast.Lambda: Scopes._function,
    ast.ClassDef: Scopes._class,
    ast.Global: Scopes._global,
    ast.Nonlocal: Scopes._nonlocal,
    ast.ExceptHandler: Scopes._except,
    ast.MatchAs: Scopes._match_name,
    ast.MatchStar: Scopes._match_name,
    ast.MatchMapping: Scopes._match_name,
    **{kind: Scopes._comprehension for kind in _COMPREHENSIONS},
}
