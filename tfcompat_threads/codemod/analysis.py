"""Follow each ConfigProto through its scope: where its fields are set, which
sessions it reaches, and whether those sessions only carry configuration.

The result is a list of `Unit`s (one per ConfigProto construction) and the
TensorFlow references of the module, as `ast` nodes; the rules turn them into
findings, and their fixes into edits.
"""

from __future__ import annotations

import ast
import sys
from typing import NamedTuple

from . import reaching
from . import symbols as sym
from .findings import place
from .scopes import Scopes, dotted
from .source import Source
from .symbols import Symbol

CONFIG_ONLY = "config-only"  # every session only carries the config: TF2 calls replace it
GRAPH = "graph"  # the config reaches a session that runs graphs, or a graph API: it stays
EXTERNAL = "external"  # it goes to code outside the repository: it stays, reported only on request
UNFOLLOWED = "unfollowed"  # the codemod cannot tell: it stays, and is reported
_RANK = {CONFIG_ONLY: 0, GRAPH: 1, EXTERNAL: 2, UNFOLLOWED: 3}

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_DEPTH = 4  # calls and modules a flow is followed through
MAX_STORED_READS = 40  # reads of a stored config's attribute followed, at most
_LIBRARIES = ("tensorflow.", "keras.", "tf_keras.", "tfcompat_threads.")  # their attributes are theirs


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
        """Its fields come from **kwargs: only known at run time."""
        self.foreign: tuple[str, ast.AST | None] | None = None
        """Why its sessions may get another config too (a name also bound to
        something else), and where."""
        self.home: Analysis | None = None
        """The module it is made in; statements elsewhere are not its to edit."""
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


