"""Loaded by `tfcompat-threads run` through PYTHONPATH: start the recorder,
then load the sitecustomize this one hides (the next one on sys.path), so a
venv's, a distribution's or the user's own still runs."""

import os as _os
import sys as _sys

if _os.environ.get("TFCOMPAT_THREADS_RUN_DIR"):
    try:
        import _tfcompat_threads_recorder

        _tfcompat_threads_recorder.install()
    except Exception as _error:  # never stop the user's program
        _sys.stderr.write(f"tfcompat-threads run: the recorder could not start: {_error!r}\n")


def _chain() -> None:
    # the PathFinder of sys.meta_path is importlib.machinery.PathFinder; importing that
    # would load importlib and warnings into every process on Python 3.10
    finder = next((f for f in _sys.meta_path if getattr(f, "__name__", "") == "PathFinder"), None)
    if finder is None:
        import importlib.machinery

        finder = importlib.machinery.PathFinder
    here = _os.path.dirname(_os.path.abspath(__file__))
    path = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != here]
    spec = finder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = type(_sys)("sitecustomize")  # importlib.util.module_from_spec, without importing it
    module.__spec__, module.__loader__, module.__file__ = spec, spec.loader, spec.origin
    _sys.modules["sitecustomize"] = module  # as site.py leaves it
    spec.loader.exec_module(module)


_chain()
