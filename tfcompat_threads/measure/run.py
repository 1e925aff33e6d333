"""run: start the user's command unchanged with the recorder loaded into its
Python processes, then say which thread settings took effect, counted from
the threads TensorFlow really made.

The command inherits this process's standard input, output and error, so
what it prints passes through byte for byte; the report is written after it
ends (to standard error or a file). The recorder (`recorder/`) writes events
per process; this module reads them and decides a verdict per setting:

- applied: the pool the program's ops ran on has the size asked;
- ignored: the call was accepted, but the pool the ops ran on has another
  size and no other setting asked that size (e.g. a tf.compat.v1 session's
  config in eager code: the eager ops run on the default inter-op pool);
- raised: the call raised (a tf.config.threading setter after the first op);
- overridden: the pool has the size another setting asked (a later call, the
  config over the environment, the first session over a later one);
- not reached: the process never ran an op (or never reached its pools);
- not counted: a field that is not a thread count (placement, GPU options),
  or, on TF 2.15 without the at-exit calibration, an intra/inter split that
  the thread names cannot give.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from ..options import OPTIONS, THREAD_FIELDS
from . import ToolError
from ..terminal import plural
from .events import load_events, remove, still
from .openmp import OPENMP_ROLE, int_value, openmp_pool, openmp_setting, openmp_words

RECORDER_DIR = Path(__file__).resolve().parent / "recorder"
# The thread fields and the variables that set the same pools, as the option table has them.
ENV_OF = {option.field: option.env for option in OPTIONS if option.field in THREAD_FIELDS}
FIELD_OF_ENV = {env: field for field, env in ENV_OF.items()}
RELATED_ENV = (*FIELD_OF_ENV, "OMP_NUM_THREADS", "MKL_NUM_THREADS",
               "OPENBLAS_NUM_THREADS", "TF_ENABLE_ONEDNN_OPTS")
VERDICTS = ("applied", "ignored", "raised", "overridden", "not reached", "not counted")
# Fields InteractiveSession sets on the caller's config itself.
INTERACTIVE_OWN = {"graph_options.place_pruned_graph": True}


# -- running -----------------------------------------------------------------------------------------


def resolve(command: list[str]) -> str:
    """The program COMMAND[0] names, or a ToolError saying why it cannot run."""
    name = command[0]
    if os.sep in name or (os.altsep and os.altsep in name):
        path = Path(name)
        if not path.exists():
            raise ToolError(f"cannot run {name!r}: no such file")
        if path.is_dir() or not os.access(path, os.X_OK):
            raise ToolError(f"cannot run {name!r}: not an executable file (try: python {name})")
        return name
    found = shutil.which(name)
    if found is None:
        raise ToolError(f"cannot run {name!r}: command not found")
    return found


def recorder_env(events: str, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(RECORDER_DIR) + (os.pathsep + old if old else "")
    env["TFCOMPAT_THREADS_RUN_DIR"] = events
    return env


def run(command: list[str]) -> tuple[int, dict]:
    """Run `command` with the recorder; return its exit status (as
    subprocess gives it: negative for a signal) and the report."""
    resolve(command)
    launch_env = {name: os.environ[name] for name in RELATED_ENV if name in os.environ}
    launch_env.update({k: v for k, v in os.environ.items() if k.startswith("KMP_")})
    events = tempfile.mkdtemp(prefix="tfcompat-threads-run-")
    # Held open: the command may replace the folder (by a link, say); what is
    # read is what is in this folder, through this descriptor.
    folder = os.open(events, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
    try:
        try:
            proc = subprocess.Popen(command, env=recorder_env(events))
        except OSError as error:
            raise ToolError(f"cannot run {command[0]!r}: {error.strerror or error}") from None
        status = _wait(proc)
        skipped: list[str] = []
        if not still(events, folder):
            skipped.append("the command replaced or removed the events folder; what it holds now was not read")
        processes = load_events(folder, skipped)
        report = analyse(command, status, launch_env, processes, skipped)
    finally:
        remove(events, folder)
    return status, report


def _wait(proc: subprocess.Popen) -> int:
    """Wait for the command. Ctrl-C reaches it from the terminal (same
    process group), so this process ignores SIGINT meanwhile and reports
    after; SIGTERM and SIGHUP sent to this process are passed on."""
    def forward(signum, frame):
        try:
            proc.send_signal(signum)
        except OSError:
            pass

    previous = {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN)}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous[signum] = signal.signal(signum, forward)
    try:
        return proc.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


# -- counting ----------------------------------------------------------------------------------------


def _version_tuple(text: str | None) -> tuple[int, int]:
    import re

    match = re.match(r"(\d+)\.(\d+)", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _windows(events: list[dict]) -> list[dict]:
    """Events that made threads: each session's start and the first op."""
    return [e for e in events if e["ev"] in ("session", "first_op") and "new" in e]


