"""What the command line prints around its findings: noqa typos, messages,
colour, statistics, and the adoption helpers (--add-noqa, --show-settings,
code frames)."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_cli import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
CLI = [sys.executable, "-m", "tfcompat_threads"]


def test_a_typo_in_a_noqa_comment_keeps_exit_2_and_the_files_other_findings_are_shown(tmp_path):
    source = (b"import tensorflow as tf\nconfig = tf.ConfigProto()  # noqa: TFT999\n"
              b"sess = tf.Session(config=config)\nx = tf.ConfigProto()\n")
    (tmp_path / "typo.py").write_bytes(source)
    for command in ("check", "fix"):
        result = cli(command, "--no-cache", "typo.py", cwd=tmp_path)
        assert result.exit_code == 2
        assert "typo.py:2:28: unknown rule code TFT999 in a noqa comment" in result.output
        assert "typo.py:3:8: TFT001" in result.output and "typo.py:4:5: TFT002" in result.output
        assert (tmp_path / "typo.py").read_bytes() == source, "a file whose noqa is unclear is not rewritten"
    again = cli("check", "typo.py", cwd=tmp_path)  # from the cache: the same
    assert again.exit_code == 2 and "TFT999" in again.output and "typo.py:4:5: TFT002" in again.output


def test_the_unmappable_field_message_says_its_point_once(tmp_path):
    (tmp_path / "f.py").write_text("import tensorflow as tf\nconfig = tf.ConfigProto(operation_timeout_in_ms=1000)\n"
                                   "tf.keras.backend.set_session(tf.Session(config=config))\n")
    [line] = [x for x in cli("check", "f.py", cwd=tmp_path).output.splitlines() if "TFT006" in x]
    assert line.lower().count("no tf2 eager equivalent") == 1, line
    assert line.endswith("no TF2 eager equivalent (a tf.compat.v1 session in graph mode still honours it)")


def test_diff_is_coloured_on_a_terminal_and_with_force_color(tmp_path):
    shutil.copy(EXAMPLE / "serve.py", tmp_path / "serve.py")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = "xterm"
    forced = subprocess.run([*CLI, "diff", "serve.py"], cwd=tmp_path, capture_output=True, text=True,
                            env={**env, "FORCE_COLOR": "1"})
    assert "\x1b[31m-config = tf.ConfigProto(" in forced.stdout and "\x1b[32m+config = " in forced.stdout
    plain = subprocess.run([*CLI, "diff", "serve.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert "\x1b[" not in plain.stdout and "-config = tf.ConfigProto(" in plain.stdout
    leader, follower = pty.openpty()
    process = subprocess.Popen([*CLI, "diff", "serve.py"], cwd=tmp_path, stdout=follower, stderr=subprocess.DEVNULL,
                               env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    process.wait(timeout=60)
    os.close(leader)
    assert b"\x1b[31m-config = tf.ConfigProto(" in out


def test_statistics_prints_the_table_instead_of_the_listing(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "ex")
    result = cli("check", "--statistics", ".", cwd=tmp_path / "ex")
    assert result.exit_code == 1
    assert result.stdout.startswith("    4  TFT002  [*]  tf1-only-name\n"
                                    "    3  TFT001  [*]  config-only-session\n"
                                    "    1  TFT003       keras-set-session\n5 files checked")
    assert not re.search(r":\d+:\d+: TFT", result.output)


# -- adoption: --add-noqa -------------------------------------------------------------------

ADDED = re.compile(r"  # noqa: TFT\d{3}(?:, TFT\d{3})*")


def test_add_noqa_then_check_exits_0_and_removing_the_comments_gives_what_fix_gave(tmp_path):
    """The bundled example, its notebook included: every finding turned off
    where it is; the comments removed (by a pattern written here), the files
    are the originals byte for byte, and `fix` writes what it wrote before."""
    before, adopted = tmp_path / "before", tmp_path / "adopted"
    shutil.copytree(EXAMPLE, before)
    shutil.copytree(EXAMPLE, adopted)
    result = cli("check", "--add-noqa", ".", cwd=adopted)  # the codes check shows; then those they covered
    assert result.exit_code == 1, result.output
    assert "8 findings turned off by noqa comments in 4 files, 3 findings they covered left" in result.output
    result = cli("check", "--add-noqa", ".", cwd=adopted)
    assert result.exit_code == 0, result.output
    assert "3 findings turned off by noqa comments in 1 file" in result.output
    notebook = (adopted / "explore.ipynb").read_text()
    assert '"session = InteractiveSession(config=config)  # noqa: TFT001"' in notebook
    assert cli("check", ".", cwd=adopted).exit_code == 0
    assert cli("check", "--no-cache", ".", cwd=adopted).exit_code == 0
    for path in sorted(adopted.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".ipynb"):
            path.write_bytes(ADDED.sub("", path.read_text(encoding="utf-8")).encode("utf-8"))
            assert path.read_bytes() == (EXAMPLE / path.relative_to(adopted)).read_bytes()
    cli("fix", ".", cwd=before)
    cli("fix", ".", cwd=adopted)
    for path in sorted(before.rglob("*")):
        if path.is_file():
            assert (adopted / path.relative_to(before)).read_bytes() == path.read_bytes()


def test_add_noqa_merges_with_a_noqa_comment_and_never_writes_inside_a_string(tmp_path):
    source = (
        'import tensorflow as tf\n'
        'config = tf.ConfigProto()  # noqa: E501\n'
        'sess = tf.Session(config=config); doc = """a # noqa\n'
        'b"""\n'
        'other = tf.Session(config=tf.ConfigProto()) if True else \\\n'
        '    None\n'
        'third = tf.ConfigProto()  # keep this  # tfcompat: ignore[E1]\n'
    )
    (tmp_path / "f.py").write_text(source)
    assert cli("check", "--add-noqa", "f.py", cwd=tmp_path).exit_code == 0
    lines = (tmp_path / "f.py").read_text().splitlines()
    assert lines[1] == "config = tf.ConfigProto()  # noqa: E501, TFT002"
    assert lines[2] == 'sess = tf.Session(config=config); doc = """a # noqa'
    assert lines[3].startswith('b"""  # noqa: TFT00')
    assert lines[4].endswith("else \\") and lines[5].startswith("    None  # noqa: TFT00")
    assert lines[6] == "third = tf.ConfigProto()  # keep this  # tfcompat: ignore[E1, TFT002]"
    compile("\n".join(lines), "f.py", "exec")
    assert cli("check", "--no-cache", "f.py", cwd=tmp_path).exit_code == 0


