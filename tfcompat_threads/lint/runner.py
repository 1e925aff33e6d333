"""Run the codemod over files: bytes in, one result per file out (Fixit's api.py).

A file with no trigger token is settled by a byte test and never parsed.
Files that need parsing go to a pool of worker processes when there are
several; results come back in the order of the files. Each file (and
standard input) is one unit of work with its own error boundary: whatever
goes wrong in it becomes an error result naming it, and the others go on,
even when a worker process dies. Writing is the caller's job.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Iterator

from ..codemod.prefilter import may_name_tensorflow, may_need_codemod
from .files import FileError, read_bytes
from .settings import Settings


class Mode(enum.Enum):
    CHECK = "check"
    DIFF = "diff"
    FIX = "fix"
    ADD_NOQA = "add-noqa"
    """check --add-noqa: a `# noqa` comment at every finding, written like a fix."""

    @property
    def rewrites(self) -> bool:
        return self is not Mode.CHECK


class FileResult:
    """One file's outcome. `findings`: what to show (check, diff: all, at
    their places in the file read, `fixed` = fix applies them; fix: what is
    left, at their places in the fixed file). `fixed`: findings fixed.
    `cells`: for a changed notebook, (cell number, old, new) of each changed
    code cell."""

    __slots__ = ("path", "source", "fixed_source", "findings", "found", "fixed", "error", "cells", "outside")

    def __init__(self, path: str, source: bytes = b"", fixed_source: bytes | None = None,
                 error: str | None = None) -> None:
        self.path = path
        self.source = source
        self.fixed_source = source if fixed_source is None else fixed_source
        self.findings: list = []
        self.found: list = []
        """All findings at their places in the file read (what check shows)."""
        self.fixed = 0
        self.error = error
        self.cells: list[tuple[int, str, str]] = []
        self.outside = None
        """fix: the TF1-only names outside session config the fixed file still uses (codemod/leftover.py)."""

    @property
    def changed(self) -> bool:
        return self.error is None and self.fixed_source != self.source

    def text(self, data: bytes) -> str:
        """Bytes as text for a diff, in the file's own encoding."""
        from ..codemod.source import SourceError, detect_encoding

        try:
            encoding = detect_encoding(data)
        except SourceError:
            encoding = "utf-8"
        return data.decode(encoding, errors="replace")


def process_source(data: bytes, path: str, settings: Settings, mode: Mode,
                   enabled: frozenset[str] | None = None, cache=None) -> FileResult:
    """The codemod on one file's bytes (.py or .ipynb), inside the error
    boundary of its unit of work: never raises. `cache` (lint/cache.py):
    where earlier runs kept what they found."""
    try:
        needed, loaded = needs_codemod(data, path)
        if not needed:
            return _process(data, path, settings, mode, enabled, cache, needed=False)
        from ..codemod.engine import collector_paused

        with collector_paused():
            return _process(data, path, settings, mode, enabled if enabled is not None else settings.enabled(), cache,
                            needed=True, loaded=loaded)
    except Exception as error:  # one file never stops the others
        message = " ".join(f"{type(error).__name__}: {error}".split())[:300]
        return FileResult(path, data, error=f"{path}:1:1: internal error: {message}")


def needs_codemod(data: bytes, path: str):
    """(whether the codemod runs on the file: the pre-filter, the notebook
    read for it, or None)."""
    if path.endswith(".ipynb"):
        from .notebooks import needs_codemod as notebook_needs

        return notebook_needs(data)
    return may_need_codemod(data, path), None


