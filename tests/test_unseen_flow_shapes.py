"""Shapes met on issue 28's fifth corpus of unseen repositories whose fix
belongs to the config flow (codemod/flow.py): each test says what the program
needs (each failed before the flow did it).

- a config whose sub-messages are reached by getattr() (StyleGAN's and
  Progressive GAN's create_session: `obj = config; for field in
  fields[:-1]: obj = getattr(obj, field)`, then `setattr(obj, last, value)`
  for a dict of `{'gpu_options.allow_growth': True}`) is not passed to an
  unknown function: getattr() reads one of its fields, as `config.gpu_options`
  does. TFT005 says "it is passed to getattr(); its settings may do nothing"
  of a config that reaches a graph session.
- an attribute rebound from its own old value (amdrl's model: `self.config =
  params.get('config')`, then `self.config = tf.ConfigProto(**self.config)`):
  the read on the right is the dict, evaluated before the store, not the
  ConfigProto. TFT005 says "it is passed to tf.ConfigProto()" of a config
  given to MonitoredTrainingSession. (A local name in the same shape is
  already followed: reaching definitions tell its reads apart.)
"""

from __future__ import annotations

from tfcompat_threads.codemod import transform


def codes(source: bytes, target: str = "native") -> list[str]:
    return [f"{f.code} {f.start.line}" for f in transform(source, target).findings]


GRAPH_SESSION = (b"x = tf.placeholder(tf.float32)\n"
                 b"with tf.Session(config=config) as sess:\n"
                 b"    sess.run(x * 2, {x: 1.0})\n")


def test_a_field_read_by_getattr_leaves_the_config_followed():
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto()\n"
              b"options = getattr(config, 'gpu_options')\n"
              b"options.allow_growth = True\n" + GRAPH_SESSION)
    assert not [c for c in codes(source) if c.startswith("TFT005")]


def test_a_config_filled_by_a_getattr_walk_of_dotted_keys_is_followed_to_its_graph_session():
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto()\n"
              b"for key, value in {'gpu_options.allow_growth': True}.items():\n"
              b"    fields = key.split('.')\n"
              b"    obj = config\n"
              b"    for field in fields[:-1]:\n"
              b"        obj = getattr(obj, field)\n"
              b"    setattr(obj, fields[-1], value)\n" + GRAPH_SESSION)
    assert not [c for c in codes(source) if c.startswith("TFT005")]
    # a computed name read from a config that leaves the module is still a read of the config,
    # and the config is still passed on: what is said of it does not change
    outside = source.replace(GRAPH_SESSION, b"setup(config)\n")
    assert [c for c in codes(outside) if c.startswith("TFT005")]
    # the fields getattr() reaches are not known: a config-only session keeps the loop that sets them
    keras = source.replace(GRAPH_SESSION, b"tf.keras.backend.set_session(tf.Session(config=config))\n")
    assert b"setattr(obj, fields[-1], value)" in transform(keras, "native").source


REBOUND = (b"import tensorflow as tf\n"
           b"class Model:\n"
           b"    def build(self, params):\n"
           b"        self.config = params.get('config')\n"
           b"        if self.config is not None:\n"
           b"            self.config = tf.ConfigProto(**self.config)\n"
           b"        x = tf.placeholder(tf.float32)\n"
           b"        with tf.train.MonitoredTrainingSession(config=self.config) as sess:\n"
           b"            sess.run(x * 2, {x: 1.0})\n")


def test_an_attribute_rebound_from_its_old_value_is_not_a_read_of_the_new_config():
    assert not [c for c in codes(REBOUND) if c.startswith("TFT005")]
    local = (b"import tensorflow as tf\n"
             b"def build(params):\n"
             b"    config = params.get('config')\n"
             b"    if config is not None:\n"
             b"        config = tf.ConfigProto(**config)\n"
             b"    x = tf.placeholder(tf.float32)\n"
             b"    with tf.train.MonitoredTrainingSession(config=config) as sess:\n"
             b"        sess.run(x * 2, {x: 1.0})\n")
    assert not [c for c in codes(local) if c.startswith("TFT005")]
    # a read of the new value elsewhere in the class is still followed
    passed_on = REBOUND + b"    def export(self):\n        setup(self.config)\n"
    assert [c for c in codes(passed_on) if c.startswith("TFT005")]