class Analysis:
    def __init__(self, source: Source, project=None, path=None) -> None:
        self.source = source
        self.project = project
        """The repository's other modules (codemod/project.py), or None."""
        self.path = path
        self.module = source.tree
        self.names = Scopes(self.module)
        self.parents = self.names.parents
        self.star_modules = [m for m in self.names.star_modules if m in ("tensorflow", "tensorflow.compat.v1")]
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.references: list[tuple[ast.AST, Symbol]] = []
        self.calls: list[tuple[ast.Call, Symbol]] = []
        self._symbols: dict[ast.AST, Symbol | None] = {}
        self.ifs: list[ast.If] = []
        """Every if statement, in walk order (codemod/guards.py reads their tests)."""
        imported = self.names.imported
        Name, Attribute, Call, If = ast.Name, ast.Attribute, ast.Call, ast.If
        Import, ImportFrom = ast.Import, ast.ImportFrom
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
            elif kind is If:
                self.ifs.append(node)
        from .guards import tf1_regions

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
        self.graph_mode_module = any(s.name in sym.GRAPH_MODE_SWITCHES for _, s in self.calls)
        self.units = _merged([self._follow(call) for call, s in self.calls if s.name == sym.CONFIG])

    def in_tf1_code(self, node: ast.AST) -> bool:
        import bisect

        offset = self.source.start(node)
        index = bisect.bisect_right(self.tf1_regions, (offset, float("inf"))) - 1
        return index >= 0 and self.tf1_regions[index][0] <= offset < self.tf1_regions[index][1]

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
            me = _first_param(function)
            probe = next((n for m in owner.body if isinstance(m, _FUNCTIONS) and _first_param(m)
                          for n in ast.walk(m) if type(n) is ast.Attribute and n.attr == function.name
                          and type(n.value) is ast.Name and n.value.id == _first_param(m)), None)
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
        unit.home = self
        if self.graph_mode_module:
            self._stop(unit, GRAPH, "the module runs in graph mode (disable_eager_execution)", config)
            unit.settled = True  # every session honours it, however it gets there
        self._construction_fields(unit, config, "")
        self._follow_config_value(unit, config)
        if unit.status == CONFIG_ONLY and not unit.sessions and not unit.reached_elsewhere:
            self._stop(unit, GRAPH, "it reaches no session", config)
        return unit

    def _own_statement(self, unit: Unit, node: ast.AST) -> ast.stmt | None:
        statement = self.editable_statement(node)
        if self is not unit.home:
            self._went(unit, node)
            return statement
        if statement is None:
            self._stop(unit, UNFOLLOWED, "it is set in a statement that shares its line or is compound", node)
            return None
        unit.statements[statement] = None
        return statement

    def _record(self, unit: Unit, kind: str, node: ast.AST) -> None:
        """A session, set_session or helper call the unit reaches: its own when
        in its module, else a place it went."""
        if self is unit.home:
            getattr(unit, kind).append(node)
        else:
            self._went(unit, node)

    def _stop(self, unit: Unit, status: str, reason: str, node: ast.AST) -> None:
        """Settle a unit's status here."""
        unit.stop(status, *self._here(unit, reason, node))

    def _foreign(self, unit: Unit, reason: str, node: ast.AST) -> None:
        """Note (the first) other value its sessions may get."""
        if unit.foreign is None:
            unit.foreign = self._here(unit, reason, node)

    def _here(self, unit: Unit, reason: str, node: ast.AST) -> tuple[str, ast.AST | None]:
        """A reason and its node, for the unit's findings: in another module
        than the unit's, the reason says where, and there is no node (the
        findings are in the unit's module, at the config; a position is its
        module's)."""
        if unit.home is None or self is unit.home:
            return reason, node
        return f"{reason} ({place(self.path, node.lineno)})", None

    def _went(self, unit: Unit, node: ast.AST) -> None:
        where = place(self.path, node.lineno)
        if where not in unit.elsewhere:
            unit.elsewhere.append(where)

    def _construction_fields(self, unit: Unit, call: ast.Call, prefix: str) -> None:
        """Fields of a ConfigProto(...) / GPUOptions(...) call, set where the call is."""
        if call.args or any(k.arg is None for k in call.keywords):
            unit.kwargs = True  # its fields are known at run time only; its flow still matters
            if self is unit.home:
                unit.field_sets.append(FieldSet(self.statement_of(call), call, []))
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
        if self is unit.home:
            unit.field_sets.append(FieldSet(self.statement_of(call), call, fields))
        else:
            self._went(unit, call)

    def _gpu_options_fields(self, unit: Unit, outer: ast.keyword) -> list[Field]:
        value = outer.value
        symbol = self.symbol(value.func) if type(value) is ast.Call else None
        if symbol is not None and symbol.name == sym.GPU_OPTIONS:
            unit.constructors.append(value)
            if value.args or any(k.arg is None for k in value.keywords):
                unit.kwargs = True
                return []
            return [Field("gpu_options." + k.arg, k.value, k) for k in value.keywords]
        if type(value) is ast.Name:
            self._follow_gpu_options_variable(unit, value)
            return []
        return [Field("gpu_options", None, outer)]

    def _follow_gpu_options_variable(self, unit: Unit, name: ast.Name) -> None:
        binding = self.single_assignment(name, name.id)
        if binding is None or binding.node not in self.parents:
            self._stop(unit, UNFOLLOWED, f"its gpu_options `{name.id}` is assigned more than once", name)
            return
        assign = self.parents[binding.node]
        value = getattr(assign, "value", None) if type(assign) is ast.Assign else None
        if not (type(value) is ast.Call and (s := self.symbol(value.func)) and s.name == sym.GPU_OPTIONS):
            self._stop(unit, UNFOLLOWED, f"its gpu_options `{name.id}` is not made by GPUOptions()", name)
            return
        if self._own_statement(unit, assign) is None:
            return
        reader = self._reader_elsewhere(binding.node)
        if reader is not None:
            self._stop(unit, UNFOLLOWED, f"its gpu_options `{name.id}` is read at {reader.place} too ({reader.what})",
                       name)
            return
        unit.constructors.append(value)
        self._construction_fields(unit, value, "gpu_options.")
        for reference in self.references_of(binding):
            if reference is name:
                continue
            if not self._field_assignment(unit, reference, "gpu_options."):
                self._stop(unit, UNFOLLOWED, f"its gpu_options `{name.id}` is used elsewhere", reference)

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

    def _field_assignment(self, unit: Unit, reference: ast.expr, prefix: str = "") -> bool:
        """`config.a.b = v` / `config.device_count['GPU'] = n` /
        `self.config.a = v`: record it."""
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
                    break  # `config.device_filters[:]`: the field is the path so far
                path.append(key)
            else:
                break
            node = parent
        assign = self.parents.get(node)
        if not path:
            return False
        if type(assign) is ast.Call and assign.func is node and len(path) > 1:
            # `config.graph_options.rewrite_options.CopyFrom(x)`: a field set by a method
            statement = self._own_statement(unit, self.statement_of(assign))
            if statement is not None and self is unit.home:
                unit.field_sets.append(FieldSet(statement, assign, [Field(prefix + ".".join(path[:-1]), None, None)]))
            return True
        if type(assign) in (ast.Delete, ast.AugAssign) or (
                type(assign) is ast.Subscript and assign.value is node and type(self.parents.get(assign)) is ast.Delete):
            # `del config.device_filters[:]`, `config.x += 1`: a field changed in a way no TF2 call says
            statement = self._own_statement(unit, self.statement_of(assign))
            if statement is not None and self is unit.home:
                unit.field_sets.append(FieldSet(statement, statement, [Field(prefix + ".".join(path), None, None)]))
            return True
        if type(assign) in (ast.Assign, ast.AnnAssign) and assign.value is node:
            # `options = config.graph_options`: a part of it goes on under another name
            taken = assign.targets[0] if type(assign) is ast.Assign else assign.target
            self._foreign(unit, f"a part of it is taken as {self.code(taken)}", assign)
            return True
        if type(assign) is not ast.Assign or not any(t is node for t in assign.targets):
            return False
        if len(assign.targets) != 1:
            return False
        statement = self._own_statement(unit, assign)
        if statement is not None and self is unit.home:
            unit.field_sets.append(FieldSet(statement, assign, [Field(prefix + ".".join(path), assign.value, None)]))
        return True

    def _bound_references(self, unit: Unit, target: ast.AST, assign, makes) -> list[ast.expr]:
        """Where the value assigned to `target` (a name, or `self.<attr>` in a
        class) is read. The target may be bound elsewhere too: to what
        `makes(value)` accepts (another ConfigProto / session), whose unit
        meets this one where they are read; to anything else, which is noted
        (`unit.foreign`): a config-only session might get that instead."""
        if type(target) is ast.Name:
            scope = self.scope_of(assign)
            bindings = scope.bindings.get(target.id, []) if scope is not None else []
            reads = sorted({id(r): r for b in bindings for r in b.references}.values(),
                           key=lambda n: (n.lineno, n.col_offset))
            if len(bindings) > 1:  # bound again: the reads that surely see another value are not its
                seen = {id(r): self._seen_binding(r, assign, bindings) for r in reads}
                reads = [r for r in reads if seen[id(r)] != reaching.OTHER]
                if None not in seen.values():
                    bindings = [b for b in bindings if b.node is target]
            others = [(b.node, self.parents.get(b.node), b.kind) for b in bindings if b.node is not target]
            name = target.id
        else:
            found = self.self_attribute(target)
            reads, stores = found
            others = [(s, self.parents.get(s), "assign") for s in stores if s is not target]
            name = self.code(target)
        if self.tf1_regions:
            reads = [r for r in reads if not self.in_tf1_code(r)]
            others = [o for o in others if not self.in_tf1_code(o[0])]
        for node, parent, kind in others:
            value = getattr(parent, "value", None) if type(parent) in (ast.Assign, ast.AnnAssign) else None
            if kind in ("assign", "walrus") and value is not None and makes(value):
                continue
            what = {"param": "a parameter", "import": "an import", "def": "a function"}.get(kind, "assigned")
            self._foreign(unit, f"`{name}` is also {what} elsewhere (line {node.lineno})", node)
        self._own_statement(unit, assign)  # when it fails, follow on: its sinks still matter
        return reads

    def _seen_binding(self, read: ast.Name, assign: ast.stmt, bindings) -> str | None:
        """reaching.seen_binding; a read in a function of the block of a name
        assigned only there, the function named by no statement between
        `assign` and the next assignment (so not run in between), sees the
        value in force when the block is done."""
        seen = reaching.seen_binding(self.parents, read, assign, bindings)
        if seen != reaching.DEFERRED:
            return seen
        block = reaching.block_holding(self.parents.get(assign), assign) if assign in self.parents else None
        holders = [self.parents.get(b.node) for b in bindings]
        if block is None or any(b.kind != "assign" for b in bindings) or not all(
                any(h is st for st in block) for h in holders):
            return None
        places = sorted(i for i, st in enumerate(block) if any(h is st for h in holders))
        mine = next(i for i, st in enumerate(block) if st is assign)
        later = [i for i in places if i > mine]
        outer = read
        while outer in self.parents and not any(outer is st for st in block):
            outer = self.parents[outer]
        if not later or not isinstance(outer, (*_FUNCTIONS, ast.ClassDef)):
            return None
        named = any(type(n) is ast.Name and n.id == outer.name for st in block[mine + 1:later[0]]
                    for n in ast.walk(st))
        if named:
            return None
        return reaching.MINE if mine == places[-1] else reaching.OTHER

    def self_attribute(self, node: ast.AST):
        """For `self.<attr>` in a method (self: its first parameter): every read
        and every store of `<first parameter>.<attr>` in the class's methods;
        None for anything else."""
        if type(node) is not ast.Attribute or type(node.value) is not ast.Name:
            return None
        function = self.enclosing_function(node)
        owner = self.parents.get(function) if function is not None else None
        if type(owner) is not ast.ClassDef or not _first_param(function) or _first_param(function) != node.value.id:
            return None
        reads, stores = [], []
        for method in owner.body:
            if not isinstance(method, _FUNCTIONS) or not _first_param(method):
                continue
            me = _first_param(method)
            for inner in ast.walk(method):
                if type(inner) is ast.Attribute and inner.attr == node.attr and type(inner.value) is ast.Name \
                        and inner.value.id == me:
                    (stores if type(inner.ctx) is ast.Store else reads).append(inner)
        return reads, stores

    def _is_config(self, value: ast.AST) -> bool:
        symbol = self.symbol(value.func) if type(value) is ast.Call else None
        return symbol is not None and symbol.name == sym.CONFIG

    def _is_session(self, value: ast.AST) -> bool:
        symbol = self.symbol(value.func) if type(value) is ast.Call else None
        return symbol is not None and symbol.name in sym.SESSIONS

    def _follow_config_value(self, unit: Unit, value: ast.AST) -> None:
        kind, *rest = self.destination(value)
        if kind in ("assign", "attribute"):
            reads = self._bound_references(unit, *rest, makes=self._is_config)
            if kind == "attribute" and not reads:
                self._stop(unit, UNFOLLOWED, f"it is stored on the object as `{self.code(rest[0])}` and not "
                           "read in its class", value)
            for reference in reads:
                if not self._field_assignment(unit, reference):
                    self._follow_config_value(unit, reference)
            self._follow_readers(unit, rest[0], "_follow_config_value")
        elif kind == "arg":
            call, arg = rest
            self._config_sink(unit, call, arg)
        elif kind == "return":
            function, statement = rest
            self._follow_helper(unit, function, statement, "_follow_config_value")
        elif kind == "discard":
            self._own_statement(unit, rest[0])
        elif kind == "store" and self._follow_stored(unit, rest[0], value):
            pass
        elif kind != "inspect":
            where, calls = self._container(value)
            outside = self._outside_calls(calls)
            if not where:
                self._stop(unit, UNFOLLOWED, "it is stored or used in a way the codemod does not follow", value)
            elif outside:
                self._stop(unit, EXTERNAL, f"{where} {outside}", value)
            else:
                self._stop(unit, UNFOLLOWED, f"{where} which is not followed", value)

    def _container(self, value: ast.AST) -> tuple[str, list[ast.Call]]:
        """Where a value put in a dict, list or tuple goes ("it is put in a
        dict under 'k', `run`, that goes to log() (line 3),"), and the calls
        the container goes to; ("", []) for anything else."""
        holder = self.parents.get(value)
        if type(holder) is ast.Dict and value in holder.values:
            key = self.literal(holder.keys[holder.values.index(value)])
            what = f"it is put in a dict under {key!r}" if isinstance(key, str) else "it is put in a dict"
        elif type(holder) in (ast.List, ast.Tuple, ast.Set):
            what = f"it is put in a {type(holder).__name__.lower()}"
        else:
            return "", []
        node = holder
        while type(self.parents.get(node)) in (ast.Dict, ast.List, ast.Tuple, ast.Set):
            node = self.parents[node]
        kind, *rest = self.destination(node)
        named, calls = "", [rest[0]] if kind == "arg" else []
        if kind == "assign":  # `run = {...}`: where the name goes
            named = f", `{rest[0].id}`,"
            binding = self.single_assignment(rest[0], rest[0].id)
            uses = [self.destination(r) for r in self.references_of(binding)] if binding is not None else []
            calls = [use[1] for use in uses if use[0] == "arg"]
            if not calls or len(calls) != len(uses):
                calls = []
        if calls:
            return f"{what}{named} that goes to {self.code(calls[0].func)}() (line {calls[0].lineno}),", calls
        return f"{what}{named}", []

    # -- code outside the repository ------------------------------------------------

    def _outside_calls(self, calls: list[ast.Call]) -> str:
        """"which is code of `<module>`, a module the repository does not have"
        when every call calls code of that one module ("" otherwise)."""
        modules = {self.outside(call.func) for call in calls}
        if len(modules) != 1 or None in modules:
            return ""
        return f"which is code of `{modules.pop()}`, a module the repository does not have"

    def outside(self, node: ast.AST, depth: int = 0) -> str | None:
        """The top-level module a callable or object comes from when that
        module is not the repository's (nor TensorFlow's, Keras', this
        package's or the standard library's): `lib.f`, `from lib import f`,
        `lib.Logger(...)`, attributes of those, and names or `self.<attr>`
        bound only to those (or to None). None when it is not known to be
        outside: a name also bound to a def, a class or a parameter (a
        fallback `def` under `except ImportError:`) may be code of the
        repository."""
        if depth > 3 or self.project is None or self.path is None:
            return None
        if type(node) is ast.Call:
            return self.outside(node.func, depth + 1)
        if type(node) is ast.Attribute:
            stores = self.self_attribute(node)  # `self.<attr>`: what the class stores there
            if stores is None:
                return self.outside(node.value, depth)  # an attribute of something outside is outside
            bound = [(s, "assign", None) for s in stores[1]]
        elif type(node) is ast.Name:
            scope = self.scope_of(node)
            bound = [(b.node, b.kind, b.qualified) for b in scope.visible(node.id)] if scope is not None else []
        else:
            return None
        modules = set()
        for target, kind, qualified in bound:  # each: an import, or an assignment of None or of a value
            holder = self.parents.get(target)
            if kind == "import":
                modules.add(self._outside_module(qualified) if qualified else None)
            elif kind == "assign" and type(holder) is ast.Assign:
                if not (type(holder.value) is ast.Constant and holder.value.value is None):
                    modules.add(self.outside(holder.value, depth + 1))
            else:
                return None  # a def, a class, a parameter, a loop variable ...
        return modules.pop() if len(modules) == 1 and None not in modules else None

    def _outside_module(self, qualified: str) -> str | None:
        top = qualified.split(".")[0]
        if not top or f"{top}." in _LIBRARIES or top in sys.stdlib_module_names:
            return None
        if self.project.module_file(self.path, top) is not None or self.project.has_module(top):
            return None
        return top

    def _follow_readers(self, unit: Unit, target: ast.AST, follow: str) -> None:
        """A module-level name read outside its scope (codemod/readers.py):
        each reader in another module is a place the flow goes (so the
        binding stays) and its reads are followed there; a reader that
        cannot be followed (`eval`, `__all__`, a notebook) is noted."""
        if unit.status != CONFIG_ONLY or not self._module_name(target):
            return
        if len(unit.calls_entered) >= MAX_DEPTH:
            unit.readers.append((target.id, f"{self.path.name if self.path else 'line'}:{target.lineno}",
                                 "its readers are too far to follow"))
            return
        for reader in self._readers_of(target):
            if reader.analysis is None:
                if (target.id, reader.place, reader.what) not in unit.readers:
                    unit.readers.append((target.id, reader.place, reader.what))
                continue
            if reader.place not in unit.elsewhere:
                unit.elsewhere.append(reader.place)
            depth = len(unit.calls_entered)
            unit.calls_entered.append((None, None, None))  # a depth guard, not a way back
            for read in reader.reads:
                if follow != "_follow_config_value" or not reader.analysis._field_assignment(unit, read):
                    getattr(reader.analysis, follow)(unit, read)
            del unit.calls_entered[depth:]

    def _reader_elsewhere(self, target: ast.AST):
        """The first reader of a module-level name outside its scope (codemod/readers.py), or None."""
        if not self._module_name(target):
            return None
        return next(iter(self._readers_of(target)), None)

    def _readers_of(self, target: ast.Name) -> list:
        """The readers (codemod/readers.py) that can see this binding of a
        module-level name. Another module, `__all__` or a notebook gets the
        module's last value: when a later top-level statement binds the name
        again (`config = dict()` below a ConfigProto), only this module's
        own lookups (`eval`, `globals()`) may still see this one."""
        from .readers import readers

        found = readers(self, target.id)
        statement = self.statement_of(target)
        if type(self.parents.get(statement)) is not ast.Module or not any(
                type(self.parents.get(self.statement_of(b.node))) is ast.Module
                and b.node.lineno > statement.lineno
                for b in self.names.module_scope.bindings.get(target.id, ()) if type(b.node) is ast.Name):
            return found
        here = self.path.name if self.path else "line"
        return [r for r in found if r.analysis is None and r.place.rpartition(":")[0] == here
                and "__all__" not in r.what]

    def _module_name(self, target: ast.AST) -> bool:
        """`target` binds a name of the module (what other modules can import)."""
        return type(target) is ast.Name and any(
            b.node is target for b in self.names.module_scope.bindings.get(target.id, ()))

    def _follow_stored(self, unit: Unit, statement: ast.stmt, value: ast.AST) -> bool:
        """A config stored on an object other than `self` (`c.session_config =
        config`, a settings object read elsewhere): every read of that
        attribute in the repository is followed on its own. When each one ends
        in something that honours the config (a session that runs graphs) or
        sets a field of it, the config is settled as honoured (no fix: its flow
        crosses objects); else it is unfollowed, naming the read that goes
        elsewhere. False (not settled here) when there is no read, or too many."""
        targets = statement.targets if type(statement) is ast.Assign else []
        if len(targets) != 1 or type(targets[0]) is not ast.Attribute:
            return False
        attr = targets[0].attr
        if attr in unit.stored or len(unit.calls_entered) >= MAX_DEPTH:
            return False
        modules = [self]
        if self.project is not None and self.path is not None:
            modules += [self.project.analysis(path) for path in self.project.mentioning(attr, exclude=self.path)]
        reads = [(module, node) for module in modules if module is not None for node in module.names.scopes
                 if type(node) is ast.Attribute and node.attr == attr and type(node.ctx) is ast.Load
                 and not any(n.startswith(_LIBRARIES) for n in module.qnames(node))]  # `tf.config` is no read
        if not reads or len(reads) > MAX_STORED_READS:
            return False
        places = []
        for module, node in reads:
            probe = Unit(unit.config)
            probe.stored = unit.stored | {attr}
            probe.calls_entered = [(None, None, None)] * (len(unit.calls_entered) + 1)  # the depth, no way back
            if module._field_assignment(probe, node):
                continue
            module._follow_config_value(probe, node)
            place_ = place(module.path, node.lineno) if module.path else f"line:{node.lineno}"
            if probe.status == EXTERNAL:
                self._stop(unit, EXTERNAL, f"it is stored as `.{attr}`, and at its read at {place_} {probe.reason}",
                           value)
            if probe.status not in (GRAPH, EXTERNAL):
                where = probe.reason or "it reaches a session that only carries it"
                self._stop(unit, UNFOLLOWED, f"it is stored as `.{attr}`, and at its read at {place_} {where}",
                           value)
                return True
            places.append(place_)
        if not places:
            return False
        shown = ", ".join(places[:3]) + (" ..." if len(places) > 3 else "")
        self._stop(unit, GRAPH, f"it is stored as `.{attr}`, and every read of it ({shown}) goes to something "
                   "that honours it", value)
        return True

    def _config_sink(self, unit: Unit, call: ast.Call, arg: ast.AST) -> None:
        symbol = self.symbol(call.func)
        name = self.code(call.func)  # as the source spells it
        if symbol is not None and symbol.name in sym.SESSIONS and self.is_config_arg(call, arg):
            self._follow_session(unit, call)
        elif symbol is not None and symbol.name == sym.ENABLE_EAGER and eager_config(call) is arg:
            self._follow_session(unit, call)  # on TF2 it only carries the config, as a config-only session
        elif self._graph_sink(call.func):
            self._stop(unit, GRAPH, f"it configures {name}()", call)
        elif self.run_config_replace(call):
            self._stop(unit, GRAPH, "it configures an Estimator's RunConfig (RunConfig.replace())", call)
        elif f"{sym.SHIM_PREFIX}configure" in self.qnames(call.func):
            self._stop(unit, GRAPH, "tfcompat_threads.configure() applies it", call)  # what target shim writes
        elif type(call.func) is ast.Attribute and call.func.attr in sym.GRAPH_SESSION_METHODS:
            self._stop(unit, GRAPH, f"it configures {name}()", call)
        elif not self._follow_into(unit, call, arg, "_follow_config_value"):
            outside = self._outside_calls([call])
            if outside:
                self._stop(unit, EXTERNAL, f"it is passed to {name}(), {outside}", call)
            else:
                self._stop(unit, UNFOLLOWED, f"it is passed to {name}()", call)

    def run_config_replace(self, call: ast.Call) -> bool:
        """`RunConfig(...).replace(session_config=...)`, also on a name bound
        only to a RunConfig (or to a replace() of one)."""
        return type(call.func) is ast.Attribute and call.func.attr == "replace" and any(
            k.arg == "session_config" for k in call.keywords) and self._is_run_config(call.func.value, 0)

    def _is_run_config(self, node: ast.AST, depth: int, visiting: frozenset = frozenset()) -> bool:
        """A RunConfig; a name being looked at (`rc = rc.replace(...)`) is one
        if its other bindings are."""
        if depth > 3:
            return False
        if type(node) is ast.Call:
            symbol = self.symbol(node.func)
            if symbol is not None and symbol.name in sym.ESTIMATOR_RUN_CONFIGS:
                return True
            return type(node.func) is ast.Attribute and node.func.attr == "replace" and self._is_run_config(
                node.func.value, depth + 1, visiting)
        if type(node) is ast.Name:
            if node.id in visiting:
                return True
            scope = self.scope_of(node)
            bindings = scope.visible(node.id) if scope is not None else []
            holders = [self.parents.get(b.node) for b in bindings]
            return bool(holders) and all(b.kind == "assign" for b in bindings) and all(
                type(h) is ast.Assign and self._is_run_config(h.value, depth + 1, visiting | {node.id})
                for h in holders)
        return False

    def _graph_sink(self, func: ast.AST) -> bool:
        """A call that runs graphs with the config it is given (GRAPH_SINKS),
        also through a module alias bound once in its scope (`slim =
        tf.contrib.slim`, as TF1 code writes it)."""
        names = self.qnames(func)
        root, path = func, dotted(func)
        while type(root) is ast.Attribute:
            root = root.value
        if not names and path and type(root) is ast.Name and path != root.id:
            scope = self.scope_of(root)
            bindings = scope.visible(root.id) if scope is not None else []
            holder = self.parents.get(bindings[0].node) if len(bindings) == 1 else None
            if type(holder) is ast.Assign and type(holder.value) in (ast.Attribute, ast.Name):
                names = frozenset(base + path[len(root.id):] for base in self.qnames(holder.value))
        symbol = sym.symbol_for(names)
        return (symbol is not None and symbol.name in sym.GRAPH_SINKS) or not names.isdisjoint(
            sym.LIBRARY_GRAPH_SINKS)

    def _follow_into(self, unit: Unit, call: ast.Call, arg: ast.AST, follow: str) -> bool:
        """Follow a value passed to a function of this module or of the
        repository into its body (the parameter's reads); False when the
        function is not ours to read."""
        if len(unit.calls_entered) >= MAX_DEPTH:
            return False
        target = self.resolve_function(call.func)
        if target is None:
            return False
        analysis, function = target
        parameter = _parameter_for(function, call, arg)
        scope = analysis.scope_of(function.body[0]) if parameter and function.body else None
        if scope is None:
            return False
        reads = sorted({id(r): r for b in scope.bindings.get(parameter, []) for r in b.references}.values(),
                       key=lambda n: (n.lineno, n.col_offset))
        self._went(unit, call)  # the flow goes into a function: followed, not fixed there
        unit.calls_entered.append((self, call, function))
        depth = len(unit.calls_entered)
        for read in reads:
            if not analysis._field_assignment(unit, read):
                getattr(analysis, follow)(unit, read)
        if len(unit.calls_entered) == depth:
            unit.calls_entered.pop()
        return True

    def resolve_function(self, func: ast.AST):
        """(analysis, def) of the function a call calls (a class: its
        __init__), in this module or another of the repository; None when
        it is not ours to read."""
        if type(func) is ast.Name:
            scope = self.scope_of(func)
            bindings = scope.visible(func.id) if scope is not None else []
            if len(bindings) != 1:
                return None
            if bindings[0].kind in ("def", "class"):
                return _callable(self, bindings[0].node)
            qualified = bindings[0].qualified if bindings[0].kind == "import" else None
        elif type(func) is ast.Attribute:
            names = self.qnames(func)
            qualified = next(iter(names)) if len(names) == 1 else None
        else:
            return None
        if not qualified or self.project is None or self.path is None or qualified.startswith("tensorflow"):
            return None
        level = len(qualified) - len(qualified.lstrip("."))
        parts = qualified[level:].split(".")
        if len(parts) < 2:
            return None
        path = self.project.module_file(self.path, ".".join(parts[:-1]), level)
        analysis = self.project.analysis(path) if path is not None else None
        return analysis.exported(parts[-1]) if analysis is not None else None

    def exported(self, name: str, depth: int = 0):
        """(analysis, def) of a module-level function or class `name` of this
        module, also through its `from x import *` of the repository's modules."""
        bindings = self.names.module_scope.bindings.get(name, [])
        if len(bindings) == 1 and bindings[0].kind in ("def", "class"):
            return _callable(self, bindings[0].node)
        if bindings or depth > 2 or self.project is None:
            return None
        for node in self.module.body:
            if type(node) is ast.ImportFrom and any(a.name == "*" for a in node.names):
                path = self.project.module_file(self.path, node.module or "", node.level)
                other = self.project.analysis(path) if path is not None else None
                found = other.exported(name, depth + 1) if other is not None else None
                if found is not None:
                    return found
        return None

    def calls_elsewhere(self, function) -> list[tuple]:
        """(analysis, call) of the calls of a module-level function of this
        module from the repository's other modules."""
        if self.project is None or self.path is None or type(self.parents.get(function)) is not ast.Module:
            return []
        found = []
        for path in self.project.mentioning(function.name, exclude=self.path):
            other = self.project.analysis(path)
            if other is None:
                continue
            for node in other.names.scopes:
                if type(node) is not ast.Call:
                    continue
                func = node.func
                last = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None
                if last != function.name:
                    continue
                target = other.resolve_function(func)
                if target is not None and target[0].path == self.path and target[1].lineno == function.lineno:
                    found.append((other, node))
        return found

    def _follow_helper(self, unit: Unit, function, statement, follow: str) -> None:
        """A function returns the config or session: back to the call that
        passed it in, or on to the function's call sites (in this module, or
        else in the repository's other modules)."""
        self._own_statement(unit, statement)
        if unit.calls_entered and unit.calls_entered[-1][2] is function:
            caller, call, _ = unit.calls_entered.pop()
            getattr(caller, follow)(unit, call)
            return
        sites = self.call_sites(function)
        if sites:
            for site in sites:
                self._record(unit, "helper_calls", site)
                getattr(self, follow)(unit, site)
            return
        elsewhere = self.calls_elsewhere(function) if sites == [] and len(unit.calls_entered) < MAX_DEPTH else []
        if not elsewhere:
            self._stop(unit, UNFOLLOWED, f"{function.name}() is used in a way the codemod does not follow",
                       function)
            return
        for other, site in elsewhere:
            other._went(unit, site)
            unit.calls_entered.append((self, site, None))  # a depth guard, not a way back
            getattr(other, follow)(unit, site)
            unit.calls_entered.pop()

    def _follow_session(self, unit: Unit, session: ast.Call) -> None:
        self._record(unit, "sessions", session)
        if self is not unit.home:
            unit.reached_elsewhere = True
        self._follow_session_value(unit, session)

    def _follow_session_value(self, unit: Unit, value: ast.AST) -> None:
        kind, *rest = self.destination(value)
        if kind == "arg":
            call, _ = rest
            symbol = self.symbol(call.func)
            if symbol is not None and symbol.name == sym.SET_SESSION:
                self._record(unit, "set_session_calls", call)
                if type(self.parents.get(call)) is ast.Expr:
                    self._own_statement(unit, self.parents[call])
                    return
            self._stop(unit, GRAPH, f"its session is used to run graphs (line {value.lineno})", value)
        elif kind in ("discard", "inspect"):
            if kind == "discard":
                self._own_statement(unit, rest[0])
        elif kind in ("assign", "attribute"):
            reads = self._bound_references(unit, *rest, makes=self._is_session)
            if kind == "attribute" and not reads:
                self._stop(unit, UNFOLLOWED, f"its session is stored on the object as `{self.code(rest[0])}` and "
                           "not read in its class", value)
            for reference in reads:
                self._follow_session_value(unit, reference)
            self._follow_readers(unit, rest[0], "_follow_session_value")
        elif kind == "return":
            function, statement = rest
            self._follow_helper(unit, function, statement, "_follow_session_value")
        else:
            self._stop(unit, GRAPH, f"its session is used to run graphs (line {value.lineno})", value)

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
                    if _runs_maybe(self.parents[node], node):
                        break  # `if debug: tf.constant(1)`: the `if` does not surely run it
                    node = self.parents[node]
        return self._running


_TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()
_COMPOUND = (
    ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
    ast.AsyncFunctionDef, ast.ClassDef, ast.Match, *_TRY_STAR,
)


def eager_config(call: ast.Call) -> ast.AST | None:
    """The config argument of enable_eager_execution(config=...) (its first
    positional parameter), as a keyword or the expression itself."""
    for keyword in call.keywords:
        if keyword.arg == "config":
            return keyword
    return call.args[0] if call.args and type(call.args[0]) is not ast.Starred else None


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


def _callable(analysis, node):
    """A function, or a class's __init__ (what a call of the class runs)."""
    if isinstance(node, _FUNCTIONS):
        return analysis, node
    if type(node) is ast.ClassDef:
        init = next((m for m in node.body if isinstance(m, _FUNCTIONS) and m.name == "__init__"), None)
        return (analysis, init) if init is not None else None
    return None


def _parameter_for(function, call: ast.Call, arg: ast.AST) -> str | None:
    """The parameter of a function (a method called through its class or
    instance: after `self`) that an argument binds."""
    arguments = function.args
    if type(arg) is ast.keyword:
        names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
        return arg.arg if arg.arg in names else None
    positional = [a for a in call.args if type(a) is not ast.Starred]
    if any(type(a) is ast.Starred for a in call.args) or not any(a is arg for a in positional):
        return None
    index = next(i for i, a in enumerate(positional) if a is arg)
    params = [*arguments.posonlyargs, *arguments.args]
    if function.name == "__init__":
        params = params[1:]
    return params[index].arg if index < len(params) else None


def _first_param(function) -> str | None:
    arguments = function.args
    first = (arguments.posonlyargs + arguments.args)[:1]
    return first[0].arg if first else None


def _merged(units: list[Unit]) -> list[Unit]:
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


def _root_in(node: ast.AST, names: set[str]) -> bool:
    """The Name at the root of an attribute chain is one of `names`."""
    while type(node) is ast.Attribute:
        node = node.value
    return type(node) is ast.Name and node.id in names


