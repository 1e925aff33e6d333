"""The GitHub Action (`action.yml` at the repository's root), its steps run
as a runner runs them: the YAML parsed, each `run:` script in bash (GitHub's
`bash --noprofile --norc -eo pipefail`) with `${{ inputs.* }}` substituted and
the runner's variables set, against a temporary repository. The action's
checkout is a copy of this repository's files (installing builds in it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
LEGACY = (ROOT / "fixtures" / "keyword_args" / "input.py").read_text()


def checkout(tmp_path: Path) -> Path:
    """The action as `uses: owner/tfcompat-threads@ref` checks it out: the
    repository's tracked files."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    copy = tmp_path / "action"
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    return copy


def run_steps(action: Path, workspace: Path, runner_temp: Path, only: tuple[str, ...] = (),
              **given: str) -> list[subprocess.CompletedProcess]:
    """Every step of the composite action (or the steps named `only`), in
    order; stops at a failing one. setup-python's one output, `python-path`,
    is this Python, and it changes nothing of the job's environment: the
    `python` and `python3` on PATH are the job's own, which here fail if run.
    A step's outputs (`$GITHUB_OUTPUT`) reach the later steps' `env`."""
    spec = yaml.safe_load((action / "action.yml").read_text())
    assert spec["runs"]["using"] == "composite"
    inputs = {name: str(given.get(name, entry.get("default", ""))) for name, entry in spec["inputs"].items()}
    assert not set(given) - set(inputs), "inputs the action does not declare"
    outputs: dict[str, dict[str, str]] = {}
    jobs_python = runner_temp / "jobs-python"
    jobs_python.mkdir(exist_ok=True)
    for name in ("python", "python3"):
        (jobs_python / name).write_text("#!/bin/sh\necho 'the job'\''s own python was run' >&2\nexit 97\n")
        (jobs_python / name).chmod(0o755)

    def substitute(text: str) -> str:
        text = re.sub(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}",
                      lambda m: outputs.get(m.group(1), {}).get(m.group(2), ""), text)
        return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], text)

    done = []
    for step in spec["runs"]["steps"]:
        if "uses" in step:  # the runner's own setup, which a step's `only` does not skip (its output is read)
            assert step["uses"].startswith("actions/setup-python@")
            assert substitute(step["with"]["python-version"]) == inputs["python-version"]
            assert step["with"].get("update-environment") is False, "the job's Python is left as it was"
            outputs[step.get("id", "")] = {"python-path": sys.executable}
            continue
        assert step["shell"] == "bash"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_"))}
        env.update({name: substitute(str(value)) for name, value in step.get("env", {}).items()})
        output = runner_temp / f"output-{len(done)}"
        output.write_text("")
        env.update(GITHUB_ACTION_PATH=str(action), RUNNER_TEMP=str(runner_temp), GITHUB_OUTPUT=str(output),
                   GITHUB_WORKSPACE=str(workspace), PATH=str(jobs_python) + os.pathsep + env.get("PATH", ""))
        assert "${{" not in step["run"], "inputs reach scripts through env, never spliced into the script"
        if only and step["name"] not in only:
            outputs[step.get("id", "")] = dict(_outputs(runner_temp / "kept" / step.get("id", "")))
            continue
        done.append(subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                   cwd=workspace, env=env, capture_output=True, text=True, timeout=900))
        outputs[step.get("id", "")] = dict(_outputs(output))
        if step.get("id"):  # kept for a later call that runs only the steps after this one
            (runner_temp / "kept").mkdir(exist_ok=True)
            shutil.copy(output, runner_temp / "kept" / step["id"])
        if done[-1].returncode != 0:
            break
    return done


def _outputs(path: Path):
    """`name=value` lines of a `$GITHUB_OUTPUT` file."""
    if path.is_file():
        for line in path.read_text().splitlines():
            name, _, value = line.partition("=")
            yield name, value


def test_the_action_installs_from_its_checkout_and_annotates_the_paths_given(tmp_path):
    action = checkout(tmp_path)
    workspace = tmp_path / "repo"
    (workspace / "src dir").mkdir(parents=True)
    (workspace / "src dir" / "train.py").write_text(LEGACY)
    (workspace / "other").mkdir()
    (workspace / "other" / "old.py").write_text(LEGACY)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    install, check = run_steps(action, workspace, runner_temp, src="other", args="--select TFT001")
    assert install.returncode == 0, install.stderr[-3000:]
    assert check.returncode == 1, check.stdout + check.stderr
    annotations = check.stdout.splitlines()
    assert all(line.startswith("::error title=tfcompat-threads (TFT001),") for line in annotations)
    assert len(annotations) == 1 and "file=other/old.py,line=5,col=8," in annotations[0]
    [clean] = run_steps(action, workspace, runner_temp, ("Check",), src="other", args="--ignore TFT0")
    assert clean.returncode == 0 and clean.stdout == "", clean.stdout + clean.stderr
    [everything] = run_steps(action, workspace, runner_temp, ("Check",))
    assert everything.returncode == 1 and "file=src dir/train.py," in everything.stdout
