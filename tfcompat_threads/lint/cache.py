"""What `check` found in a file, kept for the next `check`, `diff` or `fix`.

A migration runs `check`, then `diff`, then `fix`, then `check` again over
the same repository; each would read, parse and analyse every file that
mentions a session again. The first keeps, per file and settings, the first
round of the engine: the findings and, where some are fixable, the edits
that fix them. A later run uses them only when nothing they came from has
changed:
- the file's bytes (the module's, for a notebook),
- this tool's code, Python's version and libcst's,
- the settings that decide findings (target, tf-version, rules, unsafe fixes),
- and every answer the repository gave the analysis: the bytes of each
  other module it read, which modules exist, which files mention a name
  (`Project.recording`). These are asked again, and must be the same.

One file per source file and settings, in `$TFCOMPAT_THREADS_CACHE_DIR`, else
`$XDG_CACHE_HOME/tfcompat-threads`, else `~/.cache/tfcompat-threads`; a
folder per build of this tool, the folders of builds unused for a week
removed. `--no-cache` turns it off. The folder is used only when it is
this tool's: made empty by it and marked with a CACHEDIR.TAG of its own
(a folder with other things in it, such as a repository or a home folder, is
never written to or pruned), the user's own, and not writable by others (its
entries are unpickled). A cache that cannot be read or written is no cache:
never an error.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import stat
import sys
from pathlib import Path

from ..codemod.project import Project, blake2b, digest

_FORMAT = 2
_UNUSED_FOR = 7 * 24 * 3600
_TAG = "CACHEDIR.TAG"  # https://bford.info/cachedir/: backup tools skip the folder
_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file is a cache directory tag created by tfcompat-threads.\n")
_BUILD = re.compile(r"[0-9a-f]{16}")


class Cache:
    """The cache of one run: where, and the key part all its files share.
    Small and picklable: the parsing processes get it with each file."""

    __slots__ = ("folder", "settings")

    def __init__(self, folder: str, settings: str) -> None:
        self.folder = folder
        self.settings = settings

    @staticmethod
    def open(settings, enabled: frozenset[str]) -> Cache | None:
        """The cache for a run with these settings, or None (off, or unusable)."""
        root = _root()
        if root is None:
            return None
        try:
            build = blake2b(_build().encode(), digest_size=8).hexdigest()
            if not _ours(root):
                return None
            folder = root / build
            folder.mkdir(mode=0o700, exist_ok=True)
            if not _private(folder):
                return None
            _prune(root, keep=build)
        except Exception:  # a broken install, a folder that cannot be made: no cache, never an error
            return None
        key = repr((_FORMAT, settings.target, settings.tf_version, settings.unsafe_fixes, sorted(enabled)))
        return Cache(str(folder), key)

    def memo(self, path: str) -> Memo | None:
        try:
            if path == "-" or not os.path.isfile(path):
                return None
            return Memo(self, os.path.realpath(path), Project.of(path))
        except Exception:  # no cache, never an error
            return None


class Memo:
    """The engine's view of the cache for one file (codemod/engine.py `memo`)."""

    def __init__(self, cache: Cache, path: str, project) -> None:
        self.project = project
        self.path = path
        self.root = str(project.root) if project is not None else None
        name = blake2b(cache.settings.encode() + b"\0" + os.fsencode(path), digest_size=16).hexdigest()
        self.entry = Path(cache.folder, name)
        self.log: list[tuple] = []

    def recall(self, code: bytes):
        """(findings, (edits, skipped) or None) kept for exactly these bytes,
        when every question its analysis asked gets the same answer; else None."""
        try:
            with _regular(self.entry) as stream:
                kept_for, path, root, log, payload = pickle.load(stream)
            if (kept_for, path, root) != (digest(code), self.path, self.root):
                return None
            if log and (self.project is None or not self.project.answers(log)):
                return None
            return _checked(pickle.loads(payload))
        except Exception:  # a missing, partial or foreign entry is a miss
            return None

    @contextlib.contextmanager
    def recording(self):
        """Note what the analysis asks the repository (see `keep`)."""
        if self.project is None:
            yield
            return
        with self.project.recording() as log:
            yield
        self.log = list(dict.fromkeys(log))

    def keep(self, code: bytes, findings, planned) -> None:
        """Keep the first round (before anything changes the findings)."""
        temporary = self.entry.with_name(f"{self.entry.name}.{os.getpid()}.tmp")
        try:
            payload = pickle.dumps((findings, planned), protocol=pickle.HIGHEST_PROTOCOL)
            entry = (digest(code), self.path, self.root, self.log, payload)
            try:
                os.unlink(temporary)  # one a killed run left (or anything else there: never followed)
            except FileNotFoundError:
                pass
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with open(fd, "wb") as stream:
                pickle.dump(entry, stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self.entry)
        except Exception:  # a full disk or a read-only folder: no cache, no error
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _regular(path: Path):
    """A regular file opened for reading; ValueError for anything else (a
    FIFO put there is opened without blocking, and not read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path} is not a regular file")
    return open(fd, "rb")


def _checked(kept):
    """What an entry holds, when it has the shape `keep` gives it."""
    from ..codemod.findings import Finding

    findings, planned = kept
    if not (type(findings) is list and all(type(f) is Finding for f in findings)):
        raise TypeError("not findings")
    if planned is not None and not (type(planned) is tuple and len(planned) == 2
                                    and all(type(part) is list for part in planned)
                                    and all(any(s is f for f in findings) for s in planned[1])):
        raise TypeError("not a plan")
    return findings, planned


def _root() -> Path | None:
    """The cache's folder, links followed (the folder they lead to is the one
    that must be private)."""
    folder = os.environ.get("TFCOMPAT_THREADS_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        if not os.path.isabs(base):
            return None
        folder = os.path.join(base, "tfcompat-threads")
    return Path(os.path.realpath(folder))


def _ours(root: Path) -> bool:
    """The folder is this tool's cache (made here, empty, if missing), the
    user's own and not writable by others."""
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(root):
        return False
    tag = root / _TAG
    try:
        with _regular(tag) as stream:
            return stream.read(len(_TAG_TEXT)) == _TAG_TEXT.encode()
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        return False
    if os.listdir(root):  # a folder with other things in it: not ours to fill or prune
        return False
    with open(tag, "x", encoding="ascii") as stream:
        stream.write(_TAG_TEXT)
    return True


