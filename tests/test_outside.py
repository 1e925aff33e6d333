"""After `fix`, a file that still reads TF1-only names outside session and
thread config gets one line counting them and naming tf_upgrade_v2; the
summary says what was checked. The list of names is the guards' list of
names TF2's root module lacks, checked here against the real TensorFlow."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tfcompat_threads.lint.outside import TF1_ONLY_OUTSIDE
from tests.tfproc import run

CLI = [sys.executable, "-m", "tfcompat_threads"]
LEFT = ("{path}: {n} of TF1-only names outside session and thread config left ({names}): not this tool's scope, "
        "`tf_upgrade_v2` rewrites them")


def fix(tmp_path, *args: str) -> list[str]:
    done = subprocess.run([*CLI, "fix", "--no-cache", "--exit-zero", *args, "."], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_fix_counts_the_tf1_only_names_it_leaves_and_names_tf_upgrade_v2(tmp_path):
    (tmp_path / "graph.py").write_text(textwrap.dedent("""\
        import tensorflow as tf
        from tensorflow import get_variable

        config = tf.ConfigProto(intra_op_parallelism_threads=2)
        x = tf.placeholder(tf.float32, shape=(None, 4))
        y = tf.placeholder(tf.float32)
        w = get_variable("w", shape=(4,))
        saver = tf.train.Saver()
        fine = tf.compat.v1.placeholder(tf.float32)
        with tf.Session(config=config) as sess:
            sess.run(x)
        """))
    (tmp_path / "eager.py").write_text("import tensorflow as tf\nconfig = tf.ConfigProto()\nprint(tf.ones(3))\n")
    (tmp_path / "nb.ipynb").write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                   "source": ["%matplotlib inline\n", "import tensorflow as tf\n", "config = tf.ConfigProto()\n",
                              "v = tf.get_variable('v', ())\n"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    out = fix(tmp_path)
    left = [line for line in out if "outside session and thread config" in line]
    assert left == [
        LEFT.format(path="./graph.py", n="4 uses", names="tf.placeholder, tf.get_variable, tf.train.Saver"),
        LEFT.format(path="./nb.ipynb", n="1 use", names="tf.get_variable"),
    ], out
    assert "tf.compat.v1.placeholder" in (tmp_path / "graph.py").read_text()
    assert out[-1].startswith("3 files checked for session and thread config, ")


def test_quiet_fix_and_check_print_no_such_line(tmp_path):
    (tmp_path / "graph.py").write_text("import tensorflow as tf\nconfig = tf.ConfigProto()\nx = tf.placeholder(1)\n")
    assert fix(tmp_path, "-q") == []
    check = subprocess.run([*CLI, "check", "--no-cache", "--exit-zero", "."], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120).stdout
    assert "outside session and thread config" not in check
    assert check.splitlines()[-1].startswith("1 file checked for session and thread config, ")


@pytest.mark.tf
def test_every_name_counted_is_one_the_installed_tf2_lacks():
    result = run(f"""
        import tensorflow as tf
        def has(root, dotted):
            for part in dotted.split("."):
                if not hasattr(root, part):
                    return False
                root = getattr(root, part)
            return True
        names = {sorted(TF1_ONLY_OUTSIDE)!r}
        emit(root=[n for n in names if has(tf, n)], compat=[n for n in names if not has(tf.compat.v1, n)])
        """)
    assert result["root"] == [], "TF2 has these: they are no TF1-only names"
    assert result["compat"] == ["contrib"], "tf_upgrade_v2 moves the rest under tf.compat.v1"
