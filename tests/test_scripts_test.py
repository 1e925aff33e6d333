"""scripts/test says what it installs before each step and, at the end, how
long it took, also when it fails; it runs the whole suite on the newest row
(its scenarios on a second venv of the same tensorflow-cpu without the plot
extra) and the TensorFlow tests on every other row of the matrix, and keeps its
environments between runs. Run here with stand-in interpreters that record
their arguments instead of installing anything."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A stand-in for python: answers the version queries; otherwise prints what it
# was asked to do; `-m venv DIR` makes DIR with a copy of itself; pytest exits
# with $STUB_PYTEST_EXIT, or, with $STUB_PYTEST_REAL set, runs the real pytest
# on tests of its own (ROW_TESTS), which fail in the row whose command line
# contains $STUB_FAIL_ROW.
STUB = r"""#!/usr/bin/env bash
case "$1" in
  --version) echo "Python 3.99.0"; exit ;;
  -c) [ -z "$2" ] || echo "tensorflow 9.9.9 on Python 3.99.0"; exit 0 ;;
esac
echo "RAN $0 $* TF_PYTHON=${TFCOMPAT_TEST_TF_PYTHON:-}"
case "$1 $2" in
  "-m venv") mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pytest")
    if [ -n "${STUB_PYTEST_REAL:-}" ]; then
      STUB_ROW="$0 $* TF_PYTHON=${TFCOMPAT_TEST_TF_PYTHON:-}" exec "$STUB_PYTEST_REAL" -m pytest -p no:cacheprovider \
        -p no:xdist -o addopts= "$STUB_ROW_TESTS"
    fi
    exit "${STUB_PYTEST_EXIT:-0}" ;;
esac
"""

ROW_TESTS = """
import os
import pytest

@pytest.mark.parametrize("n", range(3))
def test_passes(n):
    pass

def test_fails_in_the_row_asked_for():
    assert not os.environ.get("STUB_FAIL_ROW") or os.environ["STUB_FAIL_ROW"] not in os.environ["STUB_ROW"]
