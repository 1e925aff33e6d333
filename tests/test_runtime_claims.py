"""What the rules claim about TensorFlow's runtime, measured on the real
TensorFlow (each case in a process of its own)."""

from __future__ import annotations

import json

import pytest

from tests.tfproc import run
from tfcompat_threads.codemod import symbols as sym

# tf.data calls, each as a rule would see it, and a call that makes it run.
DATA_CALLS = {
    "data.Options": "tf.data.Options()",
    "data.experimental.enable_debug_mode": "tf.data.experimental.enable_debug_mode()",
    "data.experimental.ThreadingOptions": "tf.data.experimental.ThreadingOptions()",
    "data.Dataset.range": "tf.data.Dataset.range(3)",
    "data.Dataset.from_tensor_slices": "tf.data.Dataset.from_tensor_slices([1, 2])",
    "data.Dataset.from_tensors": "tf.data.Dataset.from_tensors([1, 2])",
    **{name: f"tf.{name}(['missing.file']{', 4' if 'Fixed' in name else ''})" for name in sym.DATASET_SOURCES},
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(DATA_CALLS))
def test_a_tf_data_call_counts_as_a_first_op_when_it_starts_the_runtime(name):
    """TFT008 says a thread setter after a call raises: it does after the
    calls `starts_runtime` names, and not after the others."""
    result = run(f"""
        import tensorflow as tf
        {DATA_CALLS[name]}
        try:
            tf.config.threading.set_inter_op_parallelism_threads(3)
            raised = False
        except RuntimeError:
            raised = True
        emit(raised=raised)
    """)
    symbol = sym.Symbol(name, False, "tensorflow." + name)
    assert result["raised"] == sym.starts_runtime(symbol), json.dumps(result)[:300]


SET_SESSION_SPELLINGS = ("keras.backend.set_session", "tensorflow.keras.backend.set_session",
                         "tensorflow.compat.v1.keras.backend.set_session", sym.LEGACY_KERAS_SET_SESSION)


@pytest.mark.tf
def test_the_set_session_spellings_that_exist_are_those_the_rules_say():
    """TFT003's docs (symbols.SET_SESSION_EXISTING): on TF 2.15 / keras 2.15
    only tf.compat.v1's set_session exists, with Keras 3 none. Checked on
    the TensorFlow this test runs on (a row of scripts/test's matrix)."""
    result = run(f"""
        import importlib, tensorflow as tf
        def exists(name):
            module, _, attribute = name.rpartition(".")
            try:
                return hasattr(importlib.import_module(module), attribute)
            except ImportError:
                node = tf
                for part in name.split(".")[1:]:
                    node = getattr(node, part, None)
                return node is not None
        import keras
        emit(tf=tf.__version__, keras=keras.__version__, found=[n for n in {SET_SESSION_SPELLINGS!r} if exists(n)])
    """)
    release = tuple(int(part) for part in result["tf"].split(".")[:2])
    if release >= (2, 16):
        assert set(result["found"]) == sym.SET_SESSION_EXISTING["keras 3 (TF >= 2.16)"], result
    elif release == (2, 15):
        assert set(result["found"]) == sym.SET_SESSION_EXISTING["keras 2.15 (TF 2.15)"], result
    else:  # older: tf.compat.v1's spelling, what a rename writes, is there
        assert "tensorflow.compat.v1.keras.backend.set_session" in result["found"], result
