"""Following a config: each ConfigProto is followed through its scope, into
the functions it is passed to and the modules that read it, to where its
fields are set and the sessions it reaches; the result is a `Unit` per
construction, with its status (config-only, graph, external, unfollowed)
and what the native fix replaces. Each step asks the module's analysis
(codemod/analysis.py) and its index; none walks the module.

    unit = follow(analysis, <Call tf.ConfigProto(...)>)
    unit.status, unit.sessions, unit.field_sets
"""

from __future__ import annotations

import ast

from . import reaching, resolve, sinks
from . import symbols as sym
from .findings import place
from .resolve import LIBRARIES
from .units import CONFIG_ONLY, EXTERNAL, GRAPH, UNFOLLOWED, Field, FieldSet, Unit

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_DEPTH = 4  # calls and modules a flow is followed through
MAX_STORED_READS = 40  # reads of a stored config's attribute followed, at most


def follow(analysis, config: ast.Call) -> Unit:
    unit = Unit(config)
    unit.home = analysis
    if analysis.graph_mode_module:
        package = analysis.graph_mode_package
        why = f"its package turns graph mode on when imported ({place(*package)})" if package else \
            "the module runs in graph mode (disable_eager_execution)"
        _stop(analysis, unit, GRAPH, why, config)
        unit.settled = True  # every session honours it, however it gets there
    _construction_fields(analysis, unit, config, "")
    follow_config_value(analysis, unit, config)
    if unit.status == CONFIG_ONLY and not unit.sessions and not unit.reached_elsewhere:
        _stop(analysis, unit, GRAPH, "it reaches no session", config)
    unit.calls_entered.clear()  # the way it went, needed only while following (it holds analyses)
    return unit


def _own_statement(analysis, unit: Unit, node: ast.AST) -> ast.stmt | None:
    statement = analysis.editable_statement(node)
    if analysis is not unit.home:
        _went(analysis, unit, node)
        return statement
    if statement is None:
        _stop(analysis, unit, UNFOLLOWED, "it is set in a statement that shares its line or is compound", node)
        return None
    unit.statements[statement] = None
    return statement


def _record(analysis, unit: Unit, kind: str, node: ast.AST) -> None:
    """A session, set_session or helper call the unit reaches: its own when
    in its module, else a place it went."""
    if analysis is unit.home:
        getattr(unit, kind).append(node)
    else:
        _went(analysis, unit, node)


def _stop(analysis, unit: Unit, status: str, reason: str, node: ast.AST) -> None:
    """Settle a unit's status here."""
    unit.stop(status, *_here(analysis, unit, reason, node))


def _foreign(analysis, unit: Unit, reason: str, node: ast.AST) -> None:
    """Note (the first) other value its sessions may get."""
    if unit.foreign is None:
        unit.foreign = _here(analysis, unit, reason, node)


def _here(analysis, unit: Unit, reason: str, node: ast.AST) -> tuple[str, ast.AST | None]:
    """A reason and its node, for the unit's findings: in another module
    than the unit's, the reason says where, and there is no node (the
    findings are in the unit's module, at the config; a position is its
    module's)."""
    if unit.home is None or analysis is unit.home:
        return reason, node
    return f"{reason} ({place(analysis.path, node.lineno)})", None


def _went(analysis, unit: Unit, node: ast.AST) -> None:
    where = place(analysis.path, node.lineno)
    if where not in unit.elsewhere:
        unit.elsewhere.append(where)


def _construction_fields(analysis, unit: Unit, call: ast.Call, prefix: str) -> None:
    """Fields of a ConfigProto(...) / GPUOptions(...) call, set where the call is."""
    if call.args or any(k.arg is None for k in call.keywords):
        unit.kwargs = True  # its fields are known at run time only; its flow still matters
        if analysis is unit.home:
            unit.field_sets.append(FieldSet(analysis.statement_of(call), call, []))
        return
    fields: list[Field] = []
    for keyword in call.keywords:
        name = prefix + keyword.arg
        if name == "gpu_options":
            fields += _gpu_options_fields(analysis, unit, keyword)
        elif name == "device_count":
            fields += _device_count_fields(analysis, keyword)
        else:
            fields.append(Field(name, keyword.value, keyword))
    if analysis is unit.home:
        unit.field_sets.append(FieldSet(analysis.statement_of(call), call, fields))
    else:
        _went(analysis, unit, call)


