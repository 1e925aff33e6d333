"""tfcompat-threads on real TF1-era repositories, and tf_upgrade_v2 on the same trees.

    python bench/real_repos.py --trees DIR [--list TSV] [--resolve-with PYTHON]... [--json OUT] [NAME...]

DIR holds checkouts of the repositories in bench/real_repos.tsv, or in the
--list given (bench/real_repos_unseen.tsv: a second set, first run by issue
21), one folder each, named owner+name, at the listed commit; fetch them for
the run, never commit them. Nothing here downloads, and the trees are never written: each
is copied per step. Per tree:

- check: findings by code, seconds; fix (default, after check, with the cache
  check kept): files changed, errors and internal errors, seconds; then check
  again: each finding left, judged by
  bench/real_repos_judgement.tsv (needs a human, or noise) or "unjudged";
- the fixed tree: every file still compiles, a second fix changes nothing,
  every TensorFlow name a fix introduced resolves under each PYTHON (the
  newest TF first), no half rename (a session-config name renamed at some
  places of a file and left at others), no session-config name left
  unreported in a file with nothing left to report, no import the fix made
  unused;
- tf_upgrade_v2 --intree on a copy (when it is installed): seconds, crash.

The exit code is 1 when a mechanical check fails or an internal error happens.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
TOOL = str(BIN / "tfcompat-threads")
# What the tool renames: TF1 session-config names (codemod/symbols.py TF1_ONLY).
sys.path.insert(0, str(HERE.parent))
from tests.tfnames import missing  # noqa: E402  (the check the fixture tests make)
from tfcompat_threads.codemod.symbols import TF1_ONLY  # noqa: E402


def sources(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.suffix in (".py", ".ipynb") and p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(tree).parts))


def tool(*args: str, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    proc = subprocess.run([TOOL, *args], capture_output=True, text=True, cwd=cwd)
    return proc, time.perf_counter() - start


def findings(tree: Path) -> tuple[list[dict], float, list[str], int]:
    """The findings of `check` over a tree, its seconds, its errors and its exit code."""
    proc, seconds = tool("check", "--output-format", "json", ".", cwd=tree)
    errors = [line[7:] for line in proc.stderr.splitlines() if line.startswith("error: ")]
    return json.loads(proc.stdout or "[]"), seconds, errors, proc.returncode


# -- what a program names -------------------------------------------------------------------


def program(path: Path) -> ast.Module | None:
    """The file as one module (a notebook's code cells joined, magics masked)."""
    try:
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
            code = []
            for cell in cells:
                text = cell.get("source", "")
                text = "".join(text) if isinstance(text, list) else text
                if cell.get("cell_type") == "code" and not text.lstrip().startswith("%%"):
                    code += [("pass" if line.strip().startswith(("%", "!")) else line) for line in text.split("\n")]
            return ast.parse("\n".join(code))
        return ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def names(tree: ast.Module | None) -> Counter:
    """tensorflow dotted names read (outermost chains), with their counts."""
    from tfcompat_threads.codemod.scopes import Scopes

    if tree is None:
        return Counter()
    scopes = Scopes(tree)
    found = Counter()
    for node in scopes.scopes:
        parent = scopes.parents.get(node)
        if type(node) in (ast.Name, ast.Attribute) and not (type(parent) is ast.Attribute and parent.value is node):
            for name in scopes.qualified_names(node):
                if name.startswith(("tensorflow.", "tfcompat_threads.")):
                    found[name] += 1
    return found


def family(name: str) -> str | None:
    """The session-config name a dotted name is (or is below), if any."""
    for prefix in ("tensorflow.compat.v1.", "tensorflow."):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            for member in TF1_ONLY | {"keras.backend.set_session"}:
                if rest == member or rest.startswith(member + "."):
                    return member
    return None


def imports_made_unused(before: ast.Module | None, after: ast.Module | None) -> list[str]:
    def imported(tree):
        return {alias.asname or alias.name.split(".")[0]: node.lineno for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names if alias.name != "*"}

    def read(tree):
        return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}

    if before is None or after is None:
        return []
    now = imported(after)
    return [f"{name} (line {now[name]})" for name in imported(before)
            if name in read(before) and name in now and name not in read(after)]


# -- one tree ------------------------------------------------------------------------------------


