"""What must hold on every TensorFlow of the matrix (scripts/test: 1.15 on
Python 3.7 up to the newest), each scenario in a process of its own on
TF_PYTHON, and each count compared with what TensorFlow's own way of asking
for the same sizes gives on the same release: TF 1.x programs run in graph
mode, so there the reference is a ConfigProto given to a session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.tfproc import TF_PYTHON, run, same_openmp, tf_release, total

pytestmark = pytest.mark.tf(since=(1, 15))

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

GRAPH_WORK = """
v1 = tf.compat.v1
if tf.executing_eagerly():
    v1.disable_eager_execution()
x = v1.random.uniform((800, 800))
total = v1.reduce_sum(v1.matmul(x, x))
"""


@pytest.mark.parametrize("when", ["before import tensorflow", "after import tensorflow"])
def test_a_graph_session_with_its_own_config_gets_what_configure_asked(when):
    """The issue's case: configure(1, 1), then TensorFlow's own
    Session(config=ConfigProto(allow_soft_placement=True)): the thread count
    of ConfigProto(1, 1), and the Report says where the values go."""
    configure = ("import tfcompat_threads as tct\n"
                 "report = tct.configure(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)\n")
    first, second = (configure, "") if when.startswith("before") else ("", configure)
    shimmed = run(first + "import tensorflow as tf\n" + GRAPH_WORK + second + """
with v1.Session(config=v1.ConfigProto(allow_soft_placement=True)) as sess:
    sess.run(total)
emit(hows=[a.how for a in report.applied if a.field != "OMP_NUM_THREADS"],  # an OpenMP build's third pool
     skipped=[s.field for s in report.skipped])
""")
    reference = run("import tensorflow as tf\n" + GRAPH_WORK + """
with v1.Session(config=v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)) as s:
    s.run(total)
emit(cpus=len(os.sched_getaffinity(0)))
""", env=same_openmp(shimmed))
    default = run("import tensorflow as tf\n" + GRAPH_WORK + """
with v1.Session(config=v1.ConfigProto(allow_soft_placement=True)) as s:
    s.run(total)
emit()
""")
    assert total(shimmed) == total(reference), (shimmed["threads"], reference["threads"])
    if reference["cpus"] > 1:  # the case can tell: TensorFlow's default is more threads
        assert total(default) > total(reference), (default["threads"], reference["threads"])
    assert shimmed["skipped"] == [] and len(shimmed["hows"]) == 2
    if tf_release() < (2, 4) or when.startswith("after"):
        assert all("every session made from now on, TensorFlow's own included" in how for how in shimmed["hows"])


@pytest.mark.parametrize(("intra", "inter"), [(1, 3), (3, 2)])
def test_probe_reports_the_asked_sizes_and_the_threads_tensorflow_makes_for_them(intra, inter):
    proc = subprocess.run([TF_PYTHON, "-m", "tfcompat_threads", "probe", "--intra", str(intra), "--inter",
                           str(inter), "--json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["observed"] == {"intra_op": intra, "inter_op": inter}, data
    # the probe's process has the threads TensorFlow's own way gives on this release
    if tf_release() < (2, 0):
        reference = run("import tensorflow as tf\n" + GRAPH_WORK + f"""
session = v1.Session(config=v1.ConfigProto(intra_op_parallelism_threads={intra},
                                           inter_op_parallelism_threads={inter}))
session.run(total)
emit()
""")
    else:  # an OpenMP build: with the OMP_NUM_THREADS the probe's process had (the shim's, from --intra)
        omp = (data.get("openmp") or {}).get("OMP_NUM_THREADS")
        reference = run(f"""
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads({intra})
tf.config.threading.set_inter_op_parallelism_threads({inter})
work(tf)
emit()
""", env={"OMP_NUM_THREADS": omp} if omp else None)
    assert sum(data["threads"].values()) == total(reference), (data["threads"], reference["threads"])


def test_eager_pools_are_the_pools_tensorflows_own_api_makes():
    """TF2 eager, and TF 1.x after enable_eager_execution()."""
    eager = "import tensorflow as tf\nif not tf.executing_eagerly():\n    tf.compat.v1.enable_eager_execution()\n"
    shimmed = run(eager + """
