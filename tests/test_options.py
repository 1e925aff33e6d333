import ast
from pathlib import Path

import pytest

from tfcompat_threads import options
from tests.tfproc import run

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("option", [o for o in options.OPTIONS if o.native], ids=lambda o: o.field)
def test_native_templates_are_python(option):
    for template in (option.native, *(form.template for form in option.forms)):
        ast.parse(options.example(template))


def test_lookup_resolves_paths_below_graph_only_messages():
    assert options.lookup("graph_options.optimizer_options.opt_level").field == "graph_options"
    assert options.lookup("gpu_options.allow_growth").action == "gpu_memory_growth"
    assert options.lookup("device_count.GPU").field == "device_count.GPU"
    assert options.lookup("device_count.TPU") is None
    assert options.lookup("no_such_field") is None


def test_only_mappable_rows_claim_a_fix():
    for option in options.OPTIONS:
        assert (option.native is None) == (option.applicability is options.Applicability.MANUAL), option.field


@pytest.mark.tf
def test_every_field_of_the_installed_configproto_has_a_row():
    """A TensorFlow release that adds a field fails here until the table has a row."""
    result = run(
        """
        import tensorflow as tf
        v1 = tf.compat.v1
        fields = [f.name for f in v1.ConfigProto.DESCRIPTOR.fields]
        fields += ["gpu_options." + f.name for f in v1.GPUOptions.DESCRIPTOR.fields]
        emit(fields=fields)
        """
    )
    fields = [f for f in result["fields"] if f not in options.NESTED_FIELDS]
    assert fields and [f for f in fields if options.lookup(f) is None] == []
