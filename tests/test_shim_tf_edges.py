"""The shim at its edges, on the real installed TensorFlow (one process per
scenario): values TensorFlow refuses or dies on, settings made after the
runtime started, GPU options on this CPU-only host, and where the warnings
point."""

import os
import subprocess
from textwrap import dedent

import pytest

from tests.tfproc import TF_PYTHON, assert_pools, openmp_build, run


def openmp_from_intra(intra: int) -> dict:
    """What configure() adds for an intra-op count on an OpenMP build (Intel's): OMP_NUM_THREADS."""
    return {"OMP_NUM_THREADS": intra} if openmp_build() else {}


pytestmark = pytest.mark.tf


def test_tensorflow_aborts_the_process_on_a_negative_intra_op_count():
    """TensorFlow's own behaviour, the reason the shim refuses it: the config
    is taken, and the first op kills the process."""
    code = (
        "import tensorflow as tf\n"
        "tf.config.threading.set_intra_op_parallelism_threads(-1)\n"
        "print('set', flush=True)\n"
        "tf.reduce_sum(tf.ones((2, 2)))\n"
        "print('survived', flush=True)\n"
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "1"}
    proc = subprocess.run([TF_PYTHON, "-c", code], capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode != 0 and "set" in proc.stdout and "survived" not in proc.stdout
    assert "Check failed: num_threads >= 1" in proc.stderr


ATTEMPTS = """
import tensorflow as tf
import tfcompat_threads as tct
v1 = tf.compat.v1
outcomes = []

def attempt(label, call):
    try:
        call()
        outcomes.append([label, "accepted", ""])
    except (TypeError, ValueError) as error:
        outcomes.append([label, type(error).__name__, str(error)])
"""


def assert_refused(result, expected: dict) -> None:
    """Each attempt of the scenario raised the expected error, naming the value."""
    outcomes = {label: (kind, message) for label, kind, message in result["outcomes"]}
    assert set(outcomes) == set(expected)
    for label, (kind, named) in expected.items():
        assert outcomes[label][0] == kind and named in outcomes[label][1], (label, outcomes[label])


def test_values_tensorflow_refuses_are_refused_in_eager_mode_by_every_entry_point():
    result = run(
        ATTEMPTS
        + dedent(
            """
        for label, fields in [
            ("intra -1", {"intra_op_parallelism_threads": -1}),
            ("intra 2**40", {"intra_op_parallelism_threads": 2**40}),
            ("intra 2.7", {"intra_op_parallelism_threads": 2.7}),
            ("intra '3'", {"intra_op_parallelism_threads": "3"}),
            ("intra 'abc'", {"intra_op_parallelism_threads": "abc"}),
            ("inter True", {"inter_op_parallelism_threads": True}),
            ("soft 'false'", {"allow_soft_placement": "false"}),
            ("growth 'false'", {"gpu_options": {"allow_growth": "false"}}),
            ("timeout 'x'", {"operation_timeout_in_ms": "x"}),
            ("mixed", {"intra_op_parallelism_threads": 2, "inter_op_parallelism_threads": "x"}),
        ]:
            attempt("configure " + label, lambda: tct.configure(fields))
        bad = v1.ConfigProto(intra_op_parallelism_threads=-1)
        attempt("Session proto", lambda: tct.Session(config=bad))
        attempt("Session mapping", lambda: tct.Session(config={"intra_op_parallelism_threads": 2**40}))
        attempt("InteractiveSession", lambda: tct.InteractiveSession(config=bad))
        attempt("set_session", lambda: tct.set_session(tct.ConfigOnlySession("Session", "", None, bad)))
        untouched = (tf.config.threading.get_intra_op_parallelism_threads(),
                     tf.config.threading.get_inter_op_parallelism_threads(),
                     tf.config.get_soft_device_placement())
        before = tct.effective().as_dict()
        import numpy
        report = tct.configure(intra_op_parallelism_threads=numpy.int64(2), inter_op_parallelism_threads=-1,
                               allow_soft_placement=1)
        work(tf)
        emit(outcomes=outcomes, untouched=untouched, before=before, report=report.as_dict(),
             after=tct.effective().as_dict(), cpus=len(os.sched_getaffinity(0)))
        """
        )
    )
    assert_refused(result, {
        "configure intra -1": ("ValueError", "intra_op_parallelism_threads=-1"),
        "configure intra 2**40": ("ValueError", "intra_op_parallelism_threads=1099511627776"),
        "configure intra 2.7": ("TypeError", "intra_op_parallelism_threads=2.7"),
        "configure intra '3'": ("TypeError", "intra_op_parallelism_threads='3'"),
        "configure intra 'abc'": ("TypeError", "intra_op_parallelism_threads='abc'"),
        "configure inter True": ("TypeError", "inter_op_parallelism_threads=True"),
        "configure soft 'false'": ("TypeError", "allow_soft_placement='false'"),
        "configure growth 'false'": ("TypeError", "gpu_options.allow_growth='false'"),
        "configure timeout 'x'": ("TypeError", "operation_timeout_in_ms='x'"),
        "configure mixed": ("TypeError", "inter_op_parallelism_threads='x'"),
        "Session proto": ("ValueError", "intra_op_parallelism_threads=-1"),
        "Session mapping": ("ValueError", "intra_op_parallelism_threads=1099511627776"),
        "InteractiveSession": ("ValueError", "intra_op_parallelism_threads=-1"),
        "set_session": ("ValueError", "intra_op_parallelism_threads=-1"),
    })
    # nothing of a refused call was applied, not even its valid fields
    assert result["untouched"] == [0, 0, True]
    assert result["before"]["intra_op"] == {"configured": 0, "env": None, "effective": result["cpus"],
                                            "source": "default"}
    # accepted as protobuf accepts them; a negative inter-op count is TensorFlow's
    # "caller's thread" (graph sessions): eager ops keep a pool of the default size
    applied = {a["field"]: a["value"] for a in result["report"]["applied"]}
    assert applied == {"intra_op_parallelism_threads": 2, "inter_op_parallelism_threads": -1,
                       "allow_soft_placement": True, **openmp_from_intra(2)}
    assert result["after"]["intra_op"]["effective"] == 2
    assert result["after"]["inter_op"]["effective"] == result["cpus"]
    assert_pools(result, intra=2, inter=result["cpus"])


def test_values_tensorflow_refuses_are_refused_in_graph_mode():
    result = run(
        ATTEMPTS
        + dedent(
            """
        tf.compat.v1.disable_eager_execution()
        attempt("configure", lambda: tct.configure(intra_op_parallelism_threads=-1))
        attempt("configure bool", lambda: tct.configure(log_device_placement="true"))
        attempt("configure graph-only", lambda: tct.configure({"graph_options": {"no_such_field": 1}}))
        attempt("Session", lambda: tct.Session(config=v1.ConfigProto(intra_op_parallelism_threads=-1)))
        attempt("Session mapping", lambda: tct.Session(config={"device_count": {"CPU": 0}}))
        defaults = tct.configure(intra_op_parallelism_threads=2,
                                 gpu_options={"visible_device_list": "0", "allow_growth": True})
        session = tct.Session(config=v1.ConfigProto(inter_op_parallelism_threads=1))
        x = tf.random.uniform((800, 800))
        session.run(tf.matmul(x, x))
        emit(outcomes=outcomes, defaults=defaults.as_dict(), config=str(session._config))
        """
        )
    )
    assert_refused(result, {
        "configure": ("ValueError", "intra_op_parallelism_threads=-1"),
        "configure bool": ("TypeError", "log_device_placement='true'"),
        "configure graph-only": ("ValueError", "graph_options={'no_such_field': 1}"),
        "Session": ("ValueError", "intra_op_parallelism_threads=-1"),
        "Session mapping": ("ValueError", "device_count.CPU=0"),
    })
    # GPU options on a CPU-only host: TensorFlow's graph sessions take them, so does the shim
    assert result["defaults"]["skipped"] == []
    assert 'visible_device_list: "0"' in result["config"] and "allow_growth: true" in result["config"]
    assert_pools(result, intra=2, inter=1, split_known=False)


SCENARIO = """
import tensorflow as tf
import tfcompat_threads as tct
import warnings
here = sys._getframe().f_code.co_filename
line = lambda: sys._getframe(1).f_lineno  # the line calling line()
lines, reports, errors = {}, {}, {}
gpu = tct.ConfigProto(gpu_options=tct.GPUOptions(visible_device_list="0", allow_growth=True),
                      device_count={"GPU": 1})
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    lines["configure"] = line(); reports["gpu"] = tct.configure(gpu)
    lines["all"] = line(); reports["all"] = tct.configure(gpu_options={"visible_device_list": ""})
    lines["Session"] = line(); session = tct.Session(config=gpu)
    lines["InteractiveSession"] = line(); interactive = tct.InteractiveSession(config=gpu)
    lines["set_session"] = line(); tct.set_session(session)
    work(tf)
    warn = {"on_conflict": "warn"}
    lines["threads"] = line(); reports["threads"] = tct.configure(intra_op_parallelism_threads=7, **warn)
    lines["devices"] = line(); reports["devices"] = tct.configure(device_count={"CPU": 3}, **warn)
    lines["late Session"] = line(); tct.Session(config=tct.ConfigProto(device_count={"CPU": 2}))
    try:
        tct.configure(device_count={"CPU": 3})
    except tct.ThreadConfigError as error:
        errors["raise"] = str(error)
    reports["hide gpus"] = tct.configure(device_count={"GPU": 0})
reports = {name: report.as_dict() for name, report in reports.items()}
warned = [[w.category.__name__, w.filename, w.lineno, str(w.message)] for w in caught]
emit(here=here, lines=lines, reports=reports, errors=errors, warned=warned, started=session.started,
     cpu_devices=len(tf.config.list_logical_devices("CPU")), cpus=len(os.sched_getaffinity(0)))
"""


@pytest.fixture(scope="module")
def scenario():
    return run(SCENARIO)


def warned_at(result, label) -> list[tuple[str, str]]:
    at = result["lines"][label]
    return [(category, message) for category, _, line, message in result["warned"] if line == at]


def test_gpu_options_on_a_host_without_gpus_are_reported_never_raised(scenario):
    report = scenario["reports"]["gpu"]
    [skipped] = report["skipped"]
    assert skipped["field"] == "gpu_options.visible_device_list" and skipped["value"] == "0"
    assert "GPU 0" in skipped["reason"] and "0 GPU(s)" in skipped["reason"]
    hows = {a["field"]: a["how"] for a in report["applied"]}
    assert set(hows) == {"gpu_options.allow_growth", "device_count.GPU"}
    assert "0 GPU(s)" in hows["gpu_options.allow_growth"] and "0 GPU(s)" in hows["device_count.GPU"]
    [all_gpus] = scenario["reports"]["all"]["applied"]
    assert all_gpus["how"].startswith("nothing to do") and warned_at(scenario, "all") == []
    for label in ("configure", "Session", "InteractiveSession", "set_session"):
        [(category, message)] = warned_at(scenario, label)
        assert category == "UnmappedOptionWarning" and "visible_device_list" in message and "GPU 0" in message
    assert scenario["started"] is False
    assert scenario["reports"]["hide gpus"]["skipped"] == []


def test_late_device_settings_follow_on_conflict(scenario):
    [skipped] = scenario["reports"]["devices"]["skipped"]
    assert skipped["field"] == "device_count.CPU" and scenario["reports"]["devices"]["applied"] == []
    [(category, message)] = warned_at(scenario, "devices")
    assert category == "ThreadConfigWarning" and "device_count.CPU=3" in message
    [(category, message)] = warned_at(scenario, "late Session")
    assert category == "ThreadConfigWarning" and "device_count.CPU=2" in message
    message = scenario["errors"]["raise"]
    assert "device_count.CPU=3 was asked" in message and "before the first TensorFlow op" in message
    assert scenario["cpu_devices"] == 1


def test_thread_conflict_with_warn_is_a_warning_and_a_skipped_entry(scenario):
    report = scenario["reports"]["threads"]
    assert report["applied"] == []
    [skipped] = report["skipped"]
    assert skipped["field"] == "intra_op_parallelism_threads" and "already runs with" in skipped["reason"]
    [(category, message)] = warned_at(scenario, "threads")
    assert category == "ThreadConfigWarning" and "TF_NUM_INTRAOP_THREADS=7" in message
    assert_pools(scenario, intra=scenario["cpus"], inter=scenario["cpus"])


def test_every_warning_points_at_the_callers_line(scenario):
    assert scenario["warned"], "the scenario warns"
    for category, filename, line, message in scenario["warned"]:
        assert filename == scenario["here"] and line in scenario["lines"].values(), (category, message)
