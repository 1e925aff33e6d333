"""Jupyter notebooks: the code cells become one Python module (so a config
made in one cell and used in another is followed), IPython magics masked.
Where each cell's lines are in the module is kept out of band (a table, no
marker text a cell could also contain); after the codemod its edits are
applied to the cells they fall in, and only the changed cells' source is
written back, the JSON keeping its indentation, key order and final newline.

Cells are numbered as ruff numbers them: the code cells, from 1 (markdown
and raw cells are not counted).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import json
import re
from dataclasses import dataclass, field

# A line IPython runs, not Python, at the start of a statement: %line magic,
# !shell, `x = !cmd` / `x = %magic`, and `obj?` / `obj??` help.
_MAGIC_LINE = re.compile(r"^\s*(%|!|\?|\w[\w.]*\s*=\s*[!%])|^\s*[\w.]+\s*\?\??\s*$")
_NEWLINE = re.compile(r"\r\n|\r|\n")
# IPython magics that run Python in the notebook's namespace: a line magic's
# argument and a cell magic's body are code (their reads are reads), after
# the options; the letters are the short options that take a value
# (IPython's getopt specs), None: its line is no code (only its body).
_PYTHON_MAGICS = {"time": "", "timeit": "nrp", "prun": "DlsT", "debug": "b", "capture": None}
_VALUED_LONG = frozenset({"breakpoint"})
_MAGIC_NAME = re.compile(r"\s*%%?(\w+)")
_TOKEN = re.compile(r"\s+(\S+)")


class NotebookError(Exception):
    pass


UNWRITABLE = ("`fix` cannot write this notebook's cells back without reformatting its JSON (not laid out as "
              "json.dumps lays it out): make the change by hand")


@dataclass
class Cell:
    index: int
    """Index in the notebook's cell list."""
    number: int
    """What findings show: 1-based among code cells."""
    text: str
    start_line: int
    """First line of the cell in the module (1-based)."""
    masked: set[int] = field(default_factory=set)
    """Lines (1-based, in the cell) that hold magics."""
    code_columns: dict[int, int] = field(default_factory=dict)
    """Magic lines whose argument is Python code: the column it starts at
    (a fix may edit the code, never the magic)."""
    indent: str = ""
    """The indentation of its first line, which IPython takes off every line
    that starts with it (its leading-indent transform): the module has the
    cell so dedented."""
    dedented: set[int] = field(default_factory=set)
    """Lines (1-based, in the cell) that lost `indent` in the module."""
    built: tuple[str, str, int] | None = None
    """(text, its code in the module, its line count) of the last build."""

    @property
    def line_count(self) -> int:
        return len(_NEWLINE.split(self.text))

    @property
    def newline(self) -> str:
        found = _NEWLINE.search(self.text)
        return found.group(0) if found else "\n"


@dataclass
class Notebook:
    document: dict
    raw: bytes
    cells: list[Cell]
    """The code cells in the module."""
    source_key: str
    """"source" (nbformat 4) or "input" (nbformat 3)."""
    scanned: bool = False
    """Read by nbjson.read: the places of its cells' sources in `raw` are
    known, so a rewrite is checked where it is, not by reading it all again."""
    text: str | None = None
    """`raw` decoded (UTF-8, a BOM taken off), kept for what reads it by position."""

    def cell_list(self) -> list:
        if "worksheets" in self.document:
            return self.document["worksheets"][0]["cells"]
        return self.document["cells"]


