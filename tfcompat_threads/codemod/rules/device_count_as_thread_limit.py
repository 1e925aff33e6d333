"""TFT009 device-count-as-thread-limit."""

from __future__ import annotations

from ..findings import WARNING, Cover
from . import Example, Rule


class DeviceCountAsThreadLimit(Rule):
    code = "TFT009"
    name = "device-count-as-thread-limit"
    severity = WARNING
    summary = "device_count={'CPU': N} with N > 1, which makes N CPU devices and limits no thread."
    what = "Finds `device_count={'CPU': N}` (or `config.device_count['CPU'] = N`) with a literal N greater than 1."
    why = (
        "A popular answer recommends it as a thread setting, but it makes N logical CPU devices for "
        "placement; the work still runs on the intra-op and inter-op pools, whose sizes it does not touch."
    )
    example = """\
config = tf.ConfigProto(device_count={"CPU": 4})
"""
    use_instead = """\
config = tf.ConfigProto(intra_op_parallelism_threads=4, inter_op_parallelism_threads=1)
# TF2: tf.config.threading.set_intra_op_parallelism_threads(4)
"""
    fix_safety = "No automatic fix: whether several CPU devices were wanted is not known."
    valid = (
        "import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto(device_count={'CPU': 1, 'GPU': 0})\n",
        "import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=4)\n",
    )
    invalid = (Example("import tensorflow as tf\nconfig = tf.ConfigProto(device_count={'CPU': 4})\n"
                       "with tf.Session(config=config) as sess:\n    sess.run(op)\n"),)

    def check(self, context):
        for unit in context.analysis.units:
            # a config-only session's native fix writes the TF2 call, which says what it does
            key = context.unit_key(unit) if unit in context.plans and context.target == "native" else None
            cover = Cover((key,), "fixed") if key else None
            for field_set in unit.field_sets:
                for field in field_set.fields:
                    count = context.analysis.literal(field.value) if field.path == "device_count.CPU" else None
                    if type(count) is int and count > 1:
                        yield context.finding(
                            self.code,
                            field.value,
                            f"device_count CPU = {count} makes {count} CPU devices; it does not limit threads",
                            help="to size the thread pools, set intra_op_parallelism_threads / "
                            "inter_op_parallelism_threads (TF2: tf.config.threading); `tfcompat-threads probe` "
                            "shows the pools a setting makes",
                            cover=cover,
                        )


RULE = DeviceCountAsThreadLimit()
