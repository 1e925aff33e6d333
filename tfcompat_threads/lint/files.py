"""The file layer: which files a run covers, reading them as bytes, and
writing them back atomically (temporary file in the same folder, then rename,
mode kept, only when the bytes differ). No libcst, no TensorFlow here."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

SUFFIXES = (".py", ".ipynb")
# Folders never walked into (a folder named explicitly is still walked).
SKIPPED_DIRS = frozenset({"site-packages", "node_modules", "__pycache__", "dist-packages"})


class Excludes:
    """gitignore-like patterns. A pattern without `/` matches any part of a
    path (`build` excludes every folder named build); one with `/` matches the
    path relative to the folder walked (or to the current folder)."""

    def __init__(self, patterns: tuple[str, ...] = ()) -> None:
        self.patterns = tuple(p.rstrip("/") for p in patterns)
        self._names = frozenset(p for p in self.patterns if "/" not in p and not _wild(p))
        self._wild_names = tuple(p for p in self.patterns if "/" not in p and _wild(p))
        self._paths = tuple(p for p in self.patterns if "/" in p)

    def matches_relative(self, relative: str) -> bool:
        """`relative`: a POSIX path relative to the folder walked."""
        parts = relative.split("/")
        if self._names and not self._names.isdisjoint(parts):
            return True
        if self._wild_names or self._paths:
            import fnmatch

            if any(fnmatch.fnmatchcase(part, p) for p in self._wild_names for part in parts):
                return True
            return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase(relative, p + "/*")
                       for p in self._paths)
        return False

    def matches(self, path: Path, root: Path) -> bool:
        try:
            relative = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        return self.matches_relative(relative)


def _wild(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


class FileError(Exception):
    """A path that cannot be read or written; the message names it."""


def _skipped_dir(folder: str, name: str) -> bool:
    return (
        name.startswith(".")
        or name in SKIPPED_DIRS
        or os.path.exists(os.path.join(folder, name, "pyvenv.cfg"))
    )


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


def discover(paths: list[str], excludes: Excludes, force_exclude: bool = False) -> tuple[list[str], list[str]]:
    """The files a run covers, in a stable order, and errors for paths that do
    not exist. Folders are walked (git's view of ignored files inside a git
    work tree); files named explicitly are taken whatever their suffix is,
    unless --force-exclude and an exclude matches."""
    found: dict[str, None] = {}
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
                found[raw] = None
        else:
            errors.append(f"{raw}: no such file or folder")
    return list(found), errors


def _walk(top: Path, excludes: Excludes) -> list[str]:
    """Files below `top`: what git does not ignore inside a work tree, else
    a plain walk; either way without skipped folders, excluded paths, or
    links that lead out of the tree (or nowhere)."""
    root = os.path.realpath(top)
    listed = _git_files(top)
    if listed is None:
        listed = _os_walk(os.fspath(top), excludes)
    files = []
    for relative in listed:
        if not relative.endswith(SUFFIXES) or excludes.matches_relative(relative):
            continue
        path = os.path.join(top, relative)
        if os.path.islink(path) and not (os.path.exists(path) and _inside(path, root)):
            continue
        files.append(path)
    return files


def _os_walk(top: str, excludes: Excludes) -> list[str]:
    listed = []
    for folder, dirnames, filenames in os.walk(top):
        relative = os.path.relpath(folder, top)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        dirnames[:] = sorted(
            d for d in dirnames if not _skipped_dir(folder, d) and not excludes.matches_relative(prefix + d)
        )
        listed += [prefix + f for f in sorted(filenames)]
    return listed


def _git_files(top: Path) -> list[str] | None:
    """Paths (relative, POSIX) that git does not ignore below `top`, tracked
    or not, without those in skipped folders; None outside a git work tree."""
    if not _in_git_work_tree(os.path.realpath(top)):
        return None
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
    skipped: dict[str, bool] = {}

    def in_skipped_folder(name: str) -> bool:
        folder, _, _ = name.rpartition("/")
        if not folder:
            return False
        if folder not in skipped:
            parent, _, last = folder.rpartition("/")
            skipped[folder] = in_skipped_folder(folder) or _skipped_dir(os.path.join(top, parent), last)
        return skipped[folder]

    return [name for name in names if not in_skipped_folder(name)]


def _in_git_work_tree(folder: str) -> bool:
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise FileError(f"{path}: cannot read: {error.strerror or error}") from None


def read_stdin() -> bytes:
    try:
        return sys.stdin.buffer.read()
    except OSError as error:
        raise FileError(f"-: cannot read standard input: {error.strerror or error}") from None


def write_atomic(path: Path, data: bytes, expected: bytes | None = None) -> None:
    """Replace `path` with `data` in one rename; keep its mode; no-op when
    equal. A file with no write bit is read-only for this tool, root or not.
    With `expected` (the bytes that were read), a file that changed since is
    left as it now is, and reported."""
    import tempfile

    try:
        current = path.read_bytes()
        if current == data:
            return
        if expected is not None and current != expected:
            raise FileError(f"{path}: changed while it was being fixed; left as it now is")
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
