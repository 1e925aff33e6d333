"""Turn an Analysis into findings and edits for a target, and apply them.

Edits are keyed by ORIGINAL nodes: statements the native fix replaces,
expressions renamed (`tf.Session` -> `tf.compat.v1.Session`) or pointed at
the shim (`tf.ConfigProto(...)` -> `tfcompat_threads.ConfigProto(...)`).
Everything else is left as it was, byte for byte.
"""

from __future__ import annotations

import libcst as cst

from .. import options as opts
from ..options import Applicability
from . import symbols as sym
from .analysis import CONFIG_ONLY, UNFOLLOWED, Analysis, FieldSet, Unit
from .findings import Finding, Position
from .scopes import dotted

SHIM_MODULE = "tfcompat_threads"
SHIM_NAMES = {
    sym.CONFIG: "ConfigProto",
    sym.GPU_OPTIONS: "GPUOptions",
    "Session": "Session",
    "InteractiveSession": "InteractiveSession",
    sym.SET_SESSION: "set_session",
}
# `from <module> import <name>` bindings the rewrite may leave unused.
_REMOVABLE_FROM = {
    "tensorflow": set(sym.TF1_ONLY),
    "tensorflow.compat.v1": set(sym.TF1_ONLY),
    "keras": {"backend"},
    "tensorflow.keras": {"backend"},
    "tensorflow.python.keras": {"backend"},
    "tensorflow.compat.v1.keras": {"backend"},
    "keras.backend": {"set_session"},
    "keras.backend.tensorflow_backend": {"set_session"},
    "tensorflow.keras.backend": {"set_session"},
    "tensorflow.python.keras.backend": {"set_session"},
    "tensorflow.compat.v1.keras.backend": {"set_session"},
}
_REMOVABLE_MODULES = {"keras.backend", "tensorflow.keras.backend", "keras.backend.tensorflow_backend"}

_Item = cst.BaseStatement | str  # a statement, or a comment line to keep


class Plan:
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.statements: dict[cst.SimpleStatementLine, list[_Item]] = {}
        self.expressions: dict[cst.CSTNode, cst.BaseExpression] = {}
        self.add_imports: set[tuple[str, str | None]] = set()
        self.moved_imports: set[str] = set()
        """Names whose `from tensorflow import <name>` moves to tensorflow.compat.v1."""

    @property
    def changes(self) -> bool:
        return bool(self.statements or self.expressions or self.moved_imports)


