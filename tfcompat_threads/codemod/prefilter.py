"""A byte test that runs before any parse (ruff's `seen_module`): a file with
none of these tokens has nothing for the codemod, and is not parsed at all."""

from __future__ import annotations

import re

from .symbols import OPENMP_THREAD_VARIABLES, SHIM_NAMES, TF1_ONLY, THREAD_SETTERS

# One of these names must appear for any rule to fire: the last part of every
# name a rule looks for (derived from the symbol tables, never copied) ...
_NAMES = {
    *(name.rsplit(".", 1)[-1].encode() for name in (*TF1_ONLY, *SHIM_NAMES, *THREAD_SETTERS)),
    b"Session",  # Session, InteractiveSession, set_session, MonitoredTrainingSession
    b"_parallelism_threads",
    *(name.encode() for name in OPENMP_THREAD_VARIABLES),
}
# No token twice (one that holds another is implied by it); the commonest first.
_COMMON = (b"Session", b"ConfigProto", b"_parallelism_threads", b"set_session")
TRIGGERS = tuple(sorted((n for n in _NAMES if not any(o != n and o in n for o in _NAMES)),
                        key=lambda n: (_COMMON.index(n) if n in _COMMON else len(_COMMON), n)))
# ... and TensorFlow must be named: every rule needs a TensorFlow import to
# resolve names against (a Keras-only file has nothing to fix). One substring
# search over a file that has nothing for us: ~0.7 ms per MB here.
IMPORT = b"tensorflow"


# ... or a star import may bring it (`from utils import *`, utils.py importing tensorflow as tf).
# No `\b` before `import`: a pattern that starts with a literal is searched
# for that literal at C speed (10x faster over a tree with no TensorFlow).
# Between `import` and `*`, what Python allows there: spaces, tabs, form
# feeds and backslash-continued lines (`from utils import \` then `*` on the
# next; any of Python's line ends).
_GAP = rb"(?:[ \t\f]|\\(?:\r\n?|\n))"
_STAR = re.compile(rb"import" + _GAP + rb"*\*")


def _star(source: bytes) -> bool:
    """May the bytes hold a star import? A file without a `*` (a third of
    the standard library's) is settled by one memchr."""
    return b"*" in source and _STAR.search(source) is not None


def _groups(tokens: tuple[bytes, ...]) -> tuple[tuple[bytes, tuple[bytes, ...]], ...]:
    """The tokens under keys: a key is a word of two or more tokens (b"Hook":
    the session hooks, b"KMP": the OpenMP runtime's variables), chosen
    greedily to cover the most tokens not yet covered; a token no word
    shares is its own key. A file without a key holds none of its tokens,
    so most files are scanned once per key, not once per token. Derived
    from TRIGGERS, never written out."""
    left, groups = list(tokens), []
    words = {token: set(_WORDS.findall(token)) for token in tokens}
    while left:
        counts = {}
        for token in left:
            for word in words[token]:
                if len(word) >= 3:
                    counts[word] = counts.get(word, 0) + 1
        key = max(sorted(counts), key=lambda w: (counts[w], len(w)), default=None)
        if key is None or counts[key] < 2:
            groups += [(token, (token,)) for token in left]
            break
        groups.append((key, tuple(t for t in left if key in words[t])))
        left = [t for t in left if key not in words[t]]
    return tuple(sorted(groups, key=lambda group: min(map(tokens.index, group[1]))))  # the commonest first


