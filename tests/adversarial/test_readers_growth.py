"""Issue 29 item 8: modules that import each other's configs and sessions.
Who reads a module-level name is asked once per module and name, and what a
kept answer asked is held by reference: twelve such modules (each importing
the other eleven's ten names) are checked well inside the limit, where the
previous analysis did not finish six in 100 s and fifty ran out of memory.
The limit is generous (the run takes seconds on a busy machine); the input is
large enough that the old growth could not meet it."""

from __future__ import annotations

import re

from .helpers import tft

MODULES = 12
PAIRS = 5


def test_modules_importing_each_others_sessions_are_checked_in_bounded_time_and_memory(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    for i in range(MODULES):
        lines = ["import tensorflow as tf"]
        for j in range(MODULES):
            if j != i:
                lines.append(f"from m{j} import " + ", ".join(f"config_{j}_{k}, sess_{j}_{k}" for k in range(PAIRS)))
        for k in range(PAIRS):
            lines += [f"config_{i}_{k} = tf.ConfigProto(intra_op_parallelism_threads=1)",
                      f"sess_{i}_{k} = tf.Session(config=config_{i}_{k})"]
        (tmp_path / f"m{i}.py").write_text("\n".join(lines) + "\n")
    run = tft("check", "--no-cache", "-j1", ".", cwd=tmp_path, timeout=120)
    assert run.returncode == 1, run
    # each pair: its TFT001 (no native fix: other modules read it) and its two renames (fixable)
    assert re.search(rf"{MODULES} files checked.*{3 * MODULES * PAIRS} findings in {MODULES} files "
                     rf"\({2 * MODULES * PAIRS} fixable", run.stdout), run
