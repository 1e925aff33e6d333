"""Where each cell's source text is in a notebook's JSON bytes, so that `fix`
replaces only that text and every other byte stays as the file has it,
whatever wrote it: minified, tab-indented, outputs inline, Colab's `\\u003c`
escapes.

A small scanner over the JSON text (strings through the json module's own
`scanstring`); the spans it finds are checked by loading the result.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

_SPACE = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")
_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
_HTML_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u00(?:3[cCeE]|26)")
_NON_ASCII_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")


class _Invalid(ValueError):
    pass


def source_spans(text: str, key: str) -> dict[int, tuple[int, int]]:
    """{cell index: (start, end) of its `key` value in `text`} for the cells
    of `cells` (nbformat 4) or of `worksheets[0].cells` (nbformat 3)."""
    spans: dict[int, tuple[int, int]] = {}
    start = _SPACE.match(text, 0).end()
    _value(text, start, (), spans, key)
    return spans


def _value(text: str, pos: int, path: tuple, spans: dict, key: str) -> int:
    """Scan the value at `pos`; its end. `path`: the keys and indexes to it."""
    if pos >= len(text):
        raise _Invalid("unexpected end")
    char = text[pos]
    if char == '"':
        return scanstring(text, pos + 1)[1]
    if char == "{":
        pos = _SPACE.match(text, pos + 1).end()
        if text.startswith("}", pos):
            return pos + 1
        while True:
            if not text.startswith('"', pos):
                raise _Invalid("key expected")
            name, pos = scanstring(text, pos + 1)
            pos = _SPACE.match(text, pos).end()
            if not text.startswith(":", pos):
                raise _Invalid("':' expected")
            pos = _SPACE.match(text, pos + 1).end()
            start = pos
            pos = _value(text, pos, (*path, name), spans, key)
            if name == key and _is_cell(path):
                spans[path[-1]] = (start, pos)
            pos = _SPACE.match(text, pos).end()
            if text.startswith("}", pos):
                return pos + 1
            if not text.startswith(",", pos):
                raise _Invalid("',' expected")
            pos = _SPACE.match(text, pos + 1).end()
    if char == "[":
        pos = _SPACE.match(text, pos + 1).end()
        if text.startswith("]", pos):
            return pos + 1
        index = 0
        while True:
            pos = _value(text, pos, (*path, index), spans, key)
            pos = _SPACE.match(text, pos).end()
            if text.startswith("]", pos):
                return pos + 1
            if not text.startswith(",", pos):
                raise _Invalid("',' expected")
            pos = _SPACE.match(text, pos + 1).end()
            index += 1
    found = _SCALAR.match(text, pos)
    if found is None:
        raise _Invalid("value expected")
    return found.end()


def _is_cell(path: tuple) -> bool:
    return path[:1] == ("cells",) and len(path) == 2 or path[:3] == ("worksheets", 0, "cells") and len(path) == 4


def render(old: str, value, document: str) -> str:
    """`value` (a str or a list of str) as JSON laid out as `old`, the JSON
    text it replaces: a list's items on the lines and at the indentation of
    the old one's, the same separators; escaped as `document` escapes
    (non-ASCII as `\\uXXXX` or not, Colab's `\\u003c` for `<`, `>`, `&`)."""
    ascii_only = bool(_NON_ASCII_ESCAPE.search(document))
    html = bool(_HTML_ESCAPE.search(document))

    def string(text: str) -> str:
        out = json.dumps(text, ensure_ascii=ascii_only)
        if html:
            out = "".join(_HTML_ESCAPES.get(c, c) for c in out)
        return out

    if isinstance(value, str):
        return string(value)
    items = _list_layout(old)
    if not value:
        return "[]"
    before, between, after = items
    return "[" + before + between.join(string(item) for item in value) + after + "]"


def _list_layout(old: str) -> tuple[str, str, str]:
    """(space after `[`, separator between items, space before `]`) of a
    JSON list of strings as the file writes it; json.dumps' indent-1 layout
    for an empty or one-item list is guessed from its own spaces."""
    inner = old.strip()[1:-1]
    before = inner[: len(inner) - len(inner.lstrip())]
    after = inner[len(inner.rstrip()):]
    strings = []
    pos = len(before)
    while pos < len(inner) and inner[pos] == '"':
        _, end = scanstring(inner, pos + 1)
        strings.append((pos, end))
        pos = _SPACE.match(inner, end).end()
        if inner.startswith(",", pos):
            pos = _SPACE.match(inner, pos + 1).end()
    if len(strings) >= 2:
        between = inner[strings[0][1]: strings[1][0]]
    else:
        between = "," + before if "\n" in before else ", "
    return before, between, after


def replace_sources(raw: bytes, key: str, new: dict[int, object]) -> bytes | None:
    """`raw` with the `key` value of each cell in `new` ({cell index: new
    value}) replaced; None when the JSON cannot be scanned so."""
    bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
    text = raw.decode("utf-8-sig")
    try:
        spans = source_spans(text, key)
    except (ValueError, RecursionError):
        return None
    if any(index not in spans for index in new):
        return None
    out, position = [], 0
    for index in sorted(new, key=lambda i: spans[i]):
        start, end = spans[index]
        out += [text[position:start], render(text[start:end], new[index], text)]
        position = end
    out.append(text[position:])
    return (bom + "".join(out)).encode("utf-8")
