"""Malformed and misspelled settings (issue 13 items 8 and 9).

`pyproject.toml` is read as TOML says, or refused: a section TOML reads as
`[tool.tfcompat-threads]` (spaces in the header, a dotted key under `[tool]`)
is honoured; what is not valid TOML, a `tool` or section that is not a table,
bytes that are not UTF-8, a file that cannot be read, or codes that are not
codes (lowercase) is an error: one line naming the file, exit 2, nothing
written. Never a traceback, never silently ignored.
"""

from __future__ import annotations

import ctypes
import os

import pytest

from .helpers import FIXTURES, LEGACY, _limit_memory, assert_no_traceback, assert_one_error, tft

SETTINGS = "settings.py (lead)"
LEGACY_SHIM = (FIXTURES / "keyword_args" / "shim.py").read_bytes()

MALFORMED = {
    "header-without-bracket": b'[tool.tfcompat-threads\ntarget = "shim"\n',
    "tool-is-a-number": b'tool = 5\n\n[project]\nname = "x"\ndependencies = ["tfcompat-threads"]\n',
    "section-is-a-string": b'[tool]\n"tfcompat-threads" = "x"\n',
    "not-utf-8": b'[tool.tfcompat-threads]\ntarget = "shim"  # caf\xe9\n',
    "lowercase-select": b'[tool.tfcompat-threads]\nselect = ["tft001"]\n',
    "lowercase-ignore": b'[tool.tfcompat-threads]\nignore = ["tft1"]\n',
}


@pytest.mark.xfail(strict=True, reason=f"issue 13 items 8 and 9: {SETTINGS}")
@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_settings_are_one_error_and_nothing_is_written(tmp_path, text):
    (tmp_path / "pyproject.toml").write_bytes(text)
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("fix", "legacy.py", cwd=tmp_path)
    assert_one_error(run, "pyproject.toml")
    assert (tmp_path / "legacy.py").read_bytes() == LEGACY


def _unprivileged() -> None:
    """Root without the capabilities that let it read any file (a file with
    mode 000 is then unreadable to it, as to anyone)."""
    _limit_memory()
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.xfail(strict=True, reason=f"issue 13 item 8: {SETTINGS}")
def test_unreadable_settings_are_one_error(tmp_path):
    settings = tmp_path / "pyproject.toml"
    settings.write_text('[tool.tfcompat-threads]\ntarget = "shim"\n')
    settings.chmod(0o000)
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("fix", "legacy.py", cwd=tmp_path, preexec_fn=_unprivileged)
    assert_one_error(run, "pyproject.toml")
    assert (tmp_path / "legacy.py").read_bytes() == LEGACY


HONOURED = {
    "spaces-in-header": b'[ tool.tfcompat-threads ]\ntarget = "shim"\n',
    "dotted-key-under-tool": b'[tool]\ntfcompat-threads.target = "shim"\n',
}


@pytest.mark.xfail(strict=True, reason=f"issue 13 item 9: {SETTINGS}")
@pytest.mark.parametrize("text", HONOURED.values(), ids=HONOURED.keys())
def test_settings_toml_reads_as_the_section_are_honoured(tmp_path, text):
    (tmp_path / "pyproject.toml").write_bytes(text)
    (tmp_path / "legacy.py").write_bytes(LEGACY)
    run = tft("fix", "legacy.py", cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert (tmp_path / "legacy.py").read_bytes() == LEGACY_SHIM, "target = \"shim\" was ignored"
