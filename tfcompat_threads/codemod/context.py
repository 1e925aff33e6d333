"""What the rules of one file share: the source, the analysis, the target
and the oldest TensorFlow the fixed code must run on, the names TensorFlow
has in each scope, and the plan of each config-only unit (the TF2 calls that
replace it). Computed once, on first use."""

from __future__ import annotations

import ast
import re
from functools import cached_property
from typing import NamedTuple

from .. import options as opts
from ..options import Applicability
from . import symbols as sym
from . import reaching
from .analysis import Analysis
from .flow import seen_binding
from .units import CONFIG_ONLY, Field, FieldSet, Unit
from .findings import WARNING, Cover, EnsureImport, Finding, Fix, Place, places_in
from .source import Edit, Source

SHIM_MODULE = "tfcompat_threads"
# Comment the native fix leaves where a field had no TF2 call (unsafe fixes only).
DROPPED_FIELD_COMMENT = "# tfcompat-threads {code}: {field} has no TF2 equivalent"
UNMAPPABLE_FIELD = "TFT006"  # the rule that reports such a field
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_VALUE = "\x00value\x00"


class StatementEdit(NamedTuple):
    """Replace whole statement lines [start, end) with `content` (lines with
    their indentation and line endings). `block` names the statement list
    it belongs to, and `has_code` whether `content` holds a statement: a
    block left with none gets a `pass`."""

    start: int
    end: int
    content: str
    block: tuple[int, str, int]
    """(id of the statement list, "module" or "block", its length)."""
    has_code: bool
    indent: str


class UnitPlan(NamedTuple):
    """The native fix of a config-only unit."""

    edits: list
    applicability: Applicability
    blocked_by: str
    """For an unsafe fix: the fields (or the reason) that make it unsafe."""
    dropped: list[tuple[FieldSet, str, str]]
    """(field set, field path, field as shown): fields with no TF2 call."""
    late: list[tuple[FieldSet, ast.Call]]
    """Field sets with thread settings after the first op, and that op: no native fix."""
    tf_missing: bool
    """No free name for TensorFlow where a TF2 call goes: no fix."""
    fields_unknown: bool
    """ConfigProto(**kwargs): the fields are known at run time only: no native fix."""
    unavailable: str
    """Why the oldest TensorFlow to run on lacks a name the fix needs ("" when none): no fix."""
    left_read: tuple[str, int] | None
    """(name, line) of a name a replaced statement binds that code the fix keeps still
    reads (`pool = config.session_inter_op_thread_pool.add()`, then `pool.num_threads = 1`): no fix."""


