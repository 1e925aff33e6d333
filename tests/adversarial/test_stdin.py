"""Standard input as ruff reads it (issue 11 item 1).

`cat c.py | tfcompat-threads fix --stdin-filename c.py` (no `-`) reads
standard input, as ruff does; it once walked `.` and rewrote every legacy file
there. A path and `-` together, or `--stdin-filename` with paths, is a usage
error (exit 2). In no standard-input mode does any file on disk change.
"""

from __future__ import annotations

import pytest

from .helpers import LEGACY, LEGACY_FIXED, assert_no_traceback, snapshot, tft



@pytest.fixture
def folder(tmp_path):
    (tmp_path / "c.py").write_bytes(LEGACY)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "other.py").write_bytes(LEGACY)
    return tmp_path


@pytest.mark.parametrize("form", [
    ("-",),
    ("-", "--stdin-filename", "c.py"),
    ("--stdin-filename", "c.py"),
], ids=["dash", "dash-and-name", "name-without-dash"])
@pytest.mark.parametrize("mode", ["check", "diff", "fix"])
def test_standard_input_modes_read_standard_input_and_change_no_file(folder, mode, form):
    before = snapshot(folder)
    run = tft(mode, *form, cwd=folder, input=LEGACY)
    assert_no_traceback(run)
    assert snapshot(folder) == before, "a file on disk changed in a standard-input mode"
    if mode == "fix":
        assert run.returncode == 0, run
        assert run.stdout_bytes == LEGACY_FIXED
    elif mode == "diff":
        assert run.returncode == 1, run
        assert "+tf.config.threading.set_intra_op_parallelism_threads(2)" in run.stdout
        assert "pkg/other.py" not in run.stdout + run.stderr, "only standard input is read"
    else:
        assert run.returncode == 1, run
        name = "c.py" if "c.py" in form else "-"
        found = [line for line in run.stdout.splitlines() if line.startswith(f"{name}:") and "TFT001" in line]
        assert found, run
        assert "pkg/other.py" not in run.stdout, "only standard input is read"


@pytest.mark.parametrize("args", [
    ("c.py", "-"),
    ("-", "-"),
    ("--stdin-filename", "c.py", "pkg/other.py"),
    ("--stdin-filename", "c.py", "."),
], ids=["path-and-dash", "dash-twice", "name-and-path", "name-and-folder"])
@pytest.mark.parametrize("mode", ["check", "fix"])
def test_standard_input_with_paths_is_a_usage_error(folder, mode, args):
    before = snapshot(folder)
    run = tft(mode, *args, cwd=folder, input=LEGACY)
    assert_no_traceback(run)
    assert run.returncode == 2, run
    assert "error" in run.stderr.lower(), run
    assert not run.stdout_bytes, "nothing is checked or printed"
    assert snapshot(folder) == before
