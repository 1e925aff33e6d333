"""A byte test that runs before any parse (ruff's `seen_module`): a file with
none of these tokens has nothing for the codemod, and is not parsed at all."""

from __future__ import annotations

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


def may_need_codemod(source: bytes) -> bool:
    # `in` is a C memmem scan, faster here than one regular expression of all the tokens
    if IMPORT in source and any(token in source for token in TRIGGERS):
        return True
    return not source.isascii() and _spelled_otherwise(source)


def _spelled_otherwise(source: bytes) -> bool:
    """The tokens spelled with characters Python reads as others: it
    NFKC-normalises identifiers, so `import tensorﬂow` (U+FB02) or
    fullwidth letters import TensorFlow."""
    import unicodedata

    normal = unicodedata.normalize("NFKC", source.decode("utf-8", "replace")).encode("utf-8", "replace")
    return normal != source and IMPORT in normal and any(token in normal for token in TRIGGERS)
