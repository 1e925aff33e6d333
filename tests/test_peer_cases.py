"""Shapes found by TensorFlow's own upgrade tests and four unseen corpora
(issue 28), checked where a fixture folder would say less."""

from __future__ import annotations

import json
import subprocess
import sys

from tfcompat_threads.codemod import transform


def json_findings(tmp_path, source: str) -> list[dict]:
    path = tmp_path / "program.py"
    path.write_text(source)
    proc = subprocess.run([sys.executable, "-m", "tfcompat_threads", "check", "--no-cache", "--output-format",
                           "json", str(path)], capture_output=True, text=True)
    return json.loads(proc.stdout)


def apply(source: str, edits: list[dict]) -> str:
    """ruff's edits (1-based rows and columns, exclusive ends) applied to one-line-per-row text."""
    rows = source.splitlines(keepends=True)
    offset = lambda place: sum(len(r) for r in rows[:place["row"] - 1]) + place["column"] - 1
    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        start, end = offset(edit["location"]), offset(edit["end_location"])
        source = source[:start] + edit["content"] + source[end:]
        rows = source.splitlines(keepends=True)
    return source


def test_each_of_two_renames_on_one_line_carries_the_edit_that_fixes_it(tmp_path):
    """JSON: a consumer that applies one finding's fix gets that rename, not
    half a line or nothing; all of them together give what `fix` writes."""
    source = ("import tensorflow as tf\n"
              "opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE); meta = tf.RunMetadata()\n")
    findings = json_findings(tmp_path, source)
    assert len(findings) == 3 and all(f["fix"]["edits"] for f in findings), findings
    alone = [apply(source, f["fix"]["edits"]).splitlines()[1] for f in findings]
    assert alone == [
        "opts = tf.compat.v1.RunOptions(trace_level=tf.RunOptions.FULL_TRACE); meta = tf.RunMetadata()",
        "opts = tf.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE); meta = tf.RunMetadata()",
        "opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE); meta = tf.compat.v1.RunMetadata()",
    ]
    every = [e for f in findings for e in f["fix"]["edits"]]
    assert apply(source, every).encode() == transform(source.encode(), "native").source


def test_set_session_of_tensorflows_internal_keras_is_said_to_reach_no_tf_keras_model():
    """tensorflow.python.keras still has set_session on 2.21
    (tests/test_runtime_claims.py): the true problem is that tf.keras models
    never use the session it sets."""
    source = (b"import tensorflow as tf\nfrom tensorflow.python.keras import backend as K\n"
              b"sess = tf.compat.v1.Session()\nK.set_session(sess)\nsess.run(op)\n")
    [finding] = [f for f in transform(source, "native").findings if f.code == "TFT003"]
    assert "has no set_session" not in finding.message
    assert "tf.keras models" in finding.message and "never use the session" in finding.message