def fixed_by_fix(finding: dict) -> bool:
    """Plain `fix` fixes it (check's "N fixable with `fix`"): its fix is safe.
    Not "it carries edits": an edit over several lines (two renames on
    consecutive lines) belongs to the first finding it touches, the others
    carry none and are fixed all the same."""
    return bool(finding["fix"] and finding["fix"]["applicability"] == "safe")



def evaluate(tree: Path, work: Path, judged: dict) -> dict:
    found, check_s, check_errors, _ = findings(tree)
    copy = work / tree.name
    shutil.copytree(tree, copy, symlinks=True)
    fixed, fix_s = tool("fix", "-q", "--exit-zero", ".", cwd=copy)
    errors = [line[7:] for line in fixed.stderr.splitlines() if line.startswith("error: ")]
    snapshot = {p: p.read_bytes() for p in sources(copy)}
    tool("fix", "-q", "--exit-zero", ".", cwd=copy)
    left, _, _, check_after_fix = findings(copy)
    report = {
        "tree": tree.name, "files": len(snapshot), "findings": len(found),
        "by_code": dict(sorted(Counter(f["code"] for f in found).items())),
        "fixable": sum(fixed_by_fix(f) for f in found),
        "check_s": round(check_s, 2), "fix_s": round(fix_s, 2), "errors": errors,
        "internal_errors": [e for e in errors + check_errors if "internal error" in e],
        "changed": [], "not_compiling": [], "not_idempotent": [], "introduced": {}, "half_renames": [],
        "unreported": [], "unused_imports": [], "left": [], "check_after_fix": check_after_fix,
    }
    with_findings_left = {f["filename"].removeprefix("./") for f in left}
    for finding in left:
        where = finding["filename"].removeprefix("./")
        key = (tree.name, where, finding["code"])
        verdict, why = judged.get(key, ("unjudged", ""))
        cell = f"cell {finding['cell']}:" if finding.get("cell") else ""
        report["left"].append({"where": f"{where}:{cell}{finding['location']['row']}", "code": finding["code"],
                               "message": finding["message"], "verdict": verdict, "why": why})
    for path, data in snapshot.items():
        relative = path.relative_to(copy).as_posix()
        original = tree / relative
        if path.read_bytes() != data:
            report["not_idempotent"].append(relative)
        if original.read_bytes() == data:
            continue
        report["changed"].append(relative)
        before, after = program(original), program(path)
        if after is None and before is not None:
            report["not_compiling"].append(relative)
            continue
        old, new = names(before), names(after)
        introduced = sorted(set(new) - set(old))
        if introduced:
            report["introduced"][relative] = introduced
        report["unused_imports"] += [f"{relative}: {line}" for line in imports_made_unused(before, after)]
        renamed = {family(n) for n in set(new) - set(old) if n.startswith("tensorflow.compat.v1.")}
        for name in new:
            member = family(name)
            if member and not name.startswith("tensorflow.compat.v1.") and relative not in with_findings_left:
                # left, and nothing left to say about it: renamed elsewhere in the file (half), or never
                report["half_renames" if member in renamed else "unreported"].append(f"{relative}: {name}")
    return report