def _gpu_options_fields(analysis, unit: Unit, outer: ast.keyword) -> list[Field]:
    value = outer.value
    symbol = analysis.symbol(value.func) if type(value) is ast.Call else None
    if symbol is not None and symbol.name == sym.GPU_OPTIONS:
        unit.constructors.append(value)
        if value.args or any(k.arg is None for k in value.keywords):
            unit.kwargs = True
            return []
        return [Field("gpu_options." + k.arg, k.value, k) for k in value.keywords]
    if type(value) is ast.Name:
        _follow_gpu_options_variable(analysis, unit, value)
        return []
    return [Field("gpu_options", None, outer)]


def _follow_gpu_options_variable(analysis, unit: Unit, name: ast.Name) -> None:
    binding = analysis.single_assignment(name, name.id)
    if binding is None or binding.node not in analysis.parents:
        _stop(analysis, unit, UNFOLLOWED, f"its gpu_options `{name.id}` is assigned more than once", name)
        return
    assign = analysis.parents[binding.node]
    value = getattr(assign, "value", None) if type(assign) is ast.Assign else None
    if not (type(value) is ast.Call and (s := analysis.symbol(value.func)) and s.name == sym.GPU_OPTIONS):
        _stop(analysis, unit, UNFOLLOWED, f"its gpu_options `{name.id}` is not made by GPUOptions()", name)
        return
    if _own_statement(analysis, unit, assign) is None:
        return
    reader = _reader_elsewhere(analysis, binding.node)
    if reader is not None:
        _stop(analysis, unit, UNFOLLOWED, f"its gpu_options `{name.id}` is read at {reader.place} too ({reader.what})",
                   name)
        return
    unit.constructors.append(value)
    _construction_fields(analysis, unit, value, "gpu_options.")
    for reference in analysis.references_of(binding):
        if reference is name:
            continue
        if not field_assignment(analysis, unit, reference, "gpu_options."):
            _stop(analysis, unit, UNFOLLOWED, f"its gpu_options `{name.id}` is used elsewhere", reference)


def _device_count_fields(analysis, outer: ast.keyword) -> list[Field]:
    value = outer.value
    if type(value) is ast.Dict:
        entries = []
        for key, item in zip(value.keys, value.values):
            literal = analysis.literal(key)
            if not isinstance(literal, str):
                return [Field("device_count", None, outer)]
            entries.append(Field(f"device_count.{literal}", item, (key, item, value)))
        return entries
    if type(value) is ast.Call and "builtins.dict" in analysis.qnames(value.func):
        if not value.args and all(k.arg is not None for k in value.keywords):
            return [Field(f"device_count.{k.arg}", k.value, k) for k in value.keywords]
    return [Field("device_count", None, outer)]


def field_assignment(analysis, unit: Unit, reference: ast.expr, prefix: str = "") -> bool:
    """`config.a.b = v` / `config.device_count['GPU'] = n` /
    `self.config.a = v`: record it."""
    path: list[str] = []
    node: ast.AST = reference
    while True:
        parent = analysis.parents.get(node)
        kind = type(parent)
        if kind is ast.Attribute and parent.value is node:
            path.append(parent.attr)
        elif kind is ast.Subscript and parent.value is node:
            key = analysis.literal(parent.slice)
            if not isinstance(key, str):
                break  # `config.device_filters[:]`: the field is the path so far
            path.append(key)
        else:
            break
        node = parent
    assign = analysis.parents.get(node)
    if not path:
        return False
    if type(assign) is ast.Call and assign.func is node and len(path) > 1:
        # `config.graph_options.rewrite_options.CopyFrom(x)`: a field set by a method
        statement = _own_statement(analysis, unit, analysis.statement_of(assign))
        if statement is not None and analysis is unit.home:
            unit.field_sets.append(FieldSet(statement, assign, [Field(prefix + ".".join(path[:-1]), None, None)]))
        return True
    if type(assign) in (ast.Delete, ast.AugAssign) or (
            type(assign) is ast.Subscript and assign.value is node and type(analysis.parents.get(assign)) is ast.Delete):
        # `del config.device_filters[:]`, `config.x += 1`: a field changed in a way no TF2 call says
        statement = _own_statement(analysis, unit, analysis.statement_of(assign))
        if statement is not None and analysis is unit.home:
            unit.field_sets.append(FieldSet(statement, statement, [Field(prefix + ".".join(path), None, None)]))
        return True
    if type(assign) in (ast.Assign, ast.AnnAssign) and assign.value is node:
        # `options = config.graph_options`: a part of it goes on under another name
        taken = assign.targets[0] if type(assign) is ast.Assign else assign.target
        _foreign(analysis, unit, f"a part of it is taken as {analysis.code(taken)}", assign)
        return True
    if type(assign) is not ast.Assign or not any(t is node for t in assign.targets):
        return False
    if len(assign.targets) != 1:
        return False
    statement = _own_statement(analysis, unit, assign)
    if statement is not None and analysis is unit.home:
        unit.field_sets.append(FieldSet(statement, assign, [Field(prefix + ".".join(path), assign.value, None)]))
    return True


