"""`tfcompat-threads run -- COMMAND`: the user's program runs unchanged, the
recorder in its Python process reports what it asked and the pools
TensorFlow made, counted from the process's threads."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.tfproc import TF_PYTHON

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CLI = [TF_PYTHON, "-m", "tfcompat_threads"]


def clean_env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_NUM_", "OMP_", "KMP_", "TFCOMPAT_"))}
    env.update(OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="2")
    env.update(extra)
    return env


def run_cli(tmp_path: Path, program: str | Path, *options: str, cwd: Path | None = None,
            args: list[str] = (), **kwargs):
    """`run --json --output report.json [options] -- python program [args]`;
    returns (completed process, report)."""
    report = tmp_path / "report.json"
    if isinstance(program, str):
        path = tmp_path / "program.py"
        path.write_text(textwrap.dedent(program), encoding="utf-8")
        program = path
    report.unlink(missing_ok=True)
    proc = subprocess.run([*CLI, "run", "--json", "--output", str(report), *options, "--", TF_PYTHON,
                           str(program), *args], capture_output=True, env=clean_env(), timeout=300, cwd=cwd,
                          **kwargs)
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
    return proc, data


def only_process(data: dict) -> dict:
    [process] = data["processes"]
    return process


def verdicts(process: dict) -> dict[str, str]:
    return {s["field"]: s["verdict"] for s in process["settings"]}


def window(process: dict, kind: str) -> dict:
    [found] = [w for w in process["pools"] if w["kind"] == kind]
    return found


UNMIGRATED = """\
import tensorflow as tf
from tensorflow.compat.v1 import ConfigProto
from tensorflow.compat.v1 import InteractiveSession

config = ConfigProto()
config.gpu_options.allow_growth = True
config.intra_op_parallelism_threads = 2
config.inter_op_parallelism_threads = 1
session = InteractiveSession(config=config)

x = tf.random.uniform((300, 300))
tf.matmul(x, x)
print("done")
"""


@pytest.mark.tf
def test_unmigrated_interactive_session_inter_op_is_ignored(tmp_path):
    proc, data = run_cli(tmp_path, UNMIGRATED, "--strict")
    assert proc.stdout == b"done\n"
    assert proc.returncode == 1, "--strict: a setting was ignored"
    process = only_process(data)
    cpus = process["cpus"]
    assert process["mode"] == "tf2-eager" and process["tensorflow"].startswith("2.")
    assert process["first_op"].endswith("program.py:11")
    session = window(process, "session")
    eager = window(process, "first_op")
    # counted from the threads: the session made the process-wide intra-op pool
    # (2) and its own inter-op pool (1); the eager ops got a default inter-op pool.
    assert (session["intra_op"], session["inter_op"]) == (2, 1), process["pools"]
    assert (eager["intra_op"], eager["inter_op"]) == (0, cpus), process["pools"]
    assert verdicts(process) == {
        "intra_op_parallelism_threads": "applied",
        "inter_op_parallelism_threads": "ignored",
        "gpu_options.allow_growth": "not counted",
    }
    [inter] = [s for s in process["settings"] if s["field"] == "inter_op_parallelism_threads"]
    assert inter["site"].endswith("program.py:9") and inter["api"] == "InteractiveSession(config=...)"
    assert f"has {cpus} thread" in inter["why"] and "never called it" in inter["why"]


@pytest.mark.tf
def test_the_same_program_after_fix_is_applied(tmp_path):
    program = tmp_path / "program.py"
    program.write_text(UNMIGRATED, encoding="utf-8")
    fixed = subprocess.run([*CLI, "fix", str(program)], capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "set_inter_op_parallelism_threads(1)" in program.read_text()
    proc, data = run_cli(tmp_path, program, "--strict")
    assert proc.returncode == 0 and proc.stdout == b"done\n"
    process = only_process(data)
    assert [w["kind"] for w in process["pools"]] == ["first_op"]
    eager = window(process, "first_op")
    assert (eager["intra_op"], eager["inter_op"]) == (2, 1), process["pools"]
    assert verdicts(process) == {"intra_op_parallelism_threads": "applied", "inter_op_parallelism_threads": "applied"}
    assert data["verdicts"]["applied"] == 2 and data["verdicts"]["ignored"] == 0


TRANSIENT = """\
import sys, threading, time
import tensorflow as tf

