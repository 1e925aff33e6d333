"""transform(): one module's bytes in, new bytes and findings out."""

from __future__ import annotations

from collections.abc import Callable

from .findings import Finding
from .prefilter import may_need_codemod

TARGETS = ("native", "shim")


class CodemodError(Exception):
    """A file the codemod cannot work on: it names the file and the line."""

    def __init__(self, filename: str | None, line: int, column: int, message: str) -> None:
        self.filename = filename or "<source>"
        self.line = line
        self.column = column
        self.message = message
        super().__init__(f"{self.filename}:{line}:{column}: {message}")


class Result:
    def __init__(self, source: bytes, findings: list[Finding] | None = None) -> None:
        self.source = source
        self.findings = findings or []

    def changed(self, original: bytes) -> bool:
        return self.source != original


def transform(
    source: bytes,
    target: str = "native",
    filename: str | None = None,
    *,
    unsafe_fixes: bool = False,
    allow: Callable[[str, int], bool] | None = None,
    force: bool = False,
    rewrite: bool = True,
) -> Result:
    """Rewrite one module's session-config code for `target`; return the new
    bytes and the findings (fixed ones included, with `fixed=True`).

    `unsafe_fixes` also applies the fixes marked unsafe. `allow(code, line)`
    turns findings off (--select/--ignore, noqa comments): a finding turned
    off is neither reported nor fixed. `force` parses even a file the byte
    pre-filter would settle (for tests of the whole pipeline). `rewrite=False`
    only reports (findings say which fixes a rewrite would make) and returns
    the source as it was: what `check` needs, at a fraction of the cost."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
    if not force and not may_need_codemod(source):
        return Result(source)
    import libcst as cst

    from .analysis import Analysis
    from .rewrite import CannotRewrite, Planner, apply

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise CodemodError(filename, error.editor_line, error.editor_column, f"cannot parse: {error.message}") from None
    except UnicodeDecodeError as error:
        raise CodemodError(filename, 1, 1, f"cannot decode: {error.reason}") from None
    except SyntaxError as error:  # raised by tokenize for a bad coding cookie
        raise CodemodError(filename, error.lineno or 1, 1, f"cannot decode: {error.msg}") from None
    analysis = Analysis(module)
    try:
        plan = Planner(analysis, target, unsafe_fixes, allow, rewrite).build()
    except CannotRewrite as error:
        raise CodemodError(filename, 1, 1, f"{error}; not rewritten") from None
    findings = sorted(plan.findings, key=lambda f: (f.start.line, f.start.column, f.code))
    if not rewrite or not plan.changes:
        return Result(source, findings)
    new_source = apply(analysis, plan).bytes
    roundtrip = analysis.positions.code.encode(module.encoding)
    if roundtrip != source:  # libcst does not give these bytes back (LibCST issue 1457)
        new_source = _onto_original(source, roundtrip, new_source, filename)
    if new_source != source:
        problem = _syntax_error(new_source)
        if problem is not None and _syntax_error(source) is None:  # never hand back code that does not parse
            raise CodemodError(filename, problem[0], problem[1], f"internal error: the fix would not parse ({problem[2]})")
    return Result(new_source, findings)


def _onto_original(source: bytes, roundtrip: bytes, rewritten: bytes, filename: str | None) -> bytes:
    """The fix's line changes applied to the original bytes, for a file libcst
    does not reproduce exactly (it drops the space in `except E :`). Refused
    when a changed line is one libcst would not have reproduced."""
    import difflib

    original, base, new = (data.splitlines(keepends=True) for data in (source, roundtrip, rewritten))
    lossy = [i for i, (a, b) in enumerate(zip(original, base)) if a != b]
    if len(original) != len(base):
        raise CodemodError(filename, 1, 1, "libcst cannot reproduce this file byte for byte; not rewritten")
    out: list[bytes] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out += original[i1:i2]
            continue
        touched = [i for i in lossy if i1 <= i < i2]
        if touched:
            raise CodemodError(
                filename, touched[0] + 1, 1, "libcst cannot reproduce this line byte for byte; not rewritten"
            )
        out += new[j1:j2]
    return b"".join(out)


def _syntax_error(source: bytes) -> tuple[int, int, str] | None:
    """(line, column, message) of the first syntax error, by CPython's own
    parser (it is what will run the file, and far faster than re-parsing)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():  # the user's code may warn (escapes): not ours to say
            warnings.simplefilter("ignore")
            compile(source, "<fixed>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return error.lineno or 1, error.offset or 1, error.msg
    except ValueError as error:  # null bytes
        return 1, 1, str(error)
    return None
