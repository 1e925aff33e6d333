"""tfcompat-threads and tf_upgrade_v2 over the same real source trees.

    python bench/real_repos.py TREE [TREE ...]

For each tree (a checkout of a TF1-era project; copy what you like, nothing
here downloads): the .py and .ipynb files, the findings of `check`, the
files `fix` changes, its seconds and errors (files it could not read or
parse; a crash would be an "internal error"), and the same for
`tf_upgrade_v2 --intree` (seconds, files it changed, files it failed to
parse, whether it crashed: it stops at the first file its parser (pasta)
cannot annotate). `fix` and tf_upgrade_v2 work on copies; the trees are not
touched.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
TOOL = [str(BIN / "tfcompat-threads")]


def sources(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.suffix in (".py", ".ipynb") and p.is_file())


def changed(before: Path, after: Path) -> int:
    count = 0
    for path in sources(before):
        other = after / path.relative_to(before)
        count += other.exists() and other.read_bytes() != path.read_bytes()
    return count


def ours(tree: Path, work: Path) -> dict:
    check = subprocess.run([*TOOL, "check", "-q", "--output-format", "json", str(tree)], capture_output=True,
                           text=True)
    findings = json.loads(check.stdout or "[]")
    copy = work / "ours"
    shutil.copytree(tree, copy)
    start = time.perf_counter()
    fix = subprocess.run([*TOOL, "fix", "-q", str(copy)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    errors = [line for line in fix.stderr.splitlines() if line.startswith("error:")]
    return {
        "findings": len(findings),
        "by_code": {code: sum(f["code"] == code for f in findings) for code in sorted({f["code"] for f in findings})},
        "fixed_files": changed(tree, copy),
        "seconds": round(seconds, 2),
        "errors": len(errors),
        "crashes": sum("internal error" in line for line in errors),
        "error_lines": errors[:5],
    }


def theirs(tree: Path, work: Path) -> dict:
    upgrade = BIN / "tf_upgrade_v2"
    if not upgrade.exists():
        return {"skipped": "tf_upgrade_v2 not installed"}
    out = work / "upgraded"
    report = work / "report.txt"
    start = time.perf_counter()
    proc = subprocess.run([str(upgrade), "--intree", str(tree), "--outtree", str(out), "--reportfile", str(report)],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    text = report.read_text(errors="replace") if report.exists() else ""
    failed = sum("Failed to parse" in line for line in text.splitlines())
    crash = None
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if re.match(r"^[\w.]+(Error|Exception)\b", line)]
        crash = errors[-1] if errors else f"exit {proc.returncode}"
    return {
        "seconds": round(seconds, 2),
        "changed_files": changed(tree, out) if out.exists() else 0,
        "failed_to_parse": failed,
        "exit_code": proc.returncode,
        "crashed": crash,
    }


def _short(crash: str | None) -> str:
    if not crash:
        return "no"
    return "yes: " + crash.split(":")[0].rsplit(".", 1)[-1]  # the exception's class


def main(trees: list[str]) -> int:
    rows = []
    for name in trees:
        tree = Path(name)
        with tempfile.TemporaryDirectory(prefix="tfcompat-real-") as tmp:
            work = Path(tmp)
            row = {"tree": tree.name, "files": len(sources(tree)), "ours": ours(tree, work),
                   "tf_upgrade_v2": theirs(tree, work)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| tree | .py/.ipynb files | findings | fix: files changed | fix: s | fix: errors (crashes) "
          "| tf_upgrade_v2: s | files changed | failed to parse | crashed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        o, t = row["ours"], row["tf_upgrade_v2"]
        print(f"| {row['tree']} | {row['files']} | {o['findings']} | {o['fixed_files']} | {o['seconds']} | "
              f"{o['errors']} ({o['crashes']}) | {t.get('seconds', '-')} | {t.get('changed_files', '-')} | "
              f"{t.get('failed_to_parse', '-')} | {_short(t.get('crashed'))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
