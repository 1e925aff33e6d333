"""TFT002 tf1-only-name."""

from __future__ import annotations

import ast

from ... import options as opts
from ...options import Applicability
from .. import symbols as sym
from ..context import SHIM_MODULE
from ..findings import ERROR, Cover, EnsureImport, Fix, MoveImport
from ..source import Edit
from . import Example, Rule

# The help where the oldest TensorFlow to run on (tf-version) has no tf.compat.v1.
_KEEP_HELP = "{unavailable}: the code runs there as it is; use `--target shim` to make it run on TF2 too"


class Tf1OnlyName(Rule):
    code = "TFT002"
    name = "tf1-only-name"
    severity = ERROR
    summary = "A TF1 session-config name that TF2 has only under tf.compat.v1 (tf.ConfigProto, tf.Session ...)."
    what = (
        "Finds session-config names that TensorFlow 2 has only under `tf.compat.v1`: `tf.ConfigProto`, "
        "`tf.GPUOptions`, `tf.Session`, `tf.InteractiveSession`, `tf.RunOptions`, "
        "`tf.get_default_session`, the session creators, `tf.train.MonitoredSession` and the session hooks, "
        "`tf.train.Server`, `from tensorflow import ConfigProto` ...: the session API family as TensorFlow's "
        "own rename table (tf_upgrade_v2's) lists it, each renamed as that table renames it "
        "(`tf.train.Server` to `tf.distribute.Server`, the others to `tf.compat.v1`)."
    )
    why = "They raise AttributeError (or ImportError) on TensorFlow 2."
    example = """\
config = tf.ConfigProto(intra_op_parallelism_threads=2)
with tf.Session(config=config) as sess:
    sess.run(train_op)
"""
    use_instead = """\
config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)
with tf.compat.v1.Session(config=config) as sess:
    sess.run(train_op)
"""
    fixable = "yes (safe)"
    fix_safety = (
        "Safe: `tf.compat.v1` has the same objects, and a session that runs graphs honours its config. "
        "With `--target shim` the session API goes to `tfcompat_threads` instead. No fix when the oldest "
        "TensorFlow the code must run on (`--tf-version`) is older than 1.13, which has no `tf.compat.v1`."
    )
    valid = (
        "import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto()\n",
        "def build(tf):\n    return tf.ConfigProto()\n",
    )
    invalid = (
        Example(
            "import tensorflow as tf\nconfig = tf.ConfigProto(inter_op_parallelism_threads=2)\n"
            "with tf.Session(config=config) as sess:\n    sess.run(op)\n",
            native="import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=2)\n"
            "with tf.compat.v1.Session(config=config) as sess:\n    sess.run(op)\n",
        ),
    )

    def check(self, context):
        analysis = context.analysis
        shim_keys: dict[ast.AST, str] = {}
        if context.target == "shim":
            yield from self._shim_calls(context, shim_keys)
        rename_keys: dict[ast.AST, str] = {}
        for node, symbol in analysis.references:
            if symbol.name not in sym.TF1_ONLY or symbol.compat or not symbol.of_tensorflow:
                continue  # `tf.RunOptions.FULL_TRACE`: the inner `tf.RunOptions` is renamed
            if node in shim_keys or type(node) is ast.Name:
                continue  # the shim call says it; a bare name is its `from tensorflow import`
            unit = context.unit_replacing(node)
            cover = Cover((context.unit_key(unit),), "fixed") if unit is not None else None
            key = f"rename@{context.source.start(node)}"
            rename_keys[node] = key
            yield self._rename(context, node, symbol, cover, key)
        yield from self._from_imports(context, {**shim_keys, **rename_keys})

    def _rename(self, context, node, symbol, cover, key):
        target = renamed(symbol.name, context.tf_version)
        if target is None:
            return context.finding(
                self.code, node, f"{context.code(node)} does not exist on TF2", None,
                help=_KEEP_HELP.format(unavailable=context.unavailable("compat.v1")), key=key, cover=cover)
        root = node
        while type(root) is ast.Attribute:
            root = root.value
        source = context.source
        qnames = context.analysis.qnames(root)
        if len(qnames) == 1 and qnames <= sym.TF_MODULES:
            alias = context.code(root)
            edits = [Edit(source.end(root), source.end(node), f".{target}")]
        else:
            found = context.tf_alias(context.analysis.statement_of(node))
            if found is None:
                return context.finding(
                    self.code, node, f"{context.code(node)} does not exist on TF2", None,
                    help="no free name for TensorFlow here (`tf` and `tensorflow` are both taken): "
                    f"write tensorflow.{target} by hand", key=key, cover=cover)
            alias, needed = found
            edits = [Edit(source.start(node), source.end(node), f"{alias}.{target}")]
            if needed is not None:
                edits.append(needed)
        new = f"{alias}.{target}"
        edits += context.realign(node, len(new) - len(context.code(node)))
        if symbol.name in sym.KERAS2_ONLY:
            fix = Fix(Applicability.UNSAFE, f"rename to {new}", edits,
                      blocked_by=f"{new} exists only with Keras 2 (TF <= 2.15, or tf-keras)")
            help = (f"{new} works on TF <= 2.15 only (Keras 2): apply it with `fix --unsafe-fixes` if you keep "
                    "Keras 2 (tf-keras, TF_USE_LEGACY_KERAS=1), or port this code to TF2")
        else:
            fix, help = Fix(Applicability.SAFE, f"rename to {new}", edits), ""
        return context.finding(
            self.code, node, f"{context.code(node)} does not exist on TF2 (fix: {new})", fix, help=help,
            key=key, cover=cover)

    def _shim_calls(self, context, keys):
        """Shim target: the TF1 session API goes to tfcompat_threads; calls of a
        config-only unit are its TFT001's fix (reported here only when that
        finding is turned off)."""
        for call, symbol in context.analysis.calls:
            shim_name = sym.SHIM_NAMES.get(symbol.name)
            if shim_name is None:
                continue
            unit = context.unit_calls.get(call)
            plain_tf1 = symbol.of_tensorflow and not symbol.compat
            if unit is not None:
                keys[call.func] = context.unit_key(unit)
            elif plain_tf1:
                keys[call.func] = f"shim@{context.source.start(call)}"
            if not plain_tf1:
                continue  # compat.v1 used as graph code, or multi-backend Keras: left alone
            yield context.finding(
                self.code, call.func,
                f"{context.code(call.func)} does not exist on TF2 (fix: {SHIM_MODULE}.{shim_name})",
                Fix(Applicability.SAFE, f"call {SHIM_MODULE}.{shim_name}",
                    [*context.shim_call_edits(call, shim_name), EnsureImport(SHIM_MODULE, None)]),
                key=f"shim@{context.source.start(call)}",
                cover=Cover((context.unit_key(unit),), "fixed") if unit is not None else None)

    def _from_imports(self, context, edited_keys):
        """`from tensorflow import Session`: the import moves to
        tensorflow.compat.v1, unless every use goes with other fixes (then
        the import goes as unused)."""
        analysis = context.analysis
        for node in analysis.imports:
            if type(node) is not ast.ImportFrom or node.level or node.module != "tensorflow":
                continue
            scope = analysis.scope_of(node)
            for alias in node.names:
                if alias.name not in sym.TF1_ONLY:
                    continue
                bound = alias.asname or alias.name
                references = [n for b in scope.bindings.get(bound, []) if b.node is node for n in b.references]
                if not references:
                    continue
                keys = []
                for reference in references:
                    key = self._covering_key(context, reference, edited_keys)
                    if key is None:
                        keys = None
                        break
                    keys.append(key)
                cover = Cover(tuple(dict.fromkeys(keys)), "fixed") if keys else None
                message = f"`from tensorflow import {alias.name}` fails on TF2"
                unavailable = context.unavailable("compat.v1")
                if unavailable:
                    fix, help = None, _KEEP_HELP.format(unavailable=unavailable)
                else:
                    message += " (fix: import it from tensorflow.compat.v1)"
                    fix, help = Fix(Applicability.SAFE, "import it from tensorflow.compat.v1",
                                    [MoveImport(context.source.start(node), alias.name)]), ""
                yield context.finding(self.code, alias, message, fix, help=help,
                                      key=f"move@{context.source.start(alias)}", cover=cover)

    @staticmethod
    def _covering_key(context, reference, edited_keys):
        """The finding whose fix rewrites the code holding `reference`, if any."""
        node = reference
        while node is not None:
            if node in edited_keys:
                return edited_keys[node]
            node = context.analysis.parents.get(node)
        unit = context.unit_replacing(reference)
        return context.unit_key(unit) if unit is not None else None


def renamed(name: str, tf_version: str | None) -> str | None:
    """What `name` (a key of symbols.TF1_RENAMES) is written as for code that
    must run on `tf_version`: TensorFlow's table's name as that release spells
    it, else its tf.compat.v1 spelling; None when the release has neither."""
    target = sym.TF1_RENAMES[name]
    for key, rest in ((target, ""), ("compat.v1", "." + name)) if target in opts.NAMES else (
            ("compat.v1", target[len("compat.v1"):]),):
        try:
            return opts.spelling(key, tf_version) + rest
        except opts.NoName:
            continue
    return None


RULE = Tf1OnlyName()
