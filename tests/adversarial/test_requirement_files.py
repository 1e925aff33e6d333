"""The requirement files tf-version's default is read from (issue 29 items 3,
9, 11, 13, 14; issue 30 item 10).

They are read as every file the tool reads is: regular files only, at most
10 MiB, never blocking; a requirement file that cannot be read (a FIFO, a
device, a link to /dev/zero, too big) is one line naming it, exit 2, which
says that `--tf-version` reads none. They are decoded as pip decodes them
(a UTF-8, UTF-16 LE or BE byte order mark). Every regular expression over
them is linear: an input ten or more times larger than the one that took
minutes finishes well inside the run's timeout. TOML nested 100,000 deep and
a release number of 5,000 digits are one line, exit 2, never a traceback.
What --show-settings prints of them reaches the terminal escaped.
"""

from __future__ import annotations

import codecs
import os

import pytest

from .helpers import LEGACY, assert_no_traceback, assert_one_error, tft

SHOWN_1_15 = 'tf-version = "1.15"'


def project(tmp_path, name: str, data: bytes):
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "train.py").write_bytes(LEGACY)
    (tmp_path / name).write_bytes(data)
    return tmp_path


def show(tree, *extra):
    return tft("check", "--show-settings", *extra, ".", cwd=tree)


# -- what is not a regular file (item 11) -------------------------------------------------


