"""Where each cell's source text is in a notebook's JSON bytes, so that `fix`
replaces only that text and every other byte stays as the file has it,
whatever wrote it: minified, tab-indented, outputs inline, Colab's `\\u003c`
escapes.

The one reader of a notebook's JSON text by position: `members` and
`elements` list an object's or an array's values with their spans (each value
skipped by the C decoder); the spans it finds are checked by loading the result.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
_HTML_ESCAPE = re.compile(r"\\u00(?:3[cCeE]|26)")
_NON_ASCII_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")


def members(text: str, at: int) -> list[tuple[str, int, int]]:
    """(key, value start, value end) of the members of the JSON object at `at`
    (values read by the C decoder)."""
    return _object_read(text, at)[0]


def read(text: str):
    """The notebook's JSON (nbformat 4: a top-level `cells` array) read in
    one pass that also finds where each cell and its members are, as
    `cells` gives them (kept for it): the document json.loads makes, each
    value decoded once by the same C decoder; None where this read does not
    apply (no `cells` array, a top-level key twice) or the JSON is invalid
    (json.loads then says why)."""
    try:
        return _read(text)
    except (ValueError, IndexError, RecursionError):
        return None


def _read(text: str):
    at = _SPACE.match(text, 0).end()
    if text[at] != "{":
        return None
    document: dict = {}
    found = None
    position = _SPACE.match(text, at + 1).end()
    if text[position] == "}":
        return None
    while True:
        key, position = _key(text, position)
        start = _SPACE.match(text, position).end()
        if key == "cells" and text[start] == "[":
            value, end, found = _cells_read(text, start)
        else:
            value, end = _DECODER.raw_decode(text, start)
        if key in document:
            return None
        document[key] = value
        position = _SPACE.match(text, end).end()
        if text[position] == "}":
            break
        position = _after_comma(text, position)
    if found is None or _SPACE.match(text, position + 1).end() != len(text):
        return None
    _CELLS[:] = [text, found]
    return document


def _key(text: str, position: int) -> tuple[str, int]:
    """A member's key at `position` and where its value may start (after the colon)."""
    if text[position] != '"':
        raise ValueError("a key")
    key, position = scanstring(text, position + 1)
    position = _SPACE.match(text, position).end()
    if text[position] != ":":
        raise ValueError("a colon")
    return key, position + 1


def _after_comma(text: str, position: int) -> int:
    if text[position] != ",":
        raise ValueError("a comma")
    return _SPACE.match(text, position + 1).end()


def _cells_read(text: str, at: int):
    """The cells array at `at`: (its value, where it ends, (start, members) of each cell)."""
    values, found = [], []
    position = _SPACE.match(text, at + 1).end()
    if text[position] == "]":
        return values, position + 1, found
    while True:
        if text[position] == "{":
            inner, value, end = _object_read(text, position)
        else:
            inner, (value, end) = None, _DECODER.raw_decode(text, position)
        values.append(value)
        found.append((position, inner))
        position = _SPACE.match(text, end).end()
        if text[position] == "]":
            return values, position + 1, found
        position = _after_comma(text, position)


def _object_read(text: str, at: int):
    """The object at `at`: (its members as `members` lists them, its value, where it ends)."""
    members_, value = [], {}
    position = _SPACE.match(text, at + 1).end()
    if text[position] == "}":
        return members_, value, position + 1
    while True:
        key, position = _key(text, position)
        start = _SPACE.match(text, position).end()
        item, end = _DECODER.raw_decode(text, start)
        members_.append((key, start, end))
        value[key] = item
        position = _SPACE.match(text, end).end()
        if text[position] == "}":
            return members_, value, position + 1
        position = _after_comma(text, position)


def elements(text: str, at: int) -> list[tuple[int, int]]:
    """(start, end) of the values of the JSON array at `at`."""
    out = []
    position = _SPACE.match(text, at + 1).end()
    if text[position] == "]":
        return out
    while True:
        _, end = _DECODER.raw_decode(text, position)
        out.append((position, end))
        position = _SPACE.match(text, end).end()
        if text[position] == "]":
            return out
        position = _SPACE.match(text, position + 1).end()


def cells_at(text: str) -> list[int]:
    """Where each cell's object starts: the cells of `cells` (nbformat 4) or
    of `worksheets[0].cells` (nbformat 3)."""
    return [at for at, _ in cells(text)]


def cells(text: str) -> list[tuple[int, list | None]]:
    """(start, members or None for what is no object) of each cell. Read
    once per text, each value decoded once (a check asks for the sources'
    places and the file's rows of the same notebook)."""
    if _CELLS and _CELLS[0] == text:
        return _CELLS[1]
    found = []
    for at in _cells_array(text):
        found = _cells_read(text, at)[2]
    _CELLS[:] = [text, found]
    return found


_CELLS: list = []


def _cells_array(text: str) -> list[int]:
    """Where the cells' array starts (none, or one)."""
    cells_array, sheet = [], None
    for key, start, _ in members(text, _SPACE.match(text, 0).end()):
        if key == "cells" and text[start] == "[":
            cells_array = [start]
        elif key == "worksheets" and text[start] == "[":
            sheets = elements(text, start)
            if sheets and text[sheets[0][0]] == "{":
                inner = [at for name, at, _ in members(text, sheets[0][0]) if name == "cells"]
                if inner and text[inner[-1]] == "[":
                    sheet = [inner[-1]]
    return sheet if sheet is not None else cells_array


