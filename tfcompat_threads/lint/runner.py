"""Run the codemod over files: bytes in, results out (Fixit's api.py).

A file with no trigger token is settled by a byte test and never parsed;
when no file of a run has one, libcst is not even imported. Files that need
parsing go to a process pool when there are several; results come back in
the order of the files. Writing is the caller's (the CLI's) job.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator

from ..codemod.prefilter import may_need_codemod
from .files import FileError, read_bytes
from .settings import Settings

_NOQA = (
    r"#\s*(?:noqa(?::\s*(?P<noqa>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?"
    r"|tfcompat:\s*ignore\[(?P<ignore>[^\]]*)\])"
)
ALL = "ALL"


# Plain classes, not dataclasses: a pre-commit run over clean files should not
# pay for importing dataclasses and inspect.


class Diagnostic:
    """One finding in one file. `applicability`: safe / unsafe (a fix exists)
    or none (manual). `fixed`: the fix is made by `fix` (and is in
    FileResult.fixed_source when the run rewrites). `cell`: notebook cell."""

    __slots__ = ("code", "message", "filename", "row", "column", "end_row", "end_column",
                 "applicability", "fixed", "cell")

    def __init__(self, code, message, filename, row, column, end_row, end_column, applicability, fixed,
                 cell=None) -> None:
        self.code, self.message, self.filename = code, message, filename
        self.row, self.column, self.end_row, self.end_column = row, column, end_row, end_column
        self.applicability, self.fixed, self.cell = applicability, fixed, cell


class FileResult:
    __slots__ = ("path", "source", "fixed_source", "diagnostics", "error")

    def __init__(self, path: str, source: bytes = b"", fixed_source: bytes | None = None,
                 error: str | None = None) -> None:
        self.path = path
        self.source = source
        self.fixed_source = source if fixed_source is None else fixed_source
        self.diagnostics: list[Diagnostic] = []
        self.error = error

    @property
    def changed(self) -> bool:
        return self.error is None and self.fixed_source != self.source

    def text(self, data: bytes) -> str:
        """Bytes as text for a diff, in the file's own encoding."""
        import tokenize
        from io import BytesIO

        try:
            encoding = tokenize.detect_encoding(BytesIO(data).readline)[0]
        except SyntaxError:
            encoding = "utf-8"
        return data.decode(encoding, errors="replace")


def suppressions(text: str) -> dict[int, set[str]]:
    """Line -> codes turned off there by `# noqa: CODE`, `# tfcompat: ignore[CODE]`;
    a bare `# noqa` turns off all."""
    found: dict[int, set[str]] = {}
    if "noqa" not in text.lower() and "tfcompat:" not in text:
        return found
    pattern = re.compile(_NOQA, re.I)  # compiled here: only parsed files need it (re caches it)
    for number, line in enumerate(text.splitlines(), start=1):
        for match in pattern.finditer(line):
            codes = match.group("noqa") if match.group("noqa") is not None else match.group("ignore")
            if codes is None:
                found.setdefault(number, set()).add(ALL)
            else:
                found.setdefault(number, set()).update(c.strip().upper() for c in codes.split(",") if c.strip())
    return found


def _allow(settings: Settings, noqa: dict[int, set[str]]):
    def allow(code: str, line: int) -> bool:
        codes = noqa.get(line, ())
        return settings.wants(code) and ALL not in codes and code not in codes

    return allow


def process_source(data: bytes, filename: str, settings: Settings, rewrite: bool = True) -> FileResult:
    """The codemod on one file's bytes (.py or .ipynb). `rewrite=False`:
    findings only (check), the bytes are not rewritten."""
    result = FileResult(filename, data)
    if not may_need_codemod(data):
        return result
    from ..codemod import CodemodError, transform

    try:
        if filename.endswith(".ipynb"):
            _process_notebook(result, settings, rewrite)
        else:
            text = result.text(data)
            outcome = transform(
                data,
                settings.target,
                filename,
                unsafe_fixes=settings.unsafe_fixes,
                allow=_allow(settings, suppressions(text)),
                rewrite=rewrite,
            )
            result.fixed_source = outcome.source
            result.diagnostics = [_diagnostic(f, filename) for f in outcome.findings]
    except CodemodError as error:
        result.error = str(error)
        result.fixed_source = data
    return result


def _process_notebook(result: FileResult, settings: Settings, rewrite: bool) -> None:
    from . import notebooks
    from ..codemod import CodemodError, transform

    try:
        notebook = notebooks.load(result.source)
    except notebooks.NotebookError as error:
        raise CodemodError(result.path, 1, 1, str(error)) from None
    if not notebook.cells:
        return
    module = notebooks.to_module(notebook)
    try:
        outcome = transform(
            module.encode("utf-8"),
            settings.target,
            result.path,
            unsafe_fixes=settings.unsafe_fixes,
            allow=_allow(settings, suppressions(module)),
            rewrite=rewrite,
        )
    except CodemodError as error:
        cell, line = notebooks.cell_of_line(notebook, module, error.line)
        raise CodemodError(result.path, line, error.column, f"cell {cell}: {error.message}") from None
    new_module = outcome.source.decode("utf-8")
    for finding in outcome.findings:
        diagnostic = _diagnostic(finding, result.path)
        diagnostic.cell, diagnostic.row = notebooks.cell_of_line(notebook, module, finding.start.line)
        diagnostic.end_row = diagnostic.row + finding.end.line - finding.start.line
        result.diagnostics.append(diagnostic)
    try:
        result.fixed_source = notebooks.from_module(notebook, new_module)
    except notebooks.NotebookError as error:
        raise CodemodError(result.path, 1, 1, str(error)) from None


def _diagnostic(finding, filename: str) -> Diagnostic:
    return Diagnostic(
        finding.code,
        finding.message,
        filename,
        finding.start.line,
        finding.start.column,
        finding.end.line,
        finding.end.column,
        str(finding.applicability),
        finding.fixed,
    )


def _process_path(item: tuple[str, bytes, Settings, bool]) -> FileResult:
    path, data, settings, rewrite = item
    try:
        return process_source(data, path, settings, rewrite)
    except Exception as error:  # one file never stops the others
        return FileResult(path, data, error=f"{path}:1:1: internal error: {type(error).__name__}: {error}")


def run(paths: Iterable[str], settings: Settings, jobs: int | None = None, rewrite: bool = True) -> Iterator[FileResult]:
    """Results for `paths`, in order. Clean files are settled here by the byte
    test; the others are parsed in `jobs` processes (default: CPU count)."""
    items: list[tuple[str, bytes, Settings, bool] | FileResult] = []
    for path in paths:
        try:
            data = read_bytes(path)
        except FileError as error:
            items.append(FileResult(path, error=str(error)))
            continue
        if may_need_codemod(data):
            items.append((path, data, settings, rewrite))
        else:
            items.append(FileResult(path))  # nothing to change: its bytes are not kept
    work = [item for item in items if isinstance(item, tuple)]
    jobs = jobs or os.cpu_count() or 1
    if len(work) > 1 and jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        from ..codemod import api, rewrite  # noqa: F401  imported once here, inherited by the forked workers

        with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
            done = iter(pool.map(_process_path, work, chunksize=max(1, len(work) // (jobs * 4))))
            for item in items:
                yield next(done) if isinstance(item, tuple) else item
    else:
        for item in items:
            yield _process_path(item) if isinstance(item, tuple) else item