"""

ROWS = ["tf-latest-py3.13", "tf2.15-py3.11", "intel-tf2.14-py3.11", "tf2.11-py3.10", "tf2.4-py3.8", "tf1.15-py3.7"]


def run_script(tmp_path: Path, pytest_exit: int = 0, missing: str = "", fail_row: str | None = None,
               args: tuple[str, ...] = ()) -> tuple[int, list[str], str]:
    (tmp_path / "scripts").mkdir(exist_ok=True)
    (tmp_path / "tests").mkdir(exist_ok=True)
    shutil.copy(ROOT / "scripts" / "test", tmp_path / "scripts" / "test")
    shutil.copy(ROOT / "tests" / "requirements.txt", tmp_path / "tests" / "requirements.txt")
    row_tests = tmp_path / "row_tests" / "test_row.py"
    row_tests.parent.mkdir(exist_ok=True)
    row_tests.write_text(ROW_TESTS)
    stub = tmp_path / "python3-stub"
    stub.write_text(STUB)
    stub.chmod(0o755)
    pythons = {f"PYTHON{v.replace('.', '')}": str(stub) for v in ("3.7", "3.8", "3.10", "3.11", "3.13")}
    if missing:
        pythons[missing] = str(tmp_path / "no-such-python")
    env = {**os.environ, **pythons, "TFCOMPAT_THREADS_TEST_VENVS": str(tmp_path / "venvs"),
           "STUB_PYTEST_EXIT": str(pytest_exit), "PATH": os.defpath,  # no pyenv
           "CHROMIUM": "true"}  # a browser is there: nothing to install
    if fail_row is not None:
        env.update(STUB_PYTEST_REAL=sys.executable, STUB_ROW_TESTS=str(row_tests), STUB_FAIL_ROW=fail_row)
    done = subprocess.run(["bash", "scripts/test", *args, "-k", "x"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    return done.returncode, done.stdout.splitlines(), done.stderr


def test_says_what_it_installs_before_each_step_and_how_long_it_took(tmp_path):
    code, lines, stderr = run_script(tmp_path)
    assert code == 0 and stderr == "", (lines, stderr)
    venvs = str(tmp_path / "venvs")
    ran = [i for i, line in enumerate(lines) if line.startswith("RAN ")]
    for i in ran:
        step, said = lines[i], lines[i - 1]
        if " -m venv " in step:
            assert re.fullmatch(rf"== creating {re.escape(venvs)}/[^ ]+ with Python 3\.99\.0", said), said
        elif "--upgrade pip" in step:
            assert said.endswith(": the newest pip"), said
        elif " -m pip install " in step:
            venv = re.search(rf"{re.escape(venvs)}/[^/]+", step)[0]
            assert said.startswith(f"== installing in {venv}: tfcompat-threads"), (step, said)
            requirements = step.split(" -m pip install ")[1].split(" TF_PYTHON=")[0].split()[3:]
            assert all(r in said for r in requirements
                       if r not in (".", "-e", ".[docs,plot]", "-r", "tests/requirements.txt")), (step, said)
            assert "--quiet" not in step, "pip says what it fetches"
        else:
            assert " -m pytest " in step, step
    pytest_steps = [lines[i] for i in ran if " -m pytest " in lines[i]]
    tool = f"{venvs}/tf-latest-py3.13/bin/python -m pytest"
    # the whole suite on the newest row (its scenarios on a venv of the same release without the plot
    # extra), then -m tf on each other row, then the non-TF tests on 3.10
    assert pytest_steps[0] == (f"RAN {tool} -n auto -p no:cacheprovider -k x "
                               f"TF_PYTHON={venvs}/tf-latest-scenarios-py3.13/bin/python")
    for step, row in zip(pytest_steps[1:6], ROWS[1:]):
        assert step == f"RAN {tool} -n auto -p no:cacheprovider -m tf -k x TF_PYTHON={venvs}/{row}/bin/python"
    assert pytest_steps[6].startswith(f"RAN {venvs}/tf2.11-py3.10/bin/python -m pytest -n auto -p no:cacheprovider "
                                      "-m not tf -k x")
    assert len(pytest_steps) == 7
    assert sum(" -m venv " in lines[i] for i in ran) == 7
    [scenarios] = [lines[i] for i in ran if "tf-latest-scenarios-py3.13/bin/python -m pip install " in lines[i]
                   and "--upgrade" not in lines[i]]
    assert "tensorflow-cpu==tensorflow 9.9.9" in scenarios and "[plot]" not in scenarios, scenarios  # the stub's answer
    assert re.fullmatch(r"== scripts/test took \d+m\d\ds", lines[-2]), lines[-2]
    assert lines[-1] == "0 passed, 0 failed"


def test_keeps_its_environments_and_makes_one_again_when_its_requirements_change(tmp_path):
    run_script(tmp_path)
    code, lines, _ = run_script(tmp_path)
    assert code == 0 and not [line for line in lines if " -m venv " in line]
    stamp = tmp_path / "venvs" / "tf2.4-py3.8" / ".scripts-test-stamp"
    stamp.write_text("3.8 install tensorflow-cpu==2.3.*\n")
    code, lines, _ = run_script(tmp_path)
    assert [line.split()[-2] for line in lines if " -m venv " in line] == [str(tmp_path / "venvs" / "tf2.4-py3.8")]


def test_says_how_long_it_took_when_the_tests_fail(tmp_path):
    code, lines, _ = run_script(tmp_path, pytest_exit=3)
    assert code == 1
    assert re.fullmatch(r"== scripts/test took \d+m\d\ds \(failed: exit 1\)", lines[-2]), lines[-2]


def test_a_python_of_the_matrix_that_is_missing_fails_in_one_line(tmp_path):
    code, lines, stderr = run_script(tmp_path, missing="PYTHON37")
    assert code != 0
    assert stderr.strip().splitlines()[-1].startswith("scripts/test: no Python 3.7 here"), stderr


def table(lines: list[str]) -> dict[str, list[str]]:
    """The rows of the table scripts/test ends with: name -> passed, failed, time, result."""
    start = lines.index("row                   passed  failed     time  result") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("== scripts/test took"))
    return {line.split()[0]: line.split(None, 4)[1:] for line in lines[start:end]}


def test_a_failing_row_still_runs_the_others_and_the_table_counts_every_row(tmp_path):
    """The real pytest in every row (tests of this test's own, 3 passing and 1
    that fails only in the tf2.4 row): every row runs, the table has each
    row's counts, the last line sums them, and the exit says a row failed."""
    code, lines, stderr = run_script(tmp_path, fail_row="tf2.4-py3.8/bin/python")
    assert code == 1, (lines, stderr)
    rows = table(lines)
    assert list(rows) == [*ROWS, "no-tf-py3.10"]
    for name, (passed, failed, time, result) in rows.items():
        assert re.fullmatch(r"\d+m\d\ds", time), time
        if name == "tf2.4-py3.8":
            assert (passed, failed, result) == ("3", "1", "failed (exit 1)")
        else:
            assert (passed, failed, result) == ("4", "0", "ok"), name
    assert lines[-1] == "27 passed, 1 failed"
    # pytest's own summary line of each row is printed as it ran
    assert len([line for line in lines if re.search(r"\d+ passed.* in [\d.]+s", line)]) == 7


def test_quick_runs_the_newest_row_only(tmp_path):
    code, lines, stderr = run_script(tmp_path, fail_row="none", args=("--quick",))
    assert code == 0, (lines, stderr)
    assert list(table(lines)) == ["tf-latest-py3.13"]
    assert sum(" -m venv " in line for line in lines) == 2  # the newest row's, and its scenarios'
    assert lines[-1] == "4 passed, 0 failed"


def test_a_row_whose_environment_cannot_be_made_is_a_failed_row_and_the_others_run(tmp_path):
    code, lines, stderr = run_script(tmp_path, fail_row="none", missing="PYTHON38")
    assert code == 1
    rows = table(lines)
    assert rows["tf2.4-py3.8"][1:2] == ["-"] and rows["tf2.4-py3.8"][3].startswith("setup failed")
    assert rows["tf1.15-py3.7"][3] == "ok"
    assert lines[-1] == "24 passed, 0 failed"
