"""How findings are printed: text, json, github (workflow commands), sarif.

Every format takes the findings as the rules made them (`codemod.findings`)
with the file each is in. File names and messages are data: the github
format escapes them by GitHub's workflow-command rules, SARIF URIs are
percent-encoded, JSON is JSON for any name.
"""

from __future__ import annotations

import functools
import os

from .. import __version__
from ..terminal import visible

FORMATS = ("text", "concise", "json", "github", "sarif")
DOCS_FALLBACK = "https://tfcompat-threads.readthedocs.io/en/latest/"
"""The documentation address when the package's metadata is missing (a
checkout run without installing); the metadata's [project.urls] Documentation
is the one address otherwise."""


@functools.lru_cache(maxsize=None)
def docs_address() -> str:
    """The documentation site's address, from the installed package's metadata."""
    try:
        from importlib.metadata import PackageNotFoundError, metadata
    except ImportError:  # Python 3.7 (`rule` runs there): the same address, which a test holds equal
        return DOCS_FALLBACK

    try:
        urls = metadata("tfcompat-threads").get_all("Project-URL") or []
    except PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "documentation" and url.strip():
            return url.strip().rstrip("/") + "/"
    return DOCS_FALLBACK


def rule_page(code: str) -> str:
    """The rule's page on the site, below rules/ (docs/hooks.py makes it)."""
    from ..codemod.rules import RULES

    return RULES[code].name


def rule_url(code: str, rules: dict | None = None) -> str:
    """The absolute address of the rule's page. `rules`: RULES, when it is
    not the package's (`rule` on Python 3.7-3.9: lint/rule_docs.py)."""
    if rules is None:
        from ..codemod.rules import RULES as rules

    return f"{docs_address()}rules/{rules[code].name}/"


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


def framed(entries: list[tuple[str, object]], show_fixable: bool, style: Style = Style(False)) -> str:
    """The text format with a code frame under each finding's line (as
    ruff's default output): its source line, and a caret under what it
    names."""
    out = []
    for entry in entries:
        head, _, rest = text([entry], show_fixable, style).partition("\n")
        out.append(head + "\n" + "".join(line + "\n" for line in code_frame(entry[1], style)) + rest)
    return "".join(out)


def concise(entries: list[tuple[str, object]], show_fixable: bool, style: Style = Style(False)) -> str:
    """One line per finding: `path:row:col: CODE [*] message`."""
    return "".join(text([entry], show_fixable, style).partition("\n")[0] + "\n" for entry in entries)


def code_frame(finding, style: Style) -> list[str]:
    """`  N | source line` and a caret line under the finding's columns;
    control characters shown as escapes, tabs as one space (the caret
    stays under its column)."""
    line = finding.line_text
    if line is None:
        return []
    number = str(finding.start.line)
    gutter = " " * len(number)
    start = max(finding.start.column - 1, 0)
    end = finding.end.column - 1 if finding.end.line == finding.start.line else len(line.rstrip())
    end = max(end, start + 1)
    lead, marked = _visible(line[:start]), _visible(line[start:end])
    return [
        style.cyan(f"{gutter} |"),
        style.cyan(f"{number} |") + f" {_visible(line)}",
        style.cyan(f"{gutter} |") + " " + " " * len(lead) + style.red("^" * max(len(marked), 1)),
    ]


def _visible(text: str) -> str:
    """As the terminal must get it (`terminal.visible`), a tab as one space."""
    from ..terminal import visible

    return visible(text.replace("\t", " "))


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
        "severity": finding.severity,
        "message": finding.message,
        "filename": shown(path),
        "location": {"row": finding.start.line, "column": finding.start.column},
        "end_location": {"row": finding.end.line, "column": finding.end.column},
        "fix": {
            "applicability": fix.applicability.value,
            "message": fix.message,
            "edits": [
                {"content": content, "location": {"row": s.line, "column": s.column},
                 "end_location": {"row": e.line, "column": e.column}}
                for content, s, e in finding.located
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
                ("file", shown(os.path.normpath(path))),  # "other/old.py", as the repository names it
                *_github_place(finding),
            )
        )
        lines.append(f"::{level} {properties}::{_escape_data(f'{where(path, finding)}: {finding.code} {finding.message}')}")
    return "\n".join(lines) + ("\n" if lines else "")


def _github_place(finding) -> tuple:
    region = file_region(finding)
    return tuple((key, region[name]) for key, name in (("line", "startLine"), ("col", "startColumn"),
                                                        ("endLine", "endLine"), ("endColumn", "endColumn"))
                 if name in region)


def sarif(entries: list[tuple[str, object]]) -> str:
    import json

    from ..codemod.rules import RULES

    rules = sorted(RULES.values(), key=lambda r: r.code)
    index = {rule.code: number for number, rule in enumerate(rules)}
    results = []
    for path, finding in entries:
        region = file_region(finding)
        result = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": finding.severity,
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(path)}, "region": region}}],
        }
        if finding.cell is not None:
            result["properties"] = {"cell": finding.cell, "cellLine": finding.start.line,
                                    "cellColumn": finding.start.column}
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
                        "help": rule_help(rule),
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


def file_region(finding) -> dict:
    """Where a finding is in the file on disk: its line and column range; for
    a notebook, the lines of the .ipynb file that hold its source lines
    (a column inside a JSON string is no column of the file: none given)."""
    if finding.file_rows is not None:
        return {"startLine": finding.file_rows[0], "endLine": finding.file_rows[1]}
    return {"startLine": finding.start.line, "startColumn": finding.start.column,
            "endLine": finding.end.line, "endColumn": finding.end.column}


def rule_help(rule) -> dict:
    """A rule's documentation inside SARIF (code scanning shows `markdown`):
    no page of the tool's has an address every install can reach."""
    sections = (("What it does", rule.what), ("Why is this bad?", rule.why),
                ("Example", f"```python\n{rule.example.rstrip()}\n```"),
                ("Use instead", f"```python\n{rule.use_instead.rstrip()}\n```"), ("Fix safety", rule.fix_safety))
    return {
        "text": f"{rule.what} {rule.why} Use instead: {rule.use_instead.strip()} Fix safety: {rule.fix_safety}",
        "markdown": "\n\n".join(f"## {title}\n{body}" for title, body in sections),
    }


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


def coloured_diff(diff: str, style: Style) -> str:
    """A unified diff as git and ruff colour it: headers bold, hunk lines
    cyan, removed lines red, added lines green."""
    if not style.enabled:
        return diff
    out = []
    for line in diff.split("\n"):  # a diff's lines end at \n only (a file's \r stays inside its line)
        if line.startswith(("--- ", "+++ ")):
            line = style.bold(line)
        elif line.startswith("@@"):
            line = style.cyan(line)
        elif line.startswith("-"):
            line = style(line, "31")
        elif line.startswith("+"):
            line = style(line, "32")
        out.append(line)
    return "\n".join(out)


def render(output_format: str, entries: list[tuple[str, object]], show_fixable: bool,
           style: Style = Style(False)) -> str:
    if output_format == "json":
        return as_json(entries)
    if output_format == "github":
        return github(entries)
    if output_format == "sarif":
        return sarif(entries)
    if output_format == "concise":
        return concise(entries, show_fixable, style)
    return framed(entries, show_fixable, style)
