"""Crashes, hangs and dead workers (issue 13 items 3 and 6).

Deep nesting crashed the parser (`'(' * 5000` is a segfault: exit 139, or a
broken process pool with `-j2` and the later files never done); valid code
with long chains was an "internal error: RecursionError"; some shapes ran for
minutes. What must hold: a file that is too deep for Python's own parser is
reported in one line (exit 2) and left unchanged, quickly; code Python parses
is fixed; a worker that dies is reported for its file and the run goes on;
killing the main process leaves no worker behind holding the caller's pipes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from .helpers import (
    LEGACY,
    LEGACY_FIXED,
    alive,
    assert_no_traceback,
    assert_one_error,
    children,
    command,
    kill_group,
    start,
    tft,
)

DEEP = LEGACY + b"y = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_deep_nesting_is_one_error_and_the_other_files_are_fixed(tmp_path, jobs):
    """`'(' * 5000`: a segfault with -j1, BrokenProcessPool with -j2 (the
    worker that dies is reported for its file and the run goes on)."""
    for name in ("a.py", "c.py", "d.py", "e.py"):
        (tmp_path / name).write_bytes(LEGACY)
    (tmp_path / "b_deep.py").write_bytes(DEEP)
    run = tft("fix", "-j", jobs, ".", cwd=tmp_path)
    assert_one_error(run, "b_deep.py")
    assert (tmp_path / "b_deep.py").read_bytes() == DEEP
    for name in ("a.py", "c.py", "d.py", "e.py"):
        assert (tmp_path / name).read_bytes() == LEGACY_FIXED, f"{name}: one bad file never stops the others"


def test_a_dead_worker_among_many_folders_costs_only_its_own_file(tmp_path):
    """Files go to the workers a folder at a time (lint/runner.py `BATCH`):
    a worker that dies takes a batch down; every other file of it, and of
    every batch after it, is still fixed, and the results stay in order."""
    names = [f"{folder}/m{i:02}.py" for folder in ("a", "b", "c") for i in range(20)]
    for name in names:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(LEGACY)
    (tmp_path / "b" / "m07.py").write_bytes(DEEP)
    run = tft("fix", "-j2", ".", cwd=tmp_path)
    assert_one_error(run, "b/m07.py")
    fixed = [line.removeprefix("fixed ./") for line in run.stdout.splitlines() if line.startswith("fixed ")]
    assert fixed == [name for name in names if name != "b/m07.py"], run.stdout
    assert all((tmp_path / name).read_bytes() == LEGACY_FIXED for name in fixed)


def python_parses(source: bytes) -> bool:
    """Whether CPython's own parser takes it (in a child: a crash there is not ours)."""
    proc = subprocess.run([sys.executable, "-c", "import ast, sys; ast.parse(sys.stdin.buffer.read())"],
                          input=source, capture_output=True, timeout=60, check=False)
    return proc.returncode == 0


@pytest.mark.parametrize("expression", [
    " + ".join(["1"] * 1000),  # the "internal error: RecursionError"
    "x" + ".a" * 2000,  # found here: the same
    "x" + "[0]" * 5000,  # found here: runs for minutes (Python itself says too deep)
], ids=["sum-1000", "attribute-chain-2000", "subscript-chain-5000"])
def test_long_chains_are_fixed_when_python_parses_them_else_one_line(tmp_path, expression):
    source = LEGACY + b"y = " + expression.encode() + b"\n"
    (tmp_path / "chain.py").write_bytes(source)
    run = tft("fix", "chain.py", cwd=tmp_path, timeout=10)
    assert_no_traceback(run)
    assert "internal error" not in run.stderr, run
    if python_parses(source):
        assert run.returncode == 0, run
        assert (tmp_path / "chain.py").read_bytes() == LEGACY_FIXED + b"y = " + expression.encode() + b"\n"
    else:
        assert_one_error(run, "chain.py")
        assert (tmp_path / "chain.py").read_bytes() == source


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killing_the_main_process_leaves_no_orphaned_workers(tmp_path, signum):
    """As a CI runner's timeout does: the signal goes to the main process
    only. Its workers must end too, and release the caller's pipes."""
    for number in range(300):
        (tmp_path / f"f{number:03}.py").write_bytes(LEGACY)
    proc = start(command("fix", "-j2", "."), cwd=tmp_path)
    try:
        workers: list[int] = []
        deadline = time.monotonic() + 60
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            workers = children(proc.pid)
            time.sleep(0.01)
        assert workers and proc.poll() is None, "the pool never started: make the tree bigger"
        os.kill(proc.pid, signum)
        try:
            proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail(f"workers {workers} outlived the main process and hold its pipes")
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if alive(pid)], "orphaned workers"
    finally:
        kill_group(proc)  # the orphans, if any (same process group)
    for number in range(300):
        assert (tmp_path / f"f{number:03}.py").read_bytes() in (LEGACY, LEGACY_FIXED)