class Planner:
    def __init__(self, analysis: Analysis, target: str, unsafe_fixes: bool, allow=None, rewrite=True) -> None:
        self.analysis = analysis
        self.target = target
        self.unsafe_fixes = unsafe_fixes
        self._renders = rewrite and target == "native"
        """Render the TF2 calls (not for check mode, nor for the shim target)."""
        self.allow = allow or (lambda code, line: True)
        """allow(code, line): False for findings that --select/--ignore or a
        noqa comment turn off; they are neither reported nor fixed."""
        self.plan = Plan()
        self._tf_bindings = self._tensorflow_bindings()
        self._needed_imports: set[tuple[str, str | None]] = set()
        """Imports the rendered TF2 calls need; added only with the edits that use them."""

    # -- findings --------------------------------------------------------------

    def report(
        self, code: str, node: cst.CSTNode, message: str, applicability: Applicability, fixed: bool
    ) -> bool:
        """Record a finding; False when it is turned off (then make no fix for it)."""
        where = self.analysis.position(node)
        if not self.allow(code, where.start.line):
            return False
        self.plan.findings.append(
            Finding(
                code,
                message,
                Position(where.start.line, where.start.column + 1),
                Position(where.end.line, where.end.column + 1),
                applicability,
                fixed,
            )
        )
        return True

    def code(self, node: cst.CSTNode) -> str:
        return self.analysis.module.code_for_node(node)

    # -- the plan ----------------------------------------------------------------

    def build(self) -> Plan:
        unit_calls: set[cst.CSTNode] = set()
        unfollowed_calls: set[cst.CSTNode] = set()
        for unit in self.analysis.units:
            if unit.status == CONFIG_ONLY:
                if self._config_only(unit):
                    unit_calls.update(unit.constructors + unit.sessions + unit.set_session_calls)
            elif unit.status == UNFOLLOWED:
                unfollowed_calls.update(unit.set_session_calls)
                if any(a.star == "**" for a in unit.config.args):
                    continue  # TFT102 says it
                self.report(
                    "TFT106",
                    unit.reason_node or unit.config,
                    f"this ConfigProto is not followed: {unit.reason}; its settings may do nothing on TF2",
                    Applicability.MANUAL,
                    False,
                )
        self._lint_calls(unit_calls | unfollowed_calls)
        if self.target == "shim":
            self._shim_calls(unit_calls)
        self._renames()
        return self.plan

    def _config_only(self, unit: Unit) -> bool:
        """Report a config-only unit and plan its native fix; False when its
        finding is turned off."""
        first_session = unit.sessions[0]
        kind = self.analysis.symbol(first_session.func).name
        items, applicability, dropped = self._native_items(unit)
        fixed = self.target == "shim" or applicability is Applicability.SAFE or self.unsafe_fixes
        for field_set, path, shown in dropped:
            self.report(
                "TFT101",
                field_set.node,
                f"{shown}: no TF2 eager equivalent ({(opts.lookup(path) or _UNKNOWN).notes})",
                Applicability.MANUAL,
                False,
            )
        for field_set in unit.field_sets:
            late = self._thread_fields(field_set) and self.analysis.first_op_before(field_set.node)
            if late:
                applicability = Applicability.UNSAFE
                fixed = self.target == "shim" or self.unsafe_fixes
                line = self.analysis.position(late).start.line
                self.report(
                    "TFT104",
                    field_set.node,
                    f"thread settings come after TensorFlow ran an op (line {line}): on TF2 the pools "
                    "are fixed by then and setting them raises",
                    Applicability.MANUAL,
                    False,
                )
        how = "the TF2 calls" if self.target == "native" else "tfcompat_threads"
        allowed = self.report(
            "TFT001",
            first_session,
            f"{kind} made only to carry its config: on TF2 its settings do nothing for eager ops "
            f"(fix: {how})",
            Applicability.SAFE if self.target == "shim" else applicability,
            fixed,
        )
        if allowed and fixed and self.target == "native":
            self.plan.statements.update(items)
            self.plan.add_imports |= self._needed_imports
        self._needed_imports.clear()
        return allowed

    @staticmethod
    def _thread_fields(field_set: FieldSet) -> bool:
        return any(path in opts.THREAD_FIELDS for path, _, _ in field_set.fields)

    def _native_items(self, unit: Unit):
        """Replacement of every statement of a config-only unit: the TF2 calls of
        the fields it set, and the helper calls it made, in source order, each
        after the comments that were written beside it."""
        applicability = Applicability.SAFE
        dropped = []
        items: dict[cst.SimpleStatementLine, list[_Item]] = {}
        for statement in unit.statements:
            located = [(fs.node, fs) for fs in unit.field_sets if fs.statement is statement]
            located += [(c, c) for c in unit.helper_calls if self.analysis.statement_of(c) is statement]
            located.sort(key=lambda pair: self._sort_key(pair[0]))
            carriers = [f[2] for _, fs in located if isinstance(fs, FieldSet) for f in fs.fields if f[2]]
            claimed = {id(c) for carrier in carriers for c in sum(self._carrier_comments(carrier), [])}
            out: list[_Item] = [
                c.value for c in _comments(*statement.body, statement.trailing_whitespace) if id(c) not in claimed
            ]
            for _, thing in located:
                if isinstance(thing, cst.Call):
                    out.append(cst.SimpleStatementLine([cst.Expr(thing)]))
                    continue
                for path, value, carrier in thing.fields:
                    above, inline = self._carrier_comments(carrier) if carrier else ([], [])
                    out += [c.value for c in above]
                    option = opts.lookup(path)
                    if option is None or not option.mappable or value is None:
                        out += [c.value for c in inline]
                        shown = f"{path} = {self.code(value)}" if value is not None else path
                        dropped.append((thing, path, shown))
                        applicability = Applicability.UNSAFE
                        out.append(f"# tfcompat-threads TFT101: {' '.join(shown.split())} has no TF2 equivalent")
                        continue
                    template = self._template(option, value)
                    if template is option.native and option.applicability is Applicability.UNSAFE:
                        applicability = Applicability.UNSAFE
                    rendered = self._render(template, value, statement) if self._renders else []
                    if len(inline) == 1 and rendered and isinstance(rendered[-1], cst.SimpleStatementLine):
                        rendered[-1] = rendered[-1].with_changes(
                            trailing_whitespace=cst.TrailingWhitespace(cst.SimpleWhitespace("  "), inline[0])
                        )
                    else:
                        out += [c.value for c in inline]
                    out.extend(rendered)
            items[statement] = out
        return items, applicability, dropped

    def _carrier_comments(self, carrier: cst.CSTNode) -> tuple[list[cst.Comment], list[cst.Comment]]:
        """Comments that go with one argument (or dict entry) of a call: those
        on their own lines just above it (which libcst keeps after the previous
        comma), and those inside it or at the end of its line."""
        parent = self.analysis.parents.get(carrier)
        siblings = list(getattr(parent, "args", None) or getattr(parent, "elements", None) or [carrier])
        index = siblings.index(carrier)
        above: list[cst.Comment] = []
        if index > 0:
            above = _comments(*getattr(_comma_whitespace(siblings[index - 1]), "empty_lines", ()))
        parts = [getattr(carrier, name) for name in _CARRIER_PARTS if isinstance(getattr(carrier, name, None), cst.CSTNode)]
        comma = carrier.comma if isinstance(getattr(carrier, "comma", None), cst.Comma) else None
        if comma is not None:
            parts.append(comma.whitespace_before)
            after = comma.whitespace_after
            parts.append(after.first_line if isinstance(after, cst.ParenthesizedWhitespace) else after)
        return above, _comments(*parts)

    def _sort_key(self, node):
        start = self.analysis.position(node).start
        return (start.line, start.column)

    def _template(self, option: opts.Option, value: cst.BaseExpression) -> str:
        literal = self.analysis.literal(value)
        for known, template in option.literals:
            if type(literal) is type(known) and literal == known:
                return template
        return option.native

    def _render(self, template: str, value: cst.BaseExpression, statement) -> list[cst.BaseStatement]:
        """The template's statements with the TensorFlow name of this scope and
        the original value node (its own formatting and comments kept)."""
        if not template:
            return []
        if "({value})" not in template and not isinstance(value, _ATOMS) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        parsed = _parsed_template(template, self._tf_alias(statement), self.analysis.module.config_for_parsing)
        return [line.visit(_PutValue(value)) for line in parsed]

    # -- names of TensorFlow in scope ---------------------------------------------------

    def _tensorflow_bindings(self) -> list[tuple[str, cst.CSTNode]]:
        """(bound name, import node) for imports that bind TensorFlow's module,
        plain tensorflow first."""
        plain, compat = [], []
        for node in self.analysis.imports:
            if isinstance(node, cst.Import):
                for alias in node.names:
                    name = dotted(alias.name)
                    bound = alias.asname.name.value if alias.asname else name.split(".")[0]
                    if name == "tensorflow" or (name.startswith("tensorflow.") and not alias.asname):
                        plain.append((bound, node))
                    elif name == "tensorflow.compat.v1":
                        compat.append((bound, node))
            elif not isinstance(node.names, cst.ImportStar) and node.module is not None:
                module = dotted(node.module)
                for alias in node.names:
                    if module == "tensorflow.compat" and dotted(alias.name) == "v1":
                        compat.append((alias.asname.name.value if alias.asname else "v1", node))
        return plain + compat

    def _tf_alias(self, node: cst.CSTNode) -> str:
        first = node.body[0] if isinstance(node, cst.SimpleStatementLine) else node
        scope = self.analysis.scope_of(first)
        for name, import_node in self._tf_bindings:
            if scope is not None and any(b.node is import_node for b in scope.visible(name)):
                return name
        for name in ("tf", "tensorflow"):
            if scope is None or not scope.visible(name):
                self._needed_imports.add(("tensorflow", None if name == "tensorflow" else name))
                return name
        raise CannotRewrite("no free name for TensorFlow here: `tf` and `tensorflow` are both taken")

    # -- lint-only findings ---------------------------------------------------------------

    def _lint_calls(self, unit_calls: set[cst.CSTNode]) -> None:
        for call, symbol in self.analysis.calls:
            if symbol.name == sym.CONFIG and any(arg.star == "**" for arg in call.args):
                self.report(
                    "TFT102",
                    call,
                    "ConfigProto(**kwargs): the fields are only known at run time; "
                    "tfcompat_threads.configure() applies them",
                    Applicability.MANUAL,
                    False,
                )
            elif symbol.name == sym.ENABLE_EAGER and any(
                (a.keyword and a.keyword.value == "config") or (a.keyword is None and i == 0)
                for i, a in enumerate(call.args)
            ):
                self.report(
                    "TFT103",
                    call,
                    "enable_eager_execution(config=...) ignores its config on TF2 (eager is already on)",
                    Applicability.MANUAL,
                    False,
                )
            elif symbol.name in sym.THREAD_SETTERS and (late := self.analysis.first_op_before(call)):
                self.report(
                    "TFT104",
                    call,
                    f"{symbol.name.rsplit('.', 1)[1]}() after TensorFlow ran an op "
                    f"(line {self.analysis.position(late).start.line}): it raises RuntimeError on TF2",
                    Applicability.MANUAL,
                    False,
                )
            elif symbol.name == sym.SET_SESSION and call not in unit_calls:
                self.report(
                    "TFT105",
                    call,
                    "set_session with a session that is not config-only here (it runs graphs, or is made "
                    "elsewhere): Keras 3 (TF >= 2.16) has no set_session",
                    Applicability.MANUAL,
                    False,
                )
            elif symbol.name == "estimator.RunConfig" and any(
                a.keyword and a.keyword.value == "session_config" for a in call.args
            ):
                self.report(
                    "TFT107",
                    call,
                    "tf.estimator is gone in TF 2.16; until then RunConfig(session_config=...) is honoured",
                    Applicability.MANUAL,
                    False,
                )

    # -- shim target ------------------------------------------------------------------

    def _shim_calls(self, unit_calls: set[cst.CSTNode]) -> None:
        for call, symbol in self.analysis.calls:
            shim_name = SHIM_NAMES.get(symbol.name)
            if shim_name is None:
                continue
            in_unit = call in unit_calls
            plain_tf1 = symbol.of_tensorflow and not symbol.compat
            if not (in_unit or plain_tf1):
                continue  # compat.v1 used as graph code, or multi-backend Keras: left alone
            if not in_unit and not self.report(
                "TFT002",
                call.func,
                f"{self.code(call.func)} does not exist on TF2 (fix: tfcompat_threads.{shim_name})",
                Applicability.SAFE,
                True,
            ):
                continue
            self.plan.expressions[call.func] = cst.Attribute(cst.Name(SHIM_MODULE), cst.Name(shim_name))
            self.plan.add_imports.add((SHIM_MODULE, None))

    # -- TF1-only names ---------------------------------------------------------------------

    def _renames(self) -> None:
        replaced = set(self.plan.statements)
        for node, symbol in self.analysis.references:
            if symbol.name not in sym.TF1_ONLY or symbol.compat or not symbol.of_tensorflow:
                continue
            if node in self.plan.expressions or _inside_any(self.analysis, node, replaced):
                continue
            parent = self.analysis.parents.get(node)
            if isinstance(parent, cst.Attribute) and parent.value is node:
                continue  # the outer attribute is the name
            if isinstance(node, cst.Name):
                continue  # bound by `from tensorflow import X`: the import is renamed
            root = node
            while isinstance(root, cst.Attribute):
                root = root.value
            rooted = self.analysis.qnames(root) == {"tensorflow"}
            alias = self.code(root) if rooted else self._tf_alias(self.analysis.statement_of(node))
            if self.report(
                "TFT002",
                node,
                f"{self.code(node)} does not exist on TF2 (fix: {alias}.compat.v1.{symbol.name})",
                Applicability.SAFE,
                True,
            ):
                self.plan.add_imports |= self._needed_imports
                self.plan.expressions[node] = cst.parse_expression(f"{alias}.compat.v1.{symbol.name}")
            self._needed_imports.clear()
        edited = set(self.plan.statements) | set(self.plan.expressions)
        for node in self.analysis.imports:
            if not isinstance(node, cst.ImportFrom):
                continue
            for alias in _tf1_only_aliases(self.analysis, node):
                bound = alias.asname.name.value if alias.asname else dotted(alias.name)
                if not binding_used_outside(self.analysis, node, bound, edited):
                    continue  # every use is rewritten: the import goes
                name = dotted(alias.name)
                if self.report(
                    "TFT002",
                    alias,
                    f"`from tensorflow import {name}` fails on TF2 (fix: import it from tensorflow.compat.v1)",
                    Applicability.SAFE,
                    True,
                ):
                    self.plan.moved_imports.add(name)

