"""probe: start TensorFlow in a fresh process with given pool sizes, run an op,
and count the pools it really made."""

from __future__ import annotations

import json
import sys

from . import ToolError, child_env

PROBE_CHILD = r"""
import json, os, sys, threading, time
import tensorflow as tf
import tfcompat_threads as tct
from tfcompat_threads.measure import threads
intra, inter = int(sys.argv[1]), int(sys.argv[2])
report = tct.configure(intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter)
v1 = tf.compat.v1
graph = not tf.executing_eagerly()  # TF 1.x: graph mode, as its programs run
ran_on, lock = set(), threading.Lock()
extra = {}

def mark(x):  # an op that records the inter-op thread running it, and holds it a while
    with lock:
        ran_on.add(threads.native_thread_id())
    time.sleep(0.02)
    return x

if graph:
    x = v1.random.uniform((800, 800))
    total = v1.reduce_sum(v1.matmul(x, x))
    start = v1.placeholder(tf.float32, ())
    marks = [v1.py_func(mark, [start + i], tf.float32, stateful=False) for i in range(64)]
    session = v1.Session()
    session.run(total)
    names = threads.settled_names()
    session.run(marks, {start: 1.0})
else:
    from tfcompat_threads.shim.build import openmp_runtime
    openmp = openmp_runtime()
    if openmp:  # the pools start at an int op (no oneDNN); the OpenMP pool at the first matmul
        int(tf.constant(1) + 1)
        before_heavy = set(threads.snapshot())
    x = tf.random.uniform((800, 800))
    for _ in range(2):
        y = tf.matmul(x, x)
    float(tf.reduce_sum(y))
    names = threads.settled_names()
    if openmp:  # its workers: the threads the matmul started; the thread that ran it leads them
        workers = {tid: name for tid, (name, _) in threads.snapshot().items() if tid not in before_heavy}
        pools_only = dict(names)
        for name in workers.values():
            pools_only[name] -= 1
        extra["openmp"] = {"library": openmp, "threads": len(workers) + 1, "pools_only": pools_only,
                           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
                           "set_by_shim": any(a.field == "OMP_NUM_THREADS" for a in report.applied)}

    @tf.function
    def marks(start):  # stateless, on a traced input: run by the inter-op pool, not folded
        return [v1.py_func(mark, [start + i], tf.float32, stateful=False) for i in range(64)]

    marks(tf.constant(1.0))
print(json.dumps({
    "tensorflow": tf.__version__,
    "mode": "graph" if graph else "eager",
    "names": names,
    "inter_threads": len(ran_on - {os.getpid()}),
    "cpus": len(os.sched_getaffinity(0)),
    "applied": [a.how for a in report.applied],
    "effective": tct.effective().as_dict(),
    **extra,
}))
"""


def probe(intra: int = 0, inter: int = 0, python: str = sys.executable, timeout: float | None = 300,
          env: dict[str, str] | None = None) -> dict:
    """Start a fresh Python with TensorFlow, apply the values through the shim,
    run an op, and count the pools it really made. `env`: extra variables for
    that process (e.g. OMP_NUM_THREADS, to see that it does not size them)."""
    from . import threads
    from .child import run_child

    try:
        result = run_child([python, "-c", PROBE_CHILD, str(intra), str(inter)], child_env(env), timeout,
                           keep_stdout=True)
    except OSError as error:
        raise ToolError(f"cannot run {python!r}: {error.strerror or error}") from None
    if result.timed_out:
        raise ToolError(f"the probe process did not finish in {timeout:g} s (killed); give more with --timeout")
    if result.returncode != 0:
        stderr = result.stderr.decode("utf-8", "replace")
        if "No module named 'tensorflow'" in stderr:
            raise ToolError(f"TensorFlow is not installed for {python}: pip install tensorflow-cpu")
        last = (result.stderr_tail(1) or "no output on stderr").strip()
        raise ToolError(f"the probe process failed ({result.describe(timeout)}): {last}")
    child = json.loads(result.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
    release = tuple(int(part) for part in child["tensorflow"].split(".")[:2])
    openmp = child.get("openmp")
    names = openmp.pop("pools_only") if openmp else child["names"]  # the OpenMP workers are no pool of the two
    sizes = threads.pool_sizes(sum(names.values()), child["inter_threads"], release, child["mode"], names)
    return {
        "tensorflow": child["tensorflow"],
        "requested": {"intra_op": intra, "inter_op": inter},
        "env": dict(env or {}),
        "cpus": child["cpus"],
        "observed": {"intra_op": sizes["intra_op"], "inter_op": sizes["inter_op"]},
        "threads": child["names"],
        "how_counted": sizes["how"],
        **({"openmp": {**child["openmp"], "how": OPENMP_HOW}} if "openmp" in child else {}),
        "applied": child["applied"],
        "effective": {k: child["effective"][k] for k in ("intra_op", "inter_op")},
        "seconds": round(result.seconds, 2),
    }


OPENMP_HOW = ("an OpenMP build: oneDNN's matmuls and convolutions run on an OpenMP pool, sized by "
              "OMP_NUM_THREADS (default: the CPUs), not by the intra-op setting; counted as the threads the "
              "first matmul started (after the two pools had started at an int op) plus the thread that ran it, "
              "and left out of the two pools")


def _asked(value: int, cpus: int) -> str:
    return str(value) if value else f"TensorFlow's default ({cpus} here: the schedulable CPUs)"


def format_probe(data: dict) -> str:
    requested = data["requested"]
    observed = data["observed"]
    cpus = data["cpus"]
    env = " ".join(f"{k}={v}" for k, v in data["env"].items())
    lines = [
        f"TensorFlow {data['tensorflow']}: asked intra-op {_asked(requested['intra_op'], cpus)}, "
        f"inter-op {_asked(requested['inter_op'], cpus)}" + (f"; environment {env}" if env else ""),
        f"  observed: intra-op pool {_threads(observed['intra_op'])}, inter-op pool {_threads(observed['inter_op'])}",
        f"  threads of the process by name: {data['threads']}",
        f"  counted from: {data['how_counted']}",
    ]
    if "openmp" in data:
        openmp = data["openmp"]
        omp = openmp["OMP_NUM_THREADS"]
        by = " (set by the shim from the intra-op count)" if openmp["set_by_shim"] else ""
        lines[1] += (f", OpenMP pool {_threads(openmp['threads'])} ({openmp['library']}; "
                     + (f"OMP_NUM_THREADS={omp}{by}" if omp else "OMP_NUM_THREADS unset: the CPUs") + ")")
        lines.append(f"  OpenMP: {openmp['how']}")
    lines += [
        f"  applied through the shim: {'; '.join(data['applied']) or 'nothing (both left to TensorFlow)'}",
    ]
    return "\n".join(lines) + "\n"


def _threads(count) -> str:
    if count is None:
        return "not countable here (see below)"
    return f"{count} thread{'' if count == 1 else 's'}"
