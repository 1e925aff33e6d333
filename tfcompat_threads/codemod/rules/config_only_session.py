"""TFT001 config-only-session."""

from __future__ import annotations

from ...options import Applicability
from ..context import SHIM_MODULE
from ..findings import ERROR, EnsureImport, Fix
from .. import symbols as sym
from ..symbols import SHIM_NAMES
from . import Example, Rule


class ConfigOnlySession(Rule):
    code = "TFT001"
    name = "config-only-session"
    severity = ERROR
    summary = "A session made only to carry a ConfigProto (passed to Keras' set_session, or never used)."
    what = (
        "Finds a `Session` / `InteractiveSession` whose only job is to carry a `ConfigProto`: it is passed "
        "to Keras' `set_session`, or never used at all."
    )
    why = (
        "On TensorFlow 2 eager ops never see a session's config: the thread and placement settings silently "
        "do nothing, and the session starts a second inter-op pool. With Keras 3 (TF >= 2.16) `set_session` "
        "does not exist at all."
    )
    example = """\
config = tf.ConfigProto(intra_op_parallelism_threads=2)
K.set_session(tf.Session(config=config))
"""
    use_instead = """\
tf.config.threading.set_intra_op_parallelism_threads(2)
"""
    fixable = "yes (safe or unsafe)"
    fix_safety = (
        "native: each field becomes its TF2 call where it was set, and the session and `set_session` go. "
        "Unsafe when a field has no TF2 call (it is left as a comment) or a mapping differs in a documented "
        "way; then applied only with `--unsafe-fixes`. "
        "No native fix when its thread settings come after the first op (TF2 refuses them there), nor "
        "when the oldest TensorFlow the code must run on (`--tf-version`) lacks a call it needs "
        "(`tf.config.threading` before 1.14). Where the native fix is withheld or not applied, the "
        "unit's TF1 names still get their `tf.compat.v1` spelling (tf1-only-name), so the program runs "
        "on TF2. "
        "shim: always safe, `tfcompat_threads` applies the config process-wide. "
        "A module-level session or config that something else may read is never deleted: another module "
        "(`from m import sess`, `m.sess`, `from m import *`), a notebook, `__all__`, a dynamic lookup "
        "(`eval`, `exec`, `globals()`, `vars()`, `sys.modules`) or a magic's code; its readers are followed "
        "where they can be (one that runs graphs with it keeps it), else the finding names the reader and "
        "has no native fix."
    )
    valid = (
        "import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(2)\n",
        "import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
        "with tf.compat.v1.Session(config=config) as sess:\n    sess.run(op)\n",
    )
    invalid = (
        Example(
            "import tensorflow as tf\nfrom keras import backend as K\n\n"
            "config = tf.ConfigProto(intra_op_parallelism_threads=2)\nK.set_session(tf.Session(config=config))\n",
            native="import tensorflow as tf\n\ntf.config.threading.set_intra_op_parallelism_threads(2)\n",
            shim="import tfcompat_threads\n\n"
            "config = tfcompat_threads.ConfigProto(intra_op_parallelism_threads=2)\n"
            "tfcompat_threads.set_session(tfcompat_threads.Session(config=config))\n",
        ),
    )

    def check(self, context):
        for unit in context.config_only_units:
            plan = context.plans[unit]
            first = unit.sessions[0] if unit.sessions else unit.config
            made = (f"{context.analysis.symbol(first.func).name} made only to carry its config" if unit.sessions
                    else "this config only reaches sessions that carry it")
            help = ""
            if unit.elsewhere:
                fix = None
                help = (f"its flow goes on at {', '.join(unit.elsewhere)}: fix the session there (or call "
                        "tfcompat_threads.configure(config) where the session is made), then remove this one")
            elif unit.readers and context.target == "native":
                fix = None
                name, place, how = unit.readers[0]
                help = (f"the fix would delete `{name}`, which is read at {place} ({how}): keep it, and call "
                        "tfcompat_threads.configure(config) where the session is made, or use `--target shim` "
                        "(it keeps the session)")
            elif context.target == "shim":
                edits = [
                    edit
                    for call in unit.calls
                    if (symbol := context.analysis.symbol(call.func)) is not None and symbol.name in SHIM_NAMES
                    for edit in context.shim_call_edits(call, SHIM_NAMES[symbol.name])
                ]
                edits += [context.configure_edit(call) for call in unit.sessions
                          if context.analysis.symbol(call.func).name == sym.ENABLE_EAGER]
                fix = Fix(Applicability.SAFE, "tfcompat_threads applies the config process-wide",
                          [*edits, EnsureImport(SHIM_MODULE, None)])
            elif plan.left_read:
                fix = None
                name, line = plan.left_read
                help = (f"the fix would delete `{name}`, which line {line} still reads: keep it, and "
                        "call tfcompat_threads.configure(config) where the session is made, or use "
                        "`--target shim` (it keeps the session)")
            elif plan.late:
                fix = None
                op = plan.late[0][1]
                help = (f"its thread settings come after TensorFlow ran an op (line {op.lineno}), where TF2 "
                        "refuses them: move the config above that op, or use `--target shim`")
            elif plan.fields_unknown:
                fix = None
                help = ("its fields come from **kwargs or setattr(), known at run time only: use "
                        "`--target shim` (the shim applies them), or call tfcompat_threads.configure(config) "
                        "where the session was made")
            elif plan.unavailable:
                fix = None
                help = (f"{plan.unavailable}: use `--target shim` (it works on every release), or a newer "
                        "`--tf-version` if that release is no longer run")
            elif plan.tf_missing:
                fix = None
                help = ("no free name for TensorFlow here (`tf` and `tensorflow` are both taken): import "
                        "tensorflow under another name, or use `--target shim`")
            else:
                fix = Fix(plan.applicability, "the TF2 calls, where each field was set", plan.edits,
                          blocked_by=plan.blocked_by)
                if plan.applicability is not Applicability.SAFE:
                    help = (f"the native fix is unsafe ({plan.blocked_by}): review it with `diff --unsafe-fixes`, "
                            "apply it with `fix --unsafe-fixes`, or use `--target shim`")
            yield context.finding(
                self.code,
                first,
                f"{made}: on TF2 its settings do nothing for eager ops",
                fix,
                help=help,
                key=context.unit_key(unit),
            )


RULE = ConfigOnlySession()
