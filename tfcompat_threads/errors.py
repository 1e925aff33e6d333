"""Errors and warnings of the runtime shim (cheap to import: no TensorFlow)."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class ThreadConfigError(RuntimeError):
    """A setting TensorFlow fixes when its runtime starts (thread pools,
    devices) was asked with another value after the start."""


class ThreadConfigWarning(RuntimeWarning):
    """configure(on_conflict="warn"): the same conflict, as a warning."""


class UnmappedOptionWarning(UserWarning):
    """A ConfigProto field has no effect on this TensorFlow in this mode."""


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """`warnings.warn`, attributed to the line that called into this package:
    the first frame of the stack outside it, however deep the call went."""
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
