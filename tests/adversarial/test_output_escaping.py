"""Text that reaches a terminal or a log cannot inject (issue 20 items 4-6).

The text format, `fix`'s and the errors' lines and `explain` print every
character `str.isprintable` rejects as its escape (a terminal sequence, a
line end that forges an output line, a bidirectional control); `diff`
quotes file names as git does, and splits lines where `patch` and `git
apply` do, so what it prints is a patch both accept, and nothing else.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from .helpers import LEGACY, LEGACY_FIXED, assert_no_traceback, child_env, tft

CONTROLS = "\x1b]0;PWNED\x07\n::error file=README.md::forged\r\x85\u2028\u2029\u202e\x7f\x9b"
FORGED_SUMMARY = "x.py: all good\n0 files checked for session and thread config, no findings, no errors; 0.00 s\nz.py"


def _no_raw_controls(text: str) -> None:
    for character in [c for c in CONTROLS if not c.isprintable() and c != "\n"]:
        assert character not in text, f"{character!r} printed raw: {text!r}"
    for line in text.split("\n"):
        assert not line.startswith(("::error", "0 files checked for session and thread config, no findings, no errors; 0.00 s")), line


def test_source_text_printed_under_a_finding_is_printed_visible(tmp_path):
    """Item 4: the code frame under a finding quotes the source line, here a
    string literal holding terminal controls (Python takes them raw, but a
    line end: the string's escapes are no line end in a literal)."""
    literal = "\x1b]0;PWNED\x07::error file=README.md::forged\x85\u2028\u202e\x7f\x9b"
    (tmp_path / "t.py").write_text("import tensorflow as tf\n"
                                   f"sess = tf.Session(config=tf.ConfigProto()); note = '{literal}'\n",
                                   encoding="utf-8")
    run = tft("check", "--select", "ALL", "t.py", cwd=tmp_path)
    assert run.returncode == 1, run
    _no_raw_controls(run.stdout + run.stderr)
    assert "note = '\\x1b]0;PWNED\\x07::error" in run.stdout, run


@pytest.mark.parametrize("command", ["check", "fix", "fix --show-fixes"])
@pytest.mark.parametrize("name", [FORGED_SUMMARY, "a" + CONTROLS + ".py"])
def test_a_file_name_is_printed_visible(tmp_path, command, name):
    """Item 4: the file name in findings, `fixed ...` and --show-fixes
    lines cannot forge the summary or start an escape sequence."""
    (tmp_path / name).write_bytes(LEGACY)
    run = tft(*command.split(), ".", cwd=tmp_path)
    assert_no_traceback(run)
    _no_raw_controls(run.stdout + run.stderr)
    assert len([line for line in run.stdout.split("\n") if re.match(r"\d+ files? checked", line)]) == 1, run


def test_an_unreadable_file_name_in_an_error_is_printed_visible(tmp_path):
    run = tft("check", "a" + CONTROLS + ".py", cwd=tmp_path)
    assert run.returncode == 2
    _no_raw_controls(run.stdout + run.stderr)


def test_explain_prints_environment_values_visible(tmp_path):
    run = tft("explain", cwd=tmp_path, env=child_env(OMP_NUM_THREADS="4" + CONTROLS,
                                                      TF_NUM_INTRAOP_THREADS="2" + CONTROLS))
    assert run.returncode == 0, run
    _no_raw_controls(run.stdout + run.stderr)
    assert "OMP_NUM_THREADS=4\\x1b]0;PWNED" in run.stdout


def test_diff_quotes_file_names_as_git_does(tmp_path):
    """Item 5: a name that holds a whole patch of another file cannot make
    `diff . | patch -p0` touch that file; the diff patches the file it names."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"line one\n")
    name = "a.py\n--- victim.txt\n+++ victim.txt\n@@ -1 +1 @@\n-line one\n+INJECTED\nx.py"
    (tmp_path / name).write_bytes(LEGACY)
    run = tft("diff", ".", cwd=tmp_path)
    assert run.returncode == 1, run
    assert '--- "a.py\\n--- victim.txt\\n+++ victim.txt\\n@@ -1 +1 @@\\n-line one\\n+INJECTED\\nx.py"' in run.stdout
    applied = subprocess.run(["patch", "-p0", "--batch"], input=run.stdout_bytes, cwd=tmp_path, capture_output=True)
    assert victim.read_bytes() == b"line one\n", applied
    assert applied.returncode == 0 and (tmp_path / name).read_bytes() == LEGACY_FIXED, applied


PAGE = "\x0c"  # PEP 8 allows a form feed between sections
ODD_ENDS = {
    "form feed": f"import tensorflow as tf\n{PAGE}\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2){PAGE}",
    "U+2028": "import tensorflow as tf\ns = '\u2028'\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)  # \u2028",
    "NEL": "import tensorflow as tf\ns = '\x85'\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)  # \x85",
    "\\x1c": "import tensorflow as tf\ns = '\x1c\x1d\x1e'\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)  # \x1c",
    "CR only": "import tensorflow as tf\rconfig = tf.ConfigProto(intra_op_parallelism_threads=2)\rprint(config)\r",
    "CR only, no final end": "import tensorflow as tf\rconfig = tf.ConfigProto(intra_op_parallelism_threads=2)",
    "CRLF, no final end": "import tensorflow as tf\r\nx = 1\r\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)",
}


@pytest.mark.parametrize("tool", ["patch", "git apply"])
@pytest.mark.parametrize("case", list(ODD_ENDS))
def test_diff_is_a_patch_patch_and_git_apply_accept(tmp_path, case, tool):
    """Item 6: lines end where `patch` counts them (\\n), so `\\ No newline
    at end of file` stands only after a file's last line; applying the
    diff gives what `fix` writes."""
    code = ODD_ENDS[case].encode("utf-8")
    fixed_tree = tmp_path / "fixed"
    patched_tree = tmp_path / "patched"
    for tree in (fixed_tree, patched_tree):
        tree.mkdir()
        (tree / "t.py").write_bytes(code)
    fixed = tft("fix", "t.py", cwd=fixed_tree)
    assert fixed.returncode in (0, 1) and (fixed_tree / "t.py").read_bytes() != code, fixed
    run = tft("diff", "t.py", cwd=patched_tree)
    assert run.returncode == 1, run
    assert run.stdout_bytes.count(b"\\ No newline at end of file") <= 2, run
    if tool == "patch":
        argv = ["patch", "-p0", "--batch", "--binary"]
    else:
        argv = ["git", "apply", "-p0", "--unsafe-paths", "-"]
    applied = subprocess.run(argv, input=run.stdout_bytes, cwd=patched_tree, capture_output=True)
    assert applied.returncode == 0, (applied, run)
    assert (patched_tree / "t.py").read_bytes() == (fixed_tree / "t.py").read_bytes()


def test_the_tools_are_there():
    assert shutil.which("patch") and shutil.which("git")
