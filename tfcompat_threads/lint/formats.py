"""How findings are printed: text, json, github (workflow commands), sarif.

Every format takes the findings as the rules made them (`codemod.findings`)
with the file each is in. File names and messages are data: the github
format escapes them by GitHub's workflow-command rules, SARIF URIs are
percent-encoded, JSON is JSON for any name.
"""

from __future__ import annotations

import os

from .. import __version__
from ..terminal import visible

FORMATS = ("text", "json", "github", "sarif")
DOCS = "README.md"


def rule_url(code: str) -> str:
    from ..codemod.rules import RULES

    return f"{DOCS}#{RULES[code].anchor}"


class Style:
    """ANSI colour for a terminal; none otherwise (NO_COLOR, FORCE_COLOR)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @staticmethod
    def for_stream(stream) -> Style:
        if os.environ.get("NO_COLOR"):
            return Style(False)
        if os.environ.get("FORCE_COLOR"):
            return Style(True)
        return Style(hasattr(stream, "isatty") and stream.isatty() and os.environ.get("TERM") != "dumb")

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self(text, "1")

    def red(self, text: str) -> str:
        return self(text, "1;31")

    def cyan(self, text: str) -> str:
        return self(text, "36")

    def dim(self, text: str) -> str:
        return self(text, "2")


def shown(path: str) -> str:
    """A file name as text anyone can read: bytes that are not UTF-8 (a
    name the file system has, the locale cannot say) as \\xNN escapes."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")


def where(path: str, finding) -> str:
    cell = f"cell {finding.cell}:" if finding.cell is not None else ""
    return f"{shown(path)}:{cell}{finding.start.line}:{finding.start.column}"


def text(entries: list[tuple[str, object]], show_fixable: bool, style: Style = Style(False)) -> str:
    """`path:row:col: CODE [*] message`, and a `help:` line for each finding
    nothing is applied for ([*]: `fix` applies its fix). Names and the code
    quoted in messages are made visible (terminal.py)."""
    lines = []
    for path, finding in entries:
        mark = " " + style.cyan("[*]") if show_fixable and finding.fixed else ""
        place, message = visible(where(path, finding)), visible(finding.message)
        lines.append(f"{style.bold(place)}: {style.red(finding.code)}{mark} {message}")
        advice = help_text(finding)
        if advice and not finding.fixed:
            lines.append(style.dim(f"  help: {visible(advice)}"))
    return "\n".join(lines) + ("\n" if lines else "")


def help_text(finding) -> str:
    """What to do about a finding nothing is applied for."""
    fix = finding.fix
    if fix is not None and not fix.safe:
        blocked = f" ({fix.blocked_by})" if fix.blocked_by else ""
        return finding.help or (f"the fix is unsafe{blocked}: review it with `diff --unsafe-fixes`, "
                                "apply it with `fix --unsafe-fixes`")
    if finding.help:
        return finding.help
    from ..codemod.rules import RULES

    return f"see `tfcompat-threads rule {finding.code}` ({RULES[finding.code].name})"


def as_json(entries: list[tuple[str, object]]) -> str:
    import json

    return json.dumps([json_entry(path, f) for path, f in entries], indent=2) + "\n"


def json_entry(path: str, finding) -> dict:
    """ruff's JSON shape, and the rule's name, severity and help."""
    from ..codemod.rules import RULES

    fix = finding.fix
    return {
        "code": finding.code,
        "name": RULES[finding.code].name,
        "severity": RULES[finding.code].severity,
        "message": finding.message,
        "filename": shown(path),
        "location": {"row": finding.start.line, "column": finding.start.column},
        "end_location": {"row": finding.end.line, "column": finding.end.column},
        "fix": {
            "applicability": fix.applicability.value,
            "message": fix.message,
            "applied": finding.fixed,
            "edits": [
                {"content": content, "location": {"row": s.line, "column": s.column},
                 "end_location": {"row": e.line, "column": e.column}}
                for content, s, e in getattr(fix, "located", ())
            ],
        } if fix is not None else None,
        "help": help_text(finding) if not finding.fixed else "",
        "noqa_row": finding.noqa_row,
        "url": rule_url(finding.code),
        "cell": finding.cell,
    }


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(entries: list[tuple[str, object]]) -> str:
    """GitHub workflow commands; data and properties escaped as actions/toolkit
    does (`escapeData`, `escapeProperty`), so no file name or message can
    start a command of its own."""
    lines = []
    for path, finding in entries:
        level = "error" if finding.severity == "error" else "warning"
        properties = ",".join(
            f"{key}={_escape_property(str(value))}"
            for key, value in (
                ("title", f"tfcompat-threads ({finding.code})"),
                ("file", shown(path)),
                ("line", finding.start.line),
                ("col", finding.start.column),
                ("endLine", finding.end.line),
                ("endColumn", finding.end.column),
            )
        )
        lines.append(f"::{level} {properties}::{_escape_data(f'{where(path, finding)}: {finding.code} {finding.message}')}")
    return "\n".join(lines) + ("\n" if lines else "")


def sarif(entries: list[tuple[str, object]]) -> str:
    import json

    from ..codemod.rules import RULES

    rules = sorted(RULES.values(), key=lambda r: r.code)
    index = {rule.code: number for number, rule in enumerate(rules)}
    results = []
    for path, finding in entries:
        region = {"startLine": finding.start.line, "startColumn": finding.start.column,
                  "endLine": finding.end.line, "endColumn": finding.end.column}
        result = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": RULES[finding.code].severity,
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(path)}, "region": region}}],
        }
        if finding.cell is not None:
            result["properties"] = {"cell": finding.cell}
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "tfcompat-threads",
                "version": __version__,
                "rules": [
                    {
                        "id": rule.code,
                        "name": rule.name,
                        "shortDescription": {"text": rule.summary},
                        "fullDescription": {"text": f"{rule.what} {rule.why}"},
                        "help": {"text": f"{rule.what} {rule.why} Use instead: {rule.use_instead.strip()} "
                                         f"Fix safety: {rule.fix_safety}"},
                        "helpUri": rule_url(rule.code),
                        "defaultConfiguration": {"level": rule.severity},
                    }
                    for rule in rules
                ],
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(document, indent=2) + "\n"


def uri(filename: str) -> str:
    """A SARIF artifact URI: relative and percent-encoded (the file name's own
    bytes), or a file: URI."""
    from pathlib import Path
    from urllib.parse import quote

    path = Path(filename)
    prefix = ""
    if path.is_absolute():
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            prefix = "file://"
    return prefix + quote(os.fsencode(path.as_posix()), safe="/")


def render(output_format: str, entries: list[tuple[str, object]], show_fixable: bool,
           style: Style = Style(False)) -> str:
    if output_format == "json":
        return as_json(entries)
    if output_format == "github":
        return github(entries)
    if output_format == "sarif":
        return sarif(entries)
    return text(entries, show_fixable, style)
