"""Run one TensorFlow scenario in a fresh Python process and read its result.

TensorFlow fixes its thread pools once per process, so every scenario that
looks at pools gets a process of its own. The prelude counts the pools from
/proc (DESIGN.md §1) with its own few lines, independent of the package.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# The interpreter whose TensorFlow the scenarios run on: a row of the matrix
# in scripts/test (TF 1.15 on Python 3.7 ... the newest), else this one. The
# tests themselves run on the newest Python; only TensorFlow processes use it.
TF_PYTHON = os.environ.get("TFCOMPAT_TEST_TF_PYTHON") or sys.executable

PRELUDE = r'''
import json, os, sys

def _count_threads():
    """{thread name: count} of this process, from /proc/self/task/*/comm."""
    counts = {}
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/comm") as f:
            name = f.read().strip()
        counts[name] = counts.get(name, 0) + 1
    return counts

def _busy_threads(min_ns=1_000_000):
    """Threads other than the main one that ran for more than 1 ms."""
    busy = 0
    for tid in os.listdir("/proc/self/task"):
        if int(tid) == os.getpid():
            continue
        with open(f"/proc/self/task/{tid}/schedstat") as f:
            busy += int(f.read().split()[0]) > min_ns
    return busy

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
    result.setdefault("busy", _busy_threads())
    result["main"] = _main_thread_name()
    print("RESULT " + json.dumps(result, default=str), flush=True)
'''


class ScenarioFailed(AssertionError):
    pass


def run(code: str, *, env: dict | None = None, timeout: int = 180,
        recorded: Path | None = None, check: bool = True) -> dict:
    """Run `code` after the prelude in a new interpreter; return what it emit()ted,
    with its stderr under "stderr". `recorded`: run it under `tfcompat-threads
    run --json --output <recorded>` (the tool's report goes there). `check=False`:
    a failed scenario gives {"returncode", "error": its last stderr line} instead
    of raising."""
    child_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TF_NUM_", "OMP_", "KMP_", "CUDA_VISIBLE"))
    }
    child_env.update(OPENBLAS_NUM_THREADS="1", TF_CPP_MIN_LOG_LEVEL="1", PYTHONWARNINGS="default")
    child_env.update(env or {})
    source = PRELUDE + textwrap.dedent(code)
    command = [TF_PYTHON, "-c", source]
    if recorded is not None:
        command = [TF_PYTHON, "-m", "tfcompat_threads", "run", "--json", "--output", str(recorded), "--",
                   *command]
    proc = subprocess.run(command, env=child_env, capture_output=True, text=True, timeout=timeout)
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
def tf_release() -> tuple[int, ...]:
    """(major, minor) of the TensorFlow that TF_PYTHON imports, read from its
    metadata (no import of TensorFlow)."""
    code = "import tfcompat_threads as t; print(t.tf_version())"
    out = subprocess.run([TF_PYTHON, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    return tuple(int(part) for part in out.strip().split(".")[:2])


def tf_names_threads() -> bool:
    """TF 2.16+ names its inter-op threads tf_Compute; 2.15 names none."""
    return tf_release() >= (2, 16)


def pools(result: dict) -> tuple[int, int] | tuple[None, int]:
    """(intra, inter) from the thread counts of an eager scenario with no
    Python threads. On TF 2.15 only the sum is certain: (busy intra, inter)."""
    counts, main = result["threads"], result["main"]
    if tf_names_threads():
        return counts.get(main, 0) - 1, counts.get("tf_Compute", 0)
    # 2.15: main + graph runner + intra + inter, all named like the process.
    total = counts.get(main, 0) - 2
    intra = max(1, result["busy"])
    return intra, total - intra


def assert_pools(result: dict, intra: int, inter: int, *, split_known: bool = True) -> None:
    """The process made exactly one intra-op pool of `intra` threads and
    inter-op pools of `inter` threads in all."""
    seen_intra, seen_inter = pools(result)
    detail = f"threads={result['threads']} busy={result['busy']}"
    if tf_names_threads() or split_known:
        assert (seen_intra, seen_inter) == (intra, inter), detail
    else:
        assert seen_intra + seen_inter == intra + inter, detail
