"""The file layer: which files a run covers, reading them as bytes, and
writing them back atomically (temporary file in the same folder, then rename,
mode kept, only when the bytes differ). No libcst, no TensorFlow here."""

from __future__ import annotations

import os
import stat
from pathlib import Path

SUFFIXES = (".py", ".ipynb")
# Folders never walked into (a folder named explicitly is still walked).
SKIPPED_DIRS = frozenset({"site-packages", "node_modules", "__pycache__", "dist-packages"})


class Excludes:
    def __init__(self, patterns: tuple[str, ...] = ()) -> None:
        self.patterns = patterns

    def matches(self, path: Path, root: Path) -> bool:
        """gitignore-like: a pattern matches the path relative to the root, or
        any of its parts (so `build` excludes every folder named build)."""
        import fnmatch

        try:
            relative = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        parts = relative.split("/")
        for pattern in self.patterns:
            pattern = pattern.rstrip("/")
            if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern + "/*"):
                return True
            if "/" not in pattern and any(fnmatch.fnmatchcase(part, pattern) for part in parts):
                return True
        return False


class FileError(Exception):
    """A path that cannot be read or written; the message names it."""


def _skipped_dir(path: Path) -> bool:
    name = path.name
    return (
        (name.startswith(".") and name not in (".", ".."))
        or name in SKIPPED_DIRS
        or (path / "pyvenv.cfg").exists()
    )


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except (ValueError, OSError):
        return False


def discover(paths: list[str], excludes: Excludes, force_exclude: bool = False) -> tuple[list[Path], list[str]]:
    """The files a run covers, in a stable order, and errors for paths that do
    not exist. Folders are walked (git's view of ignored files inside a git
    work tree); files named explicitly are taken whatever their suffix is,
    unless --force-exclude and an exclude matches."""
    found: dict[Path, None] = {}
    errors: list[str] = []
    cwd = Path.cwd()
    for raw in paths:
        path = Path(raw)
        if path.is_symlink() and not path.exists():
            errors.append(f"{raw}: broken symbolic link")
        elif path.is_dir():
            for file in _walk(path, excludes):
                found[file] = None
        elif path.exists() or path.is_symlink():
            if not (force_exclude and excludes.matches(path, cwd)):
                found[path] = None
        else:
            errors.append(f"{raw}: no such file or folder")
    return list(found), errors


def _walk(top: Path, excludes: Excludes) -> list[Path]:
    root = top.resolve()
    listed = _git_files(top)
    if listed is None:
        listed = []
        for folder, dirnames, filenames in os.walk(top):
            here = Path(folder)
            dirnames[:] = sorted(
                d for d in dirnames if not _skipped_dir(here / d) and not excludes.matches(here / d, top)
            )
            listed += [here / f for f in sorted(filenames)]
    files = []
    for path in listed:
        if path.suffix not in SUFFIXES or excludes.matches(path, top):
            continue
        if any(_skipped_dir(parent) for parent in _parents_below(path, top)):
            continue
        if path.is_symlink() and (not path.exists() or not _inside(path, root)):
            continue  # never follow a link out of the tree; a broken one has nothing to read
        files.append(path)
    return files


def _parents_below(path: Path, top: Path) -> list[Path]:
    parents = []
    parent = path.parent
    while parent != top and parent != parent.parent and len(parent.parts) > len(top.parts):
        parents.append(parent)
        parent = parent.parent
    return parents


def _git_files(top: Path) -> list[Path] | None:
    """Files git would not ignore below `top` (tracked and untracked), or None
    outside a git work tree or without git."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "."],
            cwd=top,
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    names = sorted({name for name in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if name})
    return [top / name for name in names if (top / name).exists() or (top / name).is_symlink()]


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise FileError(f"{path}: cannot read: {error.strerror or error}") from None


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one rename; keep its mode; no-op when
    equal. A file with no write bit is read-only for this tool, root or not."""
    import tempfile

    try:
        if path.read_bytes() == data:
            return
        mode = stat.S_IMODE(path.stat().st_mode)
        if not mode & 0o222 or not os.access(path, os.W_OK):  # no write bit: refused, even to root
            raise FileError(f"{path}: cannot write: the file is read-only")
        target = path.resolve()
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tfcompat", dir=target.parent)
    except OSError as error:
        raise FileError(f"{path}: cannot write: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise FileError(f"{path}: cannot write: {error.strerror or error}") from None