def source_spans(text: str, key: str) -> dict[int, tuple[int, int]]:
    """{cell index: (start, end) of its `key` value in `text`}."""
    spans: dict[int, tuple[int, int]] = {}
    for index, (_, inner) in enumerate(cells(text)):
        for name, start, end in inner or ():
            if name == key:
                spans[index] = (start, end)
    return spans


def escaping(document: str) -> tuple[bool, bool]:
    """How `document` escapes: non-ASCII as `\\uXXXX`, and Colab's `\\u003c` for `<`, `>`, `&`."""
    if "\\u" not in document:  # most notebooks: one C scan, not two searches
        return False, False
    return _escapes(document, _NON_ASCII_ESCAPE), _escapes(document, _HTML_ESCAPE)


def _escapes(document: str, escape: re.Pattern) -> bool:
    """An `escape` in `document` that is one (not `\\\\u...`, an escaped
    backslash before a `u`): an even run of backslashes before it. Linear:
    each run is counted once, before the one match it precedes."""
    for found in escape.finditer(document):
        before = found.start()
        while before > 0 and document[before - 1] == "\\":
            before -= 1
        if (found.start() - before) % 2 == 0:
            return True
    return False


def render(old: str, value, style: tuple[bool, bool]) -> str:
    """`value` (a str or a list of str) as JSON laid out as `old`, the JSON
    text it replaces: a list's items on the lines and at the indentation of
    the old one's, the same separators; escaped in the `style` of the
    document (`escaping`)."""
    ascii_only, html = style

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


def replace_sources(raw: bytes, key: str, new: dict[int, object], old: dict[int, object] | None = None,
                    text: str | None = None, bytes_wanted: bool = True) -> bytes | None:
    """`raw` with the `key` value of each cell in `new` ({cell index: new
    value}) replaced; None when the JSON cannot be scanned so. With `old`
    (the values replaced, as the document `read` made holds them), each
    replaced text is checked where it is: it held the old value, and the
    new text reads as the new value (every other byte is the file's, so the
    result reads as the document with those values: no reading it whole).
    Without `bytes_wanted` (and with `old`), b"" where it would be written."""
    bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
    text = raw.decode("utf-8-sig") if text is None else text  # `text`: raw decoded so, already
    try:
        spans = source_spans(text, key)
    except (ValueError, IndexError, RecursionError):
        return None
    if any(index not in spans for index in new):
        return None
    strings = [item for value in new.values() for item in ([value] if isinstance(value, str) else value)]
    # the document's escaping matters only for a character it may escape (ASCII text is written one way)
    styled = any(not item.isascii() or "<" in item or ">" in item or "&" in item for item in strings)
    out, position, style = [], 0, escaping(text) if styled else (False, False)
    same = raw.isascii()  # then a place in the text is the same place in the bytes: they are spliced
    for index in sorted(new, key=lambda i: spans[i]):
        start, end = spans[index]
        written = render(text[start:end], new[index], style)
        if old is not None and (json.loads(text[start:end]) != old[index] or json.loads(written) != new[index]):
            return None
        if old is not None and not bytes_wanted:
            continue
        out += [raw[position:start] if same else text[position:start], written.encode("utf-8") if same else written]
        position = end
    if old is not None and not bytes_wanted:
        return b""
    if same:
        return b"".join([*out, raw[position:]])
    out.append(text[position:])
    return (bom + "".join(out)).encode("utf-8")


def lone_surrogate(raw: bytes, text: str, scanned: bool) -> bool:
    """An escaped lone surrogate in the text the tool reads of a notebook:
    its cells' sources (outputs and metadata are kept byte for byte, never
    text to it). `scanned`: `read` found the cells of `text` (`raw`
    decoded): only their sources are scanned, not megabytes of outputs;
    else the whole file."""
    if not scanned:
        return lone_surrogate_escape(raw)
    return any(lone_surrogate_escape(text[start:end].encode("utf-8"))
               for start, end in source_spans(text, "source").values())


def lone_surrogate_escape(raw: bytes) -> bool:
    """An escape of half a surrogate pair (`\\ud83d`) in the JSON that is no
    half of an escaped pair: one the document's text may hold alone (then
    notebooks.load encodes the document to find it). Escapes whose backslash is
    itself escaped (`\\\\ud83d`) are text, not escapes."""
    escapes = []
    for found in _ESCAPED_SURROGATE.finditer(raw):
        start = before = found.start()
        while before > 0 and raw[before - 1] == 0x5C:
            before -= 1
        if (start - before) % 2 == 0:
            escapes.append((start, int(raw[start + 2 : start + 6], 16)))
    waiting = None  # the end of a high half's escape
    for start, unit in escapes:
        if 0xD800 <= unit < 0xDC00:
            if waiting is not None:
                return True
            waiting = start + 6
        elif waiting != start:  # a low half not right after a high one
            return True
        else:
            waiting = None
    return waiting is not None


_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")  # one half of a pair, or alone (which is not text)
