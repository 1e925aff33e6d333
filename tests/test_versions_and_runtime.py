"""Version logic and the TF-free paths of the runtime, in this process."""

import os
import sys

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
    with pytest.warns(runtime.UnmappedOptionWarning, match="allow_soft_placement not applied"):
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
