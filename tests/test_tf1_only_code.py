"""Code that runs on TF 1.x only, as a repository says it: its own version
predicates, a function called only under them, the TF1 arm of a conditional
expression, and tensorflow.contrib (gone since TF 2.0) (issue 23)."""

from __future__ import annotations

import pytest

from tests.test_cli import cli
from tests.test_project_flows import repository
from tfcompat_threads.codemod import transform

PREDICATES = {
    "own predicate": """\
import tensorflow as tf


def is_tf2():
    \"\"\"TensorFlow 2 or later.\"\"\"
    return int(tf.__version__.split(".")[0]) >= 2


if not is_tf2():
    sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1))
    sess.run(tf.constant(1))
""",
    "flag": """\
import tensorflow as tf

IS_TF1 = tf.__version__.startswith("1.")
if IS_TF1:
    sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1))
    sess.run(tf.constant(1))
""",
    "function called only under a predicate": """\
import tensorflow as tf


def get_tf_version():
    return float(tf.__version__[:3])


def _from_keras_tf1(model):
    sess = tf.keras.backend.get_session()
    return tf.Session(graph=sess.graph, config=tf.ConfigProto(allow_soft_placement=True))


def load(model):
    if get_tf_version() < 2.0:
        return _from_keras_tf1(model)
    return model
""",
    "method called only under a predicate": """\
import tensorflow as tf
from distutils.version import LooseVersion


class Exporter:
    def _from_keras_tf1(self):
        return tf.Session(config=tf.ConfigProto(allow_soft_placement=True))

    def session(self):
        if LooseVersion(tf.__version__) < LooseVersion("2.0"):
            return self._from_keras_tf1()
        return None
""",
    "conditional expression": """\
import tensorflow as tf


def _has_compat():
    return hasattr(tf, "compat")


Session = tf.compat.v1.Session if _has_compat() else tf.Session
run_options = tf.compat.v1.RunOptions() if hasattr(tf, "compat") else tf.RunOptions()
""",
}


@pytest.mark.parametrize("shape", PREDICATES)
def test_code_a_repositorys_own_version_test_keeps_for_tf1_is_left_alone(shape):
    """No finding, no change: on TF 1.x it is right (0.x renamed the TF1
    names, and in the conditional expression made both arms the same)."""
    source = PREDICATES[shape].encode()
    for target in ("native", "shim"):
        result = transform(source, target)
        assert result.findings == [] and result.source == source, (target, result.findings)


def test_a_test_the_tensorflow_version_does_not_decide_is_no_guard():
    source = b"""\
import tensorflow as tf


def debugging():
    return False


if not debugging():
    sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1))
    sess.run(tf.constant(1))
"""
    assert [f.code for f in transform(source).findings] == ["TFT002", "TFT002"]


def test_a_predicate_of_another_module_decides_too(tmp_path):
    tree = repository(tmp_path, compat="import tensorflow as tf\n\n\ndef is_tf2():\n"
                                       "    return tf.__version__ >= '2'\n",
                      train=PREDICATES["own predicate"].replace("def is_tf2", "def _unused").replace(
                          "import tensorflow as tf\n", "import tensorflow as tf\n\nfrom app.compat import is_tf2\n", 1))
    result = cli("check", ".", cwd=tree)
    assert result.exit_code == 0, result.output


CONTRIB = """\
import tensorflow as tf
from tensorflow.contrib import tpu as contrib_tpu
from tensorflow.contrib.tpu.python.tpu import tpu_config

a = contrib_tpu.RunConfig(session_config=tf.compat.v1.ConfigProto(allow_soft_placement=True))
b = tpu_config.RunConfig(session_config=tf.compat.v1.ConfigProto(allow_soft_placement=True))
"""


def test_a_module_that_imports_contrib_is_said_to_need_tf1():
    """Both RunConfigs are the Estimator's (tpu_config is where TensorFlow
    re-exports it from); the module imports tf.contrib, gone since TF 2.0, so
    "pin tensorflow<2.16" cannot help it: the finding says it needs TF 1.x."""
    findings = transform(CONTRIB.encode()).findings
    assert [(f.code, f.start.line) for f in findings] == [("TFT007", 5), ("TFT007", 6)]
    for finding in findings:
        assert "tf.contrib (imported at line 2) is gone since TF 2.0: this code runs on TF 1.x only" \
            in finding.message
        assert "tensorflow<2.16" not in finding.help


def test_a_reexport_path_is_the_estimator_run_config_where_contrib_is_optional():
    source = CONTRIB.replace(
        "from tensorflow.contrib import tpu as contrib_tpu\nfrom tensorflow.contrib.tpu.python.tpu import tpu_config\n",
        "try:\n    from tensorflow.contrib.tpu.python.tpu import tpu_config\nexcept ImportError:\n"
        "    tpu_config = None\n").replace("a = contrib_tpu", "# a = contrib_tpu")
    findings = transform(source.encode()).findings
    assert [f.code for f in findings] == ["TFT007"]
    assert findings[0].message.startswith("tf.contrib is gone since TF 2.0")


def test_a_method_called_from_a_nested_function_is_no_internal_error():
    """tensorflow/python/data/ops/dataset_ops.py (2.21): `self._helper()`
    inside a function nested in a method, under a version check. Its call
    sites cannot all be known, so it is not TF1-only code (was TypeError)."""
    from tfcompat_threads.codemod.engine import run

    source = (b"import tensorflow as tf\n\n\nclass Model:\n    def _helper(self):\n"
              b"        return tf.compat.v1.ConfigProto()\n\n    def build(self):\n        def inner():\n"
              b"            return self._helper()\n        if tf.__version__.startswith('1.'):\n"
              b"            return inner()\n")
    [finding] = run(source, "native", "model.py").findings
    assert finding.code == "TFT005" and "_helper() is used in a way the codemod does not follow" in finding.message
