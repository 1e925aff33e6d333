"""Shapes of issue 28 whose fix belongs to the analysis (codemod/analysis.py,
guards.py, readers.py, scopes.py, engine.py): each test says what the
program needs on TF2, and fails until the analysis does it.

- shape 2: a config-only unit whose native fix is withheld (made in a helper,
  **kwargs, a setting after the first op) keeps its plain TF1 names: its
  TFT002 renames carry Cover((unit,), "reported") and go with the unit's
  finding. A withheld unit must still get the tf.compat.v1 renames.
- shape 3: `tf.Session(**{"config": <ConfigProto>})` with the dict literal in
  place: the "config" entry is the session's config (analysis' keyword
  reading of a session's config, which sees only `config=`).
- shape 4: under --unsafe-fixes the native plan drops `pool = config.
  session_inter_op_thread_pool.add()` and keeps `pool.num_threads = 1`
  (NameError), and writes set_*_parallelism_threads after the first op
  (RuntimeError on TF2); an unsafe fix must keep every binding it leaves read
  and never write a thread setter below an op.
- shape 6: a config filled by setattr() in a loop, given to a graph session
  made the default, is followed (no TFT005).
- shape 12: disable_v2_behavior() in a package's __init__ makes its modules
  graph code, and a config that reaches a session through add_to_collection /
  get_collection is followed (no finding).
"""

from __future__ import annotations

import ast
import builtins
import json
import subprocess
import sys

from tests.tfnames import tensorflow_names
from tfcompat_threads.codemod import symbols, transform


def tf1_names_left(source: bytes) -> set[str]:
    """The TF1-only session names (that die on TF2) a program still reads."""
    return {name for name in tensorflow_names(source)
            if name.removeprefix("tensorflow.") in symbols.TF1_ONLY}


def codes(source: bytes, target: str = "native") -> list[str]:
    return [f"{f.code} {f.start.line}" for f in transform(source, target).findings]


# -- shape 2: a withheld native fix must still leave a program that runs on TF2 --------------

def test_a_session_made_by_a_same_file_helper_is_not_left_with_tf1_names():
    """The native fix of the config-only session is withheld (the helper's
    session is made elsewhere): the renames must still be applied (the
    tf.compat.v1 form), not left for TF2 to die on."""
    source = (b"import tensorflow as tf\n"
              b"def make_session(cfg):\n"
              b"    return tf.Session(config=cfg)\n"
              b"sess = make_session(tf.ConfigProto(intra_op_parallelism_threads=2))\n"
              b"x = tf.ones([2, 2])\n")
    assert tf1_names_left(transform(source, "native").source) == set()


def test_a_config_filled_from_kwargs_is_not_left_with_tf1_names():
    source = (b"import tensorflow as tf\n"
              b"def setup(**opts):\n"
              b"    tf.keras.backend.set_session(tf.Session(config=tf.ConfigProto(**opts)))\n"
              b"setup(intra_op_parallelism_threads=2)\n")
    assert tf1_names_left(transform(source, "native").source) == set()


def test_a_config_set_after_the_first_op_is_not_left_with_tf1_names():
    source = (b"import tensorflow as tf\n"
              b"x = tf.ones([2, 2])\n"
              b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
              b"tf.keras.backend.set_session(tf.Session(config=config))\n")
    assert tf1_names_left(transform(source, "native").source) == set()


# -- shape 1: the session family, renamed whole ------------------------------------------

def test_an_interactive_session_whose_default_session_is_read_is_kept():
    """InteractiveSession makes itself the default session: deleting it as
    config-only would hand `tf.get_default_session()` None instead."""
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto(inter_op_parallelism_threads=1)\n"
              b"sess = tf.InteractiveSession(config=config)\n"
              b"print(tf.get_default_session().sess_str)\n")
    output = transform(source, "native").source
    assert b"sess = tf.compat.v1.InteractiveSession(config=config)" in output, output.decode()
    assert tf1_names_left(output) == set()


# -- shape 3: a literal ** dict in the same scope is followed ---------------------------------

