"""`run`'s report after a `--target shim` fix: one entry per setting, at the
user's line, and every thread count on the page explained by the page."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.test_run import CLI, ROOT, clean_env, only_process, run_cli
from tests.tfproc import openmp_build


def fixed_and_run(tmp_path):
    """The bundled example fixed with --target shim, run under `run` (JSON and text)."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "legacy_project", project)
    fixed = subprocess.run([*CLI, "fix", "--exit-zero", "--target", "shim", "."], capture_output=True, text=True,
                           cwd=project)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    lines = (project / "train.py").read_text().splitlines()
    session = 1 + next(i for i, line in enumerate(lines) if "tfcompat_threads.Session(config=config)" in line)
    set_session = 1 + next(i for i, line in enumerate(lines) if "tfcompat_threads.set_session(" in line)
    args = ["--intra", "1", "--inter", "1"]
    proc, data = run_cli(tmp_path, project / "train.py", "--strict", cwd=project, args=args)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    process = only_process(data)
    settings = process["settings"]
    # an OpenMP build: the shim sets OMP_NUM_THREADS=1 from the intra-op count, a setting of its own, counted
    openmp = ["OMP_NUM_THREADS"] if openmp_build() else []
    assert [s["field"] for s in settings] == ["intra_op_parallelism_threads", "inter_op_parallelism_threads",
                                              "allow_soft_placement", *openmp], "one entry per setting"
    if openmp:
        omp = settings.pop()
        assert (omp["value"], omp["verdict"], process["openmp"]["threads"]) == ("1", "applied", 1), omp
    for setting in settings:
        assert setting["site"].endswith(f"train.py:{session}") and "tfcompat_threads.Session(" in setting["code"]
        assert [site.rpartition(":")[2] for site in setting["again"]] == [str(set_session)]
    assert data["verdicts"] == {"applied": 2 + len(openmp), "ignored": 0, "raised": 0, "overridden": 0, "not reached": 0,
                                "not counted": 1}

    report = tmp_path / "report.txt"
    text_run = subprocess.run([*CLI, "run", "--output", str(report), "--", *proc.args[proc.args.index("--") + 1:]],
                              capture_output=True, env=clean_env(), cwd=project, timeout=300)
    assert text_run.returncode == 0
    text = report.read_text()
    assert f"via `sess = tfcompat_threads.Session(config=config)` at train.py:{session} (through " \
           "tf.config.threading.set_intra_op_parallelism_threads)" in text
    assert f"the same again at train.py:{set_session} `tfcompat_threads.set_session(sess)`" in text
    assert f"verdicts: {2 + len(openmp)} applied, 1 not counted" in text
    return process, text


@pytest.mark.tf
def test_after_a_shim_fix_each_setting_is_one_entry_at_the_users_line(tmp_path):
    fixed_and_run(tmp_path)


@pytest.mark.tf(since=(2, 16))
def test_every_thread_count_on_the_page_is_explained(tmp_path):
    """Where TensorFlow names its threads (2.16+), each is told by what made
    it. Before, a thread TensorFlow makes outside the events `run` counts
    (on 2.15 one before the first op) is not (left: see the README)."""
    process, text = fixed_and_run(tmp_path)
    for when in ("the first op", "exit"):
        [line] = [x for x in text.splitlines() if x.startswith(f"  threads at {when}: ")]
        total, inside = re.match(rf"  threads at {when}: (\d+) \((.*)\)$", line).groups()
        counted = 0
        for part in inside.split("; "):
            name, count, what = re.match(r"(\S+) (\d+) = (.*)$", part).groups()
            pieces = [int(p.split(" ", 1)[0]) if p[0].isdigit() else 1 for p in what.split(" + ")]
            assert sum(pieces) == int(count), part
            counted += int(count)
        assert counted == int(total), line
        assert "main" in inside and "started later" not in inside, line
        if tuple(int(x) for x in process["tensorflow"].split(".")[:2]) >= (2, 16):  # threads named: each known
            # OPENBLAS_NUM_THREADS=1 and no Python threads: main + 1 intra-op; 1 inter-op; the graph runner
            assert inside == ("python 2 = main + 1 intra-op (eager); tf_Compute 1 = 1 inter-op (eager); "
                              "tf_graph_runner 1 = 1 graph runner"), line
