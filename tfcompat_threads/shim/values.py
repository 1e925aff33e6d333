"""Values of ConfigProto options, checked as TensorFlow's ConfigProto takes
them, before anything is applied (shim/configure.py): each check returns the
value as TensorFlow takes it, or raises TypeError / ValueError naming the
field and the value."""

from __future__ import annotations

import operator
import re
from typing import Any

from .. import options as _options

INT32 = range(-(2**31), 2**31)


# Values, checked as TensorFlow's ConfigProto takes them (protobuf on TF 2.15
# and 2.21): int32 fields refuse floats and strings, bool fields take bools
# and integers but refuse strings ('false' included) and floats. Stricter
# where TensorFlow would take the value and then fail: see each check.


def invalid(error: type[Exception], name: str, value: Any, problem: str) -> Exception:
    try:
        shown = repr(value)
    except Exception:  # noqa: BLE001  a value's own __repr__ may raise: the error still names the field
        shown = f"<a {type(value).__name__} whose repr() raises>"
    return error(f"tfcompat_threads: {name}={shown}: {problem}")


def index_of(name: str, value: Any, needed: str) -> int:
    """operator.index, whatever the value's __index__ raises: TypeError naming the field."""
    try:
        return operator.index(value)
    except TypeError:
        raise invalid(TypeError, name, value, f"{needed} is needed, not {type(value).__name__}") from None
    except Exception as error:  # noqa: BLE001  its own __index__ failed
        problem = f"{needed} is needed; its __index__ raised {type(error).__name__}: {error}"
        raise invalid(TypeError, name, value, problem) from None


def is_numpy_bool(value: Any) -> bool:
    return getattr(getattr(value, "dtype", None), "kind", None) == "b"


def int32(name: str, value: Any) -> int:
    """An int32 that is not a bool (protobuf of TF 2.21 refuses bools too)."""
    if isinstance(value, bool) or is_numpy_bool(value):
        raise invalid(TypeError, name, value, "an int is needed, not a bool")
    number = index_of(name, value, "an int")
    if number not in INT32:
        problem = f"out of range: an int32 ({INT32.start} to {INT32.stop - 1}) is needed"
        raise invalid(ValueError, name, value, problem)
    return number


def boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool) or is_numpy_bool(value):
        return bool(value)
    return bool(index_of(name, value, "a bool"))  # as protobuf: an int is taken, non-zero is True


def intra_op_count(name: str, value: Any) -> int:
    number = inter_op_count(name, value)
    if number < 0:
        # Seen on TF 2.15 and 2.21: taken, then the first op aborts the process
        # ("Check failed: num_threads >= 1").
        problem = "0 (TensorFlow picks) or more is needed: TensorFlow aborts on a negative count"
        raise invalid(ValueError, name, value, problem)
    return number


def inter_op_count(name: str, value: Any) -> int:
    """A thread count up to MAX_THREADS (negative: for inter-op, TF's "caller's thread")."""
    number = int32(name, value)
    if number > _options.MAX_THREADS:
        problem = (f"at most {_options.MAX_THREADS} threads are accepted (TensorFlow's first op takes 20 s at "
                   "16,384 threads, hangs or dies with more)")
        raise invalid(ValueError, name, value, problem)
    return number


def cpu_count(name: str, value: Any) -> int:
    number = int32(name, value)
    if number < 1:
        # TF 2.15 and 2.21 graph sessions: "No CPU devices are available in this process".
        raise invalid(ValueError, name, value, "TensorFlow needs at least one CPU device")
    return number


def device_list(name: str, value: Any) -> str:
    """A comma-separated list of GPU indexes; '' means every GPU."""
    if isinstance(value, bytes):  # protobuf takes UTF-8 bytes for a string
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise invalid(ValueError, name, value, "bytes that are not UTF-8") from None
    if not isinstance(value, str):
        problem = f"a string of comma-separated GPU indexes is needed, not {type(value).__name__}"
        raise invalid(TypeError, name, value, problem)
    try:
        gpu_indexes(value)
    except ValueError as error:  # TensorFlow's GPU runtime: "Could not parse entry"
        raise invalid(ValueError, name, value, str(error)) from None
    return value


def gpu_indexes(device_list: str) -> list[int]:
    """The GPU indexes of a `visible_device_list`, in their order."""
    if not device_list.strip():
        return []
    indexes = []
    for entry in device_list.split(","):
        if re.fullmatch(r"\s*-?[0-9]+\s*", entry) is None:
            raise ValueError(f"{entry.strip()!r} is not a GPU index")
        indexes.append(int(entry))
    return indexes
