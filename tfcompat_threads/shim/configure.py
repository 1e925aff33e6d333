"""Apply ConfigProto options on whatever TensorFlow this process runs.

Every value is first checked as TensorFlow's own ConfigProto takes it, and
nothing is applied when one value is refused. Then, per field, the option
table's row names an action, and `HANDLERS` holds the shim's handler of
each action. Routes, chosen per field from the process state:
- TensorFlow not imported yet, TF >= 2.4: thread counts go to
  `TF_NUM_INTRAOP_THREADS` / `TF_NUM_INTEROP_THREADS`, which TensorFlow reads
  when it builds its pools (from 2.4 on they give the pools a config gives;
  on 1.15 the intra-op variable gives one thread more, so there TensorFlow is
  imported and the graph route below is taken). Other fields need
  TensorFlow's API, so it is imported for them.
- TF2 eager (and TF1 with eager enabled): the handler's `tf.config.*` calls
  (the `tf.config.experimental.*` spellings where the release has no other).
  Thread pools and devices are fixed once the runtime starts, so another
  value then is a conflict (`on_conflict`).
- Graph mode (TF1, or TF2 after `disable_eager_execution()`): the fields
  become the process default config of every session made from then on:
  TensorFlow's own `Session(config=...)` gets each field its config leaves
  unset (BaseSession is wrapped once), so does this package's; thread counts
  also go to `tf.config.threading` (TF >= 1.14). The first session fixes the
  process's pools.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from .. import options as _options
from ..errors import ThreadConfigError, ThreadConfigWarning, UnmappedOptionWarning, warn_at_caller
from ..options import Action
from ..versions import env_threads_match_config, execution_mode, has_tf_config, tf_version
from .build import openmp_pool_env, openmp_runtime
from .values import (INT32, boolean, cpu_count, device_list, gpu_indexes, int32, inter_op_count, intra_op_count,
                     invalid)

CONFLICT_MODES = ("raise", "warn")


# Pools of TF's graph-mode sessions: the sizes the first session of this package started.
_graph_pools: dict[str, int] = {}
# Fields configure() recorded in graph mode, merged into this package's sessions.
_graph_defaults: dict[str, Any] = {}
# OMP_NUM_THREADS as configure() set it (an OpenMP build), so a later call may change it.
_openmp_set: dict[str, str] = {}


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
    """Value of the environment variable, if TensorFlow takes it (1 to 2**31-1)."""
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
    # Seen on TF 2.15 and 2.21: 0, text and values beyond int32 leave the
    # default pool; a negative value aborts the first op.
    raw = os.environ.get(option.env or "", "").strip()
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if 0 < value < INT32.stop else None


def _tf():
    return sys.modules.get("tensorflow")


def compat_v1():
    """`tf.compat.v1`, or TF1's own `tf` before 1.13 (imports TensorFlow)."""
    import tensorflow as tf

    compat = getattr(tf, "compat", None)
    return getattr(compat, "v1", tf) if compat is not None else tf


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
    if execution_mode().endswith("graph"):
        _notice_earlier_sessions()
    if field_name in _graph_pools:
        return _graph_pools[field_name]
    version = tf_version()
    if version is None or not has_tf_config(version):
        return int(_graph_defaults.get(field_name, 0))
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
    keyword overrides. None means "not given", as protobuf takes it."""
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
            if not isinstance(name, str):  # protobuf: TypeError; device_count={1: 2} is no device name
                raise invalid(TypeError, f"{prefix or 'config'}[{name!r}]", item,
                               f"a field or device name (str) is needed as the key, not {type(name).__name__}")
            _flatten_into(fields, f"{prefix}.{name}" if prefix else str(name), item)
        return
    if not prefix:
        raise TypeError(
            f"configure() takes a ConfigProto or a mapping of its fields, not {type(value).__name__}"
        )
    if value is not None:
        fields[prefix] = value


def config_proto(fields: Mapping[str, Any]):
    """A ConfigProto of the installed TensorFlow with these dotted fields."""
    nested: dict[str, Any] = {}
    for name, value in fields.items():
        *parents, leaf = name.split(".")
        branch = nested
        for parent in parents:
            branch = branch.setdefault(parent, {})
        branch[leaf] = value
    return compat_v1().ConfigProto(**nested)


def proto_value(name: str, value: Any) -> Any:
    """No TF2 call applies the field: protobuf alone says what it takes."""
    if tf_version() is None:
        return value
    try:
        config_proto({name: value})
    except (TypeError, ValueError) as error:
        raise invalid(type(error), name, value, str(error)) from None
    return value


def validated(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields with their values as TensorFlow takes them; TypeError or
    ValueError naming the field and the value for the first it refuses."""
    checked = {}
    for name, value in fields.items():
        if name in _options.NESTED_FIELDS:  # not a message or a mapping of its fields
            what = ("a GPUOptions or a mapping of its fields" if name == "gpu_options"
                    else "a mapping of device name to count")
            raise invalid(TypeError, name, value, f"{what} is needed, not {type(value).__name__}")
        option = _options.lookup(name)
        checked[name] = value if option is None else HANDLERS[option.action].check(name, value)
    return checked


