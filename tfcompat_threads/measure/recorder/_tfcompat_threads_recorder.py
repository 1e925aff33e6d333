"""What `tfcompat-threads run` records inside each Python process of the
command it runs. Standard library only: the command's Python need not have
tfcompat_threads installed.

Nothing is wrapped until `tensorflow` is imported: an import hook (one entry
in sys.meta_path that answers only for a few module names) waits for it, so a
process that never imports TensorFlow pays one file write and one dictionary
lookup per import. When TensorFlow has been imported, the recorder wraps

- the eager context: its first initialization (the first op: the pools are
  made then) and its setters (`tf.config.threading.*`, soft/log placement,
  memory growth, visible devices, logical devices);
- `tf.compat.v1` sessions (`BaseSession.__init__`, the first `run` of each);
- `enable_eager_execution` and `disable_eager_execution`;
- Keras 2's `set_session` and `tf.estimator.RunConfig`, when they load;

and takes a snapshot of the process's threads (id, name, run time) before
and after each event that can make pools, and one at exit. Events go, one
JSON line each, to `$TFCOMPAT_THREADS_RUN_DIR/<pid>.jsonl`; `run` reads them
when the command has ended and counts the pools from the threads
(`measure/threads.py`, loaded from beside this folder).

TensorFlow 2.15 names none of its threads: there, at exit, the recorder runs
one large matmul and notes which threads worked (the intra-op ones), unless
TFCOMPAT_THREADS_RUN_CALIBRATE=0.
"""

import os  # no `from __future__` import: on Python 3.10 it would load a module into every process
import sys

_WAITING = {
    "tensorflow": "on_tensorflow",
    "keras.src.backend": "on_keras_backend",
    "tf_keras.src.backend": "on_keras_backend",
    "tensorflow_estimator.python.estimator.run_config": "on_run_config",
}


def write_line(line: str) -> None:
    """Append one line to this process's event file."""
    try:
        path = os.path.join(os.environ["TFCOMPAT_THREADS_RUN_DIR"], f"{os.getpid()}.jsonl")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except (OSError, KeyError):
        return
    try:
        os.write(fd, line.encode("utf-8", "replace"))
    finally:
        os.close(fd)


def _hook(name: str):
    def hook(module) -> None:
        try:
            import _tfcompat_threads_recorder_tf as recorder  # the rest of the recorder, only now
        except Exception as error:  # never break the user's import
            write_line('{"ev": "recorder_error", "where": "import", "error": %r}\n' % repr(error)[:200])
            return
        recorder.guarded(getattr(recorder, name))(module)

    return hook


# -- the import hook ---------------------------------------------------------------------------------


class _Loader:
    """The real loader, and a hook run once the module has executed."""

    def __init__(self, loader, hook):
        self._loader = loader
        self._hook = hook

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._hook(module)


class _Watcher:
    """A meta path finder that answers only for the modules it waits for."""

    def __init__(self, hooks: dict):
        self.hooks = hooks

    def find_spec(self, name, path=None, target=None):
        hook = self.hooks.get(name)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader, hook)
        return spec


def install() -> None:
    if not os.environ.get("TFCOMPAT_THREADS_RUN_DIR"):
        return
    write_line('{"ev": "start", "pid": %d, "ppid": %d}\n' % (os.getpid(), os.getppid()))
    sys.excepthook = _hiding_excepthook(sys.excepthook)
    sys.meta_path.insert(0, _Watcher({name: _hook(function) for name, function in _WAITING.items()}))


# -- tracebacks as without the recorder ------------------------------------------------------------


def _strip(tb):
    """The traceback without the recorder's own frames (its wrappers sit
    between TensorFlow's frames and the user's)."""
    import types

    frames = []
    while tb is not None:
        if not str(tb.tb_frame.f_globals.get("__name__")).startswith("_tfcompat_threads_recorder"):
            frames.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(frames):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


def _hiding_excepthook(original):
    """An uncaught exception prints as it would without the recorder."""

    def excepthook(kind, value, tb):
        try:
            seen = set()
            error = value
            while error is not None and id(error) not in seen:
                seen.add(id(error))
                error.__traceback__ = _strip(error.__traceback__)
                error = error.__cause__ or error.__context__
            tb = _strip(tb)
        except Exception:  # noqa: BLE001
            pass
        return original(kind, value, tb)

    return excepthook


