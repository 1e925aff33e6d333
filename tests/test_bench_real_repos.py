"""bench/real_repos.py's table says what the tool did (its README table is
made from it)."""

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import real_repos  # noqa: E402  (a script of bench/)


def test_check_after_fix_is_checks_exit_code(tmp_path):
    """A .py file that is IPython, not Python, is rightly reported (exit 2)
    even when no finding is left: the column says exit 2, not exit 0."""
    tree = tmp_path / "owner+name"
    tree.mkdir()
    (tree / "train.py").write_text("import tensorflow as tf\nsess = tf.Session(config=tf.ConfigProto())\n"
                                   "sess.run(tf.constant(1))\n")
    (tree / "notebook_export.py").write_text("%matplotlib inline\nimport tensorflow as tf\nsess = tf.Session()\n")
    work = tmp_path / "work"
    work.mkdir()
    report = real_repos.evaluate(tree, work, {})
    assert report["left"] == [] and report["check_after_fix"] == 2
    assert real_repos.after_fix(report, Counter()) == "exit 2"
    report["tf_upgrade_v2"], report["unresolved"] = {}, {}
    assert "| exit 2 |" in real_repos.markdown([report], [])
