"""explain, probe, tune: what the two thread knobs do on this machine, measured.

Nothing here imports TensorFlow in the calling process: `explain` reads the
environment and the installed version, `probe` and `tune` run TensorFlow in
fresh processes (the pools are fixed once per process).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from . import runtime
from .options import BY_FIELD

RELATED_ENV = (
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "OMP_NUM_THREADS",
    "TF_ENABLE_ONEDNN_OPTS",
    "OPENBLAS_NUM_THREADS",
)


class ToolError(Exception):
    pass


# -- explain ----------------------------------------------------------------------


def explain() -> dict:
    """The settings a TensorFlow process started here would get."""
    state = runtime.effective()
    env = {name: os.environ.get(name) for name in RELATED_ENV}
    env.update({name: value for name, value in sorted(os.environ.items()) if name.startswith("KMP_")})
    data = {
        "tensorflow": state.tensorflow,
        "keras": _keras(state.tensorflow),
        "mode": state.mode,
        "cpus": state.cpus,
        "intra_op": _pool_dict(state.intra_op),
        "inter_op": _pool_dict(state.inter_op),
        "env": env,
    }
    data["notes"] = notes(data)
    return data


def _keras(tensorflow: str | None) -> str | None:
    """The Keras `tf.keras` is: 3 from TF 2.16 (no set_session), unless
    TF_USE_LEGACY_KERAS=1 brings back Keras 2 (tf-keras)."""
    if tensorflow is None:
        return None
    from .versions import keras3_default, parse_version

    legacy = os.environ.get("TF_USE_LEGACY_KERAS", "").lower() in ("1", "true")
    return "3" if keras3_default(parse_version(tensorflow)) and not legacy else "2"


def _pool_dict(pool) -> dict:
    return {"configured": pool.configured, "env": pool.env, "effective": pool.effective, "source": pool.source}


def notes(data: dict) -> dict[str, str]:
    """A few plain words per pool and per related variable."""
    cpus = data["cpus"]
    out = {}
    for key, what in (("intra_op", "inside one op (a matmul, a reduction, a convolution)"),
                      ("inter_op", "running independent ops side by side (graphs, tf.function, tf.data)")):
        pool = data[key]
        env_name = BY_FIELD[f"{key}_parallelism_threads"].env
        origin = {
            "config": "set by the program (ConfigProto or tf.config.threading), which beats the environment",
            "env": f"from {env_name}={pool['env']}",
            "default": f"TensorFlow's default: the {cpus} CPUs this process may run on (0 means this)",
        }[pool["source"]]
        out[key] = (
            f"{pool['effective']} threads {what}; {origin}. One pool per process, fixed when the first op "
            "(or session) starts."
        )
    env = data["env"]
    omp = env.get("OMP_NUM_THREADS")
    out["OMP_NUM_THREADS"] = (
        f"set to {omp}: " if omp else "not set: "
    ) + "matters only to oneDNN builds that use OpenMP (Intel's); the official wheels run oneDNN on the intra-op pool."
    onednn = env.get("TF_ENABLE_ONEDNN_OPTS")
    out["TF_ENABLE_ONEDNN_OPTS"] = (
        f"{onednn}: " if onednn is not None else "not set: "
    ) + "oneDNN kernels on x86 CPUs (on by default since TF 2.9); they use the intra-op pool."
    out["GPU"] = "GPU kernels use neither pool; these knobs size CPU work only."
    out["tf.data"] = ("tf.data has its own pools: tf.data.Options().threading.private_threadpool_size "
                      "and max_intra_op_parallelism.")
    return out


def format_explain(data: dict) -> str:
    keras = {"3": "Keras 3 (no set_session)", "2": "Keras 2", None: "no Keras"}[data["keras"]]
    lines = [
        f"TensorFlow {data['tensorflow'] or 'not installed'} with {keras}, starts in {data['mode']} mode; "
        f"{data['cpus']} schedulable CPUs",
    ]
    for key, title in (("intra_op", "intra-op pool"), ("inter_op", "inter-op pool")):
        pool = data[key]
        env = "unset" if pool["env"] is None else pool["env"]
        lines.append(f"  {title}: {pool['effective']} threads (source: {pool['source']}; configured "
                     f"{pool['configured']}, environment {env})")
        lines.append(f"    {data['notes'][key]}")
    lines.append("  environment:")
    for name, value in data["env"].items():
        lines.append(f"    {name}={value if value is not None else '(unset)'}")
    for key in ("OMP_NUM_THREADS", "TF_ENABLE_ONEDNN_OPTS", "GPU", "tf.data"):
        lines.append(f"  {key}: {data['notes'][key]}")
    return "\n".join(lines) + "\n"


# -- probe -------------------------------------------------------------------------

PROBE_CHILD = r"""
import json, sys
import tensorflow as tf
import tfcompat_threads as tct
from tfcompat_threads import threads
intra, inter = int(sys.argv[1]), int(sys.argv[2])
report = tct.configure(intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter)
x = tf.random.uniform((800, 800))
for _ in range(2):
    y = tf.matmul(x, x)
