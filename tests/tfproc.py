"""Run one TensorFlow scenario in a fresh Python process and read its result.

TensorFlow fixes its thread pools once per process, so every scenario that
looks at pools gets a process of its own. The prelude counts the pools from
/proc (DESIGN.md §1) with its own few lines, independent of the package.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# The interpreter whose TensorFlow the scenarios run on: a row of the matrix
# in scripts/test (TF 1.15 on Python 3.7 ... the newest), else this one. The
# tests themselves run on the newest Python; only TensorFlow processes use it.
TF_PYTHON = os.environ.get("TFCOMPAT_TEST_TF_PYTHON") or sys.executable

PRELUDE = r'''
import json, os, sys, time as _time

def _task_states():
    """{thread id: state letter} of this process, from /proc/self/task."""
    states = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/stat" % tid) as f:
                states[tid] = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):  # the thread ended meanwhile
            continue
    return states

def _settled_tasks(quiet=0.2, limit=30.0):
    """The threads of this process once none has started or ended for
    `quiet` seconds and none but this one runs. TensorFlow starts threads
    that end by themselves (its logger's initialisation, a graph runner's
    one-thread pool): on a loaded machine one can outlive the work. A
    pool's threads stay, and sleep when idle."""
    me = str(os.getpid())
    start = last_change = _time.monotonic()
    tasks = _task_states()
    while True:
        _time.sleep(0.02)
        now, seen = _time.monotonic(), _task_states()
        if set(seen) != set(tasks):
            last_change = now
        tasks = seen
        idle = all(state != "R" for tid, state in tasks.items() if tid != me)
        if (idle and now - last_change >= quiet) or now - start >= limit:
            return tasks

def _count_threads():
    """{thread name: count} of this process once its threads have settled
    (_settled_tasks), from /proc/self/task/*/comm."""
    counts = {}
    for tid in _settled_tasks():
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                name = f.read().strip()
        except FileNotFoundError:  # the thread ended meanwhile (a tf.data thread, say)
            continue
        counts[name] = counts.get(name, 0) + 1
    return counts

def work(tf):
    """Ops big enough that every intra-op thread gets a share: eager, or in
    graph mode (TF 1.x) run by a session (the default one, if any)."""
    if not tf.executing_eagerly():
        v1 = tf.compat.v1
        x = v1.random.uniform((800, 800))
        total = v1.reduce_sum(v1.matmul(x, v1.matmul(x, x)))
        session = v1.get_default_session()
        if session is not None:
            return float(session.run(total))
        with v1.Session() as session:
            return float(session.run(total))
    x = tf.random.uniform((800, 800))
    for _ in range(2):
        y = tf.matmul(x, x)
    return float(tf.reduce_sum(y))

def _main_thread_name():
    with open(f"/proc/self/task/{os.getpid()}/comm") as f:
        return f.read().strip()

def emit(**result):
    result.setdefault("threads", _count_threads())
    result["main"] = _main_thread_name()
    result.setdefault("omp_num_threads", os.environ.get("OMP_NUM_THREADS"))
    print("RESULT " + json.dumps(result, default=str), flush=True)
