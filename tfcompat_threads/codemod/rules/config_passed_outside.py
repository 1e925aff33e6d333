"""TFT011 config-passed-outside (off by default)."""

from __future__ import annotations

from ..units import EXTERNAL
from ..findings import WARNING
from . import Example, Rule


class ConfigPassedOutside(Rule):
    code = "TFT011"
    name = "config-passed-outside"
    severity = WARNING
    default = False
    summary = "A ConfigProto that goes to code outside the repository (off by default: select it to see them)."
    what = (
        "Finds a `ConfigProto` whose flow leaves the repository: it is passed to a function or object of a module "
        "the repository does not have (not TensorFlow, Keras or the standard library), directly or in a dict or "
        "list. Off by default: `--extend-select TFT011` (or `extend-select` in the settings) turns it on."
    )
    why = (
        "What that code does with the config is not in the repository, so nothing here can say whether its "
        "settings still take effect on TF2; most such code (a training library, a logger) builds graph sessions "
        "or only records the config, so the warning is on request."
    )
    example = """\
from some_library import train

config = tf.ConfigProto(intra_op_parallelism_threads=2)
train(model, session_config=config)
"""
    use_instead = """\
# if that library runs eager code (TF2), apply the settings process-wide
tfcompat_threads.configure(config)
train(model, session_config=config)
"""
    fix_safety = "No automatic fix: what the other code does with the config is not known."
    valid = (
        # another library's ConfigProto under the same name: what goes to that library is not TensorFlow's
        "import intel_extension_for_tensorflow as itex\nimport tensorflow as tf\n"
        "config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
        "sess = tf.compat.v1.Session(config=config)\n"
        "config = itex.ConfigProto(graph_options=itex.GraphOptions(auto_mixed_precision=itex.ON))\n"
        "itex.set_backend('cpu', config)\n",
    )
    invalid = (Example("import tensorflow as tf\nfrom some_library import train\n"
                       "config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
                       "train(session_config=config)\n"),)

    def check(self, context):
        for unit in context.analysis.units:
            if unit.status != EXTERNAL:
                continue
            yield context.finding(
                self.code,
                unit.reason_node or unit.config,
                f"this ConfigProto goes outside the repository: {unit.reason}; whether its settings take effect "
                "on TF2 depends on that code",
                help="if that code runs eager TF2 ops, tfcompat_threads.configure(config) applies the settings "
                "process-wide",
            )


RULE = ConfigPassedOutside()
