"""TFT004 enable-eager-with-config."""

from __future__ import annotations

from .. import symbols as sym
from ..sinks import eager_config
from ..findings import ERROR, Cover
from . import Example, Rule


class EnableEagerWithConfig(Rule):
    code = "TFT004"
    name = "enable-eager-with-config"
    severity = ERROR
    summary = "enable_eager_execution(config=...): on TF2 the config is ignored."
    what = (
        "Finds `tf.enable_eager_execution(config=...)` (or the config as first argument) whose config also goes "
        "elsewhere; when that call is all the config reaches, config-only-session reports it, with a fix."
    )
    why = (
        "On TensorFlow 2 eager execution is already on, and `tf.compat.v1.enable_eager_execution` ignores its "
        "config: the thread and placement settings silently do nothing."
    )
    example = """\
config = tf.ConfigProto(intra_op_parallelism_threads=2)
tf.enable_eager_execution(config=config)
"""
    use_instead = """\
tf.config.threading.set_intra_op_parallelism_threads(2)
"""
    fix_safety = "No automatic fix here: the config is used elsewhere too."
    valid = ("import tensorflow as tf\ntf.compat.v1.enable_eager_execution()\n",)
    invalid = (Example("import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto()\n"
                       "tf.compat.v1.enable_eager_execution(config=config)\n"
                       "tf.compat.v1.Session(config=config).run(op)\n"),)

    def check(self, context):
        for call, symbol in context.analysis.calls:
            if symbol.name != sym.ENABLE_EAGER:
                continue
            if eager_config(call) is not None:
                unit = context.unit_calls.get(call)  # config-only: config-only-session has its fix
                yield context.finding(
                    self.code,
                    call,
                    "enable_eager_execution(config=...) ignores its config on TF2 (eager is already on)",
                    help="call tfcompat_threads.configure(config) before the first op, or make the TF2 calls "
                    "(tf.config.threading ...) there",
                    cover=Cover((context.unit_key(unit),), "reported") if unit is not None else None,
                )


RULE = EnableEagerWithConfig()
