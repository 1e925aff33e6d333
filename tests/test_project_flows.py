"""Flows that leave their module (codemod/project.py): a helper in another
file, a config stored on a settings object that other files read. Each tree
is a small repository (its pyproject.toml marks the root), checked through
the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.test_cli import cli

ROOT = Path(__file__).resolve().parent.parent

SETTINGS = """\
import tensorflow as tf


class AttrDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def initialize():
    c = AttrDict()
    c.session_config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)
    c.session_config.gpu_options.allow_growth = True
    c.devices = available(c.session_config)
    return c


def available(config):
    from tensorflow.python.client import device_lib

    return [d.name for d in device_lib.list_local_devices(session_config=config)]


C = initialize()
"""
TRAIN = """\
import tensorflow as tf

from app.settings import C


def train(op):
    with tf.compat.v1.Session(config=C.session_config) as session:
        session.run(op)
"""
KERAS = """\
import tensorflow as tf
from keras import backend as K

from app.settings import C

K.set_session(tf.compat.v1.Session(config=C.session_config))
"""


def repository(tmp_path: Path, **files: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    for name, text in files.items():
        (tmp_path / "app" / f"{name}.py").write_text(text)
    return tmp_path


def findings(tree: Path, *options: str, path: str = ".") -> list[dict]:
    output = cli("check", "--output-format", "json", *options, path, cwd=tree).output
    return json.JSONDecoder().raw_decode(output)[0]


@pytest.mark.parametrize("attribute", ["session_config", "config"])
def test_a_config_stored_on_a_settings_object_that_only_graph_sessions_read_is_followed(tmp_path, attribute):
    """Every read of `.session_config` in the repository sets a field of it,
    lists devices with it, or configures a session that runs graphs: the
    settings are honoured, nothing to report (0.1 and the first real-code
    round said 'not followed'). `tf.config` is no read of an attribute
    named `config`."""
    def named(text):
        return text.replace("c.session_config", f"c.{attribute}").replace("C.session_config", f"C.{attribute}")

    other = "import tensorflow as tf\n\ntf.config.threading.set_inter_op_parallelism_threads(1)\n"
    tree = repository(tmp_path, settings=named(SETTINGS), train=named(TRAIN), other=other)
    assert findings(tree) == []


def test_a_read_that_reaches_a_config_only_session_is_named(tmp_path):
    tree = repository(tmp_path, settings=SETTINGS, train=TRAIN, keras_part=KERAS)
    unfollowed = [f for f in findings(tree) if f["code"] == "TFT005"]
    assert len(unfollowed) == 1 and unfollowed[0]["filename"].endswith("settings.py")
    assert "stored as `.session_config`, and at its read at app/keras_part.py:6 it reaches a session that only " \
           "carries it" in unfollowed[0]["message"]


def test_a_stored_config_nobody_reads_by_name_stays_unfollowed(tmp_path):
    """Stored in a dict that goes to a logger: no rule can tell where it ends."""
    logged = "import tensorflow as tf\n\n\ndef info(log):\n    run = {}\n" \
             "    run.config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n    log(run)\n"
    tree = repository(tmp_path, logged=logged)
    assert [f["code"] for f in findings(tree)] == ["TFT005"]


def test_a_helper_in_another_module_is_reported_where_its_session_is_made(tmp_path):
    """The bundled example: get_session() in utils/session.py makes a session
    only to carry its config; the set_session it goes to is in train.py."""
    shutil.copytree(ROOT / "examples" / "legacy_project", tmp_path / "project")
    (tmp_path / "project" / "pyproject.toml").write_text("")
    rows = findings(tmp_path / "project")
    (helper,) = [f for f in rows if f["filename"].endswith("session.py") and f["code"] == "TFT001"]
    assert helper["fix"] is None
    renames = [f for f in rows if f["filename"].endswith("session.py") and f["code"] != "TFT001"]
    assert [(f["code"], f["fix"]["applicability"]) for f in renames] == [("TFT002", "safe")] * 2, \
        "its TF1 names still get their tf.compat.v1 spelling"
    text = cli("check", "utils/session.py", cwd=tmp_path / "project").output
    assert "help: its flow goes on at train.py:30: fix the session there" in text


def test_a_place_in_another_file_is_data_on_the_finding_not_characters_in_its_text(tmp_path):
    """The engine's finding names train.py:30 as a Place (path and line), its
    message and help plain text; the CLI shows the place relative, as before."""
    from tfcompat_threads.codemod import engine
    from tfcompat_threads.codemod.findings import Place

    shutil.copytree(ROOT / "examples" / "legacy_project", tmp_path / "project")
    (tmp_path / "project" / "pyproject.toml").write_text("")
    helper = tmp_path / "project" / "utils" / "session.py"
    outcome = engine.run(helper.read_bytes(), filename=str(helper), fix=False)
    (finding,) = [f for f in outcome.findings if f.code == "TFT001"]
    train = str((tmp_path / "project" / "train.py").resolve())
    assert finding.places == (Place(train, 30),)
    assert f"its flow goes on at {train}:30" in finding.help
    assert not any(ord(c) < 32 and c not in "\n\t" for c in finding.message + finding.help)


def test_a_config_put_in_a_dict_says_where_the_dict_goes(tmp_path):
    """tensorflow/benchmarks logs its config in a dict of run information:
    the tool cannot see inside the logger, and says exactly that."""
    logged = ("import tensorflow as tf\n\n\ndef info(logger):\n"
              "    run = {'name': 'x', 'session_config': tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)}\n"
              "    logger.log_run_info(run)\n")
    tree = repository(tmp_path, logged=logged)
    (finding,) = findings(tree)
    assert finding["code"] == "TFT005"
    assert "it is put in a dict under 'session_config', `run`, that goes to logger.log_run_info() (line 6), " \
           "which is not followed" in finding["message"]


LOGGED_OUTSIDE = """\
import tensorflow as tf


