"""Issue 29 item 6: a safe fix must not delete a module-level name that a
dynamic lookup reads (the fixed program would raise NameError or
AttributeError). Each shape reads `sess` by a computed name; `fix` keeps its
binding, and says why the native fix is held back. Names no lookup can reach
are still fixed (the last tests), so the rule is not "never fix"."""

from __future__ import annotations

import ast

import pytest

from .helpers import tft

HEAD = ("import tensorflow as tf\n\n"
        "config = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=2)\n"
        "sess = tf.InteractiveSession(config=config)\n\n")

READS = {
    "builtins-eval": "import builtins\nprint(builtins.eval('sess'))\n",
    "eval-alias": "e = eval\nprint(e('sess'))\n",
    "eval-imported-as": "from builtins import eval as e\nprint(e('sess'))\n",
    "dunder-builtins": "print(__builtins__.eval('sess') if hasattr(__builtins__, 'eval') else 0)\n",
    "exec-sys-modules": "exec('import sys; print(sys.modules[__name__].sess)')\n",
    "eval-dunder-import": "print(eval('__import__(__name__).sess'))\n",
    "dunder-import": "print(getattr(__import__(__name__), 'sess'))\n",
    "import-module": "import importlib\nprint(importlib.import_module(__name__).sess)\n",
    "frame-globals": "import sys\nprint(sys._getframe().f_globals['sess'])\n",
    "exec-getattr-string": "exec(\"import sys\\nprint(getattr(sys.modules[__name__], 'se' + 'ss'))\")\n",
}


@pytest.mark.parametrize("shape", sorted(READS))
def test_a_name_a_dynamic_lookup_reads_is_never_deleted(tmp_path, shape):
    (tmp_path / "pyproject.toml").write_text("")
    program = tmp_path / "train.py"
    program.write_text(HEAD + READS[shape])
    run = tft("fix", "--no-cache", "train.py", cwd=tmp_path)
    assert run.returncode in (0, 1), run
    fixed = program.read_text()
    tree = ast.parse(fixed)
    bound = [t.id for node in tree.body if type(node) is ast.Assign for t in node.targets if type(t) is ast.Name]
    assert "sess" in bound, (shape, fixed)
    assert READS[shape] in fixed, (shape, fixed)


@pytest.mark.parametrize("read", [
    "print(eval('1 + 1'))\n",
    "e = eval\nprint(e('2'))\n",
    "import importlib\nprint(importlib.import_module('json').dumps([]))\n",
])
def test_a_lookup_that_cannot_reach_the_name_keeps_the_fix(tmp_path, read):
    (tmp_path / "pyproject.toml").write_text("")
    program = tmp_path / "train.py"
    program.write_text(HEAD + read)
    run = tft("fix", "--no-cache", "train.py", cwd=tmp_path)
    assert run.returncode in (0, 1), run
    fixed = program.read_text()
    assert "sess = " not in fixed and "set_intra_op_parallelism_threads(1)" in fixed, (read, fixed)