def test_a_fifo_named_requirements_txt_does_not_block_check(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_bytes(LEGACY)
    os.mkfifo(tmp_path / "requirements.txt")
    run = tft("check", "train.py", cwd=tmp_path, timeout=60)  # main: blocked until the timeout
    assert_one_error(run, "requirements.txt", "fifo", "--tf-version")
    run = tft("check", "--tf-version", "2.4", "train.py", cwd=tmp_path)
    assert run.returncode == 1 and "requirements.txt" not in run.stderr, run


@pytest.mark.parametrize("name", ["requirements.txt", "setup.py", "pyproject.toml", "setup.cfg"])
def test_a_link_to_dev_zero_as_a_requirement_file_is_not_read(tmp_path, name):
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_bytes(LEGACY)
    (tmp_path / name).symlink_to("/dev/zero")
    run = tft("check", "train.py", cwd=tmp_path)  # main: read until memory ran out, traceback
    assert_one_error(run, name, "not a regular file")


def test_a_requirement_file_above_the_size_limit_is_not_read(tmp_path):
    tree = project(tmp_path, "requirements.txt", b"tensorflow==1.15\n")
    with open(tree / "requirements.txt", "r+b") as file:
        file.truncate(3 * 1024**3)  # sparse: 3 GB that take no room
    run = show(tree)  # main: read 3 GB into a process capped at 4 GB
    assert_one_error(run, "requirements.txt", "size limit")


# -- decoded as pip decodes (item 3) -------------------------------------------------------


@pytest.mark.parametrize("encoding,bom", [("utf-8", codecs.BOM_UTF8), ("utf-16-le", codecs.BOM_UTF16_LE),
                                          ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_a_pin_in_a_file_with_a_byte_order_mark_is_read(tmp_path, encoding, bom):
    """`pip freeze > requirements.txt` in Windows PowerShell 5 writes UTF-16 LE with a BOM."""
    tree = project(tmp_path, "requirements.txt", bom + "tensorflow==1.15.5\r\nnumpy==1.18.5\r\n".encode(encoding))
    run = show(tree)
    assert run.returncode == 0 and SHOWN_1_15 in run.stdout, run


def test_a_coding_comment_decodes_the_file_as_pip_does(tmp_path):
    text = "# -*- coding: latin-1 -*-\ntensorflow==1.15 ; platform_release != 'caf\u00e9'\n"
    tree = project(tmp_path, "requirements.txt", text.encode("latin-1"))
    run = show(tree)
    assert run.returncode == 0 and "tensorflow==1.15 ; platform_release != 'caf\u00e9'" in run.stdout, run


# -- linear readers (item 9) ---------------------------------------------------------------


def test_unclosed_install_requires_repeated_in_setup_py_is_linear(tmp_path):
    """360 KB took minutes on main (quadratic); 3.6 MB would take hours."""
    data = b"# tensorflow\n" + b"install_requires=[" * 200_000
    tree = project(tmp_path, "setup.py", data)
    run = show(tree)
    assert run.returncode == 0 and 'tf-version = null' in run.stdout, run


def test_spaces_before_a_newline_in_a_pyproject_dependency_are_linear(tmp_path):
    """3 KB took minutes on main (cubic); 60 KB would take years."""
    spaces = " " * 60_000
    data = f'[project]\nname = "x"\ndependencies = ["tensorflow{spaces}\\nx\\n", "tensorflow>=1.15"]\n'.encode()
    tree = project(tmp_path, "pyproject.toml", data)
    run = show(tree)
    assert run.returncode == 0 and SHOWN_1_15 in run.stdout, run


def test_a_long_line_of_spaces_in_setup_cfg_is_linear(tmp_path):
    """configparser's option pattern is quadratic over spaces: 20 KB took 10 s, 300 KB would take 40 min."""
    data = b"[options]\ninstall_requires =\n    tensorflow>=1.15\nkey" + b" " * 300_000 + b"x\n"
    tree = project(tmp_path, "setup.cfg", data)
    run = show(tree)
    assert run.returncode == 0 and SHOWN_1_15 in run.stdout, run


# -- crashes before any file is checked (item 13) -----------------------------------------------


def test_a_pyproject_nested_100000_deep_is_one_error(tmp_path):
    data = b'[project]\nname = "x"\ndependencies = ["tensorflow>=1.15"]\nx = ' + b"[" * 100_000 + b"]" * 100_000
    tree = project(tmp_path, "pyproject.toml", data + b"\n")
    run = tft("check", "train.py", cwd=tree)
    assert_one_error(run, "pyproject.toml", "nested too deep", "--tf-version")


def test_a_release_of_5000_digits_is_one_error(tmp_path):
    tree = project(tmp_path, "requirements.txt", b"tensorflow>=" + b"1" * 5000 + b"\n")
    run = tft("check", "train.py", cwd=tree)
    line = assert_one_error(run, "requirements.txt", "not a TensorFlow release")
    assert len(line) < 300, "the 5,000 digits are not printed"


def test_a_release_newer_than_the_known_ones_is_the_newest(tmp_path):
    tree = project(tmp_path, "requirements.txt", b"tensorflow>=3.4\n")
    run = show(tree)
    assert run.returncode == 0, run
    from tfcompat_threads.options import RELEASES

    assert f'tf-version = "{RELEASES[-1][0]}.{RELEASES[-1][1]}"' in run.stdout, run


# -- what --show-settings prints (item 14) -------------------------------------------------


def test_show_settings_escapes_a_requirement_line_and_a_file_name(tmp_path):
    tree = tmp_path / "repo\x1b]0;PWNED\x07"
    tree.mkdir()
    project(tree, "requirements.txt", b"tensorflow==1.15\x1b]0;TITLE\x07\x9b31m\n")
    (tree / "pyproject.toml").write_text('[tool.tfcompat-threads]\nextend-exclude = ["a\\u009b31m"]\n')
    run = show(tree)
    assert run.returncode == 0, run
    assert_no_traceback(run)
    assert "\x1b" not in run.stdout and "\x07" not in run.stdout and "\x9b" not in run.stdout, run
    assert "\\x1b]0;PWNED\\x07" in run.stdout and "\\x9b31m" in run.stdout, run


# -- tf-version (issue 30 item 10) ------------------------------------------------------------


@pytest.mark.parametrize("value", ["9.9", "2.99", "1.16"])
def test_a_tf_version_no_release_has_is_one_error_naming_the_known_ones(tmp_path, value):
    tree = project(tmp_path, "requirements.txt", b"numpy\n")
    run = tft("check", "--tf-version", value, "train.py", cwd=tree)
    line = assert_one_error(run, "--tf-version", "not a TensorFlow release", "1.0-1.15", "2.0-")
    assert value in line
    (tree / "pyproject.toml").write_text(f'[tool.tfcompat-threads]\ntf-version = "{value}"\n')
    assert_one_error(tft("check", "train.py", cwd=tree), "pyproject.toml", "not a TensorFlow release")


def test_a_settings_error_escapes_the_file_name_and_the_key(tmp_path):
    tree = tmp_path / "repo\x1b]0;PWNED\x07"
    tree.mkdir()
    project(tree, "requirements.txt", b"numpy\n")
    (tree / "pyproject.toml").write_text('[tool.tfcompat-threads]\n"targ\\u009bet" = "shim"\n')
    run = tft("check", "train.py", cwd=tree)
    line = assert_one_error(run, "pyproject.toml", "has no setting")
    assert "\x1b" not in run.stderr and "\x07" not in run.stderr and "\x9b" not in run.stderr, run
    assert "repo\\x1b]0;PWNED\\x07" in line, line
