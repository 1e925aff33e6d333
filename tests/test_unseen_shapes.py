"""Shapes first met on repositories the project had never seen (issue 21),
checked where a fixture folder would say less."""

from __future__ import annotations

from tfcompat_threads.codemod import transform


def codes(source: bytes, target: str = "native") -> list[str]:
    return [f"{f.code} {f.start.line}" for f in transform(source, target).findings]


def test_tf2_enabled_decides_nothing_in_a_program_that_turns_tf2_behaviour_off():
    """After disable_v2_behavior() tf2.enabled() is False on TF2 too: its
    else branch runs there, and is analysed."""
    source = (b"import tensorflow as tf\nfrom tensorflow.python import tf2\n"
              b"tf.compat.v1.disable_v2_behavior()\n"
              b"if not tf2.enabled():\n"
              b"    sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=2))\n"
              b"    sess.run(tf.constant(1))\n")
    assert "TFT002 5" in codes(source)


def test_an_unfollowed_config_of_graph_only_fields_is_not_sent_to_configure():
    """configure() cannot apply graph-only fields: TFT005's help says what can be done instead."""
    source = (b"import tensorflow as tf\n"
              b"config = tf.compat.v1.ConfigProto(use_per_session_threads=True)\n"
              b"config.graph_options.rewrite_options.constant_folding = 2\n"
              b"setup(config)\n")
    [finding] = [f for f in transform(source, "native").findings if f.code == "TFT005"]
    assert "configure(" not in finding.help.replace("configure() cannot", "")
    assert "use_per_session_threads, graph_options.rewrite_options.constant_folding" in finding.help
    mixed = source.replace(b"use_per_session_threads=True", b"intra_op_parallelism_threads=2")
    [finding] = [f for f in transform(mixed, "native").findings if f.code == "TFT005"]
    assert "tfcompat_threads.configure(config)" in finding.help
