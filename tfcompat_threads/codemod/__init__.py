"""The codemod: TF1 session-config code -> code that keeps its settings on TF2.

    from tfcompat_threads.codemod import transform
    result = transform(source_bytes, target="native", filename="train.py")
    result.source, result.findings

Targets: "native" (TF2 calls where a session only carried configuration,
tf.compat.v1 where a config feeds graphs) and "shim" (tfcompat_threads calls
that do the right thing on any TensorFlow). Works on bytes: encoding, BOM,
line endings and everything the fix does not touch come back unchanged.

Layout: `source.py` (bytes, CPython's parser, positions), `scopes.py` and
`analysis.py` (names and the flow of each ConfigProto), `rules/` (one module
per rule: docs, examples, check), `context.py` (what the rules of a file
share), `engine.py` (findings, one filtering pass, fixes applied as edits),
`prefilter.py` (the byte test that settles most files without parsing).

The names load on first use, so that the byte pre-filter costs no import of
the rules.
"""

from __future__ import annotations

from .. import _lazy_names

_LAZY = {
    "transform": "api",
    "Outcome": "engine",
    "CodemodError": "api",
    "TARGETS": "engine",
    "run": "engine",
    "Finding": "findings",
    "Fix": "findings",
    "RULES": "rules",
    "Rule": "rules",
}

__all__ = sorted(_LAZY)


__getattr__ = _lazy_names(__name__, _LAZY, globals())
