"""Jupyter notebooks: the code cells become one Python module (so a config
made in one cell and used in another is followed), IPython magics masked;
after the codemod, only the cells whose source changed are written back, and
the JSON keeps its indentation, key order and final newline."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_MARKER = "# tfcompat-threads: cell {index}"
_MARKER_RE = re.compile(r"^# tfcompat-threads: cell (\d+)$")
# A statement, not a comment: a magic may be all there is in an indented block.
_MAGIC = "pass  # tfcompat-threads: magic {number}"
_MAGIC_RE = re.compile(r"^(\s*)pass  # tfcompat-threads: magic (\d+)$")
# A line IPython runs, not Python: %line magic, !shell, `x = !cmd`, `obj?` help.
_MAGIC_LINE_RE = re.compile(r"^\s*(%|!|\w[\w.]*\s*=\s*[!%])|^[^#'\"]*\?\s*$")


class NotebookError(Exception):
    pass


@dataclass
class Notebook:
    document: dict
    raw: bytes
    indent: int | None
    ensure_ascii: bool
    cells: list[int]
    """Indexes (in the notebook) of the code cells that are in the module."""
    magics: list[str]


def load(raw: bytes) -> Notebook:
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise NotebookError(f"not a notebook (invalid JSON: {error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotebookError("not a notebook (no cells)")
    indent, ensure_ascii = _json_style(document, raw)
    cells = [
        index
        for index, cell in enumerate(document["cells"])
        if cell.get("cell_type") == "code" and not _source(cell).lstrip().startswith("%%")
    ]
    return Notebook(document, raw, indent, ensure_ascii, cells, [])


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _dump(document: dict, indent, ensure_ascii: bool) -> str:
    return json.dumps(document, indent=indent, ensure_ascii=ensure_ascii)


def _json_style(document: dict, raw: bytes):
    """The json.dumps settings that give back these bytes; None when none do
    (the notebook can still be checked, not rewritten)."""
    text = raw.decode("utf-8-sig").rstrip("\n")
    for indent in (1, 2, 4, None, 3):
        for ensure_ascii in (False, True):
            if _dump(document, indent, ensure_ascii) == text:
                return indent, ensure_ascii
    return -1, False


def to_module(notebook: Notebook) -> str:
    """One module: each code cell after a marker line, magics masked."""
    lines: list[str] = []
    for index in notebook.cells:
        lines.append(_MARKER.format(index=index))
        cell_lines = _source(notebook.document["cells"][index]).split("\n")
        number = 0
        while number < len(cell_lines):
            line = cell_lines[number]
            number += 1
            if not _MAGIC_LINE_RE.match(line):
                lines.append(line)
                continue
            magic = [line]
            while magic[-1].rstrip().endswith("\\") and number < len(cell_lines):  # `!cmd \` goes on
                magic.append(cell_lines[number])
                number += 1
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(indent + _MAGIC.format(number=len(notebook.magics)))
            lines += [""] * (len(magic) - 1)  # keep the cell's line numbers
            notebook.magics.append("\n".join(magic))
    return "\n".join(lines) + "\n"


def cell_of_line(notebook: Notebook, module: str, line: int) -> tuple[int, int]:
    """(notebook cell index, line within the cell) of a line of the module."""
    cell, start = notebook.cells[0] if notebook.cells else 0, 1
    for number, text in enumerate(module.split("\n")[: line - 1], start=1):
        match = _MARKER_RE.match(text)
        if match:
            cell, start = int(match.group(1)), number + 1
    return cell, line - start + 1


def from_module(notebook: Notebook, module: str) -> bytes:
    """The notebook with the cells the module changed; other bytes as they were."""
    sources: dict[int, list[str]] = {}
    current = None
    skip = 0  # the blank lines that stood in for a magic's continuation lines
    for line in module.removesuffix("\n").split("\n"):
        match = _MARKER_RE.match(line)
        if match:
            current = int(match.group(1))
            sources[current] = []
        elif skip and line == "":
            skip -= 1
        elif current is not None:
            magic = _MAGIC_RE.match(line)
            if magic:
                text = notebook.magics[int(magic.group(2))]
                skip = text.count("\n")
                sources[current].append(text)
            else:
                sources[current].append(line)
    if sorted(sources) != sorted(notebook.cells):
        raise NotebookError("internal error: the cell markers did not survive the rewrite")
    changed = False
    for index, lines in sources.items():
        cell = notebook.document["cells"][index]
        old = _source(cell)
        new = "\n".join(lines)
        if new != old:
            changed = True
            cell["source"] = new.splitlines(keepends=True) if isinstance(cell.get("source"), list) else new
    if not changed:
        return notebook.raw
    if notebook.indent == -1:
        raise NotebookError("cannot rewrite this notebook without reformatting its JSON; fix it by hand")
    text = _dump(notebook.document, notebook.indent, notebook.ensure_ascii)
    trailing = notebook.raw.decode("utf-8-sig")[len(notebook.raw.decode("utf-8-sig").rstrip("\n")) :]
    bom = "\ufeff" if notebook.raw.startswith(b"\xef\xbb\xbf") else ""
    return (bom + text + trailing).encode("utf-8")
