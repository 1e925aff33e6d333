"""`run` trusts nothing in the events folder it hands to its command (issue
29 item 12): whatever the command puts there (a FIFO, a link to /dev/zero, a
folder named like an event file, lines that are no event, the folder itself
replaced by a link), `run` ends in bounded time, with no traceback, with the
command's own exit code, and says what it left out. The command is a plain
Python that loads the recorder (no TensorFlow needed)."""

from __future__ import annotations

import sys

import pytest

from .helpers import assert_no_traceback, tft

HOSTILE = {
    "fifo": 'os.mkfifo(os.path.join(d, "123.jsonl"))',
    "dev-zero": 'os.symlink("/dev/zero", os.path.join(d, "124.jsonl"))',
    "folder": 'os.mkdir(os.path.join(d, "x.jsonl")); os.mkdir(os.path.join(d, "125.jsonl"))',
    "lines": ('open(os.path.join(d, f"{os.getpid()}.jsonl"), "a").write('
              '\'[1]\\n{"ev": "tf", "new": 5}\\n{"ev": "first_op", "new": [1]}\\n\')'),
    "replaced": ('import shutil, tempfile; other = tempfile.mkdtemp(dir=os.getcwd()); '
                 'os.mkfifo(os.path.join(other, "126.jsonl")); shutil.rmtree(d); os.symlink(other, d)'),
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_whatever_the_command_puts_in_the_events_folder_run_ends_with_its_exit_code(tmp_path, shape):
    program = tmp_path / "p.py"
    program.write_text(f"import os, sys\nd = os.environ['TFCOMPAT_THREADS_RUN_DIR']\n{HOSTILE[shape]}\nsys.exit(7)\n")
    run = tft("run", "--", sys.executable, program, cwd=tmp_path, timeout=60)
    assert_no_traceback(run)
    assert run.returncode == 7, run
    assert "ended with exit code 7" in run.stderr and "left out of the events folder: " in run.stderr, run
