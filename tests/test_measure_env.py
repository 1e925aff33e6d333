"""What OMP_NUM_THREADS, MKL_NUM_THREADS, KMP_* and TF_ENABLE_ONEDNN_OPTS do
on the official tensorflow-cpu wheels (2.15 and the newest): counted, each
scenario in a fresh process. They do not size TensorFlow's pools;
OMP_NUM_THREADS and OPENBLAS_NUM_THREADS do size numpy's OpenBLAS threads.
NOTES.md of the measure branch has the commands and the figures."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.tfproc import TF_PYTHON, assert_pools, run

pytestmark = pytest.mark.tf

CPUS = len(os.sched_getaffinity(0))
MORE = str(CPUS + 3)  # more than the default, fewer would be 1
KNOBS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "KMP_BLOCKTIME", "KMP_AFFINITY", "TF_ENABLE_ONEDNN_OPTS",
         "TF_NUM_INTRAOP_THREADS")


@pytest.mark.parametrize(
    ("env", "intra"),
    [
        ({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "KMP_BLOCKTIME": "0",
          "KMP_AFFINITY": "granularity=fine,compact,1,0", "TF_ENABLE_ONEDNN_OPTS": "0"}, CPUS),
        ({"OMP_NUM_THREADS": MORE, "MKL_NUM_THREADS": MORE, "TF_ENABLE_ONEDNN_OPTS": "1"}, CPUS),
        # the control: the variable that does size the pool, beside OMP_NUM_THREADS
        ({"OMP_NUM_THREADS": MORE, "TF_NUM_INTRAOP_THREADS": "1"}, 1),
    ],
    ids=["all-set-low", "all-set-high", "control-TF_NUM_INTRAOP_THREADS"],
)
@pytest.mark.tf(build="threadpool")  # on an OpenMP build they do (tests/test_openmp_build.py)
def test_openmp_mkl_kmp_onednn_variables_do_not_size_tensorflows_pools(env, intra):
    assert CPUS > 1, "on one CPU, 1 thread is also TensorFlow's default: nothing could be told apart"
    result = run(
        f"""
        import tensorflow as tf
        work(tf)
        emit(cpus=len(os.sched_getaffinity(0)), seen={{k: os.environ.get(k) for k in {KNOBS!r}}})
        """,
        env=env,
    )
    assert {k: v for k, v in result["seen"].items() if v is not None} == env
    assert_pools(result, intra=intra, inter=result["cpus"])


NUMPY = r"""
import json, os
import numpy as np
blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
a = np.random.rand(1500, 1500)
float((a @ a).sum())
print(json.dumps({"blas": blas, "threads": len(os.listdir("/proc/self/task"))}))
"""


def numpy_threads(**env) -> dict:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("OMP_", "OPENBLAS_", "MKL_", "GOTO", "KMP_"))}
    proc = subprocess.run([TF_PYTHON, "-c", NUMPY], capture_output=True, text=True, timeout=120,
                          env={**base, **env})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_omp_and_openblas_num_threads_size_numpys_blas_threads():
    """numpy's OpenBLAS starts one thread per schedulable CPU (the main thread
    is one of them) when imported; OMP_NUM_THREADS or OPENBLAS_NUM_THREADS
    lower that, never above the CPU count; MKL_NUM_THREADS does nothing to it."""
    assert CPUS > 1
    default = numpy_threads()
    assert "openblas" in default["blas"].lower()
    assert default["threads"] == CPUS
    assert numpy_threads(OMP_NUM_THREADS="1")["threads"] == 1
    assert numpy_threads(OPENBLAS_NUM_THREADS="1")["threads"] == 1
    assert numpy_threads(OMP_NUM_THREADS=MORE)["threads"] == CPUS
    assert numpy_threads(MKL_NUM_THREADS="1")["threads"] == CPUS
