"""The whole suite keeps its cache (lint/cache.py) in a folder of its own,
never in the user's: each test process gets a fresh one."""

import os
import tempfile


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="tfcompat-threads-cache-")
    os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = folder