def _bound_references(analysis, unit: Unit, target: ast.AST, assign, makes) -> list[ast.expr]:
    """Where the value assigned to `target` (a name, or `self.<attr>` in a
    class) is read. The target may be bound elsewhere too: to what
    `makes(value)` accepts (another ConfigProto / session), whose unit
    meets this one where they are read; to anything else, which is noted
    (`unit.foreign`): a config-only session might get that instead."""
    if type(target) is ast.Name:
        scope = analysis.scope_of(assign)
        bindings = scope.bindings.get(target.id, []) if scope is not None else []
        reads = sorted({id(r): r for b in bindings for r in b.references}.values(),
                       key=lambda n: (n.lineno, n.col_offset))
        if len(bindings) > 1:  # bound again: the reads that surely see another value are not its
            seen = {id(r): seen_binding(analysis, r, assign, bindings) for r in reads}
            reads = [r for r in reads if seen[id(r)] != reaching.OTHER]
            if None not in seen.values():
                bindings = [b for b in bindings if b.node is target]
        others = [(b.node, analysis.parents.get(b.node), b.kind) for b in bindings if b.node is not target]
        name = target.id
    else:
        found = analysis.self_attribute(target)
        reads, stores = found
        others = [(s, analysis.parents.get(s), "assign") for s in stores if s is not target]
        name = analysis.code(target)
        value = getattr(assign, "value", None)
        if value is not None:  # `self.config = tf.ConfigProto(**self.config)`: read before the store, the old value
            start, end = analysis.source.start(value), analysis.source.end(value)
            reads = [r for r in reads if not start <= analysis.source.start(r) < end]
    if analysis.tf1_regions:
        reads = [r for r in reads if not analysis.in_tf1_code(r)]
        others = [o for o in others if not analysis.in_tf1_code(o[0])]
    for node, parent, kind in others:
        value = getattr(parent, "value", None) if type(parent) in (ast.Assign, ast.AnnAssign) else None
        if kind in ("assign", "walrus") and value is not None and makes(analysis, value):
            continue
        what = {"param": "a parameter", "import": "an import", "def": "a function"}.get(kind, "assigned")
        _foreign(analysis, unit, f"`{name}` is also {what} elsewhere (line {node.lineno})", node)
    _own_statement(analysis, unit, assign)  # when it fails, follow on: its sinks still matter
    return reads


def seen_binding(analysis, read: ast.Name, assign: ast.stmt, bindings) -> str | None:
    """reaching.seen_binding; a read in a function of the block of a name
    assigned only there, the function named by no statement between
    `assign` and the next assignment (so not run in between), sees the
    value in force when the block is done."""
    seen = reaching.seen_binding(analysis.parents, read, assign, bindings)
    if seen != reaching.DEFERRED:
        return seen
    block = reaching.block_holding(analysis.parents.get(assign), assign) if assign in analysis.parents else None
    holders = [analysis.parents.get(b.node) for b in bindings]
    if block is None or any(b.kind != "assign" for b in bindings) or not all(
            any(h is st for st in block) for h in holders):
        return None
    places = sorted(i for i, st in enumerate(block) if any(h is st for h in holders))
    mine = next(i for i, st in enumerate(block) if st is assign)
    later = [i for i in places if i > mine]
    outer = read
    while outer in analysis.parents and not any(outer is st for st in block):
        outer = analysis.parents[outer]
    if not later or not isinstance(outer, (*_FUNCTIONS, ast.ClassDef)):
        return None
    between = {id(st) for st in block[mine + 1:later[0]]}
    if any(id(statement) in between for statement in analysis.statements_in(block, analysis.index.names(outer.name))):
        return None
    return reaching.MINE if mine == places[-1] else reaching.OTHER


