"""TFT008 thread-setting-after-first-op."""

from __future__ import annotations

import ast

from ...options import THREAD_FIELDS
from .. import symbols as sym
from ..findings import ERROR, Cover
from . import Example, Rule


class ThreadSettingAfterFirstOp(Rule):
    code = "TFT008"
    name = "thread-setting-after-first-op"
    severity = ERROR
    summary = "A thread setting that comes after TensorFlow already ran an op."
    what = (
        "Finds a `tf.config.threading` setter, or a thread field of a config-only session (which the fix "
        "would turn into one), after a call that surely starts TensorFlow's runtime in the same "
        "straight-line code: an op, or a tf.data call that makes a dataset (`tf.data.Options()` starts "
        "nothing). A call inside an earlier `if`, loop or `except` may not have run: not reported."
    )
    why = "The pools are fixed by then: on TF2 the setter raises RuntimeError."
    example = """\
x = tf.constant([1.0])
tf.config.threading.set_intra_op_parallelism_threads(2)
"""
    use_instead = """\
tf.config.threading.set_intra_op_parallelism_threads(2)
x = tf.constant([1.0])
"""
    fix_safety = "No automatic fix: moving the setting may change what runs before it."
    valid = (
        "import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(2)\nx = tf.constant(1)\n",
        # an op in an earlier `if` may not have run; tf.data.Options() and the debug mode start nothing
        "import tensorflow as tf\ndef main(debug):\n    if debug:\n        tf.data.experimental.enable_debug_mode()\n"
        "        x = tf.constant(1)\n    options = tf.data.Options()\n"
        "    tf.config.threading.set_inter_op_parallelism_threads(2)\n",
    )
    invalid = (
        Example("import tensorflow as tf\nx = tf.constant([1.0])\n"
                "tf.config.threading.set_intra_op_parallelism_threads(2)\n"),
        Example("import tensorflow as tf\nif True:\n    data = tf.data.Dataset.range(3)\n"
                "    tf.config.threading.set_intra_op_parallelism_threads(2)\n"),
    )

    def check(self, context):
        help = ("move the thread settings before the first op, or set TF_NUM_INTRAOP_THREADS / "
                "TF_NUM_INTEROP_THREADS before the process starts")
        analysis = context.analysis
        for call, symbol in analysis.calls:
            if symbol.name in sym.THREAD_SETTERS and (late := analysis.first_op_before(call)):
                yield context.finding(
                    self.code,
                    call,
                    f"{symbol.name.rsplit('.', 1)[1]}() after TensorFlow ran an op "
                    f"(line {late.lineno}): it raises RuntimeError on TF2",
                    help=help,
                )
        for unit in context.config_only_units:
            # the shim applies the config with on_conflict="warn": it says so at run time
            cover = Cover((context.unit_key(unit),), "fixed") if context.target == "shim" else None
            for field_set, op in context.plans[unit].late:
                for field in field_set.fields:  # one finding per setting the fix would write
                    if field.path not in THREAD_FIELDS:
                        continue
                    yield context.finding(
                        self.code,
                        field.carrier if isinstance(field.carrier, ast.keyword) else field_set.node,
                        f"{field.path} is set after TensorFlow ran an op (line {op.lineno}): on TF2 the pools "
                        "are fixed by then and setting it raises",
                        help=help,
                        cover=cover,
                    )


RULE = ThreadSettingAfterFirstOp()
