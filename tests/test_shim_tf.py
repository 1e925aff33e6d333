"""The runtime shim on the real, installed TensorFlow: one process per scenario,
pool sizes read from the threads the process really has."""

import pytest

from tests.tfproc import assert_pools, openmp_build, run

pytestmark = pytest.mark.tf


def test_import_does_not_import_tensorflow():
    result = run(
        """
        import tfcompat_threads
        emit(tf_loaded="tensorflow" in sys.modules, libcst="libcst" in sys.modules,
             click="click" in sys.modules, version=str(tfcompat_threads.tf_version()),
             mode=tfcompat_threads.execution_mode(), tf_loaded_after="tensorflow" in sys.modules)
        """
    )
    assert result["tf_loaded"] is False and result["tf_loaded_after"] is False
    assert result["libcst"] is False and result["click"] is False
    assert result["mode"] == "tf2-eager"
    assert result["version"].startswith("2.")


def test_eager_keywords_size_the_pools():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        report = tct.configure(intra_op_parallelism_threads=3, inter_op_parallelism_threads=1)
        work(tf)
        emit(report=report.as_dict(), effective=tct.effective().as_dict())
        """
    )
    assert_pools(result, intra=3, inter=1)
    hows = {a["field"]: a["how"] for a in result["report"]["applied"]}
    assert hows["intra_op_parallelism_threads"] == "tf.config.threading.set_intra_op_parallelism_threads(3)"
    effective = result["effective"]
    assert effective["started"] is True and effective["mode"] == "tf2-eager"
    assert effective["intra_op"] == {"configured": 3, "env": None, "effective": 3, "source": "config"}
    assert effective["inter_op"]["effective"] == 1


def test_eager_configproto_sizes_the_pools():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        config = tct.ConfigProto(intra_op_parallelism_threads=4, inter_op_parallelism_threads=3)
        report = tct.configure(config)
        work(tf)
        emit(report=report.as_dict(), proto=type(config).__name__)
        """
    )
    assert result["proto"] == "ConfigProto"
    assert_pools(result, intra=4, inter=3)
    assert result["report"]["skipped"] == []


def test_eager_set_session_starts_one_set_of_pools():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        config = tct.ConfigProto(intra_op_parallelism_threads=3, inter_op_parallelism_threads=3)
        session = tct.Session(config=config)
        tct.set_session(session)
        work(tf)
        emit(started=session.started, repr=repr(session))
        """
    )
    assert result["started"] is False, "a config-only session must not start its own pools"
    assert_pools(result, intra=3, inter=3)


def test_plain_compat_v1_session_in_eager_code_leaves_eager_inter_op_pool_default():
    """The trap the shim exists for (TensorFlow's own behaviour, shown so a
    change in TensorFlow is noticed): the session makes its own inter-op pool
    and eager ops keep TensorFlow's default one beside it."""
    result = run(
        """
        import tensorflow as tf
        config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=3, inter_op_parallelism_threads=1)
        session = tf.compat.v1.Session(config=config)
        work(tf)
        emit(cpus=len(os.sched_getaffinity(0)))
        """
    )
    # one inter-op pool of 1 for the session, one of the default size for eager ops
    assert_pools(result, intra=3, inter=1 + result["cpus"], split_known=False)


def test_graph_mode_session_gets_the_config():
    result = run(
        """
        import tensorflow as tf
        tf.compat.v1.disable_eager_execution()
        import tfcompat_threads as tct
        config = tct.ConfigProto(intra_op_parallelism_threads=3, inter_op_parallelism_threads=2)
        session = tct.Session(config=config)
        x = tf.random.uniform((800, 800))
        session.run(tf.matmul(x, x))
        emit(mode=tct.execution_mode(), kind=type(session).__name__,
             effective=tct.effective().as_dict())
        """
    )
    assert result["mode"] == "tf2-graph"
    assert result["kind"] == "Session"  # the real tf.compat.v1.Session
    assert result["effective"]["started"] is True
    assert_pools(result, intra=3, inter=2, split_known=False)


def test_configure_before_import_uses_the_environment():
    result = run(
        """
        import tfcompat_threads as tct
        report = tct.configure(intra_op_parallelism_threads=1, inter_op_parallelism_threads=4)
        imported_by_configure = "tensorflow" in sys.modules
        env = {k: os.environ.get(k) for k in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS")}
        import tensorflow as tf
        work(tf)
        emit(imported_by_configure=imported_by_configure, env=env, effective=tct.effective().as_dict())
        """
    )
    assert result["imported_by_configure"] is False
    assert result["env"] == {"TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "4"}
    assert_pools(result, intra=1, inter=4)
    assert result["effective"]["inter_op"] == {"configured": 0, "env": 4, "effective": 4, "source": "env"}


def test_conflict_after_first_op_raises_with_both_ways_out():
    """(on_conflict="warn": tests/test_shim_tf_edges.py)"""
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        work(tf)
        try:
            tct.configure(intra_op_parallelism_threads=7)
            error = None
        except tct.ThreadConfigError as raised:
            error = str(raised)
        emit(error=error, cpus=len(os.sched_getaffinity(0)))
        """
    )
    message = result["error"]
    assert "intra_op_parallelism_threads=7 was asked" in message
    assert f"already runs with {result['cpus']} threads (TensorFlow's default)" in message
    assert "configure() before the first TensorFlow op" in message
    assert "TF_NUM_INTRAOP_THREADS=7" in message
    assert_pools(result, intra=result["cpus"], inter=result["cpus"])


def test_same_values_after_first_op_are_accepted():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        tct.configure(intra_op_parallelism_threads=3, inter_op_parallelism_threads=1)
        work(tf)
        again = tct.configure(intra_op_parallelism_threads=3, inter_op_parallelism_threads=1)
        emit(again=again.as_dict())
        """
    )
    assert [a["how"].split(":")[0] for a in result["again"]["applied"]] == ["unchanged", "unchanged"]
    assert_pools(result, intra=3, inter=1)


