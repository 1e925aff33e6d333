"""explain: the settings a TensorFlow process started here would get, and where
each comes from, without starting TensorFlow."""

from __future__ import annotations

import os

from ..options import BY_FIELD
from ..shim import configure as runtime
from ..shim.build import openmp_runtime
from ..terminal import visible

RELATED_ENV = (
    "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "TF_ENABLE_ONEDNN_OPTS",
    "OPENBLAS_NUM_THREADS",
)


def explain() -> dict:
    """The settings a TensorFlow process started here would get."""
    state = runtime.effective()
    env = {name: os.environ.get(name) for name in RELATED_ENV}
    env.update({name: value for name, value in sorted(os.environ.items()) if name.startswith("KMP_")})
    data = {
        "tensorflow": state.tensorflow,
        "keras": _keras(state.tensorflow),
        "mode": state.mode,
        "cpus": state.cpus,
        "intra_op": _pool_dict(state.intra_op, "TF_NUM_INTRAOP_THREADS"),
        "inter_op": _pool_dict(state.inter_op, "TF_NUM_INTEROP_THREADS"),
        "env": env,
    }
    openmp = openmp_runtime()
    if openmp is not None:  # the official wheels' output stays as it was
        data["build"] = {"openmp": openmp}
    data["notes"] = notes(data)
    return data


def _keras(tensorflow: str | None) -> str | None:
    """The Keras `tf.keras` is: 3 from TF 2.16 (no set_session), unless
    TF_USE_LEGACY_KERAS=1 brings back Keras 2 (tf-keras)."""
    if tensorflow is None:
        return None
    from ..versions import keras3_default, parse_version

    legacy = os.environ.get("TF_USE_LEGACY_KERAS", "").lower() in ("1", "true")
    return "3" if keras3_default(parse_version(tensorflow)) and not legacy else "2"


def _pool_dict(pool, env_name: str) -> dict:
    raw = os.environ.get(env_name)
    return {"configured": pool.configured, "env": pool.env, "effective": pool.effective, "source": pool.source,
            "env_value": raw, "env_valid": None if raw is None else env_problem(raw) is None}


def env_problem(raw: str) -> str | None:
    """Why TensorFlow cannot use this value of TF_NUM_*_THREADS, or None.
    Measured on tensorflow-cpu 2.15 and 2.21: a value that is not a whole
    number ('abc', '2x') is ignored (TensorFlow's default is used), 0 is the
    default, a negative number aborts the process at the first op."""
    text = raw.strip()
    try:
        value = int(text)
    except ValueError:
        return "not a whole number: TensorFlow ignores it and uses its default"
    if value < 0:
        return "negative: TensorFlow aborts the process at its first op (Check failed: num_threads >= 1)"
    return None