# -- code frames ------------------------------------------------------------------------------


def test_each_finding_has_a_code_frame_and_concise_keeps_the_one_line_form(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "ex")
    (tmp_path / "ex" / "ctl.py").write_text("import tensorflow as tf\nx = '\x1b[31m' or\ttf.ConfigProto()\n")
    text = cli("check", ".", cwd=tmp_path / "ex").stdout.splitlines()
    at = text.index("./train.py:30:5: TFT003 K.set_session(): Keras 3 (TF >= 2.16) has no set_session, and no fix "
                    "here can remove this one (its session comes from get_session())")
    assert text[at + 1:at + 4] == ["   |", "30 |     K.set_session(get_session(threads=1))",
                                   "   |     " + "^" * len("K.set_session(get_session(threads=1))")]
    at = text.index("./explore.ipynb:cell 1:7:11: TFT001 [*] InteractiveSession made only to carry its config: "
                    "on TF2 its settings do nothing for eager ops")
    assert text[at + 2:at + 4] == ["7 | session = InteractiveSession(config=config)",
                                   "  |           " + "^" * len("InteractiveSession(config=config)")]
    at = [i for i, line in enumerate(text) if line.startswith("./ctl.py:2:")][0]
    assert text[at + 2:at + 4] == ["2 | x = '\\x1b[31m' or tf.ConfigProto()",
                                   "  |                   " + "^" * len("tf.ConfigProto")]
    concise = cli("check", "--output-format", "concise", ".", cwd=tmp_path / "ex").stdout.splitlines()
    assert len(concise) == 10 and concise[-1].startswith("6 files checked for session and thread config, 9 findings")
    assert all(re.match(r"\./\S+:(cell \d+:)?\d+:\d+: TFT\d{3} ", line) for line in concise[:-1])


