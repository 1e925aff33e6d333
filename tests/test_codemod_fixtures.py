"""Every fixture folder, both targets: the expected bytes, the expected
findings, a second run changes nothing, and the output compiles. Fixtures
with run.json are RUN after fixing, on the real TensorFlow, and the pools the
process made are counted against what the legacy program asked for."""

import json

import pytest

from tests.fixture_outputs import folders
from tests.tfproc import reference_total, run, same_openmp, total
from tfcompat_threads.codemod import TARGETS, transform

FOLDERS = folders()
RUNNABLE = [f for f in FOLDERS if (f / "run.json").exists()]


def test_there_are_enough_fixtures():
    assert len(FOLDERS) >= 30
    assert sum(f.name.startswith("noop_") for f in FOLDERS) >= 4
    for folder in FOLDERS:
        assert (folder / "note.txt").read_text().strip(), folder.name


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_fixture(folder, target):
    source = (folder / "input.py").read_bytes()
    result = transform(source, target, filename=str(folder / "input.py"))
    assert result.source == (folder / f"{target}.py").read_bytes()
    expected = [line.split(" ", 1)[1] for line in (folder / "findings.txt").read_text().splitlines()
                if line.startswith(target + " ")]
    got = [f"{f.code} {f.start.line}:{f.start.column} {'fixed' if f.fixed else 'open'}" for f in result.findings]
    assert got == expected
    again = transform(result.source, target)
    assert again.source == result.source, "fixing twice must equal fixing once"
    assert all(not f.fixed for f in again.findings)
    compile(result.source, str(folder / f"{target}.py"), "exec")
    if folder.name.startswith("noop_"):
        assert result.source == source


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_unsafe_fixes(folder):
    source = (folder / "input.py").read_bytes()
    unsafe = folder / "native_unsafe.py"
    result = transform(source, "native", unsafe_fixes=True)
    assert result.source == (unsafe if unsafe.exists() else folder / "native.py").read_bytes()
    assert transform(result.source, "native", unsafe_fixes=True).source == result.source
    compile(result.source, str(unsafe), "exec")


def asked(folder) -> dict:
    """The fixture's run.json."""
    return json.loads((folder / "run.json").read_text())