def _private(folder: Path) -> bool:
    status = folder.lstat()
    mine = not hasattr(os, "getuid") or status.st_uid == os.getuid()
    return stat.S_ISDIR(status.st_mode) and mine and not status.st_mode & 0o022


def _build() -> str:
    """This tool's code (names, sizes and times of its modules), Python's
    version and libcst's: a change of any gives another folder."""
    import importlib.util

    package = Path(__file__).resolve().parent.parent
    parts = [sys.version]
    for module in sorted(package.rglob("*.py")):
        status = module.stat()
        parts.append(f"{module.relative_to(package)}:{status.st_size}:{status.st_mtime_ns}")
    spec = importlib.util.find_spec("libcst")
    if spec is not None and spec.origin:
        try:
            parts.append(Path(spec.origin).with_name("_version.py").read_text())
        except OSError:
            parts.append(spec.origin)
    return "\n".join(parts)


def _prune(root: Path, keep: str) -> None:
    """Remove the folders of other builds left unused for a week (only
    folders named as builds are: 16 hexadecimal digits)."""
    import shutil
    import time

    now = time.time()
    for entry in os.scandir(root):
        if entry.name != keep and _BUILD.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
            if now - entry.stat(follow_symlinks=False).st_mtime > _UNUSED_FOR:
                shutil.rmtree(entry.path, ignore_errors=True)
