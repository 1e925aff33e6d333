"""Errors and warnings of the runtime shim (cheap to import: no TensorFlow)."""


class ThreadConfigError(RuntimeError):
    """TensorFlow's thread pools already run with other sizes than asked."""


class ThreadConfigWarning(RuntimeWarning):
    """configure(on_conflict="warn"): the same conflict, as a warning."""


class UnmappedOptionWarning(UserWarning):
    """A ConfigProto field has no effect on this TensorFlow in this mode."""