def _is_config(analysis, value: ast.AST) -> bool:
    symbol = analysis.symbol(value.func) if type(value) is ast.Call else None
    return symbol is not None and symbol.name == sym.CONFIG


def _is_session(analysis, value: ast.AST) -> bool:
    symbol = analysis.symbol(value.func) if type(value) is ast.Call else None
    return symbol is not None and symbol.name in sym.SESSIONS


def follow_config_value(analysis, unit: Unit, value: ast.AST) -> None:
    kind, *rest = analysis.destination(value)
    if kind in ("assign", "attribute"):
        reads = _bound_references(analysis, unit, *rest, makes=_is_config)
        if kind == "attribute" and not reads:
            _stop(analysis, unit, UNFOLLOWED, f"it is stored on the object as `{analysis.code(rest[0])}` and not "
                       "read in its class", value)
        for reference in reads:
            if not field_assignment(analysis, unit, reference):
                follow_config_value(analysis, unit, reference)
        _follow_readers(analysis, unit, rest[0], follow_config_value)
    elif kind == "arg":
        call, arg = rest
        _config_sink(analysis, unit, call, arg)
    elif kind == "return":
        function, statement = rest
        _follow_helper(analysis, unit, function, statement, follow_config_value)
    elif kind == "discard":
        _own_statement(analysis, unit, rest[0])
    elif kind == "store" and _follow_stored(analysis, unit, rest[0], value):
        pass
    elif kind != "inspect":
        where, calls = _container(analysis, value)
        outside = resolve.outside_calls(analysis, calls)
        if not where:
            _stop(analysis, unit, UNFOLLOWED, "it is stored or used in a way the codemod does not follow", value)
        elif outside:
            _stop(analysis, unit, EXTERNAL, f"{where} {outside}", value)
        else:
            _stop(analysis, unit, UNFOLLOWED, f"{where} which is not followed", value)


def _container(analysis, value: ast.AST) -> tuple[str, list[ast.Call]]:
    """Where a value put in a dict, list or tuple goes ("it is put in a
    dict under 'k', `run`, that goes to log() (line 3),"), and the calls
    the container goes to; ("", []) for anything else."""
    holder = analysis.parents.get(value)
    if type(holder) is ast.Dict and value in holder.values:
        key = analysis.literal(holder.keys[holder.values.index(value)])
        what = f"it is put in a dict under {key!r}" if isinstance(key, str) else "it is put in a dict"
    elif type(holder) in (ast.List, ast.Tuple, ast.Set):
        what = f"it is put in a {type(holder).__name__.lower()}"
    else:
        return "", []
    node = holder
    while type(analysis.parents.get(node)) in (ast.Dict, ast.List, ast.Tuple, ast.Set):
        node = analysis.parents[node]
    kind, *rest = analysis.destination(node)
    named, calls = "", [rest[0]] if kind == "arg" else []
    if kind == "assign":  # `run = {...}`: where the name goes
        named = f", `{rest[0].id}`,"
        binding = analysis.single_assignment(rest[0], rest[0].id)
        uses = [analysis.destination(r) for r in analysis.references_of(binding)] if binding is not None else []
        calls = [use[1] for use in uses if use[0] == "arg"]
        if not calls or len(calls) != len(uses):
            calls = []
    if calls:
        return f"{what}{named} that goes to {analysis.code(calls[0].func)}() (line {calls[0].lineno}),", calls
    return f"{what}{named}", []


def _follow_readers(analysis, unit: Unit, target: ast.AST, follow) -> None:
    """A module-level name read outside its scope (codemod/readers.py):
    each reader in another module is a place the flow goes (so the
    binding stays) and its reads are followed there; a reader that
    cannot be followed (`eval`, `__all__`, a notebook) is noted."""
    if unit.status != CONFIG_ONLY or not _module_name(analysis, target):
        return
    if len(unit.calls_entered) >= MAX_DEPTH:
        unit.readers.append((target.id, f"{analysis.path.name if analysis.path else 'line'}:{target.lineno}",
                             "its readers are too far to follow"))
        return
    for reader in _readers_of(analysis, target):
        if reader.analysis is None:
            if (target.id, reader.place, reader.what) not in unit.readers:
                unit.readers.append((target.id, reader.place, reader.what))
            continue
        if reader.place not in unit.elsewhere:
            unit.elsewhere.append(reader.place)
        depth = len(unit.calls_entered)
        unit.calls_entered.append((None, None, None))  # a depth guard, not a way back
        for read in reader.reads:
            if follow is not follow_config_value or not field_assignment(reader.analysis, unit, read):
                follow(reader.analysis, unit, read)
        del unit.calls_entered[depth:]


