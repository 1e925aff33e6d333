"""TFT006 unmappable-field."""

from __future__ import annotations

from ... import options as opts
from ..context import UNMAPPABLE_FIELD
from ..findings import WARNING, Cover
from . import Example, Rule


class UnmappableField(Rule):
    code = UNMAPPABLE_FIELD
    name = "unmappable-field"
    severity = WARNING
    summary = "A ConfigProto field of a config-only session that has no TF2 eager equivalent."
    what = (
        "Finds fields such as `operation_timeout_in_ms` or `gpu_options.per_process_gpu_memory_fraction` in "
        "a config that only reaches config-only sessions."
    )
    why = "Nothing in TF2 eager does what it did; dropping it silently changes the program."
    example = """\
config = tf.ConfigProto(operation_timeout_in_ms=60000)
K.set_session(tf.Session(config=config))
"""
    use_instead = """\
# per_process_gpu_memory_fraction: a logical GPU with a memory limit in MB
tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=4096)])
"""
    fix_safety = "No fix of its own; it makes the config-only-session fix unsafe (the field is left as a comment)."
    valid = ()
    invalid = (Example("import tensorflow as tf\nconfig = tf.ConfigProto(operation_timeout_in_ms=1000)\n"
                       "tf.keras.backend.set_session(tf.Session(config=config))\n",
                       targets=("native",)),)  # the shim keeps every field: nothing is dropped

    def check(self, context):
        for unit in context.config_only_units:
            for field_set, path, shown in context.plans[unit].dropped:
                option = opts.lookup(path)
                notes = option.notes if option is not None else "not a known field"
                yield context.finding(
                    self.code,
                    field_set.node,
                    message(shown, notes),
                    help=f"decide what replaces {path} on TF2, then remove it",
                    cover=Cover((context.unit_key(unit),), "fixed"),  # its session's fix drops it, with a comment
                )


def message(shown: str, notes: str) -> str:
    """`shown: no TF2 eager equivalent (notes)`, the notes' own opening
    words not said twice."""
    lead = "no TF2 eager equivalent"
    if notes.lower().startswith(lead.lower()):
        notes = notes[len(lead):].lstrip(";:,. ")
    if notes[:2].istitle():  # "No fraction API": inside the parentheses, as the sentence goes on
        notes = notes[0].lower() + notes[1:]
    return f"{shown}: {lead}" + (f" ({notes.rstrip('.')})" if notes else "")


RULE = UnmappableField()
