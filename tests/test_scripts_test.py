"""scripts/test says what it installs before each step and, at the end, how
long it took, also when it fails. Run here with stand-in interpreters that
record their arguments instead of installing anything."""

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
  -c) echo "tensorflow-cpu 9.9.9"; exit ;;
esac
echo "RAN $0 $*"
case "$1 $2" in
  "-m venv") mkdir -p "$3/bin" && cp "$0" "$3/bin/python" ;;
  "-m pytest") exit "${STUB_PYTEST_EXIT:-0}" ;;
esac
"""


def run_script(tmp_path: Path, pytest_exit: int = 0, oldest: str | None = None) -> tuple[int, list[str]]:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test", tmp_path / "scripts" / "test")
    stub = tmp_path / "python3-stub"
    stub.write_text(STUB)
    stub.chmod(0o755)
    # tf-latest exists already (a second run); tf-2.15 is made from scratch.
    existing = tmp_path / ".venv-test" / "tf-latest" / "bin"
    existing.mkdir(parents=True)
    shutil.copy(stub, existing / "python")
    env = {**os.environ, "PYTHON": str(stub), "PYTHON_OLDEST": str(stub) if oldest is None else oldest,
           "STUB_PYTEST_EXIT": str(pytest_exit), "PATH": os.defpath}  # no pyenv
    done = subprocess.run(["bash", "scripts/test", "-k", "x"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.stderr == "", done.stderr
    return done.returncode, done.stdout.splitlines()


def test_says_what_it_installs_before_each_step_and_how_long_it_took(tmp_path):
    code, lines = run_script(tmp_path)
    assert code == 0, lines
    ran = [i for i, line in enumerate(lines) if line.startswith("RAN ")]
    steps = [lines[i] for i in ran]
    # Each step that installs something comes right after a line saying what.
    for i in ran:
        step, said = lines[i], (lines[i - 1] if i else "")
        if " -m venv " in step:
            assert re.fullmatch(r"== creating \.venv-test/(tf-2\.15|py3\.10) with Python 3\.99\.0", said), said
        elif " -m pip install " in step and "--upgrade pip" in step:
            venv = re.search(r"\.venv-test/[^/]+", step)[0]
            assert said == f"== installing in {venv}: the newest pip", said
        elif " -m pip install " in step and "py3.10" in step:
            assert step.endswith("-e .[test]") and said == "== installing in .venv-test/py3.10: tfcompat-threads " \
                "(editable) with its test extra", (step, said)
        elif " -m pip install " in step:
            venv = re.search(r"\.venv-test/[^/]+", step)[0]
            requirement = step.split()[-1]
            assert said.startswith(f"== installing in {venv}: tfcompat-threads (editable) with its test")
            assert f"and {requirement} " in said, (said, requirement)
        else:
            assert " -m pytest " in step, step
            assert said in ("== tests on tensorflow-cpu 9.9.9", "== TensorFlow tests on tensorflow-cpu 9.9.9",
                            "== tests that need no TensorFlow on Python 3.99.0")
            if "py3.10" in step:
                assert step.endswith("-m not tf -k x"), step
    assert sum(" -m pip install " in s for s in steps) == 6
    assert sum(" -m venv " in s for s in steps) == 2
    assert sum(" -m pytest " in s for s in steps) == 3
    assert re.fullmatch(r"== scripts/test took \d+m\d\ds", lines[-1]), lines[-1]


def test_says_how_long_it_took_when_the_tests_fail(tmp_path):
    code, lines = run_script(tmp_path, pytest_exit=3)
    assert code == 3
    assert re.fullmatch(r"== scripts/test took \d+m\d\ds \(failed: exit 3\)", lines[-1]), lines[-1]


def test_an_oldest_python_that_does_not_run_is_skipped(tmp_path):
    code, lines = run_script(tmp_path, oldest=str(tmp_path / "no-python3.10"))
    assert code == 0, lines
    assert not any("py3.10" in line for line in lines)
    assert sum(line.startswith("RAN ") and " -m pytest " in line for line in lines) == 2