def load(raw: bytes) -> Notebook:
    from .nbjson import lone_surrogate, read

    try:
        decoded = raw.decode("utf-8-sig")
        document = read(decoded)  # one pass: the document, and where its cells are (for dump and source_rows)
        scanned = document is not None
        if document is None:
            document = json.loads(decoded)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise NotebookError(f"not a notebook (invalid JSON: {error})") from None
    except (RecursionError, MemoryError):
        raise NotebookError("not a notebook (its JSON is nested too deep to read)") from None
    if not isinstance(document, dict):
        raise NotebookError("not a notebook (the JSON is not an object)")
    if lone_surrogate(raw, decoded, scanned):  # in the cells' sources: outputs are kept byte for byte
        try:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as error:
            raise NotebookError(f"not a notebook (an escaped lone surrogate, {error.object[error.start]!r}, is not "
                                "text)") from None
    if isinstance(document.get("cells"), list):
        cells, key = document["cells"], "source"
    elif isinstance(document.get("worksheets"), list):  # nbformat 3
        sheets = document["worksheets"]
        if len(sheets) != 1 or not isinstance(sheets[0], dict) or not isinstance(sheets[0].get("cells"), list):
            raise NotebookError("nbformat 3 notebook with other than one worksheet: not supported")
        cells, key = sheets[0]["cells"], "input"
    else:
        raise NotebookError("not a notebook (no cells)")
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"not a notebook (cell {number} is not a cell)")
        source = cell.get(key, "")
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise NotebookError(f"not a notebook (the source of cell {number} is not text)")
    language = _language(document)
    code = []
    number = 0
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        text = _source(cell, key)
        if language not in (None, "python") or (text.lstrip().startswith("%%") and not _runs_python(text)):
            continue  # a cell magic that runs no Python here, or another language
        code.append(Cell(index, number, text, 0))
    return Notebook(document, raw, code, key, scanned, decoded)


def needs_codemod(raw: bytes) -> tuple[bool, Notebook | None]:
    """The pre-filter of a notebook: its code cells take the byte test a .py
    file takes (codemod/prefilter.py), not its outputs and markdown (megabytes
    of images a test of each token would scan); (whether the codemod runs,
    the notebook read, for the run). A notebook that cannot be read takes
    the test on its raw bytes, and its run says why it cannot."""
    from ..codemod.prefilter import may_name_tensorflow, may_need_codemod

    if not may_name_tensorflow(raw):
        return False, None
    try:
        notebook = load(raw)
    except NotebookError:
        return may_need_codemod(raw), None
    code = "\n".join(cell.text for cell in notebook.cells).encode("utf-8", "surrogatepass")
    return may_need_codemod(code), notebook


def _language(document: dict) -> str | None:
    metadata = document.get("metadata") or {}
    for value in ((metadata.get("language_info") or {}).get("name"), (metadata.get("kernelspec") or {}).get("language")):
        if isinstance(value, str):
            return value.lower()
    return None


def _source(cell: dict, key: str) -> str:
    source = cell.get(key, "")
    return "".join(source) if isinstance(source, list) else str(source)


def to_module(notebook: Notebook) -> str:
    """One module of the code cells, one after the other, each magic line
    replaced by a `pass` at its indentation (its continuation lines by blank
    lines), so that every line keeps its number."""
    parts = []
    line = 1
    for cell in notebook.cells:
        cell.start_line = line
        if cell.built is None or cell.built[0] != cell.text:  # a cell the fix left is not scanned again
            lines = _NEWLINE.split(cell.text)
            endings = _NEWLINE.findall(cell.text)
            cell.indent, cell.dedented = _leading_indent(lines)  # as IPython reads the cell
            dedented = "".join(text + (endings[i] if i < len(endings) else "") for i, text in enumerate(lines)) \
                if cell.indent else cell.text
            # of this text: a fix that moved lines moved its magics
            code, cell.masked, cell.code_columns, count = _masked(dedented)
            cell.built = (cell.text, code, count)
        parts.append(cell.built[1])
        line += cell.built[2]
    return "\n".join(parts) + "\n"


