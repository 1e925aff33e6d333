"""Version logic and the TF-free paths of the runtime, in this process."""

import os
import sys
import warnings

import pytest
from packaging.version import Version

from tfcompat_threads import versions
from tfcompat_threads.shim import configure as runtime


@pytest.mark.parametrize(
    ("text", "release", "tf2", "keras3", "tf_config"),
    [
        ("1.13.2", (1, 13, 2), False, False, False),
        ("1.14.0", (1, 14, 0), False, False, True),
        ("1.15.5", (1, 15, 5), False, False, True),
        ("2.0.0", (2, 0, 0), True, False, True),
        ("2.15.1", (2, 15, 1), True, False, True),
        ("2.16.0rc0", (2, 16, 0), True, True, True),
        ("2.17.0-dev20240101", (2, 17, 0), True, True, True),
        ("2.21.0", (2, 21, 0), True, True, True),
        ("2.15.0+nv24.02", (2, 15, 0), True, False, True),
        ("1.15.5-gpu-custom", (1, 15, 5), False, False, True),
    ],
)
def test_versions(text, release, tf2, keras3, tf_config):
    version = versions.parse_version(text)
    assert version.release == release
    assert versions.is_tf2(version) is tf2
    assert versions.keras3_default(version) is keras3
    assert versions.has_tf_config(version) is tf_config


@pytest.fixture
def fake_site(tmp_path, monkeypatch):
    """A site folder with a `tensorflow` package and the metadata of its distribution."""

    def make(dist_name: str, version: str):
        (tmp_path / "tensorflow").mkdir()
        (tmp_path / "tensorflow" / "__init__.py").write_text("raise ImportError('must not be imported')\n")
        info = tmp_path / f"{dist_name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.delitem(sys.modules, "tensorflow", raising=False)
        versions._installed_version.cache_clear()
        return tmp_path

    yield make
    versions._installed_version.cache_clear()


@pytest.mark.parametrize(
    ("dist", "version", "mode"),
    [("tf-nightly", "2.17.0.dev20240101", "tf2-eager"), ("tensorflow-cpu", "1.15.5", "tf1-graph")],
)
def test_version_of_the_tensorflow_that_would_be_imported(fake_site, dist, version, mode):
    fake_site(dist, version)
    assert versions.tf_version() == Version(version)
    assert versions.execution_mode() == mode
    assert "tensorflow" not in sys.modules


@pytest.fixture
def no_tensorflow(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # makes `import tensorflow` fail
    versions._installed_version.cache_clear()
    for name in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
        monkeypatch.delenv(name, raising=False)
    yield
    versions._installed_version.cache_clear()


def test_without_tensorflow_threads_go_to_the_environment(no_tensorflow):
    with pytest.warns(runtime.UnmappedOptionWarning, match="allow_soft_placement=True not applied"):
        report = runtime.configure(
            {"intra_op_parallelism_threads": 2}, inter_op_parallelism_threads=5, allow_soft_placement=True
        )
    assert report.tensorflow is None and report.mode == "no-tensorflow"
    assert os.environ["TF_NUM_INTRAOP_THREADS"] == "2"
    assert os.environ["TF_NUM_INTEROP_THREADS"] == "5"
    assert [s.field for s in report.skipped] == ["allow_soft_placement"]
    state = runtime.effective()
    assert (state.intra_op.effective, state.intra_op.source) == (2, "env")
    assert state.started is False and state.cpus == len(os.sched_getaffinity(0))


def test_flatten_mappings_and_overrides():
    fields = runtime.flatten(
        {"gpu_options": {"allow_growth": True}, "device_count": {"GPU": 0}, "intra_op_parallelism_threads": 1},
        {"intra_op_parallelism_threads": 4, "device_count": {"CPU": 2}, "log_device_placement": None},
    )
    assert fields == {
        "gpu_options.allow_growth": True,
        "intra_op_parallelism_threads": 4,
        "device_count.CPU": 2,
    }


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="ConfigProto or a mapping"):
        runtime.configure(4)
    with pytest.raises(ValueError, match="on_conflict"):
        runtime.configure(on_conflict="ignore")


