"""What a rule reports: one finding type, from the rule to the formatter.

A finding carries its fix (ruff's Diagnostic + Fix, Fixit's LintViolation):
filtering (select, ignore, noqa, unsafe) is one pass over findings, and
`check`, `diff` and `fix` read the same findings, so they cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ..options import Applicability
from .source import Edit, Position

__all__ = ["Applicability", "Edit", "EnsureImport", "Finding", "Fix", "MoveImport", "Place", "Position"]

ERROR, WARNING = "error", "warning"


class Place(NamedTuple):
    """A line of another file that a finding's message or help names: as
    data on the finding (`Finding.places`), shown when printed relative to
    the directory the command runs in, at the line the file has then."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def place(path, line: int) -> str:
    """A line of another module (absolute `path`, or None: "another module")
    as a message names it; the finding made with that message holds it as a
    Place (`places_in`)."""
    if path is None:
        return f"another module:{line}"
    return f"{path}:{line}"


def places_in(text: str, paths) -> tuple[Place, ...]:
    """The places of the files `paths` (absolute) that `text` names, in order."""
    named = [path for path in paths if path in text]
    if not named:
        return ()
    import re

    pattern = "|".join(re.escape(path) for path in sorted(named, key=len, reverse=True))
    return tuple(Place(match.group(1), int(match.group(2)))
                 for match in re.finditer(f"({pattern}):(\\d+)(?!\\d)", text))


def shown_places(text: str, places, moved=None) -> str:
    """`text` with each of its `places` as `path:line`, the path relative to
    the current directory; `moved(path, line)`: the line's number after this
    run rewrote that file (a fix)."""
    if not places:
        return text
    import os
    import re

    def shown(found: Place) -> str:
        line = moved(found.path, found.line) if moved is not None else found.line
        try:
            return f"{os.path.relpath(found.path)}:{line}"
        except ValueError:
            return f"{found.path}:{line}"

    texts = {str(found): shown(found) for found in places}
    pattern = "|".join(re.escape(key) for key in sorted(texts, key=len, reverse=True))
    return re.sub(f"(?:{pattern})(?!\\d)", lambda match: texts[match.group(0)], text)


class EnsureImport(NamedTuple):
    """`import module [as asname]` after the module's top imports, unless the
    file has it already. Identical requests of several fixes make one import."""

    module: str
    asname: str | None


class MoveImport(NamedTuple):
    """Move name `name` of the `from tensorflow import ...` statement that
    starts at text offset `statement` to `from tensorflow.compat.v1 import`."""

    statement: int
    name: str


class Fix:
    """The edits that resolve a finding, and how far they can be trusted.

    `edits` are text edits and import requests. `blocked_by` says, for an
    unsafe fix, what makes it unsafe (shown to the user)."""

    __slots__ = ("applicability", "message", "edits", "blocked_by")

    def __init__(self, applicability: Applicability, message: str, edits=(), blocked_by: str = "") -> None:
        self.applicability = applicability
        self.message = message
        self.edits: tuple = tuple(edits)
        self.blocked_by = blocked_by

    @property
    def safe(self) -> bool:
        return self.applicability is Applicability.SAFE

    def __repr__(self) -> str:
        return f"Fix({self.applicability.value}, {self.message!r}, {len(self.edits)} edits)"


class Cover(NamedTuple):
    """This finding goes away when the findings `keys` are kept ("reported")
    or their fixes applied ("fixed"): it is the part of their problem that
    remains when they are turned off or left unfixed."""

    keys: tuple[str, ...]
    when: str


@dataclass(eq=False, repr=False)
class Finding:
    """One problem at one place, as its rule made it (code, message, where,
    its fix, what to do, its severity, the places in other files it names);
    then what the run found of it. `start`/`end` are 1-based lines and
    columns. A finding is its own identity (no value equality): the engine
    tracks which of a round's findings it fixed."""

    code: str
    message: str
    start: Position
    end: Position
    fix: Fix | None = None
    help: str = ""
    """What to do when nothing is applied for it."""
    key: str | None = None
    cover: Cover | None = None
    severity: str = WARNING
    """Its rule's: "error" or "warning"."""
    places: tuple[Place, ...] = ()
    """The lines of other files its message and help name."""
    fixed: bool = False
    """Set by the engine when the returned source has the fix applied."""
    cell: int | None = None
    """The notebook cell (as `path:cell N` shows it)."""
    noqa_row: int = 0
    """The line whose `# noqa` comment turns it off (0: its first line)."""
    file_rows: tuple[int, int] | None = None
    """A notebook's finding: the lines of the .ipynb file that hold its
    first and last source lines (annotations point there)."""
    located: list = field(default_factory=list)
    """The edits `fix` makes for it, as (content, start, end) positions in
    the file read (lint/edits.py); filled for JSON output."""
    line_text: str | None = None
    """The source line it starts on (the code frame under it in text output)."""

    def __post_init__(self) -> None:
        if not self.noqa_row:
            self.noqa_row = self.start.line

    @property
    def applicability(self) -> Applicability:
        return self.fix.applicability if self.fix is not None else Applicability.MANUAL

    def sort_key(self):
        return (self.cell or 0, self.start.line, self.start.column, self.code)

    def __repr__(self) -> str:
        return f"Finding({self.code} {self.start.line}:{self.start.column} {self.message!r}, {self.fix!r})"