import tfcompat_threads as tct
report = tct.configure(intra_op_parallelism_threads=3, inter_op_parallelism_threads=2)
work(tf)
emit(skipped=[s.field for s in report.skipped])
""")
    reference = run(eager + """
tf.config.threading.set_intra_op_parallelism_threads(3)
tf.config.threading.set_inter_op_parallelism_threads(2)
work(tf)
emit()
""", env=same_openmp(shimmed))
    assert shimmed["skipped"] == []
    assert total(shimmed) == total(reference), (shimmed["threads"], reference["threads"])


def test_device_fields_use_the_names_the_release_has():
    """tf.config.list_physical_devices and set_visible_devices first exist in
    2.1; before, only the tf.config.experimental spellings: never an
    AttributeError, on a host without GPUs nothing to do, as TF1 did."""
    result = run("""
import tensorflow as tf
if not tf.executing_eagerly():
    tf.compat.v1.enable_eager_execution()
import tfcompat_threads as tct
report = tct.configure(gpu_options={"allow_growth": True}, device_count={"GPU": 0, "CPU": 2})
work(tf)
emit(applied={a.field: a.how for a in report.applied}, skipped=[s.field for s in report.skipped],
     cpus=len(tf.config.experimental.list_logical_devices("CPU")))
""")
    assert set(result["applied"]) == {"gpu_options.allow_growth", "device_count.GPU", "device_count.CPU"}, result
    assert result["skipped"] == [] and result["cpus"] == 2


def _on_the_rows_python(*args: str, python: str = TF_PYTHON, cwd=None) -> subprocess.CompletedProcess:
    """This checkout's tfcompat-threads on the row's interpreter."""
    import os

    env = {**os.environ, "PYTHONPATH": str(FIXTURES.parent), "NO_COLOR": "1"}
    return subprocess.run([python, "-m", "tfcompat_threads", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=cwd)


@pytest.mark.tf(since=(1, 15))
def test_the_linter_needs_python_3_10_and_says_so_in_one_line(tmp_path):
    (tmp_path / "a.py").write_text("import tensorflow as tf\ns = tf.Session()\n")
    proc = _on_the_rows_python("check", str(tmp_path))
    version = subprocess.run([TF_PYTHON, "-c", "import sys; print(sys.version_info[:2] >= (3, 10))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    if version == "True":
        assert proc.returncode == 1 and "TFT002" in proc.stdout, proc.stdout + proc.stderr
    else:
        assert proc.returncode == 2 and proc.stdout == ""
        [line] = proc.stderr.splitlines()
        assert "needs Python 3.10 or newer" in line and "rule, run, explain, probe, tune and the shim work here" in line
        assert "`language_version: python3.10` or newer" in line, "what fixes a pre-commit hook"


@pytest.mark.tf(since=(1, 15))
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_rule_prints_on_every_python_what_it_prints_on_the_newest(tmp_path, output_format):
    """`rule` needs no analysis: on Python 3.7 it prints what it prints on 3.13."""
    import sys

    here = _on_the_rows_python("rule", "--all", "--output-format", output_format, python=sys.executable, cwd=tmp_path)
    there = _on_the_rows_python("rule", "--all", "--output-format", output_format, cwd=tmp_path)
    assert here.returncode == 0 and "TFT001" in here.stdout and "config-only-session" in here.stdout, here.stderr
    assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
    unknown = _on_the_rows_python("rule", "TFX001", cwd=tmp_path)
    assert unknown.returncode == 2 and "did you mean TFT001?" in unknown.stderr


def test_the_rules_documentation_read_from_their_source_is_theirs():
    """What `rule` reads on Python 3.7-3.9 (lint/rule_docs.py) is each rule's own documentation."""
    from tfcompat_threads.codemod.rules import REDIRECTS, RULES
    from tfcompat_threads.lint.rule_docs import rules_namespace

    names = rules_namespace()
    assert names["REDIRECTS"] == REDIRECTS and list(names["RULES"]) == list(RULES)
    fields = ("code", "name", "severity", "summary", "what", "why", "example", "use_instead", "fix_safety",
              "fixable", "default", "anchor")
    for code, rule in RULES.items():
        assert [getattr(names["RULES"][code], f) for f in fields] == [getattr(rule, f) for f in fields], code


