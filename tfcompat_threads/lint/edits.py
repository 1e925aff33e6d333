"""The edits of a file's fix as another tool applies them (JSON `edits`, ruff's shape).

What `fix` writes is the truth: the edits are the differences between the
file read and the file `fix` writes, as text of the file itself (its own
encoding; a notebook's JSON text, so that applying them gives the notebook
`fix` writes byte for byte). Each edit belongs to one finding that `fix`
applies: the one whose lines it touches (where two fixes touch the same
rows, two renames on one line, the rows' changes are split by column, each
to the finding at it), else (an import the fix made unused or needs) the
nearest one. Applying every finding's edits to the file
read gives exactly the bytes `fix` writes; a finding `fix` does not apply
(an unsafe fix without `--unsafe-fixes`) carries none.

Positions are 1-based rows and 1-based character columns; rows end at
`\\n`, `\\r\\n` or `\\r`; an end position is exclusive.
"""

from __future__ import annotations

import difflib
import re

from ..codemod.source import Position

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def file_text(data: bytes, path: str) -> str:
    """The text a file's edits locate in: a notebook's JSON text, a Python
    file's text in its own encoding (a BOM is not text)."""
    if path.endswith(".ipynb"):
        return data.decode("utf-8-sig")
    from ..codemod.source import detect_encoding

    return data.decode(detect_encoding(data))


def hunks(old: str, new: str) -> list[tuple[int, int, str]]:
    """(first row, row after the last, new text) of each changed run of rows."""
    before = _LINES.findall(old)
    after = _LINES.findall(new)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [(i1 + 1, i2 + 1, "".join(after[j1:j2]))
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def locate(result) -> None:
    """Give each finding of `result` (a lint.runner.FileResult made with the
    fixed bytes beside the findings of the bytes read) the edits `fix` makes
    for it."""
    for finding in result.findings:
        finding.located = []
    fixed = [f for f in result.findings if f.fixed]
    if not fixed or not result.changed:
        return
    old = file_text(result.source, result.path)
    new = file_text(result.fixed_source, result.path)
    rows = _LINES.findall(old)

    def position(row: int) -> Position:
        if row <= len(rows):
            return Position(row, 1)
        last = rows[-1] if rows else ""
        if last.endswith(("\n", "\r")) or not rows:
            return Position(len(rows) + 1, 1)
        return Position(len(rows), len(last) + 1)  # past the end of a last row without a line ending

    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))
    spans = {id(f): _rows(f, starts) for f in fixed}
    for first, after, content in hunks(old, new):
        sharing = [f for f in fixed if _distance(spans[id(f)], first, after)[0] == 0]
        replaced = _LINES.findall(content)
        if len(sharing) > 1 and len(replaced) == after - first:
            # two fixes on the same rows (two renames on one line): each its own edits, within the row
            for row, (was, now) in enumerate(zip(rows[first - 1:after - 1], replaced), start=first):
                matcher = difflib.SequenceMatcher(None, was, now, autojunk=False)
                for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                    if tag == "equal":
                        continue
                    owner = min(sharing, key=lambda f: _column_distance(f, row, i1 + 1))
                    owner.located.append((now[j1:j2], Position(row, i1 + 1), Position(row, i2 + 1)))
            continue
        owner = min(fixed, key=lambda f: _distance(spans[id(f)], first, after))
        owner.located.append((content, position(first), position(after)))


def _column_distance(finding, row: int, column: int) -> tuple[int, int]:
    """How far (rows, then columns) a place is from a finding's own text."""
    start, end = finding.start, finding.end
    if (start.line, start.column) <= (row, column) <= (end.line, end.column):
        return (0, 0)
    if (row, column) < (start.line, start.column):
        return (start.line - row, abs(start.column - column))
    return (row - end.line, abs(column - end.column))


def _rows(finding, starts: list[int]) -> list[tuple[int, int]]:
    """The rows a finding spans and, in a Python file, the rows its own text
    edits touch (offsets of the same text)."""
    import bisect

    spans = [finding.file_rows or (finding.start.line, finding.end.line)]
    if finding.file_rows is None and finding.fix is not None:
        for edit in finding.fix.edits:
            if isinstance(getattr(edit, "start", None), int):  # a text edit (not an import request)
                last = max(edit.start, edit.end - 1)
                spans.append((bisect.bisect_right(starts, edit.start), bisect.bisect_right(starts, last)))
    return spans


def _distance(spans: list[tuple[int, int]], first: int, after: int) -> tuple[int, int]:
    last = max(first, after - 1)
    gaps = [0 if low <= last and first <= high else min(abs(first - high), abs(low - last)) for low, high in spans]
    return (min(gaps), spans[0][0])


def line_mover(old: str, new: str):
    """Line number in `old` -> its number in `new` (a line the change
    replaced: the first line of what replaced it)."""
    import bisect

    matcher = difflib.SequenceMatcher(None, _LINES.findall(old), _LINES.findall(new), autojunk=False)
    blocks = matcher.get_opcodes()
    starts = [i1 for _, i1, _, _, _ in blocks]

    def move(line: int) -> int:
        index = max(bisect.bisect_right(starts, line - 1) - 1, 0)
        tag, i1, _, j1, j2 = blocks[index]
        return j1 + (line - 1 - i1) + 1 if tag == "equal" else min(j1 + 1, max(j2, 1))

    return move
