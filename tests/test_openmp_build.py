"""Intel's OpenMP build (issue 27): the tools know the build from what
TensorFlow itself says and loads, and the shim keeps a legacy intra-op
count's meaning there.

On intel-tensorflow (2.14 on Python 3.11 in scripts/test) oneDNN reports
`cpu,runtime:OpenMP` and its matmuls and convolutions run on an OpenMP pool
sized by OMP_NUM_THREADS (default: the CPUs), whatever the intra-op setting;
the official wheels report `cpu,runtime:threadpool`. Every pool here is
counted from the threads of a TensorFlow process of its own
(tests/tfproc.py), against TensorFlow's own API on the same build.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests import tfproc

BUILD = "from tfcompat_threads.shim import build; print(json.dumps(build.openmp_runtime()))"


@pytest.mark.tf
def test_the_build_is_told_from_what_tensorflow_says_and_loads():
    """The package's answer (from the libraries TensorFlow's framework
    library needs, without importing it) is what oneDNN says at run time
    and what the process maps: OpenMP and libiomp5 on Intel's build,
    threadpool and no OpenMP library on the official wheels; `explain`
    names the OpenMP build and says what OMP_NUM_THREADS sizes there."""
    said = tfproc.onednn_runtime()
    package = json.loads(subprocess.run([tfproc.TF_PYTHON, "-c", "import json\n" + BUILD], capture_output=True,
                                        text=True, timeout=120, check=True).stdout)
    explained = json.loads(subprocess.run([tfproc.TF_PYTHON, "-m", "tfcompat_threads", "explain", "--json"],
                                          capture_output=True, text=True, timeout=120, check=True).stdout)
    assert said["runtime"] in ("OpenMP", "threadpool"), said
    if said["runtime"] == "OpenMP":
        assert package is not None and package in said["mapped"], (package, said)
        assert explained["build"] == {"openmp": package}
        assert "OpenMP build" in explained["notes"]["OMP_NUM_THREADS"]
    else:
        assert package is None and said["mapped"] == [], (package, said)
        assert "build" not in explained and "official wheels" in explained["notes"]["OMP_NUM_THREADS"]


CONFIGURE = """
import os, warnings
warnings.simplefilter("ignore")
import tfcompat_threads as tct
report = tct.configure(intra_op_parallelism_threads={intra}, inter_op_parallelism_threads=1)
import tensorflow as tf
work(tf)
emit(applied={{a.field: a.how for a in report.applied}}, skipped={{s.field: s.reason for s in report.skipped}},
     omp=os.environ.get("OMP_NUM_THREADS"))