def test_a_literal_double_star_dict_of_the_session_is_followed():
    """`tf.Session(**{"config": ...})`: the dict is literal, the config is
    its "config" entry: its setting must be kept (3 inter-op threads were
    made where 1 was asked)."""
    source = (b"import tensorflow as tf\n"
              b"sess = tf.Session(**{\"config\": tf.ConfigProto(inter_op_parallelism_threads=1)})\n"
              b"x = tf.ones([2, 2])\n")
    result = transform(source, "native")
    assert not [f for f in result.findings if f.code == "TFT005"], result.findings
    assert b"set_inter_op_parallelism_threads(1)" in result.source


def test_a_literal_double_star_dict_given_to_a_helper_binds_its_parameter():
    """`make(**{"config": ...})`: the entry binds the helper's `config`
    parameter, which goes on to a session that runs graphs: the config stays."""
    source = (b"import tensorflow as tf\n"
              b"def make(config):\n"
              b"    return tf.Session(config=config)\n"
              b"sess = make(**{\"config\": tf.ConfigProto(inter_op_parallelism_threads=1)})\n"
              b"sess.run(tf.ones([2, 2]))\n")
    result = transform(source, "native")
    assert [f.code for f in result.findings] == ["TFT002", "TFT002"], result.findings
    assert tf1_names_left(result.source) == set()


# -- shape 4: an unsafe fix never writes code that breaks the program ----------------------

def _bound_and_read(source: bytes) -> tuple[set[str], set[str]]:
    tree = ast.parse(source)
    bound = {n.id for n in ast.walk(tree) if type(n) is ast.Name and type(n.ctx) is ast.Store}
    read = {n.id for n in ast.walk(tree) if type(n) is ast.Name and type(n.ctx) is ast.Load}
    return bound, read


def test_an_unsafe_fix_keeps_the_binding_of_every_name_it_leaves_read():
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto()\n"
              b"pool = config.session_inter_op_thread_pool.add()\n"
              b"pool.num_threads = 1\n"
              b"tf.keras.backend.set_session(tf.Session(config=config))\n")
    output = transform(source, "native", unsafe_fixes=True).source
    bound, read = _bound_and_read(output)
    assert read - bound - set(dir(builtins)) <= {"tf", "tensorflow"}, output.decode()


def test_an_unsafe_fix_writes_no_thread_setter_after_the_first_op():
    """TF2 raises RuntimeError for set_*_parallelism_threads once the runtime
    started (TFT008 says so just above): even --unsafe-fixes must not write it there."""
    source = (b"import tensorflow as tf\n"
              b"x = tf.ones([2, 2])\n"
              b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
              b"tf.keras.backend.set_session(tf.Session(config=config))\n")
    output = transform(source, "native", unsafe_fixes=True).source.decode()
    first_op = output.index("tf.ones(")
    assert "parallelism_threads(" not in output[first_op:], output


def test_no_fix_deletes_a_session_that_a_kept_statement_still_looks_at():
    """`if sess is None:` only looks at the session (it stays config-only),
    but the fix must not delete the name it reads (NameError)."""
    source = (b"import tensorflow as tf\n"
              b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
              b"sess = tf.Session(config=config)\n"
              b"if sess is None:\n"
              b"    print('none')\n")
    for unsafe in (False, True):
        output = transform(source, "native", unsafe_fixes=unsafe).source
        bound, read = _bound_and_read(output)
        assert read - bound - set(dir(builtins)) <= {"tf", "tensorflow"}, output.decode()
        assert tf1_names_left(output) == set()


# -- shape 6: TFT005 noise on graph sessions --------------------------------------------

def test_a_config_filled_by_setattr_for_a_default_graph_session_is_not_called_lost():
    source = (b"import tensorflow as tf\n"
              b"opts = {'intra_op_parallelism_threads': 2}\n"
              b"cfg = tf.compat.v1.ConfigProto()\n"
              b"for k, v in opts.items():\n"
              b"    setattr(cfg, k, v)\n"
              b"g = tf.Graph()\n"
              b"with g.as_default():\n"
              b"    y = tf.compat.v1.placeholder(tf.float32) * 2\n"
              b"    sess = tf.compat.v1.Session(graph=g, config=cfg)\n"
              b"    with sess.as_default():\n"
              b"        sess.run(y, {'Placeholder:0': 1.0})\n")
    assert not [c for c in codes(source) if c.startswith("TFT005")]


