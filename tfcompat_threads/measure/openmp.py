"""The third pool of an OpenMP build of TensorFlow (Intel's): the OpenMP
team oneDNN's matmuls and convolutions run on, as `run` counts it at exit,
says it, and judges OMP_NUM_THREADS against it (measure/run.py)."""

from __future__ import annotations

from ..terminal import plural


def int_value(value: str | None) -> int | None:
    """An environment variable's value as an int, None when it is not one."""
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number


OPENMP_ROLE = "OpenMP pool (oneDNN's matmuls and convolutions)"


def openmp_pool(events: list[dict], library: str, launch_env: dict[str, str], pid: int, pools: set[str]) -> dict:
    """An OpenMP build's third pool: the OpenMP team the eager ops' oneDNN
    matmuls and convolutions ran on, counted at exit by the recorder (the
    threads that worked during a float32 matmul on the main thread, or
    started with it, less TensorFlow's two pools), with the main thread that
    leads it (`pools`: the threads of TensorFlow's two pools); and the OMP_NUM_THREADS that sized it, as the process had it
    at its first op (the shim may set it after the import)."""
    first_op = next((e for e in events if e["ev"] == "first_op"), {})
    tf_event = next(e for e in events if e["ev"] == "tf")
    envs = (first_op.get("env") or {}, tf_event.get("env") or {}, launch_env)
    omp = next((env["OMP_NUM_THREADS"] for env in envs if "OMP_NUM_THREADS" in env), None)
    where = ("environment of the command" if "OMP_NUM_THREADS" in launch_env else "set by the program before "
             "its first op (tfcompat_threads.configure sets it from an intra-op count)")
    out = {"library": library, "OMP_NUM_THREADS": omp, "threads": None, "workers": []}
    if omp is not None:
        out["source"] = where
    exit_event = next((e for e in events if e["ev"] == "exit"), None)
    counted = (exit_event or {}).get("openmp")
    if counted is None:
        why = "ran no eager op" if not first_op else "left no exit sample or was forked"
        out["how"] = ("not counted: the recorder counts it at exit, in eager mode after the first op "
                      f"(the process {why})")
        return out
    started = [tid for tid in counted["busy"] if tid not in pools and tid != str(pid)]
    made = [tid for tid in counted["new"] if tid not in pools]
    workers = plural(len(started) + len(made), "worker")
    out.update(threads=len(started) + len(made) + 1, workers=started, ran=not made,
               how=(f"{workers} (the threads besides TensorFlow's two pools that worked during a float32 "
                    "matmul on the main thread at exit"
                    + (", started by it: no oneDNN op had run on the main thread" if made else "")
                    + ") + the main thread, which leads its OpenMP team"))
    return out


def openmp_words(openmp: dict) -> str:
    """`the heavy ops ran on an OpenMP pool of N threads, sized by ...`."""
    omp = openmp["OMP_NUM_THREADS"]
    sized = f"OMP_NUM_THREADS={omp}" if omp is not None else "OMP_NUM_THREADS (unset: the CPUs)"
    if openmp["threads"] is None:
        return f"the heavy ops (oneDNN's matmuls and convolutions) ran on an OpenMP pool sized by {sized}"
    size = f"an OpenMP pool of {plural(openmp['threads'], 'thread')} (counted)"
    if not openmp["ran"]:  # a tf.function's ops run on inter-op threads, each leading an OpenMP team of its own
        return (f"no oneDNN matmul or convolution ran on the main thread, where eager ops run; there they run on "
                f"{size}, sized by {sized}")
    return f"the heavy ops (oneDNN's matmuls and convolutions) ran on {size}, sized by {sized}"


def openmp_setting(openmp: dict, reached: bool) -> dict:
    """OMP_NUM_THREADS as a setting of its own, with its verdict: the size of
    the OpenMP pool counted against the size it asked."""
    value = openmp["OMP_NUM_THREADS"]
    setting = {"field": "OMP_NUM_THREADS", "value": value, "source": "environment",
               "api": f"OMP_NUM_THREADS ({openmp['source']})", "site": None, "kind": "env", "code": None,
               "again": []}
    wanted = int_value(str(value).split(",")[0])
    count, pool = openmp["threads"], "the OpenMP pool of oneDNN's matmuls and convolutions"
    if not reached:
        verdict, why = "not reached", "the program never ran an op, so no pool was used"
    elif count is None:
        verdict, why = "not counted", openmp["how"]
    elif wanted is None or wanted < 1:
        verdict, why = "ignored", (f"{value!r} is not a thread count OpenMP takes: the OpenMP pool had "
                                   f"{plural(count, 'thread')} (counted)")
    elif count == wanted:
        verdict, why = "applied", f"{pool} has {plural(count, 'thread')} (counted)"
    else:
        verdict, why = "ignored", f"asked {wanted}, but {pool} has {plural(count, 'thread')} (counted)"
    if count is not None and not openmp["ran"]:
        why += "; no oneDNN op had run on the main thread: its pool was started by the count at exit"
    setting.update(verdict=verdict, why=why)
    return setting