def _masked(text: str) -> tuple[str, set[int], dict[int, int], int]:
    """(code, masked lines, code columns, line count) of a cell: each magic
    line becomes a `pass` at its indentation (its continuation lines blank);
    one whose argument is Python keeps it, after a `pass;` as long as the
    magic and its options (`%timeit -n 3 f(x)` -> `pass;        f(x)`), so
    that every line and column keeps its place."""
    lines = _NEWLINE.split(text)
    masked: set[int] = set()
    columns: dict[int, int] = {}
    if "%" not in text and "!" not in text and "?" not in text:  # no magic without one of them
        return text, masked, columns, len(lines)
    endings = _NEWLINE.findall(text)
    for first, continuation in _magics(lines):
        line = lines[first - 1]
        indent = line[: len(line) - len(line.lstrip())]
        column = _code_column(line)
        if column is not None and _compiles("pass;" + line[column:], [lines[n - 1] for n in continuation]):
            lines[first - 1] = indent + "pass;" + " " * (column - len(indent) - 5) + line[column:]
            columns[first] = column
            masked.add(first)
            continue
        lines[first - 1] = indent + "pass"
        for number in continuation:
            lines[number - 1] = ""
        masked |= {first, *continuation}
    code = "".join(line + (endings[i] if i < len(endings) else "") for i, line in enumerate(lines))
    return code, masked, columns, len(lines)


def _code_column(line: str) -> int | None:
    """Where the Python argument of a Python-running magic starts (after its
    name and options, as IPython's getopt reads them); None: no code."""
    match = _MAGIC_NAME.match(line)
    valued = _PYTHON_MAGICS.get(match.group(1), None) if match else None
    if valued is None:
        return None
    position, skip = match.end(), False
    while (token := _TOKEN.match(line, position)) is not None:
        word, position = token.group(1), token.end()
        if skip:
            skip = False
        elif word == "--":
            following = _TOKEN.match(line, position)
            return following.start(1) if following else None
        elif word.startswith("--"):
            skip = word[2:] in _VALUED_LONG
        elif word.startswith("-") and len(word) > 1:
            letters = word[1:]
            taking = next((i for i, letter in enumerate(letters) if letter in valued), None)
            skip = taking == len(letters) - 1
        else:
            return token.start(1)
    return None