class Benchmark:
    def __init__(self, params):
        logger = None
        if params.log_dir:
            from {module}.logs import logger as models_logger

            logger = models_logger.BenchmarkFileLogger(params.log_dir)
        self.benchmark_logger = logger

    def log_run(self):
        run = {{'model': 'x', 'session_config': tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)}}
        self.benchmark_logger.log_run_info('x', run)
"""


def test_a_config_that_goes_outside_the_repository_is_reported_only_on_request(tmp_path):
    """tensorflow/benchmarks' shape: the dict goes to a logger made by a
    module the repository does not have (`official`, from another
    repository). Outside the repository is an opt-in warning (TFT011), off
    by default; the same code with that module in the repository is TFT005."""
    (tmp_path / "a").mkdir()
    tree = repository(tmp_path / "a", bench=LOGGED_OUTSIDE.format(module="official"))
    assert findings(tree) == []
    (finding,) = findings(tree, "--select", "TFT011")
    assert finding["code"] == "TFT011"
    assert "that goes to self.benchmark_logger.log_run_info() (line 15), which is code of `official`, a module " \
           "the repository does not have" in finding["message"]
    assert [f["code"] for f in findings(tree, "--select", "ALL")] == ["TFT011"]

    shutil.copytree(tree, tmp_path / "b")
    tree = tmp_path / "b"
    (tree / "tools" / "official").mkdir(parents=True)  # the repository has it, in a folder put on sys.path
    (tree / "tools" / "official" / "logs.py").write_text("def BenchmarkFileLogger(path):\n    pass\n")
    assert [f["code"] for f in findings(tree)] == ["TFT005"]


@pytest.mark.parametrize("call, code", [
    ("from trainlib import train\ntrain(session_config=config)\n", "TFT011"),
    ("import trainlib.slim as slim\nslim.learning.train(op, session_config=config)\n", "TFT011"),
    ("import copy\nother = copy.deepcopy(config)\n", "TFT005"),  # the standard library: its value goes on
    ("from app.helpers import train\ntrain(config)\n", "TFT011"),  # followed into the helper, then outside
    # in the repository, and not followed there (0.2.0.dev0: an internal error, its position taken as main.py's)
    ("from app.helpers import keep\nkeep(config)\n", "TFT005"),
    ("def train(c):\n    with tf.compat.v1.Session(config=c) as s:\n        s.run(1)\ntrain(config)\n", None),
    # slim's loops run a graph session with the config, whichever slim it is (magenta, SSD-Tensorflow)
    ("import tf_slim as slim\nslim.learning.train(None, 'logs', session_config=config)\n", None),
    ("slim = tf.contrib.slim\nslim.evaluation.evaluate_once('', 'ckpt', 'logs', session_config=config)\n", None),
    # a fallback of the repository's own beside the library's: not known to be outside
    ("try:\n    from trainlib import train\nexcept ImportError:\n    def train(session_config):\n"
     "        pass\ntrain(session_config=config)\n", "TFT005"),
    ("import trainlib\ntrain = None\nif trainlib:\n    train = trainlib.train\ntrain(config)\n", "TFT011"),
])
def test_outside_means_a_module_the_repository_does_not_have(tmp_path, call, code):
    source = "import tensorflow as tf\nconfig = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n" + call
    helpers = "import somewhere\n\nSTORE = []\n\n\ndef train(config):\n    somewhere.go(config)\n\n\n" \
              "def keep(config):\n    STORE.append(config)\n"
    tree = repository(tmp_path, main=source, helpers=helpers)
    found = findings(tree, "--select", "ALL", path="app/main.py")
    assert [f["code"] for f in found] == ([code] if code else [])
    if "app.helpers" in call:  # it stops in helpers.py: reported at the config, in its own module
        assert [f["location"]["row"] for f in found] == [2]
    if "keep" in call:
        assert "it is passed to STORE.append() (app/helpers.py:11)" in found[0]["message"]


def test_a_package_installed_under_another_folder_name_is_the_repositorys(tmp_path):
    """`package_dir={"mylib": "src"}`: `import mylib` is the repository's own
    code, though no folder is named mylib (reported, not hidden as outside)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.py").write_text('from setuptools import setup\nsetup(name="x", packages=["mylib"], '
                                       'package_dir={"mylib": "src"})\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("def make_session(config):\n    return config\n")
    (tmp_path / "train.py").write_text("import tensorflow as tf\nimport mylib\n"
                                       "config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)\n"
                                       "mylib.make_session(config)\n")
    assert [f["code"] for f in findings(tmp_path, "--select", "ALL", path="train.py")] == ["TFT005"]
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    other = tmp_path.parent / (tmp_path.name + "-other")
    shutil.copytree(tmp_path, other)  # a new tree: what a repository has is read once per run
    assert [f["code"] for f in findings(other, "--select", "ALL", path="train.py")] == ["TFT011"]


