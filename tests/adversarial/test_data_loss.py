"""Nothing lost (issue 13 items 1, 6 and 11).

A write happens only if the file still holds the bytes that were read, and
only to the file that was read; owner, group and mode are kept; a signal
during a write leaves the file wholly old or wholly new and no temporary
file. Two runs at once, or a run killed halfway, leave every file wholly old
or wholly new (what held in issue 13, kept under test).
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from tfcompat_threads.lint import files

from .helpers import (
    LEGACY,
    LEGACY_FIXED,
    Run,
    assert_no_traceback,
    assert_one_error,
    command,
    finish,
    kill_group,
    lines_naming,
    start,
    temporary_files,
    tft,
)

EDIT = b"# edited by hand while fix ran\n"


def test_an_edit_made_while_fix_runs_is_never_lost(tmp_path):
    """Issue 13 item 1: append a line to a late file while `fix -j1` runs over
    a tree. The edit survives: either the file was read after the edit (and is
    fixed with it), or it is reported and left as it now is."""
    names = [f"f{number:03}.py" for number in range(150)]
    for name in names:
        (tmp_path / name).write_bytes(LEGACY)
    first, last = tmp_path / names[0], tmp_path / names[-1]
    proc = start(command("fix", "-j1", "."), cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while first.read_bytes() == LEGACY and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        running = proc.poll() is None
        with open(last, "ab") as handle:
            handle.write(EDIT)
        out, err = finish(proc)
    finally:
        kill_group(proc)
    run = Run(proc.args, proc.returncode, out, err)
    assert running, f"fix finished before the edit could be made: make the tree bigger\n{run!r}"
    final = last.read_bytes()
    assert EDIT in final, f"the edit made while fix ran is lost\n{run!r}"
    if final == LEGACY + EDIT:
        assert_one_error(run, names[-1], "changed")
    else:
        assert final == LEGACY_FIXED + EDIT, final
    for name in names[:-1]:
        assert (tmp_path / name).read_bytes() == LEGACY_FIXED


def test_write_refuses_a_file_changed_after_it_was_read(tmp_path):
    path = tmp_path / "f.py"
    path.write_bytes(LEGACY)
    read = files.read_bytes(os.fspath(path))
    path.write_bytes(LEGACY + EDIT)  # an editor saves in place
    with pytest.raises(files.FileError, match="changed") as error:
        files.write_atomic(path, LEGACY_FIXED, read)
    assert str(path) in str(error.value) and "\n" not in str(error.value)
    assert path.read_bytes() == LEGACY + EDIT
    assert not temporary_files(tmp_path)


def test_write_refuses_a_file_replaced_after_it_was_read(tmp_path):
    """Same bytes, another file (an editor that saves by rename): not ours to overwrite."""
    path = tmp_path / "f.py"
    path.write_bytes(LEGACY)
    read = files.read_bytes(os.fspath(path))
    (tmp_path / "new.py").write_bytes(LEGACY)
    os.replace(tmp_path / "new.py", path)
    with pytest.raises(files.FileError, match="replaced"):
        files.write_atomic(path, LEGACY_FIXED, read)
    assert path.read_bytes() == LEGACY
    assert not temporary_files(tmp_path)


def test_write_never_follows_a_link_swapped_in_after_the_read(tmp_path):
    """The file read is swapped for a link to another file with the same bytes:
    the write must not go through to that other file."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    secret = elsewhere / "secret.py"
    secret.write_bytes(LEGACY)
    path = tmp_path / "f.py"
    path.write_bytes(LEGACY)
    read = files.read_bytes(os.fspath(path))
    path.unlink()
    path.symlink_to(secret)
    with pytest.raises(files.FileError):
        files.write_atomic(path, LEGACY_FIXED, read)
    assert secret.read_bytes() == LEGACY
    assert path.is_symlink()
    assert not temporary_files(tmp_path)


