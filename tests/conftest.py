"""The whole suite keeps its cache (lint/cache.py) in a folder of its own,
and its key (in $XDG_STATE_HOME), never in the user's: each test process
gets fresh ones.

TensorFlow tests (`@pytest.mark.tf`) run their scenarios on TF_PYTHON
(tests/tfproc.py), a row of scripts/test's matrix. `@pytest.mark.tf` alone
runs on every TensorFlow from 2.11 (the behaviour of TF2 eager that most of
them pin down); `@pytest.mark.tf(since=(1, 15))` widens that: such a test
holds on that release and every newer one, and `before=(2, 0)` ends the
range (TF1-only behaviour), and `build="threadpool"` or `build="openmp"`
keeps it to the builds whose oneDNN runs on that runtime (the official
wheels: threadpool; Intel's: OpenMP), as the row's TensorFlow itself says
(tests/tfproc.py `openmp_build`), and `own_row=True` keeps it to the
newest row (scripts/test sets TFCOMPAT_TEST_NEWEST_ROW=1 there; without a
row, the tests' own TensorFlow), for a test whose release-dependent part
another test checks on every row. On a
row outside its range a test is deselected
(pytest counts it so), never run and skipped. Likewise a test marked
`python_since((3, 11), why=...)` on an older Python."""

import os
import sys
import tempfile

DEFAULT_SINCE = (2, 11)


def pytest_configure(config):
    folder = tempfile.mkdtemp(prefix="tfcompat-threads-cache-")
    os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = folder
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="tfcompat-threads-state-")


def pytest_collection_modifyitems(config, items):
    markers = [item.get_closest_marker("tf") for item in items]
    release = None
    ranged = any(m is not None and ("before" in m.kwargs or "build" in m.kwargs) for m in markers)
    if os.environ.get("TFCOMPAT_TEST_TF_PYTHON") or ranged:
        from tests.tfproc import tf_release  # without a row: the tests' own TensorFlow, the newest

        release = tf_release()
    build = None
    if release is not None and any(m is not None and "build" in m.kwargs for m in markers):
        from tests.tfproc import openmp_build

        build = "openmp" if openmp_build() else "threadpool"
    from tests.tfproc import TF_PYTHON

    own = (os.path.realpath(TF_PYTHON) == os.path.realpath(sys.executable)  # the tests' own TensorFlow
           or os.environ.get("TFCOMPAT_TEST_NEWEST_ROW") == "1")  # scripts/test's newest row
    keep, older = [], []
    for item, marker in zip(items, markers):
        outside = False
        if marker is not None and release is not None:
            since = tuple(marker.kwargs.get("since", DEFAULT_SINCE))
            outside = release < since or release >= tuple(marker.kwargs.get("before", (99,)))
            outside = outside or marker.kwargs.get("build", build) != build
            outside = outside or (marker.kwargs.get("own_row", False) and not own)
        python = item.get_closest_marker("python_since")
        outside = outside or (python is not None and sys.version_info[:2] < tuple(python.args[0]))
        (older if outside else keep).append(item)
    if older:
        config.hook.pytest_deselected(items=older)
        items[:] = keep
