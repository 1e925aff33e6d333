"""`check --add-noqa` only comments (issue 29 item 2, issue 30 item 7).

It never changes a byte of the code: where a statement goes on past a bare
CR (a CR-only file, `\\r` inside a triple-quoted string of an LF file, a
backslash continuation in a CR-only file), its comment goes at the end of
the statement's last physical line as Python's tokenizer counts lines. It
writes exactly the codes `check` with the same options shows, and says how
many.
"""

from __future__ import annotations

import ast
import json
import re
import shutil

import pytest

from .helpers import ROOT, assert_no_traceback, tft

ADDED = re.compile(r"  # noqa: TFT\d{3}(?:, TFT\d{3})*")
SHAPES = {
    "cr-only": b'import tensorflow as tf\rconfig = tf.ConfigProto()\rdoc = tf.ConfigProto(); s = """a\rb"""\r',
    "cr-only-continuation": b"import tensorflow as tf\rother = tf.ConfigProto() if True else \\\r    None\r",
    "cr-in-a-string-of-an-lf-file": b'import tensorflow as tf\nconfig = tf.ConfigProto(); s = """a\rb\r\nc"""\n'
                                    b"x = 1\n",
    "cr-in-a-string-of-a-crlf-file": b'import tensorflow as tf\r\nc = tf.ConfigProto(); s = """a\rb"""\r\nx = 1\r\n',
}


@pytest.mark.parametrize("data", SHAPES.values(), ids=SHAPES.keys())
def test_add_noqa_changes_no_byte_of_the_code(tmp_path, data):
    (tmp_path / "f.py").write_bytes(data)
    shown = json.loads(tft("check", "--no-cache", "--output-format", "json", "f.py", cwd=tmp_path).stdout)
    assert shown, "the shape has findings"
    run = tft("check", "--no-cache", "--add-noqa", "f.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 0 and "error" not in run.stderr.lower(), run
    new = (tmp_path / "f.py").read_bytes()
    assert ADDED.sub("", new.decode()).encode() == data, "only comments were added"
    assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(data)), "every string keeps its value"
    assert new.count(b"# noqa") == len({f["noqa_row"] for f in shown}), new
    after = tft("check", "--no-cache", "f.py", cwd=tmp_path)
    assert after.returncode == 0, after


def test_add_noqa_writes_exactly_the_codes_check_shows_and_says_how_many(tmp_path):
    tree = tmp_path / "example"
    shutil.copytree(ROOT / "examples" / "legacy_project", tree)
    shown = json.loads(tft("check", "--no-cache", "--output-format", "json", ".", cwd=tree).stdout)
    run = tft("check", "--no-cache", "--add-noqa", ".", cwd=tree)
    assert_no_traceback(run)
    written = []
    for path in sorted(tree.rglob("*")):
        if path.suffix in (".py", ".ipynb"):
            for codes in re.findall(r"# noqa: (TFT\d{3}(?:, TFT\d{3})*)", path.read_text()):
                written += codes.split(", ")
    assert sorted(written) == sorted(f["code"] for f in shown)  # main: 11 written for 6 shown
    assert f"{len(shown)} findings turned off by noqa comments" in run.stdout + run.stderr, run
