"""Do two versions of tfcompat-threads say and fix the same on real code?

    python bench/same_output.py OLD NEW --trees DIR [DIR ...]

OLD and NEW are git revisions of this repository (a commit, a branch, or
WORKTREE for the checkout as it is). Each is checked out in a temporary
folder and run, with this Python, as `check --no-cache --output-format json`
and `diff --no-cache` over each tree (one run per tree, from inside it, as a
user runs it). What may differ between versions without changing a finding
or a fix is taken out: each finding's documentation `url`, the time in a
summary line, and the summary's wording. Prints, per tree, whether the two
versions gave the same findings and the same diff, and what `fix --no-cache`
prints over a copy of the tree (the files fixed, the TF1-only names each
still uses), and exits 1 if any tree differs (the first differing lines are
shown).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^(\d+) files? checked(?: for session and thread config)?,")


def checkout(revision: str, work: Path) -> Path:
    if revision == "WORKTREE":
        return ROOT
    folder = work / revision.replace("/", "_")
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(folder), revision], check=True)
    return folder


def outputs(code: Path, tree: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, "-m", "tfcompat_threads"]
    check = subprocess.run([*command, "check", "--no-cache", "--output-format", "json", "."], cwd=tree, env=env,
                           capture_output=True, text=True)
    try:
        findings = json.loads(check.stdout)
        for finding in findings:
            finding.pop("url", None)
        said = json.dumps(findings, indent=1, sort_keys=True)
    except ValueError:
        said = check.stdout
    diff = subprocess.run([*command, "diff", "--no-cache", "."], cwd=tree, env=env, capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as work:
        copy = Path(work) / tree.name
        shutil.copytree(tree, copy, symlinks=True)
        fix = subprocess.run([*command, "fix", "--no-cache", "."], cwd=copy, env=env, capture_output=True, text=True)
    lines = [SUMMARY.sub(r"\1 files checked,", re.sub(r"; [0-9.]+ s$", "", line))
             for line in (said + "\n" + check.stderr + diff.stdout + diff.stderr + fix.stdout + fix.stderr).splitlines()]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--trees", nargs="+", type=Path, required=True,
                        help="each a checkout (of bench/real_repos.tsv ...): DIR/* for a folder of them")
    args = parser.parse_args()
    trees = [tree for tree in args.trees if tree.is_dir()]
    with tempfile.TemporaryDirectory() as work:
        old, new = checkout(args.old, Path(work)), checkout(args.new, Path(work))
        try:
            differing = 0
            for tree in trees:
                before, after = outputs(old, tree), outputs(new, tree)
                same = before == after
                differing += not same
                findings = before.count('"code": ')
                print(f"{tree.name}: {'same' if same else 'DIFFERENT'} ({findings} findings)")
                if not same:
                    sys.stdout.writelines(list(difflib.unified_diff(
                        before.splitlines(True), after.splitlines(True), args.old, args.new, n=1))[:40])
            print(f"{len(trees) - differing} of {len(trees)} trees: the same findings and the same diff")
            return 1 if differing else 0
        finally:
            for folder in (old, new):
                if folder != ROOT:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
                                   check=False)


if __name__ == "__main__":
    sys.exit(main())
