"""A byte test that runs before any parse (ruff's `seen_module`): a file with
none of these tokens has nothing for the codemod, and is not parsed at all."""

from __future__ import annotations

# One of these names must appear for any rule to fire ...
TRIGGERS = (
    b"ConfigProto",
    b"GPUOptions",
    b"Session",  # Session, InteractiveSession, set_session, MonitoredTrainingSession
    b"enable_eager_execution",
    b"_parallelism_threads",
)
# ... and TensorFlow must be named: every rule needs a TensorFlow import to
# resolve names against (a Keras-only file has nothing to fix). One substring
# search over a file that has nothing for us: ~0.7 ms per MB here.
IMPORT = b"tensorflow"


def may_need_codemod(source: bytes) -> bool:
    return IMPORT in source and any(token in source for token in TRIGGERS)
