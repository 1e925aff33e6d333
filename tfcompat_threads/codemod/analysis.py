"""Follow each ConfigProto through its scope: where its fields are set, which
sessions it reaches, and whether those sessions only carry configuration.

The result is a list of `Unit`s (one per ConfigProto construction) and the
TensorFlow references of the module, all as ORIGINAL nodes; `rewrite.py`
turns them into edits for a target.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

import libcst as cst

from . import symbols as sym
from .positions import Positions
from .scopes import Scopes
from .symbols import Symbol

CONFIG_ONLY = "config-only"  # every session only carries the config: TF2 calls replace it
GRAPH = "graph"  # the config reaches a session that runs graphs, or a graph API: it stays
UNFOLLOWED = "unfollowed"  # the codemod cannot tell: it stays, and is reported


class FieldSet(NamedTuple):
    """Fields set by one statement, in source order: (dotted path, value or
    None when it cannot be read, the node whose comments go with the field)."""

    statement: cst.SimpleStatementLine
    node: cst.CSTNode
    fields: list[tuple[str, cst.BaseExpression | None, cst.CSTNode | None]]


class Unit:
    """One ConfigProto construction and everything it reaches."""

    def __init__(self, config: cst.Call) -> None:
        self.config = config
        self.status = CONFIG_ONLY
        self.reason = ""
        self.reason_node: cst.CSTNode | None = None
        self.statements: dict[cst.SimpleStatementLine, None] = {}
        """Statements the native fix replaces (an ordered set)."""
        self.field_sets: list[FieldSet] = []
        self.helper_calls: list[cst.Call] = []
        """Calls of helpers that built the config or session: kept as statements."""
        self.sessions: list[cst.Call] = []
        self.set_session_calls: list[cst.Call] = []
        self.constructors: list[cst.Call] = [config]
        """ConfigProto and GPUOptions calls of this unit."""

    def stop(self, status: str, reason: str, node: cst.CSTNode) -> None:
        if self.status == CONFIG_ONLY or (self.status == GRAPH and status == UNFOLLOWED):
            self.status, self.reason, self.reason_node = status, reason, node


class Analysis:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.names = Scopes(module)
        self.parents = self.names.parents
        self.star_modules = [m for m in self.names.star_modules if m in ("tensorflow", "tensorflow.compat.v1")]
        self.imports: list[cst.Import | cst.ImportFrom] = []
        self.references: list[tuple[cst.CSTNode, Symbol]] = []
        self.calls: list[tuple[cst.Call, Symbol]] = []
        self._symbols: dict[cst.CSTNode, Symbol | None] = {}
        self._positions = None
        for node in self.names.scopes:  # every node, in source order
            kind = type(node)  # not isinstance: libcst's node classes are ABCs, slow to test
            if kind is cst.Import or kind is cst.ImportFrom:
                self.imports.append(node)
            elif kind is cst.Name or kind is cst.Attribute:
                symbol = self.symbol(node)
                if symbol is not None:
                    self.references.append((node, symbol))
            elif kind is cst.Call:
                symbol = self.symbol(node.func)
                if symbol is not None:
                    self.calls.append((node, symbol))
        self.graph_mode_module = any(s.name in sym.GRAPH_MODE_SWITCHES for _, s in self.calls)
        self.units = [self._follow(call) for call, s in self.calls if s.name == sym.CONFIG]

    # -- names ---------------------------------------------------------------

    def qnames(self, node: cst.CSTNode) -> frozenset[str]:
        return self.names.qualified_names(node)

    def scope_of(self, node: cst.CSTNode):
        return self.names.scope_of(node)

    def symbol(self, node: cst.CSTNode) -> Symbol | None:
        if node in self._symbols:
            return self._symbols[node]
        names = self.qnames(node)
        found = sym.symbol_for(names)
        if found is None and not names and isinstance(node, cst.Name) and self.star_modules:
            if self.names.unbound(node):
                found = sym.symbol_for({f"{self.star_modules[-1]}.{node.value}"})
        self._symbols[node] = found
        return found

    def position(self, node: cst.CSTNode):
        """Line and column, computed on first use: a file with nothing to
        report never pays for it."""
        return self.positions[node]

    @property
    def positions(self) -> Positions:
        if self._positions is None:
            self._positions = Positions(self.module)
        return self._positions

    # -- structure -------------------------------------------------------------

    def editable_statement(self, small: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The line of a small statement, when it is alone on its line."""
        line = self.parents.get(small)
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            return line
        return None

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode:
        while not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            node = self.parents[node]
        return node

    def enclosing_function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return node if isinstance(node, cst.FunctionDef) else None
        return None

    def destination(self, value: cst.CSTNode) -> tuple:
        """Where the value of an expression goes."""
        parent = self.parents.get(value)
        if isinstance(parent, cst.Arg) and parent.value is value:
            return ("arg", self.parents[parent], parent)
        if isinstance(parent, (cst.Assign, cst.AnnAssign)) and parent.value is value:
            targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                return ("assign", targets[0], parent)
            return ("store", parent)
        if isinstance(parent, cst.Return):
            function = self.enclosing_function(parent)
            return ("return", function, parent) if function is not None else ("other", parent)
        if isinstance(parent, cst.Expr):
            return ("discard", parent)
        return ("other", parent)

    def single_assignment(self, owner: cst.CSTNode, name: str):
        """The only binding of `name` in the scope of `owner` (an assignment or
        a def, not an import or a parameter), or None."""
        scope = self.scope_of(owner)
        bindings = scope.bindings.get(name, []) if scope is not None else []
        if len(bindings) != 1 or bindings[0].kind not in ("assign", "def"):
            return None
        return bindings[0]

    def references_of(self, binding) -> list[cst.CSTNode]:
        return sorted(binding.references, key=self.names.order)

    def call_sites(self, function: cst.FunctionDef) -> list[cst.Call] | None:
        """Every call of a helper function, or None when it is used otherwise."""
        binding = self.single_assignment(function, function.name.value)
        if binding is None:
            return None
        sites = []
        for reference in self.references_of(binding):
            call = self.parents.get(reference)
            if not (isinstance(call, cst.Call) and call.func is reference):
                return None
            sites.append(call)
        return sites

    @staticmethod
    def is_config_arg(call: cst.Call, arg: cst.Arg) -> bool:
        if arg.keyword is not None:
            return arg.keyword.value == "config"
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return len(positional) > 2 and positional[2] is arg

    # -- following a config ------------------------------------------------------

    def _follow(self, config: cst.Call) -> Unit:
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

    def _own_statement(self, unit: Unit, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
        statement = self.editable_statement(node)
        if statement is None:
            unit.stop(UNFOLLOWED, "it is set in a statement that shares its line or is compound", node)
            return None
        unit.statements[statement] = None
        return statement

    def _construction_fields(self, unit: Unit, call: cst.Call, prefix: str) -> None:
        """Fields of a ConfigProto(...) / GPUOptions(...) call, set where the call is."""
        fields: list[tuple[str, cst.BaseExpression | None, cst.CSTNode | None]] = []
        for arg in call.args:
            if arg.star == "**" or arg.keyword is None:
                unit.stop(UNFOLLOWED, "its fields come from **kwargs", call)
                return
            name = prefix + arg.keyword.value
            if name == "gpu_options":
                fields += self._gpu_options_fields(unit, arg)
            elif name == "device_count":
                fields += self._device_count_fields(arg)
            else:
                fields.append((name, arg.value, arg))
        unit.field_sets.append(FieldSet(self.statement_of(call), call, fields))

    def _gpu_options_fields(self, unit: Unit, outer: cst.Arg) -> list:
        value = outer.value
        symbol = self.symbol(value.func) if isinstance(value, cst.Call) else None
        if symbol is not None and symbol.name == sym.GPU_OPTIONS:
            unit.constructors.append(value)
            fields = []
            for arg in value.args:
                if arg.keyword is None:
                    unit.stop(UNFOLLOWED, "its GPUOptions come from **kwargs", value)
                    return []
                fields.append(("gpu_options." + arg.keyword.value, arg.value, arg))
            return fields
        if isinstance(value, cst.Name):
            self._follow_gpu_options_variable(unit, value)
            return []
        return [("gpu_options", None, outer)]

    def _follow_gpu_options_variable(self, unit: Unit, name: cst.Name) -> None:
        binding = self.single_assignment(name, name.value)
        if binding is None or binding.node not in self.parents:
            unit.stop(UNFOLLOWED, f"its gpu_options `{name.value}` is assigned more than once", name)
            return
        assign = self.parents[self.parents[binding.node]]  # Name -> AssignTarget -> Assign
        value = getattr(assign, "value", None)
        if not (isinstance(value, cst.Call) and (s := self.symbol(value.func)) and s.name == sym.GPU_OPTIONS):
            unit.stop(UNFOLLOWED, f"its gpu_options `{name.value}` is not made by GPUOptions()", name)
            return
        if self._own_statement(unit, assign) is None:
            return
        unit.constructors.append(value)
        self._construction_fields(unit, value, "gpu_options.")
        for reference in self.references_of(binding):
            if reference is name:
                continue
            if not self._field_assignment(unit, reference, "gpu_options."):
                unit.stop(UNFOLLOWED, f"its gpu_options `{name.value}` is used elsewhere", reference)

    def _device_count_fields(self, outer: cst.Arg) -> list:
        value = outer.value
        entries = []
        if isinstance(value, cst.Dict):
            for element in value.elements:
                key = self.literal(getattr(element, "key", None))
                if not isinstance(key, str):
                    return [("device_count", None, outer)]
                entries.append((f"device_count.{key}", element.value, element))
            return entries
        if isinstance(value, cst.Call) and "builtins.dict" in self.qnames(value.func):
            if all(a.keyword is not None for a in value.args):
                return [(f"device_count.{a.keyword.value}", a.value, a) for a in value.args]
        return [("device_count", None, outer)]

    def literal(self, node):
        if node is None:
            return None
        try:
            return ast.literal_eval(self.module.code_for_node(node).strip())
        except (ValueError, SyntaxError):
            return None

    def _field_assignment(self, unit: Unit, reference: cst.Name, prefix: str = "") -> bool:
        """`config.a.b = v` / `config.device_count['GPU'] = n`: record it."""
        path: list[str] = []
        node: cst.CSTNode = reference
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                path.append(parent.attr.value)
            elif isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
                key = self.literal(getattr(parent.slice[0].slice, "value", None))
                if not isinstance(key, str):
                    return False
                path.append(key)
            else:
                break
            node = parent
        target = self.parents.get(node)
        if not path or not isinstance(target, cst.AssignTarget):
            return False
        assign = self.parents[target]
        if len(assign.targets) != 1:
            return False
        statement = self._own_statement(unit, assign)
        if statement is not None:
            unit.field_sets.append(FieldSet(statement, assign, [(prefix + ".".join(path), assign.value, None)]))
        return True

    def _variable_references(self, unit: Unit, name: cst.Name, assign) -> list[cst.CSTNode]:
        """Where a variable assigned here is read; none (and the unit is not
        followed) when it is assigned more than once in its scope."""
        binding = self.single_assignment(assign, name.value)
        if binding is None:
            unit.stop(UNFOLLOWED, f"`{name.value}` is assigned more than once", name)
            return []
        self._own_statement(unit, assign)  # when it fails, follow on: its sinks still matter
        return self.references_of(binding)

    def _follow_config_value(self, unit: Unit, value: cst.CSTNode) -> None:
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

    def _config_sink(self, unit: Unit, call: cst.Call, arg: cst.Arg) -> None:
        symbol = self.symbol(call.func)
        name = symbol.name if symbol else self.module.code_for_node(call.func)
        if symbol is not None and symbol.name in sym.SESSIONS and self.is_config_arg(call, arg):
            self._follow_session(unit, call)
        elif symbol is not None and (symbol.name in sym.GRAPH_SINKS or symbol.name == sym.ENABLE_EAGER):
            unit.stop(GRAPH, f"it configures {name}", call)  # enable_eager_execution: TFT103
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value in (
            "managed_session",
            "prepare_session",
        ):
            unit.stop(GRAPH, f"it configures {call.func.attr.value}()", call)
        else:
            unit.stop(UNFOLLOWED, f"it is passed to {name}()", call)

    def _follow_helper(self, unit: Unit, function: cst.FunctionDef, statement, follow) -> None:
        """A helper returns the config or session: follow its call sites."""
        self._own_statement(unit, statement)
        sites = self.call_sites(function)
        if not sites:
            unit.stop(UNFOLLOWED, f"{function.name.value}() is used in a way the codemod does not follow", function.name)
            return
        for site in sites:
            unit.helper_calls.append(site)
            follow(unit, site)

    def _follow_session(self, unit: Unit, session: cst.Call) -> None:
        unit.sessions.append(session)
        self._follow_session_value(unit, session)

    def _follow_session_value(self, unit: Unit, value: cst.CSTNode) -> None:
        kind, *rest = self.destination(value)
        if kind == "arg":
            call, _ = rest
            symbol = self.symbol(call.func)
            if symbol is not None and symbol.name == sym.SET_SESSION:
                unit.set_session_calls.append(call)
                if isinstance(self.parents.get(call), cst.Expr):
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

    def first_op_before(self, node: cst.CSTNode) -> cst.Call | None:
        """A call that surely started TensorFlow's runtime before `node`, in the
        straight-line code leading to it (its block and the blocks around it,
        up to the enclosing function)."""
        containing = self._statements_running_ops()
        statement = self.statement_of(node)
        while True:
            block = self.parents.get(statement)
            if not isinstance(block, (cst.IndentedBlock, cst.Module)):
                return None
            for sibling in block.body[: block.body.index(statement)]:
                if sibling in containing:
                    return containing[sibling]
            if isinstance(block, cst.Module):
                return None
            owner = self.parents[block]
            while not isinstance(owner, cst.BaseCompoundStatement):
                owner = self.parents[owner]
            if isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
                return None
            statement = owner

    def _statements_running_ops(self) -> dict[cst.CSTNode, cst.Call]:
        if not hasattr(self, "_running"):
            self._running: dict[cst.CSTNode, cst.Call] = {}
            for call, symbol in self.calls:
                if not sym.starts_runtime(symbol):
                    continue
                node: cst.CSTNode = call
                while node in self.parents and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                        self._running.setdefault(node, call)
                    node = self.parents[node]
        return self._running
