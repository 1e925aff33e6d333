"""Check and fix one module: every rule's findings, one filtering pass
(select, ignore, noqa, unsafe), then the kept fixes applied as edits onto the
original bytes. `check`, `diff` and `fix` all go through `run`, so what
`check` marks fixable is exactly what `fix` applies."""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Callable
from typing import NamedTuple
from pathlib import Path

from ..options import Applicability
from . import leftover
from .analysis import Analysis
from .context import Context, StatementEdit
from .findings import EnsureImport, Finding, MoveImport
from .source import Edit, Source, SourceError

TARGETS = ("native", "shim")
ALL = "ALL"
_NOQA = re.compile(
    r"#\s*(?:noqa(?::\s*(?P<noqa>[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*))?"
    r"|tfcompat:\s*ignore\[(?P<ignore>[^\]]*)\])",
    re.I,
)
MAX_ROUNDS = 4


class Outcome:
    """What `run` found and made. `findings`: at their places in the bytes
    given, each `fixed` when its fix is (or, without `fix`, would be)
    applied. `remaining`: after `fix`, the findings of the new bytes (None
    when nothing was fixed: then they are the findings not fixed)."""

    __slots__ = ("findings", "source", "remaining", "problems", "tree", "outside")

    def __init__(self, findings: list[Finding], source: bytes, remaining: list[Finding] | None = None) -> None:
        self.findings = findings
        self.source = source
        self.remaining = remaining if remaining is not None else [f for f in findings if not f.fixed]
        self.problems: list[SourceError] = []
        """Unknown codes in noqa comments: the module is an error, not
        rewritten, and its findings are still reported (as ruff warns and goes on)."""
        self.tree = None
        """The fixed module's `ast`, when the run parsed it (to check that it parses): read it there."""
        self.outside = None
        """With `fix`: `tf.NAME` -> uses of each TF1-only name outside session
        config the module still uses (codemod/leftover.py); else None."""


def lint(source: Source, target: str, path: str | None = None,
         tf_version: str | None = None, build: str | None = None) -> tuple[Context, list[Finding]]:
    """Every finding of every rule, with its fix, unfiltered. `path`: the file,
    whose repository's other modules a flow may be followed into.
    `tf_version`: the oldest TensorFlow ("X.Y") the fixed code must run on."""
    from .project import Project
    from .rules import RULES, SEVERITIES

    project = Project.of(path)
    if project is not None:
        project.begin()
    analysis = Analysis(source, project, Path(path).resolve() if project is not None else None)
    context = Context(source, analysis, target, tf_version, SEVERITIES, build)
    findings = [finding for rule in RULES.values() for finding in rule.check(context)]
    regions = context.tf1_regions
    if regions:  # code that only runs on TF1 is right where it runs: no finding, no change
        from .guards import Spans

        covered = Spans(regions)
        findings = [f for f in findings if not _in_tf1_code(source, f, covered)]
    findings.sort(key=Finding.sort_key)
    return context, findings


def _in_tf1_code(source: Source, finding: Finding, covered) -> bool:
    start = source.line_starts[finding.start.line - 1] + finding.start.column - 1
    edits = [e for e in (finding.fix.edits if finding.fix else ()) if isinstance(e, (Edit, StatementEdit))]
    spans = [(start, start + 1), *((e.start, max(e.end, e.start + 1)) for e in edits)]
    return any(covered.meets(start_, end) for start_, end in spans)


def suppressions(text: str) -> dict[int, set[str]]:
    """Line -> codes turned off there by `# noqa: CODE`, `# tfcompat: ignore[CODE]`
    (old codes through the rules' redirects); a bare `# noqa` turns off all.
    A code of this tool's (TFT...) that no rule has turns nothing off
    (`unknown_codes` reports it). Other linters' codes are theirs."""
    found: dict[int, set[str]] = {}
    for number, _, code in _noqa_codes(text):
        if code is None:
            found.setdefault(number, set()).add(ALL)
        elif code:
            found.setdefault(number, set()).add(code)
    if found:  # a line that ends inside a string or after a backslash: the comment is where its line goes on
        for line, comment_line in comment_lines(text).items():
            if comment_line in found:
                found.setdefault(line, set()).update(found[comment_line])
    return found