class CannotRewrite(Exception):
    """The fix needs a name for TensorFlow and every candidate is taken."""


_UNKNOWN = opts.Option("?", "manual", None, "-", Applicability.MANUAL, opts.Timing.GRAPH_ONLY, "not a known field")


def _tf1_only_aliases(analysis: Analysis, node: cst.ImportFrom) -> list[cst.ImportAlias]:
    if node.module is None or node.relative or isinstance(node.names, cst.ImportStar):
        return []
    if dotted(node.module) != "tensorflow":
        return []
    return [a for a in node.names if dotted(a.name) in sym.TF1_ONLY]


# -- applying a plan ------------------------------------------------------------------------


class _Rewriter(cst.CSTTransformer):
    """Applies a plan; walks only into subtrees that hold an edit."""

    def __init__(self, plan: Plan, dirty: set) -> None:
        super().__init__()
        self.plan = plan
        self.dirty = dirty

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node in self.dirty

    def leave_Name(self, original, updated):
        return self.plan.expressions.get(original, updated)

    def leave_Attribute(self, original, updated):
        return self.plan.expressions.get(original, updated)

    def leave_IndentedBlock(self, original, updated):
        if original not in self.dirty:
            return updated
        body, footer = self._body(original.body, updated.body, block=True)
        return updated.with_changes(body=body, footer=[*footer, *updated.footer])

    def leave_Module(self, original, updated):
        body, footer = self._body(original.body, updated.body, block=False)
        return updated.with_changes(body=body, footer=[*footer, *updated.footer])

    def _body(self, originals, updated, block: bool):
        body: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for original, current in zip(originals, updated):
            items = self.plan.statements.get(original)
            if items is None:
                body.append(_with_leading(current, pending) if pending else current)
                pending = []
                continue
            pending += original.leading_lines
            for item in items:
                if isinstance(item, str):
                    pending.append(cst.EmptyLine(comment=cst.Comment(item)))
                else:
                    body.append(_with_leading(item, pending))
                    pending = []
        if block and not body:
            body.append(_with_leading(cst.SimpleStatementLine([cst.Pass()]), pending))
            pending = []
        return body, pending


