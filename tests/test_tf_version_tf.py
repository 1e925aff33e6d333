"""--tf-version on the TensorFlow of the row (tests/tfproc.py TF_PYTHON):
every name the codemod writes for each tf-version this release satisfies
resolves here, and no name the table dates after it does (the table cannot
drift either way); the runnable fixtures' native outputs for --tf-version 1.15
and for the default run here, with their pools counted against what
TensorFlow's own way of asking for the same sizes gives on this release."""

from __future__ import annotations

import pytest

from tests.test_codemod_fixtures import RUNNABLE, RUNS_SINCE, expected_pools, expected_total, runs
from tests.tfnames import missing, written_names
from tests.tfproc import TF_PYTHON, ScenarioFailed, run, tf_release
from tfcompat_threads import options
from tfcompat_threads.codemod import transform

pytestmark = pytest.mark.tf(since=(1, 15))

# Every release the table dates a name to, and the default (None: the names of 2.1 on).
CHOICES = (None, *sorted({since for name in options.NAMES.values()
                          for since in (name.since, *(s for s, _ in name.before))}, key=options.release))
DEFAULT_RELEASE = max(options.release(name.since) for name in options.NAMES.values())  # the newest spellings: 2.1


def satisfied(choice: str | None) -> bool:
    """This row's TensorFlow is at least the oldest the choice writes for."""
    return (options.release(choice) if choice else DEFAULT_RELEASE) <= tf_release()


def test_every_name_written_for_a_tf_version_resolves_on_every_release_it_covers():
    """For each tf-version this release satisfies (the default included), the
    names the codemod writes resolve here: code fixed for 1.15 must also run on
    the newest TensorFlow."""
    names: dict[str, str] = {}
    covered = [choice for choice in CHOICES if satisfied(choice)]
    assert covered, f"no tf-version choice is satisfied by TensorFlow {tf_release()}"
    for choice in covered:
        for name, where in written_names(choice, keras2=tf_release() < (2, 16)).items():
            names.setdefault(name, f"{where} (tf-version {choice or 'default'})")
    assert "tensorflow.config.experimental.set_memory_growth" in names
    assert {name: names[name] for name in missing(names, TF_PYTHON)} == {}


def test_no_name_the_table_dates_after_this_release_exists_here():
    """The other direction: a spelling the table says first exists in a later
    release is absent here (else its `since` is too late and older releases
    are refused names they have)."""
    later = {f"tensorflow.{spelled}" for key, name in options.NAMES.items()
             for since, spelled in ((name.since, key), *name.before) if options.release(since) > tf_release()}
    assert set(missing(later, TF_PYTHON)) == later


# -- the fixture programs, run ------------------------------------------------------------

HARNESS = """
import tensorflow as _tf
if _tf.executing_eagerly():
    work(_tf)
else:  # TF1: the program built graphs; a session made without a config runs one
    _x = _tf.random.uniform((800, 800))
    with _tf.compat.v1.Session() as _session:
        _session.run(_tf.reduce_sum(_tf.matmul(_x, _x)))
emit(cpus=len(os.sched_getaffinity(0)))
"""

# TensorFlow's own way of asking for the pools on TF1: a ConfigProto session (graph mode).
TF1_REFERENCE = """
import tensorflow as tf
_x = tf.random.uniform((800, 800))
_config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads={intra}, inter_op_parallelism_threads={inter})
with tf.compat.v1.Session(config=_config) as _session:
    _session.run(tf.reduce_sum(tf.matmul(_x, _x)))
emit()
"""
_TF1_REFERENCES: dict[tuple[int, int], int] = {}


def reference_threads(folder, program: str, intra: int, inter: int, result: dict) -> int:
    """Threads of a process that asks for (intra, inter) TensorFlow's own way:
    on TF2 what the fixtures' outputs are counted against
    (test_codemod_fixtures.py expected_total); on TF1 a ConfigProto session
    running the harness's op."""
    if tf_release() >= (2, 0):
        return expected_total(folder, program, intra, inter, result)
    if (intra, inter) not in _TF1_REFERENCES:
        result = run(TF1_REFERENCE.format(intra=intra, inter=inter))
        _TF1_REFERENCES[intra, inter] = sum(result["threads"].values())
    return _TF1_REFERENCES[intra, inter]


# a fixture whose native fix is withheld (a reader still needs its session) runs its shim output only
NATIVE_RUNNABLE = [f for f in RUNNABLE if {"native.py", "native_unsafe.py"} & set(runs(f))]