def runnable_shim_fixtures():
    return sorted(p.parent for p in FIXTURES.glob("*/run.json") if (p.parent / "shim.py").exists())


@pytest.mark.tf(since=(1, 15), before=(2, 0))
@pytest.mark.parametrize("folder", runnable_shim_fixtures(), ids=lambda p: p.name)
def test_a_shim_fix_keeps_the_legacy_programs_pools_on_tf1(folder):
    """The shim target's output runs unchanged on TF 1.x with the pools the
    legacy program has there (TensorFlow's own ConfigProto, the reference).
    On TF2 rows test_codemod_fixtures runs it against what the legacy program
    asked for."""
    legacy = run((folder / "input.py").read_text(encoding="utf-8") + "\nemit()\n")
    shim = run((folder / "shim.py").read_text(encoding="utf-8") + "\nemit()\n")
    assert total(shim) == total(legacy), (shim["threads"], legacy["threads"])


def test_run_counts_each_setting_or_says_it_cannot(tmp_path):
    """`run` on the row's TensorFlow: TF2 eager counts each pool; TF 1.x
    graph sessions cannot be told apart by a count, and run says so instead
    of a wrong number."""
    program = tmp_path / "program.py"
    if tf_release() < (2, 0):
        program.write_text(
            "import tensorflow as tf\n"
            "config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)\n"
            "x = tf.random.uniform((300, 300))\n"
            "with tf.Session(config=config) as sess:\n"
            "    sess.run(tf.reduce_sum(tf.matmul(x, x)))\n")
    else:
        program.write_text(
            "import tensorflow as tf\n"
            "tf.config.threading.set_intra_op_parallelism_threads(2)\n"
            "tf.config.threading.set_inter_op_parallelism_threads(1)\n"
            "x = tf.random.uniform((300, 300))\n"
            "tf.matmul(x, x)\n")
    report = tmp_path / "report.json"
    proc = subprocess.run([TF_PYTHON, "-m", "tfcompat_threads", "run", "--json", "--output", str(report), "--",
                           TF_PYTHON, str(program)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    [process] = json.loads(report.read_text())["processes"]
    verdicts = {s["field"]: s["verdict"] for s in process["settings"]}
    fields = {"intra_op_parallelism_threads", "inter_op_parallelism_threads"}
    if tf_release() < (2, 0):
        assert verdicts == dict.fromkeys(fields, "not counted"), process
        # one account (issue 30): no thread called intra-op or inter-op where the pools' split is unknown,
        # and why is said once, where the pools are counted
        roles = {role for counts in process["threads_at_exit_explained"].values() for role in counts}
        assert not any("intra-op" in role or "inter-op" in role for role in roles), process
        text = subprocess.run([TF_PYTHON, "-m", "tfcompat_threads", "run", "--", TF_PYTHON, str(program)],
                              capture_output=True, text=True, timeout=600).stderr
        assert text.count("cannot tell its pools apart") == 1, text
    else:
        assert verdicts == dict.fromkeys(fields, "applied"), process


def test_a_session_given_no_configproto_gets_tensorflows_own_error():
    """The wrapped BaseSession merges only a ConfigProto: anything else goes
    to TensorFlow as it was, which refuses it as it always did."""
    result = run("import tensorflow as tf\n" + GRAPH_WORK + """
import tfcompat_threads as tct
tct.configure(intra_op_parallelism_threads=1)
try:
    v1.Session(config="not a config")
except TypeError as error:
    emit(error=str(error))
""")
    assert "must be a tf.ConfigProto" in result["error"], result["error"]  # 2.21: "Argument `config` must be ..."