def _reader_elsewhere(analysis, target: ast.AST):
    """The first reader of a module-level name outside its scope (codemod/readers.py), or None."""
    if not _module_name(analysis, target):
        return None
    return next(iter(_readers_of(analysis, target)), None)


def _readers_of(analysis, target: ast.Name) -> list:
    """The readers (codemod/readers.py) that can see this binding of a
    module-level name. Another module, `__all__` or a notebook gets the
    module's last value: when a later top-level statement binds the name
    again (`config = dict()` below a ConfigProto), only this module's
    own lookups (`eval`, `globals()`) may still see this one."""
    from .readers import readers

    found = readers(analysis, target.id)
    statement = analysis.statement_of(target)
    if type(analysis.parents.get(statement)) is not ast.Module or not any(
            type(analysis.parents.get(analysis.statement_of(b.node))) is ast.Module
            and b.node.lineno > statement.lineno
            for b in analysis.names.module_scope.bindings.get(target.id, ()) if type(b.node) is ast.Name):
        return found
    here = analysis.path.name if analysis.path else "line"
    return [r for r in found if r.analysis is None and r.place.rpartition(":")[0] == here
            and "__all__" not in r.what]


def _module_name(analysis, target: ast.AST) -> bool:
    """`target` binds a name of the module (what other modules can import)."""
    return type(target) is ast.Name and any(
        b.node is target for b in analysis.names.module_scope.bindings.get(target.id, ()))


def _follow_stored(analysis, unit: Unit, statement: ast.stmt, value: ast.AST) -> bool:
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
    modules = [analysis]
    if analysis.project is not None and analysis.path is not None:
        modules += [analysis.project.analysis(path) for path in analysis.project.mentioning(attr, exclude=analysis.path)]
    reads = [(module, node) for module in modules if module is not None for node in module.index.loads_of(attr)
             if not any(n.startswith(LIBRARIES) for n in module.qnames(node))]  # `tf.config` is no read
    if not reads or len(reads) > MAX_STORED_READS:
        return False
    places = []
    for module, node in reads:
        probe = Unit(unit.config)
        probe.stored = unit.stored | {attr}
        probe.calls_entered = [(None, None, None)] * (len(unit.calls_entered) + 1)  # the depth, no way back
        if field_assignment(module, probe, node):
            continue
        follow_config_value(module, probe, node)
        place_ = place(module.path, node.lineno) if module.path else f"line:{node.lineno}"
        if probe.status == EXTERNAL:
            _stop(analysis, unit, EXTERNAL, f"it is stored as `.{attr}`, and at its read at {place_} {probe.reason}",
                       value)
        if probe.status not in (GRAPH, EXTERNAL):
            where = probe.reason or "it reaches a session that only carries it"
            _stop(analysis, unit, UNFOLLOWED, f"it is stored as `.{attr}`, and at its read at {place_} {where}",
                       value)
            return True
        places.append(place_)
    if not places:
        return False
    shown = ", ".join(places[:3]) + (" ..." if len(places) > 3 else "")
    _stop(analysis, unit, GRAPH, f"it is stored as `.{attr}`, and every read of it ({shown}) goes to something "
               "that honours it", value)
    return True


