"""Right answers on code written to mislead (issue 20 items 9-13).

`# noqa` counts only as a comment; identifiers are read as Python reads them
(NFKC); a `tf` that may be another module is not TensorFlow; a folder that
cannot be listed is an error wherever it is; a notebook `fix` cannot write is
never marked fixable by `check`.
"""

from __future__ import annotations

import json

import pytest

from .helpers import Run, assert_one_error, command, finish, kill_group, start, tft, unprivileged

SESSION = "import tensorflow as tf\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)\n"


@pytest.mark.parametrize("line", ["sess = tf.Session(config=config); s = '# noqa'",
                                  'sess = tf.Session(config=config); s = """# noqa: TFT002"""',
                                  "sess = tf.Session(config=config); s = f'{1}# tfcompat: ignore[TFT002]'"])
def test_noqa_inside_a_string_suppresses_nothing(tmp_path, line):
    """Item 9."""
    (tmp_path / "t.py").write_text(SESSION + line + "\nsess.run(1)\n")
    run = tft("check", "t.py", cwd=tmp_path)
    assert run.returncode == 1 and "t.py:3:8: TFT002" in run.stdout, run
    assert tft("fix", "t.py", cwd=tmp_path).returncode in (0, 1)
    assert "tf.compat.v1.Session(" in (tmp_path / "t.py").read_text()


def test_noqa_in_a_comment_still_suppresses_and_lines_are_counted_as_python_counts_them(tmp_path):
    """A form feed or U+2028 is no line end: the noqa of line 4 is on line 4."""
    (tmp_path / "t.py").write_text(SESSION + "\x0c\ns = '\u2028'\nsess = tf.Session(config=config)  # noqa: TFT002\n"
                                   "sess.run(1)\n", encoding="utf-8")
    run = tft("check", "t.py", cwd=tmp_path)
    assert "TFT002" in run.stdout and "t.py:5" not in run.stdout, run


@pytest.mark.parametrize("spelling", ["tensor\ufb02ow", "\uff54ensorflow"])
@pytest.mark.parametrize("comment", ["", "# \u8bbe\u7f6e\u7ebf\u7a0b\uff0c\u6bcf\u4e2a\u64cd\u4f5c\uff1a\u4e24\u4e2a\u3002\n"])
def test_a_tensorflow_import_spelled_with_compatibility_characters_is_seen(tmp_path, spelling, comment):
    """Item 10: Python NFKC-normalises identifiers: `import tensorﬂow`
    (U+FB02) imports tensorflow, also beside text in another script whose
    fullwidth punctuation NFKC changes too."""
    code = f"{comment}import {spelling} as tf\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)\n" \
           "sess = tf.Session(config=config)\nsess.run(1)\n"
    (tmp_path / "t.py").write_text(code, encoding="utf-8")
    run = tft("check", "t.py", cwd=tmp_path)
    assert run.returncode == 1 and "TFT002" in run.stdout, run
    assert tft("fix", "t.py", cwd=tmp_path).returncode == 0
    fixed = (tmp_path / "t.py").read_text(encoding="utf-8")
    assert "tf.compat.v1.Session(" in fixed and fixed.startswith(f"{comment}import {spelling} as tf\n")
    compile(fixed, "t.py", "exec")


def test_a_session_spelled_with_compatibility_characters_is_seen(tmp_path):
    """The import spelled plainly, the only TF1 name in fullwidth letters."""
    code = "# \u4f1a\u8bdd\uff0c\u914d\u7f6e\u3002\nimport tensorflow as tf\nsess = tf.\uff33ession()\nsess.run(1)\n"
    (tmp_path / "t.py").write_text(code, encoding="utf-8")
    run = tft("check", "t.py", cwd=tmp_path)
    assert run.returncode == 1 and "t.py:3:8: TFT002" in run.stdout, run


@pytest.mark.parametrize("order", ["mylib last", "inside try"])
def test_a_tf_alias_rebound_to_another_module_is_not_rewritten(tmp_path, order):
    """Item 11: `tf` may be mylib here: calls on it are not TensorFlow's."""
    imports = ("import tensorflow as tf\nimport mylib as tf\n" if order == "mylib last"
               else "try:\n    import tensorflow as tf\nexcept ImportError:\n    import mylib as tf\n")
    code = imports + "config = tf.ConfigProto(intra_op_parallelism_threads=2)\nsess = tf.Session(config=config)\n"
    (tmp_path / "t.py").write_text(code)
    for args in (("fix", "t.py"), ("fix", "--unsafe-fixes", "t.py")):
        run = tft(*args, cwd=tmp_path)
        assert run.returncode == 0 and "tf.compat.v1" not in run.stdout, run
        assert (tmp_path / "t.py").read_text() == code


def test_an_unlistable_folder_is_an_error_in_a_plain_walk(tmp_path):
    """Item 12: outside a git work tree, as a user who may not list it."""
    (tmp_path / "a.py").write_text(SESSION + "sess = tf.Session(config=config)\nsess.run(1)\n")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "b.py").write_text(SESSION)
    locked.chmod(0)
    try:
        proc = start(command("check", "--no-cache", "."), cwd=tmp_path, preexec_fn=unprivileged)
        try:
            out, err = finish(proc)
        finally:
            kill_group(proc)
    finally:
        locked.chmod(0o755)
    run = Run(proc.args, proc.returncode, out, err)
    assert_one_error(run, "locked", "cannot list")
    assert "a.py:3:8: TFT002" in run.stdout, run


NOTEBOOK = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                       "source": SESSION + "sess = tf.Session(config=config)\nsess.run(1)\n"}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
LAYOUTS = {
    "minified": lambda: json.dumps(NOTEBOOK, separators=(",", ":")),
    "tab indent": lambda: json.dumps(NOTEBOOK, indent="\t"),
    "duplicate keys": lambda: json.dumps(NOTEBOOK, indent=1).replace('"metadata": {},', '"metadata": {}, "metadata": {},', 1),
    "inline outputs": lambda: json.dumps(NOTEBOOK, indent=1).replace('"outputs": []', '"outputs": [ ]'),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_check_and_fix_agree_on_a_notebook_fix_cannot_write(tmp_path, layout):
    """Item 13: what `check` marks [*] (fixable), `fix` fixes; a notebook
    whose layout `fix` cannot write back is reported with the same findings,
    none marked fixable, by both, and left as it is."""
    path = tmp_path / "n.ipynb"
    path.write_text(LAYOUTS[layout]())
    raw = path.read_bytes()
    checked = tft("check", "n.ipynb", cwd=tmp_path)
    fixed = tft("fix", "n.ipynb", cwd=tmp_path)
    codes = lambda run: sorted(line.split(": ")[1].split()[0] for line in run.stdout.splitlines() if ": TFT" in line)
    if path.read_bytes() == raw:
        assert "[*]" not in checked.stdout and "fixable" not in checked.stdout, checked
        assert fixed.returncode == 1 and codes(fixed) == codes(checked) != [], fixed
        assert "no finding left" not in fixed.stdout
    else:
        assert checked.stdout.count("[*]") == len(codes(checked)) and fixed.returncode == 0, fixed
        assert json.loads(path.read_bytes())["cells"][0]["source"] != NOTEBOOK["cells"][0]["source"]
