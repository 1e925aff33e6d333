"""Which TensorFlow symbol a name or attribute is, by qualified name.

Matching is by what an import bound, never by the text `tf.`: `import
tensorflow as tf1`, `import tensorflow.compat.v1 as tf`, `from tensorflow
import ConfigProto` and imports inside functions all resolve; a parameter
called `tf` or `requests.Session` does not.
"""

from __future__ import annotations

from typing import NamedTuple

from ..options import OPTIONS, THREAD_FIELDS, written_names

# Module prefixes, longest first: (prefix, is the TF2-valid compat.v1 API).
# tensorflow_estimator is where tf.estimator lives since TF 1.14;
# tensorflow.compat.v2 is TensorFlow's TF2 API under another path (1.15 on).
_TF_PREFIXES = (("tensorflow.compat.v2.compat.v1.", True), ("tensorflow.compat.v1.", True),
                ("tensorflow.compat.v2.", False), ("tensorflow.", False), ("tensorflow_estimator.", False))
# The modules that are TensorFlow's whole API (a name below them is `tf.<name>`).
TF_MODULES = frozenset({"tensorflow", "tensorflow.compat.v2"})

# Keras' set_session, in all spellings: TF's Keras and multi-backend Keras.
SET_SESSION_NAMES = {
    "keras.backend.set_session",
    "keras.backend.tensorflow_backend.set_session",
    "tensorflow.keras.backend.set_session",
    "tensorflow.python.keras.backend.set_session",
    "tensorflow.compat.v1.keras.backend.set_session",
    "tensorflow.contrib.keras.backend.set_session",
}
SET_SESSION = "keras.backend.set_session"
# The spellings that exist, by the Keras TensorFlow bundles (measured on the
# real TF 2.15.1 / keras 2.15.0 and 2.21: tests/test_runtime_claims.py).
# TensorFlow's internal copy of Keras 2 keeps its set_session on every release
# (2.21 included); from TF 2.6 on tf.keras is the keras package (Keras 3 from
# 2.16), whose models never use the session it sets.
LEGACY_KERAS_SET_SESSION = "tensorflow.python.keras.backend.set_session"
SET_SESSION_EXISTING = {
    "keras 2.15 (TF 2.15)": frozenset({"tensorflow.compat.v1.keras.backend.set_session", LEGACY_KERAS_SET_SESSION}),
    "keras 3 (TF >= 2.16)": frozenset({LEGACY_KERAS_SET_SESSION}),
}

CONFIG = "ConfigProto"
GPU_OPTIONS = "GPUOptions"
SESSIONS = ("Session", "InteractiveSession")
ENABLE_EAGER = "enable_eager_execution"
GRAPH_MODE_SWITCHES = ("disable_eager_execution", "disable_v2_behavior")
# The thread settings' TF2 calls, as the option table writes them.
THREAD_SETTERS = tuple(name for option in OPTIONS if option.field in THREAD_FIELDS
                       for name in written_names(option.native))
# Estimator's RunConfig(session_config=...), however it is imported.
ESTIMATOR_RUN_CONFIGS = (
    "estimator.RunConfig",
    "contrib.learn.RunConfig",  # and each path TensorFlow re-exports them from (REEXPORTS)
    "contrib.tpu.RunConfig",
    "estimator.tpu.RunConfig",
    "compat.v1.estimator.tpu.RunConfig",
)
# Calls that take a config and run graphs with it: the config stays a ConfigProto.
GRAPH_SINKS = (
    *ESTIMATOR_RUN_CONFIGS,
    "train.MonitoredTrainingSession",
    "train.ChiefSessionCreator",  # MonitoredSession(session_creator=...) makes its graph session with it
    "train.WorkerSessionCreator",
    "train.Server",
    "train.Server.create_local_server",  # a Server too: sessions on its target get its config
    "train.Supervisor",
    "train.SingularMonitoredSession",
    "distribute.Server",
    "distribute.Server.create_local_server",
    "python.client.device_lib.list_local_devices",  # lists the devices the config lets it see
    # TF-TRT's TF1 converter runs graph sessions with its session_config (the
    # parameter is gone on 2.21: inspected there; the rename stays right where it runs)
    "python.compiler.tensorrt.trt_convert.TrtGraphConverter",
    "python.compiler.tensorrt.trt_convert.create_inference_graph",
    "contrib.tensorrt.create_inference_graph",
    # slim's loops make a Supervisor session with it
    "contrib.slim.learning.train",
    "contrib.slim.evaluation.evaluate_once",
    "contrib.slim.evaluation.evaluation_loop",
)
# The same outside TensorFlow's namespace: tf_slim, slim as its own package.
LIBRARY_GRAPH_SINKS = frozenset({
    "tf_slim.learning.train",
    "tf_slim.evaluation.evaluate_once",
    "tf_slim.evaluation.evaluation_loop",
})