def _process(data: bytes, path: str, settings: Settings, mode: Mode, enabled: frozenset[str], cache,
             needed: bool, loaded=None) -> FileResult:
    result = FileResult(path, data)
    if not needed:
        result.error = undecodable(data, path)
        return result
    from ..codemod import engine
    from ..codemod.source import SourceError
    from . import notebooks

    fix = mode.rewrites
    memo = cache.memo(path) if cache is not None else None
    module = None
    try:
        if path.endswith(".ipynb"):
            try:
                outcome, module = notebooks.run(data, settings, fix, enabled, path, memo,
                                                add_noqa=mode is Mode.ADD_NOQA, loaded=loaded,
                                                leftover=mode is Mode.FIX)
            except notebooks.NotebookError as error:
                result.error = f"{path}:1:1: {error}"
                return result
            result.cells = module.changed_cells() if module is not None else []
        else:
            outcome = engine.run(data, settings.target, path, wants=enabled.__contains__,
                                 unsafe_fixes=settings.unsafe_fixes, fix=fix, memo=memo,
                                 add_noqa=mode is Mode.ADD_NOQA, tf_version=settings.tf_version,
                                 build=settings.build, leftover=mode is Mode.FIX)
    except SourceError as error:
        result.error = f"{error.where(path)}: {error.message}"
        return result
    result.fixed_source = outcome.source
    result.found = outcome.findings
    if outcome.problems:  # the file is an error; its findings are still shown
        first = outcome.problems[0]
        more = len(outcome.problems) - 1
        result.error = f"{first.where(path)}: {first.message}" + (
            f" (and {more} more unknown code{'s' if more > 1 else ''} in noqa comments)" if more else "")
    if mode is Mode.FIX:
        result.outside = outcome.outside
        result.findings = outcome.remaining
        result.fixed = sum(f.fixed for f in outcome.findings) if result.changed else 0
    elif mode is Mode.ADD_NOQA:  # every finding check shows is turned off; those it covered show now
        result.findings = outcome.remaining if result.changed else outcome.findings
        result.fixed = len(outcome.findings) if result.changed else 0
    else:
        result.findings = outcome.findings
    if path.endswith(".ipynb") and module is not None:
        notebooks.place_in_file(result.findings, result.fixed_source if mode is Mode.FIX else data, module.notebook)
    _line_texts(result, module, result.fixed_source if mode is Mode.FIX else data)
    if mode is Mode.DIFF:
        from .edits import locate

        locate(result)
    return result


def _line_texts(result: FileResult, module, data: bytes) -> None:
    """Each finding's source line, from the bytes its place is in (a
    notebook's: its cell's text)."""
    import re

    if not result.findings:
        return
    split = re.compile(r"\r\n|\r|\n").split
    if module is not None:
        cells = {cell.number: split(cell.text) for cell in module.notebook.cells}
    else:
        from .edits import file_text

        lines = split(file_text(data, result.path))
    for finding in result.findings:
        found = cells.get(finding.cell, []) if module is not None else lines
        if 0 < finding.start.line <= len(found):
            finding.line_text = found[finding.start.line - 1]


def undecodable(data: bytes, path: str) -> str | None:
    """Why a file that needs no parse cannot be Python source at all (bytes
    its encoding cannot decode, null bytes), so that it is reported rather
    than called clean; None for the usual file. A C-speed UTF-8 decode first."""
    if path.endswith(".ipynb"):
        return None
    if b"\0" in data:
        return f"{path}:1:1: cannot parse: the file holds null bytes (not Python source)"
    second = data.find(b"\n", data.find(b"\n") + 1)
    if b"coding" not in data[: second if second >= 0 else len(data)]:  # no coding cookie: UTF-8, or not Python
        if data.isascii():  # no allocation: the common case
            return None
        try:
            data.decode("utf-8")
            return None
        except UnicodeDecodeError:
            pass
    from ..codemod.source import SourceError, detect_encoding

    try:
        encoding = detect_encoding(data)
        data.decode(encoding)
        return None
    except SourceError as error:
        return f"{path}:{error.line}:{error.column}: {error.message}"
    except (UnicodeDecodeError, LookupError) as error:
        return f"{path}:1:1: cannot decode as {encoding}: {error}"


def _process_item(item: tuple) -> FileResult:
    path, data, settings, mode, enabled, cache = item
    return process_source(data, path, settings, mode, enabled, cache)


def _process_batch(batch: list[tuple]) -> list[FileResult]:
    """The results without the bytes the parent sent: a notebook's megabytes
    of outputs would cross the pipe back too (`_Pool.results` puts them back)."""
    results = [_process_item(item) for item in batch]
    for result in results:
        if result.fixed_source == result.source:
            result.fixed_source = None
        result.source = None
    return results


# Files of one folder go to one process together, up to this many: the
# modules they read of each other are then read by one process, not by each.
# A batch holds at most a (4 x jobs)th of the files added before it, so that
# a small tree (17 files in one folder) is still shared out between the processes.
BATCH = 16