def _compiles(first: str, continuation: list[str]) -> bool:
    try:
        compile("\n".join([first, *continuation]) + "\n", "<magic>", "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _runs_python(text: str) -> bool:
    """A cell magic that runs its body as Python in the notebook's namespace
    (%%time, %%timeit, %%capture ...), and the body parses."""
    match = _MAGIC_NAME.match(text.lstrip())
    if match is None or match.group(1) not in _PYTHON_MAGICS:
        return False
    return _compiles(_masked(text)[0], [])


def _leading_indent(lines: list[str]) -> tuple[str, set[int]]:
    """IPython's leading-indent transform (after it drops the leading blank
    lines): the first line's indentation goes from every line that starts
    with it. Takes it off `lines`; (the indentation, the lines that lost it)."""
    first = next((line for line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    if not indent:
        return "", set()
    dedented = set()
    for number, line in enumerate(lines, start=1):
        if line.startswith(indent):
            lines[number - 1] = line[len(indent):]
            dedented.add(number)
    return indent, dedented


def _indented(content: str, cell: Cell, ends_dedented: bool) -> str:
    """Edit text for a dedented cell: the lines it starts get the cell's
    indentation back (the last one when what follows it was dedented)."""
    parts = _NEWLINE.split(content)
    out = parts[:1]
    for number, part in enumerate(parts[1:], start=2):
        # an empty line stays empty, but the last part starts the line the edit ends in
        indent = bool(part) or (number == len(parts) and ends_dedented)
        out.append(cell.indent + part if indent else part)
    return cell.newline.join(out)


def _magics(lines: list[str]) -> list[tuple[int, list[int]]]:
    """(line, its `\\` continuation lines) of each magic, 1-based: a magic is
    a magic-looking line where a statement starts."""
    found = []
    if not any(_MAGIC_LINE.match(line) for line in lines):  # most cells: no line looks like one
        return found
    starts = _statement_starts(lines)
    number = 0
    while number < len(lines):
        if starts[number] and _MAGIC_LINE.match(lines[number]):
            first, continuation = number + 1, []
            while lines[number].rstrip().endswith("\\") and number + 1 < len(lines):
                number += 1
                continuation.append(number + 1)
            found.append((first, continuation))
        number += 1
    return found


_SIGNIFICANT = re.compile(r"""[()\[\]{}#'"\\]""")


def _statement_starts(lines: list[str]) -> list[bool]:
    """For each line: does a new statement start on it (not inside brackets,
    a string, or after a backslash)? A light scanner over the characters that
    matter: magics are not Python, so the tokenizer cannot be used on a cell."""
    starts = []
    depth = 0
    quote = ""  # the open string's delimiter
    continued = False
    for line in lines:
        starts.append(depth == 0 and not quote and not continued)
        if starts[-1] and _MAGIC_LINE.match(line):
            continued = line.rstrip().endswith("\\")
            continue
        position = 0
        while True:
            if quote:
                end = _string_end(line, position, quote)
                if end < 0:
                    break
                position, quote = end, ""
            match = _SIGNIFICANT.search(line, position)
            if match is None:
                break
            char, position = match.group(), match.end()
            if char == "#":
                break
            if char in "'\"":
                quote = char * 3 if line.startswith(char * 3, position - 1) else char
                position += len(quote) - 1
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
            elif char == "\\":
                position += 1
        if quote in ("'", '"') and not line.rstrip().endswith("\\"):
            quote = ""  # a one-line string ends with its line
        continued = not quote and line.rstrip().endswith("\\") and not line.lstrip().startswith("#")
    return starts


def _string_end(line: str, position: int, quote: str) -> int:
    """Where the open string ends on this line (just past its quote), or -1."""
    while True:
        end = line.find(quote, position)
        if end < 0:
            return -1
        backslashes = 0
        while end - backslashes - 1 >= position and line[end - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return end + len(quote)
        position = end + 1


def locate(notebook: Notebook, line: int) -> tuple[Cell, int]:
    """(cell, line within it) of a module line."""
    found = notebook.cells[0]
    for cell in notebook.cells:
        if cell.start_line <= line:
            found = cell
    return found, line - found.start_line + 1


def apply_edits(notebook: Notebook, module, edits) -> bool:
    """Apply the codemod's edits (text offsets in `module`, the Source of the
    cells' module) to the cells they fall in; True when a cell changed. Each
    cell owns its lines and the line ending after its last line; an
    insertion where a cell starts belongs to the cell before. An edit across
    cells or over a magic line is refused."""
    import bisect

    starts = module.line_starts  # the lines' starts in its text, found when it was read

    def where(offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(starts, offset) - 1
        return index + 1, offset - starts[index]

    by_cell: dict[int, list] = {}
    for edit in edits:
        (line, column), (end_line, end_column) = where(edit.start), where(edit.end)
        cell, first = locate(notebook, line)
        position = notebook.cells.index(cell)
        if edit.start == edit.end and first == 1 and column == 0 and position > 0:
            cell = notebook.cells[position - 1]
            first = cell.line_count + 1
        last = end_line - cell.start_line + 1
        if last > cell.line_count + 1 or (last == cell.line_count + 1 and end_column > 0):
            raise NotebookError(f"cell {cell.number}: a fix spans two cells; not rewritten")
        touched = range(first, last + (1 if end_column else 0))
        if edit.start != edit.end and any(number in cell.masked and not (
                number in cell.code_columns and (number != first or column >= cell.code_columns[number]))
                for number in touched):
            raise NotebookError(f"cell {cell.number}: a fix touches a magic line; not rewritten")
        by_cell.setdefault(id(cell), []).append((first, column, last, end_column, edit.content))
    changed = False
    for cell in notebook.cells:
        pending = by_cell.get(id(cell))
        if not pending:
            continue
        text = cell.text + "\n"  # the line ending after the cell's last line is the cell's too
        line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        out, position = [], 0
        for first, column, last, end_column, content in sorted(pending):
            shift = len(cell.indent)  # a position in a dedented line is that much further in the cell
            start = line_starts[first - 1] + column + shift * (first in cell.dedented) \
                if first <= len(line_starts) else len(text)
            end = line_starts[last - 1] + end_column + shift * (last in cell.dedented) \
                if last <= len(line_starts) else len(text)
            out += [text[position:start], _indented(content, cell, last in cell.dedented)]
            position = end
        out.append(text[position:])
        new = "".join(out)
        if cell.text.endswith(("\n", "\r")):
            new = new[:-1] if new.endswith("\n") else new  # the line ending added above
        else:
            new = re.sub(r"(\r\n|\r|\n)\Z", "", new)
        if new != cell.text:
            cell.text = new
            changed = True
    return changed


def dump(notebook: Notebook, bytes_wanted: bool = True) -> bytes:
    """The notebook with the cells' new sources: only the text of each
    changed cell's `source` is replaced in the file's bytes (a list stays a
    list, laid out and escaped as the file has it); every other byte stays.
    Without `bytes_wanted`, only whether it can be written (NotebookError if
    not): the file's own bytes come back, not a copy of its megabytes."""
    cells = notebook.cell_list()
    new, old = {}, {}
    for cell in notebook.cells:
        entry = cells[cell.index]
        if cell.text == _source(entry, notebook.source_key):
            continue
        source = old[cell.index] = entry.get(notebook.source_key)
        entry[notebook.source_key] = cell.text.splitlines(keepends=True) if isinstance(source, list) else cell.text
        new[cell.index] = entry[notebook.source_key]
    if not new:
        return notebook.raw
    from .nbjson import replace_sources

    if notebook.scanned:
        written = replace_sources(notebook.raw, notebook.source_key, new, old, notebook.text, bytes_wanted)
        if written is not None:
            return written if bytes_wanted else notebook.raw
        raise NotebookError("cannot find its cells' source in the JSON; fix it by hand")
    written = replace_sources(notebook.raw, notebook.source_key, new)
    try:
        if written is not None and json.loads(written.decode("utf-8-sig")) == notebook.document:
            return written
    except ValueError:
        pass
    raise NotebookError("cannot find its cells' source in the JSON; fix it by hand")


class NotebookModule:
    """A notebook as the codemod engine reads and edits it (the engine's
    `Module` protocol): its code cells as one module, edits back into cells."""

    def __init__(self, notebook: Notebook) -> None:
        self.notebook = notebook
        self.original = {cell.index: cell.text for cell in notebook.cells}
        self.builds: list[list[int]] = []
        """The cells' first lines, per module built."""
        self._module: bytes | None = None
        self.exact = True
        """The last `apply` made the module that the edits make of its text
        (no line ending adapted to a cell's): positions move as the edits say."""

    def code(self) -> bytes:
        if self._module is None:  # built again only when a cell changed
            self._module = to_module(self.notebook).encode("utf-8")
        self.builds.append([cell.start_line for cell in self.notebook.cells])
        return self._module

    def apply(self, source, edits) -> bool:
        changed = apply_edits(self.notebook, source, edits)
        if changed:
            self._module = to_module(self.notebook).encode("utf-8")
            self.exact = self._module == source.apply(edits)
        return changed

    def changed_cells(self) -> list[tuple[int, str, str]]:
        return [(cell.number, self.original[cell.index], cell.text)
                for cell in self.notebook.cells if cell.text != self.original[cell.index]]

    def place(self, findings, build: int) -> None:
        """Findings of module build `build` (0: the first): cell, and line in the cell."""
        starts = self.builds[build]
        cells = self.notebook.cells
        for finding in findings:
            index = max(i for i, start in enumerate(starts) if start <= finding.start.line) if starts else 0
            offset = starts[index] - 1
            finding.cell = cells[index].number
            cell = cells[index]
            for end in ("start", "end"):
                place = getattr(finding, end)
                line = place.line - offset
                column = place.column + len(cell.indent) * (line in cell.dedented)
                setattr(finding, end, place._replace(line=line, column=column))
            finding.noqa_row -= offset


def run(data: bytes, settings, fix: bool, enabled: frozenset[str], path: str | None = None, memo=None,
        add_noqa: bool = False, loaded: Notebook | None = None, leftover: bool = False, trial: bool = False):
    """(engine outcome with findings placed in cells and the new notebook
    bytes, the NotebookModule or None when there is no code). `loaded`: the
    notebook of `data`, already read (a copy of its own is edited).
    `leftover`: count what fix leaves (engine.LintOptions). `trial`: a fix
    run that only tells whether fix can write the notebook (its bytes are
    not made)."""
    from ..codemod import engine
    from ..codemod.source import SourceError

    notebook = load(data) if loaded is None else loaded
    if not notebook.cells:
        return engine.Outcome([], data), None
    if memo is None and not fix:
        memo = _Kept()  # the fix run that tells what fix can write (below) takes this run's first round
    module = NotebookModule(notebook)
    try:
        outcome = engine.run(module, settings.target, None, wants=enabled.__contains__,
                             unsafe_fixes=settings.unsafe_fixes, fix=fix, path=path, memo=memo, add_noqa=add_noqa,
                             tf_version=settings.tf_version, build=settings.build, leftover=leftover,
                             trial=trial)
    except SourceError as error:
        raise _in_cell(module, error) from None
    outcome.problems = [_in_cell(module, problem) for problem in outcome.problems]
    module.place(outcome.findings, 0)
    if outcome.remaining is not outcome.findings and module.builds:
        remaining = [f for f in outcome.remaining if f not in outcome.findings]
        module.place(remaining, len(module.builds) - 1)
    try:
        if module.changed_cells():
            outcome.source = dump(notebook, bytes_wanted=not trial)
        else:
            outcome.source = data
            fixable = not fix and any(f.fixed for f in outcome.findings)
            if fixable and run(data, settings, True, enabled, path, memo, loaded=_fresh(notebook, module),
                               trial=True)[1] is None:
                raise NotebookError(UNWRITABLE)  # check marks fixable only what fix can write
    except NotebookError:
        for finding in outcome.findings:
            if finding.fixed:
                finding.fixed = False
                finding.help = UNWRITABLE
        outcome.source, outcome.remaining = data, list(outcome.findings)
        return outcome, None
    return outcome, module


def _fresh(notebook: Notebook, module: NotebookModule) -> Notebook:
    """The notebook as `load` read it, for a run that edits it: its cells'
    entries are copies (a fix replaces their source), the rest is shared
    (a cell still as read keeps what reading it as a module found)."""
    document = dict(notebook.document)
    copied = [dict(entry) if isinstance(entry, dict) else entry for entry in notebook.cell_list()]
    if "worksheets" in document:
        document["worksheets"] = [dict(document["worksheets"][0], cells=copied)]
    else:
        document["cells"] = copied
    cells = [dataclasses.replace(cell, start_line=0) if cell.text == module.original[cell.index] and cell.built
             else Cell(cell.index, cell.number, module.original[cell.index], 0) for cell in notebook.cells]
    return Notebook(document, notebook.raw, cells, notebook.source_key, notebook.scanned, notebook.text)


class _Kept:
    """The memo (lint/cache.py's protocol) of one check of a notebook with no
    cache: its first round's findings and edits, for the fix run that tells
    whether fix can write the notebook (each recall gets findings of its own)."""

    wants_left = False
    """The fix run this is for prints nothing of what it leaves (codemod/leftover.py)."""

    def __init__(self) -> None:
        self.entry: tuple | None = None

    def recall(self, code: bytes):
        if self.entry is None or self.entry[0] != code:
            return None
        _, findings, planned = self.entry
        copies = [dataclasses.replace(finding) for finding in findings]
        if planned is None:
            return copies, None, None
        edits, skipped = planned
        return copies, (list(edits), [copies[index] for index in skipped]), None

    @contextlib.contextmanager
    def recording(self):
        yield

    def keep(self, code: bytes, findings, planned, left=None) -> None:
        kept = [dataclasses.replace(finding) for finding in findings]
        if planned is not None:
            edits, skipped = planned
            planned = (list(edits), [next(i for i, f in enumerate(findings) if f is s) for s in skipped])
        self.entry = (code, kept, planned)


def _in_cell(module: NotebookModule, error):
    """A SourceError of the module as one of the cell it is in."""
    from ..codemod.source import SourceError

    starts = module.builds[-1] if module.builds else [1]
    index = max(i for i, start in enumerate(starts) if start <= error.line)
    cell = module.notebook.cells[index]
    return SourceError(error.line - starts[index] + 1, error.column, error.message, cell.number)




def source_rows(raw: bytes, notebook: Notebook, wanted: set[int] | None = None) -> dict[int, list[int]]:
    """For each code cell (by index in the cell list): the line of the .ipynb
    file that holds each of its source lines (a list `source` holds one line
    per string, a string `source` all of them on its own line). Found from
    the positions of the JSON text; values not on the way are skipped by
    the C decoder."""
    from .nbjson import cells, elements

    text = notebook.text if notebook.text is not None and notebook.raw is raw else raw.decode("utf-8-sig")
    counted = [0, 1]  # an offset and its row: rows are counted forward from the last one asked

    returns = "\r" in text

    def row(offset: int) -> int:
        if offset < counted[0]:
            counted[:] = [0, 1]
        start = counted[0]
        breaks = text.count("\n", start, offset)
        if returns:
            breaks += text.count("\r", start, offset) - text.count("\r\n", start, offset)
        counted[:] = [offset, counted[1] + breaks]
        return counted[1]

    found = cells(text)
    rows: dict[int, list[int]] = {}
    for cell in notebook.cells:
        if wanted is not None and cell.index not in wanted:
            continue  # no finding there: its rows are not counted
        at, inner = found[cell.index]
        start = dict((k, s) for k, s, _ in inner or ()).get(notebook.source_key)
        if start is None:
            rows[cell.index] = [row(at)]
            continue
        if text[start] == '"':
            rows[cell.index] = [row(start)] * cell.line_count
            continue
        lines: list[int] = []
        line_open = False  # the last string ended inside a line
        pieces = elements(text, start)
        known = notebook.cell_list()[cell.index].get(notebook.source_key)  # the same strings, decoded by load
        known = known if isinstance(known, list) and len(known) == len(pieces) else None
        for number, (piece_start, piece_end) in enumerate(pieces):
            piece = known[number] if known is not None else json.loads(text[piece_start:piece_end])
            if not piece:
                continue
            if not line_open:
                lines.append(row(piece_start))
            breaks = [m.end() for m in _NEWLINE.finditer(piece)]
            lines += [row(piece_start)] * sum(1 for end in breaks if end < len(piece))
            line_open = not piece.endswith(("\n", "\r"))
        rows[cell.index] = lines or [row(start)]
    return rows


def place_in_file(findings, raw: bytes, notebook: Notebook) -> None:
    """Each finding's `file_rows`: the lines of the .ipynb file (`raw`) that
    hold its first and last source lines."""
    if not findings:
        return
    by_number = {cell.number: cell.index for cell in notebook.cells}
    rows = source_rows(raw, notebook, {by_number.get(finding.cell, -1) for finding in findings})
    for finding in findings:
        lines = rows.get(by_number.get(finding.cell, -1))
        if not lines:
            continue
        finding.file_rows = (lines[min(finding.start.line, len(lines)) - 1],
                             lines[min(finding.end.line, len(lines)) - 1])