def _with_leading(statement: cst.BaseStatement, lines: list[cst.EmptyLine]) -> cst.BaseStatement:
    return statement.with_changes(leading_lines=[*lines, *statement.leading_lines])


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)
_VALUE = "tfcompat_threads_value"
_TEMPLATES: dict[tuple, list[cst.BaseStatement]] = {}


def _parsed_template(template: str, tf: str, config) -> list[cst.BaseStatement]:
    """Parsed once per template, TensorFlow name and file style (newline, indent)."""
    key = (template, tf, config.default_newline, config.default_indent)
    if key not in _TEMPLATES:
        text = template.format(tf=tf, value=_VALUE) + "\n"
        _TEMPLATES[key] = list(cst.parse_module(text, config=config).body)
    return _TEMPLATES[key]


class _PutValue(cst.CSTTransformer):
    def __init__(self, value: cst.BaseExpression) -> None:
        super().__init__()
        self.value = value

    def leave_Name(self, original, updated):
        return self.value if original.value == _VALUE else updated


_CARRIER_PARTS = (
    "keyword", "equal", "value", "whitespace_after_star", "whitespace_after_arg",
    "key", "whitespace_before_colon", "whitespace_after_colon",
)


def _comma_whitespace(node: cst.CSTNode):
    comma = getattr(node, "comma", None)
    return comma.whitespace_after if isinstance(comma, cst.Comma) else None


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found.append(node)


