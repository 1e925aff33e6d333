"""Malformed and misspelled settings (issue 13 items 8 and 9).

`pyproject.toml` is read as TOML says, or refused: a section TOML reads as
`[tool.tfcompat-threads]` (spaces in the header, a dotted key under `[tool]`)
is honoured; what is not valid TOML, a `tool` or section that is not a table,
bytes that are not UTF-8, a file that cannot be read, or a code no rule has
is an error: one line naming the file, exit 2, nothing written. Codes are
read whatever their case. Never a traceback, never silently ignored.
"""

from __future__ import annotations


import pytest

from .helpers import FIXTURES, LEGACY, assert_no_traceback, assert_one_error, tft, unprivileged

LEGACY_SHIM = (FIXTURES / "keyword_args" / "shim.py").read_bytes()

MALFORMED = {
    "header-without-bracket": b'[tool.tfcompat-threads\ntarget = "shim"\n',
    "tool-is-a-number": b'tool = 5\n\n[project]\nname = "x"\ndependencies = ["tfcompat-threads"]\n',
    "section-is-a-string": b'[tool]\n"tfcompat-threads" = "x"\n',
    "not-utf-8": b'[tool.tfcompat-threads]\ntarget = "shim"  # caf\xe9\n',
}


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_settings_are_one_error_and_nothing_is_written(tmp_path, text):
    (tmp_path / "pyproject.toml").write_bytes(text)
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("fix", "legacy.py", cwd=tmp_path)
    assert_one_error(run, "pyproject.toml")
    assert (tmp_path / "legacy.py").read_bytes() == LEGACY


def test_unreadable_settings_are_one_error(tmp_path):
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.tfcompat-threads]\ntarget = "shim"\n')
    settings.chmod(0o000)
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("fix", "legacy.py", cwd=tmp_path, preexec_fn=unprivileged)
    assert_one_error(run, "pyproject.toml")
    assert (tmp_path / "legacy.py").read_bytes() == LEGACY


HONOURED = {
    "spaces-in-header": b'[ tool.tfcompat-threads ]\ntarget = "shim"\n',
    "dotted-key-under-tool": b'[tool]\ntfcompat-threads.target = "shim"\n',
}


@pytest.mark.parametrize("text", HONOURED.values(), ids=HONOURED.keys())
def test_settings_toml_reads_as_the_section_are_honoured(tmp_path, text):
    (tmp_path / "pyproject.toml").write_bytes(text)
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("fix", "legacy.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert (tmp_path / "legacy.py").read_bytes() == LEGACY_SHIM, "target = \"shim\" was ignored"


@pytest.mark.parametrize("key", ["select", "ignore"])
def test_codes_in_settings_are_read_whatever_their_case(tmp_path, key):
    """0.1 took `select = ["tft001"]` for no code at all, and every check was off."""
    (tmp_path / "pyproject.toml").write_text(f'[tool.tfcompat-threads]\n{key} = ["tft001"]\n')
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("check", "legacy.py", cwd=tmp_path)
    assert_no_traceback(run)
    reported = "TFT001" in run.stdout
    assert reported == (key == "select"), run
    if key == "select":  # only TFT001, and it is found
        assert run.returncode == 1 and "TFT002" not in run.stdout, run


def test_an_unknown_code_in_settings_is_one_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tfcompat-threads]\nselect = ["TFT0001"]\n')
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("check", "legacy.py", cwd=tmp_path)
    line = assert_one_error(run, "pyproject.toml")
    assert "did you mean TFT001" in line
