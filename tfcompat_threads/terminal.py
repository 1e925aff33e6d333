"""Text that reaches a terminal or a log, made visible.

A file name, a string of the user's code quoted in a message or an
environment variable's value can hold an escape sequence (`\\x1b]0;...\\x07`
retitles a terminal), a line end that forges a line of output (a GitHub
`::error`, a summary), or a bidirectional control that makes text read
otherwise than it is. Printed through `visible`, each is its escape.
"""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 thread`, `2 threads` (`words`: a plural not made by adding s)."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def visible(text: str) -> str:
    """`text` with every character `str.isprintable` rejects (C0 and C1
    controls, DEL, U+2028/U+2029, bidirectional controls, ...) written as
    its Python escape (`\\x1b`, `\\u2028`), and bytes a file name has that
    are not UTF-8 (surrogate escapes) as `\\xNN`.

    >>> visible("a\\x1b]0;PWNED\\x07\\nb\\u202e.py")
    'a\\\\x1b]0;PWNED\\\\x07\\\\x0ab\\\\u202e.py'
    """
    if text.isprintable():
        return text
    return "".join(character if character.isprintable() else _escape(ord(character)) for character in text)


def _escape(point: int) -> str:
    if 0xDC80 <= point <= 0xDCFF:  # os.fsdecode's stand-in for a byte that is not UTF-8
        return f"\\x{point - 0xDC00:02x}"
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"


_C_ESCAPES = {0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f", 0x0D: "r", 0x22: '"', 0x5C: "\\"}


def c_quoted(name: str) -> str:
    """A file name as git writes it in a diff header (`core.quotePath`): as
    it is when every character is printable and none is `"` or a backslash;
    else in double quotes, with C escapes (`\\n`, `\\t`, `\\"`, `\\\\`) and
    every other byte that is not printable ASCII in octal (`\\033`), which
    `patch` and `git apply` read back.

    >>> c_quoted("a.py"), c_quoted("a.py\\n--- victim.txt")
    ('a.py', '"a.py\\\\n--- victim.txt"')
    """
    import os

    if name.isprintable() and '"' not in name and "\\" not in name:
        return name
    out = []
    for byte in os.fsencode(name):
        if byte in _C_ESCAPES:
            out.append("\\" + _C_ESCAPES[byte])
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
