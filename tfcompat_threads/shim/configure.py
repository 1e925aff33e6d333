"""Apply ConfigProto options on whatever TensorFlow this process runs.

Routes, chosen per field from the option table and the process state:
- TensorFlow not imported yet: thread counts go to `TF_NUM_INTRAOP_THREADS` /
  `TF_NUM_INTEROP_THREADS`, which TensorFlow reads when it builds its pools,
  so TensorFlow is not imported just to size them. Other fields need
  TensorFlow's API, so it is imported for them.
- TF2 eager (and TF1 with eager enabled): `tf.config.*` calls; thread pools
  are fixed once the runtime starts, so a different size then is a conflict.
- Graph mode (TF1, or TF2 after `disable_eager_execution()`): the fields
  become the process default config that this package's sessions start from;
  thread counts also go to `tf.config.threading` (TF >= 1.14), which
  TensorFlow's own sessions created without a config use.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import options as _options
from ..errors import ThreadConfigError, ThreadConfigWarning, UnmappedOptionWarning
from ..versions import execution_mode, has_tf_config, tf_version

CONFLICT_MODES = ("raise", "warn")

# Pools of TF's graph-mode sessions: the sizes the first session of this package started.
_graph_pools: dict[str, int] = {}
# Fields configure() recorded in graph mode, merged into this package's sessions.
_graph_defaults: dict[str, Any] = {}


@dataclass
class Applied:
    field: str
    value: Any
    how: str


@dataclass
class Skipped:
    field: str
    value: Any
    reason: str


@dataclass
class Report:
    """What configure() did with each field."""

    tensorflow: str | None
    mode: str
    applied: list[Applied] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        lines = [f"tensorflow {self.tensorflow or 'not installed'} ({self.mode})"]
        lines += [f"  applied {a.field}={a.value!r}: {a.how}" for a in self.applied]
        lines += [f"  skipped {s.field}={s.value!r}: {s.reason}" for s in self.skipped]
        return "\n".join(lines)


@dataclass
class Pool:
    configured: int
    """Value given to TensorFlow's config (0: nobody set it)."""
    env: int | None
    """Value of the environment variable, if set to a number."""
    effective: int
    """Size the pool has (started) or will have (not started)."""
    source: str
    """Which of the three decides: "config", "env" or "default"."""


@dataclass
class Effective:
    tensorflow: str | None
    mode: str
    started: bool
    cpus: int
    intra_op: Pool
    inter_op: Pool

    def as_dict(self) -> dict:
        return asdict(self)


def schedulable_cpus() -> int:
    """What TensorFlow means by 0: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _env_threads(option: _options.Option) -> int | None:
    raw = os.environ.get(option.env or "", "").strip()
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None


def _tf():
    return sys.modules.get("tensorflow")


def runtime_started() -> bool:
    """Whether TensorFlow's thread pools exist already in this process."""
    if _tf() is None:
        return False
    if execution_mode().endswith("graph"):
        return bool(_graph_pools)
    context = sys.modules.get("tensorflow.python.eager.context")
    if context is None or not hasattr(context, "context"):
        return False
    return getattr(context.context(), "_context_handle", None) is not None


def _configured_threads(field_name: str) -> int:
    tf = _tf()
    if tf is None:
        return 0
    if field_name in _graph_pools:
        return _graph_pools[field_name]
    version = tf_version()
    if version is None or not has_tf_config(version):
        return int(_graph_defaults.get(field_name, 0) or 0)
    getter = getattr(tf.config.threading, "get_" + field_name)
    return int(getter())


def _pool(field_name: str) -> Pool:
    option = _options.BY_FIELD[field_name]
    configured = _configured_threads(field_name)
    env = _env_threads(option)
    if configured > 0:
        return Pool(configured, env, configured, "config")
    if env is not None:
        return Pool(configured, env, env, "env")
    return Pool(configured, env, schedulable_cpus(), "default")


def effective() -> Effective:
    """The thread settings in force in this process, and where each comes from.
    Never imports TensorFlow and never starts its runtime."""
    version = tf_version()
    return Effective(
        tensorflow=str(version) if version else None,
        mode=execution_mode(),
        started=runtime_started(),
        cpus=schedulable_cpus(),
        intra_op=_pool("intra_op_parallelism_threads"),
        inter_op=_pool("inter_op_parallelism_threads"),
    )


