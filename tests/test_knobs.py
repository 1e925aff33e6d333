"""What the two knobs do, as the README's "What the two knobs do" section says:
each claim there that is not a shim behaviour is measured here on the real
TensorFlow, one fresh process per scenario, by counting the process's
threads or by ops that wait for each other (never by wall time)."""

import os
import textwrap

import pytest

from tests.tfproc import assert_pools, openmp_build, run, tf_names_threads

pytestmark = pytest.mark.tf

WAITERS = """
import threading
import tensorflow as tf

met = []

def waiter(x):
    # a blocking op: it holds its inter-op thread while it waits for the other
    # op at a barrier (a thread, not a CPU); it gets through only if both run at once
    try:
        meeting.wait()
        met.append(True)
    except threading.BrokenBarrierError:
        met.append(False)
    return x
"""


@pytest.mark.parametrize("mode", ["graph", "tf.function"])
@pytest.mark.parametrize("inter", [1, 2])
def test_independent_blocking_ops_wait_for_a_free_inter_op_thread(mode, inter):
    """Two independent ops that each wait for the other at a barrier: on an
    inter-op pool of 2 threads both run at once and get through; on a pool
    of 1 the first waits alone until the barrier gives up (1 s), and only
    then does the second start. Nothing here depends on how fast the machine
    is: with one thread they never meet, whatever the wait; with two they
    meet as soon as both have started (a wait of up to 120 s)."""
    wait = 1 if inter == 1 else 120
    if mode == "graph":
        body = f"""
        tf.compat.v1.disable_eager_execution()
        a = tf.compat.v1.py_func(waiter, [tf.constant(1.0)], tf.float32)
        b = tf.compat.v1.py_func(waiter, [tf.constant(2.0)], tf.float32)
        total = a + b
        config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads={inter})
        with tf.compat.v1.Session(config=config) as session:
            meeting = threading.Barrier(2, timeout={wait})
            session.run(total)
        """
    else:  # stateless, so that tf.function does not order them
        body = f"""
        tf.config.threading.set_inter_op_parallelism_threads({inter})

        @tf.function
        def both(x, y):
            a = tf.numpy_function(waiter, [x], tf.float32, stateful=False)
            b = tf.numpy_function(waiter, [y], tf.float32, stateful=False)
            return a + b

        meeting = threading.Barrier(2, timeout={wait})
        both(tf.constant(1.0), tf.constant(2.0))
        """
    met = run(WAITERS + textwrap.dedent(body) + "emit(met=met)\n")["met"]
    if inter == 1:
        assert met == [False, False], f"one inter-op thread: the two ops cannot run at once ({met})"
    else:
        assert met == [True, True], f"two inter-op threads: the two ops run at once ({met})"


def test_one_and_one_is_not_one_thread():
    """intra 1, inter 1: the process still has its main thread and TensorFlow's
    graph runner beside one thread in each pool; on an OpenMP build (Intel's)
    also the OpenMP pool's workers, one per CPU but the thread running the op
    (OMP_NUM_THREADS unset)."""
    result = run(
        """
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        work(tf)
        emit()
        """
    )
    assert_pools(result, intra=1, inter=1)
    openmp_workers = len(os.sched_getaffinity(0)) - 1 if openmp_build() else 0
    assert sum(result["threads"].values()) == 4 + openmp_workers, result["threads"]
    if tf_names_threads():
        assert result["threads"].get("tf_graph_runner") == 1, result["threads"]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two schedulable CPUs to narrow and widen")
@pytest.mark.tf(build="threadpool")  # the counts below leave out an OpenMP build's third pool
def test_zero_is_the_schedulable_cpus_when_each_pool_is_made():
    """0 (the default) is the CPUs this process may run on, not the machine's:
    with the process pinned to one CPU both pools get 1 thread. It is decided
    when a pool is made: widening the CPU set later leaves the eager pools as
    they are, and a session made then sizes its own inter-op pool from the
    CPUs of that moment."""
    result = run(
        """
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[0]})
        import tensorflow as tf
        work(tf)
        first = _count_threads()
        os.sched_setaffinity(0, set(cpus))
        work(tf)
        eager_after = _count_threads()
        session = tf.compat.v1.Session()
        emit(cpus=len(cpus), first=first, eager_after=eager_after)
        """
    )
    cpus, first, eager_after, last = result["cpus"], result["first"], result["eager_after"], result["threads"]
    assert sum(first.values()) == 4, f"main + graph runner + 1 intra + 1 inter: {first}"
    assert eager_after == first, "widening the CPU set does not resize pools that exist"
    assert sum(last.values()) == 4 + cpus, f"the new session's own inter-op pool has {cpus} threads: {last}"
    if tf_names_threads():
        assert (first.get("tf_Compute"), last.get("tf_Compute")) == (1, 1 + cpus), (first, last)


def test_soft_placement_is_on_by_default_in_tf2_eager():
    """Without any setting, an op pinned to a GPU this machine lacks runs on the CPU."""
    result = run(
        """
        import tensorflow as tf
        default = tf.config.get_soft_device_placement()
        with tf.device("/GPU:0"):
            device = tf.matmul(tf.ones((2, 2)), tf.ones((2, 2))).device
        emit(default=default, device=device, gpus=len(tf.config.list_physical_devices("GPU")))
        """
    )
    assert result["default"] is True
    if result["gpus"] == 0:
        assert result["device"].endswith("CPU:0"), result["device"]