# Handlers: what each action does in TF2 eager mode. A handler returns how it
# applied the value, or raises _NotApplied (reported and warned) or
# _Conflict (the runtime runs with another value: on_conflict decides).


class _NotApplied(Exception):
    pass


class _Conflict(Exception):
    pass


def _thread_pool(tf, option, value: int) -> str:
    if runtime_started():
        return _keep_running_pool(option, value, _pool(option.field))
    getattr(tf.config.threading, "set_" + option.field)(value)
    how = f"tf.config.threading.set_{option.field}({value})"
    if value < 0:  # inter-op only: intra-op counts are >= 0
        how += (
            "; negative: eager ops keep a pool of TensorFlow's default size "
            "(graph sessions given it run their ops in the caller's thread)"
        )
    return how


def _keep_running_pool(option, asked: int, pool: Pool) -> str:
    """A pool runs already: the same size is fine, another one is a conflict.
    0 (and a negative inter-op count) match a pool that no config sized."""
    if asked == pool.effective or (asked <= 0 and pool.source != "config"):
        return f"unchanged: the pool already runs with {pool.effective} threads ({pool.source})"
    what = {"default": "TensorFlow's default", "env": f"from {option.env}", "config": "configured"}
    raise _Conflict(
        f"TensorFlow's {option.field.split('_')[0]}-op thread pool already runs with "
        f"{pool.effective} threads ({what[pool.source]}); the pools are fixed once TensorFlow starts. "
        "Either call tfcompat_threads.configure() before the first TensorFlow op, or set "
        f"{option.env}={asked} in the environment before the process starts."
    )


def _soft_placement(tf, option, value: bool) -> str:
    tf.config.set_soft_device_placement(value)
    return f"tf.config.set_soft_device_placement({value})"


def _log_placement(tf, option, value: bool) -> str:
    started = runtime_started()
    tf.debugging.set_log_device_placement(value)
    how = f"tf.debugging.set_log_device_placement({value})"
    if started and value:
        # Seen on TF 2.15 and 2.21: accepted after start, but no op is logged.
        how += "; TensorFlow has started already, so ops are not logged: set it before the first op"
    return how


