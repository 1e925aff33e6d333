"""One error path (issue 13 items 8 and 11).

Malformed input on standard input is one line and exit 2, as from a file;
files that cannot be decoded (stray bytes, UTF-16) are reported, not passed
as clean; a `fix` whose writes failed never sums up as "0 findings".
"""

from __future__ import annotations

import re

import pytest

from .helpers import LEGACY, assert_no_traceback, assert_one_error, lines_naming, tft

MALFORMED_NOTEBOOK = b'{"cells": [5], "metadata": {}, "nbformat": 4, "x": "tensorflow Session"}'
DEEP = LEGACY + b"y = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"


@pytest.mark.parametrize("name, data", [("a.ipynb", MALFORMED_NOTEBOOK), ("deep.py", DEEP)],
                         ids=["malformed-notebook", "deep-nesting"])
def test_malformed_input_on_standard_input_is_one_error(tmp_path, name, data):
    run = tft("fix", "--stdin-filename", name, "-", cwd=tmp_path, input=data)
    line = assert_one_error(run, name)
    assert "internal error" not in line, line
    assert not run.stdout_bytes.strip() or run.stdout_bytes == data, "`fix -` prints the input, or nothing"


def test_malformed_notebook_file_is_reported_as_such_not_an_internal_error(tmp_path):
    (tmp_path / "a.ipynb").write_bytes(MALFORMED_NOTEBOOK)
    run = tft("fix", "a.ipynb", cwd=tmp_path)
    line = assert_one_error(run, "a.ipynb")
    assert "internal error" not in line, line
    assert (tmp_path / "a.ipynb").read_bytes() == MALFORMED_NOTEBOOK


UNDECODABLE = {
    "stray-byte": b"x = '\xff'\nprint(x)\n",
    "utf-16": LEGACY.decode().encode("utf-16"),  # with its BOM
    "utf-16-clean": b"print('hello')\n".decode().encode("utf-16"),
}


@pytest.mark.parametrize("data", UNDECODABLE.values(), ids=UNDECODABLE.keys())
def test_undecodable_files_are_reported_not_passed_as_clean(tmp_path, data):
    (tmp_path / "odd.py").write_bytes(data)
    run = tft("check", "odd.py", cwd=tmp_path)
    assert_one_error(run, "odd.py")
    assert (tmp_path / "odd.py").read_bytes() == data


def test_summary_never_says_0_findings_when_writes_failed(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_bytes(LEGACY)
    path.chmod(0o444)  # read-only: the write is refused
    run = tft("fix", "legacy.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 2, run
    assert path.read_bytes() == LEGACY
    output = run.stdout + run.stderr
    assert not re.search(r"\b0 findings\b|\b0 with findings\b", output), output
    assert [line for line in lines_naming(output, "legacy.py") if "TFT001" in line], \
        "the finding that was not fixed is still reported"
