"""Which TensorFlow is installed, and what it can do, without importing it.

`import tensorflow` costs seconds; the version of the TensorFlow that *would*
be imported is read from the distribution metadata next to the package that
`import tensorflow` would find. Once TensorFlow is imported, its own
`__version__` is the answer.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import lru_cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

# Distributions that install the `tensorflow` package.
DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tensorflow-aarch64",
    "tensorflow-cpu-aws",
    "intel-tensorflow",
    "tf-nightly",
    "tf-nightly-cpu",
    "tf-nightly-gpu",
)


def parse_version(text: str) -> Version:
    """`packaging` parse that also takes what nightlies and vendors print
    (`2.17.0-dev20240101`, `2.15.0+nv24.02`, `1.15.5-gpu`)."""
    try:
        return Version(text)
    except InvalidVersion:
        match = re.match(r"\d+(\.\d+)*", text.strip())
        if match is None:
            raise
        return Version(match.group(0))


def tf_version() -> Version | None:
    """The TensorFlow version in this process (imported) or the one `import
    tensorflow` would load; None when TensorFlow is not installed."""
    module = sys.modules.get("tensorflow")
    if module is not None and getattr(module, "__version__", None):
        return parse_version(module.__version__)
    return _installed_version()


def tf_importable() -> bool:
    """`import tensorflow` would find a package (whatever its metadata says)."""
    if "tensorflow" in sys.modules:
        return True
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=None)
def _installed_version() -> Version | None:
    try:
        spec = importlib.util.find_spec("tensorflow")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    # Only the metadata beside the package that would be imported counts: a
    # second TensorFlow elsewhere on sys.path is not the one that would run.
    for name, version in _distributions(package_dir.parent):
        if name.lower().replace("_", "-") in DISTRIBUTIONS:
            return parse_version(version)
    return None


def _distributions(folder: Path):
    """(name, version) of the distributions installed in `folder`."""
    try:
        from importlib.metadata import distributions
    except ImportError:  # Python 3.7: the *.dist-info folders' METADATA, read directly
        for info in sorted(folder.glob("*.dist-info")):
            try:
                head = (info / "METADATA").read_text(encoding="utf-8", errors="replace").split("\n\n", 1)[0]
            except OSError:
                continue
            fields = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
            if "Name" in fields and "Version" in fields:
                yield fields["Name"], fields["Version"]
        return
    for dist in distributions(path=[str(folder)]):
        yield dist.metadata["Name"] or "", dist.version


def is_tf2(version: Version) -> bool:
    return version.release[0] >= 2


def has_tf_config(version: Version) -> bool:
    """`tf.config.threading` and friends exist (1.14+)."""
    return version.release[:2] >= (1, 14)


def env_threads_match_config(version: Version) -> bool:
    """TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS give the pools a
    ConfigProto with the same counts gives (measured on 2.4, 2.11, 2.15,
    2.21; on 1.15 the intra-op variable gives one thread more)."""
    return version.release[:2] >= (2, 4)


def keras3_default(version: Version) -> bool:
    """TF >= 2.16 ships Keras 3 as `tf.keras`, where `set_session` is gone."""
    return version.release[:2] >= (2, 16)


def execution_mode() -> str:
    """"tf1-graph", "tf1-eager", "tf2-eager", "tf2-graph", or "no-tensorflow". Before TensorFlow is imported: the mode
    it starts in (TF1 graph, TF2 eager)."""
    version = tf_version()
    if version is None:
        return "no-tensorflow"
    major = "tf2" if is_tf2(version) else "tf1"
    tf = sys.modules.get("tensorflow")
    if tf is None:
        return "tf2-eager" if major == "tf2" else "tf1-graph"
    return f"{major}-eager" if _eager_by_default(tf) else f"{major}-graph"


def _eager_by_default(tf) -> bool:
    # The process-wide switch, not `tf.executing_eagerly()`, which is False
    # inside a `with graph.as_default()` block or a tf.function.
    context = sys.modules.get("tensorflow.python.eager.context")
    mode = getattr(context, "default_execution_mode", None)
    if mode is not None:
        return mode == getattr(context, "EAGER_MODE", 1)
    return bool(tf.executing_eagerly())
