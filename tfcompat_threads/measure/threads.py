"""Count the thread pools TensorFlow really made, from /proc (Linux).

What the threads are called depends on the release (seen here):
- TF >= 2.16 names its inter-op threads `tf_Compute` and one `tf_graph_runner`;
  the intra-op (Eigen) threads carry the process name, like the main thread:
  intra-op = (threads named like the process) - 1.
- TF 2.15 names none: all carry the process name, and with no Python-level
  threads there are 2 + intra + inter of them (main, graph runner). The
  intra-op ones are those that did work during a large matmul (the inter-op
  threads idle in eager mode); a pool of 1 runs inline and shows no busy
  thread.
numpy's OpenBLAS starts threads named like the process too: count with
OPENBLAS_NUM_THREADS=1.
"""

from __future__ import annotations

import os

TASKS = "/proc/self/task"


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def thread_names() -> dict[str, int]:
    """{thread name: count} of this process."""
    counts: dict[str, int] = {}
    for tid in os.listdir(TASKS):
        try:
            name = _read(f"{TASKS}/{tid}/comm").strip()
        except OSError:  # the thread ended meanwhile
            continue
        counts[name] = counts.get(name, 0) + 1
    return counts


def main_thread_name() -> str:
    return _read(f"{TASKS}/{os.getpid()}/comm").strip()


def snapshot() -> dict[int, tuple[str, int]]:
    """{thread id: (name, nanoseconds it has run)} of this process. `run`'s
    recorder takes one before and after each event that can start pools, so
    the threads each event made are known by id."""
    out: dict[int, tuple[str, int]] = {}
    for tid in os.listdir(TASKS):
        try:
            name = _read(f"{TASKS}/{tid}/comm").strip()
            run_ns = int(_read(f"{TASKS}/{tid}/schedstat").split()[0])
        except (OSError, ValueError, IndexError):  # the thread ended meanwhile
            continue
        out[int(tid)] = (name, run_ns)
    return out


def busy_threads(min_seconds: float = 0.001) -> int:
    """Threads other than the main one that have run for more than `min_seconds`."""
    busy = 0
    for tid in os.listdir(TASKS):
        if int(tid) == os.getpid():
            continue
        try:
            run_ns = int(_read(f"{TASKS}/{tid}/schedstat").split()[0])
        except (OSError, ValueError, IndexError):
            continue
        busy += run_ns > min_seconds * 1e9
    return busy


def pool_sizes(names: dict[str, int], main: str, busy: int) -> dict[str, int | str]:
    """Sizes of the intra-op and inter-op pools from the threads of a process
    with no Python-level threads, after TensorFlow ran a large eager op."""
    same_as_process = names.get(main, 0)
    if "tf_Compute" in names or "tf_graph_runner" in names:
        return {
            "intra_op": same_as_process - 1,
            "inter_op": names.get("tf_Compute", 0),
            "how": "named threads: tf_Compute = inter-op; the rest named like the process, less the main "
            "thread = intra-op",
        }
    intra = max(1, busy)
    return {
        "intra_op": intra,
        "inter_op": same_as_process - 2 - intra,
        "how": "unnamed threads (TF <= 2.15): main + graph runner + intra + inter; intra-op = the threads "
        "that worked during a large matmul",
    }
