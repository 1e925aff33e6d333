"""Races, metadata, leftovers (issue 20 items 14-18).

`run` counts each thread once whatever the program names its main thread;
a write never overwrites a file made read-only meanwhile, leaves no
temporary file when its folder moves, and keeps extended attributes; `tune`
leaves nothing running, even what left the command's process group.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.test_run import run_cli, verdicts

from .helpers import (
    LEGACY,
    LEGACY_FIXED,
    Run,
    assert_no_traceback,
    assert_one_error,
    command,
    finish,
    kill_group,
    start,
    temporary_files,
)

RENAMED = """\
import ctypes, sys
if sys.argv[1] == "rename":
    ctypes.CDLL(None).prctl(15, b"tf_Compute", 0, 0, 0)  # PR_SET_NAME, before TensorFlow starts
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads(int(sys.argv[2]))
tf.config.threading.set_inter_op_parallelism_threads(int(sys.argv[3]))
x = tf.random.uniform((300, 300))
print(float(tf.reduce_sum(tf.matmul(x, x))) > 0)
"""


@pytest.mark.tf
@pytest.mark.parametrize("sizes", [(1, 1), (2, 1)])
def test_run_counts_each_thread_once_when_the_main_thread_is_named_tf_compute(tmp_path, sizes):
    """Item 14: the intra-op threads take the main thread's name; named
    tf_Compute, they are not inter-op threads too."""
    intra, inter = sizes
    proc, data = run_cli(tmp_path, RENAMED, args=["rename", str(intra), str(inter)])
    assert proc.returncode == 0, proc
    [process] = data["processes"]
    [first] = [w for w in process["pools"] if w["kind"] == "first_op"]
    assert (first["intra_op"], first["inter_op"]) == (intra, inter), process["pools"]
    assert verdicts(process) == {"intra_op_parallelism_threads": "applied", "inter_op_parallelism_threads": "applied"}


# The first fsync of the run waits, so that something can happen while the
# temporary file exists (the write is under way).
SLOW_WRITE = """
import os, sys, time
real_fsync = os.fsync
slowed = []
def slow_fsync(fd):
    if not slowed:
        slowed.append(fd)
        open(os.environ["WRITING"], "w").close()
        time.sleep(1.5)
    return real_fsync(fd)
os.fsync = slow_fsync
from tfcompat_threads.cli import main
main(sys.argv[1:], prog_name="tfcompat-threads")
"""


def _during_the_write(tmp_path, work, path_arg: str, meanwhile) -> Run:
    """`fix path_arg` in `work`, `meanwhile()` called while its write is under way."""
    signal_file = tmp_path / "writing"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(WRITING=str(signal_file), NO_COLOR="1")
    proc = start([sys.executable, "-c", SLOW_WRITE, "fix", "-j1", "--no-cache", path_arg], cwd=work, env=env)
    try:
        deadline = time.monotonic() + 30
        while not signal_file.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert signal_file.exists(), "the write never started"
        meanwhile()
        out, err = finish(proc)
    finally:
        kill_group(proc)
    return Run(proc.args, proc.returncode, out, err)


def test_a_file_made_read_only_during_the_write_is_not_overwritten(tmp_path):
    """Item 15: chmod 444 between the write-bit check and the rename."""
    work = tmp_path / "work"
    work.mkdir()
    path = work / "f.py"
    path.write_bytes(LEGACY)
    path.chmod(0o644)
    run = _during_the_write(tmp_path, work, "f.py", lambda: path.chmod(0o444))
    assert path.read_bytes() == LEGACY, run
    assert path.stat().st_mode & 0o777 == 0o444, "its mode is kept"
    assert_one_error(run, "f.py", "not written")
    assert not temporary_files(work), run


@pytest.mark.parametrize("how", ["moved", "swapped for a link"])
def test_a_folder_moved_during_the_write_keeps_no_temporary_file(tmp_path, how):
    """Item 16: the temporary file is made, renamed and removed through the
    folder it was made in, wherever that folder went."""
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "f.py").write_bytes(LEGACY)
    moved = tmp_path / "moved"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "f.py").write_bytes(b"x = 1\n")

    def meanwhile():
        (work / "pkg").rename(moved)
        if how == "swapped for a link":
            (work / "pkg").symlink_to(elsewhere)

    run = _during_the_write(tmp_path, work, "pkg/f.py", meanwhile)
    assert_no_traceback(run)
    assert not temporary_files(moved) and not temporary_files(elsewhere), run
    assert (moved / "f.py").read_bytes() in (LEGACY, LEGACY_FIXED)
    assert (elsewhere / "f.py").read_bytes() == b"x = 1\n", "nothing written where the link leads"


def test_fix_keeps_extended_attributes(tmp_path):
    """Item 17: user.* attributes (and, where the user may, ACLs, SELinux
    labels, capabilities) are copied to the new file."""
    path = tmp_path / "f.py"
    path.write_bytes(LEGACY)
    os.setxattr(path, "user.origin", b"downloaded from somewhere")
    os.setxattr(path, "user.empty", b"")
    run = subprocess.run(command("fix", "--no-cache", "f.py"), cwd=tmp_path, capture_output=True)
    assert run.returncode == 0 and path.read_bytes() == LEGACY_FIXED, run
    assert {name: os.getxattr(path, name) for name in os.listxattr(path) if name.startswith("user.")} == {
        "user.origin": b"downloaded from somewhere", "user.empty": b""}


def _sleepers(mark: str) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    line = handle.read().replace(b"\0", b" ").decode(errors="replace")
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    state = handle.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if mark in line and state not in (b"Z", b"X"):
                found.append(f"{entry}: {line}")
    return found


def test_tune_timeout_leaves_nothing_running_even_what_called_setsid(tmp_path):
    """Item 18: a grandchild that left the command's process group (setsid),
    and what it started, are killed with the command."""
    mark = f"{os.getpid() % 1000 + 3000}.{time.time_ns() % 1000:03}"
    script = f'setsid sleep {mark}1 & setsid sh -c "sleep {mark}2 & sleep {mark}3" & sleep {mark}4'
    proc = start(command("tune", "--timeout", "1", "--intra", "1", "--inter", "1", "--repeat", "1",
                         "--warmup", "0", "--", "sh", "-c", script), cwd=tmp_path)
    try:
        out, err = finish(proc)
    finally:
        kill_group(proc)
    run = Run(proc.args, proc.returncode, out, err)
    assert_no_traceback(run)
    assert "timed out" in run.stderr, run
    left = _sleepers(f"sleep {mark}")
    for line in left:  # what this test started: ended by pid
        try:
            os.kill(int(line.split(":")[0]), 9)
        except ProcessLookupError:
            pass
    assert not left, f"left running after tune: {left}"
