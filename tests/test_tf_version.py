"""--tf-version: the oldest TensorFlow the fixed code must run on. The option
table's NAMES say which release spells each name how; the native target
writes only names that release has, else it fixes nothing and says why. The
default comes from the project's declared tensorflow requirement.
(tests/test_tf_version_tf.py runs the outputs on the TensorFlow of the row.)"""

from __future__ import annotations

import pytest

from tests.test_cli import FIXTURES, cli
from tests.tfnames import tensorflow_names
from tfcompat_threads import options
from tfcompat_threads.codemod import transform
from tfcompat_threads.lint.tf_requirement import declared, lower_bound

GPU_CONFIG = (FIXTURES / "visible_device_list_local_rank" / "input.py").read_bytes()
LEGACY = (FIXTURES / "keyword_args" / "input.py").read_bytes()
GRAPH = b"import tensorflow as tf\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)\n" \
        b"with tf.Session(config=config) as sess:\n    sess.run(op)\n"


@pytest.mark.parametrize("tf_version,expected", [
    (None, "config.list_physical_devices"),
    ("2.1", "config.list_physical_devices"),
    ("2.0", "config.experimental.list_physical_devices"),
    ("1.15", "config.experimental.list_physical_devices"),
    ("1.14", "config.experimental.list_physical_devices"),
])
def test_a_name_is_spelled_as_the_release_spells_it(tf_version, expected):
    assert options.spelling("config.list_physical_devices", tf_version) == expected


def test_a_release_without_the_name_has_none():
    with pytest.raises(options.NoName, match=r"first exists in TensorFlow 1\.14, and the code must run on 1\.13"):
        options.spelling("config.threading.set_intra_op_parallelism_threads", "1.13")
    assert options.spelling("compat.v1", "1.13") == "compat.v1"
    with pytest.raises(options.NoName):
        options.spelling("compat.v1", "1.12")


def test_every_name_a_template_writes_is_in_the_table_and_the_since_column_is_its_newest_spelling():
    for option in options.OPTIONS:
        templates = [t for t in (option.native, *(f.template for f in option.forms)) if t]
        for template in templates:
            for name in options.written_names(template):
                assert name in options.NAMES, (option.field, name)
        if option.native:
            newest = max(options.release(options.NAMES[n].since) for n in options.written_names(option.native))
            assert options.release(option.since) == newest, option.field


def test_native_output_for_1_15_writes_the_experimental_device_calls():
    fixed = transform(GPU_CONFIG, "native", tf_version="1.15").source
    names = tensorflow_names(fixed)
    assert "tensorflow.config.experimental.list_physical_devices" in names
    assert "tensorflow.config.experimental.set_visible_devices" in names
    assert "tensorflow.config.list_physical_devices" not in names
    assert "tensorflow.config.set_visible_devices" not in names
    assert transform(GPU_CONFIG, "native").source == (FIXTURES / "visible_device_list_local_rank" / "native.py").read_bytes()
    assert transform(GPU_CONFIG, "native", tf_version="2.1").source == transform(GPU_CONFIG, "native").source


def test_a_release_without_tf_config_gets_no_native_fix_and_a_help_that_says_why():
    result = transform(LEGACY, "native", tf_version="1.13")
    assert result.source == LEGACY.replace(b"tf.ConfigProto", b"tf.compat.v1.ConfigProto").replace(
        b"tf.Session", b"tf.compat.v1.Session"), "1.13 has tf.compat.v1: the file still runs on TF2"
    [finding] = [f for f in result.findings if f.code == "TFT001"]
    assert finding.fix is None and not finding.fixed
    assert "first exists in TensorFlow 1.14, and the code must run on 1.13" in finding.help
    assert "--target shim" in finding.help
    assert b"tfcompat_threads.Session" in transform(LEGACY, "shim", tf_version="1.13").source, "the shim still works"


