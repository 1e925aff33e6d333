"""Output that cannot be injected (issue 13 item 7).

A file name is data, whatever it holds. `--output-format github`: every line
of standard output is one annotation whose properties are escaped as GitHub's
workflow commands require (actions/toolkit `escapeProperty`: `%` `\\r` `\\n`
`:` `,`) and whose message is escaped as data (`escapeData`: `%` `\\r` `\\n`),
so a name holding `\\n::add-mask::...` cannot start a command. SARIF URIs are
percent-encoded (RFC 3986), raw bytes of non-UTF-8 names included. JSON is
valid, strict UTF-8 for any name.
"""

from __future__ import annotations

import json
import os
import re
from urllib.parse import unquote_to_bytes

import pytest

from .helpers import LEGACY, assert_no_traceback, tft

HOSTILE = "evil\n::add-mask::secret\r\n::error file=README.md,line=1::100% pwned:x,y.py"


def unescape_property(value: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        value = value.replace(escaped, char)
    return value


def unescape_data(value: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        value = value.replace(escaped, char)
    return value


ANNOTATION = re.compile(r"^::(error|warning|notice) (?P<properties>[^:]*)::(?P<data>.*)$")


@pytest.mark.parametrize("name", [HOSTILE, "plain,line=9:col=1.py", "100%0A.py"],
                         ids=["commands", "properties", "percent"])
def test_github_annotations_escape_file_names_and_messages(tmp_path, name):
    (tmp_path / name).write_bytes(LEGACY)
    run = tft("check", "--output-format", "github", name, cwd=tmp_path)
    assert_no_traceback(run)
    assert run.returncode == 1, run
    lines = run.stdout.splitlines()
    assert lines, run
    for line in lines:
        match = ANNOTATION.match(line)
        assert match, f"not one annotation: {line!r}"
        properties = dict(item.split("=", 1) for item in match["properties"].split(","))
        assert set(properties) >= {"file", "line", "col"}, properties
        assert unescape_property(properties["file"]) == name
        assert properties["line"].isdigit() and properties["col"].isdigit()
        assert name in unescape_data(match["data"])
        assert "\r" not in line


URI = re.compile(r"^(?:[A-Za-z0-9\-._~/!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*$")


def test_sarif_uris_are_percent_encoded(tmp_path):
    names = [b"a b%#?[x].py", "é ü.py".encode(), b"bad\xff name.py", b"q?x=1#frag.py"]
    for name in names:
        (tmp_path / os.fsdecode(name)).write_bytes(LEGACY)
    run = tft("check", "--output-format", "sarif", ".", cwd=tmp_path)
    assert_no_traceback(run)
    document = json.loads(run.stdout_bytes.decode("utf-8"))  # strict
    uris = [result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in document["runs"][0]["results"]]
    assert len(uris) == len(names), run
    for uri in uris:
        assert URI.match(uri), f"not percent-encoded: {uri!r}"
    assert sorted(unquote_to_bytes(uri).removeprefix(b"./") for uri in uris) == sorted(names)


def test_json_is_valid_strict_utf8_for_any_file_name(tmp_path):
    names = ["new\nline.py", 'quote".py', "back\\slash.py", "ctrl\x01\x1b.py", "tab\t.py", "é.py",
             "\u2028sep.py", os.fsdecode(b"bad\xff.py")]
    for name in names:
        (tmp_path / name).write_bytes(LEGACY)
    run = tft("check", "--output-format", "json", *names, cwd=tmp_path)
    assert_no_traceback(run)
    entries = json.loads(run.stdout_bytes.decode("utf-8"))  # strict: no raw bytes
    assert len(entries) == len(names), run
    filenames = [entry["filename"] for entry in entries]
    for filename in filenames:
        filename.encode("utf-8")  # no lone surrogates (strict JSON readers refuse them)
    assert set(names[:-1]) <= set(filenames)
    [bad] = set(filenames) - set(names[:-1])
    assert bad.startswith("bad") and bad.endswith(".py")