def test_write_through_a_link_named_on_purpose_keeps_the_link(tmp_path):
    """A link read as such is written through (the link stays a link)."""
    real = tmp_path / "real.py"
    real.write_bytes(LEGACY)
    link = tmp_path / "link.py"
    link.symlink_to("real.py")
    read = files.read_bytes(os.fspath(link))
    files.write_atomic(link, LEGACY_FIXED, read)
    assert link.is_symlink() and real.read_bytes() == LEGACY_FIXED
    files.write_atomic(link, LEGACY_FIXED, read)  # a second write of the same bytes is a no-op
    assert not temporary_files(tmp_path)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_fix_run_as_root_keeps_owner_group_and_mode(tmp_path):
    """Issue 13 item 11: `fix` as root changed a file's owner to root."""
    path = tmp_path / "f.py"
    path.write_bytes(LEGACY)
    os.chown(path, 1234, 2345)
    path.chmod(0o640)
    run = tft("fix", "f.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert path.read_bytes() == LEGACY_FIXED
    info = path.stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (1234, 2345, 0o640)


# Slow down the first fsync of a run, so that a signal can be sent while the
# temporary file exists (the write is under way).
SLOW_WRITE = """
import os, signal, sys, time
# Ctrl-C as a terminal gives it, even when this test runs from a shell that
# ignores SIGINT (a background job: the ignored signal is inherited)
signal.signal(signal.SIGINT, signal.default_int_handler)
real_fsync = os.fsync
slowed = []
def slow_fsync(fd):
    if not slowed:
        slowed.append(fd)
        time.sleep(1.5)
    return real_fsync(fd)
os.fsync = slow_fsync
from tfcompat_threads.cli import main
main(sys.argv[1:], prog_name="tfcompat-threads")
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_during_a_write_leaves_no_temporary_file(tmp_path, signum):
    """Issue 13 item 6: Ctrl-C during a write left a temporary file."""
    path = tmp_path / "f.py"
    path.write_bytes(LEGACY)
    proc = start([command()[0], "-c", SLOW_WRITE, "fix", "-j1", "f.py"], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not temporary_files(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert temporary_files(tmp_path), "the write never started"
        os.killpg(proc.pid, signum)  # as a terminal's Ctrl-C does: the whole group
        out, err = finish(proc, timeout=30)
    finally:
        kill_group(proc)
    run = Run(proc.args, proc.returncode, out, err)
    assert not temporary_files(tmp_path), run
    assert path.read_bytes() in (LEGACY, LEGACY_FIXED), "wholly old or wholly new"
    assert "Traceback (most recent call last)" not in run.stderr, run
    assert run.returncode != 0, "a run stopped by a signal does not claim success"


def test_two_fix_runs_at_once_agree(tmp_path):
    """What held in issue 13: two concurrent runs leave every file fixed, once."""
    names = [f"f{number:02}.py" for number in range(40)]
    for name in names:
        (tmp_path / name).write_bytes(LEGACY)
    procs = [start(command("fix", "-j1", "."), cwd=tmp_path) for _ in range(2)]
    try:
        outputs = [finish(proc) for proc in procs]
    finally:
        for proc in procs:
            kill_group(proc)
    for proc, (out, err) in zip(procs, outputs):
        run = Run(proc.args, proc.returncode, out, err)
        assert_no_traceback(run)
        assert run.returncode == 0, run
    for name in names:
        assert (tmp_path / name).read_bytes() == LEGACY_FIXED
    assert not temporary_files(tmp_path)


def test_sigkill_halfway_leaves_every_file_wholly_old_or_new(tmp_path):
    """What held in issue 13: SIGKILL of `fix` halfway through a tree."""
    names = [f"f{number:03}.py" for number in range(200)]
    for name in names:
        (tmp_path / name).write_bytes(LEGACY)
    proc = start(command("fix", "-j1", "."), cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        first = tmp_path / names[0]
        while first.read_bytes() == LEGACY and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        assert proc.poll() is None, "fix finished before it could be killed: make the tree bigger"
        os.killpg(proc.pid, signal.SIGKILL)
        finish(proc, timeout=30)
    finally:
        kill_group(proc)
    contents = [(tmp_path / name).read_bytes() for name in names]
    assert all(content in (LEGACY, LEGACY_FIXED) for content in contents)
    assert LEGACY_FIXED in contents
    leftovers = temporary_files(tmp_path)
    assert len(leftovers) <= 1, f"at most the one write under way at the kill: {leftovers}"
    assert lines_naming("\n".join(leftovers), ".tfcompat") == leftovers, "recognisable by name"