"""

OWN_API = """
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads({intra})
tf.config.threading.set_inter_op_parallelism_threads(1)
work(tf)
emit()
"""


LEGACY_SESSION = """
import os, warnings
warnings.simplefilter("ignore")
import tensorflow as tf
import tfcompat_threads as tct
session = tct.Session(config=tct.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1))
work(tf)
emit(omp=os.environ.get("OMP_NUM_THREADS"))
"""


@pytest.mark.tf
def test_an_intra_op_count_sizes_what_runs_one_op_on_each_build():
    """configure(intra_op_parallelism_threads=1) before TensorFlow starts,
    and a legacy program's Session(config=ConfigProto(intra_op_parallelism_threads=1))
    after the import: on an OpenMP build each also sets OMP_NUM_THREADS=1
    (the user left it unset) and configure says so in the Report; each
    process has as many threads as TensorFlow's own API with
    OMP_NUM_THREADS=1, and fewer than without it (the OpenMP pool of the 2+
    CPUs has a worker more). On the official wheels nothing but the two
    pools is touched."""
    result = tfproc.run(CONFIGURE.format(intra=1))
    session = tfproc.run(LEGACY_SESSION)
    own = tfproc.run(OWN_API.format(intra=1))
    if tfproc.openmp_build():
        assert result["omp"] == session["omp"] == "1" and "OMP_NUM_THREADS" in result["applied"], result["applied"]
        assert "OpenMP build" in result["applied"]["OMP_NUM_THREADS"]
        own_omp = tfproc.run(OWN_API.format(intra=1), env={"OMP_NUM_THREADS": "1"})
        assert tfproc.total(result) == tfproc.total(session) == tfproc.total(own_omp) < tfproc.total(own), \
            (result["threads"], session["threads"], own_omp["threads"], own["threads"])
    else:
        assert result["omp"] is None and set(result["applied"]) == {"intra_op_parallelism_threads",
                                                                    "inter_op_parallelism_threads"}
        assert result["skipped"] == {} and session["omp"] is None
        assert tfproc.total(result) == tfproc.total(session) == tfproc.total(own), \
            (result["threads"], session["threads"], own["threads"])


@pytest.mark.tf(build="openmp")
def test_an_omp_num_threads_the_user_set_is_kept_and_reported():
    """OMP_NUM_THREADS=3 in the environment: configure(intra_op=1) leaves it,
    reports it skipped with the reason; the process counts as TensorFlow's
    own API with OMP_NUM_THREADS=3 (an OpenMP pool of 3, more threads than 1)."""
    result = tfproc.run(CONFIGURE.format(intra=1), env={"OMP_NUM_THREADS": "3"})
    assert result["omp"] == "3" and "OMP_NUM_THREADS" not in result["applied"], result["applied"]
    assert "left as the environment sets it (OMP_NUM_THREADS='3'" in result["skipped"]["OMP_NUM_THREADS"]
    own3 = tfproc.run(OWN_API.format(intra=1), env={"OMP_NUM_THREADS": "3"})
    own1 = tfproc.run(OWN_API.format(intra=1), env={"OMP_NUM_THREADS": "1"})
    assert tfproc.total(result) == tfproc.total(own3) == tfproc.total(own1) + 2, \
        (result["threads"], own3["threads"], own1["threads"])


LATE = """
import os, warnings
warnings.simplefilter("ignore")
import tensorflow as tf
work(tf)
import tfcompat_threads as tct
report = tct.configure(intra_op_parallelism_threads=tct.effective().intra_op.effective)
emit(applied=[a.field for a in report.applied], skipped={s.field: s.reason for s in report.skipped},
     omp=os.environ.get("OMP_NUM_THREADS"))
