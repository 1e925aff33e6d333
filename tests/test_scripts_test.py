"""scripts/test says what it installs before each step and, at the end, how
long it took, also when it fails; it runs the whole suite on the newest row
and the TensorFlow tests on every other row of the matrix, and keeps its
environments between runs. Run here with stand-in interpreters that record
their arguments instead of installing anything."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A stand-in for python: answers the version queries; otherwise prints what it
# was asked to do; `-m venv DIR` makes DIR with a copy of itself; pytest exits
# with $STUB_PYTEST_EXIT.
STUB = r"""#!/usr/bin/env bash
case "$1" in
  --version) echo "Python 3.99.0"; exit ;;
  -c) [ -z "$2" ] || echo "tensorflow 9.9.9 on Python 3.99.0"; exit 0 ;;
esac
echo "RAN $0 $* TF_PYTHON=${TFCOMPAT_TEST_TF_PYTHON:-}"
case "$1 $2" in
  "-m venv") mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pytest") exit "${STUB_PYTEST_EXIT:-0}" ;;
esac
"""

ROWS = ["tf-latest-py3.13", "tf2.15-py3.11", "intel-tf2.14-py3.11", "tf2.11-py3.10", "tf2.4-py3.8", "tf1.15-py3.7"]


def run_script(tmp_path: Path, pytest_exit: int = 0, missing: str = "") -> tuple[int, list[str], str]:
    (tmp_path / "scripts").mkdir(exist_ok=True)
    shutil.copy(ROOT / "scripts" / "test", tmp_path / "scripts" / "test")
    stub = tmp_path / "python3-stub"
    stub.write_text(STUB)
    stub.chmod(0o755)
    pythons = {f"PYTHON{v.replace('.', '')}": str(stub) for v in ("3.7", "3.8", "3.10", "3.11", "3.13")}
    if missing:
        pythons[missing] = str(tmp_path / "no-such-python")
    env = {**os.environ, **pythons, "TFCOMPAT_THREADS_TEST_VENVS": str(tmp_path / "venvs"),
           "STUB_PYTEST_EXIT": str(pytest_exit), "PATH": os.defpath}  # no pyenv
    done = subprocess.run(["bash", "scripts/test", "-k", "x"], cwd=tmp_path, env=env, capture_output=True,
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
            assert all(r in said for r in requirements if r not in (".", "-e", ".[test]")), (step, said)
        else:
            assert " -m pytest " in step, step
    pytest_steps = [lines[i] for i in ran if " -m pytest " in lines[i]]
    tool = f"{venvs}/tf-latest-py3.13/bin/python -m pytest"
    # the whole suite on the newest row, then -m tf on each other row, then the non-TF tests on 3.10
    assert pytest_steps[0].startswith(f"RAN {tool} -n auto -p no:cacheprovider -k x TF_PYTHON=")
    assert pytest_steps[0].endswith("TF_PYTHON=")
    for step, row in zip(pytest_steps[1:6], ROWS[1:]):
        assert step == f"RAN {tool} -n auto -p no:cacheprovider -m tf -k x TF_PYTHON={venvs}/{row}/bin/python"
    assert pytest_steps[6].startswith(f"RAN {venvs}/tf2.11-py3.10/bin/python -m pytest -n auto -p no:cacheprovider "
                                      "-m not tf -k x")
    assert len(pytest_steps) == 7
    assert sum(" -m venv " in lines[i] for i in ran) == 6
    assert re.fullmatch(r"== scripts/test took \d+m\d\ds", lines[-1]), lines[-1]


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
    assert code == 3
    assert re.fullmatch(r"== scripts/test took \d+m\d\ds \(failed: exit 3\)", lines[-1]), lines[-1]


def test_a_python_of_the_matrix_that_is_missing_fails_in_one_line(tmp_path):
    code, lines, stderr = run_script(tmp_path, missing="PYTHON37")
    assert code != 0
    assert stderr.strip().splitlines()[-1].startswith("scripts/test: no Python 3.7 here"), stderr
