"""tune: time the user's own command at several pool sizes, each run a fresh
process sized from outside, and say whether the best beats the default by more
than the noise."""

from __future__ import annotations

import statistics
import subprocess
import time

from ..shim import configure as runtime
from . import ToolError, child_env


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
        env = child_env()
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
