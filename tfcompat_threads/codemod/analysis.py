"""The analysis of one module: its index (codemod/index.py), the
TensorFlow names it references and calls, its TF1-only regions
(codemod/guards.py), and the answers to structural questions about its
nodes (where a value goes, the call sites of a function, what `self.<attr>`
a method reads); then each ConfigProto is followed (codemod/flow.py) into a
`Unit`, which the rules turn into findings and their fixes into edits.
"""

from __future__ import annotations

import ast
import bisect

from . import flow, order, resolve, sinks
from . import symbols as sym
from .index import Index, first_param
from .scopes import Scopes
from .source import Source
from .symbols import Symbol
from .units import merged

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Analysis:
    def __init__(self, source: Source, project=None, path=None) -> None:
        self.source = source
        self.project = project
        """The repository's other modules (codemod/project.py), or None."""
        self.path = path
        self.module = source.tree
        self.names = Scopes(self.module)
        self.parents = self.names.parents
        self.index = Index(self.names)
        self.star_modules = [m for m in self.names.star_modules if m in ("tensorflow", "tensorflow.compat.v1")]
        if self.names.star_imports and project is not None and path is not None:
            self.names.star_names = resolve.star_names(self)
            self.names.imported.update(self.names.star_names)
        if project is not None and path is not None:
            self.names.returned_modules = resolve.returned_modules(self)
            self.names.imported.update(node.id for node in self.names.returned_modules)
        self._symbols: dict[ast.AST, Symbol | None] = {}
        self._completing = False

    # What follows is made the first time it is asked for: a module read
    # only for one of its functions, its imports or its module-level names
    # (a guard helper's return, a star import, a config helper) is never
    # walked for its TensorFlow names, regions and flows.
    _LAZY = frozenset({"imports", "references", "calls", "ifs", "guard_values", "tf1_regions",
                       "graph_mode_switches", "graph_mode_module", "graph_mode_package", "units"})

    def __getattr__(self, name: str):
        if name not in Analysis._LAZY or self.__dict__.get("_completing", True):
            raise AttributeError(name)
        self._completing = True
        try:
            if self.project is not None and self.path is not None:
                with self.project.completing(self):
                    self._complete()
            else:
                self._complete()
        finally:
            self._completing = False
        return self.__dict__[name]

    def _gather_all(self) -> None:
        """Every name, attribute and call that is a symbol's, in walk order."""
        Name, Attribute, Call = ast.Name, ast.Attribute, ast.Call
        for node in self.names.scopes:
            kind = type(node)  # not isinstance: cheaper, and the classes are final
            if kind is Name or kind is Attribute:
                symbol = self.symbol(node)
                if symbol is not None:
                    self.references.append((node, symbol))
            elif kind is Call:
                symbol = self.symbol(node.func)
                if symbol is not None:
                    self.calls.append((node, symbol))

    @property
    def completing(self) -> bool:
        """Its TensorFlow names, regions and flows are being made (a cycle
        back to it finds no analysis, as one back to a module being read)."""
        return self._completing

    def _complete(self) -> None:
        self.graph_mode_package = None
        """(path, line) of the switch in a package `__init__.py` that puts this module in graph mode, if any."""
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.references: list[tuple[ast.AST, Symbol]] = []
        self.calls: list[tuple[ast.Call, Symbol]] = []
        self.ifs: list[ast.If] = []
        """Every if statement, in walk order (codemod/guards.py reads their tests)."""
        imported = self.names.imported
        if self.star_modules:  # `from tensorflow import *`: any name may be TensorFlow's
            self._gather_all()
        else:  # only what an import binds can stand for a symbol: each such name, and the chain above it
            parents, index, symbol_of = self.parents, self.index, self.symbol
            Attribute, Call = ast.Attribute, ast.Call
            for identifier in imported:
                for name in index.names(identifier):
                    chain, node, parent = [name], name, parents.get(name)
                    while type(parent) is Attribute and parent.value is node:
                        chain.append(parent)
                        node, parent = parent, parents.get(parent)
                    for link in reversed(chain):  # the outer first, as the walk meets them
                        symbol = symbol_of(link)
                        if symbol is not None:
                            self.references.append((link, symbol))
                    if type(parent) is Call and parent.func is node:
                        symbol = symbol_of(node)
                        if symbol is not None:
                            self.calls.append((parent, symbol))
        self.imports = [*self.index.of_type(ast.Import), *self.index.of_type(ast.ImportFrom)]
        self.ifs = list(self.index.of_type(ast.If))
        from .guards import tf1_regions

        self.guard_values: dict = {}
        """What codemod/guards.py found a flag or predicate to be (evaluated once)."""
        self.tf1_regions = tf1_regions(self)
        """Text ranges of code that runs on TF1 only: it is right where it runs,
        so it is no part of any flow, finding or fix."""
        if self.tf1_regions:
            self.calls = [(n, s) for n, s in self.calls if not self.in_tf1_code(n)]
            self.references = [(n, s) for n, s in self.references if not self.in_tf1_code(n)]
            self.imports = [n for n in self.imports if not self.in_tf1_code(n)]
        self.calls.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        self.references.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        self.imports.sort(key=lambda node: (node.lineno, node.col_offset))
        switches = [call for call, s in self.calls if s.name in sym.GRAPH_MODE_SWITCHES]
        self.graph_mode_switches = [call for call in switches if self.enclosing_function(call) is None]
        """disable_eager_execution() / disable_v2_behavior() calls that run on import (not in a def)."""
        self.graph_mode_module = bool(switches) or self._graph_mode_package()
        """It runs in graph mode: a switch of its own, or one its package runs first."""
        self.units = merged([flow.follow(self, call) for call, s in self.calls if s.name == sym.CONFIG])

    def _graph_mode_package(self) -> bool:
        """A package `__init__.py` above this module (in the repository) that
        switches graph mode on import: Python runs it before this module."""
        if self.project is None or self.path is None:
            return False
        level = 2 if self.path.name == "__init__.py" else 1
        while level <= 8:
            init = self.project.module_file(self.path, "", level)
            if init is None:
                return False
            data = self.project.read(init)  # most packages switch nothing: their bytes say so, unparsed
            switches = data is not None and (not data.isascii() or any(
                name.encode() in data for name in sym.GRAPH_MODE_SWITCHES))
            package = self.project.analysis(init) if switches else None
            if package is not None and package.graph_mode_switches:
                self.graph_mode_package = (init, package.graph_mode_switches[0].lineno)
                return True
            level += 1
        return False

    def in_tf1_code(self, node: ast.AST) -> bool:
        offset = self.source.start(node)
        index = bisect.bisect_right(self.tf1_regions, (offset, float("inf"))) - 1
        return index >= 0 and self.tf1_regions[index][0] <= offset < self.tf1_regions[index][1]

    def first_op_before(self, node: ast.AST) -> ast.Call | None:
        return order.first_op_before(self, node)

    def resolve_function(self, func: ast.AST, one_return: bool = False):
        return resolve.resolve_function(self, func, one_return)

    def calls_elsewhere(self, function) -> list[tuple]:
        return resolve.calls_elsewhere(self, function)

    def run_config_replace(self, call: ast.Call) -> bool:
        return sinks.run_config_replace(self, call)

    # -- names ---------------------------------------------------------------

    def qnames(self, node: ast.AST) -> frozenset[str]:
        return self.names.qualified_names(node)

    def scope_of(self, node: ast.AST):
        return self.names.scope_of(node)

    def symbol(self, node: ast.AST) -> Symbol | None:
        if node in self._symbols:
            return self._symbols[node]
        names = self.qnames(node)
        found = sym.symbol_for(names)
        if found is not None and len(names) > 1 and any(sym.symbol_for({name}) is None for name in names):
            found = None  # `import mylib as tf` besides `import tensorflow as tf`: it may not be TensorFlow's
        if found is None and not names and type(node) is ast.Name and self.star_modules:
            if self.names.unbound(node):
                found = sym.symbol_for({f"{self.star_modules[-1]}.{node.id}"})
        self._symbols[node] = found
        return found

    def code(self, node: ast.AST) -> str:
        return self.source.segment(node)

    # -- structure -------------------------------------------------------------

    def editable_statement(self, statement: ast.AST) -> ast.stmt | None:
        """A simple statement alone on its lines (no `;`, not on the line of
        a compound statement's header)."""
        if not isinstance(statement, ast.stmt) or isinstance(statement, _COMPOUND):
            return None
        source = self.source
        start, end = source.start(statement), source.end(statement)
        if source.text[source.line_start(start) : start].strip():
            return None
        after = source.text[end : source.line_end(end)].strip()
        if after and not after.startswith("#"):
            return None
        return statement

    def statement_of(self, node: ast.AST) -> ast.stmt:
        while not isinstance(node, ast.stmt):
            node = self.parents[node]
        return node

    def enclosing_function(self, node: ast.AST):
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (*_FUNCTIONS, ast.Lambda, ast.ClassDef)):
                return node if isinstance(node, _FUNCTIONS) else None
        return None

    def destination(self, value: ast.AST) -> tuple:
        """Where the value of an expression goes."""
        parent = self.parents.get(value)
        kind = type(parent)
        if kind is ast.keyword:
            return ("arg", self.parents[parent], parent)
        if kind is ast.Call and value is not parent.func:
            return ("arg", parent, value)
        if kind is ast.Starred:
            return ("other", parent)
        if kind is ast.Dict and self.keyword_of(value) is not None:
            return ("arg", self.parents[self.parents[parent]], value)  # `f(**{"config": value})`
        if kind in (ast.Assign, ast.AnnAssign) and parent.value is value:
            targets = parent.targets if kind is ast.Assign else [parent.target]
            if len(targets) == 1 and type(targets[0]) is ast.Name:
                return ("assign", targets[0], parent)
            if len(targets) == 1 and self.self_attribute(targets[0]) is not None:
                return ("attribute", targets[0], parent)
            return ("store", parent)
        if kind is ast.Return:
            function = self.enclosing_function(parent)
            return ("return", function, parent) if function is not None else ("other", parent)
        if kind is ast.Expr:
            return ("discard", parent)
        if _inspects(parent, value):
            return ("inspect", parent)
        return ("other", parent)

    def single_assignment(self, owner: ast.AST, name: str):
        """The only binding of `name` in the scope of `owner` (an assignment or
        a def, not an import or a parameter), or None."""
        scope = self.scope_of(owner)
        bindings = scope.bindings.get(name, []) if scope is not None else []
        if len(bindings) != 1 or bindings[0].kind not in ("assign", "def"):
            return None
        return bindings[0]

    @staticmethod
    def references_of(binding) -> list[ast.Name]:
        return sorted(binding.references, key=lambda n: (n.lineno, n.col_offset))

    def call_sites(self, function) -> list[ast.Call] | None:
        """Every call of a helper function (a method: `self.<name>(...)` in its
        class), or None when it is used otherwise."""
        owner = self.parents.get(function)
        if type(owner) is ast.ClassDef:
            me = first_param(function)
            uses = self.index.method_uses(owner).get(function.name)
            probe = uses[0] if uses else None
            through_class = self._through_class(owner, function.name)
            if (me is None and not through_class) or (probe is None and not through_class):
                return [] if me is not None else None
            attribute = self.self_attribute(probe) if probe is not None else None
            if probe is not None and attribute is None:
                return None  # `self.<name>` read where it is no method's own self (a nested function)
            references = (attribute[0] if attribute else []) + through_class
        else:
            binding = self.single_assignment(function, function.name)
            if binding is None:
                return None
            references = self.references_of(binding)
        sites = []
        for reference in references:
            call = self.parents.get(reference)
            if not (type(call) is ast.Call and call.func is reference):
                return None
            sites.append(call)
        return sites

    def _through_class(self, owner: ast.ClassDef, name: str) -> list[ast.Attribute]:
        """`Class.<name>` in the module, the class's name bound only to it (a
        staticmethod or classmethod called through its class)."""
        scope = self.scope_of(owner)
        bindings = scope.bindings.get(owner.name, []) if scope is not None else []
        if len(bindings) != 1 or bindings[0].node is not owner:
            return []
        return [self.parents[r] for r in self.references_of(bindings[0])
                if type(self.parents.get(r)) is ast.Attribute and self.parents[r].attr == name]

    def keyword_of(self, arg: ast.AST) -> str | None:
        """The keyword an argument is passed as: `f(k=v)` (the keyword), or
        an entry of a literal dict unpacked into the call, `f(**{"k": v})`
        (its value), each of whose keys is a string; None for anything else."""
        if type(arg) is ast.keyword:
            return arg.arg
        holder = self.parents.get(arg)
        star = self.parents.get(holder)
        if type(holder) is not ast.Dict or type(star) is not ast.keyword or star.arg is not None or not any(
                v is arg for v in holder.values):
            return None
        keys = [k.value if type(k) is ast.Constant and type(k.value) is str else None for k in holder.keys]
        if None in keys:
            return None
        return keys[next(i for i, v in enumerate(holder.values) if v is arg)]

    def is_config_arg(self, call: ast.Call, arg: ast.AST) -> bool:
        keyword = self.keyword_of(arg)
        if keyword is not None:
            return keyword == "config"
        positional = [a for a in call.args if type(a) is not ast.Starred]
        return len(positional) > 2 and positional[2] is arg

    def literal(self, node):
        if node is None:
            return None
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None

    # -- following a config ------------------------------------------------------

    def statements_in(self, block: list, nodes: list):
        """The statement of `block` that holds each node (one held by another block: none)."""
        mine = {id(statement) for statement in block}
        for node in nodes:
            while node in self.parents and id(node) not in mine:
                node = self.parents[node]
            if id(node) in mine:
                yield node

    def self_attribute(self, node: ast.AST):
        """For `self.<attr>` in a method (self: its first parameter): every read
        and every store of `<first parameter>.<attr>` in the class's methods;
        None for anything else."""
        if type(node) is not ast.Attribute or type(node.value) is not ast.Name:
            return None
        function = self.enclosing_function(node)
        owner = self.parents.get(function) if function is not None else None
        if type(owner) is not ast.ClassDef or not first_param(function) or first_param(function) != node.value.id:
            return None
        uses = self.index.method_uses(owner).get(node.attr, ())
        reads = [use for use in uses if type(use.ctx) is not ast.Store]
        stores = [use for use in uses if type(use.ctx) is ast.Store]
        return reads, stores

    # -- code outside the repository ------------------------------------------------

    # -- order of execution --------------------------------------------------------


_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()
_COMPOUND = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
    ast.AsyncFunctionDef, ast.ClassDef, ast.Match, *_TRY_STAR,
)


def _inspects(parent: ast.AST, value: ast.AST) -> bool:
    """`config is None`, `if config:`, `not sess`: a look at the value, which
    takes it nowhere."""
    kind = type(parent)
    if kind is ast.Compare and len(parent.ops) == 1 and type(parent.ops[0]) in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq):
        other = parent.comparators[0] if parent.left is value else parent.left
        return type(other) is ast.Constant and other.value is None
    if kind in (ast.If, ast.While, ast.IfExp, ast.Assert) and parent.test is value:
        return True
    return (kind is ast.UnaryOp and type(parent.op) is ast.Not) or kind is ast.BoolOp