def _gpu_memory_growth(tf, option, value: bool) -> str:
    gpus = _config_call(tf, "list_physical_devices")("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, value)
    return f"tf.config.experimental.set_memory_growth(gpu, {value}) for {len(gpus)} GPU(s)"


def _gpu_visible_device_list(tf, option, value: str) -> str:
    wanted = sorted(set(gpu_indexes(value)))
    if not wanted:
        return "nothing to do: '' keeps every GPU visible"
    gpus = _config_call(tf, "list_physical_devices")("GPU")
    missing = [index for index in wanted if not 0 <= index < len(gpus)]
    if missing:
        # TF1 took GPU options on hosts without those GPUs: a report, not an error.
        raise _NotApplied(
            f"names GPU {', '.join(map(str, missing))}, but this machine has {len(gpus)} GPU(s); "
            "the GPUs' visibility is left as it is"
        )
    _config_call(tf, "set_visible_devices")([gpus[index] for index in wanted], "GPU")
    return f"tf.config.set_visible_devices(GPUs {wanted}, 'GPU')"


def _device_count_gpu(tf, option, value: int) -> str:
    gpus = _config_call(tf, "list_physical_devices")("GPU")
    count = max(value, 0)  # TensorFlow takes a negative count as none
    _config_call(tf, "set_visible_devices")(gpus[:count], "GPU")
    return f"tf.config.set_visible_devices(first {count} of {len(gpus)} GPU(s), 'GPU')"


def _device_count_cpu(tf, option, value: int) -> str:
    if value == 1:
        return "unchanged: one CPU device is TensorFlow's default (this is not a thread limit)"
    cpu = _config_call(tf, "list_physical_devices")("CPU")[0]
    if hasattr(tf.config, "set_logical_device_configuration"):
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * value)
        return f"tf.config.set_logical_device_configuration(CPU:0, {value} logical CPUs)"
    # 1.14-2.0: the same call under its first name
    experimental = tf.config.experimental
    experimental.set_virtual_device_configuration(cpu, [experimental.VirtualDeviceConfiguration()] * value)
    return f"tf.config.experimental.set_virtual_device_configuration(CPU:0, {value} logical CPUs)"


class Handler(NamedTuple):
    check: Callable[[str, Any], Any]
    """Value as TensorFlow takes it, or TypeError / ValueError."""
    apply: Callable[[Any, _options.Option, Any], str] | None
    """TF2 eager: apply the checked value; None: reported, not applied."""


HANDLERS: dict[Action, Handler] = {
    Action.INTRA_OP_THREADS: Handler(intra_op_count, _thread_pool),
    Action.INTER_OP_THREADS: Handler(inter_op_count, _thread_pool),  # negative: TF's "caller's thread"
    Action.SOFT_PLACEMENT: Handler(boolean, _soft_placement),
    Action.LOG_PLACEMENT: Handler(boolean, _log_placement),
    Action.GPU_MEMORY_GROWTH: Handler(boolean, _gpu_memory_growth),
    Action.GPU_VISIBLE_DEVICE_LIST: Handler(device_list, _gpu_visible_device_list),
    Action.DEVICE_COUNT_GPU: Handler(int32, _device_count_gpu),
    Action.DEVICE_COUNT_CPU: Handler(cpu_count, _device_count_cpu),
    Action.MANUAL: Handler(proto_value, None),
    Action.GRAPH_ONLY: Handler(proto_value, None),
}


