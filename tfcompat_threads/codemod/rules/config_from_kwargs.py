"""TFT006 config-from-kwargs."""

from __future__ import annotations

from .. import symbols as sym
from ..findings import WARNING
from . import Rule


class ConfigFromKwargs(Rule):
    code = "TFT006"
    name = "config-from-kwargs"
    severity = WARNING
    summary = "ConfigProto(**kwargs): the fields are only known at run time."
    what = "Finds `ConfigProto(**kwargs)`."
    why = "No rewrite can tell which TF2 calls its fields need."
    example = """\
config = tf.ConfigProto(**session_kwargs)
"""
    use_instead = """\
tfcompat_threads.configure(tfcompat_threads.ConfigProto(**session_kwargs))
"""
    fix_safety = "No automatic fix in the native target; the shim target keeps the fields working."
    valid = ()
    invalid = ()

    def check(self, context):
        for call, symbol in context.analysis.calls:
            if symbol.name == sym.CONFIG and any(k.arg is None for k in call.keywords):
                yield context.finding(
                    self.code,
                    call,
                    "ConfigProto(**kwargs): the fields are only known at run time; "
                    "tfcompat_threads.configure() applies them",
                    help="use `--target shim`, or call tfcompat_threads.configure(**kwargs) where the session "
                    "was made",
                )


RULE = ConfigFromKwargs()
