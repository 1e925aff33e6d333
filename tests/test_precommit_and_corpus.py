"""A copy of Python's standard library, the installed TensorFlow and Keras
packages' own code; random programs with no TensorFlow in them. (The hooks under the real pre-commit: tests/test_precommit_snippet.py.)"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_cli import cli
from tests.tfproc import TF_PYTHON
from tfcompat_threads.codemod import CodemodError, transform


def test_fix_over_a_copy_of_the_standard_library(tmp_path):
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    copy = tmp_path / "stdlib"
    shutil.copytree(stdlib, copy, ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.so"),
                    symlinks=True)
    before = {p: p.read_bytes() for p in copy.rglob("*.py") if p.is_file() and not p.is_symlink()}
    assert len(before) > 1000
    result = cli("fix", "-q", str(copy))
    unreadable = set()  # the test data that Python itself cannot decode (bad cookies, stray bytes)
    for path, data in before.items():
        try:
            importlib.util.decode_source(data)
        except (SyntaxError, UnicodeDecodeError, LookupError):
            unreadable.add(path)
    reported = {Path(line.split(":")[1].strip()) for line in result.stderr.splitlines() if line.startswith("error:")}
    assert reported == unreadable, result.stderr
    assert result.exit_code == (2 if unreadable else 0), result.stderr
    assert {p: p.read_bytes() for p in before} == before, "nothing in the standard library may change"


def test_whole_pipeline_over_the_standard_library_changes_nothing():
    """Every stdlib module through parse, analysis and planning (the byte
    pre-filter bypassed): no crash, no change; the deliberately broken files
    are reported as parse errors naming their line."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)
    # Every broken-on-purpose file, and a sample of the rest that keeps the suite
    # fast (the byte-level run above covers them all).
    files = [p for n, p in enumerate(files) if "bad" in p.name or "data" in p.parts or n % 40 == 0]
    broken = []
    for path in files:
        data = path.read_bytes()
        try:
            result = transform(data, "native", str(path), force=True)
        except CodemodError as error:
            broken.append(f"{error.filename}:{error.line}")
            continue
        assert result.source == data, path
    print("parse errors:", *broken, sep="\n  ")
    assert all("test" in b or "lib2to3" in b for b in broken), broken


# The folders of the row's tensorflow (its sources in tensorflow_core on 1.15) and keras packages.
ROW_PACKAGES = """
import importlib.util, json
specs = [importlib.util.find_spec(name) for name in ("tensorflow", "tensorflow_core", "keras")]
print(json.dumps([list(s.submodule_search_locations)[0] for s in specs if s and s.submodule_search_locations]))
"""


@pytest.mark.tf(since=(1, 15))
def test_the_analysis_never_raises_on_the_rows_tensorflow_and_keras():
    """Every .py file of the tensorflow and keras packages of the row's
    interpreter (TF_PYTHON; 2,751 files on 2.21, another set on each older
    row; on 1.15 the sources are in tensorflow_core) through the whole
    analysis and every rule, the byte pre-filter bypassed, each in its
    package as its project (so flows into sibling modules are followed): no
    internal error, no parse error. The packages are found by that
    interpreter (ROW_PACKAGES), not imported."""
    from tfcompat_threads.codemod import engine

    found = subprocess.run([TF_PYTHON, "-c", ROW_PACKAGES], capture_output=True, text=True, timeout=120, check=True)
    folders = json.loads(found.stdout)
    assert any(Path(folder).name in ("tensorflow", "tensorflow_core") for folder in folders), "the row has tensorflow"
    failures, count = [], 0
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.py")):
            count += 1
            try:
                engine.run(path.read_bytes(), "native", str(path), fix=False)
            except Exception as error:  # noqa: BLE001 - every kind is a failure to report
                failures.append(f"{path}: {type(error).__name__}: {error}")
    assert count > 1000
    assert failures == []


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(st.data())
def test_generated_programs_come_back_byte_identical(data):
    hypothesmith = pytest.importorskip("hypothesmith")
    source = data.draw(hypothesmith.from_node())
    _assert_unchanged(source)


# Statements that look like TensorFlow session code but are not TensorFlow's.
LOOKALIKES = [
    "import requests\n",
    "from mylib import backend as K\n",
    "tf = load_plugin()\n",
    "config = tf.ConfigProto(intra_op_parallelism_threads=2)\n",
    "sess = tf.Session(config=config)\n",
    "K.set_session(sess)\n",
    "s = requests.Session()\n",
    "def make(tf):\n    return tf.Session(config=tf.ConfigProto())\n",
    "with tf.Session() as sess:\n    sess.run(op)\n",
    "config.gpu_options.allow_growth = True  # noqa\n",
    "x = 'tf.ConfigProto()'\n",
    "# tf.Session(config=config)\n",
    "class Session:\n    pass\n",
    "if flag:\n    config.inter_op_parallelism_threads = n\n",
    "tf.config.threading.set_intra_op_parallelism_threads(2)\n",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(LOOKALIKES), max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_lookalikes_without_tensorflow_come_back_byte_identical(lines, newline):
    _assert_unchanged("".join(lines).replace("\n", newline))


def _assert_unchanged(source: str) -> None:
    for target in ("native", "shim"):
        try:
            result = transform(source.encode("utf-8"), target, force=True)
        except CodemodError:
            continue  # code libcst's parser rejects
        assert result.source == source.encode("utf-8")
        assert result.findings == []