def test_a_release_without_compat_v1_gets_no_rename():
    assert b"tf.compat.v1.ConfigProto" in transform(GRAPH, "native", tf_version="1.13").source
    result = transform(GRAPH, "native", tf_version="1.12")
    assert result.source == GRAPH
    renames = [f for f in result.findings if f.code == "TFT002"]
    assert len(renames) == 2 and all(f.fix is None for f in renames)
    assert all("tf.compat.v1 first exists in TensorFlow 1.13" in f.help for f in renames)
    moved = transform(b"from tensorflow import ConfigProto, Session\nimport tensorflow as tf\n"
                      b"with Session(config=ConfigProto()) as s:\n    s.run(op)\n", "native", tf_version="1.12")
    assert all(f.fix is None for f in moved.findings if f.code == "TFT002")


# -- the project's declared requirement -------------------------------------------------


@pytest.mark.parametrize("requirement,bound", [
    ("tensorflow>=1.15", (1, 15)),
    ("tensorflow-gpu==1.15.0", (1, 15)),
    ("tensorflow_cpu ~= 2.4.1", (2, 4)),
    ("tensorflow>=1.14,<2 ; python_version < '3.8'", (1, 14)),
    ("tensorflow (>=2.11)", (2, 11)),
    ("tf-nightly>2.16", (2, 16)),
    ("tensorflow==2.*", (2, 0)),
    ("tensorflow[and-cuda]>=2.15", (2, 15)),
    ("Tensorflow.GPU >= 1.13  # comment", (1, 13)),
    ("tensorflow", None),
    ("tensorflow<2", None),
    ("tensorflow-addons>=0.10", None),
    ("tensorflow-datasets==1.0", None),
    ("numpy>=1.15", None),
])
def test_lower_bound_of_a_requirement(requirement, bound):
    assert lower_bound(requirement) == bound


@pytest.mark.parametrize("name,content", [
    ("requirements.txt", "numpy\n# tensorflow>=2.9\n-r base.txt\ntensorflow-gpu==1.15.0  # or tensorflow\n"),
    ("requirements-gpu.txt", "tensorflow-gpu>=1.15,<2\n"),
    ("pyproject.toml", '[project]\nname = "x"\ndependencies = ["numpy", "tensorflow>=1.15"]\n'),
    ("setup.py", "from setuptools import setup\nsetup(name='x', install_requires=[\n    'numpy',\n"
                 "    'tensorflow>=1.15.2',\n])\n"),
    ("setup.cfg", "[metadata]\nname = x\n\n[options]\ninstall_requires =\n    numpy\n    tensorflow-cpu~=1.15.0\n"),
    # TensorFlow named only in the extras (pip install x[gpu]), as TF1-era packages did
    ("setup.py", "setup(name='x', install_requires=['numpy', 'pyzmq>=16.0.0'],\n    extras_require={\n"
                 "        'cpu': ['tensorflow>=1.15.0'],\n        'gpu': ['tensorflow-gpu>=1.15.0'],\n"
                 "        'http': ['flask']},\n)\n"),
    ("pyproject.toml", '[project]\nname = "x"\ndependencies = ["numpy"]\n\n'
                       '[project.optional-dependencies]\ngpu = ["tensorflow-gpu>=1.15"]\n'),
    ("setup.cfg", "[options]\ninstall_requires = numpy\n\n[options.extras_require]\n"
                  "cpu = tensorflow>=1.15\ngpu =\n    tensorflow-gpu>=1.15\n"),
])
def test_the_declared_requirement_is_found_from_a_file_below(tmp_path, name, content):
    (tmp_path / name).write_text(content)
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    found = declared(str(tmp_path / "pkg" / "sub" / "train.py"))
    assert found.tf_version == "1.15" and found.where.startswith(str(tmp_path / name) + ": tensorflow")
    assert "#" not in found.where


def test_a_release_named_only_in_the_extras_keeps_the_code_running_there(tmp_path):
    # bert-as-service's server: tensorflow>=1.10.0 only in extras_require; tf.compat.v1 is 1.13 on
    (tmp_path / "setup.py").write_text("setup(install_requires=['numpy'],\n"
                                       "      extras_require={'cpu': ['tensorflow>=1.10.0'], 'gpu': ['tensorflow-gpu>=1.10.0']})\n")
    (tmp_path / "serve.py").write_bytes(GRAPH)
    result = cli("fix", "serve.py", cwd=tmp_path)
    assert (tmp_path / "serve.py").read_bytes() == GRAPH
    assert "tf.compat.v1 first exists in TensorFlow 1.13, and the code must run on 1.10" in result.stdout


