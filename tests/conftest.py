"""The whole suite keeps its cache (lint/cache.py) in a folder of its own,
and its key (in $XDG_STATE_HOME), never in the user's: each test process
gets fresh ones."""

import os
import tempfile


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="tfcompat-threads-cache-")
    os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = folder
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="tfcompat-threads-state-")
