"""Count the thread pools TensorFlow really made, from /proc (Linux).

What the threads are called depends on the release (seen here): TF >= 2.16
names its inter-op threads `tf_Compute` and one `tf_graph_runner`; the
intra-op (Eigen) threads carry the process name, like the main thread. Older
releases name none, so the inter-op threads are found by what they do (they
run a graph's ops), and the intra-op pool is what is left by the release's
measured layout (`LAYOUTS`). numpy's OpenBLAS starts threads named like the
process too: count with OPENBLAS_NUM_THREADS=1.
"""

from __future__ import annotations

import os
import time
from typing import Iterable

TASKS = "/proc/self/task"


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


def thread_names(tids: Iterable[str] | None = None) -> dict[str, int]:
    """{thread name: count} of this process (of `tids`, if given)."""
    counts: dict[str, int] = {}
    for tid in os.listdir(TASKS) if tids is None else tids:
        try:
            name = _read(f"{TASKS}/{tid}/comm").strip()
        except OSError:  # the thread ended meanwhile
            continue
        counts[name] = counts.get(name, 0) + 1
    return counts


def _states() -> dict[str, str]:
    """{thread id: scheduler state letter} of this process."""
    states = {}
    for tid in os.listdir(TASKS):
        try:
            states[tid] = _read(f"{TASKS}/{tid}/stat").rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):  # the thread ended meanwhile
            continue
    return states


def settled_names(quiet: float = 0.2, limit: float = 10.0) -> dict[str, int]:
    """thread_names() once no thread has started or ended for `quiet`
    seconds and none but the caller's runs (at most `limit` seconds).
    TensorFlow starts threads that end by themselves (its logger's
    initialisation, a graph runner's one-thread pool): on a loaded machine
    one can outlive an op and be counted as a pool's. A pool's threads stay,
    and sleep when idle."""
    me = str(native_thread_id())
    start = last_change = time.monotonic()
    tasks = _states()
    while True:
        time.sleep(0.02)
        now, seen = time.monotonic(), _states()
        if set(seen) != set(tasks):
            last_change = now
        tasks = seen
        idle = all(state != "R" for tid, state in tasks.items() if tid != me)
        if (idle and now - last_change >= quiet) or now - start >= limit:
            return thread_names(tasks)


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


def settled_snapshot(before: Iterable[int], quiet: float = 0.2, limit: float = 5.0) -> dict[int, tuple[str, int]]:
    """snapshot(), once the threads started since `before` (thread ids)
    have settled: none of them has started or ended for `quiet` seconds and
    none runs (at most `limit` seconds). `run`'s recorder takes it after an
    event that made threads, so that a thread TensorFlow starts and that
    ends by itself (settled_names) is not counted as a pool's; an event that
    made no thread costs no wait, and only the new threads are watched (the
    program's own may keep running)."""
    known = {str(tid) for tid in before}
    seen = snapshot()
    if not set(map(str, seen)) - known:
        return seen
    start = last_change = time.monotonic()
    tasks: set[str] | None = None
    while True:
        now, states = time.monotonic(), {t: s for t, s in _states().items() if t not in known}
        if set(states) != tasks:
            tasks, last_change = set(states), now
        if (now - last_change >= quiet and all(state != "R" for state in states.values())) or now - start >= limit:
            return snapshot()
        time.sleep(0.02)


def native_thread_id() -> int:
    """The kernel's id of the calling thread (its /proc/self/task entry)."""
    import threading

    get = getattr(threading, "get_native_id", None)  # Python 3.8+
    if get is not None:
        return get()
    import ctypes
    import platform

    gettid = {"x86_64": 186, "aarch64": 178, "i686": 224, "ppc64le": 207, "s390x": 236}[platform.machine()]
    return ctypes.CDLL(None).syscall(gettid)


# What else a process has, after TensorFlow ran one large op, besides its two
# pools: measured per release and mode with TensorFlow's own ConfigProto /
# tf.config.threading (tests/test_matrix.py checks it on every row of the
# matrix). (first, last release, mode, other threads, threads per intra-op
# thread): TF 1.15 graph sessions grow by two threads per intra-op thread.
LAYOUTS = (
    ((1, 15), (1, 15), "graph", 5, 2),
    ((2, 4), (2, 4), "eager", 1, 1),
    ((2, 11), (2, 99), "eager", 2, 1),
)


def layout(release: tuple[int, int], mode: str) -> tuple[int, int] | None:
    """(other threads, threads per intra-op thread), or None where not measured."""
    for first, last, layout_mode, others, per_intra in LAYOUTS:
        if first <= release <= last and mode == layout_mode:
            return others, per_intra
    return None


def pool_sizes(total: int, inter_threads: int, release: tuple[int, int], mode: str,
               names: dict[str, int]) -> dict:
    """Sizes of the two pools of a process that ran one large op, from its
    thread count and the inter-op threads seen running ops (the probe runs
    ops that each record the thread they run on). None: not countable here."""
    if "tf_Compute" in names:
        return {
            "intra_op": total - names["tf_Compute"] - sum(v for k, v in names.items() if k.startswith("tf_")
                                                           and k != "tf_Compute") - 1,
            "inter_op": names["tf_Compute"],
            "how": "named threads (TF >= 2.16): tf_Compute = inter-op; the rest named like the process, less "
            "the main thread = intra-op",
        }
    found = layout(release, mode)
    inter_how = f"inter-op = the {inter_threads} distinct threads that ran 64 blocking ops at once"
    if found is None:
        return {
            "intra_op": None,
            "inter_op": inter_threads,
            "how": f"{inter_how}; the intra-op pool cannot be told from TensorFlow's other threads on "
            f"TensorFlow {'.'.join(map(str, release))} ({mode}): its thread layout is not measured "
            f"(measured: {', '.join(_release_range(f, l) + ' ' + m for f, l, m, _, _ in LAYOUTS)})",
        }
    others, per_intra = found
    intra, rest = divmod(total - others - inter_threads, per_intra)
    if rest or intra < 1:
        return {"intra_op": None, "inter_op": inter_threads,
                "how": f"{inter_how}; {total} threads in all do not fit this release's layout "
                f"({others} others + {per_intra} per intra-op thread + inter-op): intra-op not countable"}
    per = "" if per_intra == 1 else f" / {per_intra} (this release adds {per_intra} threads per intra-op thread)"
    return {
        "intra_op": intra,
        "inter_op": inter_threads,
        "how": f"{inter_how}; intra-op = ({total} threads - {others} others - inter-op){per}",
    }


def _release_range(first, last) -> str:
    text = ".".join(map(str, first))
    return text if first == last else f"{text}+" if last[1] == 99 else f"{text}-{'.'.join(map(str, last))}"
