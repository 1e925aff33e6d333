"""One report per run (black's report.py): what was seen, found, fixed and
changed, the summary line, and the exit code."""

from __future__ import annotations

from ..terminal import plural
from .runner import FileResult, Mode

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class Report:
    def __init__(self, mode: Mode, unsafe_fixes: bool, unsafe_flag: bool = False) -> None:
        self.mode = mode
        self.unsafe_fixes = unsafe_fixes
        self.unsafe_flag = unsafe_flag
        """--unsafe-fixes was given on the command line (not by the settings): `fix` needs it too."""
        self.files = 0
        self.with_findings = 0
        self.findings: list = []
        """Findings shown: for fix, those left after fixing."""
        self.fixed = 0
        """fix: findings fixed."""
        self.changed: list[str] = []
        """fix: files written; diff: files that would change."""
        self.errors: list[str] = []
        self.outside: list[tuple[str, object]] = []
        """fix: (path, TF1-only names outside session config it still uses)."""

    def done(self, result: FileResult) -> None:
        """A file's result (counted once it is read)."""
        self.files += 1
        if result.error is not None:
            self.errors.append(result.error)  # its findings, if any were made, are still shown
        self.findings += result.findings
        self.with_findings += bool(result.findings)
        if result.outside:
            self.outside.append((result.path, result.outside))

    def changed_file(self, path: str, fixed: int) -> None:
        self.changed.append(path)
        self.fixed += fixed

    def failed(self, message: str) -> None:
        self.errors.append(message)

    @property
    def fixable(self) -> int:
        """check/diff: findings `fix` applies with these options."""
        return sum(f.fixed for f in self.findings) if self.mode in (Mode.CHECK, Mode.DIFF) else 0

    @property
    def unsafe_more(self) -> int:
        """Findings whose fix is unsafe and not applied: `--unsafe-fixes` would."""
        return sum(1 for f in self.findings if not f.fixed and f.fix is not None and not f.fix.safe)

    def summary(self, seconds: float) -> str:
        parts = [plural(self.files, "file") + " checked for session and thread config"]
        if self.mode is Mode.ADD_NOQA:
            parts.append(f"{plural(self.fixed, 'finding')} turned off by noqa comments in "
                         f"{plural(len(self.changed), 'file')}")
            if self.findings:  # what a finding turned off had covered: shown now, turned off by a next run
                parts.append(f"{plural(len(self.findings), 'finding')} they covered left (--add-noqa again "
                             "turns them off)")
        elif self.mode is Mode.FIX:
            parts.append(f"{plural(self.fixed, 'finding')} fixed in {plural(len(self.changed), 'file')}"
                         if self.fixed else "nothing fixed")
            parts.append(f"{plural(len(self.findings), 'finding')} left" if self.findings else "no finding left")
        else:
            found = (f"{plural(len(self.findings), 'finding')} in {plural(self.with_findings, 'file')}"
                     if self.findings else "no findings")
            extras = []
            if self.fixable:
                flag = self.unsafe_flag and any(f.fixed and f.fix is not None and not f.fix.safe
                                                for f in self.findings)
                extras.append(f"{self.fixable} fixable with `fix{' --unsafe-fixes' if flag else ''}`")
            if self.unsafe_more and not self.unsafe_fixes:
                extras.append(f"{self.unsafe_more} more with `fix --unsafe-fixes`")
            parts.append(found + (f" ({', '.join(extras)})" if extras else ""))
            if self.mode is Mode.DIFF:
                parts.append(f"{plural(len(self.changed), 'file')} would change")
        parts.append(plural(len(self.errors), "error") if self.errors else "no errors")
        return ", ".join(parts) + f"; {seconds:.2f} s"

    def exit_code(self, exit_zero: bool) -> int:
        if self.errors:
            return EXIT_ERROR
        if exit_zero:
            return EXIT_CLEAN
        if self.mode is Mode.DIFF:
            return EXIT_FINDINGS if self.changed else EXIT_CLEAN
        return EXIT_FINDINGS if self.findings else EXIT_CLEAN


def outside_line(path: str, names) -> str:
    """The one line `fix` prints for a file that still uses TF1-only names
    outside session config (`names`: `tf.NAME` -> uses, codemod/leftover.py)."""
    uses = sum(names.values())
    listed = ", ".join(name for name, _ in names.most_common())
    return (f"{path}: {uses} use{'s' if uses != 1 else ''} of TF1-only names outside session and thread config "
            f"left ({listed}): not this tool's scope, `tf_upgrade_v2` rewrites them")