def expected_pools(folder, cpus):
    wanted = asked(folder)
    values = {"cpus": cpus, "cpus//2": max(1, cpus // 2)}
    intra, inter = (values.get(wanted[k], wanted[k]) for k in ("intra", "inter"))
    return intra or cpus, inter or cpus  # 0: TensorFlow picks the number of CPUs


def runs(folder) -> list[str]:
    """The outputs of a runnable fixture that run on TF2: run.json's
    "outputs", by default native.py and shim.py (and native_unsafe.py)."""
    found = asked(folder).get("outputs") or ["native.py", "shim.py", "native_unsafe.py"]
    return [name for name in found if (folder / name).exists()]


RUNS_SINCE = (2, 4)
"""The first release the fixtures' outputs are run on (the harness's sizes through TensorFlow's variables)."""


def distinct_runs() -> list[tuple]:
    """(folder, output) of each output to run, once for each program and what
    it must give (an output the same bytes as another fixture's, or as its
    other target's, with the same run.json, is the same scenario)."""
    seen, out = set(), []
    for folder in RUNNABLE:
        wanted = asked(folder)
        for name in runs(folder):
            key = ((folder / name).read_bytes(), wanted["intra"], wanted["inter"])
            if key not in seen:
                seen.add(key)
                out.append((folder, name))
    return out


def expected_total(folder, program: str, intra: int, inter: int, result: dict) -> int:
    """The threads a fixed program of the fixture (`program`: its code as
    run, emit() included) must have on TF2 when it emit()s: those of a
    process that asks TensorFlow itself for the legacy sizes
    (tests/tfproc.py reference_total: tf.config.threading, the same
    OMP_NUM_THREADS on an OpenMP build; one process per sizes in a test
    run). A program that starts threads of its own (run.json "own_threads"
    says which: tf.keras on 2.4) is counted against itself instead, given
    the legacy sizes through TensorFlow's own variables (from 2.4 on the
    pools a config gives; a setting the program makes wins over them). A
    program that starts threads run.json does not declare fails, never
    passes."""
    if not asked(folder).get("own_threads"):
        return reference_total(intra, inter, result.get("omp_num_threads"))
    env = {"TF_NUM_INTRAOP_THREADS": str(intra), "TF_NUM_INTEROP_THREADS": str(inter), **same_openmp(result)}
    return total(run(program, env=env))


@pytest.mark.tf(since=RUNS_SINCE)
@pytest.mark.parametrize("folder,output", distinct_runs(), ids=lambda v: getattr(v, "name", v))
def test_fixed_program_keeps_its_thread_settings(folder, output, tmp_path):
    """Run on this host without GPUs (so GPU options must not raise), under
    `tfcompat-threads run`: pools counted (by the test's own counter) against
    what the legacy program asked for (expected_total), and `run` calls every
    thread setting the fixed program makes applied."""
    report = tmp_path / "report.json"
    program = (folder / output).read_text(encoding="utf-8") + "\nemit(cpus=len(os.sched_getaffinity(0)))\n"
    result = run(program, recorded=report)
    intra, inter = expected_pools(folder, result["cpus"])
    expected = expected_total(folder, program, intra, inter, result)
    assert total(result) == expected, (result["threads"], expected)
    [process] = json.loads(report.read_text())["processes"]
    threads = {s["field"]: s["verdict"] for s in process["settings"] if s["field"].endswith("parallelism_threads")}
    sized = {f"{k}_op_parallelism_threads" for k in ("intra", "inter") if asked(folder)[k] != 0}
    assert set(threads) >= sized and set(threads.values()) <= {"applied"}, process


def test_bytes_libcst_does_not_round_trip_survive_a_fix():
    """libcst drops the space in `except E :` (LibCST issue 1457): the fix's
    changes go onto the original bytes, and that line stays as it was."""
    source = (FOLDERS[0].parent / "keyword_args" / "input.py").read_bytes()
    source += b"try:\n    pass\nexcept OSError :\n    pass\n"
    result = transform(source, "native")
    assert result.source.endswith(b"except OSError :\n    pass\n")
    assert b"set_intra_op_parallelism_threads(2)" in result.source


def test_no_free_name_for_tensorflow_is_reported_without_a_fix_not_guessed():
    """`tf` and `tensorflow` both taken: the finding has no fix (so check does
    not call it fixable and fix leaves the file), and its help says why."""
    source = (
        b"from tensorflow import ConfigProto, Session\n"
        b"tf = tensorflow = None\n"
        b"config = ConfigProto(intra_op_parallelism_threads=2)\n"
        b"sess = Session(config=config)\n"
    )
    result = transform(source, "native")
    assert b"sess = Session(config=config)" in result.source
    [finding] = [f for f in result.findings if f.code == "TFT001"]
    assert finding.fix is None and not finding.fixed
    assert "no free name for TensorFlow" in finding.help
    assert b"tfcompat_threads.Session(config=config)" in transform(source, "shim").source


def test_a_comment_beside_a_field_with_nothing_to_write_is_kept():
    source = (
        b"import tensorflow as tf\n"
        b"config = tf.ConfigProto(\n"
        b"    device_count={\n"
        b"        'CPU': 1,  # one CPU device: the default\n"
        b"        'GPU': 0,\n"
        b"    },\n"
        b"    intra_op_parallelism_threads=2,\n"
        b")\n"
        b"tf.keras.backend.set_session(tf.Session(config=config))\n"
    )
    assert transform(source, "native").source == (
        b"import tensorflow as tf\n"
        b"# one CPU device: the default\n"
        b"tf.config.set_visible_devices([], 'GPU')\n"
        b"tf.config.threading.set_intra_op_parallelism_threads(2)\n"
    )


def introduced_names(before: bytes, after: bytes) -> set[str]:
    """TensorFlow names (qualified) that `after` uses and `before` does not."""
    from tests.tfnames import tensorflow_names

    return tensorflow_names(after) - tensorflow_names(before)


@pytest.mark.tf
def test_every_name_a_fix_introduces_resolves_on_the_installed_tensorflow():
    from tests.tfnames import unresolved

    names: dict[str, str] = {}
    for folder in FOLDERS:
        source = (folder / "input.py").read_bytes()
        for output in ("native.py", "native_unsafe.py", "shim.py"):
            if (folder / output).exists():
                for name in introduced_names(source, (folder / output).read_bytes()):
                    names.setdefault(name, f"{folder.name}/{output}")
    assert "tensorflow.config.threading.set_intra_op_parallelism_threads" in names
    assert unresolved(names) == {}
