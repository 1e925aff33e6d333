"""A stand-in `tensorflow` that imports in milliseconds, for tests of `tune`
that time plain Python programs: `run`'s recorder (which `tune` uses to tell
whether a command imports TensorFlow at all) sees it imported. It makes no
pools: nothing is measured with it."""

__version__ = "0.0.0+standin"