# -- a module-level session other modules read (issue 23) ---------------------------------------

SETUP_TF = """\
import tensorflow as tf

config = tf.ConfigProto(intra_op_parallelism_threads=1)
config.gpu_options.allow_growth = True
sess = tf.InteractiveSession(config=config)
"""
COMMON = """\
import tensorflow as tf

__all__ = ["session"]
_config = tf.ConfigProto(intra_op_parallelism_threads=1)
session = tf.Session(config=_config)
"""
READERS = {
    "imported": {"setup_tf": SETUP_TF, "use": "from app.setup_tf import sess\n\nDEVICES = sess.list_devices()\n"},
    "attribute": {"setup_tf": SETUP_TF, "use": "from app import setup_tf\n\nDEVICES = setup_tf.sess.list_devices()\n"},
    "module imported": {"setup_tf": SETUP_TF, "use": "import app.setup_tf\n\nDEVICES = app.setup_tf.sess.list_devices()\n"},
    "star": {"common": COMMON, "use": "from app.common import *\n\nDEVICES = session.list_devices()\n"},
    "re-exported": {"setup_tf": SETUP_TF, "shared": "from app.setup_tf import sess  # noqa: F401\n",
                    "use": "from app.shared import sess\n\nDEVICES = sess.list_devices()\n"},
}


@pytest.mark.parametrize("shape", READERS)
def test_a_session_another_module_reads_is_not_deleted(tmp_path, shape):
    """Its readers use it (list its devices): it is a session that works,
    so it stays, renamed (0.x deleted it: ImportError / AttributeError)."""
    tree = repository(tmp_path, **READERS[shape])
    assert cli("fix", ".", cwd=tree).exit_code == 0
    home = next(name for name in ("setup_tf", "common") if name in READERS[shape])
    fixed = (tree / "app" / f"{home}.py").read_text()
    assert "= tf.compat.v1.InteractiveSession(config=config)" in fixed or \
        "session = tf.compat.v1.Session(config=_config)" in fixed