# The names TensorFlow (>= 2.16) gives its own threads. A program that names its
# main thread so (prctl PR_SET_NAME) makes the intra-op threads, which take the
# name of the thread that starts them, look like TensorFlow's.
_TF_THREAD_NAMES = ("tf_Compute", "tf_graph_runner")


def count_pools(events: list[dict], version: str | None) -> dict:
    """The pools each window made, counted from the threads.

    TF >= 2.16: inter-op threads are named tf_Compute, the intra-op ones like
    the process, the graph runner tf_graph_runner. TF 2.15 names none: the
    intra-op threads are those that worked during the at-exit calibration
    matmul (a pool of 1 runs inline: at least 1); the first window makes the
    process-wide intra-op pool, and the first session window also makes the
    one graph-runner thread (seen on 2.21 by name, and the same counts on 2.15).
    """
    windows = _windows(events)
    named = _version_tuple(version) >= (2, 16)
    exit_event = next((e for e in events if e["ev"] == "exit"), None)
    calibration = (exit_event or {}).get("calibration")
    busy = set(calibration["busy"]) if calibration else None
    out = []
    for number, window in enumerate(windows):
        new = window["new"]
        main = window.get("main", "python")
        entry = {"kind": window["ev"], "site": window.get("site"), "threads": len(new)}
        if window["ev"] == "session":
            entry["session"] = window.get("id")
            entry["session_kind"] = window.get("kind")
        by_name = named and main not in _TF_THREAD_NAMES  # else the intra-op threads, named after it, look like TF's
        if by_name:
            entry["intra_op"] = sum(1 for name in new.values() if name == main)
            entry["inter_op"] = sum(1 for name in new.values() if name == "tf_Compute")
            entry["how"] = "thread names (tf_Compute = inter-op; named like the process = intra-op)"
        elif _version_tuple(version) < (2, 0):
            # TF 1.x graph sessions grow by two threads per intra-op thread, and
            # their inter-op threads work during a matmul too: the calibration
            # cannot tell the pools apart (`probe` counts them another way)
            entry["intra_op"] = entry["inter_op"] = None
            entry["how"] = (f"TF {version} names no threads, and a count cannot tell its pools apart: only the "
                            f"total ({len(new)} new threads) is known; `tfcompat-threads probe` counts each pool")
        elif busy is not None:
            intra = sum(1 for tid in new if tid in busy)
            if number == 0:
                intra = max(1, intra)
            runner = 1 if number == 0 and window["ev"] == "session" else 0
            entry["intra_op"] = intra
            entry["inter_op"] = len(new) - intra - runner
            unnamed = (f"the main thread is named {main}, as TensorFlow names its own threads" if named
                       else f"TF {version} names no threads")
            entry["how"] = (f"{unnamed}: intra-op = the new threads that worked during a "
                            "large matmul at exit; inter-op = the other new threads"
                            + (" less the one graph runner" if runner else ""))
        else:
            entry["intra_op"] = entry["inter_op"] = None
            unnamed = f"the main thread is named {main}, as TensorFlow names its own" if named else \
                f"TF {version} names no threads"
            entry["how"] = (f"{unnamed} and the at-exit calibration did not run: only the "
                            f"total ({len(new)} new threads) is known")
        out.append(entry)
    return {"windows": out, "named": named}