def test_a_setattr_with_a_literal_name_is_a_field_the_native_fix_keeps():
    source = (b"import tensorflow as tf\n"
              b"cfg = tf.ConfigProto()\n"
              b"setattr(cfg, 'inter_op_parallelism_threads', 3)\n"
              b"tf.keras.backend.set_session(tf.Session(config=cfg))\n")
    result = transform(source, "native")
    assert [(f.code, f.fixed) for f in result.findings] == [("TFT001", True)], result.findings
    assert result.source == b"import tensorflow as tf\ntf.config.threading.set_inter_op_parallelism_threads(3)\n"


# -- shape 12: what other modules of the project say -----------------------------------

def check_json(tmp_path) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "tfcompat_threads", "check", "--no-cache", "--output-format",
                           "json", str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    return json.loads(proc.stdout)


def test_a_package_that_disables_v2_behaviour_makes_its_modules_graph_code(tmp_path):
    """disable_v2_behavior() in the package's __init__ runs before its
    modules: their sessions run graphs and keep their configs, also one that
    reaches its session through a graph collection."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("import tensorflow as tf\ntf.compat.v1.disable_v2_behavior()\n")
    (package / "train.py").write_text(
        "import tensorflow as tf\n"
        "config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
        "tf.compat.v1.add_to_collection('session_config', config)\n"
        "sess = tf.compat.v1.Session(config=tf.compat.v1.get_collection('session_config')[0])\n"
        "sess.run(tf.ones([2, 2]))\n")
    assert [f["code"] for f in check_json(tmp_path) if f["filename"].endswith("train.py")] == []


def test_a_config_through_a_graph_collection_of_its_module_is_followed():
    """add_to_collection / get_collection(...)[0] in one module (no graph-mode
    switch): to a graph session it stays and is not called lost; to a session
    that only carries it, it gets the native fix."""
    graph = (b"import tensorflow as tf\n"
             b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
             b"tf.add_to_collection('session_config', config)\n"
             b"g = tf.Graph()\n"
             b"with g.as_default():\n"
             b"    y = tf.compat.v1.placeholder(tf.float32) * 2\n"
             b"    sess = tf.Session(graph=g, config=tf.get_collection('session_config')[0])\n"
             b"    sess.run(y, {y: 1.0})\n")
    assert [c.split()[0] for c in codes(graph)] == ["TFT002", "TFT002"]
    carried = (b"import tensorflow as tf\n"
               b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
               b"tf.add_to_collection('session_config', config)\n"
               b"tf.keras.backend.set_session(tf.Session(config=tf.get_collection('session_config')[0]))\n")
    assert transform(carried, "native").source == (
        b"import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(2)\n")


def test_a_collection_another_module_may_read_is_not_followed(tmp_path):
    """Another module names the collection's key: it may read the config
    there, so the native fix must not delete what it puts in."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\n"
        "config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
        "tf.add_to_collection('session_config', config)\n"
        "tf.keras.backend.set_session(tf.Session(config=tf.get_collection('session_config')[0]))\n")
    (tmp_path / "serve.py").write_text(
        "import tensorflow as tf\nsess = tf.Session(config=tf.get_collection('session_config')[0])\n")
    [lost] = [f for f in check_json(tmp_path) if f["filename"].endswith("train.py") and f["code"] == "TFT005"]
    assert "it is put in the graph collection 'session_config'" in lost["message"]


def test_a_collection_whose_key_is_computed_is_named_as_such():
    """The key is no literal: what is said names no key (not `None`)."""
    source = (b"import tensorflow as tf\n"
              b"KEY = 'session' + '_config'\n"
              b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\n"
              b"tf.add_to_collection(KEY, config)\n")
    [lost] = [f for f in transform(source, "native").findings if f.code == "TFT005"]
    assert "a graph collection by a key it cannot read" in lost.message and "None" not in lost.message