def test_show_settings_prints_each_resolved_setting_and_where_it_came_from(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tfcompat-threads]\ntarget = "shim"\nignore = ["TFT005"]\n')
    (tmp_path / "pkg").mkdir()
    result = cli("check", "--show-settings", "--ignore", "TFT003", "--unsafe-fixes", "pkg", cwd=tmp_path)
    assert result.exit_code == 0
    source = str((tmp_path / "pyproject.toml").resolve())
    lines = result.stdout.splitlines()
    assert lines[0] == f"Settings file: {source}"
    assert f'target = "shim"  # {source}' in lines
    assert f'ignore = ["TFT005", "TFT003"]  # command line and {source}' in lines
    assert "unsafe-fixes = true  # command line" in lines
    assert 'select = []  # default' in lines
    assert lines[-1].startswith("# rules reported: TFT001, TFT002, TFT004, TFT006")
    assert "TFT003" not in lines[-1] and "TFT005" not in lines[-1]
    bare = cli("check", "--show-settings", str(tmp_path / "pkg")).stdout
    assert "pyproject.toml" in bare.splitlines()[0]


# -- measuring tools without TensorFlow -------------------------------------------------------


def test_tune_on_a_command_that_never_imports_tensorflow_says_so_and_nothing_else(tmp_path):
    for code in (0,):  # a command that fails is reported as failing (test_tools.py)
        command = [sys.executable, "-c", f"import sys; print(1); sys.exit({code})"]
        tune = subprocess.run([*CLI, "tune", "-q", "--", *command], capture_output=True, text=True, timeout=300)
        run = subprocess.run([*CLI, "run", "--", *command], capture_output=True, text=True, timeout=300)
        assert "none imported TensorFlow" in run.stderr
        assert tune.returncode == run.returncode == code, "tune exits as run does: the command's own code"
        [line] = tune.stdout.splitlines()
        assert line.startswith("tfcompat-threads tune: `") and "`: 1 Python process ran; " in line
        assert tune.stdout.rstrip().endswith("none imported TensorFlow: nothing to tune")
        assert "best" not in tune.stdout and "export" not in tune.stdout and tune.stderr == ""


def test_explain_without_tensorflow_is_one_line_and_exit_2_as_probe(tmp_path):
    without = ("import sys; sys.modules['tensorflow'] = None; sys.argv = ['tfcompat-threads', sys.argv[1]]; "
               "from tfcompat_threads.cli import main; main()")
    explain = subprocess.run([sys.executable, "-c", without, "explain"], capture_output=True, text=True, timeout=120)
    assert explain.returncode == 2 and explain.stdout == ""
    assert explain.stderr.splitlines() == [
        f"Error: TensorFlow is not installed for {sys.executable}: pip install tensorflow-cpu"]


# -- places in other files ----------------------------------------------------------------------


def test_fix_names_other_files_lines_as_they_are_after_the_fix_and_relative_to_the_current_directory(tmp_path):
    """fix moves train.py's set_session up (its session lines go); the help
    under utils/session.py names the line it is on now, as the finding above
    it does; run from utils/, the path is ../train.py."""
    tree = tmp_path / "ex"
    shutil.copytree(EXAMPLE, tree)
    out = cli("fix", ".", cwd=tree).stdout
    [finding] = re.findall(r"^\./train\.py:(\d+):\d+: TFT003 ", out, re.M)
    [hint] = re.findall(r"help: its flow goes on at (\S+): fix the session there", out)
    assert hint == f"train.py:{finding}" and finding != "30"
    assert "K.set_session" in (tree / "train.py").read_text().splitlines()[int(finding) - 1]
    for cache in ((), ("--no-cache",)):
        inside = cli("check", *cache, ".", cwd=tree / "utils").stdout
        assert f"help: its flow goes on at ../train.py:{finding}: fix the session there" in inside
        as_json = json.JSONDecoder().raw_decode(cli("check", *cache, "--output-format", "json", ".",
                                                    cwd=tree / "utils").stdout)[0]
        assert f"../train.py:{finding}" in as_json[0]["help"]


def test_probe_without_tensorflow_says_so_before_any_starting_line(tmp_path):
    """A Python that really has no TensorFlow: a fresh venv whose path holds
    only this checkout and the packages the CLI needs (click, packaging)."""
    import click
    import packaging

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    deps = tmp_path / "deps"
    deps.mkdir()
    for module in (click, packaging):
        (deps / module.__name__).symlink_to(Path(module.__file__).parent)
    python = venv / "bin" / "python"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(deps), str(ROOT)])}
    assert subprocess.run([str(python), "-c", "import tensorflow"], env=env, capture_output=True).returncode == 1
    done = subprocess.run([str(python), "-m", "tfcompat_threads", "probe"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"Error: TensorFlow is not installed for {python}: pip install tensorflow-cpu"]
