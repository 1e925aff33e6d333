"""The Action never runs the linted repository's code (issue 29 item 1; issue
30 item 10).

`python -m` puts the current folder first on sys.path: with the checked-out
repository as that folder, a `venv.py`, `logging.py`, `ensurepip.py` or
`pip/` in it ran inside the job (under `pull_request_target`, a fork's code
with the workflow's token), and a planted `pip/` could install a stand-in
that always passes. The Action's steps, read from action.yml and run as a
runner runs them (tests/test_action.py), over a repository holding each of
them: none runs, and the real check reports the real finding. The steps use
setup-python's Python without putting it on the job's PATH, and name no
`bin/` folder (a Windows runner's environment has `Scripts`).
"""

from __future__ import annotations

import subprocess

import yaml

from ..test_action import checkout, run_steps
from .helpers import LEGACY, ROOT

PLANTED = ("venv.py", "logging.py", "ensurepip.py", "pip/__init__.py", "pip/__main__.py",
           "tfcompat_threads/__init__.py", "tfcompat_threads/__main__.py", "encodings/__init__.py",
           "site.py", "sitecustomize.py", "click/__init__.py")


def test_the_actions_steps_run_no_module_of_the_linted_repository(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    workspace = tmp_path / "repo"
    for name in PLANTED:
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        marker = markers / name.replace("/", "_")
        path.write_text(f"open({str(marker)!r}, 'w').close()\nimport sys\nsys.exit(0)\n")
    (workspace / "train.py").write_bytes(LEGACY)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    steps = run_steps(checkout(tmp_path), workspace, runner_temp, src="train.py")
    assert sorted(p.name for p in markers.iterdir()) == [], "the repository's code ran in the job"
    install, check = steps
    assert install.returncode == 0, install.stderr[-3000:]
    assert check.returncode == 1 and "::error title=tfcompat-threads (TFT001)," in check.stdout, \
        check.stdout + check.stderr


def test_the_actions_scripts_name_no_bin_folder_and_leave_the_jobs_python_alone():
    spec = yaml.safe_load((ROOT / "action.yml").read_text())
    for step in spec["runs"]["steps"]:
        if "uses" in step:
            assert step["with"].get("update-environment") is False, step
        else:
            assert "bin/" not in step["run"] and "/bin" not in step["run"], step["run"]
            assert "python -m" not in step["run"] and '"$' in step["run"]
