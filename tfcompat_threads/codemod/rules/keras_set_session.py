"""TFT003 keras-set-session."""

from __future__ import annotations

from .. import symbols as sym
from ..units import UNFOLLOWED
from ..findings import ERROR, Cover
from . import Example, Rule


class KerasSetSession(Rule):
    code = "TFT003"
    name = "keras-set-session"
    severity = ERROR
    summary = "Keras set_session with a session that runs graphs or is made elsewhere."
    what = (
        "Finds Keras' `set_session` (every spelling: `K.set_session`, `keras.backend.set_session`, "
        "`tf.compat.v1.keras.backend.set_session` ...) with a session that is not config-only in this "
        "file: it runs graphs, it is made somewhere the codemod does not follow, or its config is not "
        "followed (TFT005 says what the config may lose; this, that the call itself raises on Keras 3)."
    )
    why = (
        "Keras 3 (TensorFlow >= 2.16) has no `set_session` anywhere: the call raises AttributeError. On "
        "TF 2.15 (keras 2.15) only `tf.compat.v1.keras.backend.set_session` exists (`keras.backend."
        "set_session` and `tf.keras.backend.set_session` raise AttributeError there too), and only "
        "graph-mode Keras uses the session it sets."
    )
    example = """\
sess = make_session()          # defined in another module
K.set_session(sess)
"""
    use_instead = """\
# TF2: configure the process instead of a session
tf.config.threading.set_intra_op_parallelism_threads(2)
# or keep Keras 2 for graph-mode code: pip install tf-keras; TF_USE_LEGACY_KERAS=1
"""
    fix_safety = "No automatic fix: whether the session matters depends on code outside this call."
    valid = ("from mylib.backend import set_session\nset_session(object())\n",)
    invalid = (Example("import tensorflow as tf\nfrom keras import backend as K\n"
                       "sess = tf.compat.v1.Session()\nK.set_session(sess)\nsess.run(op)\n"),)

    def check(self, context):
        reached = {call: unit for unit in context.analysis.units for call in unit.set_session_calls}
        for call, symbol in context.analysis.calls:
            if symbol.name != sym.SET_SESSION or symbol.shim:
                continue  # the shim's set_session works on Keras 3
            unit = context.unit_calls.get(call)
            if unit is not None:
                cover = Cover((context.unit_key(unit),), "reported")
            elif context.target == "shim" and symbol.of_tensorflow and not symbol.compat:
                cover = Cover((f"shim@{context.source.start(call)}",), "fixed")  # it becomes the shim's
            else:
                cover = None
            why = reached[call].reason if call in reached and reached[call].reason else \
                _session_source(context, call)
            if call in reached and reached[call].status == UNFOLLOWED:  # unfollowed-config says what it may lose
                why = f"its session's config is not followed: {why}"
            if symbol.qualified == sym.LEGACY_KERAS_SET_SESSION:
                message = (f"{context.code(call.func)}(): this is TensorFlow's internal copy of Keras 2 "
                           "(tensorflow.python.keras), which still has set_session, but from TF 2.6 on tf.keras "
                           "models (Keras 3 from 2.16) never use the session it sets, and no fix here can remove "
                           f"this one ({why})")
            else:
                message = (f"{context.code(call.func)}(): Keras 3 (TF >= 2.16) has no set_session, and no fix "
                           f"here can remove this one ({why})")
            yield context.finding(
                self.code,
                call,
                message,
                help="keep tf-keras (pip install tf-keras; TF_USE_LEGACY_KERAS=1) for this graph-mode code, "
                "or configure the process with tf.config.threading instead of a session",
                cover=cover,
            )


def _session_source(context, call) -> str:
    """Where the session given to set_session comes from, as the source says it."""
    import ast

    argument = call.args[0] if call.args else None
    if type(argument) is ast.Call:
        return f"its session comes from {context.code(argument.func)}()"
    if type(argument) is ast.Name:
        for binding in context.analysis.scope_of(argument).visible(argument.id):
            holder = context.analysis.parents.get(binding.node)
            if type(holder) is ast.withitem and type(holder.context_expr) is ast.Call:
                return f"its session comes from {context.code(holder.context_expr.func)}()"
            if type(holder) is ast.Assign and type(holder.value) is ast.Call:
                return f"its session comes from {context.code(holder.value.func)}()"
            if binding.kind == "param":
                return f"its session is the parameter `{argument.id}`"
    return "its session is made elsewhere"


RULE = KerasSetSession()