@pytest.mark.parametrize("folder", NATIVE_RUNNABLE, ids=lambda f: f.name)
def test_native_output_for_each_tf_version_runs_with_its_pools(folder):
    """--tf-version 1.15 and the default (2.1 names), each where the row's
    TensorFlow is at least that release: the program runs, and its process
    has the threads of one that asks TensorFlow for the same pools its own
    way. The fixture's run.json "outputs" says whether its native fix is the
    safe one or needs --unsafe-fixes. A program the fix leaves as it is (TF1
    code under a version guard) is the legacy program: on TF1 it must run.
    A program run once counts for each choice that writes it, and one that is
    the fixture's own native output is counted where the fixtures' outputs
    run (test_fixed_program_keeps_its_thread_settings, the same reference):
    on TF2 rows only the programs --tf-version 1.15 writes otherwise run here."""
    source = (folder / "input.py").read_bytes()
    outputs = runs(folder)
    unsafe = "native.py" not in outputs
    assert not unsafe or "native_unsafe.py" in outputs, "a runnable fixture runs one native output"
    ran = []
    programs = set()
    for choice in ("1.15", None):
        if not satisfied(choice):
            continue
        program = transform(source, "native", filename=str(folder / "input.py"), tf_version=choice,
                            unsafe_fixes=unsafe).source
        if program in programs:  # both choices write the same names: one process counts it
            ran.append((choice, "the same program as tf-version 1.15's"))
            continue
        programs.add(program)
        checked_in = folder / ("native_unsafe.py" if unsafe else "native.py")
        if tf_release() >= RUNS_SINCE and program == checked_in.read_bytes():
            # the fixture's own output: test_codemod_fixtures.py's test_fixed_program_keeps_its_thread_settings
            # runs it on this row and counts it against the same reference (test_fixture: it is this output)
            ran.append((choice, "counted by test_fixed_program_keeps_its_thread_settings"))
            continue
        code = program.decode("utf-8") + HARNESS
        try:
            result = run(code)
        except ScenarioFailed as failed:
            if tf_release() >= (2, 0):
                raise
            # TF1: an eager-only program (float() of a tensor) fails in graph mode before and after the fix alike
            with pytest.raises(ScenarioFailed) as before:
                run(source.decode("utf-8") + HARNESS)
            assert _last_line(before.value) == _last_line(failed), failed
            ran.append((choice, "fails as its input does"))
            continue
        if program == source and tf_release() < (2, 0):
            ran.append((choice, "the legacy program, unchanged"))
            continue
        intra, inter = expected_pools(folder, result["cpus"])
        reference = reference_threads(folder, code, intra, inter, result)
        assert sum(result["threads"].values()) == reference, (choice, result["threads"])
        ran.append((choice, "ran"))
    assert ran, f"no choice applies to TensorFlow {tf_release()}"


def _last_line(failure: ScenarioFailed) -> str:
    lines = [line for line in str(failure).splitlines() if line.strip()]
    return lines[-1]


# -- the session family is TensorFlow's own rename table -------------------------------------

TABLE = r"""
import json
from tensorflow.tools.compatibility import all_renames_v2
print(json.dumps(all_renames_v2.symbol_renames))
"""


def test_session_family_is_tensorflows_table():
    """codemod/symbols.py TF1_RENAMES row by row against tf-upgrade-v2's table
    as this row's TensorFlow ships it (all_renames_v2.symbol_renames): the
    same TF2 name, except the hooks and their SessionRun* types, which tables
    before Estimator's removal (2.16) send to tf.estimator; and no name of the session family that the
    table renames is missing from ours (no half renames)."""
    import json
    import os
    import re
    import subprocess

    from tfcompat_threads.codemod import symbols

    proc = subprocess.run([TF_PYTHON, "-c", TABLE], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    table = json.loads(proc.stdout.strip().splitlines()[-1])
    differ = {}
    for name, ours in symbols.TF1_RENAMES.items():
        theirs = table.get(f"tf.{name}")
        before_2_16 = name.startswith("train.") and theirs == "tf.estimator." + name.rsplit(".", 1)[1]
        if theirs != f"tf.{ours}" and not before_2_16:
            differ[name] = (ours, theirs)
    assert differ == {}
    family = re.compile(r"[Ss]ession(?!Log)|Hook$|^(Supervisor|Server|Scaffold|ConfigProto|GPUOptions|GraphOptions"
                        r"|OptimizerOptions|RunOptions|RunMetadata|disable_v2_behavior|\w+_eager_execution)$")
    theirs = {old[3:] for old in table if old.startswith("tf.") and not old.startswith(("tf.contrib.", "tf.summary."))
              and family.search(old.rsplit(".", 1)[1])}
    assert theirs - symbols.TF1_ONLY - {"keras.backend.set_session"} == set()
