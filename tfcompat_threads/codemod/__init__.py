"""The codemod: TF1 session-config code -> code that keeps its settings on TF2.

    from tfcompat_threads.codemod import transform
    result = transform(source_bytes, target="native", filename="train.py")
    result.source, result.findings

Targets: "native" (TF2 calls where a session only carried configuration,
tf.compat.v1 where a config feeds graphs) and "shim" (tfcompat_threads calls
that do the right thing on any TensorFlow). Works on bytes: encoding, BOM,
line endings and everything the fix does not touch come back unchanged.

The names load on first use, so that the byte pre-filter (`prefilter.py`)
costs no import of libcst or of the rules.
"""

from __future__ import annotations

from .. import _lazy_names

_LAZY = {
    "transform": "api",
    "Result": "api",
    "CodemodError": "api",
    "TARGETS": "api",
    "RULES": "findings",
    "Rule": "findings",
    "Finding": "findings",
    "Position": "findings",
}

__all__ = sorted(_LAZY)


__getattr__ = _lazy_names(__name__, _LAZY, globals())
