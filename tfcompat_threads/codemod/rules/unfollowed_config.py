"""TFT005 unfollowed-config."""

from __future__ import annotations

from ...options import Action, lookup
from ..units import UNFOLLOWED
from ..findings import WARNING
from . import Example, Rule


class UnfollowedConfig(Rule):
    code = "TFT005"
    name = "unfollowed-config"
    severity = WARNING
    summary = "A ConfigProto whose flow the codemod cannot follow (reassigned, stored, passed somewhere unknown)."
    what = (
        "Finds a `ConfigProto` whose way to its sessions the codemod cannot follow: its name is also bound to "
        "something else, it is stored where its class does not read it, changed in a compound statement, or "
        "passed to a function it does not know (also with `ConfigProto(**kwargs)`)."
    )
    why = "Its sessions may be config-only on TF2 (settings silently lost); no rewrite can tell."
    example = """\
self.config = tf.ConfigProto(intra_op_parallelism_threads=2)
"""
    use_instead = """\
# wherever the config ends: apply it process-wide
tfcompat_threads.configure(self.config)
"""
    fix_safety = "No automatic fix: where the config goes is not known."
    valid = ()
    invalid = (Example("import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto()\nrun(config)\n"),)

    def check(self, context):
        for unit in context.analysis.units:
            if unit.status != UNFOLLOWED:
                continue
            fields = [f.path for fs in unit.field_sets for f in fs.fields]
            if fields and not unit.kwargs and all(_graph_only(path) for path in fields):
                help = (f"its fields ({', '.join(dict.fromkeys(fields))}) are honoured by graph-mode sessions "
                        "only, and configure() cannot apply them: check that it reaches a tf.compat.v1 session "
                        "that runs graphs, or drop it")
            else:
                help = ("check where it goes: if it only reaches Keras' set_session or an unused session, "
                        "tfcompat_threads.configure(config) applies it process-wide")
            yield context.finding(
                self.code,
                unit.reason_node or unit.config,
                f"this ConfigProto is not followed: {unit.reason}; its settings may do nothing on TF2",
                help=help,
            )


def _graph_only(path: str) -> bool:
    option = lookup(path)
    return option is not None and option.action is Action.GRAPH_ONLY


RULE = UnfollowedConfig()