def _worker_init(parent: int) -> None:
    """Workers die with their parent (a killed `fix` leaves none behind, and
    none holds the caller's pipes) and do not read standard input."""
    import signal

    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above: no signal will come
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)


def run(paths: Iterable[str], settings: Settings, mode: Mode, jobs: int | None = None,
        cache: bool = True, trees: Iterable[str] = ()) -> Iterator[FileResult]:
    """Results for `paths`, in order. Clean files are settled here by the byte
    test; the others are parsed in `jobs` processes (default: CPU count),
    which start on the first files while the rest are still being read.
    `cache`: use and keep what runs found (lint/cache.py), never in a
    folder inside `trees` (the paths the user named)."""
    jobs = jobs or os.cpu_count() or 1
    enabled = None  # the rules are imported only when a file needs them
    kept = None
    items: list[int | FileResult] = []  # a result, or the index of a work item
    work: list[tuple] = []
    pool = None
    try:
        for path in paths:
            try:
                data = read_bytes(path)
            except FileError as error:
                items.append(FileResult(path, error=str(error)))
                continue
            # nothing to change: its bytes are not kept (unless not Python); a notebook's cells are tested by a worker
            if not (may_name_tensorflow(data) if path.endswith(".ipynb") else may_need_codemod(data, path)):
                items.append(FileResult(path, error=undecodable(data, path)))
                continue
            if enabled is None:
                enabled = settings.enabled()
                if cache:
                    from .cache import Cache

                    kept = Cache.open(settings, enabled, trees)
            items.append(len(work))
            work.append((path, data, settings, mode, enabled, kept))
            if pool is None and len(work) == 2 and jobs > 1:  # one file alone is parsed here, without a pool
                pool = _Pool(jobs)
                pool.add(work[0])
            if pool is not None:
                pool.add(work[-1])
        if pool is not None:
            pool.flush()
    except BaseException:  # Ctrl-C while reading: the work queued so far is not waited for
        if pool is not None:
            pool.executor.shutdown(wait=False, cancel_futures=True)
        raise
    done = pool.results() if pool is not None else (_process_item(item) for item in work)
    for item in items:
        yield next(done) if isinstance(item, int) else item


class _Pool:
    """Work items run in a process pool, a folder's files together (`BATCH`),
    from the moment their batch is complete; `results()` in the order they
    were added. A worker that dies (a crash in native code) breaks the pool:
    the files it left unfinished are run again one process each, so the one
    that kills its process is reported, and the others are done."""

    def __init__(self, jobs: int) -> None:
        from concurrent.futures import ProcessPoolExecutor

        from ..codemod import engine  # noqa: F401  imported once here, inherited by the forked workers

        self.executor = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init, initargs=(os.getpid(),))
        self.jobs = jobs
        self.work: list[tuple] = []
        self.futures: list = []
        self.batch: list[tuple] = []
        self.refused = False

    def add(self, item: tuple) -> None:
        size = min(BATCH, 1 + (len(self.work) - len(self.batch)) // (4 * self.jobs))
        if self.batch and (len(self.batch) >= size or os.path.dirname(item[0]) != os.path.dirname(self.batch[0][0])):
            self.flush()
        self.work.append(item)
        self.batch.append(item)

    def flush(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        batch, self.batch = self.batch, []
        if batch and not self.refused:
            try:
                self.futures.append(self.executor.submit(_process_batch, batch))
            except BrokenProcessPool:
                self.refused = True

    def results(self) -> Iterator[FileResult]:
        from concurrent.futures.process import BrokenProcessPool

        finished = 0
        try:
            for future in self.futures:
                try:
                    batch = future.result()
                except BrokenProcessPool:
                    break
                for result, item in zip(batch, self.work[finished:]):
                    result.source = item[1]
                    if result.fixed_source is None:
                        result.fixed_source = item[1]
                    yield result
                finished += len(batch)
        finally:
            self.executor.shutdown(wait=True, cancel_futures=True)
        for item in self.work[finished:]:
            yield _isolated(item)


def _isolated(item: tuple) -> FileResult:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1, initializer=_worker_init, initargs=(os.getpid(),)) as pool:
        try:
            return pool.submit(_process_item, item).result()
        except BrokenProcessPool:
            path, data = item[0], item[1]
            return FileResult(path, data, error=f"{path}:1:1: internal error: the process working on this "
                              "file died (a crash in native code); not rewritten")