"""


@pytest.mark.tf(build="openmp")
def test_too_late_for_the_openmp_pool_is_reported_not_applied():
    """After the first op the OpenMP pool runs with the CPUs' count: a
    configure() then keeps the intra-op pool (the same size), does not
    claim OMP_NUM_THREADS, and says to set it before the process starts."""
    result = tfproc.run(LATE)
    assert result["applied"] == ["intra_op_parallelism_threads"] and result["omp"] is None, result
    assert "set OMP_NUM_THREADS=" in result["skipped"]["OMP_NUM_THREADS"], result["skipped"]


@pytest.mark.tf(build="openmp")
def test_probe_counts_the_openmp_pool_apart_from_the_two_pools():
    """`probe --intra 1 --inter 1 --env OMP_NUM_THREADS=4`: intra-op 1,
    inter-op 1 and an OpenMP pool of 4 (the OpenMP threads were counted as
    intra-op: 4); its threads in all are those of TensorFlow's own API with
    OMP_NUM_THREADS=4, and 3 more than with OMP_NUM_THREADS=1."""
    done = subprocess.run([tfproc.TF_PYTHON, "-m", "tfcompat_threads", "probe", "--intra", "1", "--inter", "1",
                           "--env", "OMP_NUM_THREADS=4", "--json"], capture_output=True, text=True, timeout=300, check=False,
                          env=tfproc.child_env())
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["observed"] == {"intra_op": 1, "inter_op": 1}, data
    assert data["openmp"]["threads"] == 4 and data["openmp"]["OMP_NUM_THREADS"] == "4", data["openmp"]
    own4 = tfproc.run(OWN_API.format(intra=1), env={"OMP_NUM_THREADS": "4"})
    own1 = tfproc.run(OWN_API.format(intra=1), env={"OMP_NUM_THREADS": "1"})
    counted = sum(data["threads"].values())
    assert counted == tfproc.total(own4) == tfproc.total(own1) + 3, (data["threads"], own4["threads"])


ISSUE_PROGRAM = """
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
x = tf.random.uniform((1500, 1500))
y = tf.matmul(x, x)
image, kernel = tf.random.uniform((1, 64, 64, 8)), tf.random.uniform((3, 3, 8, 8))
z = tf.nn.conv2d(image, kernel, strides=1, padding="SAME")
float(tf.reduce_sum(y)) + float(tf.reduce_sum(z))
emit()
"""


@pytest.mark.tf
def test_run_counts_the_openmp_pool_the_heavy_ops_ran_on(tmp_path):
    """`run` on issue 27's program (a 1500x1500 matmul and a conv2d after
    both pools are set to 1, OMP_NUM_THREADS unset): on an OpenMP build the
    OpenMP pool has a line of its own with its size counted, as many threads
    as TensorFlow's own API gives that pool (its threads without
    OMP_NUM_THREADS, less those with OMP_NUM_THREADS=1, plus the thread that
    leads it); the intra-op verdict says the heavy ops ran on it. On the
    official wheels the report has no OpenMP word."""
    from tfcompat_threads.measure.run import format_report

    recorded = tmp_path / "report.json"
    tfproc.run(ISSUE_PROGRAM, recorded=recorded)
    report = json.loads(recorded.read_text())
    [process] = report["processes"]
    text = format_report(report)
    intra = next(s for s in process["settings"] if s["field"] == "intra_op_parallelism_threads")
    assert intra["verdict"] == "applied", intra
    if tfproc.openmp_build():
        pool = tfproc.reference_total(1, 1) - tfproc.reference_total(1, 1, "1") + 1
        assert pool >= 2 and process["openmp"]["threads"] == pool, (process["openmp"], pool)
        said = (f"the heavy ops (oneDNN's matmuls and convolutions) ran on an OpenMP pool of {pool} threads "
                "(counted), sized by OMP_NUM_THREADS (unset: the CPUs)")
        assert intra["why"].endswith(f"; but {said}, not by this setting"), intra
        line = f"  OpenMP pool ({process['openmp']['library']}): {said}, not by intra_op_parallelism_threads"
        assert line in text.splitlines(), text
        assert [s["field"] for s in process["settings"]] == ["intra_op_parallelism_threads",
                                                            "inter_op_parallelism_threads"]
    else:
        assert "openmp" not in process and "OpenMP" not in text, text


@pytest.mark.tf(build="openmp")
def test_run_gives_omp_num_threads_a_verdict_of_its_own(tmp_path):
    """OMP_NUM_THREADS=3 in the command's environment: a setting of its own,
    applied, the OpenMP pool counted at 3; the threads at exit name its
    workers (2 besides the main thread)."""
    recorded = tmp_path / "report.json"
    tfproc.run(ISSUE_PROGRAM, recorded=recorded, env={"OMP_NUM_THREADS": "3"})
    [process] = json.loads(recorded.read_text())["processes"]
    omp = next(s for s in process["settings"] if s["field"] == "OMP_NUM_THREADS")
    counted = (omp["value"], omp["verdict"], process["openmp"]["threads"])
    assert counted == ("3", "applied", 3), (omp, process["openmp"])
    workers = sum(roles.get("OpenMP pool (oneDNN's matmuls and convolutions)", 0)
                  for roles in process["threads_at_exit_explained"].values())
    assert workers == 2, process["threads_at_exit_explained"]


TUNED = """
import json, os, sys
import tensorflow as tf
x = tf.random.uniform((300, 300))
for _ in range(3):
    x = tf.tanh(tf.matmul(x, x) / 300.0)
