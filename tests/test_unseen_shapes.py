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


# -- issue 28: a fifth corpus (20 repositories first run here) ---------------------------------


NOTEBOOK_SESSION = (b"import tensorflow as tf\n"
                    b"gpu_options = tf.GPUOptions(allow_growth=True)\n"
                    b"config = tf.ConfigProto(gpu_options=gpu_options)\n"
                    b"isess = tf.InteractiveSession(config=config)\n"
                    b"x = tf.placeholder(tf.float32)\n"
                    b"reuse = True if 'net' in locals() else None\n"
                    b"isess.run(x * 2, {x: 1.0})\n")


def test_a_namespace_asked_for_another_key_reads_no_config():
    """A notebook's `reuse = True if 'ssd_net' in locals() else None` (SSD's
    demo notebook) asks for one key: it cannot read `gpu_options`, so the
    config is followed to its session (TFT005 said it may do nothing)."""
    for asked in (b"'net' in locals()", b"'net' not in vars()", b"'net' in globals()", b"locals()['net']"):
        source = NOTEBOOK_SESSION.replace(b"'net' in locals()", asked)
        assert not [c for c in codes(source) if c.startswith("TFT005")], asked
    same_key = NOTEBOOK_SESSION.replace(b"'net'", b"'gpu_options'")  # it tells whether the name is bound
    assert "TFT005 3" in codes(same_key)
    computed = NOTEBOOK_SESSION.replace(b"'net' in locals()", b"locals()[key]")
    assert "TFT005 3" in codes(computed)


def test_a_config_given_to_a_local_server_is_followed_like_one_given_to_a_server():
    """`tf.train.Server.create_local_server(config=...)` makes a Server with
    that config (amdrl's worker, when it has no cluster): the sessions on its
    target get it, as for `tf.train.Server(cluster, config=...)`. TFT005 said
    it may do nothing."""
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto(intra_op_parallelism_threads=1)\n"
              b"server = tf.train.Server.create_local_server(config=config)\n"
              b"x = tf.placeholder(tf.float32)\n"
              b"with tf.train.MonitoredTrainingSession(master=server.target) as sess:\n"
              b"    sess.run(x * 2, {x: 1.0})\n")
    native = source.replace(b"tf.train.Server", b"tf.distribute.Server")
    for each in (source, native, native.replace(b"tf.ConfigProto", b"tf.compat.v1.ConfigProto")):
        assert not [c for c in codes(each) if c.startswith("TFT005")], each
    result = transform(source, "native")
    assert b"tf.distribute.Server.create_local_server(config=config)" in result.source


def test_a_keras_set_session_whose_config_is_not_followed_is_reported_where_it_raises():
    """A config the flow does not follow (passed to a function of its own,
    filled by getattr as StyleGAN's) whose session goes to Keras'
    set_session: TFT005 says the settings may do nothing, and the set_session
    call, left as it is, raises AttributeError on Keras 3 (TF >= 2.16, either
    spelling). TFT003 names that line too (it was skipped as said by TFT005)."""
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto()\n"
              b"config.gpu_options.allow_growth = True\n"
              b"setup(config)\n"
              b"tf.keras.backend.set_session(tf.Session(config=config))\n")
    found = {f"{f.code} {f.start.line}": f for f in transform(source, "native").findings}
    assert "TFT005 4" in found and "TFT003 5" in found
    assert "its session's config is not followed: it is passed to setup()" in found["TFT003 5"].message
    assert b"tf.keras.backend.set_session(" in transform(source, "native").source  # no fix removes it


# -- issue 28: a sixth corpus (16 repositories first run there) -------------------------------------


def test_a_config_given_to_any_supervisor_session_method_is_followed():
    """BEGAN's trainer: `sv.prepare_or_wait_for_session(config=sess_config)`
    makes the Supervisor's graph session with the config (so do
    SessionManager's wait_for_session and recover_session): TFT005 said its
    settings may do nothing."""
    for method in (b"prepare_or_wait_for_session(config=config)", b"wait_for_session('', config=config)",
                   b"recover_session('', config=config)"):
        source = (b"import tensorflow as tf\n"
                  b"sv = tf.compat.v1.train.Supervisor(logdir='/tmp/x')\n"
                  b"gpu_options = tf.compat.v1.GPUOptions(allow_growth=True)\n"
                  b"config = tf.compat.v1.ConfigProto(allow_soft_placement=True, gpu_options=gpu_options)\n"
                  b"sess = sv." + method + b"\n")
        assert not [c for c in codes(source) if c.startswith("TFT005")], method
        assert [c for c in codes(source.replace(b"sv." + method, b"helper(config)")) if c.startswith("TFT005")]
