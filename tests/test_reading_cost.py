"""What makes reading a file cheap must not change what is read: the
pre-filter's keys, the notebook JSON read in one pass, the check of a
rewritten notebook where it changed, and a module of the repository
analysed only as far as a question needs (issue 26)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tfcompat_threads.codemod import prefilter
from tfcompat_threads.codemod.analysis import Analysis
from tfcompat_threads.codemod.project import Project
from tfcompat_threads.codemod.source import Source
from tfcompat_threads.lint import nbjson, notebooks


# -- the pre-filter's keys ------------------------------------------------------------------------


def test_every_token_is_under_one_key_that_it_holds():
    grouped = [token for _, group in prefilter.GROUPS for token in group]
    assert sorted(grouped) == sorted(prefilter.TRIGGERS)
    assert all(key in token for key, group in prefilter.GROUPS for token in group)
    assert len(prefilter.GROUPS) < len(prefilter.TRIGGERS)  # fewer scans than tokens


@pytest.mark.parametrize("token", prefilter.TRIGGERS)
def test_each_token_alone_still_passes_and_its_key_alone_does_not(token):
    assert prefilter.may_need_codemod(b"import tensorflow as tf\nx = tf." + token + b"\n")
    key = next(key for key, group in prefilter.GROUPS if token in group)
    if key != token:
        assert not prefilter.may_need_codemod(b"import tensorflow as tf\nx = '" + key + b"'\n")


# -- a notebook's JSON, read once ------------------------------------------------------------------


NOTEBOOKS = [
    {"cells": [], "metadata": {}, "nbformat": 4},
    {"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\n", "s = tf.Session()"],
                "outputs": [{"data": {"image/png": "iVBOR" * 1000}}], "metadata": {}}],
     "metadata": {"kernelspec": {"language": "python"}}, "nbformat": 4, "nbformat_minor": 2},
    {"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "caf\u00e9 <b>&</b>"},
                              {"cell_type": "code", "source": "x = 1", "source": "y = 2"}, 7, None]},
]


@pytest.mark.parametrize("indent", [None, 1, "\t"])
@pytest.mark.parametrize("document", NOTEBOOKS)
def test_the_one_pass_read_is_what_json_loads_reads_and_where_cells_finds_them(document, indent):
    text = json.dumps(document, indent=indent)
    nbjson._CELLS.clear()
    expected_places = nbjson.cells(text)
    nbjson._CELLS.clear()
    assert nbjson.read(text) == json.loads(text)
    assert nbjson._CELLS[1] == expected_places


@pytest.mark.parametrize("text", [
    '{"cells": []} x', '{"cells": [] "a": 1}', '{"cells" []}', '{"cells": [}', '{"cells": [], "cells": []}',
    '{"worksheets": [{"cells": []}]}', '[]', '{}', '{"cells": [1,]}', '{"a": 1}',
])
def test_what_the_one_pass_read_does_not_take_is_left_to_json_loads(text):
    assert nbjson.read(text) is None


@pytest.mark.parametrize("escapes, lone", [
    (r'"\ud83d\ude00"', False), (r'"\ud83d"', True), (r'"\ude00"', True), (r'"\\ud83d"', False),
    (r'"\ud83d\\ude00"', True), (r'"\ud83d" "\ude00"', True), (r'"\uD83D\uDE00 \ud83d\ude01"', False),
    (r'"\\\ud83d"', True), (r'"\ud83d\ud83d\ude00"', True),
])
def test_a_lone_escaped_surrogate_is_told_from_a_pair_where_it_is(escapes, lone):
    assert nbjson.lone_surrogate_escape(escapes.encode()) is lone
    if '" "' not in escapes:  # one JSON string: what json.loads makes of it agrees
        text = json.loads(escapes)
        try:
            text.encode("utf-8")
            assert not lone
        except UnicodeEncodeError:
            assert lone


def test_a_rewrite_checked_where_it_changed_is_refused_when_the_place_held_other_text(tmp_path):
    document = {"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\n", "s = tf.Session()\n"],
                           "metadata": {}, "outputs": []}], "metadata": {}, "nbformat": 4}
    raw = json.dumps(document, indent=1).encode()
    loaded = notebooks.load(raw)
    assert loaded.scanned
    new = {0: ["import tensorflow as tf\n", "s = tf.compat.v1.Session()\n"]}
    written = nbjson.replace_sources(raw, "source", new, {0: document["cells"][0]["source"]}, loaded.text)
    assert json.loads(written) == {**document, "cells": [{**document["cells"][0], "source": new[0]}]}
    assert nbjson.replace_sources(raw, "source", new, {0: ["something else\n"]}, loaded.text) is None


def test_fix_of_a_notebook_with_non_ascii_text_and_html_escapes_keeps_every_other_byte(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["caf\u00e9 <b>\u00e9</b>\n"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["import tensorflow as tf\n", "s = tf.Session()  # caf\u00e9 <\n"]}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2}, indent=1)
    text = text.replace("<", "\\u003c")  # Colab's escaping
    path = tmp_path / "n.ipynb"
    path.write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    from tests.test_cli import cli

    assert cli("fix", str(path)).exit_code == 0
    after = path.read_text(encoding="utf-8")
    # only the session's name changed: the file's raw é and Colab's \u003c stay as the file writes them
    assert after == text.replace("tf.Session()", "tf.compat.v1.Session()")


def test_check_of_a_notebook_parses_its_code_once_and_fix_parses_what_it_writes(tmp_path, monkeypatch):
    # check applies a notebook's fixes to tell whether fix can write it, and
    # parses the result no more than a .py file's check does: never (fix does)
    from tests.test_cli import cli
    from tfcompat_threads.codemod import source

    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": ["import tensorflow as tf\n", "s = tf.Session()\n"]}]
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2}))
    parsed = []
    real = source.Source._parse

    def counted(self, *args, **kwargs):
        parsed.append(self.text)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(source.Source, "_parse", counted)
    checked = cli("check", "--no-cache", str(path))
    assert "1 finding in 1 file (1 fixable with `fix`)" in checked.output  # fix can write it
    assert parsed == ["import tensorflow as tf\ns = tf.Session()\n\n"]
    parsed.clear()
    assert cli("fix", "--no-cache", str(path)).exit_code == 0
    assert parsed[0] == "import tensorflow as tf\ns = tf.Session()\n\n"
    assert parsed[1:] == ["import tensorflow as tf\ns = tf.compat.v1.Session()\n\n"]


# -- a module of the repository, analysed only as far as asked -------------------------------------


HELPER = '''import tensorflow as tf


def is_tf2():
    return tf.__version__.startswith("2")


config = tf.ConfigProto(intra_op_parallelism_threads=2)
sess = tf.Session(config=config)
'''
MAIN = '''import tensorflow as tf
from helpers import is_tf2

if not is_tf2():
    sess = tf.Session()
'''


def test_a_module_read_for_a_guard_helper_is_not_analysed_for_its_own_findings(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "setup.py").write_text("")
    project = Project(tmp_path)
    main = Analysis(Source((tmp_path / "main.py").read_bytes(), "main.py"), project, (tmp_path / "main.py").resolve())
    assert main.tf1_regions  # the helper's return decided the branch
    helper = project.analysis((tmp_path / "helpers.py").resolve())
    assert helper is not None and "tf1_regions" not in vars(helper) and "units" not in vars(helper)
    assert len(helper.units) == 1  # asked for, they are made then
    assert "tf1_regions" in vars(helper)


def test_what_a_lazily_made_part_read_is_part_of_the_modules_making(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER + "from pkg.more import *\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "more.py").write_text("import tensorflow as tf\n")
    (tmp_path / "setup.py").write_text("")
    project = Project(tmp_path)
    path = (tmp_path / "helpers.py").resolve()
    with project.recording() as first:
        helper = project.analysis(path)
    with project.recording() as second:
        again = project.analysis(path)
        assert again is helper
        helper.units  # made now, inside the second recording
    with project.recording() as third:
        project.analysis(path)  # made already: what making it asked is asked again
    assert set(second.flat()) <= set(third.flat())
    assert set(first.flat()) <= set(third.flat())


def test_a_cycle_back_to_a_module_whose_rest_is_being_made_finds_no_analysis(tmp_path):
    (tmp_path / "a.py").write_text("import tensorflow as tf\nfrom b import flag\n\nif flag():\n    s = tf.Session()\n")
    (tmp_path / "b.py").write_text("import tensorflow as tf\nfrom a import *\n\n\ndef flag():\n    return tf.__version__ < '2'\n"
                                   "\n\nif flag():\n    t = tf.Session()\n")
    (tmp_path / "setup.py").write_text("")
    from tests.test_cli import cli

    result = cli("check", "--output-format", "json", str(tmp_path))
    assert result.exit_code in (0, 1), result.output
    assert "internal error" not in result.output


# -- a notebook's pre-filter reads its code cells ---------------------------------------------------


def _notebook(cells) -> bytes:
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 2}, indent=1).encode()


def test_a_notebook_is_pre_filtered_by_its_code_cells_not_its_outputs_and_markdown():
    from tfcompat_threads.lint.runner import needs_codemod

    code = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["import tensorflow as tf\n"],
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["tf.Session() " * 1000]}]}
    markdown = {"cell_type": "markdown", "metadata": {}, "source": ["Use `tf.ConfigProto()`"]}
    assert needs_codemod(_notebook([code, markdown]), "n.ipynb")[0] is False
    session = dict(code, source=["import tensorflow as tf\n", "sess = tf.Session()\n"])
    needed, loaded = needs_codemod(_notebook([session, markdown]), "n.ipynb")
    assert needed and loaded is not None and [cell.text for cell in loaded.cells] == ["".join(session["source"])]
    broken = b'{"cells": [{"cell_type": "code", "source": "import tensorflow as tf\\nsess = tf.Session()"'
    assert needs_codemod(broken, "n.ipynb") == (True, None)  # unreadable: its run says why


def test_an_unreadable_notebook_that_names_a_session_is_still_reported(tmp_path):
    from tests.test_cli import cli

    path = tmp_path / "n.ipynb"
    path.write_bytes(b'{"cells": [{"cell_type": "code", "source": "import tensorflow as tf\\nsess = tf.Session()"')
    result = cli("check", str(path))
    assert result.exit_code == 2 and "not a notebook" in result.output


# -- a star import that cannot bring TensorFlow ------------------------------------------------------


@pytest.mark.parametrize("helper, reported", [
    ("import tensorflow as tf\n", True),  # the star import brings tf
    ("from deeper import *\n", True),  # ... through another star import
    ("import numpy as np\n", False),  # nothing there names TensorFlow: the file is not parsed
])
def test_a_file_that_names_tensorflow_only_through_a_star_import_is_read_when_it_may_bring_it(tmp_path, helper, reported):
    from tests.test_cli import cli

    (tmp_path / "setup.py").write_text("")
    (tmp_path / "utils.py").write_text(helper)
    (tmp_path / "deeper.py").write_text("import tensorflow as tf\n")
    (tmp_path / "train.py").write_text("from utils import *\n\nsess = tf.Session()\n")
    result = cli("check", "--output-format", "json", str(tmp_path / "train.py"))
    found = json.loads(result.stdout)
    assert bool(found) is reported and result.exit_code == (1 if reported else 0)
    from tfcompat_threads.codemod.prefilter import star_may_bring_tensorflow

    assert star_may_bring_tensorflow((tmp_path / "train.py").read_bytes(), str(tmp_path / "train.py")) is reported


@pytest.mark.parametrize("gap", [" ", "\t", " \\\n    ", "\\\r\n", " \\\r", "\f"])
def test_a_star_import_split_as_python_allows_is_found(tmp_path, gap):
    """`from utils import \\` with the `*` on the next line is a star import
    too: the file is parsed, and its session reported."""
    from tests.test_cli import cli
    from tfcompat_threads.codemod.prefilter import may_need_codemod

    (tmp_path / "setup.py").write_text("")
    (tmp_path / "utils.py").write_text("import tensorflow as tf\n")
    source = f"from utils import{gap}*\n\nsess = tf.Session()\n".encode()
    compile(source, "train.py", "exec")  # Python reads it so
    (tmp_path / "train.py").write_bytes(source)
    assert may_need_codemod(source, str(tmp_path / "train.py"))
    result = cli("check", "--output-format", "json", str(tmp_path / "train.py"))
    assert result.exit_code == 1 and json.loads(result.stdout)


def test_a_star_import_statement_is_found_wherever_python_allows_one(tmp_path):
    from tfcompat_threads.codemod.prefilter import star_may_bring_tensorflow

    (tmp_path / "setup.py").write_text("")
    (tmp_path / "utils.py").write_text("x = 1\n")
    path = tmp_path / "train.py"
    path.write_text("")
    (tmp_path / "tfutils.py").write_text("import tensorflow as tf\n")
    assert not star_may_bring_tensorflow(b"import os; from utils import *\n", str(path))
    assert star_may_bring_tensorflow(b"import os; from tfutils import *\n", str(path))
    assert star_may_bring_tensorflow(b"if x:\n    from utils import x; from \\\n  tensorflow import *\n", str(path))
    assert star_may_bring_tensorflow(b"from tensorflow.compat.v1 import *\n", str(path))
    assert not star_may_bring_tensorflow(b'"""You can from tensorflow import * here"""\n', str(path))
    assert not star_may_bring_tensorflow(b"from utils import *\nfrom numpy import *\n", str(path))


def test_the_pool_gets_a_folders_files_together_and_a_small_tree_shared_out():
    """lint/runner.py `_Pool`: consecutive files of one folder go to one
    process together (their modules are read once), at most BATCH, and never
    so many that a small tree stays in one process; a new folder starts a
    new batch."""
    from tfcompat_threads.lint import runner

    class Recorder:
        def __init__(self):
            self.batches = []

        def submit(self, function, batch):
            self.batches.append([item[0] for item in batch])

        def shutdown(self, **_):
            pass

    def batches(paths, jobs=2):
        pool = runner._Pool(jobs)
        pool.executor.shutdown()
        pool.executor = Recorder()
        for path in paths:
            pool.add((path,))
        pool.flush()
        return pool.executor.batches

    small = batches([f"pkg/m{i}.py" for i in range(17)])
    assert sum(small, []) == [f"pkg/m{i}.py" for i in range(17)]
    assert max(map(len, small)) <= 3 and len(small) >= 8, small  # both processes get work
    large = batches([f"pkg/m{i}.py" for i in range(400)])
    assert max(map(len, large)) == runner.BATCH and sum(map(len, large)) == 400
    mixed = batches([f"a/m{i}.py" for i in range(200)] + ["b/x.py", "b/y.py", "c/z.py"])
    assert mixed[-2:] == [["b/x.py", "b/y.py"], ["c/z.py"]]


# -- a module's analysis is freed when its check ends ------------------------------------------


def test_a_modules_analysis_is_freed_without_the_cyclic_collector():
    """The units of a config hold their module's analysis only weakly, and
    not the way they were followed: no cycle keeps the analysis, and with it
    the module's whole tree, for the cyclic collector (which walked every
    node of it after each file)."""
    import gc
    import weakref

    from tfcompat_threads.codemod.engine import lint

    source = Source(b"import tensorflow as tf\n\n\ndef make(config):\n    return tf.Session(config=config)\n\n\n"
                    b"config = tf.ConfigProto(intra_op_parallelism_threads=2)\nsess = make(config)\n")
    enabled = gc.isenabled()
    gc.disable()
    try:
        context, findings = lint(source, "native")
        analysis = weakref.ref(context.analysis)
        units = context.analysis.units
        assert units and all(unit.home is context.analysis for unit in units)
        assert any(f.code == "TFT001" for f in findings)
        del context, units
        assert analysis() is None
    finally:
        if enabled:
            gc.enable()
