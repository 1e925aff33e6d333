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


def test_fixable_counts_findings_whose_edits_another_finding_carries(tmp_path):
    """Renames on consecutive lines are one edit, carried by the first
    finding: every one of them is fixed, and the table counts them all, as
    check's summary does."""
    tree = tmp_path / "owner+name"
    tree.mkdir()
    (tree / "trace.py").write_text("import tensorflow as tf\n"
                                   "run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)\n"
                                   "run_metadata = tf.RunMetadata()\n")
    work = tmp_path / "work"
    work.mkdir()
    report = real_repos.evaluate(tree, work, {})
    assert report["findings"] == 3 and report["changed"] == ["trace.py"] and report["left"] == []
    assert report["fixable"] == 3


def test_list_names_the_trees_run(tmp_path, capsys):
    """--list replaces bench/real_repos.tsv (the second set:
    bench/real_repos_unseen.tsv)."""
    listed = tmp_path / "set.tsv"
    listed.write_text("# a set\ntree\trepository\tcommit\twhy\nowner+name\towner/name\t0\ta test\n")
    assert real_repos.main(["--trees", str(tmp_path / "none"), "--list", str(listed)]) == 0
    err = capsys.readouterr().err
    assert "owner+name: not in" in err and "horovod+horovod" not in err
    unseen = [row.split("\t")[0] for row in (ROOT / "bench" / "real_repos_unseen.tsv").read_text().splitlines()
              if row and not row.startswith(("#", "tree\t"))]
    assert len(unseen) == len(set(unseen)) == 46 and not set(unseen) & {
        row.split("\t")[0] for row in (ROOT / "bench" / "real_repos.tsv").read_text().splitlines()}
