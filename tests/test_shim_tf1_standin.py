"""The TF1 branch of the shim, against a STAND-IN for TensorFlow 1.15
(tests/standins/tf1_standin.py: the installed TF2's tf.compat.v1 in graph mode,
labelled 1.15.5), because TF 1.x cannot be installed on Python >= 3.8.
The pools are still the real ones, counted from the threads."""

import textwrap

import pytest

from tests.tfproc import assert_pools, run

pytestmark = pytest.mark.tf

STANDIN = """
import tf1_standin
import tensorflow as tf
assert tf.IS_STANDIN
import tfcompat_threads as tct
"""


def run_standin(code: str) -> dict:
    return run(STANDIN + textwrap.dedent(code), standin_tf1=True)


def test_standin_is_seen_as_tf1_graph():
    result = run_standin("emit(version=str(tct.tf_version()), mode=tct.execution_mode())")
    assert result == {**result, "version": "1.15.5", "mode": "tf1-graph"}


def test_tf1_configure_then_plain_session_gets_the_sizes():
    result = run_standin(
        """
        report = tct.configure(intra_op_parallelism_threads=3, inter_op_parallelism_threads=2)
        session = tct.Session()
        x = tf.random.uniform((800, 800))
        session.run(tf.matmul(x, x))
        emit(report=report.as_dict(), config=str(session._config), effective=tct.effective().as_dict())
        """
    )
    assert {a["how"] for a in result["report"]["applied"]} == {
        "default config of this package's sessions (graph mode)"
    }
    assert "intra_op_parallelism_threads: 3" in result["config"]
    assert result["effective"]["started"] is True
    assert result["effective"]["intra_op"]["source"] == "config"
    assert_pools(result, intra=3, inter=2, split_known=False)


def test_tf1_set_session_uses_keras_when_it_has_sessions():
    result = run_standin(
        """
        import warnings
        config = tct.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=3)
        session = tct.Session(config=config)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = sys._getframe().f_lineno; tct.set_session(session)
        backend = tf.keras.backend
        has_keras_sessions = hasattr(backend, "set_session")
        same = has_keras_sessions and backend.get_session() is session
        x = tf.random.uniform((800, 800))
        session.run(tf.matmul(x, x))
        emit(has_keras_sessions=has_keras_sessions, same=same, line=line,
             warnings=[(str(w.message), w.filename, w.lineno) for w in caught])
        """
    )
    if result["has_keras_sessions"]:  # Keras 2 (TF <= 2.15 underneath)
        assert result["same"] is True and result["warnings"] == []
    else:  # Keras 3 underneath: no sessions; the config still applies, warned at the caller's line
        [(_, filename, line)] = [w for w in result["warnings"] if "no set_session" in w[0]]
        assert (filename, line) == ("<string>", result["line"])
    assert_pools(result, intra=2, inter=3, split_known=False)


def test_tf1_conflicting_configure_after_first_session_raises():
    result = run_standin(
        """
        session = tct.Session(config=tct.ConfigProto(intra_op_parallelism_threads=2))
        try:
            tct.configure(intra_op_parallelism_threads=4)
            outcome = "accepted"
        except tct.ThreadConfigError as error:
            outcome = str(error)
        same = tct.configure(intra_op_parallelism_threads=2).applied[0].how
        emit(outcome=outcome, same=same)
        """
    )
    assert "intra_op_parallelism_threads=4 was asked" in result["outcome"]
    assert "already runs with 2 threads (configured)" in result["outcome"]
    assert result["same"].startswith("unchanged")


def test_tf1_values_tensorflow_refuses_are_refused_before_a_session_starts():
    result = run_standin(
        """
        import warnings
        outcomes = {}
        for label, call in [
            ("configure", lambda: tct.configure(intra_op_parallelism_threads=-1)),
            ("configure float", lambda: tct.configure(inter_op_parallelism_threads=2.5)),
            ("Session", lambda: tct.Session(config=tct.ConfigProto(intra_op_parallelism_threads=-1))),
        ]:
            try:
                call()
                outcomes[label] = "accepted"
            except (TypeError, ValueError) as error:
                outcomes[label] = f"{type(error).__name__}: {error}"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gpu = tct.configure(gpu_options={"visible_device_list": "0"})
        config = tct.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)
        session = tct.Session(config=config)
        x = tf.random.uniform((800, 800))
        session.run(tf.matmul(x, x))
        emit(outcomes=outcomes, gpu=gpu.as_dict(), warnings=[str(w.message) for w in caught])
        """
    )
    outcomes = {label: text.replace("tfcompat_threads: ", "") for label, text in result["outcomes"].items()}
    assert outcomes["configure"].startswith("ValueError: intra_op_parallelism_threads=-1")
    assert outcomes["configure float"].startswith("TypeError: inter_op_parallelism_threads=2.5")
    assert outcomes["Session"].startswith("ValueError: intra_op_parallelism_threads=-1")
    # TF1 took GPU options on hosts without GPUs: so does the shim, in its graph mode
    assert result["gpu"]["skipped"] == [] and result["warnings"] == []
    assert_pools(result, intra=2, inter=1, split_known=False)