def comment_lines(text: str) -> dict[int, int]:
    """Line -> the line whose end can hold its comment, for each line that
    cannot (it ends inside a string, or with a backslash), as Python's
    tokenizer sees them (ruff's noqa mapping)."""
    import io
    import tokenize

    ends = []
    try:  # lines as Python counts them (\n, \r\n, \r), as Source and _comments count them
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                ends.append(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        return {}
    out = {}
    previous = 0
    for end in sorted(set(ends)):
        for line in range(previous + 1, end):
            out[line] = end
        previous = end
    return out


def noqa_edits(source: Source, findings: list[Finding]) -> list[Edit]:
    """The edits that add `# noqa: CODE` for each finding: on the line that
    can hold a comment, merged into a noqa comment already there (a real
    comment, never text inside a string), else at the end of the line."""
    mapped = comment_lines(source.text)
    wanted: dict[int, list[str]] = {}
    for finding in findings:
        codes = wanted.setdefault(mapped.get(finding.noqa_row, finding.noqa_row), [])
        if finding.code not in codes:
            codes.append(finding.code)
    comments = {line: (source.line_starts[line - 1] + column, comment)
                for line, column, comment in _comments(source.text)}
    edits = []
    for line, codes in sorted(wanted.items()):
        listed = ", ".join(sorted(codes))
        comment = comments.get(line)
        match = _NOQA.search(comment[1]) if comment is not None else None
        if match is not None and match.group("noqa") is not None:
            at = comment[0] + match.end("noqa")
            edits.append(Edit(at, at, f", {listed}"))
        elif match is not None and match.group("ignore") is not None:
            at = comment[0] + match.end("ignore")
            edits.append(Edit(at, at, f", {listed}" if match.group("ignore").strip() else listed))
        else:
            text = source.line_text(line)
            at = source.line_starts[line - 1] + len(text.rstrip())
            edits.append(Edit(at, at, f"  # noqa: {listed}"))
    return edits


def unknown_codes(text: str) -> list[SourceError]:
    """A SourceError for each code of this tool's (TFT...) in a noqa comment
    that no rule has, with the code it is closest to: a typo must not look
    like a suppression (the file is an error; its findings are still shown)."""
    from .rules import UnknownCode, expand

    errors = []
    for number, column, code in _noqa_codes(text):
        if code is not None and code.startswith(_UNKNOWN):
            code = code[len(_UNKNOWN):]
            try:
                expand(code)
                hint = ""  # a prefix: noqa takes whole codes
            except UnknownCode as error:
                hint = str(error).partition(";")[2]
            errors.append(SourceError(number, column,
                                      f"unknown rule code {code} in a noqa comment;{hint or ' give a whole code'}"))
    return errors


_UNKNOWN = "?"


def _noqa_codes(text: str):
    """(line, column of the comment, code) of each code of each noqa comment:
    the code through the rules' redirects, None for a bare `# noqa`, `?CODE`
    for a TFT code no rule has."""
    if "noqa" not in text.lower() and "tfcompat:" not in text:
        return
    from .rules import REDIRECTS, RULES

    for number, column, comment in _comments(text):
        for match in _NOQA.finditer(comment):
            codes = match.group("noqa") if match.group("noqa") is not None else match.group("ignore")
            at = column + match.start() + 1
            if codes is None:
                yield number, at, None
                continue
            for code in codes.split(","):
                code = code.strip().upper()
                if code.startswith("TFT") and code not in RULES and code not in REDIRECTS:
                    yield number, at, _UNKNOWN + code
                elif code:
                    yield number, at, REDIRECTS.get(code, code)


def _comments(text: str):
    """(line, column, text) of each comment, as Python's tokenizer finds
    them: `s = '# noqa'` holds none. Lines are counted as Python counts
    them (\n, \r\n, \r; a form feed or U+2028 ends none)."""
    import io
    import tokenize

    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.start[1], token.string
    except (tokenize.TokenError, SyntaxError):  # the parser, not this, reports code that does not parse
        return


def select(findings: list[Finding], wants: Callable[[str], bool], noqa: dict[int, set[str]],
           unsafe_fixes: bool) -> list[Finding]:
    """The findings to report, each marked `fixed` when `fix` applies its fix.
    A finding covered by others (their fix makes it moot) goes when they are
    kept (and, for "fixed", applied)."""
    kept = []
    for finding in findings:
        codes = noqa.get(finding.noqa_row, ())
        if wants(finding.code) and ALL not in codes and finding.code not in codes:
            kept.append(finding)
    reported = {f.key for f in kept if f.key}
    applied = {f.key for f in kept if f.key and _applies(f, unsafe_fixes)}
    out = []
    for finding in kept:
        cover = finding.cover
        if cover is not None and all(k in (applied if cover.when == "fixed" else reported) for k in cover.keys):
            continue
        finding.fixed = _applies(finding, unsafe_fixes)
        out.append(finding)
    return out


def _applies(finding: Finding, unsafe_fixes: bool) -> bool:
    fix = finding.fix
    return fix is not None and (fix.applicability is Applicability.SAFE or (
        unsafe_fixes and fix.applicability is Applicability.UNSAFE))


class Module:
    """A .py file as the engine reads and edits it. A notebook has its own
    (`lint/notebooks.py`): the same two methods over its code cells."""

    exact = True
    """Its new bytes are the edits applied to its text (a notebook's module
    may differ in line endings): findings left move as the edits say."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def code(self) -> bytes:
        return self.data

    def apply(self, source: Source, edits: list) -> bool:
        new = source.apply(edits)
        newline = source.newline.encode()
        if not source.data.endswith((b"\n", b"\r")) and new.endswith(newline) and any(
            e.end == len(source.text) for e in edits
        ):
            new = new[: -len(newline)]  # no final line ending before: none after
        changed = new != self.data
        self.data = new
        return changed


class LintOptions(NamedTuple):
    """How one module is linted and fixed: `run`'s keyword arguments, as one
    value (see _run)."""

    target: str = "native"
    wants: Callable[[str], bool] | None = None
    unsafe_fixes: bool = False
    fix: bool = True
    noqa: bool = True
    path: str | None = None
    memo: object = None
    add_noqa: bool = False
    tf_version: str | None = None
    build: str | None = None
    """"openmp": the project declares an OpenMP build of TensorFlow (intel-tensorflow)."""
    leftover: bool = False
    """With `fix`: count the TF1-only names outside session config the fixed module uses (`Outcome.outside`)."""
    trial: bool = False
    """With `fix`: a run that only tells whether the fix applies (a notebook's
    check, lint/notebooks.py): a fix that one round made whole is not parsed
    again, as a check of a .py file never parses one (`fix` does, and writes
    nothing that does not parse)."""


def run(document: bytes | Module, target: str = "native", filename: str | None = None, **options) -> Outcome:
    """Findings of one module and, with `fix`, the fixed module (see _run)."""
    with collector_paused():
        return _run(document, filename, LintOptions(target, **options))


@contextlib.contextmanager
def collector_paused():
    """The cyclic garbage collector waits meanwhile: trees and notebook
    documents are acyclic, and its passes over hundreds of thousands of
    nodes (or a notebook's megabytes of outputs) cost more than the work."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _run(document: bytes | Module, filename: str | None, options: LintOptions) -> Outcome:
    """Findings of one module and, with `fix`, the fixed module (a .py file's
    bytes, or a `Module`-like document such as a notebook, edited in place).
    Raises SourceError for code that cannot be decoded or parsed, and never
    hands back code that does not parse (but a `trial`'s, never written).
    Options: `path`: the file on disk, when `filename` is not it (a
    notebook's module). `wants`: the codes to report
    (default: the rules on by default). `memo` (lint/cache.py): the first
    round's findings and edits, kept by an earlier run of the same settings
    when the module's bytes and everything its analysis read are unchanged.
    `tf_version`: the oldest TensorFlow ("X.Y") the fixed code must run on
    (None: the newest names)."""
    target, wants, unsafe_fixes, fix, noqa, path, memo, add_noqa, tf_version, build, counting, trial = options
    counting = counting and fix and not add_noqa
    if wants is None:
        from .rules import DEFAULT

        wants = DEFAULT.__contains__
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
    module = Module(document) if isinstance(document, bytes) else document

    def round_(source: Source) -> tuple[Context, list[Finding]]:
        context, found = lint(source, target, path or filename, tf_version, build)
        return context, select(found, wants, suppressions(source.text) if noqa else {}, unsafe_fixes)

    if add_noqa:
        fix, memo = False, None
    code = module.code()
    problems = unknown_codes(Source(code, filename, parse=False).text) if noqa and _has_noqa(code) else []
    if problems:
        fix = False  # what the comment meant to turn off is unclear: nothing is rewritten
    context, findings, planned, left = None, None, None, None
    if memo is not None:
        findings, planned, left = memo.recall(code) or (None, None, None)
        if fix and planned is None and findings is not None and any(f.fixed for f in findings):
            findings = None  # kept by a check that did not plan the fix (it needs libcst): lint again
    if findings is None:
        with memo.recording() if memo is not None else contextlib.nullcontext():
            context, findings = round_(Source(code, filename))
            if memo is not None and any(f.fixed for f in findings):
                planned = _plan(context, findings, rewrite_imports=fix)
        if counting or (memo is not None and memo.wants_left):
            left = leftover.left_in(context.analysis.names, context.source)
        if memo is not None:
            memo.keep(code, findings, planned, left)
    if problems:
        for finding in findings:
            finding.fixed = False
        outcome = Outcome(findings, code)
        outcome.problems = problems
        outcome.outside = _left_as_is(left, code, filename) if counting else None
        return outcome
    if add_noqa:  # exactly the findings check shows; those they covered may show after (remaining)
        for finding in findings:
            finding.fixed = False
        source = Source(module.code(), filename, parse=False)
        if not findings or not module.apply(source, noqa_edits(source, findings)):
            return Outcome(findings, code, [])
        _, left = round_(_reparsed(module.code(), filename))
        return Outcome(findings, module.code(), left)
    if not fix or not any(f.fixed for f in findings):
        outcome = Outcome(findings, code)
        outcome.outside = _left_as_is(left, code, filename) if counting else None
        return outcome
    first = final = findings
    for _ in range(MAX_ROUNDS):
        edits, skipped = planned if final is first and planned is not None else apply(
            context, [f for f in final if f.fixed])
        for finding in skipped:
            finding.fixed = False
        before = context.source if context is not None else Source(code, filename, parse=False)
        if not module.apply(before, edits):
            break
        if not skipped and module.exact:  # one round did it: no need to read it all again
            if trial:
                return Outcome(first, module.code())
            new = _reparsed(module.code(), filename)
            outcome = Outcome(first, module.code(), _moved(before, new, edits, [f for f in final if not f.fixed]))
            outcome.tree = new.tree
            if counting:
                counted = leftover.after(left, before.text, edits, new.text) if left is not None else None
                outcome.outside = counted if counted is not None else leftover.in_tree(new.tree)
            return outcome
        context, final = round_(_reparsed(module.code(), filename))
        if not any(f.fixed for f in final):
            break
    written = module.code()
    if final is first:
        outcome = Outcome(first, written)
    else:
        for finding in final:
            finding.fixed = False
        outcome = Outcome(first, written, final)
    if counting:
        outcome.outside = _left_as_is(left if written == code else None, written, filename)
    return outcome


def _left_as_is(left: leftover.Left | None, code: bytes, filename: str | None):
    """The TF1-only names outside session config a module uses, from its
    `left` when there is one, else read from `code` (codemod/leftover.py)."""
    if left is not None:
        return leftover.counted(left)
    if not leftover.may_name(code):
        return leftover.counted(leftover.NOTHING)
    return leftover.in_tree(Source(code, filename).tree)


def _has_noqa(code: bytes) -> bool:
    """A noqa or tfcompat comment may be there (an ASCII-only lowering: two
    substring scans, ~8x faster than a case-blind regular expression)."""
    lowered = code.lower()
    return b"noqa" in lowered or b"tfcompat:" in lowered


def _plan(context: Context, findings: list[Finding], rewrite_imports: bool):
    """The first round's edits and skipped findings, for the memo. `check`
    (which never loads libcst) keeps None where an import statement must be
    rewritten, or where planning fails: `fix` plans that file itself."""
    try:
        return apply(context, [f for f in findings if f.fixed], rewrite_imports)
    except _Unplanned:
        return None
    except Exception:  # what check reports never depends on planning; fix plans (and reports) it itself
        if rewrite_imports:
            raise
        return None


class _Unplanned(Exception):
    pass


def _moved(before: Source, after: Source, edits: list, findings: list[Finding]) -> list[Finding]:
    """The findings a fix left, at their places in the fixed text (the edits
    before each shift it)."""
    import bisect

    spans = sorted((e.start, e.end, len(e.content) - (e.end - e.start)) for e in edits)
    ends = [end for _, end, _ in spans]
    shifts = [0]
    for _, _, delta in spans:
        shifts.append(shifts[-1] + delta)
    out = []
    for finding in findings:
        points = []
        for position in (finding.start, finding.end):
            offset = before.line_starts[position.line - 1] + position.column - 1
            points.append(after.position(offset + shifts[bisect.bisect_right(ends, offset)]))
        moved = Finding(finding.code, finding.message, points[0], points[1], finding.fix, finding.help,
                        finding.key, finding.cover, finding.severity, finding.places)
        moved.noqa_row = moved.start.line
        out.append(moved)
    return out


def _reparsed(data: bytes, filename: str | None) -> Source:
    """The fixed bytes, parsed: a fix never hands back code that does not parse."""
    try:
        return Source(data, filename)
    except SourceError as error:
        raise SourceError(error.line, error.column,
                          f"internal error: the fix would not parse ({error.message}); not rewritten") from None


# -- applying fixes -----------------------------------------------------------------------


def apply(context: Context, findings: list[Finding], rewrite_imports: bool = True) -> tuple[list, list[Finding]]:
    """The text edits that make the fixes of `findings` marked fixed (import
    statements and empty blocks included); the findings whose edits overlap
    an earlier fix's (left for another round). Without `rewrite_imports`,
    an import statement to rewrite raises _Unplanned."""
    source = context.source
    text_edits: list = []
    ensure: set[EnsureImport] = set()
    moves: dict[int, set[str]] = {}
    taken: list[tuple[int, int]] = []
    skipped: list[Finding] = []
    seen: set = set()
    for finding in sorted((f for f in findings if f.fixed), key=_first_edit):
        mine = [e for e in finding.fix.edits if not isinstance(e, (EnsureImport, MoveImport))
                and (e.start == e.end or e not in seen)]  # insertions add up (realigned lines)
        if any(_overlaps(e, taken) for e in mine):
            skipped.append(finding)
            continue
        for edit in finding.fix.edits:
            if isinstance(edit, EnsureImport):
                ensure.add(edit)
            elif isinstance(edit, MoveImport):
                moves.setdefault(edit.statement, set()).add(edit.name)
        for edit in mine:
            seen.add(edit)
            taken.append((edit.start, edit.end))
            text_edits.append(edit)
    text_edits += _import_edits(context, text_edits, moves, rewrite_imports)
    text_edits = _with_pass(text_edits, source.newline)
    text_edits += _ensure_imports(source, sorted(ensure, key=str))
    return text_edits, skipped


def _first_edit(finding: Finding):
    starts = [e.start for e in finding.fix.edits if isinstance(e, (Edit, StatementEdit))]
    return (min(starts) if starts else -1, finding.code)


def _overlaps(edit, taken: list[tuple[int, int]]) -> bool:
    """Replacements that share text, or an insertion strictly inside a
    replacement; insertions at one place do not overlap (they add up)."""
    for start, end in taken:
        if start == end and edit.start == edit.end:
            continue
        if start == end:
            if edit.start < start < edit.end:
                return True
        elif edit.start == edit.end:
            if start < edit.start < end:
                return True
        elif edit.start < end and start < edit.end:
            return True
    return False


def _with_pass(edits: list, newline: str) -> list:
    """A block whose every statement a fix removed gets a `pass`."""
    by_block: dict[tuple, list[StatementEdit]] = {}
    for edit in edits:
        if isinstance(edit, StatementEdit):
            by_block.setdefault(edit.block, []).append(edit)
    out = [e for e in edits if not isinstance(e, StatementEdit)]
    for (_, kind, size), members in by_block.items():
        members.sort(key=lambda e: e.start)
        if kind != "module" and len(members) == size and not any(e.has_code for e in members):
            last = members[-1]
            members[-1] = last._replace(content=last.content + last.indent + "pass" + newline)
        out += members
    return out


# -- imports ------------------------------------------------------------------------------


def _import_edits(context: Context, edits: list, moves: dict[int, set[str]], rewrite: bool = True) -> list:
    """Import statements rewritten: names that only the applied edits used
    go (only those), TF1-only names move to tensorflow.compat.v1."""
    source = context.source
    ranges = sorted((e.start, e.end) for e in edits if e.end > e.start)
    contents = "\n".join(e.content for e in edits)
    out = []
    for node in context.analysis.imports:
        start = source.start(node)
        if _inside(start, ranges):
            continue
        moved = moves.get(start, set())
        unused = {(alias.name, alias.asname) for alias in node.names
                  if _made_unused(context, node, alias, ranges, contents)}
        if moved or unused:
            edit = _rewrite_import(context, node, unused, moved, rewrite)
            if edit is not None:
                out.append(edit)
    return out


def _made_unused(context: Context, node, alias, ranges, contents: str) -> bool:
    """The alias was read before the edits and is read nowhere after them."""
    if alias.name == "*" or (type(node) is ast.ImportFrom and node.module == "__future__"):
        return False
    bound = alias.asname or (alias.name if type(node) is ast.ImportFrom else alias.name.split(".")[0])
    scope = context.analysis.scope_of(node)
    references = [n for b in scope.bindings.get(bound, []) if b.node is node for n in b.references] if scope else []
    if not references:
        return False
    source = context.source
    if any(not _inside(source.start(r), ranges) for r in references):
        return False
    if re.search(rf"(?<![\w.]){re.escape(bound)}\b", contents) is not None:
        return False
    from .readers import readers  # another module may import it from here (`from utils import *`)

    return scope is not context.analysis.names.module_scope or not readers(context.analysis, bound)


def _inside(offset: int, ranges: list[tuple[int, int]]) -> bool:
    import bisect

    index = bisect.bisect_right(ranges, (offset, float("inf"))) - 1
    return index >= 0 and ranges[index][0] <= offset < ranges[index][1]


def _rewrite_import(context: Context, node, unused: set[tuple], moved: set[str],
                    rewrite: bool = True) -> StatementEdit | None:
    """The import statement without its unused names, and its moved names in
    a `from tensorflow.compat.v1 import` after it. libcst rewrites it, so the
    comments and layout of what stays are kept; a statement whose every
    name goes is removed without it. Without `rewrite`, a statement libcst
    would rewrite raises _Unplanned."""
    if context.analysis.editable_statement(node) is None:
        return None  # shares its line: left as it is
    if not moved and all((alias.name, alias.asname) in unused for alias in node.names):
        return context.statement_edit(node, [])
    if not rewrite:
        raise _Unplanned
    import libcst as cst

    source = context.source
    end = source.line_end(source.end(node))
    try:
        line = cst.parse_module(source.text[source.start(node):end].rstrip("\r\n") + "\n").body[0]
    except cst.ParserSyntaxError:
        return None
    statement = line.body[0]
    code = cst.Module([]).code_for_node

    def key(alias) -> tuple:
        return (code(alias.name), alias.asname.name.value if alias.asname else None)

    kept = [a for a in statement.names if key(a) not in unused]
    move = [a for a in kept if isinstance(statement, cst.ImportFrom) and code(a.name) in moved]
    kept = [a for a in kept if a not in move]
    lines = []
    if kept:
        lines.append(_import_code(line, statement, kept, keep_comment=True))
    if move:
        compat = cst.ImportFrom(module=cst.parse_expression("tensorflow.compat.v1"), names=move)
        lines.append(_import_code(line, compat, move, keep_comment=not kept))
    indent = source.indent_of(node)
    return context.statement_edit(node, [(indent + text, True) for text in lines])


def _import_code(line, node, names, keep_comment: bool) -> str:
    import libcst as cst

    names = [*names[:-1], names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    if isinstance(node, cst.ImportFrom) and node.rpar is not None and len(names) == 1:
        node = node.with_changes(lpar=None, rpar=None)
    statement = line.with_changes(body=[node.with_changes(names=names)], leading_lines=())
    if not keep_comment:
        statement = statement.with_changes(trailing_whitespace=cst.TrailingWhitespace())
    return cst.Module([statement]).code.rstrip("\r\n")


def _ensure_imports(source: Source, wanted: list[EnsureImport]) -> list[Edit]:
    """`import module [as asname]` after the imports at the top of the module,
    unless it is there already."""
    body = source.tree.body
    present = {(a.name, a.asname) for s in body if type(s) is ast.Import for a in s.names}
    wanted = [w for w in wanted if (w.module, w.asname) not in present]
    if not wanted:
        return []
    lines = "".join(f"import {w.module}" + (f" as {w.asname}" if w.asname else "") + source.newline for w in wanted)
    start = 1 if body and _is_docstring(body[0]) else 0
    end = start
    while end < len(body) and type(body[end]) in (ast.Import, ast.ImportFrom):
        end += 1
    if end > start:
        return [Edit(source.line_end(source.end(body[end - 1])), source.line_end(source.end(body[end - 1])), lines)]
    if start == 1:
        offset = source.line_end(source.end(body[0]))
        follows = end < len(body) and source.line_start(source.start(body[end])) == offset
        return [Edit(offset, offset, lines + (source.newline if follows else ""))]
    if not body:
        return [Edit(len(source.text), len(source.text), lines)]
    offset = source.line_start(source.start(body[0]))
    return [Edit(offset, offset, lines + source.newline)]


def _is_docstring(statement) -> bool:
    return (
        type(statement) is ast.Expr
        and type(statement.value) is ast.Constant
        and isinstance(statement.value.value, str)
    )