def _comments(*nodes: cst.CSTNode) -> list[cst.Comment]:
    """Comment nodes inside `nodes`, in order."""
    collector = _Comments()
    for node in nodes:
        node.visit(collector)
    return collector.found


def apply(analysis: Analysis, plan: Plan) -> cst.Module:
    """The module with the plan's edits; import statements edited exactly
    (names the edits left unused go, TF1-only names move to
    tensorflow.compat.v1, needed imports come after the module's imports),
    decided from the codemod's own scope analysis rather than by libcst's
    import visitors, which resolve every scope of the module again."""
    module = analysis.module
    if not plan.changes:
        return module
    _plan_import_edits(analysis, plan)
    targets = list(plan.statements) + list(plan.expressions)
    rewritten = module.visit(_Rewriter(plan, _with_ancestors(analysis, targets)))
    wanted = [imp for imp in sorted(plan.add_imports, key=str) if not _imported(rewritten, *imp)]
    return _add_imports(rewritten, wanted) if wanted else rewritten


def _with_ancestors(analysis: Analysis, nodes) -> set:
    found: set = set()
    for node in nodes:
        while node is not None and node not in found:
            found.add(node)
            node = analysis.parents.get(node)
    return found


def _plan_import_edits(analysis: Analysis, plan: Plan) -> None:
    edited = set(plan.statements) | set(plan.expressions)
    for node in analysis.imports:
        line = analysis.editable_statement(node)
        if line is None or line in plan.statements or isinstance(node.names, cst.ImportStar):
            continue
        unused = {id(alias) for alias in _removable(analysis, node, edited)}
        kept = [alias for alias in node.names if id(alias) not in unused]
        moved = []
        if isinstance(node, cst.ImportFrom) and not node.relative and dotted(node.module) == "tensorflow":
            moved = [a for a in kept if dotted(a.name) in plan.moved_imports]
            kept = [a for a in kept if a not in moved]
        if len(kept) == len(node.names):
            continue
        statements = []
        if kept:
            statements.append(_import_line(line, node, kept))
        if moved:
            compat = cst.ImportFrom(module=cst.parse_expression("tensorflow.compat.v1"), names=moved)
            statements.append(_import_line(line, compat, moved, keep_whitespace=not kept))
        plan.statements[line] = statements


