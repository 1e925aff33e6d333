"""Values TensorFlow dies on, and values of the wrong shape (issue 20 items 7-8).

A thread count above `options.MAX_THREADS` (TensorFlow's first op takes 20 s
at 16,384 threads, hangs at 100,000, dies with SIGSEGV at 2**31-1: measured
on 2.21) is refused by the shim, `probe` and `tune` before any TensorFlow
process starts, with a ValueError naming the field and the limit. A value of
the wrong type is a TypeError naming the field, never "unknown field"; a
value whose own `__index__` or `__repr__` raises is still a TypeError naming
the field; `Session(config='str')` names Session. Each case runs in a fresh
Python.
"""

from __future__ import annotations

import json

import pytest

from tfcompat_threads.options import MAX_THREADS

from .helpers import assert_one_error, child_env, python, tft

PROBE = """
import json, os, sys, warnings
warnings.simplefilter("error")  # a skip with a warning is an outcome too
import tfcompat_threads as tct

class RaisingIndex:
    def __init__(self, error):
        self.error = error
    def __index__(self):
        raise self.error("from __index__")

class RaisingRepr:
    def __init__(self, error, index=None):
        self.error, self.index = error, index
    def __repr__(self):
        raise self.error("from __repr__")
    def __index__(self):
        if self.index is None:
            raise TypeError("no index")
        return self.index

call, value = sys.argv[1], eval(sys.argv[2])
outcome = {"raised": None, "message": ""}
try:
    if call in ("Session", "InteractiveSession"):
        getattr(tct, call)(config=value)
    else:
        tct.configure(**{call: value})
except Exception as error:
    outcome["raised"] = type(error).__name__
    outcome["message"] = str(error)
outcome["env"] = os.environ.get("TF_NUM_INTRAOP_THREADS"), os.environ.get("TF_NUM_INTEROP_THREADS")
outcome["tensorflow_imported"] = "tensorflow" in sys.modules
print(json.dumps(outcome))
"""


def outcome(tmp_path, call: str, value: str) -> dict:
    env = {k: v for k, v in child_env().items() if not k.startswith("TF_NUM_")}
    run = python(PROBE, call, value, cwd=tmp_path, env=env)
    assert run.returncode == 0, run
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("field", "value"), [
    ("intra_op_parallelism_threads", "2**31 - 1"),  # SIGSEGV at the first op
    ("inter_op_parallelism_threads", "10**6"),  # the first op hangs
    ("intra_op_parallelism_threads", f"{MAX_THREADS + 1}"),
    ("inter_op_parallelism_threads", f"{MAX_THREADS + 1}"),
])
def test_a_thread_count_above_the_limit_is_refused_before_anything_is_applied(tmp_path, field, value):
    """Item 7."""
    found = outcome(tmp_path, field, value)
    assert found["raised"] == "ValueError", found
    assert field in found["message"] and f"{MAX_THREADS}" in found["message"], found
    assert found["env"] == [None, None] and not found["tensorflow_imported"], found


@pytest.mark.parametrize(("field", "value"), [
    ("intra_op_parallelism_threads", f"{MAX_THREADS}"),
    ("inter_op_parallelism_threads", "-1"),  # TF's "caller's thread": taken, as before
])
def test_a_thread_count_within_the_limit_is_taken(tmp_path, field, value):
    assert outcome(tmp_path, field, value)["raised"] is None


@pytest.mark.parametrize(("field", "value"), [
    ("device_count", "5"),
    ("gpu_options", "'abc'"),
    ("device_count", "{1: 2}"),
])
def test_a_value_of_the_wrong_type_is_a_type_error_naming_the_field(tmp_path, field, value):
    """Item 8: protobuf refuses these with TypeError; they were warned about
    as unknown fields and skipped."""
    found = outcome(tmp_path, field, value)
    assert found["raised"] == "TypeError", found
    assert field in found["message"] and "unknown" not in found["message"], found


RAISING = ["RaisingIndex(RuntimeError)", "RaisingIndex(KeyError)", "RaisingIndex(ValueError)",
           "RaisingRepr(RuntimeError)", "RaisingRepr(TypeError)"]


@pytest.mark.parametrize(("field", "value"), [
    *(("intra_op_parallelism_threads", value) for value in [*RAISING, "RaisingRepr(RuntimeError, index=-5)"]),
    *(("allow_soft_placement", value) for value in RAISING),
])
def test_a_value_whose_index_or_repr_raises_is_an_error_naming_the_field(tmp_path, field, value):
    """Item 8: the value's own exception does not escape as itself."""
    found = outcome(tmp_path, field, value)
    assert found["raised"] in ("TypeError", "ValueError"), found
    assert field in found["message"], found


@pytest.mark.parametrize("call", ["Session", "InteractiveSession"])
def test_a_session_given_a_string_config_names_the_session(tmp_path, call):
    found = outcome(tmp_path, call, "'str'")
    assert found["raised"] == "TypeError", found
    assert f"{call}(config=" in found["message"] and "configure()" not in found["message"], found


@pytest.mark.parametrize("args", [("probe", "--intra", "2147483648"), ("probe", "--inter", f"{MAX_THREADS + 1}"),
                                  ("tune", "--intra", f"1,{MAX_THREADS + 1}", "--", "true")])
def test_probe_and_tune_refuse_a_count_above_the_limit_before_any_process_starts(tmp_path, args):
    run = tft(*args, cwd=tmp_path)
    assert_one_error(run, args[1])
    assert "starting TensorFlow" not in run.stderr and "points x" not in run.stderr, run
