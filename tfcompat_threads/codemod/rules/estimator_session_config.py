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
    what = "Finds `tf.estimator.RunConfig(session_config=...)`."
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
    )

    def check(self, context):
        contrib = contrib_import(context.analysis)
        for call, symbol in context.analysis.calls:
            if symbol.name in sym.ESTIMATOR_RUN_CONFIGS and any(k.arg == "session_config" for k in call.keywords):
                if contrib is not None or symbol.name.startswith("contrib."):
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
