"""Tracebacks and messages (issue 20 items 19-22): each failure is one line
and the right exit code, never a traceback."""

from __future__ import annotations

import json
import os
import re
import signal
import time

from .helpers import (
    LEGACY,
    LEGACY_FIXED,
    SIZE_LIMIT,
    Run,
    _limit_memory,
    assert_no_traceback,
    assert_one_error,
    command,
    finish,
    kill_group,
    start,
    tft,
)

SETTINGS = '[tool.tfcompat-threads]\ntarget = "native"\n'


def test_a_deeply_nested_pyproject_is_one_error(tmp_path):
    """Item 19: arrays 1,000 deep anywhere in pyproject.toml."""
    (tmp_path / "pyproject.toml").write_text(SETTINGS + "[project]\nname = 'x'\ndeep = " + "[" * 1000 + "]" * 1000 + "\n")
    (tmp_path / "t.py").write_bytes(LEGACY)
    assert_one_error(tft("check", "t.py", cwd=tmp_path), "pyproject.toml", "deep")


def test_a_huge_pyproject_is_not_read(tmp_path):
    """Item 19: a 3 GB pyproject.toml (sparse here) is refused by its size,
    as a source file is, not read whole."""
    path = tmp_path / "pyproject.toml"
    with open(path, "wb") as file:
        file.write(SETTINGS.encode())
        file.truncate(3 * 1024**3)
    (tmp_path / "t.py").write_bytes(LEGACY)
    assert_one_error(tft("check", "t.py", cwd=tmp_path), "pyproject.toml", str(SIZE_LIMIT))


def test_run_with_standard_output_closed_reports_and_passes_the_exit_code(tmp_path):
    """Item 20: `run -- true 1>&-`."""
    def closed_stdout():
        _limit_memory()
        os.close(1)

    proc = start(command("run", "--", "true"), cwd=tmp_path, preexec_fn=closed_stdout)
    try:
        out, err = finish(proc)
    finally:
        kill_group(proc)
    run = Run(proc.args, proc.returncode, out, err)
    assert_no_traceback(run)
    assert run.returncode == 0 and "`true` ended with exit code 0" in run.stderr, run


def _notebook(tmp_path, text: str):
    path = tmp_path / "n.ipynb"
    path.write_text(text)
    return path


CELL = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
        "source": LEGACY.decode()}


def test_a_notebook_nested_too_deep_is_a_malformed_notebook(tmp_path):
    """Item 21: 100,000-deep JSON in the metadata."""
    text = json.dumps({"cells": [CELL], "metadata": {"deep": "HERE"}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    _notebook(tmp_path, text.replace('"HERE"', "[" * 100_000 + "]" * 100_000))
    line = assert_one_error(tft("check", "n.ipynb", cwd=tmp_path), "n.ipynb", "not a notebook")
    assert "internal error" not in line


def test_a_notebook_with_a_lone_surrogate_is_a_malformed_notebook(tmp_path):
    """Item 21: an escaped lone surrogate in a cell."""
    cell = dict(CELL, source=LEGACY.decode() + "s = 'HERE'\n")
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    path = _notebook(tmp_path, text.replace("HERE", "\\ud800"))
    raw = path.read_bytes()
    for args in (("check",), ("fix",), ("diff",)):
        line = assert_one_error(tft(*args, "n.ipynb", cwd=tmp_path), "n.ipynb", "not a notebook", "surrogate")
        assert "internal error" not in line
    assert path.read_bytes() == raw


def test_a_lone_surrogate_in_an_output_is_kept_as_it_is(tmp_path):
    """Outputs are never text to the tool (they are kept byte for byte), so
    an escaped lone surrogate there (a stream a program wrote) does not stop
    the cells from being fixed; its bytes stay."""
    cell = dict(CELL, source=LEGACY.decode(), outputs=[{"name": "stdout", "output_type": "stream", "text": "HERE"}])
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    path = _notebook(tmp_path, text.replace("HERE", "\\ud800"))
    run = tft("fix", "n.ipynb", cwd=tmp_path)
    assert run.returncode == 0 and "error" not in run.stderr, run
    fixed = path.read_bytes()
    assert b'"text": "\\ud800"' in fixed and fixed != text.replace("HERE", "\\ud800").encode()
    assert json.loads(fixed)["cells"][0]["source"] != cell["source"]


# Every write of the run waits a little, so that Ctrl-C comes while files are being rewritten.
HELD_WRITES = """
import os, stat, sys, time
real_fsync = os.fsync
written = [0]
def held_fsync(fd):  # the third file's write waits (up to 60 s) until the test has pressed Ctrl-C
    if stat.S_ISREG(os.fstat(fd).st_mode):
        written[0] += 1
        deadline = time.monotonic() + 60
        while written[0] > 2 and not os.path.exists("released") and time.monotonic() < deadline:
            time.sleep(0.01)
    return real_fsync(fd)
os.fsync = held_fsync
import signal
real_signal = signal.signal
def noting_signal(signum, handler):  # the tool's Ctrl-C handler says when it has run
    if signum == signal.SIGINT and callable(handler):
        inner = handler
        def handler(number, frame):
            open("interrupted", "w").close()
            return inner(number, frame)
    return real_signal(signum, handler)
signal.signal = noting_signal
from tfcompat_threads.cli import main
main(sys.argv[1:], prog_name="tfcompat-threads")
"""


def test_fix_stopped_by_ctrl_c_exits_130_and_says_how_many_files_it_rewrote(tmp_path):
    """Item 22."""
    names = [f"f{number:02}.py" for number in range(20)]
    for name in names:
        (tmp_path / name).write_bytes(LEGACY)
    proc = start([command()[0], "-c", HELD_WRITES, "fix", "-j1", "--no-cache", "."], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while (sum((tmp_path / n).read_bytes() == LEGACY_FIXED for n in names) < 2 and proc.poll() is None
               and time.monotonic() < deadline):
            time.sleep(0.01)
        assert proc.poll() is None, "fix finished before Ctrl-C"
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C does: the whole group
        while not (tmp_path / "interrupted").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        (tmp_path / "released").touch()  # the third write goes on, then the held Ctrl-C stops the run
        out, err = finish(proc)
    finally:
        kill_group(proc)
    run = Run(proc.args, proc.returncode, out, err)
    assert_no_traceback(run)
    fixed = sum((tmp_path / n).read_bytes() == LEGACY_FIXED for n in names)
    assert all((tmp_path / n).read_bytes() in (LEGACY, LEGACY_FIXED) for n in names)
    assert 2 <= fixed < len(names), run
    assert run.returncode == 130, run
    said = re.findall(r"(\d+) files? already rewritten", run.stderr)
    assert said == [str(fixed)], run