# Values as TensorFlow's own ConfigProto takes them (measured on 2.15 and 2.21,
# see tests/test_shim_tf_edges.py): thread counts are int32 and not bool; a
# negative intra-op count aborts the process at the first op, a negative
# inter-op count is TensorFlow's "run ops in the caller's thread"; bool fields
# take bools and ints, as protobuf does, and refuse strings such as 'false'.
INVALID = [
    ({"intra_op_parallelism_threads": -1}, ValueError, "intra_op_parallelism_threads=-1"),
    ({"intra_op_parallelism_threads": 2**40}, ValueError, "intra_op_parallelism_threads=1099511627776"),
    ({"inter_op_parallelism_threads": -(2**31) - 1}, ValueError, "inter_op_parallelism_threads=-2147483649"),
    ({"intra_op_parallelism_threads": 2.7}, TypeError, "intra_op_parallelism_threads=2.7"),
    ({"intra_op_parallelism_threads": 2.0}, TypeError, "intra_op_parallelism_threads=2.0"),
    ({"intra_op_parallelism_threads": "3"}, TypeError, "intra_op_parallelism_threads='3'"),
    ({"intra_op_parallelism_threads": "abc"}, TypeError, "intra_op_parallelism_threads='abc'"),
    ({"inter_op_parallelism_threads": True}, TypeError, "inter_op_parallelism_threads=True"),
    ({"allow_soft_placement": "false"}, TypeError, "allow_soft_placement='false'"),
    ({"log_device_placement": 1.0}, TypeError, "log_device_placement=1.0"),
    ({"gpu_options": {"allow_growth": "true"}}, TypeError, "gpu_options.allow_growth='true'"),
    ({"gpu_options": {"visible_device_list": 0}}, TypeError, "gpu_options.visible_device_list=0"),
    ({"gpu_options": {"visible_device_list": "0,x"}}, ValueError, "gpu_options.visible_device_list='0,x'"),
    ({"device_count": {"GPU": True}}, TypeError, "device_count.GPU=True"),
    ({"device_count": {"CPU": 0}}, ValueError, "device_count.CPU=0"),
]


@pytest.mark.parametrize(("fields", "error", "named"), INVALID, ids=lambda v: repr(v)[:40])
def test_invalid_values_are_refused_before_anything_is_applied(no_tensorflow, fields, error, named):
    valid = "inter_op" if "intra_op_parallelism_threads" in fields else "intra_op"
    with pytest.raises(error) as caught:
        runtime.configure({f"{valid}_parallelism_threads": 3, **fields})
    assert named in str(caught.value)
    assert getattr(runtime.effective(), valid).source == "default", "nothing applied: a value is invalid"
    assert "TF_NUM_INTRAOP_THREADS" not in os.environ and "TF_NUM_INTEROP_THREADS" not in os.environ


def test_values_protobuf_takes_are_taken_and_normalised(no_tensorflow):
    class Index:  # any integer type (numpy's included) has __index__
        def __index__(self):
            return 2

    assert runtime.validated({"intra_op_parallelism_threads": Index()}) == {"intra_op_parallelism_threads": 2}
    assert runtime.validated(
        {"inter_op_parallelism_threads": -1, "allow_soft_placement": 1, "log_device_placement": 0}
    ) == {"inter_op_parallelism_threads": -1, "allow_soft_placement": True, "log_device_placement": False}
    assert runtime.validated({"gpu_options.visible_device_list": b"0"}) == {
        "gpu_options.visible_device_list": "0"
    }
    assert runtime.validated({"device_count.GPU": -1}) == {"device_count.GPU": -1}


def test_a_warning_points_at_the_callers_line(no_tensorflow):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        runtime.configure(allow_soft_placement=True)
    [warning] = caught
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_environment_values_tensorflow_ignores_are_not_reported(monkeypatch, no_tensorflow):
    for raw, expected in [("3", 3), ("2147483648", None), ("-1", None), ("abc", None), ("0", None)]:
        monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", raw)
        assert runtime.effective().intra_op.env == expected, raw


def test_gpu_indexes_are_read_as_tensorflow_reads_visible_device_list():
    assert runtime.gpu_indexes("") == [] and runtime.gpu_indexes(" ") == []
    assert runtime.gpu_indexes("1, 0") == [1, 0] and runtime.gpu_indexes("-1") == [-1]
    for text in ("0,", "x", "1_0", "0.5", "٣"):
        with pytest.raises(ValueError, match="is not a GPU index"):
            runtime.gpu_indexes(text)