# Methods that make a graph session from a config: Supervisor and
# SessionManager (every method of theirs with a `config` parameter), and
# tf.test.TestCase's sessions.
GRAPH_SESSION_METHODS = ("managed_session", "prepare_session", "prepare_or_wait_for_session", "wait_for_session",
                         "recover_session", "test_session", "cached_session", "session")

# Environment variables people set to size TensorFlow's threads, which the
# official wheels do not read for their pools (measured: tests/test_measure_env.py).
OPENMP_THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "KMP_BLOCKTIME", "KMP_AFFINITY",
                           "KMP_SETTINGS", "KMP_HW_SUBSET")
# Those of them that set a number of threads; the KMP_* ones tune OpenMP's
# threads (spin time, pinning, what it prints, which cores) and size nothing.
OPENMP_THREAD_COUNTS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
# The variables that do size TensorFlow's pools (from TF 2.4 on, DESIGN.md §1).
TF_THREAD_VARIABLES = ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")

# The TF1 session API family and what TF2 calls each name: TensorFlow's own
# rename table (tf_upgrade_v2's renames_v2.py, which all_renames_v2.py merges
# into symbol_renames), as TensorFlow 2.21 ships it: every row is that table's
# row for the name, and the family is that table's rows for sessions, session
# creators, managers and hooks, Supervisor, Server, the config protos and the
# eager switches (tests/test_tf_version_tf.py::test_session_family_is_tensorflows_table
# reads the table of each row's TensorFlow and compares). Tables before 2.16
# give `tf.estimator.*` for the hooks and SessionRun* types, gone with
# Estimator on 2.16; `tf.compat.v1.train.*` exists on every TF2 release. Keras'
# set_session is keras-set-session's (SET_SESSION_NAMES), not this table's.
# Each name is checked on every release of the test matrix, 1.15 to the newest
# (tests/test_tf_version_tf.py).
TF1_RENAMES = {
    "ConfigProto": "compat.v1.ConfigProto",
    "GPUOptions": "compat.v1.GPUOptions",
    "GraphOptions": "compat.v1.GraphOptions",
    "OptimizerOptions": "compat.v1.OptimizerOptions",
    "RunOptions": "compat.v1.RunOptions",
    "RunMetadata": "compat.v1.RunMetadata",
    "Session": "compat.v1.Session",
    "InteractiveSession": "compat.v1.InteractiveSession",
    "get_default_session": "compat.v1.get_default_session",
    "get_session_handle": "compat.v1.get_session_handle",
    "get_session_tensor": "compat.v1.get_session_tensor",
    "delete_session_tensor": "compat.v1.delete_session_tensor",
    "enable_eager_execution": "compat.v1.enable_eager_execution",
    "disable_eager_execution": "compat.v1.disable_eager_execution",
    "disable_v2_behavior": "compat.v1.disable_v2_behavior",
    "train.SessionCreator": "compat.v1.train.SessionCreator",
    "train.ChiefSessionCreator": "compat.v1.train.ChiefSessionCreator",
    "train.WorkerSessionCreator": "compat.v1.train.WorkerSessionCreator",
    "train.SessionManager": "compat.v1.train.SessionManager",
    "train.MonitoredSession": "compat.v1.train.MonitoredSession",
    "train.MonitoredTrainingSession": "compat.v1.train.MonitoredTrainingSession",
    "train.SingularMonitoredSession": "compat.v1.train.SingularMonitoredSession",
    "train.Scaffold": "compat.v1.train.Scaffold",
    "train.Supervisor": "compat.v1.train.Supervisor",
    "train.Server": "distribute.Server",
    "train.SessionRunHook": "compat.v1.train.SessionRunHook",
    "train.SessionRunArgs": "compat.v1.train.SessionRunArgs",
    "train.SessionRunContext": "compat.v1.train.SessionRunContext",
    "train.SessionRunValues": "compat.v1.train.SessionRunValues",
    "train.CheckpointSaverHook": "compat.v1.train.CheckpointSaverHook",
    "train.FeedFnHook": "compat.v1.train.FeedFnHook",
    "train.FinalOpsHook": "compat.v1.train.FinalOpsHook",
    "train.GlobalStepWaiterHook": "compat.v1.train.GlobalStepWaiterHook",
    "train.LoggingTensorHook": "compat.v1.train.LoggingTensorHook",
    "train.NanTensorHook": "compat.v1.train.NanTensorHook",
    "train.ProfilerHook": "compat.v1.train.ProfilerHook",
    "train.StepCounterHook": "compat.v1.train.StepCounterHook",
    "train.StopAtStepHook": "compat.v1.train.StopAtStepHook",
    "train.SummarySaverHook": "compat.v1.train.SummarySaverHook",
    "keras.backend.get_session": "compat.v1.keras.backend.get_session",
}
# Session-config names that TF2 has only under another name.
TF1_ONLY = frozenset(TF1_RENAMES)
# TF1-only names whose tf.compat.v1 spelling is gone with Keras 3 (TF >= 2.16):
# renaming them is not a safe fix. Keras' set_session is keras-set-session's.
KERAS2_ONLY = frozenset({"keras.backend.get_session"})

