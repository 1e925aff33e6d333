"""The part of `tfcompat-threads run`'s recorder that is loaded only when
TensorFlow (or Keras 2's backend, or tf.estimator's RunConfig) is imported:
see `_tfcompat_threads_recorder` for what it records and why."""

from __future__ import annotations

import os
import sys

from _tfcompat_threads_recorder import write_line as _write_line

_HERE = os.path.dirname(os.path.abspath(__file__))
_THREADS_PY = os.path.join(os.path.dirname(_HERE), "threads.py")
_STATE = {"first_op": False, "forked": False, "session_runs": set(), "sessions": 0, "tf": None}
_PACKAGES = {
    "tensorflow", "keras", "tf_keras", "tensorflow_estimator", "tfcompat_threads", "importlib",
    "_tfcompat_threads_recorder", "_tfcompat_threads_recorder_tf", "absl", "wrapt", "functools", "contextlib",
}
THREAD_ENV = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")


def _write(event: dict) -> None:
    import json
    import time

    event.setdefault("t", time.time())
    _write_line(json.dumps(event, default=repr) + "\n")


def _counting():
    """measure/threads.py, loaded by path under a private name."""
    module = sys.modules.get("_tfcompat_threads_counting")
    if module is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("_tfcompat_threads_counting", _THREADS_PY)
        module = importlib.util.module_from_spec(spec)
        sys.modules["_tfcompat_threads_counting"] = module
        spec.loader.exec_module(module)
    return module


def _snapshot() -> dict:
    return {str(tid): list(value) for tid, value in _counting().snapshot().items()}


def _settled_snapshot(before: dict) -> dict:
    """The threads after an event, once those it started have settled (a
    thread that ends by itself is no pool's: measure/threads.py)."""
    return {str(tid): list(value) for tid, value in _counting().settled_snapshot(map(int, before)).items()}


def _new_threads(before: dict, after: dict) -> dict:
    return {tid: value[0] for tid, value in after.items() if tid not in before}


