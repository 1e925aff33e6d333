"""Line and column of nodes, from one plain code generation of the module.

libcst's PositionProvider records a CodePosition for every node while it
generates code (~20 ms for a 50-line file here); the codemod needs the
positions of the few nodes it reports. This generates the code once,
noting only each node's token index, and turns an index into a line and
column when asked. The same tokens give the module's code back, which
api.py compares with the original bytes.
"""

from __future__ import annotations

import libcst as cst

try:  # libcst's code generation state; private, so a fallback keeps us working
    from libcst._nodes.internal import CodegenState
except ImportError:  # pragma: no cover - only on a libcst that moved it
    CodegenState = None


class Position:
    __slots__ = ("line", "column")

    def __init__(self, line: int, column: int) -> None:
        self.line, self.column = line, column


class CodeRange:
    __slots__ = ("start", "end")

    def __init__(self, start: Position, end: Position) -> None:
        self.start, self.end = start, end


class Positions:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._fallback = None
        if CodegenState is None:
            self._fallback = _provider_positions(module)
            return
        state = _RecordingState(default_indent=module.default_indent, default_newline=module.default_newline)
        state.starts, state.ends = {}, {}
        module._codegen(state)
        self.tokens: list[str] = state.tokens
        self._starts, self._ends = state.starts, state.ends
        self._line_starts: list[tuple[int, int]] | None = None

    @property
    def code(self) -> str:
        return "".join(self.tokens) if self._fallback is None else self.module.code

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._fallback is not None:
            found = self._fallback[node]
            return CodeRange(Position(found.start.line, found.start.column), Position(found.end.line, found.end.column))
        return CodeRange(self._at(self._starts[node], skip_space=True), self._at(self._ends[node]))

    def _at(self, index: int, skip_space: bool = False) -> Position:
        """Line (1-based) and column (0-based) where token `index` starts."""
        if self._line_starts is None:
            self._line_starts = self._index_lines()
        if skip_space:  # a node's own leading whitespace is not where it starts
            while index < len(self.tokens) and not self.tokens[index].strip():
                index += 1
        line, column = self._line_starts[min(index, len(self._line_starts) - 1)]
        return Position(line, column)

    def _index_lines(self) -> list[tuple[int, int]]:
        table = []
        line, column = 1, 0
        for token in self.tokens:
            table.append((line, column))
            newlines = token.count("\n")
            if newlines:
                line += newlines
                column = len(token) - token.rfind("\n") - 1
            else:
                column += len(token)
        table.append((line, column))
        return table


if CodegenState is not None:

    class _RecordingState(CodegenState):
        def before_codegen(self, node: cst.CSTNode) -> None:
            self.starts[node] = len(self.tokens)

        def after_codegen(self, node: cst.CSTNode) -> None:
            self.ends[node] = len(self.tokens)


def _provider_positions(module: cst.Module):
    from libcst.metadata import MetadataWrapper, PositionProvider

    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
