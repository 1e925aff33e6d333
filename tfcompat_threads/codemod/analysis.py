"""Follow each ConfigProto through its scope: where its fields are set, which
sessions it reaches, and whether those sessions only carry configuration.

The result is a list of `Unit`s (one per ConfigProto construction) and the
TensorFlow references of the module, as `ast` nodes; the rules turn them into
findings, and their fixes into edits.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from . import symbols as sym
from .scopes import Scopes
from .source import Source
from .symbols import Symbol

CONFIG_ONLY = "config-only"  # every session only carries the config: TF2 calls replace it
GRAPH = "graph"  # the config reaches a session that runs graphs, or a graph API: it stays
UNFOLLOWED = "unfollowed"  # the codemod cannot tell: it stays, and is reported

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = ("body", "orelse", "finalbody")


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
    """One ConfigProto construction and everything it reaches."""

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

    def stop(self, status: str, reason: str, node: ast.AST) -> None:
        if self.status == CONFIG_ONLY or (self.status == GRAPH and status == UNFOLLOWED):
            self.status, self.reason, self.reason_node = status, reason, node

    @property
    def calls(self) -> list[ast.Call]:
        """The TensorFlow calls of the unit: constructors, sessions, set_session."""
        return self.constructors + self.sessions + self.set_session_calls


class Analysis:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.module = source.tree
        self.names = Scopes(self.module)
        self.parents = self.names.parents
        self.star_modules = [m for m in self.names.star_modules if m in ("tensorflow", "tensorflow.compat.v1")]
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.references: list[tuple[ast.AST, Symbol]] = []
        self.calls: list[tuple[ast.Call, Symbol]] = []
        self._symbols: dict[ast.AST, Symbol | None] = {}
        imported = self.names.imported
        Name, Attribute, Call, Import, ImportFrom = ast.Name, ast.Attribute, ast.Call, ast.Import, ast.ImportFrom
        star = bool(self.star_modules)
        for node in self.names.scopes:  # every node, in walk order
            kind = type(node)  # not isinstance: cheaper, and the classes are final
            if kind is Name or kind is Attribute:
                if star or _root_in(node, imported):
                    symbol = self.symbol(node)
                    if symbol is not None:
                        self.references.append((node, symbol))
            elif kind is Call:
                if star or _root_in(node.func, imported):
                    symbol = self.symbol(node.func)
                    if symbol is not None:
                        self.calls.append((node, symbol))
            elif kind is Import or kind is ImportFrom:
                self.imports.append(node)
        self.calls.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        self.references.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        self.imports.sort(key=lambda node: (node.lineno, node.col_offset))
        self.graph_mode_module = any(s.name in sym.GRAPH_MODE_SWITCHES for _, s in self.calls)
        self.units = [self._follow(call) for call, s in self.calls if s.name == sym.CONFIG]

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
        if kind in (ast.Assign, ast.AnnAssign) and parent.value is value:
            targets = parent.targets if kind is ast.Assign else [parent.target]
            if len(targets) == 1 and type(targets[0]) is ast.Name:
                return ("assign", targets[0], parent)
            return ("store", parent)
        if kind is ast.Return:
            function = self.enclosing_function(parent)
            return ("return", function, parent) if function is not None else ("other", parent)
        if kind is ast.Expr:
            return ("discard", parent)
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
        """Every call of a helper function, or None when it is used otherwise."""
        binding = self.single_assignment(function, function.name)
        if binding is None:
            return None
        sites = []
        for reference in self.references_of(binding):
            call = self.parents.get(reference)
            if not (type(call) is ast.Call and call.func is reference):
                return None
            sites.append(call)
        return sites

    @staticmethod
    def is_config_arg(call: ast.Call, arg: ast.AST) -> bool:
        if type(arg) is ast.keyword:
            return arg.arg == "config"
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

    def _follow(self, config: ast.Call) -> Unit:
        unit = Unit(config)
        if self.graph_mode_module:
            unit.stop(GRAPH, "the module runs in graph mode (disable_eager_execution)", config)
        self._construction_fields(unit, config, "")
        self._follow_config_value(unit, config)
        if unit.status == CONFIG_ONLY and not unit.sessions:
            unit.stop(GRAPH, "it reaches no session", config)
        if unit.status == CONFIG_ONLY:
            for field_set in unit.field_sets:
                if field_set.statement not in unit.statements:
                    unit.stop(UNFOLLOWED, "it is made inside a compound statement", field_set.node)
        return unit

    def _own_statement(self, unit: Unit, node: ast.AST) -> ast.stmt | None:
        statement = self.editable_statement(node)
        if statement is None:
            unit.stop(UNFOLLOWED, "it is set in a statement that shares its line or is compound", node)
            return None
        unit.statements[statement] = None
        return statement

    def _construction_fields(self, unit: Unit, call: ast.Call, prefix: str) -> None:
        """Fields of a ConfigProto(...) / GPUOptions(...) call, set where the call is."""
        if call.args or any(k.arg is None for k in call.keywords):
            unit.stop(UNFOLLOWED, "its fields come from **kwargs", call)
            return
        fields: list[Field] = []
        for keyword in call.keywords:
            name = prefix + keyword.arg
            if name == "gpu_options":
                fields += self._gpu_options_fields(unit, keyword)
            elif name == "device_count":
                fields += self._device_count_fields(keyword)
            else:
                fields.append(Field(name, keyword.value, keyword))
        unit.field_sets.append(FieldSet(self.statement_of(call), call, fields))

    def _gpu_options_fields(self, unit: Unit, outer: ast.keyword) -> list[Field]:
        value = outer.value
        symbol = self.symbol(value.func) if type(value) is ast.Call else None
        if symbol is not None and symbol.name == sym.GPU_OPTIONS:
            unit.constructors.append(value)
            if value.args or any(k.arg is None for k in value.keywords):
                unit.stop(UNFOLLOWED, "its GPUOptions come from **kwargs", value)
                return []
            return [Field("gpu_options." + k.arg, k.value, k) for k in value.keywords]
        if type(value) is ast.Name:
            self._follow_gpu_options_variable(unit, value)
            return []
        return [Field("gpu_options", None, outer)]

    def _follow_gpu_options_variable(self, unit: Unit, name: ast.Name) -> None:
        binding = self.single_assignment(name, name.id)
        if binding is None or binding.node not in self.parents:
            unit.stop(UNFOLLOWED, f"its gpu_options `{name.id}` is assigned more than once", name)
            return
        assign = self.parents[binding.node]
        value = getattr(assign, "value", None) if type(assign) is ast.Assign else None
        if not (type(value) is ast.Call and (s := self.symbol(value.func)) and s.name == sym.GPU_OPTIONS):
            unit.stop(UNFOLLOWED, f"its gpu_options `{name.id}` is not made by GPUOptions()", name)
            return
        if self._own_statement(unit, assign) is None:
            return
        unit.constructors.append(value)
        self._construction_fields(unit, value, "gpu_options.")
        for reference in self.references_of(binding):
            if reference is name:
                continue
            if not self._field_assignment(unit, reference, "gpu_options."):
                unit.stop(UNFOLLOWED, f"its gpu_options `{name.id}` is used elsewhere", reference)

    def _device_count_fields(self, outer: ast.keyword) -> list[Field]:
        value = outer.value
        if type(value) is ast.Dict:
            entries = []
            for key, item in zip(value.keys, value.values):
                literal = self.literal(key)
                if not isinstance(literal, str):
                    return [Field("device_count", None, outer)]
                entries.append(Field(f"device_count.{literal}", item, (key, item, value)))
            return entries
        if type(value) is ast.Call and "builtins.dict" in self.qnames(value.func):
            if not value.args and all(k.arg is not None for k in value.keywords):
                return [Field(f"device_count.{k.arg}", k.value, k) for k in value.keywords]
        return [Field("device_count", None, outer)]

    def _field_assignment(self, unit: Unit, reference: ast.Name, prefix: str = "") -> bool:
        """`config.a.b = v` / `config.device_count['GPU'] = n`: record it."""
        path: list[str] = []
        node: ast.AST = reference
        while True:
            parent = self.parents.get(node)
            kind = type(parent)
            if kind is ast.Attribute and parent.value is node:
                path.append(parent.attr)
            elif kind is ast.Subscript and parent.value is node:
                key = self.literal(parent.slice)
                if not isinstance(key, str):
                    return False
                path.append(key)
            else:
                break
            node = parent
        assign = self.parents.get(node)
        if not path or type(assign) is not ast.Assign or not any(t is node for t in assign.targets):
            return False
        if len(assign.targets) != 1:
            return False
        statement = self._own_statement(unit, assign)
        if statement is not None:
            unit.field_sets.append(FieldSet(statement, assign, [Field(prefix + ".".join(path), assign.value, None)]))
        return True

    def _variable_references(self, unit: Unit, name: ast.Name, assign) -> list[ast.Name]:
        """Where a variable assigned here is read; none (and the unit is not
        followed) when it is assigned more than once in its scope."""
        binding = self.single_assignment(assign, name.id)
        if binding is None:
            unit.stop(UNFOLLOWED, f"`{name.id}` is assigned more than once", name)
            return []
        self._own_statement(unit, assign)  # when it fails, follow on: its sinks still matter
        return self.references_of(binding)

    def _follow_config_value(self, unit: Unit, value: ast.AST) -> None:
        kind, *rest = self.destination(value)
        if kind == "assign":
            for reference in self._variable_references(unit, *rest):
                if not self._field_assignment(unit, reference):
                    self._follow_config_value(unit, reference)
        elif kind == "arg":
            call, arg = rest
            self._config_sink(unit, call, arg)
        elif kind == "return":
            function, statement = rest
            self._follow_helper(unit, function, statement, self._follow_config_value)
        elif kind == "discard":
            self._own_statement(unit, rest[0])
        else:
            unit.stop(UNFOLLOWED, "it is stored or used in a way the codemod does not follow", value)

    def _config_sink(self, unit: Unit, call: ast.Call, arg: ast.AST) -> None:
        symbol = self.symbol(call.func)
        name = symbol.name if symbol else self.code(call.func)
        if symbol is not None and symbol.name in sym.SESSIONS and self.is_config_arg(call, arg):
            self._follow_session(unit, call)
        elif symbol is not None and (symbol.name in sym.GRAPH_SINKS or symbol.name == sym.ENABLE_EAGER):
            unit.stop(GRAPH, f"it configures {name}", call)  # enable_eager_execution: its own rule
        elif type(call.func) is ast.Attribute and call.func.attr in ("managed_session", "prepare_session"):
            unit.stop(GRAPH, f"it configures {call.func.attr}()", call)
        else:
            unit.stop(UNFOLLOWED, f"it is passed to {name}()", call)

    def _follow_helper(self, unit: Unit, function, statement, follow) -> None:
        """A helper returns the config or session: follow its call sites."""
        self._own_statement(unit, statement)
        sites = self.call_sites(function)
        if not sites:
            unit.stop(UNFOLLOWED, f"{function.name}() is used in a way the codemod does not follow", function)
            return
        for site in sites:
            unit.helper_calls.append(site)
            follow(unit, site)

    def _follow_session(self, unit: Unit, session: ast.Call) -> None:
        unit.sessions.append(session)
        self._follow_session_value(unit, session)

    def _follow_session_value(self, unit: Unit, value: ast.AST) -> None:
        kind, *rest = self.destination(value)
        if kind == "arg":
            call, _ = rest
            symbol = self.symbol(call.func)
            if symbol is not None and symbol.name == sym.SET_SESSION:
                unit.set_session_calls.append(call)
                if type(self.parents.get(call)) is ast.Expr:
                    self._own_statement(unit, self.parents[call])
                    return
            unit.stop(GRAPH, "its session is used to run graphs", value)
        elif kind == "discard":
            self._own_statement(unit, rest[0])
        elif kind == "assign":
            for reference in self._variable_references(unit, *rest):
                self._follow_session_value(unit, reference)
        elif kind == "return":
            function, statement = rest
            self._follow_helper(unit, function, statement, self._follow_session_value)
        else:
            unit.stop(GRAPH, "its session is used to run graphs", value)

    # -- order of execution --------------------------------------------------------

    def first_op_before(self, node: ast.AST) -> ast.Call | None:
        """A call that surely started TensorFlow's runtime before `node`, in the
        straight-line code leading to it (its block and the blocks around it,
        up to the enclosing function)."""
        containing = self._statements_running_ops()
        if not containing:
            return None
        statement = self.statement_of(node)
        while True:
            parent = self.parents.get(statement)
            if parent is None:
                return None
            block = _block_holding(parent, statement)
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
                owner = self.parents[owner]
            if isinstance(owner, (*_FUNCTIONS, ast.ClassDef)):
                return None
            statement = owner

    def _statements_running_ops(self) -> dict[ast.stmt, ast.Call]:
        if not hasattr(self, "_running"):
            self._running: dict[ast.stmt, ast.Call] = {}
            for call, symbol in self.calls:
                if not sym.starts_runtime(symbol):
                    continue
                node: ast.AST = call
                while node in self.parents and not isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
                    if isinstance(node, ast.stmt):
                        self._running.setdefault(node, call)
                    node = self.parents[node]
        return self._running


_COMPOUND = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
    ast.AsyncFunctionDef, ast.ClassDef, ast.Match, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)


def _root_in(node: ast.AST, names: set[str]) -> bool:
    """The Name at the root of an attribute chain is one of `names`."""
    while type(node) is ast.Attribute:
        node = node.value
    return type(node) is ast.Name and node.id in names


def _block_holding(parent: ast.AST, statement: ast.stmt) -> list | None:
    for field in _BLOCKS:
        block = getattr(parent, field, None)
        if type(block) is list and any(item is statement for item in block):
            return block
    return None