'''


class ScenarioFailed(AssertionError):
    pass


def child_env(env: dict | None = None) -> dict:
    """The environment of a scenario: no thread variable of this one, numpy's
    OpenBLAS on one thread, then `env`."""
    child = {k: v for k, v in os.environ.items() if not k.startswith(("TF_NUM_", "OMP_", "KMP_", "CUDA_VISIBLE"))}
    child.update(OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="1", PYTHONWARNINGS="default")
    child.update(env or {})
    return child


def run(code: str, *, env: dict | None = None, timeout: int = 180,
        recorded: Path | None = None, check: bool = True) -> dict:
    """Run `code` after the prelude in a new interpreter; return what it emit()ted,
    with its stderr under "stderr". `recorded`: run it under `tfcompat-threads
    run --json --output <recorded>` (the tool's report goes there). `check=False`:
    a failed scenario gives {"returncode", "error": its last stderr line} instead
    of raising."""
    child = child_env(env)
    source = PRELUDE + textwrap.dedent(code)
    command = [TF_PYTHON, "-c", source]
    if recorded is not None:
        command = [TF_PYTHON, "-m", "tfcompat_threads", "run", "--json", "--output", str(recorded), "--",
                   *command]
    proc = subprocess.run(command, env=child, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if not check and (proc.returncode != 0 or not lines):
        return {"returncode": proc.returncode, "error": (proc.stderr.strip().splitlines() or [""])[-1]}
    if proc.returncode != 0 or not lines:
        raise ScenarioFailed(
            f"scenario exited {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr[-4000:]}"
        )
    result = json.loads(lines[-1][len("RESULT "):])
    result["stderr"] = proc.stderr
    result["stdout"] = proc.stdout
    return result


@functools.lru_cache(maxsize=None)
def tf_release() -> tuple[int, ...] | None:
    """(major, minor) of the TensorFlow that TF_PYTHON imports, read from its
    metadata (no import of TensorFlow)."""
    code = "import tfcompat_threads as t; print(t.tf_version())"
    out = subprocess.run([TF_PYTHON, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    if out.strip() == "None":  # no TensorFlow there: no TensorFlow test can run
        return None
    return tuple(int(part) for part in out.strip().split(".")[:2])


@functools.lru_cache(maxsize=None)
def onednn_runtime() -> dict:
    """What TF_PYTHON's TensorFlow itself says and loads, after one matmul:
    oneDNN's runtime as ONEDNN_VERBOSE=1 reports it ("OpenMP" on Intel's
    builds, "threadpool" on the official ones, None when oneDNN says
    nothing), and the OpenMP libraries mapped in the process."""
    code = textwrap.dedent("""
        import json, re
        import tensorflow as tf
        product = tf.reduce_sum(tf.matmul(tf.ones((64, 64)), tf.ones((64, 64))))
        if tf.executing_eagerly():
            float(product)
        else:  # TF 1.x: graph mode
            tf.compat.v1.Session().run(product)
        maps = open("/proc/self/maps").read().split()
        mapped = sorted({p.rsplit("/", 1)[-1] for p in maps if re.search(r"/lib(iomp5|gomp|omp)[.]so", p)})
        print("MAPPED " + json.dumps(mapped), flush=True)
        """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "KMP_", "ONEDNN_", "DNNL_"))}
    env.update(ONEDNN_VERBOSE="1", TF_CPP_MIN_LOG_LEVEL="1")
    proc = subprocess.run([TF_PYTHON, "-c", code], env=env, capture_output=True, text=True, timeout=180, check=True)
    said = None
    for line in (proc.stdout + proc.stderr).splitlines():
        if ",cpu,runtime:" in line:
            said = line.split(",cpu,runtime:", 1)[1].split(",")[0]
    mapped = next(json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("MAPPED "))
    return {"runtime": said, "mapped": mapped}


def openmp_build() -> bool:
    """Whether TF_PYTHON's TensorFlow runs oneDNN on OpenMP (Intel's builds),
    by what it says and loads (onednn_runtime), never by its name."""
    return onednn_runtime()["runtime"] == "OpenMP"


def same_openmp(result: dict) -> dict:
    """Environment that gives a reference process the OMP_NUM_THREADS the
    counted one had, on an OpenMP build (where it sizes the pool oneDNN's ops
    run on, and the shim sets it from an intra-op count); {} elsewhere."""
    omp = result.get("omp_num_threads")
    return {"OMP_NUM_THREADS": omp} if omp is not None and openmp_build() else {}


def tf_names_threads() -> bool:
    """TF 2.16+ names its inter-op threads tf_Compute; 2.15 names none."""
    return tf_release() >= (2, 16)


def total(result: dict) -> int:
    """All threads of a scenario's process when it emit()ted."""
    return sum(result["threads"].values())


def once_per_run(what: str, compute):
    """`compute()`, the first time any process of this test run asks for
    `what` (a key naming everything the result depends on); its value after
    that. The processes of one run (xdist's workers) share a file per key,
    locked only while that key is computed, so that two workers never run
    the same scenario and never wait for each other's other keys; an
    earlier run's values are never used."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID") or str(os.getpid())  # xdist: one id for all its workers
    key = hashlib.sha256(f"{TF_PYTHON}\0{tf_release()}\0{PRELUDE}\0{what}".encode()).hexdigest()[:32]
    folder = Path(tempfile.gettempdir()) / f"tfcompat-threads-test-run-{run_id}"
    folder.mkdir(exist_ok=True)
    path = folder / f"{key}.json"
    with open(f"{path}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            value = compute()
            path.write_text(json.dumps(value))
            return value


def reference_total(intra: int, inter: int, omp: str | None = None) -> int:
    """The threads of a process that asks TensorFlow itself for these sizes
    (tf.config.threading) and runs work(tf), on TF_PYTHON: what the release
    guarantees for them. On an OpenMP build (Intel's), where oneDNN's ops
    run on an OpenMP pool of OMP_NUM_THREADS threads, with `omp` as
    OMP_NUM_THREADS (the value the counted process had: the shim sets it
    from a legacy intra-op count there; README "What the two knobs do").
    Counted once per test run (once_per_run)."""
    omp = {"OMP_NUM_THREADS": omp} if omp is not None and openmp_build() else {}
    return once_per_run(f"reference\0{intra}\0{inter}\0{omp}", lambda: total(run(f"""
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads({intra})
        tf.config.threading.set_inter_op_parallelism_threads({inter})
        work(tf)
        emit()
        """, env=omp)))


def assert_pools(result: dict, intra: int, inter: int, *, split_known: bool = True) -> None:
    """The process made exactly one intra-op pool of `intra` threads and
    inter-op pools of `inter` threads in all (TF2 eager). Where TensorFlow
    names its threads (2.16+), each pool is counted by name (unless
    `split_known=False`); on every release, the process has as many threads
    as TensorFlow's own API gives for those sizes (with the process's
    OMP_NUM_THREADS on an OpenMP build). Nothing here depends on
    how busy the machine is."""
    detail = f"threads={result['threads']}"
    if tf_names_threads() and split_known:
        counts, main = result["threads"], result["main"]
        assert (counts.get(main, 0) - 1, counts.get("tf_Compute", 0)) == (intra, inter), detail
    reference = reference_total(intra, inter, result.get("omp_num_threads"))
    assert total(result) == reference, f"{detail}, reference {reference}"
