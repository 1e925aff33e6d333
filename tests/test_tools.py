"""explain, probe and tune, run for real through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.tfproc import assert_pools, run

CLI = [sys.executable, "-m", "tfcompat_threads"]


def cli_json(*args):
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_explain_reports_each_pool_and_its_source():
    env = {"TF_NUM_INTRAOP_THREADS": "3", "OMP_NUM_THREADS": "4", "KMP_BLOCKTIME": "0"}
    env_without_inter = {k: v for k, v in os.environ.items() if k != "TF_NUM_INTEROP_THREADS"}
    proc = subprocess.run([*CLI, "explain", "--json"], capture_output=True, text=True,
                          env={**env_without_inter, **env})
    data = json.loads(proc.stdout)
    cpus = len(os.sched_getaffinity(0))
    assert data["mode"] == "tf2-eager" and data["tensorflow"].startswith("2.")
    assert data["keras"] == ("3" if tuple(map(int, data["tensorflow"].split(".")[:2])) >= (2, 16) else "2")
    assert data["cpus"] == cpus
    assert data["intra_op"] == {"configured": 0, "env": 3, "effective": 3, "source": "env"}
    assert data["inter_op"] == {"configured": 0, "env": None, "effective": cpus, "source": "default"}
    assert data["env"]["OMP_NUM_THREADS"] == "4" and data["env"]["KMP_BLOCKTIME"] == "0"
    assert "from TF_NUM_INTRAOP_THREADS=3" in data["notes"]["intra_op"]
    text = subprocess.run([*CLI, "explain"], capture_output=True, text=True, env={**env_without_inter, **env}).stdout
    assert "intra-op pool: 3 threads (source: env" in text


@pytest.mark.tf
@pytest.mark.parametrize(("intra", "inter"), [(3, 2), (1, 1), (0, 0)])
def test_probe_counts_what_an_independent_workload_counts(intra, inter):
    data = cli_json("probe", "--intra", str(intra), "--inter", str(inter), "--json")
    assert data["requested"] == {"intra_op": intra, "inter_op": inter}
    # the same sizes, applied the same way, counted by the tests' own code
    independent = run(
        f"""
        import tensorflow as tf
        import tfcompat_threads as tct
        tct.configure(intra_op_parallelism_threads={intra}, inter_op_parallelism_threads={inter})
        work(tf)
        emit(cpus=len(os.sched_getaffinity(0)))
        """
    )
    cpus = independent["cpus"]
    expected = {"intra_op": intra or cpus, "inter_op": inter or cpus}
    assert data["observed"] == expected, data
    assert_pools(independent, intra=expected["intra_op"], inter=expected["inter_op"])


SLEEPER = (
    "import os, sys, time\n"
    "intra = os.environ.get('TF_NUM_INTRAOP_THREADS')\n"
    "if intra == '3':\n"
    "    print('boom: no such pool', file=sys.stderr); sys.exit(3)\n"
    "time.sleep(0.02 if intra == '2' else 0.25)\n"
)


def test_tune_finds_the_fastest_point_and_reports_failures():
    data = cli_json("tune", "--intra", "1,2,3", "--inter", "1", "--repeat", "3", "--warmup", "1", "--json", "--",
                    sys.executable, "-c", SLEEPER)
    points = [(r["intra_op"], r["inter_op"]) for r in data["results"]]
    assert points == [(0, 0), (1, 1), (2, 1), (3, 1)]
    default, one, two, three = data["results"]
    assert default["env"] == {} and two["env"] == {"TF_NUM_INTRAOP_THREADS": "2", "TF_NUM_INTEROP_THREADS": "1"}
    assert len(two["runs"]) == 3 and two["median_s"] < 0.2 < one["median_s"]
    assert three["failed"] == {"exit_code": 3, "stderr_tail": "boom: no such pool"} and three["runs"] == []
    assert data["best"] == {"intra_op": 2, "inter_op": 1, "median_s": two["median_s"]}
    assert data["beats_default"] is True and data["improvement"] > 0.5


def point(median, low, high):
    return {"intra_op": 2, "inter_op": 1, "median_s": median, "min_s": low, "max_s": high}


@pytest.mark.parametrize(
    ("best", "default", "beats", "words"),
    [
        (point(0.8, 0.78, 0.82), point(1.0, 0.95, 1.05), True, "more than the noise"),
        (point(0.9, 0.80, 0.99), point(1.0, 0.95, 1.05), False, "within the noise"),
    ],
)
def test_tune_verdict_needs_ranges_that_do_not_overlap(best, default, beats, words):
    from tfcompat_threads.measure.tune import _verdict

    verdict = _verdict(best, default)
    assert verdict["beats_default"] is beats and words in verdict["verdict"]


def test_tune_verdict_when_the_default_is_fastest():
    from tfcompat_threads.measure.tune import _verdict

    default = point(1.0, 0.9, 1.1)
    assert _verdict(default, default)["verdict"].startswith("TensorFlow's default is the fastest")


@pytest.mark.tf
def test_tune_on_a_real_tensorflow_workload():
    workload = (
        "import tensorflow as tf\n"
        "x = tf.random.uniform((400, 400))\n"
        "for _ in range(30):\n"
        "    x = tf.tanh(tf.matmul(x, x) / 400.0)\n"
        "float(tf.reduce_sum(x))\n"
    )
    data = cli_json("tune", "--intra", "1,2", "--inter", "1", "--repeat", "1", "--warmup", "0", "--json", "--",
                    sys.executable, "-c", workload)
    assert [r["failed"] for r in data["results"]] == [None, None, None]
    assert all(r["median_s"] > 0 for r in data["results"])
    assert (data["best"]["intra_op"], data["best"]["inter_op"]) in [(0, 0), (1, 1), (2, 1)]
    assert isinstance(data["beats_default"], bool)