def flatten(config: Any = None, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Dotted field -> value, from a ConfigProto (any TF's), a mapping, and
    keyword overrides (None means "not given")."""
    fields: dict[str, Any] = {}
    if config is not None:
        _flatten_into(fields, "", config)
    for name, value in (overrides or {}).items():
        if value is not None:
            for key in [k for k in fields if k == name or k.startswith(name + ".")]:
                del fields[key]
            _flatten_into(fields, name, value)
    return fields


def _flatten_into(fields: dict[str, Any], prefix: str, value: Any) -> None:
    if hasattr(value, "ListFields"):  # a protobuf message
        items = [(descriptor.name, item) for descriptor, item in value.ListFields()]
        if not prefix or prefix in _options.NESTED_FIELDS:
            for name, item in items:
                _flatten_into(fields, f"{prefix}.{name}" if prefix else name, item)
        else:  # a graph-only message is one field
            fields[prefix] = value
        return
    if isinstance(value, Mapping) and (not prefix or prefix in _options.NESTED_FIELDS):
        for name, item in value.items():
            _flatten_into(fields, f"{prefix}.{name}" if prefix else str(name), item)
        return
    if not prefix:
        raise TypeError(
            f"configure() takes a ConfigProto or a mapping of its fields, not {type(value).__name__}"
        )
    fields[prefix] = value


def configure(
    config: Any = None,
    /,
    *,
    intra_op_parallelism_threads: int | None = None,
    inter_op_parallelism_threads: int | None = None,
    allow_soft_placement: bool | None = None,
    log_device_placement: bool | None = None,
    device_count: Mapping[str, int] | None = None,
    gpu_options: Any = None,
    on_conflict: str = "raise",
) -> Report:
    """Make the thread and placement options of a ConfigProto take effect on
    the installed TensorFlow, in the mode this process runs. Keywords override
    fields of `config`. Returns what was applied how, and what was skipped
    and why; skipped fields also raise an UnmappedOptionWarning.

    A protobuf cannot tell a field set to False or 0 from an unset one, so
    from a ConfigProto only the fields with other values are applied; give
    `allow_soft_placement=False` as a keyword (TF2's default is True)."""
    if on_conflict not in CONFLICT_MODES:
        raise ValueError(f"on_conflict must be one of {CONFLICT_MODES}, not {on_conflict!r}")
    fields = flatten(
        config,
        {
            "intra_op_parallelism_threads": intra_op_parallelism_threads,
            "inter_op_parallelism_threads": inter_op_parallelism_threads,
            "allow_soft_placement": allow_soft_placement,
            "log_device_placement": log_device_placement,
            "device_count": device_count,
            "gpu_options": gpu_options,
        },
    )
    return apply_fields(fields, on_conflict)


def apply_fields(fields: Mapping[str, Any], on_conflict: str = "raise") -> Report:
    version = tf_version()
    report = Report(str(version) if version else None, execution_mode())
    for name, value in fields.items():
        option = _options.lookup(name)
        if option is None:
            report.skipped.append(Skipped(name, value, "not a ConfigProto field this package knows"))
            continue
        _apply(option, name, value, report, on_conflict)
    for skipped in report.skipped:
        warnings.warn(
            f"tfcompat_threads: {skipped.field} not applied: {skipped.reason}",
            UnmappedOptionWarning,
            stacklevel=3,
        )
    return report


def _apply(option, name, value, report: Report, on_conflict: str) -> None:
    if _tf() is None:
        if option.env is not None:
            report.applied.append(Applied(name, value, _set_env(option, int(value))))
            return
        if report.tensorflow is None:
            report.skipped.append(Skipped(name, value, "TensorFlow is not installed"))
            return
        import tensorflow  # noqa: F401  the field needs TensorFlow's API
        report.mode = execution_mode()
    if report.mode.endswith("graph"):
        report.applied.append(Applied(name, value, _record_graph_default(option, name, value, on_conflict)))
        return
    action = _EAGER_ACTIONS.get(option.action)
    if action is None:
        report.skipped.append(Skipped(name, value, f"{option.timing}: {option.notes}"))
        return
    report.applied.append(Applied(name, value, action(_tf(), option, value, on_conflict)))


def _set_env(option, value: int) -> str:
    if value == 0:
        return "0: left to TensorFlow (environment or number of CPUs)"
    os.environ[option.env] = str(value)
    return f"environment {option.env}={value} (TensorFlow is not imported yet; it reads this when it starts)"


def _record_graph_default(option, name: str, value, on_conflict: str) -> str:
    if option.field in _options.THREAD_FIELDS:
        if name in _graph_pools:
            return _keep_running_pool(option, int(value), _pool(name), on_conflict)
        version = tf_version()
        if version is not None and has_tf_config(version):
            getattr(_tf().config.threading, "set_" + name)(int(value))
    _graph_defaults[name] = value
    return "default config of this package's sessions (graph mode)"


def _thread_action(tf, option, value, on_conflict: str) -> str:
    value = int(value)
    if runtime_started():
        return _keep_running_pool(option, value, _pool(option.field), on_conflict)
    getattr(tf.config.threading, "set_" + option.field)(value)
    return f"tf.config.threading.set_{option.field}({value})"


def _keep_running_pool(option, asked: int, pool: Pool, on_conflict: str) -> str:
    """A pool runs already: the same size is fine, another one is a conflict.
    0 ("TensorFlow picks") matches a pool that no config sized."""
    if asked == pool.effective or (asked == 0 and pool.source != "config"):
        return f"unchanged: the pool already runs with {pool.effective} threads ({pool.source})"
    what = {"default": "TensorFlow's default", "env": f"from {option.env}", "config": "configured"}
    message = (
        f"{option.field}={asked} was asked, but TensorFlow's {option.field.split('_')[0]}-op "
        f"thread pool already runs with {pool.effective} threads ({what[pool.source]}); "
        "the pools are fixed once TensorFlow starts. Either call tfcompat_threads.configure() "
        f"before the first TensorFlow op, or set {option.env}={asked} in the environment "
        "before the process starts."
    )
    if on_conflict == "raise":
        raise ThreadConfigError(message)
    warnings.warn(message, ThreadConfigWarning, stacklevel=5)
    return f"not applied: the pool already runs with {pool.effective} threads"


def _soft_placement(tf, option, value, on_conflict) -> str:
    tf.config.set_soft_device_placement(bool(value))
    return f"tf.config.set_soft_device_placement({bool(value)})"


def _log_placement(tf, option, value, on_conflict) -> str:
    started = runtime_started()
    tf.debugging.set_log_device_placement(bool(value))
    how = f"tf.debugging.set_log_device_placement({bool(value)})"
    if started and value:
        # Seen on TF 2.15 and 2.21: accepted after start, but no op is logged.
        how += "; TensorFlow has started already, so ops are not logged: set it before the first op"
    return how


def _gpu_memory_growth(tf, option, value, on_conflict) -> str:
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, bool(value))
    return f"tf.config.experimental.set_memory_growth(gpu, {bool(value)}) for {len(gpus)} GPU(s)"


def _gpu_visible_device_list(tf, option, value, on_conflict) -> str:
    gpus = tf.config.list_physical_devices("GPU")
    wanted = [int(index) for index in str(value).split(",") if index.strip()]
    missing = [index for index in wanted if index >= len(gpus)]
    if missing:
        raise ValueError(
            f"gpu_options.visible_device_list={value!r} names GPU {missing[0]}, "
            f"but this machine has {len(gpus)} GPU(s)"
        )
    tf.config.set_visible_devices([gpus[index] for index in sorted(set(wanted))], "GPU")
    return f"tf.config.set_visible_devices(GPUs {sorted(set(wanted))}, 'GPU')"


def _device_count_gpu(tf, option, value, on_conflict) -> str:
    gpus = tf.config.list_physical_devices("GPU")
    tf.config.set_visible_devices(gpus[: int(value)], "GPU")
    return f"tf.config.set_visible_devices(first {int(value)} of {len(gpus)} GPU(s), 'GPU')"


def _device_count_cpu(tf, option, value, on_conflict) -> str:
    count = int(value)
    if count <= 1:
        return "unchanged: one CPU device is TensorFlow's default (this is not a thread limit)"
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * count)
    return f"tf.config.set_logical_device_configuration(CPU:0, {count} logical CPUs)"


_EAGER_ACTIONS = {
    "intra_op_threads": _thread_action,
    "inter_op_threads": _thread_action,
    "soft_placement": _soft_placement,
    "log_placement": _log_placement,
    "gpu_memory_growth": _gpu_memory_growth,
    "gpu_visible_device_list": _gpu_visible_device_list,
    "device_count_gpu": _device_count_gpu,
    "device_count_cpu": _device_count_cpu,
}


def graph_defaults() -> dict[str, Any]:
    """Fields configure() recorded in graph mode, for this package's sessions."""
    return dict(_graph_defaults)


def note_graph_session_started(config) -> None:
    """Remember the pool sizes the first graph-mode session fixed."""
    for name in _options.THREAD_FIELDS:
        if name not in _graph_pools:
            _graph_pools[name] = int(getattr(config, name, 0) or 0)