def configure(
    config: Any = None,
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
    and why; each skipped field also warns: UnmappedOptionWarning, or
    ThreadConfigWarning for a late setting under on_conflict="warn".

    A value TensorFlow would refuse or die on raises TypeError / ValueError
    before anything is applied. A protobuf cannot tell a field set to False
    or 0 from an unset one, so from a ConfigProto only the fields with other
    values are applied; give `allow_soft_placement=False` as a keyword (TF2's
    default is True)."""
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
    """configure() for dotted fields, as `flatten` makes them (the sessions' way in)."""
    if on_conflict not in CONFLICT_MODES:
        raise ValueError(f"on_conflict must be one of {CONFLICT_MODES}, not {on_conflict!r}")
    fields = validated(fields)
    version = tf_version()
    report = Report(str(version) if version else None, execution_mode())
    for name, value in fields.items():
        option = _options.lookup(name)
        if option is None:
            _skip(report, name, value, "not a ConfigProto field this package knows")
        else:
            _apply(option, name, value, report, on_conflict)
    intra = fields.get("intra_op_parallelism_threads")
    if intra and any(a.field == "intra_op_parallelism_threads" for a in report.applied):
        _openmp_pool(intra, report)
    return report


def _openmp_pool(value: int, report: Report) -> None:
    """On an OpenMP build (shim/build.py), oneDNN's matmuls and convolutions
    run on an OpenMP pool that OMP_NUM_THREADS sizes, not on the intra-op
    pool: a legacy intra_op_parallelism_threads=N meant N threads inside one
    op, so OMP_NUM_THREADS=N too, while the OpenMP pool has not started (it
    reads the variable at the first op) and the user left it unset."""
    library = openmp_runtime()
    if library is None:
        return
    what = (f"this TensorFlow is an OpenMP build (it loads {library}): its oneDNN matmuls and convolutions "
            "run on an OpenMP pool that OMP_NUM_THREADS sizes, not on the intra-op pool")
    if "OMP_NUM_THREADS" in os.environ and os.environ["OMP_NUM_THREADS"] != _openmp_set.get("value"):
        theirs = os.environ["OMP_NUM_THREADS"]
        _skip(report, "OMP_NUM_THREADS", value, f"{what}; left as the environment sets it "
              f"(OMP_NUM_THREADS={theirs!r}, {openmp_pool_env() or 'not a thread count: the CPUs'})",
              ThreadConfigWarning)
    elif runtime_started():
        _skip(report, "OMP_NUM_THREADS", value, f"{what}; TensorFlow has started, so its OpenMP pool may run "
              f"already with the CPUs' count ({schedulable_cpus()}): set OMP_NUM_THREADS={value} in the "
              "environment before the process starts", ThreadConfigWarning)
    else:
        os.environ["OMP_NUM_THREADS"] = _openmp_set["value"] = str(value)
        report.applied.append(Applied("OMP_NUM_THREADS", value, f"environment OMP_NUM_THREADS={value} (read when "
                                      f"the OpenMP pool starts, at the first op): {what}"))


def _skip(report: Report, name: str, value: Any, reason: str, category=UnmappedOptionWarning) -> None:
    report.skipped.append(Skipped(name, value, reason))
    warn_at_caller(f"tfcompat_threads: {name}={value!r} not applied: {reason}", category)


def _apply(option, name, value, report: Report, on_conflict: str) -> None:
    if _tf() is None:
        version = tf_version()
        if option.env is not None and (version is None or env_threads_match_config(version)):
            report.applied.append(Applied(name, value, _set_env(option, value)))
            return
        if report.tensorflow is None:
            _skip(report, name, value, "TensorFlow is not installed")
            return
        import tensorflow  # noqa: F401  the field needs TensorFlow's API

        report.mode = execution_mode()
    apply = HANDLERS[option.action].apply
    try:
        if report.mode.endswith("graph"):
            how = _record_graph_default(option, name, value)
        elif apply is None:
            raise _NotApplied(f"{option.timing}: {option.notes}")
        else:
            how = apply(_tf(), option, value)
    except _NotApplied as not_applied:
        _skip(report, name, value, str(not_applied))
        return
    except _Conflict as conflict:
        reason = str(conflict)
    except RuntimeError as error:  # TF: "... cannot be modified after being initialized"
        if not runtime_started():
            raise
        reason = (
            f"TensorFlow's runtime has started already and keeps its devices ({error}). "
            "Call tfcompat_threads.configure() before the first TensorFlow op "
            "(an eager op, a tf.data pipeline or list_logical_devices() starts the runtime)."
        )
    else:
        report.applied.append(Applied(name, value, how))
        return
    if on_conflict == "raise":
        raise ThreadConfigError(f"{name}={value!r} was asked, but {reason}")
    _skip(report, name, value, reason, ThreadConfigWarning)


def _set_env(option, value: int) -> str:
    if value <= 0:
        # TensorFlow ignores 0 and negative values of these variables.
        return f"{value}: left to TensorFlow (environment or number of CPUs)"
    os.environ[option.env] = str(value)
    return f"environment {option.env}={value} (TensorFlow is not imported yet; it reads this when it starts)"


def _record_graph_default(option, name: str, value) -> str:
    _notice_earlier_sessions()
    if option.field in _options.THREAD_FIELDS:
        if name in _graph_pools:
            return _keep_running_pool(option, value, _pool(name))
        version = tf_version()
        if version is not None and has_tf_config(version):
            getattr(_tf().config.threading, "set_" + name)(value)
    _graph_defaults[name] = value
    wrap_sessions()
    return ("graph mode: every session made from now on, TensorFlow's own included, where its config leaves "
            "the field unset (the first session fixes the process's pools)")


def wrap_sessions() -> None:
    """Make every graph-mode session start from the fields configure()
    recorded: TensorFlow's `BaseSession.__init__` (under `Session`,
    `InteractiveSession`, `MonitoredTrainingSession`, Estimator, Keras 2) is
    wrapped once, so a config keeps each field it sets and takes the recorded
    value of each it leaves unset. It also notes the pools the first session
    fixed, so a later different size is a conflict, not a silent no-op."""
    from tensorflow.python.client import session as tf_session

    base = tf_session.BaseSession
    if getattr(base.__init__, "_tfcompat_threads", False):
        return
    original = base.__init__

    def __init__(self, target="", graph=None, config=None):
        if _graph_defaults:
            merged = config_proto(_graph_defaults)
            if config is None or isinstance(config, type(merged)):  # anything else: TensorFlow's own error
                if config is not None:
                    merge_keeping_own(merged, config)
                config = merged
        original(self, target, graph, config)
        note_graph_session_started(config)

    __init__._tfcompat_threads = True
    __init__.__wrapped__ = original
    base.__init__ = __init__


def merge_keeping_own(defaults, config) -> None:
    """`defaults.MergeFrom(config)`, except that a repeated field the config
    sets replaces the default's, at every depth: protobuf appends, so a
    session asking for a pool of 5 got `session_inter_op_thread_pool`
    [3, 5] and ran on the 3."""
    for descriptor, value in config.ListFields():
        name = descriptor.name
        message = descriptor.message_type
        repeated = (descriptor.is_repeated if hasattr(descriptor, "is_repeated")  # newer protobuf: no label
                    else descriptor.label == descriptor.LABEL_REPEATED)
        if repeated:
            if message is not None and message.GetOptions().map_entry:  # a map: per key, the config's wins
                getattr(defaults, name).MergeFrom(value)
            else:
                defaults.ClearField(name)
                getattr(defaults, name).extend(value)
        elif message is not None:
            getattr(defaults, name).SetInParent()
            merge_keeping_own(getattr(defaults, name), value)
        else:
            setattr(defaults, name, value)


def _notice_earlier_sessions() -> None:
    """Graph mode: a session made before the first configure() (so before
    BaseSession was wrapped) fixed the process's pools already; note them
    from the live sessions TensorFlow made, so a later different size is a
    conflict and effective() says what the pools are. A session already
    collected cannot be seen."""
    if _graph_pools or _tf() is None:
        return
    tf_session = sys.modules.get("tensorflow.python.client.session")
    if tf_session is None or getattr(tf_session.BaseSession.__init__, "_tfcompat_threads", False):
        return
    import gc

    base = tf_session.BaseSession
    for found in gc.get_objects():
        if isinstance(found, base):
            note_graph_session_started(getattr(found, "_config", None))
            return


def graph_defaults() -> dict[str, Any]:
    """Fields configure() recorded in graph mode, for this package's sessions."""
    return dict(_graph_defaults)


def note_graph_session_started(config) -> None:
    """Remember the pool sizes the first graph-mode session fixed (0: TensorFlow's choice)."""
    for name in _options.THREAD_FIELDS:
        if name not in _graph_pools:
            _graph_pools[name] = int(getattr(config, name, 0) or 0)


def _config_call(tf, name: str):
    """`tf.config.<name>`, or `tf.config.experimental.<name>` on releases
    before 2.1 (1.14-2.0), which have only that spelling."""
    found = getattr(tf.config, name, None) or getattr(tf.config.experimental, name, None)
    if found is None:
        raise _NotApplied(f"this TensorFlow has neither tf.config.{name} nor tf.config.experimental.{name}")
    return found
