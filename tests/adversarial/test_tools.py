"""`tune` with commands that misbehave (issue 13 items 5 and 8).

A command that never ends is stopped by a per-run timeout (`--timeout`, with
a default) and killed with its children; a command that writes without end
is read into a bounded buffer (the stderr tail is all `tune` needs); a
command that cannot be run is one line and exit 2. No TensorFlow here: `tune`
times any command.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from .helpers import (
    Run,
    alive,
    assert_no_traceback,
    assert_one_error,
    children,
    command,
    group_alive,
    kill_group,
    start,
    tft,
)

ONE_POINT = ("--intra", "1", "--inter", "1", "--repeat", "1", "--warmup", "0")


def test_tune_stops_a_command_that_never_ends(tmp_path):
    proc = start(command("tune", "--timeout", "1", *ONE_POINT, "--", "sleep", "1000"), cwd=tmp_path)
    try:
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("tune did not stop a command that never ends")
        run = Run(proc.args, proc.returncode, out, err)
        left = group_alive(proc.pid)
    finally:
        kill_group(proc)
    assert not left, f"the timed-out command was left running: {left}"
    line = assert_one_error(run, "sleep")
    assert re.search(r"time(d)? ?out", line, re.IGNORECASE), line



@pytest.mark.parametrize("tool", ["tune", "probe"])
def test_tune_and_probe_have_a_default_timeout(tmp_path, tool):
    run = tft(tool, "--help", cwd=tmp_path)
    assert run.returncode == 0, run
    text = " ".join(run.stdout.split())
    match = re.search(r"--timeout\b(.*?)(?= --|$)", text)
    assert match and re.search(r"default[:=]? ?\d", match.group(1)), f"no --timeout with a default: {text}"



def test_killing_tune_ends_the_command_it_runs(tmp_path):
    """SIGKILL of `tune` alone (as a CI timeout may send): the command it was
    timing must not run on."""
    marker = tmp_path / "started"
    job = f"import time; open({str(marker)!r}, 'w').close(); time.sleep(1000)"
    argv = command("tune", *ONE_POINT, "--", sys.executable, "-c", job)  # the default timeout
    proc = start(argv, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        jobs = children(proc.pid)
        assert marker.exists() and jobs, "the command never started"
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in jobs) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in jobs if alive(pid)], "the command outlived tune"
    finally:
        kill_group(proc)  # the command, if it outlived tune (same process group)


NOISY = (
    "import sys\n"
    "block = b'x' * (1 << 20)\n"
    "for _ in range(200):\n    sys.stdout.buffer.write(block)\n"
    "for _ in range(50):\n    sys.stderr.buffer.write(block)\n"
)



def test_tune_keeps_child_output_bounded(tmp_path):
    """200 MB on stdout and 50 MB on stderr per run: `tune` must not hold them."""
    proc = start(command("tune", *ONE_POINT, "--", sys.executable, "-c", NOISY), cwd=tmp_path)
    streams: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda name=name, pipe=pipe: streams.__setitem__(name, pipe.read()))
               for name, pipe in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # not proc.poll(): wait4 reaps it, for its usage
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = os.waitstatus_to_exitcode(status)
                break
            time.sleep(0.05)
        else:
            pytest.fail("tune did not finish in 60 s")
    finally:
        kill_group(proc)
        for reader in readers:
            reader.join(10)
    run = Run(proc.args, proc.returncode, streams.get("out", b""), streams.get("err", b""))
    assert_no_traceback(run)
    assert run.returncode == 0, run
    peak = usage.ru_maxrss * 1024  # kB on Linux; the largest of tune and the command it ran
    assert peak < 100 * 1024 * 1024, f"tune held the output: peak {peak / 2**20:.0f} MB"



def test_tune_a_command_that_cannot_run_is_one_error(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)  # not executable
    run = tft("tune", *ONE_POINT, "--", "./job.sh", cwd=tmp_path)
    assert_one_error(run, "job.sh")
