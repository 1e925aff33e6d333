"""The command line over real files: exit codes, formats, bytes and errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompat_threads.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
LEGACY = (FIXTURES / "keyword_args" / "input.py").read_bytes()
LEGACY_FIXED = (FIXTURES / "keyword_args" / "native.py").read_bytes()
CLEAN = b"import os\n\nprint(os.getcwd())\n"
MANUAL_ONLY = b"import tensorflow as tf\n\nx = tf.constant(1.0)\ntf.config.threading.set_intra_op_parallelism_threads(2)\n"


def cli(*args, input=None, cwd=None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_bytes(LEGACY)
    (tmp_path / "pkg" / "clean.py").write_bytes(CLEAN)
    return tmp_path


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- exit codes --------------------------------------------------------------


def test_check_clean_exits_0(tree):
    result = cli("check", str(tree / "pkg" / "clean.py"))
    assert result.exit_code == 0
    assert "1 file checked for session and thread config, no findings, no errors" in result.stdout


def test_check_findings_exit_1_and_name_file_line_column(tree):
    before = snapshot(tree)
    result = cli("check", str(tree))
    assert result.exit_code == 1
    assert f"{tree / 'pkg' / 'legacy.py'}:5:8: TFT001 [*] Session made only to carry its config" in result.stdout
    assert snapshot(tree) == before, "check never writes"


def test_diff_exits_1_with_a_diff_and_0_without(tree):
    before = snapshot(tree)
    result = cli("diff", str(tree))
    assert result.exit_code == 1
    assert f"--- {tree / 'pkg' / 'legacy.py'}" in result.stdout
    assert "+tf.config.threading.set_intra_op_parallelism_threads(2)" in result.stdout
    assert snapshot(tree) == before, "diff never writes"
    assert cli("diff", str(tree / "pkg" / "clean.py")).exit_code == 0


def test_fix_rewrites_then_nothing_is_left(tree):
    result = cli("fix", str(tree))
    assert result.exit_code == 0, result.stdout
    assert (tree / "pkg" / "legacy.py").read_bytes() == LEGACY_FIXED
    assert (tree / "pkg" / "clean.py").read_bytes() == CLEAN
    assert "1 finding fixed in 1 file" in result.stdout
    assert f"fixed {tree / 'pkg' / 'legacy.py'}" in result.stdout
    assert cli("check", str(tree)).exit_code == 0


def test_fix_exits_1_when_manual_findings_remain(tmp_path):
    (tmp_path / "late.py").write_bytes(MANUAL_ONLY)
    result = cli("fix", str(tmp_path))
    assert result.exit_code == 1
    assert "TFT008" in result.stdout
    assert (tmp_path / "late.py").read_bytes() == MANUAL_ONLY


def test_exit_zero(tmp_path):
    (tmp_path / "late.py").write_bytes(MANUAL_ONLY)
    assert cli("check", "--exit-zero", str(tmp_path)).exit_code == 0


def test_usage_error_and_missing_path_exit_2(tree):
    assert cli("check", "--output-format", "xml", str(tree)).exit_code == 2
    result = cli("check", str(tree), str(tree / "nope.py"))
    assert result.exit_code == 2
    assert f"error: {tree / 'nope.py'}: no such file or folder" in result.stderr
    assert "TFT001" in result.stdout, "the other files are still done"


def test_syntax_error_among_good_files_is_reported_and_left_alone(tree):
    broken = b"import tensorflow as tf\nconfig = tf.ConfigProto(\n"
    (tree / "pkg" / "broken.py").write_bytes(broken)
    result = cli("fix", str(tree))
    assert result.exit_code == 2
    assert f"error: {tree / 'pkg' / 'broken.py'}:2:24: cannot parse: '(' was never closed\n" in result.stderr
    assert (tree / "pkg" / "broken.py").read_bytes() == broken
    assert (tree / "pkg" / "legacy.py").read_bytes() == LEGACY_FIXED, "one bad file never stops the others"


def test_binary_junk_with_a_py_name(tree):
    junk = b"\x00\xff\xfe tensorflow ConfigProto Session \x80\x81"
    (tree / "pkg" / "junk.py").write_bytes(junk)
    result = cli("fix", str(tree))
    assert result.exit_code == 2
    assert "junk.py" in result.stderr
    assert (tree / "pkg" / "junk.py").read_bytes() == junk
    assert (tree / "pkg" / "legacy.py").read_bytes() == LEGACY_FIXED


def test_read_only_file_is_an_error_and_stays(tree):
    path = tree / "pkg" / "legacy.py"
    path.chmod(0o444)  # refused even for root, who could write it
    result = cli("fix", str(tree))
    assert result.exit_code == 2
    assert "read-only" in result.stderr
    assert path.read_bytes() == LEGACY


def test_broken_link(tree):
    (tree / "pkg" / "dangling.py").symlink_to(tree / "gone.py")
    result = cli("check", str(tree / "pkg" / "dangling.py"))
    assert result.exit_code == 2
    assert "broken symbolic link" in result.stderr
    walked = cli("check", str(tree))
    assert walked.exit_code == 1  # a walk passes over it, and does the rest


def test_link_out_of_the_tree_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "legacy.py").write_bytes(LEGACY)
    project = tmp_path / "project"
    project.mkdir()
    (project / "linked.py").symlink_to(outside / "legacy.py")
    (project / "linked_dir").symlink_to(outside)
    result = cli("check", str(project))
    assert result.exit_code == 0 and "0 files checked" in result.stdout


# -- bytes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["crlf_bom", "latin1_cookie"],
)
def test_encodings_and_line_endings_survive(tmp_path, name):
    path = tmp_path / "f.py"
    path.write_bytes((FIXTURES / name / "input.py").read_bytes())
    assert cli("fix", str(path)).exit_code == 0
    assert path.read_bytes() == (FIXTURES / name / "native.py").read_bytes()


def test_mixed_line_endings_and_no_final_newline(tmp_path):
    source = LEGACY.replace(b"\n", b"\r\n", 3).rstrip(b"\n")
    path = tmp_path / "f.py"
    path.write_bytes(source)
    assert cli("fix", str(path)).exit_code == 0
    out = path.read_bytes()
    assert out.startswith(b"import tensorflow as tf\r\n\r\n")
    assert out.endswith(LEGACY.rstrip(b"\n").splitlines()[-1]) and not out.endswith(b"\n")
    assert b"set_intra_op_parallelism_threads(2)" in out


def test_empty_file(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    assert cli("fix", str(tmp_path)).exit_code == 0
    assert (tmp_path / "empty.py").read_bytes() == b""


def test_fix_keeps_the_file_mode(tree):
    path = tree / "pkg" / "legacy.py"
    path.chmod(0o751)
    cli("fix", str(path))
    assert path.stat().st_mode & 0o777 == 0o751
    assert not list(tree.rglob("*.tfcompat")), "no temporary file left behind"


# -- standard input ----------------------------------------------------------------


def test_stdin(tree):
    checked = cli("check", "-", "--stdin-filename", "train.py", input=LEGACY)
    assert checked.exit_code == 1 and "train.py:5:8: TFT001" in checked.stdout
    fixed = cli("fix", "-", input=LEGACY)
    assert fixed.exit_code == 0
    assert fixed.stdout_bytes == LEGACY_FIXED
    clean = cli("fix", "-", input=CLEAN)
    assert clean.stdout_bytes == CLEAN


# -- formats, selection, suppression -----------------------------------------------


def test_json_format(tree):
    result = cli("check", "--output-format", "json", str(tree))
    [entry] = json.loads(result.stdout)
    fix = entry["fix"]
    assert entry == {
        "code": "TFT001",
        "name": "config-only-session",
        "severity": "error",
        "message": entry["message"],
        "filename": str(tree / "pkg" / "legacy.py"),
        "location": {"row": 5, "column": 8},
        "end_location": {"row": 5, "column": 33},
        "fix": {"applicability": "safe", "message": fix["message"], "edits": fix["edits"]},
        "help": "",
        "noqa_row": 5,
        "url": "https://tfcompat-threads.readthedocs.io/en/latest/rules/config-only-session/",
        "cell": None,
    }
    assert "files checked" in result.stderr


def test_sarif_format(tree):
    document = json.loads(cli("check", "--output-format", "sarif", str(tree)).stdout)
    assert document["version"] == "2.1.0"
    run = document["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    [result] = run["results"]
    assert rule_ids[result["ruleIndex"]] == result["ruleId"] == "TFT001"
    location = result["locations"][0]["physicalLocation"]
    assert location["region"]["startLine"] == 5
    assert location["artifactLocation"]["uri"].endswith("pkg/legacy.py")


def test_github_format(tree):
    out = cli("check", "--output-format", "github", str(tree)).stdout
    assert out.startswith("::error title=tfcompat-threads (TFT001),file=")
    assert ",line=5,col=8," in out


def test_select_and_ignore(tmp_path):
    (tmp_path / "late.py").write_bytes(MANUAL_ONLY)
    assert cli("check", "--ignore", "TFT008", str(tmp_path)).exit_code == 0
    assert cli("check", "--ignore", "thread-setting-after-first-op", str(tmp_path)).exit_code == 0
    assert cli("check", "--ignore", "TFT104", str(tmp_path)).exit_code == 0, "an old code still works"
    assert cli("check", "--select", "TFT001", str(tmp_path)).exit_code == 0
    assert cli("check", "--select", "TFT1", str(tmp_path)).exit_code == 1, "an old prefix still works"


@pytest.mark.parametrize("comment", ["# noqa: TFT001", "# tfcompat: ignore[TFT001]", "# noqa"])
def test_suppression_comments_turn_off_report_and_fix(tmp_path, comment):
    source = LEGACY.replace(b"sess = tf.Session(config=config)", b"sess = tf.Session(config=config)  " + comment.encode())
    path = tmp_path / "f.py"
    path.write_bytes(source)
    result = cli("fix", str(path))
    assert "TFT001" not in result.stdout
    fixed = path.read_bytes()
    assert b"set_intra_op_parallelism_threads" not in fixed, "a finding turned off is not fixed"
    if comment == "# noqa":  # everything on the line is off, the rename too
        assert b"sess = tf.Session(config=config)  # noqa\n" in fixed
    else:
        assert b"sess = tf.compat.v1.Session(config=config)  " + comment.encode() in fixed


def test_pyproject_settings(tree):
    (tree / "pyproject.toml").write_text(
        '[tool.tfcompat-threads]\ntarget = "shim"\nextend-exclude = ["skipped"]\nignore = ["TFT105"]\n'
    )
    (tree / "skipped").mkdir()
    (tree / "skipped" / "legacy.py").write_bytes(LEGACY)
    result = cli("fix", str(tree))
    assert result.exit_code == 0
    assert b"tfcompat_threads.Session(config=config)" in (tree / "pkg" / "legacy.py").read_bytes()
    assert (tree / "skipped" / "legacy.py").read_bytes() == LEGACY
    forced = cli("check", "--force-exclude", str(tree / "skipped" / "legacy.py"), cwd=tree)
    assert "0 files checked" in forced.stdout
    assert cli("check", str(tree / "skipped" / "legacy.py")).exit_code == 1, "named paths are processed"


def test_bad_pyproject_setting_is_a_usage_error(tree):
    (tree / "pyproject.toml").write_text('[tool.tfcompat-threads]\ntargte = "shim"\n')
    result = cli("check", str(tree))
    assert result.exit_code == 2 and "has no setting 'targte'" in result.stderr


# -- walking ------------------------------------------------------------------------


def test_walk_honours_gitignore_and_skips_environments(tree):
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text("ignored/\n")
    (tree / ".git" / "info" / "exclude").write_text("excluded.py\n")
    for folder in ("ignored", ".hidden", "node_modules", "lib/site-packages", "env", "__pycache__"):
        (tree / folder).mkdir(parents=True)
        (tree / folder / "legacy.py").write_bytes(LEGACY)
    (tree / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (tree / "excluded.py").write_bytes(LEGACY)
    result = cli("check", str(tree))
    assert result.stdout.count("TFT001") == 1, result.stdout
    assert "pkg/legacy.py" in result.stdout


# -- never TensorFlow, libcst only when needed --------------------------------------------


def _imports_after(path: Path, command: str = "check") -> dict:
    code = (
        "import sys\nfrom tfcompat_threads.cli import main\n"
        f"try:\n    main([{command!r}, '-q', {str(path)!r}])\nexcept SystemExit:\n    pass\n"
        "print({m: m in sys.modules for m in ('tensorflow', 'libcst')})"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return eval(out.strip().splitlines()[-1])


def test_cli_never_imports_tensorflow_and_check_never_libcst(tree):
    assert _imports_after(tree / "pkg" / "clean.py") == {"tensorflow": False, "libcst": False}
    assert _imports_after(tree / "pkg" / "legacy.py") == {"tensorflow": False, "libcst": False}
    assert _imports_after(tree / "pkg" / "legacy.py", "fix") == {"tensorflow": False, "libcst": False}, (
        "an import statement whose every name goes is removed without libcst"
    )
    moving = tree / "pkg" / "moving.py"
    moving.write_bytes((FIXTURES / "from_tensorflow_import_graph" / "input.py").read_bytes())
    assert _imports_after(moving) == {"tensorflow": False, "libcst": False}
    assert _imports_after(moving, "fix") == {"tensorflow": False, "libcst": True}, (
        "fix rewrites `from tensorflow import ...` (names moving to compat.v1) with libcst"
    )
    assert moving.read_bytes() == (FIXTURES / "from_tensorflow_import_graph" / "native.py").read_bytes()


def test_module_entry_point(tree):
    proc = subprocess.run(
        [sys.executable, "-m", "tfcompat_threads", "check", str(tree)], capture_output=True, text=True
    )
    assert proc.returncode == 1 and "TFT001" in proc.stdout


def test_parallel_results_come_in_path_order(tmp_path):
    for number in range(6):
        (tmp_path / f"legacy_{number}.py").write_bytes(LEGACY if number % 2 else MANUAL_ONLY)
        (tmp_path / f"clean_{number}.py").write_bytes(CLEAN)
    serial = cli("check", "-q", "-j", "1", "--output-format", "concise", str(tmp_path)).stdout
    parallel = cli("check", "-q", "-j", "2", "--output-format", "concise", str(tmp_path)).stdout
    assert parallel == serial
    names = [line.split(":")[0] for line in parallel.splitlines()]
    assert names == sorted(names) and len(names) == 6


@pytest.mark.parametrize("section", [
    '[tool.tfcompat-threads]\ntarget = "shim"\n',
    '[ tool . "tfcompat-threads" ]\ntarget = "shim"\n',
    '[tool]\ntfcompat-threads.target = "shim"\n',
])
def test_every_toml_spelling_of_the_section_is_read(tmp_path, section):
    from tfcompat_threads.lint.settings import load

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n' + section)
    assert load(tmp_path).target == "shim"


# -- --statistics and --show-fixes (issue 11) ----------------------------------------------


@pytest.fixture
def example(tmp_path):
    import shutil

    shutil.copytree(ROOT / "examples" / "legacy_project", tmp_path / "project")
    return tmp_path / "project"


def test_statistics_counts_findings_per_rule_and_marks_the_fixable(example):
    result = cli("check", "--statistics", "-q", ".", cwd=example)
    assert result.exit_code == 1
    table = [line.split() for line in result.output.splitlines() if line.startswith(" ")]
    assert [row for row in table if row[1].startswith("TFT")] == [
        ["4", "TFT002", "[*]", "tf1-only-name"],
        ["3", "TFT001", "[*]", "config-only-session"],
        ["1", "TFT003", "keras-set-session"],
    ]


def test_show_fixes_lists_the_fixed_findings_per_file_and_rule(example):
    result = cli("fix", "--show-fixes", "-q", ".", cwd=example)
    assert result.exit_code == 1  # two findings are left for a human
    listed = result.output[result.output.index("Fixed "):]
    assert listed == (
        "Fixed 6 findings:\n"
        "- ./explore.ipynb:\n    1 \u00d7 TFT001 (config-only-session)\n"
        "- ./serve.py:\n    2 \u00d7 TFT002 (tf1-only-name)\n"
        "- ./train.py:\n    1 \u00d7 TFT001 (config-only-session)\n"
        "- ./utils/session.py:\n    2 \u00d7 TFT002 (tf1-only-name)\n"
    )
    assert cli("fix", "--show-fixes", "-q", ".", cwd=example).output.count("Fixed ") == 0, "nothing fixed twice"


def test_an_unknown_code_in_a_noqa_comment_is_an_error_other_linters_codes_are_not(tmp_path):
    """A typo in `# noqa: TFT0001` would otherwise look like a suppression that
    does not work; E501 is another linter's, and stays its business."""
    typo = b"import tensorflow as tf\nconfig = tf.ConfigProto()  # noqa: TFT0002, E501\n"
    (tmp_path / "typo.py").write_bytes(typo)
    result = cli("check", "typo.py", cwd=tmp_path)
    assert result.exit_code == 2
    assert "typo.py:2:28: unknown rule code TFT0002 in a noqa comment; did you mean TFT002?" in result.output
    assert (tmp_path / "typo.py").read_bytes() == typo
    (tmp_path / "typo.py").write_bytes(typo.replace(b"TFT0002", b"TFT002"))
    result = cli("check", "typo.py", cwd=tmp_path)
    assert result.exit_code == 0, result.output
