"""tune: time the user's own command at several pool sizes, each run a fresh
process sized from outside, and say whether the best beats the default by more
than the noise."""

from __future__ import annotations

import statistics
import time

from ..shim import configure as runtime
from . import ToolError, child_env


def default_grid(cpus: int) -> list[int]:
    values = {1, max(1, cpus // 2), cpus}
    return sorted(values)


DEFAULT_TIMEOUT = 600.0
"""Seconds one run of the command may take before it is killed (--timeout)."""
MIN_REPEAT_FOR_NOISE = 3


def tune(
    command: list[str],
    intra: list[int],
    inter: list[int],
    repeat: int = 3,
    warmup: int = 1,
    timeout: float | None = DEFAULT_TIMEOUT,
    progress=None,
    omp: list[int] | None = None,
) -> dict:
    """Run `command` once per grid point and repeat, the pools sized from
    outside (TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS) in a fresh
    process each time; TensorFlow's default (0, 0) is always measured. A run
    that fails or passes `timeout` seconds ends its point (reported as
    failed). `progress(info)` is called after each run. `omp`: OMP_NUM_THREADS
    values to sweep too (0: unset, OpenMP's default), on an OpenMP build only
    (Intel's: it sizes the pool oneDNN's matmuls and convolutions run on),
    as the command's TensorFlow loads it in the first run; elsewhere a
    ToolError."""
    from .child import run_child

    cpus = runtime.schedulable_cpus()
    first, imported = _first_run(command, timeout, omp is not None)
    if imported is False:  # Python ran, TensorFlow never: the pools are never made, there is nothing to tune
        return {"command": command, "tensorflow_imported": False, "python_processes": first["python_processes"],
                "exit_code": first["exit_code"]}
    if omp is not None:
        _require_openmp(command, first, imported)
    sweep = omp if omp is not None else [None]
    points = [(0, 0, 0 if omp is not None else None)] + [
        (a, b, c) for a in intra for b in inter for c in sweep if (a, b, c or 0) != (0, 0, 0)]
    results = []
    per_point = warmup + repeat
    total = len(points) * per_point
    done = 0
    started = time.perf_counter()
    for index, (intra_op, inter_op, omp_threads) in enumerate(points, 1):
        env, extra = _point_env(intra_op, inter_op, omp_threads if omp is not None else None, omp is not None)
        runs: list[float] = []
        failed = None
        for number in range(per_point):
            if index == 1 and number == 0 and warmup:
                result = first["result"]  # the first run (with the recorder) was the default point's warm-up
            else:
                try:
                    result = run_child(command, env, timeout)
                except OSError as error:
                    raise ToolError(f"cannot run {command[0]!r}: {error.strerror or error}") from None
            done += 1
            if result.timed_out or result.returncode != 0:
                failed = {"exit_code": result.returncode, "timed_out": result.timed_out,
                          "how": result.describe(timeout), "stderr_tail": result.stderr_tail()}
                total -= per_point - number - 1  # its other runs are skipped
            elif number >= warmup:
                runs.append(round(result.seconds, 4))
            if progress is not None:
                progress({"point": index, "points": len(points), "intra_op": intra_op, "inter_op": inter_op,
                          **({"omp": omp_threads} if omp is not None else {}), "run": number + 1,
                          "runs": per_point, "warmup": number < warmup,
                          "seconds": result.seconds, "failed": failed, "done": done, "total": total,
                          "elapsed": time.perf_counter() - started})
            if failed is not None:
                break
        entry = {"intra_op": intra_op, "inter_op": inter_op, "env": extra, "runs": runs, "failed": failed}
        if omp is not None:
            entry["omp"] = omp_threads
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
        raise _failed_everywhere(command, results)
    best = min(good, key=lambda r: r["median_s"])
    default = results[0] if results[0] in good else None
    verdict = _verdict(best, default, repeat)
    return {
        "command": command,
        "tensorflow_imported": imported,
        "cpus": cpus,
        "repeat": repeat,
        "warmup": warmup,
        "timeout_s": timeout,
        "results": results,
        "best": {"intra_op": best["intra_op"], "inter_op": best["inter_op"], **_omp_of(best),
                 "median_s": best["median_s"]},
        "default": {"median_s": default["median_s"], "spread_s": default["spread_s"]} if default else None,
        "apply": how_to_apply(best["intra_op"], best["inter_op"], best.get("omp")),
        **({"openmp": first["openmp"]} if omp is not None else {}),
        **verdict,
    }


def _point_env(intra_op: int, inter_op: int, omp_threads: int | None, sweeping_omp: bool) -> tuple[dict, dict]:
    """(the child's environment, what the point sets in it): each variable
    the point sizes is the point's, or unset for 0 (TensorFlow's or OpenMP's
    default), whatever the caller's environment had."""
    extra = {}
    env = child_env()
    for name, value in (("TF_NUM_INTRAOP_THREADS", intra_op), ("TF_NUM_INTEROP_THREADS", inter_op),
                        *((("OMP_NUM_THREADS", omp_threads),) if sweeping_omp else ())):
        env.pop(name, None)
        if value:
            extra[name] = str(value)
    env.update(extra)
    return env, extra


def _failed_everywhere(command: list[str], results: list[dict]) -> ToolError:
    first = results[0]["failed"] or {}
    last = (first.get("stderr_tail") or "").strip().splitlines()[-1:] or ["nothing on stderr"]
    same = all((r["failed"] or {}).get("how") == first.get("how") for r in results)
    where = f"at all {len(results)} points" if same else "at the first point"
    return ToolError(f"`{_one_line(command)}` failed at every point: {first.get('how')} {where}; "
                     f"the last line of its stderr: {last[0]}")


def _omp_of(entry: dict) -> dict:
    return {"omp": entry["omp"]} if "omp" in entry else {}


def _require_openmp(command: list[str], first: dict, imported: bool | None) -> None:
    """--omp on a build whose oneDNN does not run on OpenMP (the official
    wheels), or whose build the first run could not tell: a ToolError."""
    if imported is None:
        result = first["result"]
        why = (f"its first run failed ({result.describe(None)})" if result.timed_out or result.returncode
               else "no Python process of it loaded the recorder")
        raise ToolError(f"--omp: cannot tell whether `{_one_line(command)}` runs an OpenMP build of TensorFlow: "
                        f"{why}")
    if first["openmp"] is None:
        raise ToolError(f"--omp: the TensorFlow {first['tensorflow']} that `{_one_line(command)}` runs is not an "
                        "OpenMP build (it loads no OpenMP library: its oneDNN ops run on the intra-op pool), so "
                        "OMP_NUM_THREADS sizes none of its pools; sweep --intra and --inter")


def _first_run(command: list[str], timeout: float | None, omp: bool = False) -> tuple[dict, bool | None]:
    """One run at TensorFlow's default with `run`'s recorder loaded: did a
    Python process of the command import TensorFlow? None when it cannot be
    told (no Python process loaded the recorder) or the run failed (the
    points report the failure). Also which OpenMP library its TensorFlow
    loaded (an OpenMP build) or None. `omp`: OMP_NUM_THREADS unset too (the
    default point of an OpenMP sweep)."""
    import tempfile
    from pathlib import Path

    from .child import run_child
    from .run import analyse, load_events, recorder_env

    env = child_env()
    for name in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", *(("OMP_NUM_THREADS",) if omp else ())):
        env.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="tfcompat-threads-tune-") as events:
        try:
            result = run_child(command, recorder_env(events, env), timeout)
        except OSError as error:
            raise ToolError(f"cannot run {command[0]!r}: {error.strerror or error}") from None
        processes = load_events(Path(events))
    if not processes or result.timed_out or result.returncode != 0:
        return {"result": result}, None  # not Python, or it failed: the points say how
    reports = analyse(command, result.returncode, {}, processes)["processes"]
    openmp = next((p["openmp"]["library"] for p in reports if "openmp" in p), None)
    return {"result": result, "python_processes": len(processes), "exit_code": result.returncode,
            "openmp": openmp, "tensorflow": reports[0]["tensorflow"] if reports else None}, bool(reports)


def how_to_apply(intra_op: int, inter_op: int, omp: int | None = None) -> dict:
    """The lines that give a program these pool sizes (0: leave it to
    TensorFlow; `omp` None: OMP_NUM_THREADS not swept, 0: unset). In the
    program, OMP_NUM_THREADS goes into os.environ before TensorFlow's first
    op (the OpenMP pool reads it when it starts); configure() sets it from an
    intra-op count itself on an OpenMP build, when it is unset."""
    pairs = (("intra_op", intra_op, "TF_NUM_INTRAOP_THREADS"), ("inter_op", inter_op, "TF_NUM_INTEROP_THREADS"))
    env = {name: str(value) for _, value, name in pairs if value}
    unset = [name for _, value, name in pairs if not value]
    python = [f"tf.config.threading.set_{key}_parallelism_threads({value})" for key, value, _ in pairs if value]
    keywords = ", ".join(f"{key}_parallelism_threads={value}" for key, value, _ in pairs if value)
    out = {
        "env": env,
        "unset": unset,
        "tf_config": python,
        "tfcompat_threads": f"tfcompat_threads.configure({keywords})" if keywords else None,
    }
    if omp is not None:
        if omp:
            env["OMP_NUM_THREADS"] = str(omp)
            out["omp_in_program"] = f'os.environ["OMP_NUM_THREADS"] = "{omp}"'
            python.insert(0, out["omp_in_program"])
        else:
            unset.append("OMP_NUM_THREADS")
        out["omp_by_configure"] = bool(omp) and omp == intra_op
    return out


def _point(entry: dict) -> str:
    omp = f", OMP_NUM_THREADS {entry['omp'] or 'unset'}" if "omp" in entry else ""
    return f"intra-op {entry['intra_op'] or 'default'}, inter-op {entry['inter_op'] or 'default'}{omp}"


def _verdict(best: dict, default: dict | None, repeat: int = MIN_REPEAT_FOR_NOISE) -> dict:
    """Beats the default by more than the noise: the best point's slowest run
    is faster than the default's fastest (their ranges do not overlap). With
    fewer than 3 runs a point the noise cannot be judged."""
    if default is None:
        return {"beats_default": None, "improvement": None,
                "verdict": "TensorFlow's default failed: no comparison"}
    improvement = round(1 - best["median_s"] / default["median_s"], 4)
    if repeat < MIN_REPEAT_FOR_NOISE:
        who = ("TensorFlow's default" if best is default
               else f"{_point(best)} ({improvement:.1%} below the default)")
        return {"beats_default": None, "improvement": improvement,
                "verdict": f"{who} has the lowest time, but with {repeat} run{'s' if repeat != 1 else ''} a point "
                           f"the noise cannot be judged: measure again with --repeat {MIN_REPEAT_FOR_NOISE} or more "
                           "before changing anything"}
    if best is default:
        return {"beats_default": False, "improvement": 0.0,
                "verdict": "TensorFlow's default is the fastest point measured: keep it (set nothing)"}
    beats = best["max_s"] < default["min_s"]
    if beats:
        text = (f"{_point(best)} is {improvement:.1%} faster than the "
                "default, more than the noise (its slowest run beats the default's fastest)")
    else:
        text = (f"{_point(best)} has the lowest median ({improvement:.1%} "
                "below the default), but within the noise: the runs overlap; keep the default or measure with "
                "more --repeat")
    return {"beats_default": beats, "improvement": improvement, "verdict": text}


def _label(value: int) -> str:
    return "dflt" if value == 0 else str(value)


def _size(value: int, cpus: int) -> str:
    return f"{value} threads" if value else f"TensorFlow's default ({cpus} threads here: the schedulable CPUs)"


def format_tune(data: dict) -> str:
    if data["tensorflow_imported"] is False:
        count = data["python_processes"]
        return (f"tfcompat-threads tune: `{_one_line(data['command'])}`: {count} Python "
                f"process{'es' if count != 1 else ''} ran; none imported TensorFlow: nothing to tune\n")
    cpus = data["cpus"]
    swept = "openmp" in data  # OMP_NUM_THREADS swept too (an OpenMP build)
    omp_head = f" {'omp':>5}" if swept else ""
    lines = [f"{'intra':>5} {'inter':>5}{omp_head}  {'median s':>9} {'min s':>8} {'max s':>8} {'spread':>8}"]
    for r in data["results"]:
        point = f"{_label(r['intra_op']):>5} {_label(r['inter_op']):>5}"
        if swept:
            point += f" {_label(r['omp']):>5}"
        if r["failed"] is not None:
            lines.append(f"{point}  failed: {r['failed']['how']}")
        else:
            lines.append(f"{point}  {r['median_s']:>9.4f} {r['min_s']:>8.4f} {r['max_s']:>8.4f} {r['spread_s']:>8.4f}")
    lines.append(f"(dflt = TensorFlow's default ({cpus} threads here: the schedulable CPUs)"
                 + (f"; omp = OMP_NUM_THREADS, the size of the OpenMP pool oneDNN's matmuls and convolutions run on "
                    f"({data['openmp']}), dflt: unset, the CPUs" if swept else "")
                 + f"; {data['repeat']} timed run{'s' if data['repeat'] != 1 else ''} a point after {data['warmup']} "
                 "untimed)")
    for r in data["results"]:
        if r["failed"] is not None:
            omp = f" omp={_label(r['omp'])}" if swept else ""
            lines.append(f"failed point intra={_label(r['intra_op'])} inter={_label(r['inter_op'])}{omp}: "
                         f"{r['failed']['how']}; its stderr ended with:")
            tail = r["failed"]["stderr_tail"].splitlines() or ["(nothing)"]
            lines += [f"    {line}" for line in tail]
    best = data["best"]
    omp = ""
    if swept:
        omp = (f", OpenMP pool {best['omp']} thread{'s' if best['omp'] != 1 else ''}" if best["omp"]
               else f", OMP_NUM_THREADS unset (the OpenMP pool: {cpus} threads, the CPUs)")
    lines.append(f"best: intra-op {_size(best['intra_op'], cpus)}, inter-op {_size(best['inter_op'], cpus)}{omp}")
    lines.append(data["verdict"])
    apply = data["apply"]
    if apply["env"]:
        lines.append("to run with the best point, either set in the environment before the program starts:")
        lines += [f"    export {name}={value}" for name, value in apply["env"].items()]
        lines += [f"    unset {name}" for name in apply["unset"]]
        lines.append("  or call, in the program before its first TensorFlow op:")
        lines += [f"    {line}" for line in apply["tf_config"]]
        if apply["tfcompat_threads"]:
            lines.append("  or, the same on any TensorFlow, with this package"
                         + (" (on an OpenMP build it sets OMP_NUM_THREADS from the intra-op count itself):"
                            if apply.get("omp_by_configure") else ":"))
            if apply.get("omp_in_program") and not apply.get("omp_by_configure"):
                lines.append(f"    {apply['omp_in_program']}")
            lines.append(f"    {apply['tfcompat_threads']}")
    else:
        lines.append("the best point is TensorFlow's default: set nothing (and unset TF_NUM_INTRAOP_THREADS / "
                     "TF_NUM_INTEROP_THREADS" + (" / OMP_NUM_THREADS" if swept else "") + ")")
    return "\n".join(lines) + "\n"


def _one_line(command: list[str], width: int = 80) -> str:
    """The command as the shell would read it, on one line, shortened."""
    import shlex

    text = shlex.join(command).replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 3] + "..."