def _config_sink(analysis, unit: Unit, call: ast.Call, arg: ast.AST) -> None:
    symbol = analysis.symbol(call.func)
    name = analysis.code(call.func)  # as the source spells it
    if symbol is not None and symbol.name in sym.SESSIONS and analysis.is_config_arg(call, arg):
        _follow_session(analysis, unit, call)
    elif symbol is not None and symbol.name == sym.ENABLE_EAGER and sinks.eager_config(call) is arg:
        _follow_session(analysis, unit, call)  # on TF2 it only carries the config, as a config-only session
    elif sinks.graph_sink(analysis, call.func):
        _stop(analysis, unit, GRAPH, f"it configures {name}()", call)
    elif sinks.run_config_replace(analysis, call):
        _stop(analysis, unit, GRAPH, "it configures an Estimator's RunConfig (RunConfig.replace())", call)
    elif f"{sym.SHIM_PREFIX}configure" in analysis.qnames(call.func):
        _stop(analysis, unit, GRAPH, "tfcompat_threads.configure() applies it", call)  # what target shim writes
    elif type(call.func) is ast.Attribute and call.func.attr in sym.GRAPH_SESSION_METHODS:
        _stop(analysis, unit, GRAPH, f"it configures {name}()", call)
    elif symbol is not None and symbol.name == "add_to_collection" and call.args[1:2] == [arg]:
        _follow_collection(analysis, unit, call)
    elif call.args and call.args[0] is arg and "builtins.setattr" in analysis.qnames(call.func):
        _setattr_field(analysis, unit, call)
    elif call.args and call.args[0] is arg and "builtins.getattr" in analysis.qnames(call.func):
        unit.kwargs = True  # a field or sub-message, which code may set: its fields are known at run time only
    elif not _follow_into(analysis, unit, call, arg, follow_config_value):
        outside = resolve.outside_calls(analysis, [call])
        if outside:
            _stop(analysis, unit, EXTERNAL, f"it is passed to {name}(), {outside}", call)
        else:
            _stop(analysis, unit, UNFOLLOWED, f"it is passed to {name}()", call)


def _tf_calls(analysis, name: str) -> list[ast.Call]:
    """The calls of TensorFlow's `name` (a symbol's name) in the module,
    outside TF1-only code: an index lookup."""
    return [call for call in analysis.index.calls_named(name.rpartition(".")[2])
            if (symbol := analysis.symbol(call.func)) is not None and symbol.name == name
            and not analysis.in_tf1_code(call)]


def _follow_collection(analysis, unit: Unit, call: ast.Call) -> None:
    """`tf.add_to_collection("key", config)`: followed to each
    `tf.get_collection("key")[i]` of its module, when no other module names
    the key and every read of a collection by that key is of that shape."""
    key = analysis.literal(call.args[0])
    statement = analysis.parents.get(call)
    reads = []
    others = analysis.project.mentioning(key, exclude=analysis.path) if isinstance(key, str) and (
        analysis.project is not None and analysis.path is not None) else []
    for get in _tf_calls(analysis, "get_collection") if isinstance(key, str) and not others else ():
        if get.keywords or len(get.args) != 1:
            continue
        found = analysis.literal(get.args[0])
        if found != key and isinstance(found, str):
            continue  # another collection
        holder = analysis.parents.get(get)
        taken = type(holder) is ast.Subscript and holder.value is get
        index = analysis.literal(holder.slice) if taken else None
        if found != key or not isinstance(index, int):
            reads = []
            break
        reads.append(holder)
    if not reads or len(call.args) != 2 or call.keywords or type(statement) is not ast.Expr:
        where = f"the graph collection {key!r}" if isinstance(key, str) else "a graph collection by a key it cannot read"
        _stop(analysis, unit, UNFOLLOWED, f"it is put in {where}, read where the codemod does not follow", call)
        return
    _own_statement(analysis, unit, statement)
    for read in reads:
        follow_config_value(analysis, unit, read)


def _setattr_field(analysis, unit: Unit, call: ast.Call) -> None:
    """`setattr(config, name, value)`: a field set, by a name known here
    (a string) or at run time only (`for k, v in opts.items(): setattr(config, k, v)`)."""
    statement = analysis.parents.get(call)
    if len(call.args) != 3 or call.keywords or type(statement) is not ast.Expr:
        _stop(analysis, unit, UNFOLLOWED, "it is passed to setattr() in a way the codemod does not follow",
              call)
        return
    if _own_statement(analysis, unit, statement) is None or analysis is not unit.home:
        return
    path = analysis.literal(call.args[1])
    if isinstance(path, str) and path.isidentifier():
        unit.field_sets.append(FieldSet(statement, call, [Field(path, call.args[2], None)]))
    else:
        unit.kwargs = True  # its fields are known at run time only; its flow still matters
        unit.field_sets.append(FieldSet(statement, call, []))