def notes(data: dict) -> dict[str, str]:
    """A few plain words per pool and per related variable."""
    cpus = data["cpus"]
    out = {}
    for key, what, when in (
        ("intra_op", "inside one op (a matmul, a reduction, a convolution)",
         "One pool per process, sized when the first op (or session) starts."),
        ("inter_op", "running independent ops side by side (graphs, tf.function, tf.data)",
         "The eager ops' pool is sized when the first op starts; each tf.compat.v1 session makes one "
         "of its own, sized when the session is made."),
    ):
        pool = data[key]
        env_name = BY_FIELD[f"{key}_parallelism_threads"].env
        origin = {
            "config": "set by the program (ConfigProto or tf.config.threading), which beats the environment",
            "env": f"from {env_name}={pool['env']}",
            "default": f"TensorFlow's default: the {cpus} CPUs this process may run on (what 0 asks for)",
        }[pool["source"]]
        out[key] = f"{pool['effective']} threads {what}; {origin}. {when}"
    env = data["env"]
    omp = env.get("OMP_NUM_THREADS")
    if "build" in data:
        library = data["build"]["openmp"]
        out["OMP_NUM_THREADS"] = (f"set to {omp}: " if omp else f"not set ({cpus}, the CPUs): ") + (
            f"this TensorFlow is an OpenMP build (it loads {library}, as Intel's does): its oneDNN matmuls and "
            "convolutions run on an OpenMP pool of this many threads, whatever the intra-op pool's size; the "
            "intra-op pool runs the other kernels (counted on intel-tensorflow 2.14). tfcompat_threads.configure("
            "intra_op_parallelism_threads=N) sets it to N when it is unset and TensorFlow has not started.")
        out["KMP_BLOCKTIME / KMP_AFFINITY"] = (
            f"read by {library} when its pool starts: how long its threads wait busy after a parallel region, "
            "and which CPUs they are bound to (Intel's OpenMP documentation; they do not size a pool).")
        out["TF_ENABLE_ONEDNN_OPTS"] = (f"{env.get('TF_ENABLE_ONEDNN_OPTS')}: " if env.get("TF_ENABLE_ONEDNN_OPTS")
                                        is not None else "not set: ") + "oneDNN kernels; here they run on OpenMP."
        out["GPU"] = ("both pools are CPU threads; for a program whose heavy ops run on a GPU, measure what they "
                      "change with `tfcompat-threads tune`.")
        out["tf.data"] = ("tf.data has its own pools: tf.data.Options().threading.private_threadpool_size "
                          "and max_intra_op_parallelism.")
        return out
    out["OMP_NUM_THREADS"] = (
        f"set to {omp}: " if omp else "not set: "
    ) + ("does not size TensorFlow's pools on the official wheels (measured on tensorflow-cpu 2.15 and 2.21, "
         "MKL_NUM_THREADS and KMP_* neither); it sizes numpy's OpenBLAS threads (up to the CPU count), as "
         "OPENBLAS_NUM_THREADS does. Size TensorFlow's pools with TF_NUM_INTRAOP_THREADS / "
         "TF_NUM_INTEROP_THREADS or tf.config.threading.")
    onednn = env.get("TF_ENABLE_ONEDNN_OPTS")
    out["TF_ENABLE_ONEDNN_OPTS"] = (
        f"{onednn}: " if onednn is not None else "not set: "
    ) + ("oneDNN kernels on x86 CPUs (on by default since TF 2.9); 0 or 1 does not change the size of either "
         "pool (measured on 2.15 and 2.21): oneDNN runs on the intra-op pool.")
    out["GPU"] = ("both pools are CPU threads; for a program whose heavy ops run on a GPU, measure what they "
                  "change with `tfcompat-threads tune`.")
    out["tf.data"] = ("tf.data has its own pools: tf.data.Options().threading.private_threadpool_size "
                      "and max_intra_op_parallelism.")
    return out


def format_explain(data: dict) -> str:
    keras = {"3": "Keras 3 (no set_session)", "2": "Keras 2", None: "no Keras"}[data["keras"]]
    lines = [
        f"TensorFlow {data['tensorflow'] or 'not installed'} with {keras}, starts in {data['mode']} mode; "
        f"{data['cpus']} schedulable CPUs",
    ]
    if "build" in data:
        lines[0] += f"; an OpenMP build (it loads {data['build']['openmp']}): three pools, not two"
    for key, title in (("intra_op", "intra-op pool"), ("inter_op", "inter-op pool")):
        pool = data[key]
        env_name = BY_FIELD[f"{key}_parallelism_threads"].env
        if pool["env_value"] is None:
            env = f"{env_name} unset"
        elif pool["env_valid"]:
            env = f"{env_name}={pool['env_value']}"
        else:
            env = f"{env_name}={pool['env_value']!r} is invalid ({env_problem(pool['env_value'])})"
        lines.append(f"  {title}: {pool['effective']} threads (source: {pool['source']}; configured "
                     f"{pool['configured']}, environment {env})")
        lines.append(f"    {data['notes'][key]}")
    lines.append("  environment:")
    for name, value in data["env"].items():
        lines.append(f"    {name}={value if value is not None else '(unset)'}")
    for key in ("OMP_NUM_THREADS", "KMP_BLOCKTIME / KMP_AFFINITY", "TF_ENABLE_ONEDNN_OPTS", "GPU", "tf.data"):
        if key in data["notes"]:
            lines.append(f"  {key}: {data['notes'][key]}")
    return "\n".join(map(visible, lines)) + "\n"  # an environment value is anyone's text