tf.config.threading.set_intra_op_parallelism_threads(2)
tf.config.threading.set_inter_op_parallelism_threads(1)
counting = sys.modules["_tfcompat_threads_counting"]  # the recorder's thread counter
real, calls = counting.snapshot, []


def ends_by_itself():  # as TensorFlow's logger initialisation does, busy a while
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass


def snapshot():
    calls.append(1)
    if len(calls) == 2:  # the recorder's first count after the first op: a thread that ends by itself is alive
        threading.Thread(target=ends_by_itself).start()
    return real()


counting.snapshot = snapshot
x = tf.random.uniform((300, 300))
tf.matmul(x, x)
print(len(calls) > 2)
"""


@pytest.mark.tf
def test_a_thread_that_ends_by_itself_is_not_counted_as_a_pools(tmp_path):
    """A thread alive when the first op's window ends, that ends by itself
    (TensorFlow starts such threads; on a loaded machine one can outlive the
    op) is no pool's: the recorder counts once the window's new threads have
    settled, and the pools are the ones the program asked for. Before, it
    was counted (an intra-op thread more on 2.16+, an inter-op one before)."""
    proc, data = run_cli(tmp_path, TRANSIENT)
    assert data is not None, proc.stderr.decode()[-2000:]
    eager = window(only_process(data), "first_op")
    assert (eager["intra_op"], eager["inter_op"]) == (2, 1), eager
    assert proc.stdout == b"True\n"  # the thread was there when the recorder first counted


@pytest.mark.tf
def test_threads_set_after_the_first_op_raised_and_tft104_agrees(tmp_path):
    fixture = FIXTURES / "threading_after_op" / "input.py"
    check = subprocess.run([*CLI, "check", "--output-format", "json", str(fixture)], capture_output=True, text=True)
    [finding] = [f for f in json.loads(check.stdout) if f["code"] == "TFT008"]
    direct = subprocess.run([TF_PYTHON, str(fixture)], capture_output=True, env=clean_env(), timeout=300)
    proc, data = run_cli(tmp_path, fixture)
    assert proc.returncode == direct.returncode == 1
    assert proc.stdout == direct.stdout
    # the traceback is the program's own: no frame of the recorder in it
    assert proc.stderr.split(b"Traceback")[-1] == direct.stderr.split(b"Traceback")[-1]
    process = only_process(data)
    [setting] = process["settings"]
    assert setting["verdict"] == "raised" and "cannot be modified after initialization" in setting["why"]
    assert setting["site"] == f"{fixture}:{finding['location']['row']}"
    assert process["first_op"].endswith("input.py:3")
    assert process["ended"].startswith("ended by an uncaught RuntimeError")
    cpus = process["cpus"]
    eager = window(process, "first_op")
    assert (eager["intra_op"], eager["inter_op"]) == (cpus, cpus)


@pytest.mark.tf
def test_a_crashing_program_that_forks_still_gets_a_report(tmp_path):
    proc, data = run_cli(tmp_path, """\
        import os, sys
        import tensorflow as tf
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(4)
        tf.config.threading.set_intra_op_parallelism_threads(3)
        x = tf.random.uniform((300, 300))
        tf.matmul(x, x)
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        print("out")
        raise ValueError("boom")
        """)
    assert proc.returncode == 1 and proc.stdout == b"out\n"
    assert proc.stderr.rstrip().endswith(b"ValueError: boom")
    process = only_process(data)
    assert process["ended"] == "ended by an uncaught ValueError: boom"
    assert len(process["forked_children"]) == 1
    eager = window(process, "first_op")
    assert (eager["intra_op"], eager["inter_op"]) == (3, 1), process["pools"]
    assert [(s["field"], s["value"], s["verdict"]) for s in process["settings"]] == [
        ("inter_op_parallelism_threads", 1, "applied"),
        ("intra_op_parallelism_threads", 4, "overridden"),
        ("intra_op_parallelism_threads", 3, "applied"),
    ]
    assert "program.py:5" in process["settings"][1]["why"]


@pytest.mark.tf
def test_the_bundled_example_before_and_after_fix(tmp_path):
    """The README's run on examples/legacy_project: before `fix` the program
    fails on TF2 (its exit code passes through, nothing was set); after it,
    both thread settings are applied, counted from the threads."""
    import shutil

    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "legacy_project", project)
    command = ["train.py", "--intra", "1", "--inter", "1"]
    proc, data = run_cli(tmp_path, project / command[0], cwd=project, args=command[1:])
    assert proc.returncode == 1 and b"has no attribute 'ConfigProto'" in proc.stderr
    assert only_process(data)["settings"] == []
    fixed = subprocess.run([*CLI, "fix", "--exit-zero", "."], capture_output=True, text=True, cwd=project)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    proc, data = run_cli(tmp_path, project / command[0], "--strict", cwd=project, args=command[1:])
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    process = only_process(data)
    assert verdicts(process) == {"intra_op_parallelism_threads": "applied",
                                 "inter_op_parallelism_threads": "applied",
                                 "allow_soft_placement": "not counted"}
    eager = window(process, "first_op")
    assert (eager["intra_op"], eager["inter_op"]) == (1, 1), process["pools"]


# -- without TensorFlow: pass-through, chaining, cost, errors --------------------------------------

PASS_THROUGH = r"""
import sys
data = sys.stdin.buffer.read()
sys.stdout.buffer.write(b"\x00\xff out \r\n" + data)
sys.stderr.buffer.write(b"\xfe err \n")
sys.exit(7)
"""


def test_exit_code_stdin_stdout_stderr_pass_through_byte_for_byte(tmp_path):
    program = tmp_path / "p.py"
    program.write_text(PASS_THROUGH)
    direct = subprocess.run([TF_PYTHON, str(program)], input=b"in\x01", capture_output=True)
    report = tmp_path / "r.txt"
    proc = subprocess.run([*CLI, "run", "--output", str(report), "--", TF_PYTHON, str(program)],
                          input=b"in\x01", capture_output=True, env=clean_env())
    assert (proc.returncode, proc.stdout, proc.stderr) == (7, direct.stdout, direct.stderr) == (
        7, b"\x00\xff out \r\nin\x01", b"\xfe err \n")
    text = report.read_text()
    assert "ended with exit code 7" in text and "none imported TensorFlow" in text
    # without --output the report follows the program's own standard error
    proc = subprocess.run([*CLI, "run", "--strict", "--", TF_PYTHON, str(program)], input=b"",
                          capture_output=True, env=clean_env())
    assert proc.returncode == 7 and proc.stderr.startswith(b"\xfe err \ntfcompat-threads run: ")


def test_existing_sitecustomize_still_runs_and_tensorflow_free_programs_pay_nothing(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import os\nos.environ['THEIRS_LOADED'] = 'yes'\n")
    program = tmp_path / "p.py"
    program.write_text(
        "import os, sys, json\n"
        "print(json.dumps({'theirs': os.environ.get('THEIRS_LOADED'), 'modules': sorted(sys.modules),\n"
        "                  'finder': type(sys.meta_path[0]).__name__}))\n"
    )
    env = clean_env(PYTHONPATH=str(theirs))
    direct = json.loads(subprocess.run([TF_PYTHON, str(program)], capture_output=True, env=env).stdout)
    report = tmp_path / "r.json"
    proc = subprocess.run([*CLI, "run", "--json", "-o", str(report), "--", TF_PYTHON, str(program)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["theirs"] == direct["theirs"] == "yes"
    # all the recorder costs a program that never imports TensorFlow: one module, one finder
    assert set(seen["modules"]) - set(direct["modules"]) == {"_tfcompat_threads_recorder"}
    assert seen["finder"] == "_Watcher"
    data = json.loads(report.read_text())
    assert data["python_processes"] == 1 and data["tensorflow_processes"] == 0


def test_a_command_that_is_not_python_is_reported(tmp_path):
    report = tmp_path / "r.json"
    proc = subprocess.run([*CLI, "run", "--json", "-o", str(report), "--", "sh", "-c", "echo hi; exit 3"],
                          capture_output=True, text=True, env=clean_env())
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "hi\n", "")
    assert json.loads(report.read_text())["python_processes"] == 0


@pytest.mark.parametrize("case", ["missing", "not-executable", "folder", "no-command", "bad-output"])
def test_errors_are_one_line_and_exit_2(tmp_path, case):
    script = tmp_path / "script.py"
    script.write_text("print('never')\n")
    args = {
        "missing": ["--", "no-such-command-here"],
        "not-executable": ["--", str(script)],
        "folder": ["--", str(tmp_path)],
        "no-command": [],
        "bad-output": ["--output", str(tmp_path / "no" / "such" / "r.txt"), "--", TF_PYTHON, str(script)],
    }[case]
    proc = subprocess.run([*CLI, "run", *args], capture_output=True, text=True, env=clean_env())
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error"), proc.stderr
    assert "never" not in proc.stdout + proc.stderr


def test_verdicts_from_recorded_events():
    """The verdict rules on events as the recorder writes them (TF 2.21 names)."""
    from tfcompat_threads.measure.run import analyse

    def new(**names):
        out, tid = {}, 100
        for name, count in names.items():
            for _ in range(count):
                out[str(tid)] = name
                tid += 1
        return out

    events = [
        {"ev": "tf", "version": "2.21.0", "cpus": 4, "env": {}, "argv": ["python", "p.py"], "eager": True},
        {"ev": "set", "api": "tf.config.threading.set_intra_op_parallelism_threads",
         "field": "intra_op_parallelism_threads", "value": 3, "site": "p.py:3", "initialized": False},
        {"ev": "first_op", "site": "p.py:4", "eager": True, "main": "python", "new": new(python=3, tf_Compute=2)},
        {"ev": "exit", "threads": {}},
    ]
    never = [events[0], {**events[1], "field": "inter_op_parallelism_threads"}, {"ev": "exit"}]
    report = analyse(["python", "p.py"], 0, {"TF_NUM_INTRAOP_THREADS": "5", "TF_NUM_INTEROP_THREADS": "2"},
                     [{"pid": 1, "events": events}, {"pid": 2, "events": never}])
    first, second = report["processes"]
    assert [(s["field"], s["verdict"]) for s in first["settings"]] == [
        ("intra_op_parallelism_threads", "overridden"),  # the environment's 5, beaten by the call's 3
        ("inter_op_parallelism_threads", "applied"),  # TF_NUM_INTEROP_THREADS=2: 2 tf_Compute threads
        ("intra_op_parallelism_threads", "applied"),
    ]
    assert [s["verdict"] for s in second["settings"]] == ["not reached"] * 3
    assert report["verdicts"]["not reached"] == 3


def test_python_started_by_a_shell_script_is_recorded(tmp_path):
    script = tmp_path / "go.sh"
    script.write_text(f"#!/bin/sh\nexec {TF_PYTHON} -c 'print(42)'\n")
    script.chmod(0o755)
    report = tmp_path / "r.json"
    proc = subprocess.run([*CLI, "run", "--json", "-o", str(report), "--", str(script)], capture_output=True,
                          text=True, env=clean_env())
    assert (proc.returncode, proc.stdout) == (0, "42\n")
    assert json.loads(report.read_text())["python_processes"] == 1
