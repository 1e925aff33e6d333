"""tfcompat_threads: TF1 thread and placement settings that take effect on any TensorFlow.

    import tfcompat_threads
    tfcompat_threads.configure(intra_op_parallelism_threads=4, inter_op_parallelism_threads=2)

Importing this package never imports TensorFlow (nor libcst or click): the
names below load their module on first use.
"""

from __future__ import annotations

from .errors import ThreadConfigError, ThreadConfigWarning, UnmappedOptionWarning

__version__ = "0.2.0.dev0"

_LAZY = {
    "configure": "shim.configure",
    "effective": "shim.configure",
    "Report": "shim.configure",
    "ConfigProto": "shim.sessions",
    "GPUOptions": "shim.sessions",
    "Session": "shim.sessions",
    "InteractiveSession": "shim.sessions",
    "ConfigOnlySession": "shim.sessions",
    "set_session": "shim.sessions",
    "tf_version": "versions",
    "execution_mode": "versions",
}

__all__ = [
    "ThreadConfigError",
    "ThreadConfigWarning",
    "UnmappedOptionWarning",
    "__version__",
    *_LAZY,
]

def _lazy_names(package: str, table: dict[str, str], namespace: dict):
    """A module `__getattr__` that imports `table[name]` (a submodule of
    `package`) on first use of `name`, and keeps the value."""

    def __getattr__(name: str):
        module_name = table.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(f".{module_name}", package), name)
        namespace[name] = value
        return value

    return __getattr__


__getattr__ = _lazy_names(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
