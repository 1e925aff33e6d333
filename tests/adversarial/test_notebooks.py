"""Notebooks (issue 13 items 2, 10 and 11).

Cells are handled without in-band markers: a cell whose text looks like the
markers the rewrite once used (`# tfcompat-threads: cell 0`, `pass  #
tfcompat-threads: magic 0`) survives `fix` exactly, as do magics and
black-style continuation lines that start with `%` or `!=` (valid Python, not
magics). CRLF cells keep CRLF; nbformat 3 is handled or reported as such.
The property test generates cells of every marker-like text, magic and
continuation line, and runs the command line in this process (one notebook
per example; the black-box tests run it as a subprocess).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tfcompat_threads.cli import main

from .helpers import assert_no_traceback, assert_one_error, lines_naming, tft

LEGACY_CELL = ("import tensorflow as tf\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
               "sess = tf.Session(config=config)")
FIXED_CELL = "import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(2)"


def lines(source: str) -> list[str]:
    return source.splitlines(keepends=True)


def document(sources: list[str]) -> dict:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines(s)}
             for s in sources]
    metadata = {"kernelspec": {"name": "python3"}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def sources(path: Path) -> list[str]:
    return ["".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]]


def assert_only_the_legacy_cell_fixed(path: Path, before: list[str], legacy_index: int) -> None:
    after = sources(path)
    expected = list(before)
    expected[legacy_index] = FIXED_CELL
    assert after == expected


# -- item 2: marker-like text ----------------------------------------------------------


@pytest.mark.parametrize("text", [
    "x = 1\n# tfcompat-threads: cell 0\ny = 2",  # moved another cell's text into cell 0
    "x = 1\n# tfcompat-threads: cell 1\ny = 2",  # deleted a line
    "for i in range(2):\n    pass  # tfcompat-threads: magic 0",  # swapped for the %time line
], ids=["cell-0", "cell-1", "magic-0"])
def test_marker_like_text_in_a_cell_survives_fix(tmp_path, text):
    before = [LEGACY_CELL, text, "%time x\nz = 3"]
    path = write(tmp_path / "n.ipynb", document(before))
    run = tft("fix", "n.ipynb", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert_only_the_legacy_cell_fixed(path, before, 0)


# Every marker-like text, magic and continuation line the property mixes.
MARKERS = [
    "# tfcompat-threads: cell {n}", "#tfcompat-threads: cell {n}", "# tfcompat-threads: cell {n} ",
    "x = 1  # tfcompat-threads: cell {n}", "pass  # tfcompat-threads: magic {n}",
    "'# tfcompat-threads: cell {n}'", "s = '''\n# tfcompat-threads: cell {n}\n'''",
    "for i in range(2):\n    pass  # tfcompat-threads: magic {n}",
    "if x:\n    pass  # tfcompat-threads: magic {n}\nelse:\n    # tfcompat-threads: cell {n}\n    pass",
]
MAGICS = ["%time x", "%matplotlib inline", "!ls -la", "files = !ls", "x?", "%env A=1",
          "!echo a \\\n  b", "for i in range(2):\n    %time i"]
CONTINUATIONS = ["value = (\n    x\n    % 2\n)", "flag = (\n    x\n    != 2\n)",
                 "text = (\n    '%s'\n    % x\n)", "ok = (x\n      != y)"]
PLAIN = ["x = 1", "y = x + 1", "def f():\n    return 1", "", "# a comment"]

item = st.one_of(
    st.builds(lambda t, n: t.format(n=n), st.sampled_from(MARKERS), st.integers(0, 4)),
    st.sampled_from(MAGICS), st.sampled_from(CONTINUATIONS), st.sampled_from(PLAIN),
)
cell = st.lists(item, min_size=1, max_size=4).map("\n".join)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(others=st.lists(cell, min_size=1, max_size=4), position=st.integers(0, 4))
@example(others=["x = 1\n# tfcompat-threads: cell 0\ny = 2", "%time x"], position=0)
@example(others=["for i in range(2):\n    pass  # tfcompat-threads: magic 0", "%time x"], position=2)
@example(others=["value = (\n    x\n    % 2\n)"], position=1)
def test_property_cells_survive_fix_exactly(others, position):
    position = min(position, len(others))
    before = others[:position] + [LEGACY_CELL] + others[position:]
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder) / "n.ipynb", document(before))
        result = CliRunner().invoke(main, ["fix", "-q", str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert result.exit_code == 0, result.output
        assert_only_the_legacy_cell_fixed(path, before, position)


# -- item 10: continuation lines that look like magics ---------------------------------------------------


@pytest.mark.parametrize("line", ["    % b", "    != b"], ids=["percent", "not-equal"])
def test_black_style_continuation_lines_are_python_not_magics(tmp_path, line):
    code = f"a, b = 7, 3\nvalue = (\n    a\n{line}\n)"
    before = [LEGACY_CELL, code]
    path = write(tmp_path / "n.ipynb", document(before))
    run = tft("fix", "n.ipynb", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert_only_the_legacy_cell_fixed(path, before, 0)


# -- item 11: CRLF cells, nbformat 3 -------------------------------------------------------------------


def test_a_fixed_crlf_cell_keeps_crlf(tmp_path):
    crlf = LEGACY_CELL.replace("\n", "\r\n") + "\r\nx = 1"
    path = write(tmp_path / "n.ipynb", document([crlf, "y = 2\r\nz = 3"]))
    run = tft("fix", "n.ipynb", cwd=tmp_path)
    assert run.returncode == 0, run
    fixed, other = sources(path)
    assert "set_intra_op_parallelism_threads(2)" in fixed, fixed
    assert fixed.count("\n") == fixed.count("\r\n") >= 1, f"LF lines in a CRLF cell: {fixed!r}"
    assert other == "y = 2\r\nz = 3"


def test_nbformat_3_is_handled_or_reported_as_such(tmp_path):
    v3 = {
        "metadata": {"name": ""}, "nbformat": 3, "nbformat_minor": 0,
        "worksheets": [{"metadata": {}, "cells": [
            {"cell_type": "code", "collapsed": False, "input": lines(LEGACY_CELL), "language": "python",
             "metadata": {}, "outputs": []},
        ]}],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(v3, indent=1) + "\n")
    raw = path.read_bytes()
    run = tft("fix", "old.ipynb", cwd=tmp_path)
    assert_no_traceback(run)
    if run.returncode == 2:  # reported clearly, and left alone
        line = assert_one_error(run, "old.ipynb")
        assert "not a notebook" not in line and "3" in line.replace("old.ipynb", ""), line
        assert path.read_bytes() == raw
    else:  # handled: the code cell is fixed in place, the format kept
        assert run.returncode == 0, run
        after = json.loads(path.read_text())
        assert after["nbformat"] == 3
        assert "".join(after["worksheets"][0]["cells"][0]["input"]) == FIXED_CELL
        assert not lines_naming(run.stderr, "old.ipynb")


# -- issue 21: any JSON layout ---------------------------------------------------------


@pytest.mark.parametrize("text", ['"source": ["x"]', '\\"source\\": [', "]}, {\"cell_type\": \"code\"", "é \u2028 <>&"])
@pytest.mark.parametrize("layout", [{"separators": (",", ":")}, {"indent": "\t"}, {"indent": 1, "ensure_ascii": True}])
def test_json_like_text_in_cells_and_outputs_survives_a_source_rewrite(tmp_path, text, layout):
    """The cells' source values are found by scanning the JSON, not by
    searching its text: JSON-looking text in a markdown cell, an output and
    the cell itself stays, in any layout."""
    doc = document([LEGACY_CELL + "\n# " + text, "print(" + json.dumps(text) + ")"])
    doc["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [text]}]
    doc["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": [text]})
    path = tmp_path / "odd.ipynb"
    path.write_text(json.dumps(doc, **layout), encoding="utf-8")
    result = CliRunner().invoke(main, ["fix", str(path)])
    assert result.exit_code == 0, result.output
    after = json.loads(path.read_text(encoding="utf-8"))
    assert "".join(after["cells"][1]["source"]) == FIXED_CELL + "\n# " + text
    after["cells"][1]["source"] = doc["cells"][1]["source"]
    assert after == doc