@pytest.mark.tf
@pytest.mark.parametrize("shape", ["imported", "star", "module imported"])
def test_the_fixed_modules_run_and_their_readers_find_the_session(tmp_path, shape):
    from tests.tfproc import run

    tree = repository(tmp_path, **READERS[shape])
    assert cli("fix", ".", cwd=tree).exit_code == 0
    result = run("from app.use import DEVICES\nemit(devices=len(DEVICES))\n", env={"PYTHONPATH": str(tree)})
    assert result["devices"] >= 1


@pytest.mark.parametrize("use,reader", [
    ("from app.setup_tf import sess  # noqa: F401\n", "use.py:1"),
    ("import keras.backend as K\nfrom app import setup_tf\n\nK.set_session(setup_tf.sess)\n", "use.py:4"),
])
def test_a_session_another_module_only_imports_or_sets_is_reported_there_and_kept(tmp_path, use, reader):
    tree = repository(tmp_path, setup_tf=SETUP_TF, use=use)
    result = cli("fix", ".", cwd=tree)
    assert "sess = tf.compat.v1.InteractiveSession(config=config)" in (tree / "app" / "setup_tf.py").read_text()
    assert result.exit_code == 1 and f"help: its flow goes on at {reader}" in result.output


def test_a_session_exported_by_all_nobody_here_imports_is_kept_and_the_reader_named(tmp_path):
    tree = repository(tmp_path, common=COMMON)
    result = cli("fix", ".", cwd=tree)
    assert "session = tf.compat.v1.Session(config=_config)" in (tree / "app" / "common.py").read_text()
    assert "help: the fix would delete `session`, which is read at common.py:3 (`__all__` exports it)" \
        in result.output


