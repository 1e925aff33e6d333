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


@pytest.mark.parametrize("module, may", [
    ("import tensorflow as tf\n\ndef helper():\n    return tf.__version__.startswith('1')\n", True),
    ('def helper():\n    """Says."""\n    return IS_TF1\n', True),
    ("def helper():\n    x = tf.get_default_graph()\n    return x is not None\n", False),  # two statements
    ("def helper():\n    return\n", False),  # no value
    ("def other():\n    return 1\n", False),  # no def of the name
    ("step = tf.train.get_global_step()\n\ndef helper():\n    step.eval()\n    return 1\n", False),
    ("class A:\n    def helper(self):\n        return 1\n\ndef helper():\n    pass\n    return 2\n", True),  # any def
    ("from utils import *\n\ndef x():\n    return 1\n", True),  # a star import may bring it
    ("def f():\n    global helper\n    helper = g\n", True),  # `global` may bind it
    ("def f(): global helper\n", True),
    ('def helper():\n    x = """\nend"""\n    return x\n', True),  # lines it cannot read alone
    ("def helper():\r\n    return 1\r\n", True),
    ("async def helper():\n    return await g()\n", True),
    ("def helper(\n  a=1,\n):\n    # a comment\n\n    return a\n", True),
    ("def \\\n  helper():\n    return 1\n", True),  # a def split by a backslash
    ("x = undef \\\n    + 1\n\ndef helper():\n    pass\n    return 2\n", False),  # `undef \\` is no def
    ("s = 'def helper(): return 1'\n", False),  # not at the start of a line
    ("if x: def_helper = 1\n", False),
])
def test_a_module_is_analysed_for_a_helper_only_when_its_bytes_may_define_one(module, may):
    """A version check's helper must be a def whose body is one `return`:
    another module whose bytes cannot define one so is not analysed
    (codemod/resolve.py `may_return_one`); where that cannot be told, it may."""
    from tfcompat_threads.codemod.resolve import may_return_one

    assert may_return_one(module.encode(), "helper") is may


def test_a_helper_module_whose_def_is_no_one_return_is_not_analysed(tmp_path):
    """The check says the same as before, and the helper's module is never analysed."""
    from tfcompat_threads.codemod import engine
    from tfcompat_threads.codemod.project import Project

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "layers.py").write_text("import tensorflow as tf\n\ndef is_xla():\n    ctx = tf.get_default_graph()\n"
                                        "    return ctx is None\n\ndef is_tf1():\n    return tf.__version__[0] == '1'\n")
    main = tmp_path / "main.py"
    main.write_text("import tensorflow as tf\nimport layers\n\nif layers.is_xla():\n    s = tf.Session()\n")
    found = engine.run(main.read_bytes(), "native", str(main), fix=False)
    assert [f.start.line for f in found.findings if f.code == "TFT002"] == [5], found.findings
    project = Project.of(str(main))
    assert project.analysed() == []
    main.write_text(main.read_text() + "if layers.is_tf1():\n    t = tf.Session()\n")
    project.begin()
    found = engine.run(main.read_bytes(), "native", str(main), fix=False)
    assert [f.start.line for f in found.findings if f.code == "TFT002"] == [5], found.findings  # not 7: TF1 only
    assert project.analysed() == [(tmp_path / "layers.py").resolve()]  # for is_tf1, the one-return helper
