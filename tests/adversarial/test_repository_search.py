"""The searches over the repository's other files a fix asks (issue 29 item 10).

Every regular expression over repository text is linear: `[ \\t]` where a
line is meant, never `^\\s*` under MULTILINE (quadratic over a run of blank
lines). Each input below is ten times the one that took 36 s on main, so
quadratic would take an hour; linear takes a second.
"""

from __future__ import annotations

import json

from .helpers import assert_no_traceback, tft

SETUP_TF = ("import tensorflow as tf\n\nconfig = tf.ConfigProto(intra_op_parallelism_threads=1)\n"
            "sess = tf.InteractiveSession(config=config)\n")
BLANK_LINES = 400_000


def test_a_notebook_cell_of_blank_lines_beside_a_one_file_check(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "setup_tf.py").write_text(SETUP_TF)
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
             for source in ("\n" * BLANK_LINES, "import app.setup_tf\nsess.list_devices()")]
    (tmp_path / "explore.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                        "nbformat_minor": 5}))
    run = tft("check", "--no-cache", "app/setup_tf.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 1 and "explore.ipynb:cell 2" in run.stdout, run


def test_blank_lines_in_setup_py_beside_an_import_the_repository_may_install(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.py").write_text("from setuptools import setup\n" + "\n" * BLANK_LINES + "setup(name='x')\n")
    (tmp_path / "train.py").write_text("import tensorflow as tf\nimport mylib\n"
                                       "config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
                                       "mylib.make_session(config)\n")
    run = tft("check", "--no-cache", "--select", "ALL", "train.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 1 and "TFT011" in run.stdout, run