def _import_line(line: cst.SimpleStatementLine, node, names, keep_whitespace: bool = True):
    names = [*names[:-1], names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    if isinstance(node, cst.ImportFrom) and node.rpar is not None and len(names) == 1:
        node = node.with_changes(lpar=None, rpar=None)
    statement = line.with_changes(body=[node.with_changes(names=names)], leading_lines=())
    return statement if keep_whitespace else statement.with_changes(trailing_whitespace=cst.TrailingWhitespace())


def _removable(analysis: Analysis, node, edited: set) -> list[cst.ImportAlias]:
    """Aliases of session-config imports that only the edits used: after
    them nothing uses the name. Imports unused before stay."""
    found = []
    if isinstance(node, cst.ImportFrom):
        if node.module is None or node.relative:
            return []
        module = dotted(node.module)
        candidates = [a for a in node.names if dotted(a.name) in _REMOVABLE_FROM.get(module, ())]
    else:
        candidates = [a for a in node.names if dotted(a.name) in _REMOVABLE_MODULES]
    for alias in candidates:
        if alias.asname is not None:
            bound = alias.asname.name.value
        elif isinstance(node, cst.ImportFrom):
            bound = dotted(alias.name)
        else:
            bound = dotted(alias.name).split(".")[0]
        references = _references(analysis, node, bound)
        if references and not any(not _inside_any(analysis, n, edited) for n in references):
            found.append(alias)
    return found


def _imported(module: cst.Module, name: str, asname: str | None) -> bool:
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import) and any(
                    dotted(a.name) == name and (a.asname.name.value if a.asname else None) == asname
                    for a in small.names
                ):
                    return True
    return False


def _add_imports(module: cst.Module, wanted: list[tuple[str, str | None]]) -> cst.Module:
    """`import name [as asname]` after the imports at the top of the module."""
    body = list(module.body)
    start = 1 if body and _is_docstring(body[0]) else 0
    end = start
    while end < len(body) and _is_import_line(body[end]):
        end += 1
    new = [
        cst.SimpleStatementLine(
            [cst.Import([cst.ImportAlias(cst.parse_expression(name), cst.AsName(cst.Name(asname)) if asname else None)])]
        )
        for name, asname in wanted
    ]
    if end == start and end < len(body) and not body[end].leading_lines:
        body[end] = body[end].with_changes(leading_lines=[cst.EmptyLine()])
    body[end:end] = new
    return module.with_changes(body=body)


def _is_docstring(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_import_line(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def _references(analysis: Analysis, import_node, bound: str) -> list[cst.CSTNode]:
    scope = analysis.scope_of(import_node)
    if scope is None:
        return []
    return [name for b in scope.bindings.get(bound, []) if b.node is import_node for name in b.references]


def _inside_any(analysis: Analysis, node: cst.CSTNode, edited: set) -> bool:
    while node is not None:
        if node in edited:
            return True
        node = analysis.parents.get(node)
    return False


def binding_used_outside(analysis: Analysis, import_node, bound: str, edited: set) -> bool:
    return any(not _inside_any(analysis, n, edited) for n in _references(analysis, import_node, bound))
