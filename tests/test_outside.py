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

from tfcompat_threads.codemod.leftover import TF1_ONLY_OUTSIDE
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


def test_a_notebook_is_counted_as_one_module_its_cells_run_in(tmp_path):
    """Its cells share one namespace: a use in a cell after the import is one."""
    (tmp_path / "nb.ipynb").write_text(json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
                  for source in (["import tensorflow as tf\n"], ["%time x = 1\n", "sess = tf.Session()\n"],
                                 ["x = tf.placeholder(tf.float32)\n", "y = tf.placeholder(tf.float32)\n"],
                                 ["tf.logging.info('%s', x)\n"])],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    left = [line for line in fix(tmp_path) if "outside session and thread config" in line]
    assert left == [LEFT.format(path="./nb.ipynb", n="3 uses", names="tf.placeholder, tf.logging")]
    assert "tf.compat.v1.Session()" in (tmp_path / "nb.ipynb").read_text()


def _both(text: str, edits: list[tuple[int, int, str]]):
    """What `after` says of the edited text, and what reading it again says."""
    import ast

    from tfcompat_threads.codemod import leftover
    from tfcompat_threads.codemod.scopes import Scopes
    from tfcompat_threads.codemod.source import Edit, Source

    source = Source(text.encode())
    left = leftover.left_in(Scopes(source.tree), source)
    fixed = text
    for start, end, content in sorted(edits, reverse=True):
        fixed = fixed[:start] + content + fixed[end:]
    return leftover.after(left, text, [Edit(*e) for e in edits], fixed), leftover.in_tree(ast.parse(fixed))


HEAD = "import tensorflow as tf\nfrom tensorflow import layers\n"


def _at(text: str, old: str, new: str, nth: int = 0) -> tuple[int, int, str]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(old, start + 1)
    return start, start + len(old), new


@pytest.mark.parametrize("body, change, carried", [
    # what the fixes do: the uses the edits leave alone are counted without reading the module again
    ("s = tf.Session()\nx = tf.placeholder(1)\n", (".Session", ".compat.v1.Session"), True),
    ("c = tf.ConfigProto()\nc.intra_op_parallelism_threads = 2\nv = layers.dense(1)\n",
     ("c.intra_op_parallelism_threads = 2\n", ""), True),
    ("with tf.Session(graph=tf.get_default_graph()) as s:\n    pass\n",
     ("tf.Session(graph=tf.get_default_graph())", "tf.compat.v1.Session()"), True),  # a use inside what goes
    ("h = tf.train.SessionRunHook\nx = tf.app.flags\n", (".train.SessionRunHook", ".compat.v1.train.SessionRunHook"),
     True),
    # where an edit may make, move or rebind one, the module is read again
    ("x = tf.compat.v1.layers.dense\n", (".compat.v1", ""), False),  # the chain joins: tf.layers
    ("x = K.layers.dense\n", ("K", "tf"), False),  # a bare name an import binds, before `.layers`
    ("x = tf.foo\n", (".foo", ".placeholder"), False),  # a name of the list in the new text
    ("x = tf.train.Foo()\n", ("Foo", "Saver"), False),
    ("s = tf.contrib\nt = tf.train.X\n", (".X", ".train"), False),  # `... .train` then `.Saver`? read again
    ("x = tf.placeholder(1)\n", ("x", "tf"), False),  # rebinding `tf`
    ("def f(tf):\n    return tf.placeholder(1)\n", ("tf):", "k):"), False),  # a parameter: a binding
    ("def f(k):\n    return tf.placeholder(1)\n", ("def f(k):", "def f(k, tf=None):"), False),
    ("x = tf.placeholder(1)\n", ("\n", "\nimport tensorflow.compat.v1 as tf\n"), False),
    ("x = tf.placeholder(1)\ny = g(2)\n", ("(1)\ny = g(", "(1)\ny = h("), False),  # brackets it does not close
    ("x = tf.logging\ny = a.logging\n", ("a.", "tf."), False),  # a chain its end begins
    ("def f():\n    tf = 1\n    return tf.placeholder\nx = tf.app\n", ("def f():\n    ", "if 1:\n    "),
     False),  # a scope's header replaced, its body kept
    ("def f(k):\n    return tf.placeholder\nx = tf.app\n", ("def f(k):\n    return tf.placeholder\n", ""),
     True),  # a whole def removed, and the use in it
    ("s = tf.Session()\nx = tf.placeholder(1)\n", ("s = tf.Session()\n", "import tfcompat_threads\ns = tf.Session()\n"),
     True),  # the shim's import binds no name of TensorFlow's
])
def test_the_count_after_a_fix_is_the_count_of_the_fixed_module(body, change, carried):
    text = HEAD + body
    said, read = _both(text, [_at(text, change[0], change[1], nth=text.count(change[0]) - body.count(change[0]))])
    assert (said is not None) == carried
    if said is not None:
        assert list(said.items()) == list(read.items())


def test_every_fixture_fix_counts_the_same_both_ways(monkeypatch):
    """Over every fixture input (with uses of TF1-only names added at its
    end), fixed with each target: what the engine counts from the edits is
    what reading the fixed module again counts."""
    import ast
    from pathlib import Path

    from tfcompat_threads.codemod import engine, leftover

    answered = []
    after = leftover.after
    monkeypatch.setattr(leftover, "after", lambda *a: answered.append(after(*a)) or answered[-1])
    compared = 0
    for path in sorted(Path(__file__).resolve().parent.parent.glob("fixtures/*/input.py")):
        data = path.read_bytes() + b"\nimport tensorflow as _tf1\n_left = (_tf1.placeholder, _tf1.logging.info)\n"
        for target in ("native", "shim"):
            outcome = engine.run(data, target, str(path), unsafe_fixes=True, leftover=True)
            if outcome.source == data:
                continue
            assert list(outcome.outside.items()) == list(leftover.in_tree(ast.parse(outcome.source)).items()), (
                path, target)
            compared += 1
    carried = sum(answer is not None for answer in answered)
    assert compared >= 60 and carried >= compared // 2, (compared, carried)