float(tf.reduce_sum(y))
names = threads.thread_names()
main = threads.main_thread_name()
print(json.dumps({
    "tensorflow": tf.__version__,
    "names": names,
    "main": main,
    "busy": threads.busy_threads(),
    "applied": [a.how for a in report.applied],
    "effective": tct.effective().as_dict(),
}))
"""


def _child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads would look like pool threads
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env.update(extra or {})
    return env


def probe(intra: int = 0, inter: int = 0, python: str = sys.executable, timeout: float = 300) -> dict:
    """Start a fresh Python with TensorFlow, apply the values through the shim,
    run an op, and count the pools it really made."""
    from . import threads

    proc = subprocess.run(
        [python, "-c", PROBE_CHILD, str(intra), str(inter)],
        capture_output=True,
        text=True,
        env=_child_env(),
        timeout=timeout,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        if "No module named 'tensorflow'" in proc.stderr:
            raise ToolError(f"TensorFlow is not installed for {python}: pip install tensorflow-cpu")
        raise ToolError(f"the probe process failed (exit {proc.returncode}):\n{tail}")
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    sizes = threads.pool_sizes(child["names"], child["main"], child["busy"])
    return {
        "tensorflow": child["tensorflow"],
        "requested": {"intra_op": intra, "inter_op": inter},
        "observed": {"intra_op": sizes["intra_op"], "inter_op": sizes["inter_op"]},
        "threads": child["names"],
        "how_counted": sizes["how"],
        "applied": child["applied"],
        "effective": {k: child["effective"][k] for k in ("intra_op", "inter_op")},
    }


def format_probe(data: dict) -> str:
    requested = data["requested"]
    observed = data["observed"]
    lines = [
        f"TensorFlow {data['tensorflow']}: asked intra_op={requested['intra_op']} inter_op={requested['inter_op']} "
        "(0 = TensorFlow picks)",
        f"  observed: intra-op pool {observed['intra_op']} threads, inter-op pool {observed['inter_op']} threads",
        f"  threads of the process by name: {data['threads']}",
        f"  counted from: {data['how_counted']}",
        f"  applied through the shim: {'; '.join(data['applied']) or 'nothing (0 = default)'}",
    ]
    return "\n".join(lines) + "\n"


# -- tune ---------------------------------------------------------------------------


def default_grid(cpus: int) -> list[int]:
    values = {1, max(1, cpus // 2), cpus}
    return sorted(values)


def tune(
    command: list[str],
    intra: list[int],
    inter: list[int],
    repeat: int = 3,
    warmup: int = 1,
    timeout: float | None = None,
    progress=None,
) -> dict:
    """Run `command` once per grid point and repeat, the pools sized from
    outside (TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS) in a fresh
    process each time; TensorFlow's default (0, 0) is always measured."""
    cpus = runtime.schedulable_cpus()
    points = [(0, 0)] + [(a, b) for a in intra for b in inter if (a, b) != (0, 0)]
    results = []
    total = len(points) * (repeat + warmup)
    done = 0
    for intra_op, inter_op in points:
        extra = {}
        env = _child_env()
        for name, value in (("TF_NUM_INTRAOP_THREADS", intra_op), ("TF_NUM_INTEROP_THREADS", inter_op)):
            env.pop(name, None)
            if value:
                extra[name] = str(value)
        env.update(extra)
        runs: list[float] = []
        failed = None
        for number in range(warmup + repeat):
            start = time.perf_counter()
            proc = subprocess.run(command, env=env, capture_output=True, timeout=timeout)
            seconds = time.perf_counter() - start
            done += 1
            if progress is not None:
                progress(done, total)
            if proc.returncode != 0:
                tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-5:]
                failed = {"exit_code": proc.returncode, "stderr_tail": "\n".join(tail)}
                done += warmup + repeat - number - 1
                break
            if number >= warmup:
                runs.append(round(seconds, 4))
        entry = {"intra_op": intra_op, "inter_op": inter_op, "env": extra, "runs": runs, "failed": failed}
        if runs and failed is None:
            entry.update(
                median_s=round(statistics.median(runs), 4),
                min_s=min(runs),
                max_s=max(runs),
                spread_s=round(max(runs) - min(runs), 4),
            )
        results.append(entry)
    good = [r for r in results if r["failed"] is None and r["runs"]]
    if not good:
        raise ToolError("the command failed at every grid point:\n" + (results[0]["failed"] or {}).get("stderr_tail", ""))
    best = min(good, key=lambda r: r["median_s"])
    default = results[0] if results[0] in good else None
    verdict = _verdict(best, default)
    return {
        "command": command,
        "cpus": cpus,
        "repeat": repeat,
        "warmup": warmup,
        "results": results,
        "best": {"intra_op": best["intra_op"], "inter_op": best["inter_op"], "median_s": best["median_s"]},
        "default": {"median_s": default["median_s"], "spread_s": default["spread_s"]} if default else None,
        **verdict,
    }