float(tf.reduce_sum(x))
with open(sys.argv[1], "a") as log:
    log.write(json.dumps({"omp": os.environ.get("OMP_NUM_THREADS"), "intra": os.environ.get("TF_NUM_INTRAOP_THREADS"),
                          "threads": len(os.listdir("/proc/self/task"))}) + "\\n")
"""


@pytest.mark.tf(build="openmp")
def test_tune_sweeps_omp_num_threads_on_an_openmp_build(tmp_path):
    """`tune --intra 1 --inter 1 --omp 1,2`: the default point (OMP_NUM_THREADS
    unset) and 1/1/1, 1/1/2, each run a process of its own with that
    OMP_NUM_THREADS, counted in it: the process at 2 has one thread more than
    at 1 (the OpenMP pool's worker); the report, its text and --plot name
    every point with its OMP_NUM_THREADS."""
    import sys

    from PIL import Image

    from tfcompat_threads.measure.tune import format_tune

    log, picture = tmp_path / "runs.jsonl", tmp_path / "tune.png"
    done = subprocess.run([sys.executable, "-m", "tfcompat_threads", "tune", "--intra", "1", "--inter", "1",
                           "--omp", "1,2", "--repeat", "1", "--warmup", "0", "--json", "--plot", str(picture), "--",
                           tfproc.TF_PYTHON, "-c", TUNED, str(log)], capture_output=True, text=True, timeout=900,
                          env=tfproc.child_env())
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout)
    assert data["openmp"] == tfproc.onednn_runtime()["mapped"][0]
    points = [(r["intra_op"], r["inter_op"], r["omp"], r["env"], r["failed"]) for r in data["results"]]
    assert points == [(0, 0, 0, {}, None),
                      (1, 1, 1, {"TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1", "OMP_NUM_THREADS": "1"},
                       None),
                      (1, 1, 2, {"TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1", "OMP_NUM_THREADS": "2"},
                       None)], points
    runs = {(r["intra"], r["omp"]): r["threads"] for r in map(json.loads, log.read_text().splitlines())}
    assert set(runs) == {(None, None), ("1", "1"), ("1", "2")}, runs  # the first run is the default point's
    assert runs[("1", "2")] == runs[("1", "1")] + 1, runs
    assert Image.open(picture).text["Description"] == "tune: dflt/dflt/dflt, 1/1/1, 1/1/2"
    text = format_tune(data).splitlines()
    assert text[0].split() == ["intra", "inter", "omp", "median", "s", "min", "s", "max", "s", "spread"]
    assert [line.split()[:3] for line in text[1:4]] == [["dflt", "dflt", "dflt"], ["1", "1", "1"], ["1", "1", "2"]]
    assert "omp = OMP_NUM_THREADS, the size of the OpenMP pool" in text[4], text[4]
    assert text[5].startswith("best: ") and "OpenMP pool" in text[5], text[5]  # whichever point is fastest


@pytest.mark.tf(build="threadpool")
def test_tune_refuses_omp_on_a_build_without_openmp(tmp_path):
    """On the official wheels (no OpenMP library): `tune --omp 1,2` says in
    one line, exit 2, that OMP_NUM_THREADS sizes none of its pools, after
    the one run that tells the build (and no point runs)."""
    import sys

    log = tmp_path / "runs.jsonl"
    done = subprocess.run([sys.executable, "-m", "tfcompat_threads", "tune", "-q", "--omp", "1,2", "--",
                           tfproc.TF_PYTHON, "-c", TUNED, str(log)], capture_output=True, text=True, timeout=600,
                          env=tfproc.child_env())
    assert (done.returncode, done.stdout) == (2, ""), done
    [line] = done.stderr.splitlines()
    assert line.startswith("Error: --omp: the TensorFlow ") and line.endswith(
        " is not an OpenMP build (it loads no OpenMP library: its oneDNN ops run on the intra-op pool), so "
        "OMP_NUM_THREADS sizes none of its pools; sweep --intra and --inter"), line
    assert len(log.read_text().splitlines()) == 1  # the run that told the build; no point ran