def test_zero_or_the_default_size_after_first_op_is_accepted():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        work(tf)
        cpus = len(os.sched_getaffinity(0))
        zero = tct.configure(intra_op_parallelism_threads=0, inter_op_parallelism_threads=0)
        same = tct.configure(intra_op_parallelism_threads=cpus)
        emit(zero=zero.as_dict(), same=same.as_dict(), cpus=cpus)
        """
    )
    assert all(a["how"].startswith("unchanged") for a in result["zero"]["applied"] + result["same"]["applied"])
    assert_pools(result, intra=result["cpus"], inter=result["cpus"])


def test_unmappable_fields_are_reported_not_dropped():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        import warnings
        config = tct.ConfigProto(
            intra_op_parallelism_threads=2,
            operation_timeout_in_ms=5000,
            use_per_session_threads=True,
            gpu_options=tct.GPUOptions(per_process_gpu_memory_fraction=0.5),
        )
        config.graph_options.optimizer_options.do_common_subexpression_elimination = True
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = tct.configure(config)
        emit(report=report.as_dict(), warnings=[w.category.__name__ for w in caught])
        """
    )
    skipped = {s["field"]: s["reason"] for s in result["report"]["skipped"]}
    assert set(skipped) == {
        "operation_timeout_in_ms",
        "use_per_session_threads",
        "gpu_options.per_process_gpu_memory_fraction",
        "graph_options",
    }
    assert "graph mode only" in skipped["operation_timeout_in_ms"]
    assert "memory_limit" in skipped["gpu_options.per_process_gpu_memory_fraction"]
    assert result["warnings"] == ["UnmappedOptionWarning"] * 4
    openmp = ["OMP_NUM_THREADS"] if openmp_build() else []  # an OpenMP build: the intra-op count sizes it too
    assert [a["field"] for a in result["report"]["applied"]] == ["intra_op_parallelism_threads", *openmp]


def test_device_count_hides_gpus_and_sets_cpu_devices():
    result = run(
        """
        import tensorflow as tf
        calls = []
        real_set_visible_devices = tf.config.set_visible_devices
        def recording_set_visible_devices(devices, device_type=None):
            calls.append((list(devices), device_type))
            return real_set_visible_devices(devices, device_type)
        tf.config.set_visible_devices = recording_set_visible_devices
        import tfcompat_threads as tct
        report = tct.configure(device_count={"GPU": 0, "CPU": 3})
        emit(calls=calls, report=report.as_dict(),
             cpus=[d.name for d in tf.config.list_logical_devices("CPU")],
             gpus=len(tf.config.get_visible_devices("GPU")))
        """
    )
    assert result["calls"] == [[[], "GPU"]]
    assert result["gpus"] == 0
    assert len(result["cpus"]) == 3, "device_count CPU: 3 makes three logical CPU devices"
    assert [a["field"] for a in result["report"]["applied"]] == ["device_count.GPU", "device_count.CPU"]


def test_soft_and_log_device_placement():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        # A proto cannot tell False from unset: False goes by keyword.
        tct.configure(tct.ConfigProto(log_device_placement=True), allow_soft_placement=False)
        x = tf.ones((2, 2))
        try:
            with tf.device("/GPU:0"):
                tf.matmul(x, x)
            hard = "ran"
        except Exception as error:
            hard = type(error).__name__
        report = tct.configure(allow_soft_placement=True)
        with tf.device("/GPU:0"):
            device = tf.matmul(x, x).device
        emit(hard=hard, device=device, soft=tf.config.get_soft_device_placement(),
             report=report.as_dict())
        """
    )
    assert result["hard"] == "InvalidArgumentError"
    assert result["soft"] is True and result["device"].endswith("CPU:0")
    assert result["report"]["applied"][0]["how"] == "tf.config.set_soft_device_placement(True)"
    assert "MatMul: (MatMul): /job:localhost" in result["stdout"] + result["stderr"]


def test_log_device_placement_after_start_is_reported_as_ineffective():
    result = run(
        """
        import tensorflow as tf
        import tfcompat_threads as tct
        x = tf.ones((2, 2))
        report = tct.configure(log_device_placement=True)
        tf.matmul(x, x)
        emit(report=report.as_dict())
        """
    )
    [applied] = result["report"]["applied"]
    assert "not logged" in applied["how"]
    assert "MatMul: (MatMul)" not in result["stdout"] + result["stderr"]
