"""TFT007 estimator-session-config."""

from __future__ import annotations

from .. import symbols as sym
from ..guards import contrib_import
from ..findings import ERROR
from . import Example, Rule


class EstimatorSessionConfig(Rule):
    code = "TFT007"
    name = "estimator-session-config"
    severity = ERROR
    summary = "tf.estimator.RunConfig(session_config=...): tf.estimator is gone in TF 2.16."
    what = ("Finds `tf.estimator.RunConfig(session_config=...)`, and `.replace(session_config=...)` on a "
            "RunConfig (made there or bound to a name).")
    why = "tf.estimator is gone in TensorFlow 2.16; until then its session_config is honoured."
    example = """\
run_config = tf.estimator.RunConfig(session_config=config)
"""
    use_instead = """\
# keep TensorFlow <= 2.15 for Estimator code, or port the model to Keras
"""
    fix_safety = "No automatic fix."
    valid = ()
    invalid = (
        Example("import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto()\n"
                "run_config = tf.estimator.RunConfig(session_config=config)\n"),
        # a path TensorFlow re-exports the TPU RunConfig from; contrib: TF 1.x only, and said so
        Example("import tensorflow as tf\nfrom tensorflow.contrib.tpu.python.tpu import tpu_config\n\n"
                "config = tpu_config.RunConfig(session_config=tf.ConfigProto(allow_soft_placement=True))\n"),
        Example("import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
                "run_config = tf.estimator.RunConfig(model_dir='m')\n"
                "run_config = run_config.replace(session_config=config)\n"),
    )

    def check(self, context):
        analysis = context.analysis
        contrib = contrib_import(analysis)
        # each RunConfig call with the public name of what it calls ("" for a .replace())
        calls = {call: symbol.name for call, symbol in analysis.calls if symbol.name in sym.ESTIMATOR_RUN_CONFIGS}
        if calls and "replace" in context.source.text:
            calls.update((node, "") for node in analysis.index.calls_named("replace")
                         if analysis.run_config_replace(node))
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            if any(k.arg == "session_config" for k in call.keywords):
                if contrib is not None or calls[call].startswith("contrib."):
                    where = f" (imported at line {contrib.lineno})" if contrib is not None else ""
                    yield context.finding(
                        self.code,
                        call,
                        f"tf.contrib{where} is gone since TF 2.0: this code runs on TF 1.x only, where "
                        "RunConfig(session_config=...) is honoured",
                        help="nothing to change while it runs on TF 1.x; for TF 2, port it off tf.contrib first "
                             "(TPUEstimator: tf.compat.v1.estimator.tpu, up to TF 2.15) or to Keras",
                    )
                    continue
                yield context.finding(
                    self.code,
                    call,
                    "tf.estimator is gone in TF 2.16; until then RunConfig(session_config=...) is honoured",
                    help="pin tensorflow<2.16 for this Estimator code, or port the model to Keras",
                )


RULE = EstimatorSessionConfig()