class Context:
    def __init__(self, source: Source, analysis: Analysis, target: str, tf_version: str | None = None,
                 severities: dict[str, str] | None = None, build: str | None = None) -> None:
        self.source = source
        self.build = build
        """"openmp" when the project declares an OpenMP build of TensorFlow; None: the official wheels'."""
        self.severities = severities or {}
        """Each rule's severity, by code: what its findings carry."""
        self.analysis = analysis
        self.target = target
        self.tf_version = tf_version
        """The oldest TensorFlow ("X.Y") the fixed code must run on; None: the newest spellings."""

    def unavailable(self, name: str) -> str:
        """Why the oldest TensorFlow to run on lacks `name` (a key of
        options.NAMES), or "" when it has it."""
        try:
            opts.spelling(name, self.tf_version)
        except opts.NoName as error:
            return str(error)
        return ""

    # -- findings -------------------------------------------------------------------

    def finding(self, code: str, node, message: str, fix: Fix | None = None, help: str = "",
                key: str | None = None, cover: Cover | None = None) -> Finding:
        start, end = self.source.node_range(node) if isinstance(node, ast.AST) else node
        return Finding(code, message, start, end, fix, help, key, cover, self.severities.get(code, WARNING),
                       _places(self.analysis, message, help))

    def code(self, node: ast.AST) -> str:
        return self.source.segment(node)

    def unit_key(self, unit: Unit) -> str:
        return f"unit@{self.source.start(unit.config)}"

    @property
    def tf1_regions(self) -> list[tuple[int, int]]:
        """Text ranges of code that runs on TF1 only (see guards.py)."""
        return self.analysis.tf1_regions

    # -- units ------------------------------------------------------------------------

    @cached_property
    def config_only_units(self) -> list[Unit]:
        """Units whose sessions only carry the config (not the shim's sessions,
        which apply their config themselves)."""
        return [unit for unit in self.analysis.units if unit.status == CONFIG_ONLY
                and not any(self.analysis.symbol(s.func).shim for s in unit.sessions)]

    @cached_property
    def plans(self) -> dict[Unit, UnitPlan]:
        return {unit: self._plan(unit) for unit in self.config_only_units}

    @cached_property
    def unit_statements(self) -> dict[ast.stmt, Unit]:
        """Statement -> the config-only unit whose native fix replaces it."""
        return {statement: unit for unit in self.config_only_units for statement in unit.statements}

    @cached_property
    def unit_calls(self) -> dict[ast.Call, Unit]:
        return {call: unit for unit in self.config_only_units for call in unit.calls}

    def unit_replacing(self, node: ast.AST) -> Unit | None:
        """The config-only unit whose fix replaces the code holding `node`: in
        the native target its statements, in the shim target the
        enable_eager_execution calls it makes tfcompat_threads.configure()."""
        if self.target == "shim":
            eager = {call: unit for unit in self.config_only_units for call in unit.sessions
                     if self.analysis.symbol(call.func).name == sym.ENABLE_EAGER}
            while node is not None:
                if node in eager:
                    return eager[node]
                node = self.analysis.parents.get(node)
            return None
        statements = self.unit_statements
        while node is not None:
            if node in statements:
                return statements[node]
            node = self.analysis.parents.get(node)
        return None

    # -- names of TensorFlow in scope -----------------------------------------------------

    @cached_property
    def tensorflow_bindings(self) -> list[tuple[str, ast.AST]]:
        """(bound name, import node) for imports that bind TensorFlow's module,
        plain tensorflow first."""
        plain, compat = [], []
        for node in self.analysis.imports:
            if type(node) is ast.Import:
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if alias.name in ("tensorflow", "tensorflow.compat.v2") or (
                            alias.name.startswith("tensorflow.") and not alias.asname):
                        plain.append((bound, node))  # tensorflow.compat.v2 is TF2's whole API
                    elif alias.name == "tensorflow.compat.v1":
                        compat.append((bound, node))
            elif node.module == "tensorflow.compat" and not node.level:
                for alias in node.names:
                    if alias.name == "v2":
                        plain.append((alias.asname or "v2", node))
                    if alias.name == "v1":
                        compat.append((alias.asname or "v1", node))
        return plain + compat

    def tf_alias(self, node: ast.AST) -> tuple[str, EnsureImport | None] | None:
        """The name TensorFlow has where `node` is, and the import to add when
        it has none there; None when `tf` and `tensorflow` are both taken."""
        scope = self.analysis.scope_of(node)
        for name, import_node in self.tensorflow_bindings:
            if scope is not None and any(b.node is import_node for b in scope.visible(name)):
                return name, None
        for name in ("tf", "tensorflow"):
            if scope is None or not scope.visible(name):
                return name, EnsureImport("tensorflow", None if name == "tensorflow" else name)
        return None

    # -- the native fix of a config-only unit -----------------------------------------------

    def _plan(self, unit: Unit) -> UnitPlan:
        applicability = Applicability.SAFE
        blocked: list[str] = []
        dropped: list[tuple[FieldSet, str, str]] = []
        late: list[tuple[FieldSet, ast.Call]] = []
        edits: list = []
        imports: set[EnsureImport] = set()
        tf_missing = False
        unavailable = ""
        for field_set in unit.field_sets:
            if any(f.path in opts.THREAD_FIELDS for f in field_set.fields):
                op = self.analysis.first_op_before(field_set.node)
                if op is not None:
                    late.append((field_set, op))
        for statement in unit.statements:
            indent = self.source.indent_of(statement)
            lines: list[tuple[str, bool]] = []  # (text with indentation, is code)
            located: list[tuple[int, object]] = [
                (self.source.start(fs.node), fs) for fs in unit.field_sets if fs.statement is statement
            ]
            located += [
                (self.source.start(c), c) for c in unit.helper_calls if self.analysis.statement_of(c) is statement
            ]
            located.sort(key=lambda pair: pair[0])
            comments = self.source.comments(*self._statement_range(statement))
            claimed: set[int] = set()
            carried: dict[int, tuple[list[str], list[str]]] = {}
            for _, thing in located:
                if isinstance(thing, FieldSet):
                    for field in thing.fields:
                        if field.carrier is not None:
                            above, inline = self._carrier_comments(field.carrier, comments)
                            carried[id(field)] = ([c for _, c in above], [c for _, c in inline])
                            claimed |= {offset for offset, _ in above + inline}
            lines += [(indent + text, False) for offset, text in comments if offset not in claimed]
            alias = None
            for _, thing in located:
                if isinstance(thing, ast.Call):
                    lines.append((indent + self.code(thing), True))
                    continue
                for field in thing.fields:
                    above, inline = carried.get(id(field), ([], []))
                    lines += [(indent + c, False) for c in above]
                    option = opts.lookup(field.path)
                    if option is not None and not option.mappable and field.value is not None:
                        template, _, _ = self._template(option, field.value, statement)
                        if template == "":  # a value with nothing to do (a memory fraction of 1.0)
                            lines += [(indent + c, False) for c in inline]
                            continue
                    if option is None or not option.mappable or field.value is None:
                        lines += [(indent + c, False) for c in inline]
                        shown = field_shown(field, self.code)
                        dropped.append((thing, field.path, shown))
                        applicability = Applicability.UNSAFE
                        blocked.append(f"{field.path} has no TF2 equivalent")
                        comment = DROPPED_FIELD_COMMENT.format(code=UNMAPPABLE_FIELD, field=" ".join(shown.split()))
                        lines.append((indent + comment, False))
                        continue
                    template, form_applicability, names = self._template(option, field.value, statement)
                    if form_applicability is not Applicability.SAFE:
                        applicability = Applicability.UNSAFE
                        shown = " ".join(field_shown(field, self.code).split())
                        blocked.append(f"{shown}: {option.caveat or option.notes}")
                    if not template:
                        lines += [(indent + c, False) for c in inline]
                        continue
                    try:
                        template = opts.spelled(template, self.tf_version)
                    except opts.NoName as error:
                        unavailable = unavailable or str(error)
                    if alias is None:
                        found = self.tf_alias(statement)
                        if found is None:
                            tf_missing = True
                            alias = "tf"
                        else:
                            alias, needed = found
                            if needed is not None:
                                imports.add(needed)
                    rendered = self._render(template, field.value, alias, indent, names)
                    if len(inline) == 1 and _ends_simple(template):
                        lines.append((f"{rendered}  {inline[0]}", True))
                    else:
                        lines += [(indent + c, False) for c in inline]
                        lines.append((rendered, True))
            edits.append(self.statement_edit(statement, lines))
        edits += sorted(imports)
        return UnitPlan(edits, applicability, "; ".join(dict.fromkeys(blocked)), dropped, late, tf_missing,
                        unit.kwargs, unavailable, left_read(self.analysis, unit))

    def _statement_range(self, statement: ast.stmt) -> tuple[int, int]:
        source = self.source
        return source.line_start(source.start(statement)), source.line_end(source.end(statement))

    def statement_edit(self, statement: ast.stmt, lines: list[tuple[str, bool]]) -> StatementEdit:
        """Replace a statement's lines with `lines`: (text, is code), each text
        with its indentation, without its final line ending."""
        source = self.source
        start, end = self._statement_range(statement)
        parent = self.analysis.parents.get(statement)
        block = next(b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody"))
                     if type(b) is list and any(s is statement for s in b))
        kind = "module" if type(parent) is ast.Module else "block"
        content = "".join(text + source.newline for text, _ in lines)
        return StatementEdit(start, end, content, (id(block), kind, len(block)), any(code for _, code in lines),
                             source.indent_of(statement))

    def _carrier_comments(self, carrier, comments: list[tuple[int, str]]):
        """Comments that go with one argument (or dict entry) of a call: those
        on their own lines just above it (after the previous item's comma),
        and those inside it or after it up to the end of its comma's line."""
        siblings, index = self._siblings(carrier)
        start, end = siblings[index]
        stop, comma = self._after(end)
        inline_end = self.source.line_end(comma) if comma is not None else stop
        inline = [(o, c) for o, c in comments if start <= o < inline_end]
        above = []
        if index > 0:
            _, previous_comma = self._after(siblings[index - 1][1])
            if previous_comma is not None:
                low = self.source.line_end(previous_comma)
                above = [(o, c) for o, c in comments if low <= o < start]
        return above, inline

    def _siblings(self, carrier) -> tuple[list[tuple[int, int]], int]:
        """Text ranges of the items of the call or dict holding `carrier`, and its index."""
        source = self.source
        if isinstance(carrier, tuple):  # a dict entry: (key, value, dict)
            key, value, container = carrier
            ranges = [(source.start(k), self._value_end(v)) for k, v in zip(container.keys, container.values)]
            return ranges, list(container.keys).index(key)
        call = self.analysis.parents[carrier]
        items = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        ranges = [(source.start(item), self._value_end(getattr(item, "value", item))) for item in items]
        return ranges, next(i for i, item in enumerate(items) if item is carrier)

    def _value_end(self, value: ast.AST) -> int:
        return self.value_range(value)[1]

    def value_range(self, value: ast.AST) -> tuple[int, int]:
        """The text range of an expression with the parentheses around it."""
        text = self.source.text
        start, end = self.source.start(value), self.source.end(value)
        while True:
            before = start - 1
            while before >= 0 and text[before] in " \t\r\n\\":
                before -= 1
            after = end
            while after < len(text) and text[after] in " \t\r\n\\":
                after += 1
            if before >= 0 and after < len(text) and text[before] == "(" and text[after] == ")":
                start, end = before, after + 1
            else:
                return start, end

    def _after(self, end: int) -> tuple[int, int | None]:
        """From the end of an item: (where the scan stopped, the offset of the
        comma after it or None)."""
        text = self.source.text
        position = end
        while position < len(text):
            char = text[position]
            if char == "#":
                position = self.source.line_end(position)
                continue
            if char in " \t\r\n\\":
                position += 1
                continue
            return position, (position if char == "," else None)
        return position, None

    def _template(self, option: opts.Option, value: ast.expr, statement: ast.stmt):
        """(template, applicability, names for it) for this value: the first of
        the option's forms that the value has, else its general code."""
        literal = self.analysis.literal(value)
        names = {"gpus": self._free_name(statement, "gpus", "visible_gpus", "tf_gpus"),
                 "gpu": self._free_name(statement, "gpu", "gpu_device", "tf_gpu")}
        for form in option.forms:
            found = self._shape(form.shape, value, literal, names["gpus"])
            if found is not None:
                return form.template, form.applicability, {**names, **found}
        return option.native, option.applicability, names

    def _shape(self, shape: str, value: ast.expr, literal, gpus: str) -> dict | None:
        """The names a form's template needs when `value` has `shape`, else None."""
        if shape.startswith("== "):
            known = ast.literal_eval(shape[3:])
            return {} if type(literal) is type(known) and literal == known else None
        if shape == "digit string":
            return {"index": str(int(literal))} if isinstance(literal, str) and literal.strip().isdigit() else None
        if shape == "ascending digit list":
            if not isinstance(literal, str) or not re.fullmatch(r"\s*\d+(\s*,\s*\d+)+\s*", literal):
                return None
            indexes = [int(part) for part in literal.split(",")]
            if indexes != sorted(set(indexes)):
                return None
            return {"indexes": ", ".join(f"{gpus}[{i}]" for i in indexes)}
        if shape == "str(x)":
            if not (type(value) is ast.Call and "builtins.str" in self.analysis.qnames(value.func)
                    and len(value.args) == 1 and not value.keywords and type(value.args[0]) is not ast.Starred):
                return None
            inner = value.args[0]
            if type(inner) is ast.Constant and type(inner.value) is int:
                return {"index": str(inner.value)}
            return {"index": f"int({self.code(inner)})"}
        raise ValueError(f"unknown value shape {shape!r} in the option table")

    def _free_name(self, node: ast.AST, *candidates: str) -> str:
        scope = self.analysis.scope_of(node)
        for name in candidates:
            if scope is None or not scope.visible(name):
                return name
        return candidates[-1] + "_"

    def _render(self, template: str, value: ast.expr, tf: str, indent: str, names: dict[str, str]) -> str:
        """The template's code at `indent`, with this scope's TensorFlow name
        and the value as written (its own formatting and comments kept);
        nested template lines use the file's indentation step."""
        start, end = self.value_range(value)
        parenthesized = (start, end) != (self.source.start(value), self.source.end(value))
        value_text = self.source.text[start:end]
        if "({value})" not in template and not isinstance(value, _ATOMS) and not parenthesized:
            value_text = f"({value_text})"
        step = self.source.indent_unit
        lines = []
        for line in template.format(tf=tf, value=_VALUE, **{"index": "", "indexes": "", **names}).split("\n"):
            stripped = line.lstrip(" ")
            lines.append(indent + step * ((len(line) - len(stripped)) // 4) + stripped)
        return self.source.newline.join(lines).replace(_VALUE, value_text)

    # -- edits of expressions ----------------------------------------------------------

    def shim_call_edits(self, call: ast.Call, shim_name: str) -> list[Edit]:
        new = f"{SHIM_MODULE}.{shim_name}"
        edit = Edit(self.source.start(call.func), self.source.end(call.func), new)
        return [edit, *self.realign(call.func, len(new) - len(self.code(call.func)))]

    def configure_edit(self, call: ast.Call) -> Edit:
        """`enable_eager_execution(config=X)` -> `tfcompat_threads.configure(X)`."""
        from .sinks import eager_config

        argument = eager_config(call)
        value = argument.value if type(argument) is ast.keyword else argument
        return Edit(self.source.start(call), self.source.end(call), f"{SHIM_MODULE}.configure({self.code(value)})")

    def realign(self, node: ast.AST, delta: int) -> list[Edit]:
        """When `node` (renamed, `delta` characters longer) is the function of
        a call whose arguments go on over lines aligned after its bracket,
        those lines move with the bracket."""
        call = self.analysis.parents.get(node)
        if not delta or type(call) is not ast.Call or call.func is not node or call.end_lineno == node.end_lineno:
            return []
        source = self.source
        bracket = source.text.find("(", source.end(node))
        if bracket < 0 or source.position(bracket).line != node.end_lineno:
            return []
        column = bracket - source.line_start(bracket) + 1  # where aligned arguments start
        strings = [(source.start(n), source.end(n)) for n in ast.walk(call)
                   if type(n) in (ast.Constant, ast.JoinedStr) and n.end_lineno > n.lineno]
        edits = []
        for line in range(node.end_lineno + 1, call.end_lineno + 1):
            start = source.line_starts[line - 1]
            if any(low < start < high for low, high in strings):
                continue  # inside a multi-line string: its text, not its layout
            text = source.line_text(line)
            indent = len(text) - len(text.lstrip(" "))
            if not text.strip() or indent < column or indent < -delta:
                continue
            edits.append(Edit(start, start, " " * delta) if delta > 0 else Edit(start, start - delta, ""))
        return edits

_SIMPLE_ENDS: dict[str, bool] = {}


def _ends_simple(template: str) -> bool:
    """The template's last statement is a simple one (a comment can end its line)."""
    if template not in _SIMPLE_ENDS:
        body = ast.parse(opts.example(template)).body
        _SIMPLE_ENDS[template] = not isinstance(body[-1], (ast.For, ast.If, ast.With, ast.While))
    return _SIMPLE_ENDS[template]


def field_shown(field: Field, code) -> str:
    return f"{field.path} = {code(field.value)}" if field.value is not None else field.path


def _places(analysis, *texts: str) -> tuple[Place, ...]:
    """The lines of the repository's modules (those a flow was followed
    into) that the texts name: data on the finding."""
    if analysis.project is None or analysis.path is None:
        return ()
    paths = [str(analysis.path), *map(str, analysis.project.analysed())]
    return tuple(dict.fromkeys(found for text in texts for found in places_in(text, paths)))


def left_read(analysis, unit: Unit) -> tuple[str, int] | None:
    """The first name that a statement the fix replaces binds and a
    statement it keeps reads (a read that surely sees another binding of
    the name is not this one's), as (name, line of the read)."""
    for statement in unit.statements:
        targets = statement.targets if type(statement) is ast.Assign else [getattr(statement, "target", None)]
        scope = analysis.scope_of(statement)
        for target in targets:
            for node in ast.walk(target) if target is not None and scope is not None else ():
                if type(node) is not ast.Name:
                    continue
                bindings = scope.bindings.get(node.id, [])
                for binding in bindings:
                    if binding.node is not node:
                        continue
                    for read in analysis.references_of(binding):
                        if analysis.statement_of(read) in unit.statements or len(bindings) > 1 and (
                                seen_binding(analysis, read, statement, bindings) == reaching.OTHER):
                            continue
                        return node.id, read.lineno
    return None