def _verdict(best: dict, default: dict | None) -> dict:
    """Beats the default by more than the noise: the best point's slowest run
    is faster than the default's fastest (their ranges do not overlap)."""
    if default is None:
        return {"beats_default": None, "improvement": None,
                "verdict": "TensorFlow's default failed: no comparison"}
    improvement = round(1 - best["median_s"] / default["median_s"], 4)
    if best is default:
        return {"beats_default": False, "improvement": 0.0,
                "verdict": "TensorFlow's default is the fastest point measured: keep 0 / 0"}
    beats = best["max_s"] < default["min_s"]
    if beats:
        text = (f"intra_op={best['intra_op']} inter_op={best['inter_op']} is {improvement:.1%} faster than the "
                "default, more than the noise (its slowest run beats the default's fastest)")
    else:
        text = (f"intra_op={best['intra_op']} inter_op={best['inter_op']} has the lowest median ({improvement:.1%} "
                "below the default), but within the noise: the runs overlap; keep the default or measure with "
                "more --repeat")
    return {"beats_default": beats, "improvement": improvement, "verdict": text}


def _label(value: int) -> str:
    return "dflt" if value == 0 else str(value)


def format_tune(data: dict) -> str:
    lines = [f"{'intra':>5} {'inter':>5}  {'median s':>9} {'min s':>8} {'max s':>8} {'spread':>8}"]
    for r in data["results"]:
        point = f"{_label(r['intra_op']):>5} {_label(r['inter_op']):>5}"
        if r["failed"] is not None:
            last = (r["failed"]["stderr_tail"].splitlines() or [""])[-1]
            lines.append(f"{point}  failed (exit {r['failed']['exit_code']}): {last}")
        else:
            lines.append(f"{point}  {r['median_s']:>9.4f} {r['min_s']:>8.4f} {r['max_s']:>8.4f} {r['spread_s']:>8.4f}")
    best = data["best"]
    lines.append(f"best: intra_op={best['intra_op']} inter_op={best['inter_op']} (0 = TensorFlow's default)")
    lines.append(data["verdict"])
    return "\n".join(lines) + "\n"