_WORDS = re.compile(rb"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


GROUPS = _groups(TRIGGERS)


def star_may_bring_tensorflow(source: bytes, path: str | None) -> bool:
    """For a file that names no TensorFlow itself but has a star import: may
    one bring it? Only a star import of tensorflow, or of one of the
    repository's modules whose bytes name it (or that has a star import that
    may bring it, and so on), can: what a star import of a library brings
    is no name a rule resolves, and a module the file's repository does not
    have is not read (codemod/resolve.py `star_names`). Found from the
    bytes: the `from m import *` statements, the modules' files."""
    from pathlib import Path

    from .project import Project

    project = Project.of(path)
    if project is None:
        return True
    seen: set[Path] = set()
    pending = [(Path(path).resolve(), source)]
    while pending:
        here, data = pending.pop()
        for match in _STAR_FROM.finditer(data):
            dotted = match.group(1).decode("ascii", "replace")
            module = dotted.lstrip(".")
            level = len(dotted) - len(module)
            if not level and module.split(".")[0] == "tensorflow":
                return True
            file = project.module_file(here, module, level)
            if file is None or file in seen:
                continue
            seen.add(file)
            other = project.read(file)
            if other is None:
                continue
            if IMPORT in other or not other.isascii():
                return True
            pending.append((file, other))
    return False


# Where Python can have one: a statement at the start of a line or after a `;`,
# its parts apart by spaces or backslash-continued lines (an `import *` in
# text is no import).
_STAR_FROM = re.compile(rb"(?:^|;)" + _GAP + rb"*from" + _GAP + rb"+(\.*[\w.]*)" + _GAP + rb"+import" + _GAP
                        + rb"*\*", re.MULTILINE)


def may_name_tensorflow(source: bytes) -> bool:
    """The first half of the test, which a notebook's raw JSON takes (its
    code cells take the whole test, lint/notebooks.py `needs_codemod`)."""
    return IMPORT in source or _star(source) or not source.isascii()


def may_need_codemod(source: bytes, path: str | None = None) -> bool:
    """The test. `path`: the file's, when it is one; then a file that names
    TensorFlow only through a star import passes only when that import may
    bring it (`star_may_bring_tensorflow`)."""
    # `in` is a C memmem scan, faster here than one regular expression of all the tokens
    named = IMPORT in source
    if (named or _star(source)) and any(
            key in source and (len(group) == 1 or any(token in source for token in group)) for key, group in GROUPS):
        if named or path is None or (not source.isascii() and _spelled_otherwise(source)):
            return True
        return star_may_bring_tensorflow(source, path)  # it passed by its star import alone
    return not source.isascii() and _spelled_otherwise(source)


def _spelled_otherwise(source: bytes) -> bool:
    """The tokens spelled with characters Python reads as others: it
    NFKC-normalises identifiers, so `import tensorﬂow` (U+FB02) or
    fullwidth letters import TensorFlow. Normalising a whole file costs ~15x
    decoding it; only words that hold a non-ASCII character are normalised,
    and only where one of its non-ASCII characters normalises to ASCII
    letters, digits or `_` (composing makes no ASCII character: NFKC adds
    ASCII only by decomposing a character), which text in other scripts, its
    punctuation included, does not."""
    import unicodedata

    others = _non_ascii(source).decode("utf-8", "replace")  # whole characters: UTF-8 puts none in ASCII
    if not any(_turns_ascii(character) for character in set(others)):
        return False
    # The tokens are words: one spelled otherwise is in a run of word
    # characters and non-ASCII ones, and only those runs are normalised.
    words = set()
    for run in _FOREIGN.finditer(source):
        start, end = run.span()
        while start and source[start - 1] in _WORD_BYTES:
            start -= 1
        words.add(source[start : _WORD_TAIL.match(source, end).end()])
    normal = " ".join(unicodedata.normalize("NFKC", word.decode("utf-8", "replace")) for word in words).encode()
    return (IMPORT in source or IMPORT in normal) and any(token in source or token in normal for token in TRIGGERS)


_ASCII = bytes(range(128))
_CHUNK = 4096


def _non_ascii(source: bytes) -> bytes:
    """The bytes of `source` that are not ASCII, in order: those of each
    4 KB that holds one (a file's few are in few places; `isascii` reads a
    word at a time, `translate` a byte at a time)."""
    if len(source) <= _CHUNK:
        return source.translate(None, _ASCII)
    return b"".join(chunk.translate(None, _ASCII) for chunk in
                    (source[start:start + _CHUNK] for start in range(0, len(source), _CHUNK)) if not chunk.isascii())


_WORD = re.compile("[A-Za-z0-9_]")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_FOREIGN = re.compile(rb"[\x80-\xff]+")
_WORD_TAIL = re.compile(rb"[A-Za-z0-9_\x80-\xff]*")
_TURNS_ASCII: dict[str, bool] = {}


def _turns_ascii(character: str) -> bool:
    known = _TURNS_ASCII.get(character)
    if known is None:
        import unicodedata

        known = _TURNS_ASCII[character] = _WORD.search(unicodedata.normalize("NFKC", character)) is not None
    return known
