"""Every bundled example (examples/) runs on every row of the matrix, on that
row's TensorFlow (TFCOMPAT_TEST_TF_PYTHON) with this checkout's package: the
shim demo as it is; the legacy project as it is on TF 1.x, and on TF 2 after
`fix` (its graph-mode server also after `tf_upgrade_v2`, which the summary
of `fix` names for the TF1-only names outside session config it leaves)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tfproc import TF_PYTHON, tf_release

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CLI = [sys.executable, "-m", "tfcompat_threads"]


def example_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_NUM_", "OMP_", "KMP_", "TFCOMPAT_"))}
    # this checkout's package, whatever the row has installed
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
               TF_CPP_MIN_LOG_LEVEL="2", OPENBLAS_NUM_THREADS="1")
    return env


def python(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([TF_PYTHON, *args], cwd=cwd, env=example_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args} on {tf_release()}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def test_every_example_is_run_here():
    """A new example fails here until a test below runs it."""
    assert sorted(p.name for p in EXAMPLES.iterdir()) == ["legacy_project", "shim_demo.py"]
    assert sorted(p.relative_to(EXAMPLES / "legacy_project").as_posix()
                  for p in (EXAMPLES / "legacy_project").rglob("*") if p.suffix in (".py", ".ipynb")) == [
        "explore.ipynb", "serve.py", "train.py", "utils/__init__.py", "utils/session.py"]


@pytest.mark.tf(since=(1, 15))
def test_the_shim_demo_runs_and_sizes_both_pools(tmp_path):
    out = python(str(EXAMPLES / "shim_demo.py"), cwd=tmp_path).stdout
    assert "  intra-op pool: 2 threads (source: config)" in out.splitlines(), out
    assert "  inter-op pool: 1 threads (source: config)" in out.splitlines(), out


def notebook_as_script(notebook: Path) -> str:
    """The code cells in order; `%time X` (the one magic the example uses) runs X."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            lines += [line[len("%time "):] if line.startswith("%time ") else line for line in source.splitlines()]
    assert not [line for line in lines if line.startswith(("%", "!"))]
    return "\n".join(lines) + "\n"


@pytest.mark.tf(since=(1, 15))
def test_the_legacy_project_runs_as_it_is_on_tf1_and_after_fix_on_tf2(tmp_path):
    project = tmp_path / "legacy_project"
    shutil.copytree(EXAMPLES / "legacy_project", project)
    if tf_release() >= (2, 0):
        fixed = subprocess.run([*CLI, "fix", "--exit-zero", "-q", "."], cwd=project, capture_output=True, text=True)
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        upgraded = python("-m", "tensorflow.tools.compatibility.tf_upgrade_v2_main", "--infile", "serve.py",
                          "--outfile", "serve.py", cwd=project)
        assert "tf.compat.v1.placeholder" in (project / "serve.py").read_text(), upgraded.stdout
    python("train.py", "--intra", "1", "--inter", "1", cwd=project)
    assert python("serve.py", cwd=project).stdout.strip() == "[10.]"
    (project / "explore.py").write_text(notebook_as_script(project / "explore.ipynb"))
    python("explore.py", cwd=project)
