"""One module's bytes: decoded once, parsed by CPython's own parser, and the
positions, text and comments the rules ask for.

Positions of `ast` nodes are (line, UTF-8 byte column); findings show
(line, character column), and edits are applied to the original bytes, so
every byte the edits do not cover comes back unchanged: encoding, BOM,
coding cookie, line endings, a missing final newline.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

_NEWLINE = re.compile(r"\r\n|\r|\n")
BOM = b"\xef\xbb\xbf"
# CPython's syntax tree takes about 230 bytes of memory per byte of source
# (measured: 1.15 GB for a 5 MB module); a file that needs parsing and is
# larger than this is reported and left as it is, so that a run stays under
# 1 GB (check and fix of a 2 MB file: 0.48 and 0.81 GB here).
MAX_SOURCE_BYTES = 2_000_000


class SourceError(Exception):
    """The bytes cannot be analysed: (line, column, message)."""

    def __init__(self, line: int, column: int, message: str, cell: int | None = None) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message
        self.cell = cell
        """A notebook's code cell (1-based) that line and column are in."""

    def where(self, path: str) -> str:
        """`path:line:col` (`path:cell N:line:col`), as findings show it."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{path}:{cell}{self.line}:{self.column}"


class Position(NamedTuple):
    """1-based line and 1-based column, in characters (as ruff shows them)."""

    line: int
    column: int


class Edit(NamedTuple):
    """Replace the characters [start, end) of the text with `content`."""

    start: int
    end: int
    content: str


def detect_encoding(data: bytes) -> str:
    import tokenize
    from io import BytesIO

    try:
        return tokenize.detect_encoding(BytesIO(data).readline)[0]
    except SyntaxError as error:  # a bad coding cookie
        raise SourceError(error.lineno or 1, 1, f"cannot decode: {error.msg}") from None


class Source:
    """Decoded text, line table and syntax tree of one module."""

    def __init__(self, data: bytes, filename: str | None = None, parse: bool = True) -> None:
        if len(data) > MAX_SOURCE_BYTES:
            raise SourceError(1, 1, f"{len(data):,} bytes of Python: larger than the {MAX_SOURCE_BYTES:,} this "
                              "tool parses (its syntax tree would need about "
                              f"{len(data) * 230 / 1e9:.1f} GB); not analysed")
        self.data = data
        self.filename = filename or "<source>"
        self.encoding = detect_encoding(data)
        try:
            self.text = data.decode(self.encoding)
        except (UnicodeDecodeError, LookupError) as error:
            raise SourceError(1, 1, f"cannot decode as {self.encoding}: {error}") from None
        self._bom = 3 if self.encoding == "utf-8-sig" and data.startswith(BOM) else 0
        self.ascii = self.text.isascii()
        self._byte_starts: list[int] | None = None
        starts = [0]
        starts += [match.end() for match in _NEWLINE.finditer(self.text)]
        self.line_starts = starts
        first = _NEWLINE.search(self.text)
        self.newline = first.group(0) if first else "\n"
        self.tree = self._parse() if parse else None
        """The syntax tree (None when not asked for: text and offsets only)."""

    def _parse(self) -> ast.Module:
        import warnings

        try:
            with warnings.catch_warnings():  # the user's code may warn (escapes): not ours to say
                warnings.simplefilter("ignore")
                return compile(self.text, self.filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as error:
            line = error.lineno or 1
            column = error.offset or 1
            raise SourceError(line, column, f"cannot parse: {error.msg}") from None
        except (RecursionError, MemoryError):
            raise SourceError(1, 1, "nested too deeply for Python's parser; not analysed") from None
        except ValueError as error:  # null bytes
            raise SourceError(1, 1, f"cannot parse: {error}") from None

    # -- lines and offsets ---------------------------------------------------------

    def line_text(self, line: int) -> str:
        """Line `line` (1-based) without its line ending."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset(self, line: int, utf8_column: int) -> int:
        """Text offset of an `ast` position."""
        start = self.line_starts[line - 1]
        if self.ascii:
            return start + utf8_column
        text = self.line_text(line)
        return start + len(text.encode("utf-8")[:utf8_column].decode("utf-8", "replace"))

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]

    def position(self, offset: int) -> Position:
        """1-based line and column of a text offset."""
        import bisect

        index = bisect.bisect_right(self.line_starts, offset) - 1
        return Position(index + 1, offset - self.line_starts[index] + 1)

    def node_range(self, node: ast.AST) -> tuple[Position, Position]:
        return self.position(self.start(node)), self.position(self.end(node))

    def line_start(self, offset: int) -> int:
        """Offset of the start of the line holding `offset`."""
        import bisect

        return self.line_starts[bisect.bisect_right(self.line_starts, offset) - 1]

    def line_end(self, offset: int) -> int:
        """Offset just past the line ending of the line holding `offset`
        (the end of the text on a last line without one)."""
        import bisect

        index = bisect.bisect_right(self.line_starts, offset)
        return self.line_starts[index] if index < len(self.line_starts) else len(self.text)

    def indent_of(self, node: ast.AST) -> str:
        """The whitespace before a statement on its first line."""
        text = self.line_text(node.lineno)
        return text[: len(text) - len(text.lstrip())]

    # -- comments --------------------------------------------------------------------

    @property
    def indent_unit(self) -> str:
        """The file's indentation step (its first indented block), else 4 spaces
        (found once; `functools.cached_property` is not there on Python 3.7,
        where `rule` imports this module)."""
        found = self.__dict__.get("_indent_unit")
        if found is None:
            found = self.__dict__["_indent_unit"] = self._first_indent_step()
        return found

    def _first_indent_step(self) -> str:
        for node in ast.walk(self.tree):
            body = getattr(node, "body", None)
            if isinstance(node, ast.stmt) and type(body) is list and body and body[0].lineno > node.lineno:
                outer, inner = self.indent_of(node), self.indent_of(body[0])
                if inner.startswith(outer) and len(inner) > len(outer):
                    return inner[len(outer):]
        return "    "

    def comments(self, start: int, end: int) -> list[tuple[int, str]]:
        """(offset, text) of the comments in text[start:end], a range of whole
        logical lines (statements), found by Python's own tokenizer."""
        import io
        import tokenize

        piece = self.text[start:end]
        if "#" not in piece:
            return []
        found = []
        base_line = self.position(start).line
        try:
            for token in tokenize.generate_tokens(io.StringIO(piece).readline):
                if token.type == tokenize.COMMENT:
                    row, column = token.start
                    found.append((self.line_starts[base_line + row - 2] + column, token.string))
        except (tokenize.TokenError, SyntaxError):
            pass
        return found

    # -- writing ----------------------------------------------------------------------

    def apply(self, edits: list[Edit]) -> bytes:
        """The original bytes with `edits` (non-overlapping) applied; all other
        bytes exactly as they were."""
        out: list[bytes] = []
        position = 0
        encoding = "utf-8" if self.encoding == "utf-8-sig" else self.encoding
        for edit in sorted(edits, key=lambda e: (e.start, e.end)):
            start, end = self.byte_offset(edit.start), self.byte_offset(edit.end)
            out.append(self.data[position:start])
            out.append(edit.content.encode(encoding))
            position = end
        out.append(self.data[position:])
        return b"".join(out)

    def byte_offset(self, offset: int) -> int:
        if self.ascii:
            return self._bom + offset
        import bisect

        encoding = "utf-8" if self.encoding == "utf-8-sig" else self.encoding
        if self._byte_starts is None:
            self._byte_starts, total = [], self._bom
            for index, start in enumerate(self.line_starts):
                self._byte_starts.append(total)
                end = self.line_starts[index + 1] if index + 1 < len(self.line_starts) else len(self.text)
                total += len(self.text[start:end].encode(encoding))
        index = bisect.bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[index]
        return self._byte_starts[index] + len(self.text[start:offset].encode(encoding))