def upgrade_v2(tree: Path, work: Path) -> dict:
    upgrade = BIN / "tf_upgrade_v2"
    if not upgrade.exists():
        return {"skipped": "tf_upgrade_v2 not installed"}
    out = work / f"{tree.name}-upgraded"
    start = time.perf_counter()
    proc = subprocess.run([str(upgrade), "--intree", str(tree), "--outtree", str(out), "--reportfile",
                           str(work / "report.txt")], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    crash = None
    if proc.returncode:
        lines = [line for line in proc.stderr.splitlines() if "Error" in line.split(":")[0]]
        crash = (lines[-1] if lines else f"exit {proc.returncode}").split(":")[0].rsplit(".", 1)[-1]
    return {"seconds": round(seconds, 2), "crashed": crash}


def load_judgement() -> dict:
    path = HERE / "real_repos_judgement.tsv"
    judged = {}
    if path.exists():
        with path.open(newline="") as handle:
            for row in csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"):
                judged[(row["tree"], row["file"], row["code"])] = (row["verdict"], row["why"])
    return judged


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="trees to run (default: all of real_repos.tsv found in DIR)")
    parser.add_argument("--trees", required=True, type=Path)
    parser.add_argument("--resolve-with", action="append", metavar="PYTHON")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--list", type=Path, default=HERE / "real_repos.tsv",
                        help="the list of trees (default bench/real_repos.tsv)")
    args = parser.parse_args(argv)
    with args.list.open(newline="") as handle:
        listed = [row for row in csv.DictReader((l for l in handle if not l.startswith("#")), delimiter="\t")]
    wanted = [row["tree"] for row in listed if not args.names or row["tree"] in args.names]
    judged = load_judgement()
    reports = []
    with tempfile.TemporaryDirectory(prefix="tfcompat-real-") as tmp:
        # a cache of the run's own, empty at the start: check finds, fix uses what it kept (as a user's runs)
        os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = str(Path(tmp) / "cache")
        for name in wanted:
            tree = args.trees / name
            if not tree.is_dir():
                print(f"{name}: not in {args.trees} (fetch it at the listed commit)", file=sys.stderr)
                continue
            report = evaluate(tree, Path(tmp), judged)
            report["tf_upgrade_v2"] = upgrade_v2(tree, Path(tmp))
            reports.append(report)
            print(f"{name}: {report['findings']} findings, {len(report['changed'])} files changed, "
                  f"{len(report['left'])} left, {report['check_s'] + report['fix_s']:.2f} s "
                  f"(tf_upgrade_v2 {report['tf_upgrade_v2'].get('seconds', '-')} s)", file=sys.stderr)
    pythons = args.resolve_with or [sys.executable]
    everything = {n for r in reports for names_ in r["introduced"].values() for n in names_}
    tables = {python: missing(everything, python) for python in pythons}
    bad = 0
    for report in reports:
        report["unresolved"] = {python: sorted(f"{rel}: {n} ({table[n]})" for rel, ns in report["introduced"].items()
                                               for n in ns if table.get(n))
                                for python, table in tables.items()}
        bad += (len(report["internal_errors"]) + len(report["not_compiling"]) + len(report["not_idempotent"])
                + len(report["half_renames"]) + sum(map(len, report["unresolved"].values())))
    print(markdown(reports, pythons))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1))
    return 1 if bad else 0


def after_fix(report: dict, verdicts: Counter) -> str:
    """The "check after fix" cell: check's exit code (2: a file it cannot
    read, rightly), marked (!) when something left is noise or unjudged."""
    return f"exit {report['check_after_fix']}" + ("" if set(verdicts) <= {"human"} else " (!)")


def markdown(reports: list[dict], pythons: list[str]) -> str:
    lines = [
        "| tree | files | findings (fixable) | files fixed | internal errors | left: human / noise / unjudged "
        "| unresolved names | half renames | unreported | check after fix | ours s | tf_upgrade_v2 s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    totals = Counter()
    for r in reports:
        verdicts = Counter(item["verdict"] for item in r["left"])
        ours = r["check_s"] + r["fix_s"]
        theirs = r["tf_upgrade_v2"].get("seconds")
        crashed = r["tf_upgrade_v2"].get("crashed")
        lines.append(
            f"| {r['tree']} | {r['files']} | {r['findings']} ({r['fixable']}) | {len(r['changed'])} "
            f"| {len(r['internal_errors'])} | {verdicts['human']} / {verdicts['noise']} / {verdicts['unjudged']} "
            f"| {sum(map(len, r['unresolved'].values()))} | {len(r['half_renames'])} | {len(r['unreported'])} "
            f"| {after_fix(r, verdicts)} "
            f"| {ours:.2f} | {theirs if theirs is not None else '-'}{' (crashed)' if crashed else ''} |")
        totals.update(files=r["files"], findings=r["findings"], fixable=r["fixable"], changed=len(r["changed"]),
                      ours=ours, theirs=theirs or 0, human=verdicts["human"], noise=verdicts["noise"],
                      unjudged=verdicts["unjudged"])
    if totals["ours"]:
        lines.append(f"| **all** | {totals['files']} | {totals['findings']} ({totals['fixable']}) | "
                     f"{totals['changed']} | | {totals['human']} / {totals['noise']} / {totals['unjudged']} | | | | "
                     f"| {totals['ours']:.2f} | {totals['theirs']:.2f} |")
    lines.append("")
    lines.append("check after fix: the exit code of check on the fixed tree (2: a file it cannot read), (!) where "
                 "something left is noise or unjudged; ours s: check + fix of "
                 "the tree alone, fix using what check kept in the cache (`bench/run.py --trees` times all trees "
                 "in one run of each)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
