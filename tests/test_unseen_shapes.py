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
