"""How diagnostics are printed: text, json, github (workflow commands), sarif."""

from __future__ import annotations

import os
from pathlib import Path

from .. import __version__
from .runner import Diagnostic

FORMATS = ("text", "json", "github", "sarif")


def _where(d: Diagnostic) -> str:
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    return f"{d.filename}:{cell}{d.row}:{d.column}"


def text(diagnostics: list[Diagnostic], show_fixable: bool) -> str:
    lines = []
    for d in diagnostics:
        mark = " [*]" if show_fixable and d.fixed else ""
        lines.append(f"{_where(d)}: {d.code}{mark} {d.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def as_json(diagnostics: list[Diagnostic]) -> str:
    import json

    return json.dumps([_json_entry(d) for d in diagnostics], indent=2) + "\n"


def _json_entry(d: Diagnostic) -> dict:
    from ..codemod.findings import RULES

    return {
        "code": d.code,
        "message": d.message,
        "filename": d.filename,
        "location": {"row": d.row, "column": d.column},
        "end_location": {"row": d.end_row, "column": d.end_column},
        "fix": {"applicability": d.applicability, "message": RULES[d.code].fix}
        if d.applicability != "none"
        else None,
        "cell": d.cell,
    }


def github(diagnostics: list[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        level = "warning" if d.applicability == "none" else "error"
        message = d.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        lines.append(
            f"::{level} title=tfcompat-threads ({d.code}),file={d.filename},line={d.row},col={d.column},"
            f"endLine={d.end_row},endColumn={d.end_column}::{_where(d)}: {d.code} {message}"
        )
    return "\n".join(lines) + ("\n" if lines else "")


def sarif(diagnostics: list[Diagnostic]) -> str:
    import json

    from ..codemod.findings import RULES

    rules = sorted(RULES.values(), key=lambda r: r.code)
    index = {rule.code: number for number, rule in enumerate(rules)}
    results = []
    for d in diagnostics:
        region = {"startLine": d.row, "startColumn": d.column, "endLine": d.end_row, "endColumn": d.end_column}
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": "warning" if d.applicability == "none" else "error",
            "message": {"text": d.message},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": _uri(d.filename)}, "region": region}}
            ],
        }
        if d.cell is not None:
            result["properties"] = {"cell": d.cell}
        results.append(result)
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tfcompat-threads",
                        "version": __version__,
                        "rules": [
                            {
                                "id": rule.code,
                                "name": rule.name,
                                "shortDescription": {"text": rule.what},
                                "fullDescription": {"text": rule.why},
                                "help": {"text": f"{rule.what} {rule.why} Fix: {rule.fix}"},
                                "defaultConfiguration": {"level": "error"},
                            }
                            for rule in rules
                        ],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _uri(filename: str) -> str:
    path = Path(filename)
    if path.is_absolute():
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            return path.as_uri()
    return path.as_posix().replace(os.sep, "/")


def render(output_format: str, diagnostics: list[Diagnostic], show_fixable: bool) -> str:
    if output_format == "json":
        return as_json(diagnostics)
    if output_format == "github":
        return github(diagnostics)
    if output_format == "sarif":
        return sarif(diagnostics)
    return text(diagnostics, show_fixable)