def _site() -> str | None:
    """file:line of the innermost caller outside TensorFlow, Keras, this
    package and the recorder: the user's line that led here."""
    frame = sys._getframe(1)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", "")).split(".")[0]
        if name not in _PACKAGES and not frame.f_code.co_filename.startswith("<frozen"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _env() -> dict:
    names = THREAD_ENV + ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TF_ENABLE_ONEDNN_OPTS")
    env = {name: os.environ[name] for name in names if name in os.environ}
    env.update({k: v for k, v in os.environ.items() if k.startswith("KMP_")})
    return env


def _plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def _fields(message, prefix: str = "") -> dict:
    """Dotted field -> value of the fields set in a ConfigProto."""
    out: dict = {}
    if message is None or not hasattr(message, "ListFields"):
        return out
    for descriptor, value in message.ListFields():
        name = prefix + descriptor.name
        if hasattr(value, "ListFields"):
            out.update(_fields(value, name + "."))
        elif hasattr(value, "items"):  # a map field: device_count
            out.update({f"{name}.{key}": _plain(item) for key, item in value.items()})
        else:
            out[name] = _plain(value)
    return out


def _eager() -> bool | None:
    context = sys.modules.get("tensorflow.python.eager.context")
    mode = getattr(context, "default_execution_mode", None)
    return None if mode is None else mode == getattr(context, "EAGER_MODE", 1)


def guarded(function):
    """Wrap a recording step so that it never breaks the user's program."""

    def guarded(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001
            try:
                _write({"ev": "recorder_error", "where": function.__name__, "error": repr(error)})
            except Exception:  # noqa: BLE001
                pass
            return None

    return guarded


# -- what is wrapped when TensorFlow is imported ---------------------------------------------------


def on_tensorflow(tf) -> None:
    if _STATE["tf"] is not None:
        return
    _STATE["tf"] = getattr(tf, "__version__", "?")
    from tensorflow.python.client import session
    from tensorflow.python.eager import context
    from tensorflow.python.framework import ops

    event = {"ev": "tf", "version": _STATE["tf"], "argv": list(getattr(sys, "orig_argv", sys.argv)),
             "executable": sys.executable, "eager": _eager(), "env": _env(), "cpus": _cpus(),
             "main": _main_name(), "threads": _snapshot()}
    openmp = _openmp_loaded()
    if openmp:
        event["openmp"] = openmp
    _write(event)
    _wrap_context(context.Context)
    _wrap_sessions(session.BaseSession)
    _wrap_module_function(ops, "enable_eager_execution", _record_enable_eager)
    _wrap_module_function(ops, "disable_eager_execution", _record_disable_eager)
    import atexit

    atexit.register(_at_exit)  # after TensorFlow's own: runs before them
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork)


def _openmp_loaded():
    """The OpenMP library TensorFlow loaded into this process (an OpenMP
    build, as Intel's: libiomp5.so), from /proc/self/maps, or None."""
    import re

    try:
        with open("/proc/self/maps") as handle:
            paths = {line.split()[-1] for line in handle if "/lib" in line}
    except OSError:
        return None
    found = sorted(p.rsplit("/", 1)[-1] for p in paths if re.match(r"lib(iomp5|gomp|omp)\.so", p.rsplit("/", 1)[-1]))
    return found[0] if found else None


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _main_name() -> str:
    try:
        return _counting().main_thread_name()
    except OSError:
        return "?"


def _wrap_context(cls) -> None:
    original = cls.ensure_initialized

    def ensure_initialized(self):
        if _STATE["first_op"] or getattr(self, "_context_handle", None) is not None:
            return original(self)
        before = _snapshot()
        try:
            return original(self)
        finally:
            if getattr(self, "_context_handle", None) is not None and not _STATE["first_op"]:
                _STATE["first_op"] = True
                cls.ensure_initialized = original
                guarded(_record_first_op)(self, before)

    cls.ensure_initialized = ensure_initialized
    for attr, field, api in (
        ("intra_op_parallelism_threads", "intra_op_parallelism_threads",
         "tf.config.threading.set_intra_op_parallelism_threads"),
        ("inter_op_parallelism_threads", "inter_op_parallelism_threads",
         "tf.config.threading.set_inter_op_parallelism_threads"),
        ("soft_device_placement", "allow_soft_placement", "tf.config.set_soft_device_placement"),
        ("log_device_placement", "log_device_placement", "tf.debugging.set_log_device_placement"),
    ):
        prop = cls.__dict__.get(attr)
        if isinstance(prop, property) and prop.fset is not None:
            setattr(cls, attr, property(prop.fget, _setter(prop.fset, field, api), prop.fdel, prop.__doc__))
    for method, api in (
        ("set_memory_growth", "tf.config.experimental.set_memory_growth"),
        ("set_visible_devices", "tf.config.set_visible_devices"),
        ("set_logical_device_configuration", "tf.config.set_logical_device_configuration"),
    ):
        if hasattr(cls, method):
            setattr(cls, method, _method(getattr(cls, method), api))


def _record_first_op(context, before: dict) -> None:
    after = _settled_snapshot(before)
    _write({"ev": "first_op", "site": _site(), "eager": _eager(), "env": _env(), "main": _main_name(),
            "new": _new_threads(before, after), "threads": after})


def _call_and_record(event: dict, function, args, kwargs):
    try:
        result = function(*args, **kwargs)
    except BaseException as error:
        event["error"] = f"{type(error).__name__}: {error}"
        guarded(_write)(event)
        raise
    guarded(_write)(event)
    return result


def _setter(fset, field: str, api: str):
    def setter(self, value):
        event = {"ev": "set", "api": api, "field": field, "value": _plain(value), "site": _site(),
                 "initialized": getattr(self, "_context_handle", None) is not None}
        return _call_and_record(event, fset, (self, value), {})

    return setter


def _method(function, api: str):
    def method(self, *args, **kwargs):
        event = {"ev": "set", "api": api, "field": api.rsplit(".", 1)[1], "value": _plain(args or kwargs),
                 "site": _site(), "initialized": getattr(self, "_context_handle", None) is not None}
        return _call_and_record(event, function, (self, *args), kwargs)

    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def _wrap_sessions(cls) -> None:
    original_init, original_run = cls.__init__, cls.run

    def __init__(self, *args, **kwargs):
        if _STATE.get("calibrating"):
            return original_init(self, *args, **kwargs)
        config = kwargs.get("config", args[2] if len(args) > 2 else None)
        before = _snapshot()
        event = {"ev": "session", "kind": type(self).__name__, "id": id(self), "site": _site(),
                 "eager": _eager(), "first_op_before": _STATE["first_op"], "fields": _fields(config)}
        try:
            original_init(self, *args, **kwargs)
        except BaseException as error:
            event["error"] = f"{type(error).__name__}: {error}"
            raise
        finally:
            after = _settled_snapshot(before)
            event["new"] = _new_threads(before, after)
            event["env"] = _env()
            event["main"] = _main_name()
            _STATE["sessions"] += 1
            guarded(_write)(event)

    def run(self, *args, **kwargs):
        if id(self) not in _STATE["session_runs"] and not _STATE.get("calibrating"):
            _STATE["session_runs"].add(id(self))
            guarded(_write)({"ev": "session_run", "id": id(self), "site": _site()})
        return original_run(self, *args, **kwargs)

    __init__.__doc__, run.__doc__ = original_init.__doc__, original_run.__doc__
    cls.__init__, cls.run = __init__, run


def _wrap_module_function(module, name: str, make) -> None:
    """Replace module.name, and every public API module's alias of it."""
    original = getattr(module, name, None)
    if original is None:
        return
    wrapper = make(original)
    setattr(module, name, wrapper)
    for other in list(sys.modules.values()):
        other_name = getattr(other, "__name__", "") or ""
        if other_name.startswith("tensorflow") and other.__dict__.get(name) is original:
            try:
                setattr(other, name, wrapper)
            except Exception:  # noqa: BLE001
                pass
    tf = sys.modules.get("tensorflow")
    v1 = getattr(getattr(tf, "compat", None), "v1", None)
    try:
        if v1 is not None and getattr(v1, name, None) is original:
            setattr(v1, name, wrapper)
    except Exception:  # noqa: BLE001
        pass


def _record_enable_eager(original):
    def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
        event = {"ev": "enable_eager", "site": _site(), "eager_before": _eager(), "fields": _fields(config)}
        return _call_and_record(event, original, (config, device_policy, execution_mode), {})

    enable_eager_execution.__doc__ = original.__doc__
    return enable_eager_execution


def _record_disable_eager(original):
    def disable_eager_execution():
        event = {"ev": "disable_eager", "site": _site(), "eager_before": _eager()}
        return _call_and_record(event, original, (), {})

    disable_eager_execution.__doc__ = original.__doc__
    return disable_eager_execution


def on_keras_backend(module) -> None:
    original = getattr(module, "set_session", None)
    if original is None:
        return

    def set_session(session):
        event = {"ev": "set_session", "id": id(session), "site": _site(), "module": module.__name__}
        return _call_and_record(event, original, (session,), {})

    set_session.__doc__ = original.__doc__
    module.set_session = set_session


def on_run_config(module) -> None:
    cls = getattr(module, "RunConfig", None)
    if cls is None:
        return
    original = cls.__init__

    def __init__(self, *args, **kwargs):
        config = kwargs.get("session_config")
        event = {"ev": "runconfig", "site": _site(), "fields": _fields(config)}
        if config is not None:
            guarded(_write)(event)
        return original(self, *args, **kwargs)

    cls.__init__ = __init__


# -- exit and fork -----------------------------------------------------------------------------------


def _after_fork() -> None:
    _STATE["forked"] = True
    _write_line('{"ev": "fork", "pid": %d, "ppid": %d}\n' % (os.getpid(), os.getppid()))


def _old_tensorflow() -> bool:
    import re

    match = re.match(r"(\d+)\.(\d+)", str(_STATE["tf"]))
    return bool(match) and (int(match.group(1)), int(match.group(2))) < (2, 16)


def _calibrate() -> dict | None:
    """TF <= 2.15 names no thread (and a program that names its main thread
    as TF names its own, tf_Compute, makes the intra-op threads, named after
    it, look like TF's): run one large matmul and note which threads worked
    during it (the intra-op pool; a pool of 1 runs inline)."""
    if _STATE["forked"] or os.environ.get("TFCOMPAT_THREADS_RUN_CALIBRATE") == "0":
        return None
    if not _old_tensorflow() and _main_name() not in ("tf_Compute", "tf_graph_runner"):
        return None
    tf = sys.modules["tensorflow"]
    _STATE["calibrating"] = True
    before = _counting().snapshot()
    if _eager() and _STATE["first_op"]:
        how = "eager matmul"
        x = tf.random.uniform((1000, 1000))
        if _openmp_loaded():  # oneDNN runs float32 matmuls on its OpenMP pool; float64 ones run on the intra-op pool
            how = "eager float64 matmul (an OpenMP build: not a oneDNN op, so on the intra-op pool)"
            x = tf.cast(x, tf.float64)
        for _ in range(3):
            y = tf.matmul(x, x)
        float(tf.reduce_sum(y))
    elif _eager() is False and _STATE["sessions"]:
        how = "graph matmul in a new session (the process-wide pools exist already)"
        with tf.Graph().as_default():
            x = tf.random.uniform((1000, 1000))
            y = tf.reduce_sum(tf.matmul(tf.matmul(x, x), x))
            with tf.compat.v1.Session() as session:
                session.run(y)
    else:
        return None
    after = _counting().snapshot()
    busy = [tid for tid, (name, run_ns) in after.items()
            if tid in before and tid != os.getpid() and run_ns - before[tid][1] > 1_000_000]
    return {"how": how, "busy": [str(tid) for tid in busy],
            "new": [str(tid) for tid in after if tid not in before]}


def _count_openmp() -> dict | None:
    """An OpenMP build (Intel's): oneDNN's float32 matmuls and convolutions
    run on an OpenMP team of the thread that runs them, led by it. Count the
    main thread's team, the one eager ops run on: one float32 matmul on it,
    noting the threads that worked during it (the team's workers, started by
    the program's first such op) or started with it (then the program ran
    none). `run` leaves TensorFlow's two pools out of them."""
    if _STATE["forked"] or os.environ.get("TFCOMPAT_THREADS_RUN_CALIBRATE") == "0":
        return None
    if not (_eager() and _STATE["first_op"]) or not _openmp_loaded():
        return None
    tf = sys.modules["tensorflow"]
    _STATE["calibrating"] = True
    x = tf.random.uniform((1000, 1000))  # made before counting: it runs on the intra-op pool
    before = _counting().snapshot()
    for _ in range(2):
        y = tf.matmul(x, x)
    y.numpy()  # no op: nothing else runs on a pool
    after = _counting().snapshot()
    busy = [tid for tid, (name, run_ns) in after.items()
            if tid in before and tid != os.getpid() and run_ns - before[tid][1] > 1_000_000]
    return {"how": "eager float32 matmul on the main thread", "busy": [str(tid) for tid in busy],
            "new": [str(tid) for tid in after if tid not in before]}


def _at_exit() -> None:
    event = {"ev": "exit", "forked": _STATE["forked"]}
    last = getattr(sys, "last_type", None)
    if last is not None:
        event["exception"] = f"{last.__name__}: {getattr(sys, 'last_value', '')}"
    try:
        event["threads"] = _snapshot()
        event["main"] = _main_name()
    except Exception as error:  # noqa: BLE001
        event["error"] = repr(error)
    try:
        event["calibration"] = _calibrate()
    except Exception as error:  # noqa: BLE001
        event["calibration_error"] = repr(error)
    try:
        openmp = _count_openmp()
        if openmp is not None:
            event["openmp"] = openmp
    except Exception as error:  # noqa: BLE001
        event["openmp_error"] = repr(error)
    guarded(_write)(event)
