"""Values TensorFlow would refuse (issue 13 item 12).

`configure()` validates each value as TensorFlow's own `ConfigProto` would
(int32, not bool, thread counts >= 0, booleans that are booleans) before
anything is applied, with a TypeError or ValueError naming the field and the
value; a refused value is never reported applied (nor put in the
environment, nor shown by `effective()`). Each case runs in a fresh Python
without TensorFlow (the route that sets TF_NUM_INTRAOP_THREADS), so no value
leaks from one to the next.

A late `device_count` with `on_conflict="warn"` needs a started runtime: it
runs against a small stand-in `tensorflow` module (written below, labelled as
such) whose `set_logical_device_configuration` raises the RuntimeError that
TensorFlow raises once its devices are initialised.
"""

from __future__ import annotations

import json
import os

import pytest

from tfcompat_threads.options import MAX_THREADS

from .helpers import child_env, python


PROBE = """
import json, os, sys, warnings
warnings.simplefilter("ignore")
import tfcompat_threads as tct
field, value = sys.argv[1], eval(sys.argv[2])
outcome = {"raised": None, "message": "", "applied": []}
try:
    report = tct.configure(**{field: value})
    outcome["applied"] = [a.field for a in report.applied]
except Exception as error:
    outcome["raised"] = type(error).__name__
    outcome["message"] = str(error)
outcome["env"] = os.environ.get("TF_NUM_INTRAOP_THREADS")
outcome["effective"] = tct.effective().intra_op.effective
print(json.dumps(outcome))
"""

REFUSED = [
    ("intra_op_parallelism_threads", "-1", "ValueError"),  # TF aborts: Check failed: num_threads >= 1
    ("intra_op_parallelism_threads", "2**40", "ValueError"),  # not an int32
    ("intra_op_parallelism_threads", "2.7", "TypeError"),  # was truncated to 2
    ("intra_op_parallelism_threads", "'3'", "TypeError"),
    ("intra_op_parallelism_threads", "True", "TypeError"),
    ("intra_op_parallelism_threads", "'abc'", "TypeError"),  # was a raw int() ValueError
    ("allow_soft_placement", "'false'", "TypeError"),  # was applied as True
    # A negative inter-op count is not here: TensorFlow takes it (no abort; eager ops keep the default
    # pool, measured on 2.15 and 2.21), and the shim's report says so (tests/test_shim_tf_edges.py).
]


def run_probe(tmp_path, field: str, value: str) -> dict:
    env = {k: v for k, v in child_env().items() if not k.startswith("TF_NUM_")}
    run = python(PROBE, field, value, cwd=tmp_path, env=env)
    assert run.returncode == 0, run
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("field, value, error", REFUSED,
                         ids=[f"{f.split('_')[0]}={v}" for f, v, _ in REFUSED])
def test_values_tensorflow_would_refuse_are_refused_before_anything_is_applied(tmp_path, field, value, error):
    outcome = run_probe(tmp_path, field, value)
    assert outcome["raised"] == error, outcome
    message = outcome["message"]
    assert field in message and repr(eval(value)) in message, f"name the field and the value: {message!r}"
    assert outcome["applied"] == [] and outcome["env"] is None, outcome
    number = eval(value)
    if isinstance(number, int) and not isinstance(number, bool):
        assert outcome["effective"] != number, "effective() reports a refused value"


def test_valid_values_are_still_applied(tmp_path):
    """The other side of the validation (holds today): 0 and counts up to
    MAX_THREADS pass (issue 20 item 7: above it, TensorFlow hangs or dies)."""
    for value, env in (("4", "4"), (str(MAX_THREADS), str(MAX_THREADS))):
        outcome = run_probe(tmp_path, "intra_op_parallelism_threads", value)
        assert outcome["raised"] is None and outcome["env"] == env, outcome
    outcome = run_probe(tmp_path, "intra_op_parallelism_threads", "0")
    assert outcome["raised"] is None and outcome["env"] is None, outcome


STANDIN = '''"""STAND-IN for a started TensorFlow 2.15 (adversarial tests only): just
what the shim touches, and the RuntimeError TensorFlow raises when virtual
devices are changed after the runtime is initialised."""
__version__ = "2.15.0"


def executing_eagerly():
    return True


class LogicalDeviceConfiguration:
    pass


class _Threading:
    def get_intra_op_parallelism_threads(self):
        return 0

    def get_inter_op_parallelism_threads(self):
        return 0


class config:
    threading = _Threading()
    LogicalDeviceConfiguration = LogicalDeviceConfiguration

    @staticmethod
    def list_physical_devices(kind=None):
        return ["/physical_device:CPU:0"] if kind in (None, "CPU") else []

    @staticmethod
    def set_logical_device_configuration(device, logical_devices):
        raise RuntimeError("Virtual devices cannot be modified after being initialized")

    @staticmethod
    def set_visible_devices(devices, kind=None):
        raise RuntimeError("Visible devices cannot be modified after being initialized")
'''
CONTEXT = '''"""STAND-IN: an eager context whose runtime has started."""
EAGER_MODE = 1
default_execution_mode = EAGER_MODE


class _Context:
    _context_handle = object()


def context():
    return _Context()
'''

LATE = """
import json, sys, warnings
import tensorflow, tensorflow.python.eager.context
import tfcompat_threads as tct
outcome = {"raised": None}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        report = tct.configure(device_count={"CPU": 2}, on_conflict=sys.argv[1])
        outcome["applied"] = [a.field for a in report.applied]
    except Exception as error:
        outcome["raised"] = type(error).__name__
outcome["warnings"] = [w.category.__name__ for w in caught]
print(json.dumps(outcome))
"""


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_late_device_count_follows_on_conflict(tmp_path, mode):
    package = tmp_path / "standin" / "tensorflow"
    (package / "python" / "eager").mkdir(parents=True)
    (package / "__init__.py").write_text(STANDIN)
    (package / "python" / "__init__.py").write_text("")
    (package / "python" / "eager" / "__init__.py").write_text("")
    (package / "python" / "eager" / "context.py").write_text(CONTEXT)
    env = child_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path / "standin"), env.get("PYTHONPATH")]))
    run = python(LATE, mode, cwd=tmp_path, env=env)
    assert run.returncode == 0, run
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    if mode == "warn":
        assert outcome["raised"] is None, f"on_conflict='warn' raised {outcome['raised']}"
        assert "ThreadConfigWarning" in outcome["warnings"], outcome
        assert "device_count.CPU" not in outcome["applied"], "reported applied, but TensorFlow refused it"
    else:
        assert outcome["raised"] == "ThreadConfigError", f"not TensorFlow's raw error: {outcome}"