def _follow_into(analysis, unit: Unit, call: ast.Call, arg: ast.AST, follow) -> bool:
    """Follow a value passed to a function of this module or of the
    repository into its body (the parameter's reads); False when the
    function is not ours to read."""
    if len(unit.calls_entered) >= MAX_DEPTH:
        return False
    target = resolve.resolve_function(analysis, call.func)
    if target is None:
        return False
    callee, function = target
    parameter = _parameter_for(function, call, arg, analysis.keyword_of(arg))
    scope = callee.scope_of(function.body[0]) if parameter and function.body else None
    if scope is None:
        return False
    reads = sorted({id(r): r for b in scope.bindings.get(parameter, []) for r in b.references}.values(),
                   key=lambda n: (n.lineno, n.col_offset))
    _went(analysis, unit, call)  # the flow goes into a function: followed, not fixed there
    unit.calls_entered.append((analysis, call, function))
    depth = len(unit.calls_entered)
    for read in reads:
        if not field_assignment(callee, unit, read):
            follow(callee, unit, read)
    if len(unit.calls_entered) == depth:
        unit.calls_entered.pop()
    return True


def _follow_helper(analysis, unit: Unit, function, statement, follow) -> None:
    """A function returns the config or session: back to the call that
    passed it in, or on to the function's call sites (in this module, or
    else in the repository's other modules)."""
    _own_statement(analysis, unit, statement)
    if unit.calls_entered and unit.calls_entered[-1][2] is function:
        caller, call, _ = unit.calls_entered.pop()
        follow(caller, unit, call)
        return
    sites = analysis.call_sites(function)
    if sites:
        for site in sites:
            _record(analysis, unit, "helper_calls", site)
            follow(analysis, unit, site)
        return
    elsewhere = resolve.calls_elsewhere(analysis, function) if sites == [] and len(unit.calls_entered) < MAX_DEPTH else []
    if not elsewhere:
        _stop(analysis, unit, UNFOLLOWED, f"{function.name}() is used in a way the codemod does not follow",
                   function)
        return
    for other, site in elsewhere:
        _went(other, unit, site)
        unit.calls_entered.append((analysis, site, None))  # a depth guard, not a way back
        follow(other, unit, site)
        unit.calls_entered.pop()


def _follow_session(analysis, unit: Unit, session: ast.Call) -> None:
    _record(analysis, unit, "sessions", session)
    if analysis is not unit.home:
        unit.reached_elsewhere = True
    if analysis.symbol(session.func).name == "InteractiveSession":
        # it makes itself the default session: a read of that reads it
        read = next(iter(_tf_calls(analysis, "get_default_session")), None)
        if read is not None:
            _stop(analysis, unit, GRAPH, f"it is the default session, which line {read.lineno} reads",
                  session)
    _follow_session_value(analysis, unit, session)


def _follow_session_value(analysis, unit: Unit, value: ast.AST) -> None:
    kind, *rest = analysis.destination(value)
    if kind == "arg":
        call, _ = rest
        symbol = analysis.symbol(call.func)
        if symbol is not None and symbol.name == sym.SET_SESSION:
            _record(analysis, unit, "set_session_calls", call)
            if type(analysis.parents.get(call)) is ast.Expr:
                _own_statement(analysis, unit, analysis.parents[call])
                return
        _stop(analysis, unit, GRAPH, f"its session is used to run graphs (line {value.lineno})", value)
    elif kind in ("discard", "inspect"):
        if kind == "discard":
            _own_statement(analysis, unit, rest[0])
    elif kind in ("assign", "attribute"):
        reads = _bound_references(analysis, unit, *rest, makes=_is_session)
        if kind == "attribute" and not reads:
            _stop(analysis, unit, UNFOLLOWED, f"its session is stored on the object as `{analysis.code(rest[0])}` and "
                       "not read in its class", value)
        for reference in reads:
            _follow_session_value(analysis, unit, reference)
        _follow_readers(analysis, unit, rest[0], _follow_session_value)
    elif kind == "return":
        function, statement = rest
        _follow_helper(analysis, unit, function, statement, _follow_session_value)
    else:
        _stop(analysis, unit, GRAPH, f"its session is used to run graphs (line {value.lineno})", value)


def _parameter_for(function, call: ast.Call, arg: ast.AST, keyword: str | None) -> str | None:
    """The parameter of a function (a method called through its class or
    instance: after `self`) that an argument binds (`keyword`: the keyword
    it is passed as, analysis.keyword_of)."""
    arguments = function.args
    if keyword is not None:
        names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
        return keyword if keyword in names else None
    positional = [a for a in call.args if type(a) is not ast.Starred]
    if any(type(a) is ast.Starred for a in call.args) or not any(a is arg for a in positional):
        return None
    index = next(i for i, a in enumerate(positional) if a is arg)
    params = [*arguments.posonlyargs, *arguments.args]
    if function.name == "__init__":
        params = params[1:]
    return params[index].arg if index < len(params) else None