def test_a_declared_release_before_1_0_is_one_too(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow>=0.12\n")
    (tmp_path / "train.py").write_bytes(LEGACY)
    result = cli("check", "train.py", cwd=tmp_path)
    assert result.exit_code == 1 and "first exists in TensorFlow 1.14, and the code must run on 0.12" in result.stdout


def test_the_oldest_declaration_wins_and_one_without_a_bound_says_nothing(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.4\n")
    (tmp_path / "requirements-old.txt").write_text("tensorflow-gpu==1.15.5\n")
    assert declared(str(tmp_path)).tf_version == "1.15"
    (tmp_path / "requirements-old.txt").write_text("tensorflow\n")
    assert declared(str(tmp_path)).tf_version == "2.4"
    (tmp_path / "requirements.txt").write_text("tensorflow<3\n")
    assert declared(str(tmp_path)) is None


# -- the command line and the settings ------------------------------------------------------


@pytest.fixture
def project(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_bytes(GPU_CONFIG)
    return tmp_path


def test_the_declared_requirement_is_the_default_and_show_settings_says_so(project):
    assert b"tf.config.list_physical_devices" in cli("fix", "-", input=GPU_CONFIG, cwd=project).stdout_bytes
    (project / "requirements.txt").write_text("tensorflow-gpu==1.15.0\n")
    fixed = cli("fix", "-", "--stdin-filename", "train.py", input=GPU_CONFIG, cwd=project).stdout_bytes
    assert b"tf.config.experimental.list_physical_devices" in fixed and b"tf.config.list_physical_devices" not in fixed
    shown = cli("check", "--show-settings", ".", cwd=project)
    assert shown.exit_code == 0
    assert f'tf-version = "1.15"  # {project.resolve() / "requirements.txt"}: tensorflow-gpu==1.15.0' in shown.stdout
    assert "train.py" not in shown.stdout, "--show-settings checks nothing"


def test_the_option_and_the_setting_come_before_the_requirement(project):
    (project / "requirements.txt").write_text("tensorflow-gpu==1.15.0\n")
    result = cli("diff", "--tf-version", "2.4", "train.py", cwd=project)
    assert "tf.config.list_physical_devices" in result.stdout and "experimental.list" not in result.stdout
    assert 'tf-version = "2.4"  # --tf-version' in cli("check", "--show-settings", "--tf-version", "2.4.4",
                                                         cwd=project).stdout
    (project / "pyproject.toml").write_text('[tool.tfcompat-threads]\ntf-version = "2.0"\n')
    shown = cli("check", "--show-settings", cwd=project).stdout
    assert f'tf-version = "2.0"  # {project.resolve() / "pyproject.toml"}: [tool.tfcompat-threads] tf-version' in shown
    assert "experimental.list_physical_devices" in cli("diff", "train.py", cwd=project).stdout
    assert cli("check", "--show-settings", cwd=project / "..").stdout.count("tf-version") == 1


@pytest.mark.parametrize("value", ["1", "1.x", "abc", "2.4.4.4", "", "v2.4", "2.4-rc1"])
def test_a_malformed_tf_version_is_a_usage_error(project, value):
    result = cli("check", "--tf-version", value, ".", cwd=project)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: --tf-version: {value!r} is not a TensorFlow release: give MAJOR.MINOR, e.g. 1.15"]
    (project / "pyproject.toml").write_text(f'[tool.tfcompat-threads]\ntf-version = "{value}"\n')
    result = cli("check", ".", cwd=project)
    assert result.exit_code == 2 and "[tool.tfcompat-threads] tf-version: " in result.stderr


def test_a_tf_version_setting_of_the_wrong_type_is_a_usage_error(project):
    (project / "pyproject.toml").write_text("[tool.tfcompat-threads]\ntf-version = 1.15\n")
    result = cli("check", ".", cwd=project)
    assert result.exit_code == 2 and "tf-version must be a str" in result.stderr


def test_the_library_refuses_what_is_no_release():
    with pytest.raises(ValueError, match="is not a TensorFlow release"):
        transform(LEGACY, "native", tf_version="1.x")
    assert transform(LEGACY, "native", tf_version="2.4.4").source == transform(LEGACY, "native").source
