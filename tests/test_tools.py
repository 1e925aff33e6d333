"""explain, probe and tune, run for real through the command line."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.tfproc import TF_PYTHON, assert_pools, run

CLI = [TF_PYTHON, "-m", "tfcompat_threads"]


def cli_json(*args):
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.tf
def test_explain_reports_each_pool_and_its_source():
    env = {"TF_NUM_INTRAOP_THREADS": "3", "OMP_NUM_THREADS": "4", "KMP_BLOCKTIME": "0"}
    env_without_inter = {k: v for k, v in os.environ.items() if k != "TF_NUM_INTEROP_THREADS"}
    proc = subprocess.run([*CLI, "explain", "--json"], capture_output=True, text=True,
                          env={**env_without_inter, **env})
    data = json.loads(proc.stdout)
    cpus = len(os.sched_getaffinity(0))
    assert data["mode"] == "tf2-eager" and data["tensorflow"].startswith("2.")
    assert data["keras"] == ("3" if tuple(map(int, data["tensorflow"].split(".")[:2])) >= (2, 16) else "2")
    assert data["cpus"] == cpus
    assert data["intra_op"] == {"configured": 0, "env": 3, "effective": 3, "source": "env", "env_value": "3",
                                "env_valid": True}
    assert data["inter_op"] == {"configured": 0, "env": None, "effective": cpus, "source": "default",
                                "env_value": None, "env_valid": None}
    assert data["env"]["OMP_NUM_THREADS"] == "4" and data["env"]["KMP_BLOCKTIME"] == "0"
    assert "from TF_NUM_INTRAOP_THREADS=3" in data["notes"]["intra_op"]
    text = subprocess.run([*CLI, "explain"], capture_output=True, text=True, env={**env_without_inter, **env}).stdout
    assert "intra-op pool: 3 threads (source: env" in text


@pytest.mark.tf
@pytest.mark.parametrize(("intra", "inter"), [(3, 2), (1, 1), (0, 0)])
def test_probe_counts_what_an_independent_workload_counts(intra, inter):
    proc = subprocess.run([*CLI, "probe", "--intra", str(intra), "--inter", str(inter), "--json"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    # progress on standard error, around the wait
    assert proc.stderr.startswith("probe: starting TensorFlow in a fresh process") and "probe: done in" in proc.stderr
    assert data["requested"] == {"intra_op": intra, "inter_op": inter}
    # the same sizes, applied the same way, counted by the tests' own code
    independent = run(
        f"""
        import tensorflow as tf
        import tfcompat_threads as tct
        tct.configure(intra_op_parallelism_threads={intra}, inter_op_parallelism_threads={inter})
        work(tf)
        emit(cpus=len(os.sched_getaffinity(0)))
        """
    )
    cpus = independent["cpus"]
    expected = {"intra_op": intra or cpus, "inter_op": inter or cpus}
    assert data["observed"] == expected, data
    assert_pools(independent, intra=expected["intra_op"], inter=expected["inter_op"])


SLEEPER = (
    "import os, sys, time\n"
    "intra = os.environ.get('TF_NUM_INTRAOP_THREADS')\n"
    "if intra == '3':\n"
    "    print('boom: no such pool', file=sys.stderr); sys.exit(3)\n"
    "time.sleep(0.02 if intra == '2' else 0.25)\n"
)


def test_tune_finds_the_fastest_point_and_reports_failures():
    data = cli_json("tune", "--intra", "1,2,3", "--inter", "1", "--repeat", "3", "--warmup", "1", "--json", "--",
                    TF_PYTHON, "-c", SLEEPER)
    points = [(r["intra_op"], r["inter_op"]) for r in data["results"]]
    assert points == [(0, 0), (1, 1), (2, 1), (3, 1)]
    default, one, two, three = data["results"]
    assert default["env"] == {} and two["env"] == {"TF_NUM_INTRAOP_THREADS": "2", "TF_NUM_INTEROP_THREADS": "1"}
    assert len(two["runs"]) == 3 and two["median_s"] < 0.2 < one["median_s"]
    assert three["failed"] == {"exit_code": 3, "timed_out": False, "how": "exit 3", "stderr_tail": "boom: no such pool"}
    assert three["runs"] == []
    assert data["best"] == {"intra_op": 2, "inter_op": 1, "median_s": two["median_s"]}
    assert data["beats_default"] is True and data["improvement"] > 0.5


def point(median, low, high):
    return {"intra_op": 2, "inter_op": 1, "median_s": median, "min_s": low, "max_s": high}


@pytest.mark.parametrize(
    ("best", "default", "beats", "words"),
    [
        (point(0.8, 0.78, 0.82), point(1.0, 0.95, 1.05), True, "more than the noise"),
        (point(0.9, 0.80, 0.99), point(1.0, 0.95, 1.05), False, "within the noise"),
    ],
)
def test_tune_verdict_needs_ranges_that_do_not_overlap(best, default, beats, words):
    from tfcompat_threads.measure.tune import _verdict

    verdict = _verdict(best, default)
    assert verdict["beats_default"] is beats and words in verdict["verdict"]


def test_tune_verdict_when_the_default_is_fastest():
    from tfcompat_threads.measure.tune import _verdict

    default = point(1.0, 0.9, 1.1)
    assert _verdict(default, default)["verdict"].startswith("TensorFlow's default is the fastest")


@pytest.mark.tf
def test_tune_on_a_real_tensorflow_workload():
    workload = (
        "import tensorflow as tf\n"
        "x = tf.random.uniform((400, 400))\n"
        "for _ in range(30):\n"
        "    x = tf.tanh(tf.matmul(x, x) / 400.0)\n"
        "float(tf.reduce_sum(x))\n"
    )
    data = cli_json("tune", "--intra", "1,2", "--inter", "1", "--repeat", "1", "--warmup", "0", "--json", "--",
                    TF_PYTHON, "-c", workload)
    assert [r["failed"] for r in data["results"]] == [None, None, None]
    assert all(r["median_s"] > 0 for r in data["results"])
    assert (data["best"]["intra_op"], data["best"]["inter_op"]) in [(0, 0), (1, 1), (2, 1)]
    assert data["beats_default"] is None and "cannot be judged" in data["verdict"]  # one run a point


# -- tune and probe: timeouts, bounded output, children, errors, messages -----------------------------


def tool(*args, env=None, timeout=120):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:  # a zombie is dead
        return handle.read().split(")")[-1].split()[0] != "Z"


def wait_dead(pid: int, seconds: float = 10) -> bool:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_tune_kills_a_hung_run_and_its_process_group(tmp_path):
    import time

    pids = tmp_path / "pids"
    hang = ("import os, subprocess, sys, time\n"
            "child = subprocess.Popen(['sleep', '1000'])\n"
            f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}} {{child.pid}}\\n')\n"
            "print('hanging', file=sys.stderr, flush=True)\n"
            "time.sleep(1000)\n")
    start = time.monotonic()
    proc = tool("tune", "--timeout", "2", "--intra", "1", "--inter", "1", "--repeat", "1", "--warmup", "0",
                "--", TF_PYTHON, "-c", hang)
    assert time.monotonic() - start < 60
    assert proc.returncode == 2
    [error] = [line for line in proc.stderr.splitlines() if line.startswith("Error")]
    assert "failed at every point" in error and "timed out after 2 s" in error and "hanging" in error
    for line in pids.read_text().splitlines():
        for pid in map(int, line.split()):
            assert wait_dead(pid), f"{pid} outlived tune"


def test_tune_keeps_only_a_bounded_tail_of_the_output(tmp_path):
    """60 MB on stdout and on stderr: tune's memory stays far below that."""
    loud = ("import os, sys\n"
            "chunk = b'x' * (1 << 20)\n"
            "for _ in range(60):\n"
            "    os.write(1, chunk); os.write(2, chunk)\n"
            "sys.stderr.write('\\nlast line of stderr\\n')\n"
            "sys.exit(0 if os.environ.get('TF_NUM_INTRAOP_THREADS') != '3' else 4)\n")
    measure = ("import json, resource, subprocess, sys\n"
               "proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "print(json.dumps({'rc': proc.returncode, 'out': proc.stdout, 'err': proc.stderr,\n"
               "                  'maxrss_kb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n")
    proc = subprocess.run([TF_PYTHON, "-c", measure, *CLI, "tune", "--intra", "3", "--inter", "1",
                           "--repeat", "1", "--warmup", "0", "--json", "--", TF_PYTHON, "-c", loud],
                          capture_output=True, text=True, timeout=300)
    seen = json.loads(proc.stdout)
    assert seen["rc"] == 0, seen["err"][-2000:]
    data = json.loads(seen["out"])
    failed = data["results"][1]["failed"]
    assert failed["exit_code"] == 4 and failed["stderr_tail"].endswith("last line of stderr")
    assert len(failed["stderr_tail"]) < 2_000
    assert seen["maxrss_kb"] < 60_000, f"tune held {seen['maxrss_kb']} kB"


def test_tune_children_die_with_tune(tmp_path):
    import signal
    import time

    pidfile = tmp_path / "pid"
    sleeper = f"import os, time\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(1000)\n"
    tune = subprocess.Popen([*CLI, "tune", "--intra", "1", "--inter", "1", "--repeat", "1", "--warmup", "0",
                             "--", TF_PYTHON, "-c", sleeper], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < end:
        time.sleep(0.1)
    child = int(pidfile.read_text())
    tune.send_signal(signal.SIGKILL)
    tune.wait()
    assert wait_dead(child), "the measured command outlived a killed tune"


@pytest.mark.parametrize("case", ["not-executable", "missing"])
def test_tune_cannot_run_the_command_one_line_exit_2(tmp_path, case):
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\necho hi\n")
    command = str(script) if case == "not-executable" else "no-such-command-anywhere"
    proc = tool("tune", "--repeat", "1", "--", command)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and command in lines[0], proc.stderr


def test_tune_progress_lines_on_stderr():
    proc = tool("tune", "--intra", "1,2", "--inter", "1", "--repeat", "1", "--warmup", "1", "--json", "--",
                TF_PYTHON, "-c", "pass")
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # standard output stays JSON only
    lines = [line for line in proc.stderr.splitlines() if line.startswith("tune: point ")]
    assert len(lines) == 6, proc.stderr  # 3 points x (1 warm-up + 1 timed run)
    assert "point 3 of 3" in lines[-1] and "run 2 of 2" in lines[-1], proc.stderr
    assert all("s elapsed, about" in line and "s left" in line for line in lines)
    quiet = tool("tune", "-q", "--intra", "1", "--inter", "1", "--repeat", "1", "--warmup", "0", "--",
                 TF_PYTHON, "-c", "pass")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_tune_with_fewer_than_three_runs_cannot_judge_the_noise():
    proc = tool("tune", "--intra", "2", "--inter", "1", "--repeat", "2", "--warmup", "0", "--", TF_PYTHON,
                "-c", SLEEPER)
    assert proc.returncode == 0, proc.stderr
    assert "more than the noise" not in proc.stdout and "within the noise" not in proc.stdout
    assert "cannot be judged" in proc.stdout and "--repeat 3" in proc.stdout
    data = json.loads(tool("tune", "--intra", "2", "--inter", "1", "--repeat", "1", "--warmup", "0", "--json",
                           "--", TF_PYTHON, "-c", SLEEPER).stdout)
    assert data["beats_default"] is None and "cannot be judged" in data["verdict"]


def test_tune_says_what_default_means_and_how_to_apply_the_winner():
    proc = tool("tune", "--intra", "1,2", "--inter", "0,1", "--repeat", "3", "--warmup", "0", "--",
                TF_PYTHON, "-c", SLEEPER)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    cpus = len(os.sched_getaffinity(0))
    assert "0 = TensorFlow" not in out
    assert f"TensorFlow's default ({cpus} threads here" in out
    # the winner: intra 2 (SLEEPER is fast with TF_NUM_INTRAOP_THREADS=2)
    assert "TF_NUM_INTRAOP_THREADS=2" in out
    assert "tf.config.threading.set_intra_op_parallelism_threads(2)" in out
    assert "tfcompat_threads.configure(intra_op_parallelism_threads=2" in out


def test_tune_shows_exit_code_and_stderr_tail_of_failing_points():
    failing = ("import os, sys\n"
               "if os.environ.get('TF_NUM_INTRAOP_THREADS') == '2':\n"
               "    print('first line', file=sys.stderr)\n"
               "    print('second line', file=sys.stderr)\n"
               "    sys.exit(5)\n")
    proc = tool("tune", "--intra", "1,2", "--inter", "1", "--repeat", "1", "--warmup", "0", "--", TF_PYTHON,
                "-c", failing)
    assert proc.returncode == 0, proc.stderr
    assert "exit 5" in proc.stdout
    assert "first line" in proc.stdout and "second line" in proc.stdout


def test_tune_when_every_point_fails_says_so_with_the_exit_code():
    proc = tool("tune", "--intra", "1", "--inter", "1", "--repeat", "1", "--warmup", "0", "--", TF_PYTHON,
                "-c", "import sys; print('broken', file=sys.stderr); sys.exit(3)")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    error = lines[-1]
    assert error.startswith("Error:") and "every point" in error and "exit 3" in error and "broken" in error
    assert not any(line.startswith(("Error", "  ")) for line in lines[:-1] if not line.startswith("tune: "))


def test_probe_timeout_is_one_line_exit_2(tmp_path):
    """A TensorFlow that never finishes importing: probe gives up after --timeout."""
    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("import time\ntime.sleep(1000)\n")
    proc = tool("probe", "--timeout", "2", env={"PYTHONPATH": str(fake.parent)})
    assert proc.returncode == 2, proc.stderr
    [error] = [line for line in proc.stderr.splitlines() if line.startswith("Error")]
    assert "did not finish in 2 s" in error
    assert "probe: starting TensorFlow" in proc.stderr  # progress, before the wait


@pytest.mark.parametrize(("value", "words"), [("abc", "invalid"), ("-1", "invalid"), ("2x", "invalid")])
def test_explain_reports_an_invalid_environment_value(value, words):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_NUM_")}
    env["TF_NUM_INTRAOP_THREADS"] = value
    data = json.loads(subprocess.run([*CLI, "explain", "--json"], capture_output=True, text=True, env=env).stdout)
    pool = data["intra_op"]
    assert pool["env_value"] == value and pool["env_valid"] is False
    text = subprocess.run([*CLI, "explain"], capture_output=True, text=True, env=env).stdout
    [line] = [line for line in text.splitlines() if "intra-op pool:" in line]
    assert "unset" not in line and words in line and repr(value) in line
