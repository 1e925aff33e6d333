"""The whole suite keeps its cache (lint/cache.py) in a folder of its own,
and its key (in $XDG_STATE_HOME), never in the user's: each test process
gets fresh ones.

TensorFlow tests (`@pytest.mark.tf`) run their scenarios on TF_PYTHON
(tests/tfproc.py), a row of scripts/test's matrix. `@pytest.mark.tf` alone
runs on every TensorFlow from 2.11 (the behaviour of TF2 eager that most of
them pin down); `@pytest.mark.tf(since=(1, 15))` widens that: such a test
holds on that release and every newer one. On an older row a test is
deselected (pytest counts it so), never run and skipped. Likewise a test
marked `python_since((3, 11), why=...)` on an older Python."""

import os
import sys
import tempfile

DEFAULT_SINCE = (2, 11)


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="tfcompat-threads-cache-")
    os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = folder
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="tfcompat-threads-state-")


def pytest_collection_modifyitems(config, items):
    release = None
    if os.environ.get("TFCOMPAT_TEST_TF_PYTHON"):  # else the tests' own TensorFlow: the newest row
        from tests.tfproc import tf_release

        release = tf_release()
    keep, older = [], []
    for item in items:
        marker = item.get_closest_marker("tf")
        since = tuple(marker.kwargs.get("since", DEFAULT_SINCE)) if marker is not None else None
        python = item.get_closest_marker("python_since")
        too_old = (release is not None and since is not None and release < since) or (
            python is not None and sys.version_info[:2] < tuple(python.args[0]))
        (older if too_old else keep).append(item)
    if older:
        config.hook.pytest_deselected(items=older)
        items[:] = keep