@pytest.mark.parametrize("first", ["from app.setup_tf import *", "%run app/setup_tf.py"])
def test_a_session_a_notebook_imports_is_kept_and_the_notebook_named(tmp_path, first):
    tree = repository(tmp_path, setup_tf=SETUP_TF)
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
             for source in (first, "sess.list_devices()")]
    (tree / "explore.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                    "nbformat_minor": 5}))
    result = cli("fix", "app", cwd=tree)
    assert "sess = tf.compat.v1.InteractiveSession(config=config)" in (tree / "app" / "setup_tf.py").read_text()
    assert "read at explore.ipynb:cell 2 (it imports or runs setup_tf (cell 1))" in result.output


def test_a_private_name_is_not_star_imported_and_goes(tmp_path):
    """`from m import *` without `__all__` takes the public names only: no
    module can read `_sess` so, and the fix replaces it."""
    tree = repository(tmp_path, setup_tf=SETUP_TF.replace("sess =", "_sess ="),
                      use="from app.setup_tf import *  # noqa: F403\n\nprint(_sess)  # NameError before and after\n")
    assert cli("fix", ".", cwd=tree).exit_code == 0
    assert "_sess" not in (tree / "app" / "setup_tf.py").read_text()


def test_an_import_another_module_takes_from_here_is_not_removed(tmp_path):
    """The fix removes the Keras import its set_session used, unless a star
    import elsewhere still reads it."""
    helper = ("import tensorflow as tf\nfrom keras import backend as K\n\n"
              "config = tf.ConfigProto(intra_op_parallelism_threads=1)\nK.set_session(tf.Session(config=config))\n")
    tree = repository(tmp_path, helper=helper, use="from app.helper import *\n\nK.clear_session()\n")
    assert cli("fix", ".", cwd=tree).exit_code == 0
    fixed = (tree / "app" / "helper.py").read_text()
    assert "from keras import backend as K" in fixed and "set_intra_op_parallelism_threads(1)" in fixed


def test_a_session_of_a_package_read_by_a_relative_import_is_kept(tmp_path):
    tree = repository(tmp_path, use="from . import sess\n\nDEVICES = sess.list_devices()\n")
    (tree / "app" / "__init__.py").write_text(SETUP_TF)
    assert cli("fix", ".", cwd=tree).exit_code == 0
    assert "sess = tf.compat.v1.InteractiveSession(config=config)" in (tree / "app" / "__init__.py").read_text()


def test_the_cache_sees_a_new_reader_in_another_module(tmp_path, monkeypatch):
    """A module that starts to import the session after a check: the next
    run asks the repository again, and keeps the session."""
    tree = repository(tmp_path, setup_tf=SETUP_TF, use="import os\n")
    monkeypatch.setenv("TFCOMPAT_THREADS_CACHE_DIR", str(tmp_path / "cache"))
    assert "TFT001 [*]" in cli("check", "app/setup_tf.py", cwd=tree).output
    (tree / "app" / "use.py").write_text("from app.setup_tf import sess\n\nDEVICES = sess.list_devices()\n")
    assert "TFT001" not in cli("check", "app/setup_tf.py", cwd=tree).output


def test_a_gpu_options_variable_another_module_reads_is_not_deleted(tmp_path):
    setup = ("import tensorflow as tf\n\ngpu_options = tf.GPUOptions(allow_growth=True)\n"
             "sess = tf.Session(config=tf.ConfigProto(gpu_options=gpu_options))\n")
    tree = repository(tmp_path, setup_tf=setup, use="from app.setup_tf import gpu_options\n\nprint(gpu_options)\n")
    result = cli("fix", ".", cwd=tree)
    assert "gpu_options = tf.compat.v1.GPUOptions(allow_growth=True)" in (tree / "app" / "setup_tf.py").read_text()
    assert "its gpu_options `gpu_options` is read at use.py:1 too" in result.output


def test_a_name_rebound_below_is_what_other_modules_import(tmp_path):
    """Real code (a training script): `config` is a ConfigProto, then a dict
    of labels another module imports. The importer gets the dict, so the
    ConfigProto's config-only session is fixed as in a module alone (it was
    held back: TFT005 naming predict.py)."""
    tree = repository(tmp_path, train=(
        "import tensorflow as tf\nfrom keras import backend as K\n\n"
        "config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)\n"
        "sess = tf.Session(config=config)\nK.set_session(sess)\n"
        "config = dict()\nconfig['labels'] = (1, 2, 4)\n"),
        predict="from app.train import config\n\nprint(config['labels'])\n")
    assert [f["code"] for f in findings(tree)] == ["TFT001"]
    assert cli("fix", ".", cwd=tree).exit_code == 0
    fixed = (tree / "app" / "train.py").read_text()
    assert "set_intra_op_parallelism_threads(2)" in fixed and "config = dict()" in fixed


def test_a_key_written_into_globals_reads_nothing(tmp_path):
    """`globals()['_CACHE'] = model` stores a key: it cannot read the config
    (the fix was held back as if it could)."""
    tree = repository(tmp_path, train=(
        "import tensorflow as tf\nfrom tensorflow.keras import backend as K\n\n"
        "config = tf.ConfigProto(device_count={'GPU': 0})\nK.set_session(tf.Session(config=config))\n\n\n"
        "def train(model):\n    globals()['_DATASET_FINALIZATION_HACK'] = model\n"))
    [finding] = findings(tree)
    assert finding["code"] == "TFT001" and finding["fix"]["applicability"] == "safe", finding
    (tmp_path / "computed").mkdir()
    computed = repository(tmp_path / "computed", train=(
        "import tensorflow as tf\nfrom tensorflow.keras import backend as K\n\n"
        "config = tf.ConfigProto(device_count={'GPU': 0})\nK.set_session(tf.Session(config=config))\n\n\n"
        "def lookup(key):\n    return globals()[key]\n"))
    [held] = [f for f in findings(computed) if f["code"] == "TFT001"]
    assert "globals() may read it" in held["help"], held


# -- issue 28, a sixth corpus: `tf` brought by a star import of the repository's module ------------

UTILS = "import numpy as np\nimport tensorflow as tf\n\n\ndef show_all_variables():\n    return tf.trainable_variables()\n"
STAR_MAIN = ("from utils import *\n\n\ndef main():\n"
             "    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:\n"
             "        sess.run(tf.global_variables_initializer())\n")


def star_tree(tmp_path: Path, main: str, **others: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("")
    for name, text in {"main": main, **others}.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


def test_tf_brought_by_a_star_import_of_a_sibling_module_is_tensorflow(tmp_path):
    """StarGAN's main.py: `from utils import *` (utils.py imports tensorflow
    as tf), then `tf.Session(config=tf.ConfigProto(...))`; the file never
    names tensorflow. Its sessions were missed (no finding, fix left them)."""
    tree = star_tree(tmp_path, STAR_MAIN, utils=UTILS)
    rows = [(Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in findings(tree)]
    assert ("main.py", "TFT002", 5) in rows and len(rows) == 2, rows
    assert cli("fix", ".", cwd=tree).exit_code == 0
    fixed = (tree / "main.py").read_text()
    assert "tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(" in fixed and "import" not in fixed[20:]
    assert cli("check", ".", cwd=tree).exit_code == 0
    # `__all__` without tf, tf rebound after the import, a later star import binding it otherwise: not TensorFlow's
    listed = star_tree(tmp_path / "listed", STAR_MAIN, utils="__all__ = ['show']\n" + UTILS)
    rebound = star_tree(tmp_path / "rebound", STAR_MAIN, utils=UTILS + "tf = None\n")
    later = star_tree(tmp_path / "later", STAR_MAIN.replace("from utils import *\n",
                                                            "from utils import *\nfrom mine import *\n"),
                      utils=UTILS, mine="def tf():\n    pass\n")
    for other in (listed, rebound, later):
        assert not [f for f in findings(other) if f["filename"].endswith("main.py")], other.name


def test_a_star_import_brings_tf_through_another_and_a_relative_one(tmp_path):
    """BEGAN's trainer.py: `from models import *`, models.py importing
    tensorflow as tf (here through its own star import), and a package's
    `from .utils import *`."""
    chained = star_tree(tmp_path / "chained", STAR_MAIN.replace("utils", "models"),
                        models="from utils import *\n", utils=UTILS)
    assert "TFT002" in {f["code"] for f in findings(chained) if f["filename"].endswith("main.py")}
    package = tmp_path / "package"
    star_tree(package, "")
    (package / "app").mkdir()
    (package / "app" / "__init__.py").write_text("")
    (package / "app" / "utils.py").write_text(UTILS)
    (package / "app" / "train.py").write_text(STAR_MAIN.replace("from utils", "from .utils"))
    assert "TFT002" in {f["code"] for f in findings(package) if f["filename"].endswith("train.py")}



HELPER = ("import os\n\n\ndef import_tf(device_id=-1):\n"
          "    os.environ['CUDA_VISIBLE_DEVICES'] = str(device_id)\n"
          "    import tensorflow as tf\n    return tf\n")
GRAPH_USER = ("from .helper import import_tf\n\n\ndef optimize_graph(graph_def):\n"
              "    tf = import_tf()\n"
              "    from tensorflow.python.tools.optimize_for_inference_lib import optimize_for_inference\n"
              "    config = tf.ConfigProto(device_count={'GPU': 0}, allow_soft_placement=True)\n"
              "    with tf.Session(config=config) as sess:\n"
              "        return sess.graph\n")


def test_tf_returned_by_a_helper_of_the_repository_that_imports_it_is_tensorflow(tmp_path):
    """bert-as-service's server: `tf = import_tf(...)`, a helper that sets the
    environment, imports tensorflow and returns it; graph.py's
    `tf.ConfigProto(device_count=...)` and `tf.Session(config=...)` were missed."""
    tree = repository(tmp_path, helper=HELPER, graph=GRAPH_USER)
    rows = [(Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in findings(tree)]
    assert rows == [("graph.py", "TFT002", 7), ("graph.py", "TFT002", 8)], rows
    assert cli("fix", ".", cwd=tree).exit_code == 0
    fixed = (tree / "app" / "graph.py").read_text()
    assert "config = tf.compat.v1.ConfigProto(" in fixed and "with tf.compat.v1.Session(config=config)" in fixed
    assert cli("check", ".", cwd=tree).exit_code == 0
    # a helper that may return something else, or returns another module: its result is not TensorFlow
    for n, helper in enumerate((HELPER.replace("    return tf\n", "    if device_id:\n        return tf\n"
                                                                  "    return None\n"),
                                HELPER.replace("import tensorflow as tf\n    return tf", "import numpy as np\n"
                                                                                       "    return np"))):
        (tmp_path / str(n)).mkdir()
        other = repository(tmp_path / str(n), helper=helper, graph=GRAPH_USER)
        assert not findings(other), helper
