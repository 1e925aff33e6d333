"""What the command line says (issue 11): rule docs, help lines, unsafe fixes
made visible, an honest summary, colour only when wanted, help texts, notebook
diffs as Python, parse errors in one line, unknown codes refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.test_cli import cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
UNMAPPABLE = FIXTURES / "unmappable_field" / "input.py"


# -- rule ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["TFT003", "keras-set-session", "TFT105", "tft003"])
def test_rule_prints_the_rules_documentation_by_code_old_code_or_name(name):
    result = cli("rule", name)
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.startswith("TFT003 keras-set-session (error)\n")
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert f"\n{heading}\n" in text


def test_rule_all_and_json():
    every = cli("rule", "--all").output
    documented, _ = json.JSONDecoder().raw_decode(cli("rule", "--all", "--output-format", "json").output)
    codes = [entry["code"] for entry in documented]
    assert codes == sorted(codes) and len(codes) == 11
    assert all(f"{code} " in every for code in codes)
    keys = {"code", "name", "what_it_does", "why", "example", "use_instead", "fix_safety", "url", "default"}
    assert set(documented[0]) >= keys
    assert [entry["code"] for entry in documented if not entry["default"]] == ["TFT011"]
    assert "TFT011 config-passed-outside (warning, off by default)" in every


def test_a_rule_off_by_default_is_turned_on_by_select_or_extend_select(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "m.py").write_text("import tensorflow as tf\nfrom trainlib import train\n"
                                   "train(session_config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2))\n")
    assert cli("check", "m.py", cwd=tmp_path).exit_code == 0
    for options in (["--extend-select", "TFT011"], ["--select", "ALL"], ["--select", "config-passed-outside"]):
        result = cli("check", *options, "m.py", cwd=tmp_path)
        assert result.exit_code == 1 and "TFT011" in result.output, options
    (tmp_path / "pyproject.toml").write_text('[tool.tfcompat-threads]\nextend-select = ["TFT011"]\n')
    assert "TFT011" in cli("check", "m.py", cwd=tmp_path).output
    (tmp_path / "pyproject.toml").write_text('[tool.tfcompat-threads]\nextend-select = ["TFT0111"]\n')
    result = cli("check", "m.py", cwd=tmp_path)
    assert result.exit_code == 2 and "extend-select: unknown rule code or name 'TFT0111'" in result.output


def test_an_unknown_rule_is_an_error_with_the_closest_code():
    result = cli("rule", "TFT0003")
    assert result.exit_code == 2
    assert "did you mean TFT003" in result.output


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_an_unknown_code_on_the_command_line_is_an_error(tmp_path, option):
    (tmp_path / "a.py").write_bytes(UNMAPPABLE.read_bytes())
    result = cli("check", option, "TFT0001", "a.py", cwd=tmp_path)
    assert result.exit_code == 2
    assert "did you mean TFT001" in result.output


# -- help lines, unsafe fixes, the summary ------------------------------------------------


def test_every_finding_nothing_fixes_says_what_to_do(tmp_path):
    """Over every fixture: a finding `fix` does not apply carries a `help:` line."""
    tree = tmp_path / "fixtures"
    for folder in sorted(FIXTURES.iterdir()):
        if (folder / "input.py").exists():
            (tree / folder.name).mkdir(parents=True)
            shutil.copy(folder / "input.py", tree / folder.name / "input.py")
    text = cli("check", "-j", "1", ".", cwd=tree).output.splitlines()
    as_json = cli("check", "-j", "1", "--output-format", "json", ".", cwd=tree).output
    rows, _ = json.JSONDecoder().raw_decode(as_json)  # the summary follows (on standard error)
    unfixed = [row for row in rows if row["fix"] is None or row["fix"]["applicability"] != "safe"]
    assert len(unfixed) > 10, "the fixtures hold findings of every kind"
    for row in unfixed:
        head = f"{row['filename']}:{row['location']['row']}:{row['location']['column']}: {row['code']} "
        (index,) = [i for i, line in enumerate(text) if line.startswith(head)]
        assert text[index + 4].startswith("  help: "), f"{head}: no help line under its code frame"


def test_an_unsafe_fix_is_visible_and_says_what_makes_it_unsafe(tmp_path):
    (tmp_path / "a.py").write_bytes(UNMAPPABLE.read_bytes())
    plain = cli("check", "a.py", cwd=tmp_path).output
    assert "TFT001 Session made only" in plain and "TFT001 [*]" not in plain, "plain fix does not apply it"
    assert "(operation_timeout_in_ms has no TF2 equivalent)" in plain
    assert "(2 fixable with `fix`, 1 more with `fix --unsafe-fixes`)" in plain, "the renames are fixable"
    unsafe = cli("check", "--unsafe-fixes", "a.py", cwd=tmp_path).output
    assert "TFT001 [*]" in unsafe
    assert "(1 fixable with `fix --unsafe-fixes`)" in unsafe, "plain `fix` would not fix it"
    (tmp_path / "pyproject.toml").write_text("[tool.tfcompat-threads]\nunsafe-fixes = true\n")
    by_settings = cli("check", "a.py", cwd=tmp_path).output
    assert "(1 fixable with `fix`)" in by_settings, "plain `fix` reads the same settings"


def test_the_summary_counts_what_it_names(tmp_path):
    (tmp_path / "a.py").write_bytes(UNMAPPABLE.read_bytes())
    (tmp_path / "b.py").write_bytes((FIXTURES / "keyword_args" / "input.py").read_bytes())
    check = cli("check", ".", cwd=tmp_path).output.splitlines()[-1]
    assert check.startswith("2 files checked for session and thread config, 5 findings in 2 files (3 fixable with `fix`, "
                            "1 more with `fix --unsafe-fixes`), no errors; ")
    diff = cli("diff", "b.py", cwd=tmp_path)
    assert diff.output.splitlines()[-1].startswith(
        "1 file checked for session and thread config, 1 finding in 1 file (1 fixable with `fix`), 1 file would change, no errors; ")
    fix = cli("fix", ".", cwd=tmp_path).output.splitlines()
    assert "fixed ./b.py" in fix and "fixed ./a.py" in fix  # a.py: its renames, not its unsafe fix
    assert fix[-1].startswith("2 files checked for session and thread config, 3 findings fixed in 2 files, 2 findings left, no errors; ")
    assert cli("fix", "-q", ".", cwd=tmp_path).output.count("fixed ") == 0


# -- colour, help texts -----------------------------------------------------------------------


@pytest.mark.parametrize(("env", "coloured"), [({}, False), ({"FORCE_COLOR": "1"}, True),
                                                ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False)])
def test_colour_only_on_a_terminal_or_when_forced(tmp_path, monkeypatch, env, coloured):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "a.py").write_bytes(UNMAPPABLE.read_bytes())
    assert ("\033[" in cli("check", "a.py", cwd=tmp_path).output) is coloured


def test_help_texts_are_whole_and_check_promises_no_fix():
    top = cli("--help").output
    summaries = [line for line in top.split("Commands:\n", 1)[1].splitlines() if line.strip()]
    assert [line.split()[0] for line in summaries] == sorted(
        ["check", "diff", "fix", "rule", "explain", "probe", "tune", "run"])
    assert not [line for line in summaries if line.rstrip().endswith("...")], "a command's summary is cut"
    check = cli("check", "--help").output.lower()
    assert "report findings; change nothing" in check
    assert "rewrite" not in check and "also apply" not in check


# -- notebooks, parse errors ---------------------------------------------------------------------


def test_a_notebook_diff_is_python_per_changed_cell(tmp_path):
    shutil.copy(ROOT / "examples" / "legacy_project" / "explore.ipynb", tmp_path / "nb.ipynb")
    out = cli("diff", "nb.ipynb", cwd=tmp_path).output
    assert "--- nb.ipynb:cell 1\n+++ nb.ipynb:cell 1\n" in out
    assert "-session = InteractiveSession(config=config)\n" in out
    assert '"source"' not in out and '\\n"' not in out, "no JSON in the diff"


def test_a_parse_error_is_one_line_with_one_position(tmp_path):
    (tmp_path / "bad.py").write_bytes(b"import tensorflow as tf\nsession = tf.Session(\n")
    result = cli("check", "bad.py", cwd=tmp_path)
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if "bad.py" in line]
    assert errors == ["error: bad.py:2:21: cannot parse: '(' was never closed"]


# -- the smaller items of issue 30 (point 10) ---------------------------------------------------


def test_statistics_help_says_it_replaces_the_listing_and_it_does(tmp_path):
    help_text = " ".join(cli("check", "--help").output.split())
    assert "--statistics Print the number of findings per rule instead of the list of findings" in help_text
    shutil.copy(UNMAPPABLE, tmp_path / "f.py")
    listed = cli("check", "f.py", cwd=tmp_path).stdout
    counted = cli("check", "--statistics", "f.py", cwd=tmp_path).stdout
    assert "f.py:" in listed and "f.py:" not in counted and "TFT006" in counted


@pytest.mark.parametrize("output_format", ["json", "concise", "github", "sarif"])
def test_diff_refuses_an_output_format_in_one_line(tmp_path, output_format):
    """ruff's --diff prints the diff alone; check --output-format json carries each fix's edits."""
    shutil.copy(UNMAPPABLE, tmp_path / "f.py")
    result = cli("diff", "--output-format", output_format, "f.py", cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    [line] = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert f"run `check --output-format {output_format}`" in line


@pytest.mark.parametrize("key,meant", [("targte", "target"), ("extend_exclude", "extend-exclude"),
                                       ("unsafe-fix", "unsafe-fixes"), ("tf-verison", "tf-version")])
def test_a_misspelled_setting_gets_did_you_mean(tmp_path, key, meant):
    (tmp_path / "pyproject.toml").write_text(f'[tool.tfcompat-threads]\n{key} = "x"\n')
    (tmp_path / "f.py").write_text("x = 1\n")
    result = cli("check", "f.py", cwd=tmp_path)
    assert result.exit_code == 2 and f"has no setting {key!r}; did you mean {meant!r}?" in result.stderr
