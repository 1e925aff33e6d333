"""transform(): one module's bytes in, new bytes and findings out.

The library entry point over the engine, for one .py module; the command line
uses the engine through `tfcompat_threads.lint.runner` (files, notebooks,
settings, noqa)."""

from __future__ import annotations

from ..options import release
from .engine import TARGETS, Outcome, run
from .prefilter import may_need_codemod
from .source import SourceError

__all__ = ["TARGETS", "CodemodError", "Outcome", "transform"]


class CodemodError(Exception):
    """A file the codemod cannot work on: it names the file and the line."""

    def __init__(self, filename: str | None, line: int, column: int, message: str) -> None:
        self.filename = filename or "<source>"
        self.line = line
        self.column = column
        self.message = message
        super().__init__(f"{self.filename}:{line}:{column}: {message}")


def transform(source: bytes, target: str = "native", filename: str | None = None, *,
              unsafe_fixes: bool = False, force: bool = False, fix: bool = True,
              tf_version: str | None = None) -> Outcome:
    """Rewrite one module's session-config code for `target`; return the new
    bytes (`.source`) and the findings (`.findings`, each `fixed` when its fix
    is applied; `.remaining`: what is left in the new bytes).
    `unsafe_fixes` also applies the fixes marked unsafe; `force` parses even
    a file the byte pre-filter would settle; `fix=False` only reports (the
    findings say which fixes `fix` would make); `tf_version` ("X.Y"): the
    oldest TensorFlow the new code must run on (default: the names of 2.1 on)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
    if tf_version is not None:
        release(tf_version)  # ValueError for what is no release
    if not force and not may_need_codemod(source, filename):
        return Outcome([], source)
    try:
        outcome = run(source, target, filename, unsafe_fixes=unsafe_fixes, fix=fix, tf_version=tf_version)
    except SourceError as error:
        raise CodemodError(filename, error.line, error.column, error.message) from None
    from .findings import shown_places

    for finding in (*outcome.findings, *outcome.remaining):
        finding.message = shown_places(finding.message, finding.places)
        finding.help = shown_places(finding.help, finding.places)
    return outcome
