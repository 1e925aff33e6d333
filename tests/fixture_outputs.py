"""Write or check the expected outputs of every fixture folder.

    python -m tests.fixture_outputs          # show what differs
    python -m tests.fixture_outputs --write  # write it (then review the diff!)

Each folder of fixtures/ holds input.py, note.txt (the code shape and why),
native.py and shim.py (the expected outputs), native_unsafe.py where
--unsafe-fixes gives more, findings.txt (target, code, line:column, fixed or
open) and, for programs that run on TF2, run.json (the pools the legacy
program asked for).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from tfcompat_threads.codemod import TARGETS, transform

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def folders() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if (p / "input.py").exists())


def expected_files(folder: Path) -> dict[str, bytes]:
    source = (folder / "input.py").read_bytes()
    files: dict[str, bytes] = {}
    lines = []
    for target in TARGETS:
        result = transform(source, target, filename=str(folder / "input.py"))
        files[f"{target}.py"] = result.source
        lines += [
            f"{target} {f.code} {f.start.line}:{f.start.column} {'fixed' if f.fixed else 'open'}"
            for f in result.findings
        ]
    unsafe = transform(source, "native", unsafe_fixes=True).source
    if unsafe != files["native.py"]:
        files["native_unsafe.py"] = unsafe
    files["findings.txt"] = ("\n".join(lines) + "\n").encode() if lines else b""
    return files


def main(argv: list[str]) -> int:
    write = "--write" in argv
    differ = 0
    for folder in folders():
        for name, content in expected_files(folder).items():
            path = folder / name
            old = path.read_bytes() if path.exists() else None
            if old == content:
                continue
            differ += 1
            if write:
                path.write_bytes(content)
            print(f"{'wrote' if write else 'differs'}: {path.relative_to(FIXTURES.parent)}")
            if not write and old is not None:
                sys.stdout.writelines(
                    difflib.unified_diff(
                        old.decode("utf-8", "replace").splitlines(True),
                        content.decode("utf-8", "replace").splitlines(True),
                    )
                )
    return 1 if differ and not write else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