def _by_name(threads: dict | None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in (threads or {}).values():
        counts[value[0]] = counts.get(value[0], 0) + 1
    return counts


# -- settings and verdicts ---------------------------------------------------------------------------


def collect_settings(events: list[dict], launch_env: dict[str, str]) -> list[dict]:
    """Every setting the program asked for, in order, with where it came from."""
    settings: list[dict] = []
    tf_event = next((e for e in events if e["ev"] == "tf"), {})
    program_env = tf_event.get("env", {})
    for name in ENV_OF.values():
        if name in launch_env:
            settings.append({"field": FIELD_OF_ENV[name], "value": launch_env[name], "source": "environment",
                             "api": f"{name} (environment of the command)", "site": None, "kind": "env"})
        elif name in program_env:
            settings.append({"field": FIELD_OF_ENV[name], "value": program_env[name], "source": "environment",
                             "api": f"{name} (set by the program before importing TensorFlow)", "site": None,
                             "kind": "env"})
    sessions_run = {e["id"] for e in events if e["ev"] == "session_run"}
    set_sessions: dict[int, list[str]] = {}
    for event in events:
        if event["ev"] == "set_session":
            set_sessions.setdefault(event["id"], []).append(event.get("site") or "?")
    for event in events:
        kind = event["ev"]
        if kind == "set":
            settings.append({"field": event["field"], "value": event["value"], "source": event["api"],
                             "api": event["api"], "site": event.get("site"), "kind": "set",
                             "initialized": event.get("initialized"), "error": event.get("error")})
        elif kind in ("session", "enable_eager", "runconfig"):
            fields = dict(event.get("fields", {}))
            if event.get("kind") == "InteractiveSession":
                fields = {k: v for k, v in fields.items() if INTERACTIVE_OWN.get(k) != v}
            sink = {"session": f"{event.get('kind')}(config=...)",
                    "enable_eager": "tf.compat.v1.enable_eager_execution(config=...)",
                    "runconfig": "tf.estimator.RunConfig(session_config=...)"}[kind]
            for field, value in fields.items():
                setting = {"field": field, "value": value, "source": sink, "api": sink, "site": event.get("site"),
                           "kind": kind, "error": event.get("error")}
                if kind == "session":
                    setting["session"] = event.get("id")
                    setting["session_ran"] = event.get("id") in sessions_run
                    setting["set_session"] = set_sessions.get(event.get("id"), [])
                    setting["eager"] = event.get("eager")
                if kind == "enable_eager":
                    setting["eager_before"] = event.get("eager_before")
                settings.append(setting)
    return settings


def _wanted(setting: dict, cpus: int) -> int | None:
    value = setting["value"]
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    number = int_value(value)
    if number is None or number < 0:
        return None
    return number or cpus


def decide(settings: list[dict], pools: dict, events: list[dict], cpus: int) -> None:
    """Give each setting a verdict and the reason (in place)."""
    windows = pools["windows"]
    first_op = next((w for w in windows if w["kind"] == "first_op"), None)
    sessions = [w for w in windows if w["kind"] == "session"]
    any_run = any(e["ev"] == "session_run" for e in events)
    reached = first_op is not None or any_run
    intra = windows[0]["intra_op"] if windows else None
    eager_inter = first_op["inter_op"] if first_op else None
    session_inter = sessions[0]["inter_op"] if sessions else None
    for setting in settings:
        setting["verdict"], setting["why"] = _verdict(setting, settings, reached, intra, eager_inter,
                                                      session_inter, first_op, sessions, any_run, cpus)


def _verdict(setting, settings, reached, intra, eager_inter, session_inter, first_op, sessions, any_run, cpus):
    field = setting["field"]
    if setting.get("error"):
        return "raised", setting["error"]
    if field not in THREAD_FIELDS:
        if not reached:
            return "not reached", "the program never ran an op"
        return "not counted", "only the thread pools are counted"
    if not reached:
        return "not reached", "the program never ran an op, so no pool was used"
    wanted = _wanted(setting, cpus)
    if wanted is None:
        return "ignored", f"{setting['value']!r} is not a thread count TensorFlow takes"
    where = ""
    if field == "intra_op_parallelism_threads":
        size, pool = intra, "the process-wide intra-op pool"
    elif setting["kind"] == "session" and setting.get("session_ran"):
        size, pool = session_inter, "the inter-op pool of the sessions (process-wide, sized by the first one)"
    elif setting["kind"] in ("session", "runconfig") and not setting.get("session_ran") and first_op is None:
        if setting["kind"] == "runconfig" and any_run:
            size, pool = session_inter, "the inter-op pool of the sessions"
        else:
            return "not reached", "the session never ran a graph and the program ran no eager op"
    elif first_op is not None:
        size, pool = eager_inter, "the inter-op pool the eager ops ran on"
        where = f" (made at the first op, {_short(first_op['site'])})"
    else:
        size, pool = session_inter, "the inter-op pool of the sessions (graph mode)"
    if size is None:  # why is said once, where the pools' count is ("counted from")
        return "not counted", "the pool sizes are not known (see how the pools were counted)"
    threads = f"{size} thread{'s' if size != 1 else ''}"
    if size == wanted:
        return "applied", f"{pool} has {threads} (counted){where}"
    others = [o for o in settings if o is not setting and o["field"] == field and not o.get("error")
              and _wanted(o, cpus) == size]
    if others:
        other = others[-1]
        by = other["api"] + (f" at {_short(other['site'])}" if other.get("site") else "")
        return "overridden", f"{pool} has {threads} (counted){where}, as {by} asked"
    why = f"asked {wanted}, but {pool} has {threads} (counted){where}"
    if setting["kind"] == "session" and not setting.get("session_ran") and field == "inter_op_parallelism_threads":
        own = sessions[0]["inter_op"] if sessions else None
        why += (f"; the {setting['api'].split('(')[0]} made its own pool"
                + (f" of {own} thread{'s' if own != 1 else ''}" if own is not None else "")
                + ", which only session.run uses, and the program never called it")
    if setting["kind"] == "enable_eager" and setting.get("eager_before"):
        why += "; eager execution was on already, so enable_eager_execution ignored its config"
    return "ignored", why


def _short(site: str | None) -> str:
    if not site:
        return "?"
    path, _, line = site.rpartition(":")
    try:
        shown = os.path.relpath(path)
    except ValueError:
        shown = path
    if shown.startswith(".." + os.sep + ".."):
        shown = path
    return f"{shown}:{line}"


def analyse(command: list[str], status: int, launch_env: dict[str, str], processes: list[dict],
            skipped: list[str] | None = None) -> dict:
    reports = []
    skipped = [] if skipped is None else skipped
    forks: dict[int, list[int]] = {}
    for process in processes:
        for event in process["events"]:
            if event["ev"] == "fork":
                forks.setdefault(event.get("ppid"), []).append(event.get("pid"))
    for process in processes:
        try:
            report = _process_report(process, launch_env, forks)
        except (TypeError, KeyError, ValueError, AttributeError, IndexError) as error:  # events no recorder wrote
            skipped.append(f"{process['pid']}.jsonl: events the recorder does not write ({type(error).__name__})")
            continue
        if report is not None:
            reports.append(report)
    counts = {verdict: 0 for verdict in VERDICTS}
    for report in reports:
        for setting in report["settings"]:
            counts[setting["verdict"]] += 1
    out = {
        "command": command,
        "exit_code": status,
        "signal": signal.Signals(-status).name if status < 0 and -status in signal.Signals._value2member_map_
        else None,
        "python_processes": len({p["pid"] for p in processes}),
        "tensorflow_processes": len(reports),
        "environment": launch_env,
        "processes": reports,
        "verdicts": counts,
    }
    if skipped:
        out["events_skipped"] = skipped
    return out


def _process_report(process: dict, launch_env: dict[str, str], forks: dict) -> dict | None:
    """The report of one process image, or None when it never imported TensorFlow."""
    events = process["events"]
    tf_event = next((e for e in events if e["ev"] == "tf"), None)
    if tf_event is None:
        return None
    version = tf_event.get("version")
    cpus = tf_event.get("cpus") or 1
    pools = count_pools(events, version)
    settings = collect_settings(events, launch_env)
    decide(settings, pools, events, cpus)
    settings = _merged(settings)
    split = any(window["intra_op"] is not None for window in pools["windows"])
    roles = _thread_roles(events, process["pid"], pools["named"], split)
    first_op = next((e for e in events if e["ev"] == "first_op"), None)
    exit_event = next((e for e in events if e["ev"] == "exit"), None)
    modes = [e.get("eager") for e in events if "eager" in e and e["ev"] in ("tf", "first_op", "session")]
    disabled = any(e["ev"] == "disable_eager" and not e.get("error") for e in events)
    mode = f"tf{version.split('.')[0] if version else '?'}-" + ("graph" if disabled or modes[-1:] == [False]
                                                                else "eager")
    report = {
        "pid": process["pid"],
        "argv": tf_event.get("argv"),
        "forked_from": next((e["ppid"] for e in events if e["ev"] == "fork"), None),
        "tensorflow": version,
        "mode": mode,
        "cpus": cpus,
        "first_op": _short(first_op.get("site")) if first_op else None,
        "pools": pools["windows"],
        "threads_at_first_op": _by_name(first_op.get("threads")) if first_op else None,
        "threads_at_exit": _by_name(exit_event.get("threads")) if exit_event else None,
        "threads_at_first_op_explained": _explained(first_op.get("threads"), roles) if first_op else None,
        "threads_at_exit_explained": _explained(exit_event.get("threads"), roles) if exit_event else None,
        "ended": _ending(exit_event),
        "calibration": (exit_event or {}).get("calibration"),
        "env": tf_event.get("env", {}),
        "settings": settings,
        "forked_children": forks.get(process["pid"], []),
        "recorder_errors": [e for e in events if e["ev"] == "recorder_error"],
    }
    if tf_event.get("openmp"):  # an OpenMP build: oneDNN's heavy ops ran on a third pool
        pools = {tid for window in _windows(events) for tid in window["new"]}
        report["openmp"] = openmp_pool(events, tf_event["openmp"], launch_env, process["pid"], pools)
        pool = openmp_words(report["openmp"])
        for setting in settings:
            if setting["field"] == "intra_op_parallelism_threads":
                setting["why"] += f"; but {pool}, not by this setting"
        if report["openmp"]["OMP_NUM_THREADS"] is not None:
            settings.append(openmp_setting(report["openmp"], first_op is not None))
        roles.update({tid: OPENMP_ROLE for tid in report["openmp"].pop("workers")})
        if exit_event:
            report["threads_at_exit_explained"] = _explained(exit_event.get("threads"), roles)
    if "image" in process:  # the process exec()ed: one report per image
        report["image"] = process["image"]
        if exit_event is None and process["image"][0] < process["image"][1]:
            report["ended"] = "replaced by another program through exec() (the same pid: the next image)"
    return report


def _merged(settings: list[dict]) -> list[dict]:
    """One entry per setting: the same field set to the same value again
    (the shim's Session and set_session each apply the config; a program
    that calls a setter twice), with the same verdict, is the first entry
    `again` at its site. Each entry gets `code`: the user's line at its site."""
    out: list[dict] = []
    for setting in settings:
        setting["code"] = _code_at(setting.get("site"))
        first = next((s for s in out if s["field"] == setting["field"] and s["value"] == setting["value"]
                      and s["verdict"] == setting["verdict"] and s["kind"] == setting["kind"] != "env"), None)
        if first is None:
            setting["again"] = []
            out.append(setting)
        else:
            first["again"].append(setting.get("site"))
    return out


def _code_at(site: str | None) -> str | None:
    """The source line at `file:line`, stripped (None when it cannot be read)."""
    if not site:
        return None
    import linecache

    path, _, line = site.rpartition(":")
    try:
        text = linecache.getline(path, int(line)).strip()
    except (ValueError, OSError):
        return None
    return text or None


def _thread_roles(events: list[dict], pid: int, named: bool, split: bool) -> dict[str, str]:
    """Thread id -> what it is, from the events' snapshots: the main thread,
    the pools each event made (intra-op, inter-op, graph runner; eager or a
    session's), the threads already there when TensorFlow had been imported
    (numpy's OpenBLAS pool, Python threads), and those started later.
    `split`: the pools' count told intra-op from inter-op (count_pools); where
    it could not, no thread is called either (TF 1.x: one account, not two)."""
    roles: dict[str, str] = {str(pid): "main"}
    if named:  # TensorFlow's own names say what a thread is wherever it was made
        for event in events:
            for tid, value in (event.get("threads") or {}).items():
                if value[0] == "tf_graph_runner":
                    roles.setdefault(tid, "graph runner")
    tf_event = next((e for e in events if e["ev"] == "tf"), {})
    for tid in tf_event.get("threads") or {}:
        roles.setdefault(tid, "there when TensorFlow was imported (numpy's OpenBLAS pool, Python threads)")
    exit_event = next((e for e in events if e["ev"] == "exit"), None)
    calibration = (exit_event or {}).get("calibration")
    busy = {str(t) for t in calibration["busy"]} if calibration and split else None
    for window in _windows(events):
        main = window.get("main", "python")
        whose = ("eager" if window["ev"] == "first_op"
                 else f"of the {window.get('kind')} at {_short(window.get('site'))}")
        for tid, name in window["new"].items():
            if named:
                role = {main: "intra-op", "tf_Compute": "inter-op"}.get(name)
                role = f"{role} ({whose})" if role else f"made by TensorFlow ({whose})"
            elif busy is not None:
                role = f"intra-op ({whose})" if tid in busy else f"inter-op or graph runner ({whose})"
            else:
                role = f"TensorFlow's pools ({whose})"
            roles.setdefault(tid, role)
    return roles


def _explained(threads: dict | None, roles: dict[str, str]) -> dict[str, dict[str, int]]:
    """Thread name -> {what they are: how many}."""
    out: dict[str, dict[str, int]] = {}
    for tid, value in (threads or {}).items():
        role = roles.get(tid, "started later by the program (Python threads, tf.data, Keras)")
        counts = out.setdefault(value[0], {})
        counts[role] = counts.get(role, 0) + 1
    return out


def _ending(exit_event: dict | None) -> str:
    if exit_event is None:
        return "no exit sample: the process was killed, crashed hard or left through os._exit"
    if exit_event.get("exception"):
        return f"ended by an uncaught {exit_event['exception']}"
    return "exited normally"


def exit_code(status: int, report: dict, strict: bool) -> int:
    """The command's exit code (128 + N for signal N, as a shell says);
    with --strict, 1 instead of 0 when a setting was ignored."""
    code = status if status >= 0 else 128 - status
    if strict and code == 0 and report["verdicts"]["ignored"]:
        return 1
    return code


# -- text --------------------------------------------------------------------------------------------


def _value(value) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def format_report(report: dict) -> str:
    command = " ".join(report["command"])
    ending = f"exit code {report['exit_code']}" if report["signal"] is None else f"killed by {report['signal']}"
    lines = [f"tfcompat-threads run: `{command}` ended with {ending}"]
    if not report["processes"]:
        if report["python_processes"] == 0 and report.get("events_skipped"):
            lines.append("  no event file of the recorder could be read (see below)")
        elif report["python_processes"] == 0:
            lines.append("  no Python process loaded the recorder (COMMAND is not Python, or it runs Python with "
                         "-I, -E or -S, which ignore PYTHONPATH)")
        else:
            lines.append(f"  {report['python_processes']} Python process(es) ran; none imported TensorFlow: "
                         "nothing to report")
    for process in report["processes"]:
        argv = " ".join(process["argv"] or [])
        forked = f", forked from {process['forked_from']}" if process["forked_from"] else ""
        if "image" in process:
            forked += f", program {process['image'][0]} of {process['image'][1]} it ran through exec()"
        lines.append(f"process {process['pid']}{forked} `{argv}`: TensorFlow {process['tensorflow']}, "
                     f"{process['mode']} mode, {process['cpus']} schedulable CPUs; {process['ended']}")
        if process["first_op"]:
            lines.append(f"  first op at {process['first_op']}")
        else:
            lines.append("  no eager op ran")
        for window in process["pools"]:
            what = ("at the first op (the eager pools)" if window["kind"] == "first_op"
                    else f"by {window.get('session_kind')} at {_short(window['site'])}")
            if window["intra_op"] is None:
                sizes = f"{window['threads']} new threads (split unknown)"
            else:
                sizes = f"{plural(window['intra_op'], 'new intra-op thread')}, {plural(window['inter_op'], 'new inter-op thread')}"
            lines.append(f"  pools made {what}: {sizes}")
        if process["pools"]:
            lines.append(f"    counted from: {process['pools'][0]['how']}")
        if process["threads_at_first_op"] is not None:
            lines.append(f"  threads at the first op: {_names_explained(process['threads_at_first_op_explained'])}")
        if process["threads_at_exit"] is not None:
            lines.append(f"  threads at exit: {_names_explained(process['threads_at_exit_explained'])}")
        if process["settings"]:
            lines.append("  settings:")
        else:
            lines.append("  settings: none recorded (TensorFlow's defaults, unless the program ended before asking)")
        for setting in process["settings"]:
            lines.append(f"    {setting['field']}={_value(setting['value'])} via {_asked_where(setting)}")
            lines.append(f"      -> {setting['verdict']}: {setting['why']}")
        if process["forked_children"]:
            children = process["forked_children"]
            lines.append(f"  forked {len(children)} child process(es) ({', '.join(map(str, children))}): a forked child "
                         "keeps only the thread that forked, not TensorFlow's pools")
        if "openmp" in process:
            openmp = process["openmp"]
            lines.append(f"  OpenMP pool ({openmp['library']}): {openmp_words(openmp)}, not by "
                         "intra_op_parallelism_threads")
            lines.append(f"    counted from: {process['openmp']['how']}")
        env = process["env"]
        lines.append("  environment: " + (", ".join(f"{k}={v}" for k, v in env.items()) or "no related variable set"))
        for error in process["recorder_errors"]:
            lines.append(f"  recorder error in {error.get('where')}: {error.get('error')}")
    for skipped in report.get("events_skipped", []):
        lines.append(f"  left out of the events folder: {skipped}")
    counts = ", ".join(f"{n} {v}" for v, n in report["verdicts"].items() if n)
    lines.append(f"verdicts: {counts or 'no setting'}")
    return "\n".join(lines) + "\n"


def _asked_where(setting: dict) -> str:
    """The call and the user's line: `code` at file:line (through the TF
    call it made, when the line does not name it), then where the same
    value was set again."""
    site = f" at {_short(setting['site'])}" if setting.get("site") else ""
    api, code = setting["api"], setting.get("code")
    called = api.split("(")[0].rsplit(".", 1)[-1]
    text = f"`{code}`{site} (through {api})" if code and called not in code else f"{api}{site}"
    also = "".join(f"; set_session at {_short(s)}" for s in setting.get("set_session") or [])
    again = [f"{_short(s)}" + (f" `{_code_at(s)}`" if _code_at(s) else "") for s in setting.get("again") or []]
    return text + also + (f"; the same again at {', '.join(again)}" if again else "")


def _names_explained(explained: dict[str, dict[str, int]]) -> str:
    """`total (name n = what + what; ...)`: every count said."""
    total = sum(sum(roles.values()) for roles in explained.values())
    parts = []
    for name, roles in sorted(explained.items()):
        count = sum(roles.values())
        what = " + ".join(role if role == "main" and n == 1 else f"{n} {role}" for role, n in roles.items())
        parts.append(f"{name} {count} = {what}")
    return f"{total} (" + "; ".join(parts) + ")"


def _names(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    return f"{total} (" + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())) + ")"


def write_report(report: dict, as_json: bool, output: str | None) -> None:
    text = json.dumps(report, indent=2, default=str) + "\n" if as_json else format_report(report)
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:  # a stream closed when the tool started (`1>&-`) is None
        if sys.stdout is not None:
            sys.stdout.flush()
        if sys.stderr is not None:
            sys.stderr.write(text)
            sys.stderr.flush()
