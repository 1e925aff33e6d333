"""`run` trusts nothing in the events folder it hands to its command (issue
29 item 12): whatever the command puts there (a FIFO, a link to /dev/zero, a
folder named like an event file, lines that are no event, the folder itself
replaced by a link), `run` ends in bounded time, with no traceback, with the
command's own exit code, and says what it left out. The command is a plain
Python that loads the recorder (no TensorFlow needed)."""

from __future__ import annotations

import json
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


FIRST_IMAGE = """
import os, sys
import tensorflow as tf
tf.config.threading.set_inter_op_parallelism_threads(2)
work(tf)
os.execv(sys.executable, [sys.executable, {second!r}])
"""

SECOND_IMAGE = """
import tensorflow as tf
tf.config.threading.set_inter_op_parallelism_threads(3)
work(tf)
emit()
"""


@pytest.mark.tf
def test_a_program_that_execs_another_is_two_accounts_not_one(tmp_path):
    """Issue 29 item 7: a program that asks for 2 inter-op threads and then
    exec()s (same pid) one that asks for 3: two accounts, one per program,
    each setting judged by its own program's pools; none "overridden" (the
    second program's pools have the size it asked). Where TensorFlow names
    its threads (2.16+) both are "applied", counted."""
    from tests import tfproc

    second = tmp_path / "second.py"
    second.write_text(tfproc.PRELUDE + SECOND_IMAGE)
    recorded = tmp_path / "report.json"
    tfproc.run(FIRST_IMAGE.format(second=str(second)), recorded=recorded)
    report = json.loads(recorded.read_text())
    processes = report["processes"]
    assert [p.get("image") for p in processes] == [[1, 2], [2, 2]], processes
    assert len({p["pid"] for p in processes}) == 1
    verdicts = [[(s["value"], s["verdict"]) for s in p["settings"] if s["field"] == "inter_op_parallelism_threads"]
                for p in processes]
    assert [[value for value, _ in v] for v in verdicts] == [[2], [3]], verdicts
    assert all(verdict != "overridden" for v in verdicts for _, verdict in v), verdicts
    if tfproc.tf_names_threads():
        assert verdicts == [[(2, "applied")], [(3, "applied")]], verdicts
    assert "replaced by another program through exec()" in processes[0]["ended"]
