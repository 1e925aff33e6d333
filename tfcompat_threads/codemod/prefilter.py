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
# ... and TensorFlow (or the Keras that wraps it) must be imported.
IMPORTS = (b"tensorflow", b"keras")


def may_need_codemod(source: bytes) -> bool:
    return any(token in source for token in IMPORTS) and any(token in source for token in TRIGGERS)
