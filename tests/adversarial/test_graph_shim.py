"""The graph-mode shim never silently gives a session other pools than it
asks (issue 29 items 4 and 5).

Each scenario runs on a row's TensorFlow in a process of its own
(tests/tfproc.py) and counts the threads it made, against the same program
run on TensorFlow's own sessions without the shim.
"""

from __future__ import annotations

import pytest

from tests import tfproc

GRAPH = """
import warnings
warnings.simplefilter("ignore")
import tensorflow as tf
v1 = tf.compat.v1
v1.disable_eager_execution()
x = v1.random.uniform((300, 300))
total = v1.reduce_sum(v1.matmul(x, x))

def pool_config(size, device_filter):
    config = v1.ConfigProto()
    config.session_inter_op_thread_pool.add().num_threads = size
    config.device_filters.append(device_filter)
    return config
"""

OWN_POOL = GRAPH + """
{shim}
session = v1.Session(config=pool_config(5, "/job:localhost/replica:0/task:0/device:CPU:0"))
session.run(total)
emit(pools=[p.num_threads for p in session._config.session_inter_op_thread_pool],
     filters=list(session._config.device_filters))
"""


@pytest.mark.tf
def test_a_sessions_own_repeated_fields_are_kept_over_configure():
    """Item 4: configure() asked for a session pool of 3 and a device filter;
    a session whose config asks for a pool of 5 and another filter runs on
    its own pool of 5 only (protobuf's MergeFrom appended: [3, 5], and
    session.run used the 3), with its own filter only."""
    shim = ('import tfcompat_threads as tct\n'
            'tct.configure(pool_config(3, "/job:localhost/replica:0/task:0/device:CPU:1"))')
    wrapped = tfproc.run(OWN_POOL.format(shim=shim))
    own = tfproc.run(OWN_POOL.format(shim=""))
    assert wrapped["pools"] == own["pools"] == [5], (wrapped["pools"], own["pools"])
    assert wrapped["filters"] == own["filters"] == ["/job:localhost/replica:0/task:0/device:CPU:0"]
    assert tfproc.total(wrapped) == tfproc.total(own), (wrapped["threads"], own["threads"])


EARLIER_SESSION = GRAPH + """
import tfcompat_threads as tct
first = v1.Session(config=v1.ConfigProto(inter_op_parallelism_threads=2))
first.run(total)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    report = tct.configure(inter_op_parallelism_threads=3, on_conflict="warn")
said = tct.effective().inter_op.effective
second = v1.Session()
second.run(total)
emit(applied=[a.field for a in report.applied], skipped=[s.reason for s in report.skipped],
     warned=[str(w.message) for w in caught], said=said)
"""

EARLIER_REFERENCE = GRAPH + """
first = v1.Session(config=v1.ConfigProto(inter_op_parallelism_threads=2))
first.run(total)
second = v1.Session(config=v1.ConfigProto(inter_op_parallelism_threads=2))
second.run(total)
emit()
"""


@pytest.mark.tf
def test_a_session_made_before_the_first_configure_fixes_the_pools_and_configure_says_so():
    """Item 5: a session made before the first configure() fixed the pools
    (inter-op 2); a later configure(inter_op_parallelism_threads=3) is not
    "applied", warns, and effective() says 2, which is what the next
    session runs on (counted: as many threads as two sessions of 2)."""
    # On an OpenMP build each inter-op thread that starts a oneDNN op gets an OpenMP team of its own, so
    # how many workers exist depends on which threads ran the ops: one thread per team keeps the count
    # to the pools this test is about.
    env = {"OMP_NUM_THREADS": "1"} if tfproc.openmp_build() else None
    result = tfproc.run(EARLIER_SESSION, env=env)
    assert result["applied"] == [], result
    assert len(result["skipped"]) == 1 and "already runs with 2 threads" in result["skipped"][0], result
    assert any("inter_op_parallelism_threads=3" in w for w in result["warned"]), result["warned"]
    assert result["said"] == 2
    assert tfproc.total(result) == tfproc.total(tfproc.run(EARLIER_REFERENCE, env=env)), result["threads"]
