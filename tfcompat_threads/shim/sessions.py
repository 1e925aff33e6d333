"""TF1 session API that keeps its configuration on any TensorFlow.

In graph mode (TF1, or TF2 after `disable_eager_execution()`) these are the
real `tf.compat.v1` objects, created with the process defaults of
`configure()` merged under their own config. In TF2 eager mode a session's
config is applied process-wide (eager ops never see a session's config), and
the real session is made only when the program first uses it: a session that
only carries configuration must not start a second set of thread pools.
A config's values are checked as `configure()` checks them, in every mode.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from . import configure as runtime
from ..errors import UnmappedOptionWarning, warn_at_caller
from ..versions import execution_mode


def ConfigProto(**fields):  # noqa: N802  the TF1 name is the API
    """A real `ConfigProto` of the installed TensorFlow."""
    return runtime.compat_v1().ConfigProto(**fields)


def GPUOptions(**fields):  # noqa: N802
    """A real `GPUOptions` of the installed TensorFlow."""
    return runtime.compat_v1().GPUOptions(**fields)


def _graph_mode() -> bool:
    if "tensorflow" not in sys.modules:
        runtime.compat_v1()
    return execution_mode().endswith("graph")


def _checked_fields(config: Any, session_class_name: str) -> dict[str, Any]:
    """The fields of a session's config (a ConfigProto or a mapping), checked."""
    if config is not None and not hasattr(config, "ListFields") and not isinstance(config, Mapping):
        raise TypeError(f"tfcompat_threads: {session_class_name}(config=...) takes a ConfigProto or a mapping of "
                        f"its fields, not {type(config).__name__}")
    return runtime.validated(runtime.flatten(config))


class ConfigOnlySession:
    """A TF2-eager stand-in for `tf.compat.v1.Session` whose config is
    already applied process-wide. The real session is created on first use
    (`run`, `graph`, `as_default`, `with`, ...), with the same config."""

    def __init__(self, session_class_name: str, target, graph, config) -> None:
        self._session_class_name = session_class_name
        self._target = target
        self._graph = graph
        self._config = config
        self._session = None

    @property
    def config(self):
        return self._config

    @property
    def started(self) -> bool:
        """Whether the real session (and its thread pools) exists."""
        return self._session is not None

    def real_session(self):
        if self._session is None:
            session_class = getattr(runtime.compat_v1(), self._session_class_name)
            self._session = session_class(self._target, graph=self._graph, config=self._config)
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def __enter__(self):
        return self.real_session().__enter__()

    def __exit__(self, *exc_info):
        return self.real_session().__exit__(*exc_info)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.real_session(), name)

    def __repr__(self) -> str:
        state = "started" if self.started else "config only, not started"
        return f"<tfcompat_threads {self._session_class_name} ({state})>"


def _session(session_class_name: str, target, graph, config):
    fields = _checked_fields(config, session_class_name)
    if _graph_mode():
        # configure()'s process defaults under the session's own fields: the
        # wrapped BaseSession merges them, as for TensorFlow's own sessions
        runtime.wrap_sessions()
        if config is not None and not hasattr(config, "ListFields"):  # a mapping
            config = runtime.config_proto(fields)
        return getattr(runtime.compat_v1(), session_class_name)(target, graph=graph, config=config)
    if fields:
        runtime.apply_fields(fields, on_conflict="warn")
    if config is not None and not hasattr(config, "ListFields"):  # a mapping
        config = runtime.config_proto(fields)
    return ConfigOnlySession(session_class_name, target, graph, config)


def Session(target: str = "", graph=None, config=None):  # noqa: N802
    """`tf.compat.v1.Session` whose config takes effect in every mode."""
    return _session("Session", target, graph, config)


def InteractiveSession(target: str = "", graph=None, config=None):  # noqa: N802
    """`tf.compat.v1.InteractiveSession` whose config takes effect in every mode."""
    return _session("InteractiveSession", target, graph, config)


def _keras_set_session():
    backend = getattr(getattr(runtime.compat_v1(), "keras", None), "backend", None)
    return getattr(backend, "set_session", None)


def set_session(session) -> None:
    """Keras' `set_session`. Graph mode with Keras 2: the real call. TF2 eager,
    or Keras 3 (TF >= 2.16, which has no sessions): the session's config is
    applied process-wide instead."""
    fields = _checked_fields(getattr(session, "_config", None), "set_session")
    if _graph_mode():
        keras_set_session = _keras_set_session()
        if keras_set_session is not None:
            real = session.real_session() if isinstance(session, ConfigOnlySession) else session
            keras_set_session(real)
            return
        warn_at_caller(
            "tfcompat_threads: this Keras has no set_session (Keras 3); "
            "the session's config is applied process-wide instead",
            UnmappedOptionWarning,
        )
    if fields:
        runtime.apply_fields(fields, on_conflict="warn")
