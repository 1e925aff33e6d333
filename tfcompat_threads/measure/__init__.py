"""What the thread knobs really do here: explain, probe, tune, and counting
the thread pools of a process. Nothing here imports TensorFlow in the calling
process: probe and tune run it in fresh processes (the pools are fixed once
per process)."""

from __future__ import annotations


class ToolError(Exception):
    """A measuring tool could not do its job; the message says why."""


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a measured child process."""
    import os

    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads would look like pool threads
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env.update(extra or {})
    return env