# Calls that surely start TensorFlow's runtime (and so fix its thread pools).
# Kept to the sure ones: a linter's false alarm costs more than a miss.
_STARTING_CALLS = frozenset(
    {
        "constant",
        "Variable",
        "zeros",
        "ones",
        "fill",
        "eye",
        "range",
        "matmul",
        "add",
        "add_n",
        "multiply",
        "cast",
        "reshape",
        "concat",
        "stack",
        "convert_to_tensor",
        "reduce_sum",
        "reduce_mean",
        "random.uniform",
        "random.normal",
        "random.truncated_normal",
        "random.shuffle",
        "config.list_logical_devices",
        "config.experimental.list_logical_devices",
        "test.is_gpu_available",
        "keras.Sequential",
        "keras.models.load_model",
        "saved_model.load",
    }
)
_STARTING_PREFIXES = ("math.", "linalg.", "nn.", "image.", "data.Dataset.")
# tf.data calls that make a dataset (they make tensors, so they start the
# runtime). Others, `tf.data.Options()`, `experimental.enable_debug_mode()`,
# `experimental.ThreadingOptions()`, do not: measured on 2.21 and 2.15 by
# tests/test_versions_and_runtime.py, which runs each of these.
DATASET_SOURCES = ("data.TFRecordDataset", "data.TextLineDataset", "data.FixedLengthRecordDataset")


# TensorFlow's own modules that hold a public API under another path
# (`from tensorflow.contrib.tpu.python.tpu import tpu_config`): the path the
# API is known by (`tpu_config.RunConfig` is `tf.contrib.tpu.RunConfig`).
REEXPORTS = (
    ("contrib.tpu.python.tpu.tpu_config.", "contrib.tpu."),
    ("contrib.tpu.python.tpu.tpu_estimator.", "contrib.tpu."),
    ("contrib.learn.python.learn.estimators.run_config.", "contrib.learn."),
    ("python.estimator.run_config.", "estimator."),
    ("estimator.run_config.", "estimator."),
)


def public_name(name: str) -> str:
    for path, public in REEXPORTS:
        if name.startswith(path):
            return public + name[len(path):]
    return name


class Symbol(NamedTuple):
    name: str
    """Path below the TensorFlow package: `ConfigProto`, `train.Server`,
    `keras.backend.set_session` (every Keras spelling)."""
    compat: bool
    """Reached through tf.compat.v1 (valid on TF2) rather than plain `tensorflow`."""
    qualified: str
    """The full qualified name it was reached by (`keras.backend.set_session`)."""

    @property
    def of_tensorflow(self) -> bool:
        """Part of the `tensorflow` package (not multi-backend Keras)."""
        return self.qualified.startswith("tensorflow.")

    @property
    def shim(self) -> bool:
        """The tfcompat_threads stand-in (code the shim target already migrated)."""
        return self.qualified.startswith(SHIM_PREFIX)


def symbol_for(qualified_names: set[str] | frozenset[str]) -> Symbol | None:
    """The symbol the first of `qualified_names` (in sorted order) names, or
    None. A module names the same few hundred names again and again: each
    set is answered once per process (a Symbol is an immutable value)."""
    key = qualified_names if type(qualified_names) is frozenset else frozenset(qualified_names)
    try:
        return _SYMBOLS[key]
    except KeyError:
        if len(_SYMBOLS) >= _KEPT_SYMBOLS:  # a hostile tree of distinct names: memory stays bounded
            _SYMBOLS.clear()
        found = _SYMBOLS[key] = _symbol_for(key)
        return found


_SYMBOLS: dict[frozenset[str], Symbol | None] = {}
_KEPT_SYMBOLS = 50_000


def _symbol_for(qualified_names: frozenset[str]) -> Symbol | None:
    for qualified in sorted(qualified_names):
        if qualified.startswith(SHIM_PREFIX):
            name = qualified[len(SHIM_PREFIX):]
            shim_of = next((tf for tf, shim in SHIM_NAMES.items() if shim == name), None)
            if shim_of is not None:
                return Symbol(shim_of, True, qualified)
            continue
        if qualified in SET_SESSION_NAMES:
            return Symbol(SET_SESSION, qualified.startswith("tensorflow.compat.v1."), qualified)
        for prefix, compat in _TF_PREFIXES:
            if qualified.startswith(prefix):
                return Symbol(public_name(qualified[len(prefix):]), compat, qualified)
    return None


def starts_runtime(symbol: Symbol) -> bool:
    return symbol.name in _STARTING_CALLS or symbol.name in DATASET_SOURCES or symbol.name.startswith(
        _STARTING_PREFIXES)


# What the shim target calls instead of each TF1 session API: the analysis
# knows them too, so that code the shim target wrote is read as what it is.
SHIM_PREFIX = "tfcompat_threads."
SHIM_NAMES = {
    CONFIG: "ConfigProto",
    GPU_OPTIONS: "GPUOptions",
    "Session": "Session",
    "InteractiveSession": "InteractiveSession",
    SET_SESSION: "set_session",
}
