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
removed. `--no-cache` turns it off. A cache that cannot be read or written
is no cache: never an error.

The cache is never a way in (a repository, a tar file or a restored CI cache
can hold a folder that looks like it):
- an entry is data (JSON, every field checked on reading), never code;
- an entry is used only when this tool can prove it wrote it: it carries an
  HMAC-SHA256, under a secret key of the user's kept outside the cache
  (`$XDG_STATE_HOME/tfcompat-threads/key`, else
  `~/.local/state/tfcompat-threads/key`, made 0600 in a 0700 folder), of its
  bytes and of what it was made for (the file's path and digest, the
  settings, the build);
- a folder is this tool's only if this tool made it: made empty here, its
  CACHEDIR.TAG holds an HMAC of the folder's device, inode and path (a copy,
  a clone or an unpacked archive of it is another folder), it holds nothing
  but the tag and build folders, it is the user's and not writable by others.
  Anything else is never written to or pruned;
- a cache or key folder inside a tree being linted is never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import stat
import sys
from pathlib import Path

from ..codemod.project import Project, blake2b, digest

_FORMAT = 6
_UNUSED_FOR = 7 * 24 * 3600
_TAG = "CACHEDIR.TAG"  # https://bford.info/cachedir/: backup tools skip the folder
_TAG_TEXT = ("Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file is a cache directory tag created by tfcompat-threads.\n")
_BUILD = re.compile(r"[0-9a-f]{16}")
_KEY_BYTES = 32
_MAX_ENTRY = 256 * 1024 * 1024  # far above what a 2 MB module's findings take
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Cache:
    """The cache of one run: where, the key part all its files share, and the
    user's key. Small and picklable: the parsing processes get it with each file."""

    __slots__ = ("folder", "settings", "secret")

    def __init__(self, folder: str, settings: str, secret: bytes) -> None:
        self.folder = folder
        self.settings = settings
        self.secret = secret

    @staticmethod
    def open(settings, enabled: frozenset[str], trees=()) -> Cache | None:
        """The cache for a run with these settings over the paths `trees`, or
        None (off, or unusable)."""
        root = _root()
        if root is None:
            return None
        try:
            linted = [os.path.realpath(tree) for tree in trees]
            secret = _secret(linted)
            if secret is None or _inside(str(root), linted):
                return None
            build = blake2b(_build().encode(), digest_size=8).hexdigest()
            if not _ours(root, secret):
                return None
            folder = root / build
            folder.mkdir(mode=0o700, exist_ok=True)
            if not _private(folder):
                return None
            _prune(root, keep=build)
        except Exception:  # a broken install, a folder that cannot be made: no cache, never an error
            return None
        key = json.dumps([_FORMAT, build, *settings.cache_key(enabled)])
        return Cache(str(folder), key, secret)

    def memo(self, path: str) -> Memo | None:
        try:
            if path == "-" or not os.path.isfile(path):
                return None
            return Memo(self, os.path.realpath(path), Project.of(path))
        except Exception:  # no cache, never an error
            return None


class Memo:
    """The engine's view of the cache for one file (codemod/engine.py `memo`)."""

    wants_left = True
    """It keeps what fix will say it leaves (codemod/leftover.py)."""

    def __init__(self, cache: Cache, path: str, project) -> None:
        self.project = project
        self.path = path
        self.root = str(project.root) if project is not None else None
        self.cache = cache
        name = blake2b(cache.settings.encode() + b"\0" + os.fsencode(path), digest_size=16).hexdigest()
        self.entry = Path(cache.folder, name)
        self.log: list[tuple] = []

    def _seal(self, code: bytes, body: bytes) -> str:
        """The HMAC of an entry's bytes and of what it was made for."""
        made_for = json.dumps([self.cache.settings, self.path, self.root, digest(code)]).encode()
        return hmac.new(self.cache.secret, made_for + b"\0" + body, hashlib.sha256).hexdigest()

    def recall(self, code: bytes):
        """(findings, (edits, skipped) or None, leftover.Left or None) kept for exactly these bytes,
        when this tool wrote them and every question their analysis asked
        gets the same answer; else None."""
        try:
            with _regular(self.entry) as stream:
                data = stream.read(_MAX_ENTRY + 1)
            seal, _, body = data.partition(b"\n")
            if len(data) > _MAX_ENTRY or not hmac.compare_digest(seal, self._seal(code, body).encode()):
                return None
            log, findings, planned, left = _decoded(json.loads(body))
            if log and (self.project is None or not self.project.answers(log)):
                return None
            return findings, planned, left
        except Exception:  # a missing, partial, foreign or forged entry is a miss
            return None

    @contextlib.contextmanager
    def recording(self):
        """Note what the analysis asks the repository (see `keep`)."""
        if self.project is None:
            yield
            return
        with self.project.recording() as log:
            yield
        self.log = log.flat()

    def keep(self, code: bytes, findings, planned, left=None) -> None:
        """Keep the first round (before anything changes the findings), and
        the uses of TF1-only names outside session config (`left`)."""
        temporary = self.entry.with_name(f"{self.entry.name}.{os.getpid()}.tmp")
        try:
            body = json.dumps(_encoded(self.log, findings, planned, left), separators=(",", ":")).encode()
            try:
                os.unlink(temporary)  # one a killed run left (or anything else there: never followed)
            except FileNotFoundError:
                pass
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
            with open(fd, "wb") as stream:
                stream.write(self._seal(code, body).encode() + b"\n" + body)
            os.replace(temporary, self.entry)
        except Exception:  # a full disk or a read-only folder: no cache, no error
            try:
                os.unlink(temporary)
            except OSError:
                pass


# -- an entry: data, checked field by field -------------------------------------------


# The kinds of edit an entry may hold: the module that defines each (imported
# only when an entry holds one: codemod.context costs 50 ms) and its fields' types.
_EDITS = {"Edit": ("findings", (int, int, str)), "StatementEdit": ("context", (int, int, str, "block", bool, str)),
          "EnsureImport": ("findings", (str, (str, None))), "MoveImport": ("findings", (int, str))}
_CLASSES: dict[str, type] = {}


def _encoded(log, findings, planned, left) -> list:
    def edit(value):
        return [type(value).__name__, *value]

    def fix(value):
        if value is None:
            return None
        return [value.applicability.value, value.message, [edit(e) for e in value.edits], value.blocked_by]

    found = [[f.code, f.message, list(f.start), list(f.end), fix(f.fix), f.help, f.key,
              None if f.cover is None else [list(f.cover.keys), f.cover.when], f.severity,
              [list(p) for p in f.places], f.fixed, f.cell, f.noqa_row]
             for f in findings]
    if planned is not None:
        edits, skipped = planned
        planned = [[edit(e) for e in edits], [next(i for i, f in enumerate(findings) if f is s) for s in skipped]]
    if left is not None:
        left = [[list(use) for use in left.uses], [list(span) for span in left.guards],
                [list(header) for header in left.headers], sorted(left.imported), left.named]
    return [[list(entry) for entry in log], found, planned, left]


def _decoded(data):
    """(log, findings, planned, left) of an entry's JSON; TypeError or ValueError
    for anything not of the shape `_encoded` gives."""
    from ..codemod.findings import ERROR, WARNING, Applicability, Cover, Finding, Fix, Place, Position

    def need(ok: bool) -> None:
        if not ok:
            raise TypeError("not an entry of this tool")

    def fits(value, kind) -> bool:
        if kind is None:
            return value is None
        if type(kind) is tuple:
            return any(fits(value, k) for k in kind)
        if kind is int:
            return type(value) is int
        if kind == "block":
            return (type(value) is list and len(value) == 3 and type(value[0]) is int and type(value[1]) is str
                    and type(value[2]) is int)
        return type(value) is kind

    def edit(value):
        need(type(value) is list and value and value[0] in _EDITS)
        module, kinds = _EDITS[value[0]]
        cls = _CLASSES.get(value[0])
        if cls is None:
            import importlib

            cls = _CLASSES[value[0]] = getattr(importlib.import_module(f"..codemod.{module}", __package__), value[0])
        fields = value[1:]
        need(len(fields) == len(kinds) and all(fits(v, k) for v, k in zip(fields, kinds)))
        return cls(*(tuple(v) if k == "block" else v for v, k in zip(fields, kinds)))

    def position(value):
        need(type(value) is list and len(value) == 2 and all(type(v) is int for v in value))
        return Position(*value)

    def fix(value):
        if value is None:
            return None
        need(type(value) is list and len(value) == 4 and type(value[2]) is list
             and fits(value[1], str) and fits(value[3], str))
        return Fix(Applicability(value[0]), value[1], [edit(e) for e in value[2]], value[3])

    def cover(value):
        if value is None:
            return None
        need(type(value) is list and len(value) == 2 and type(value[0]) is list
             and all(type(k) is str for k in value[0]) and type(value[1]) is str)
        return Cover(tuple(value[0]), value[1])

    def finding(value):
        need(type(value) is list and len(value) == 13)
        code, message, start, end, fix_, help_, key, cover_, severity, places, fixed, cell, noqa_row = value
        need(type(places) is list and all(type(p) is list and len(p) == 2 and fits(p[0], str) and fits(p[1], int)
                                          for p in places))
        need(fits(code, str) and severity in (ERROR, WARNING) and fits(message, str) and fits(help_, str)
             and fits(key, (str, None))
             and fits(fixed, bool) and fits(cell, (int, None)) and fits(noqa_row, int))
        made = Finding(code, message, position(start), position(end), fix(fix_), help_, key, cover(cover_), severity,
                       tuple(Place(path, line) for path, line in places))
        made.fixed, made.cell, made.noqa_row = fixed, cell, noqa_row
        return made

    def answer(value):
        return tuple(answer(v) for v in value) if type(value) is list else value

    need(type(data) is list and len(data) == 4 and type(data[0]) is list and type(data[1]) is list)
    log = [answer(entry) for entry in data[0]]
    need(all(type(entry) is tuple and entry and type(entry[0]) is str for entry in log))
    findings = [finding(f) for f in data[1]]
    planned = data[2]
    if planned is not None:
        need(type(planned) is list and len(planned) == 2 and type(planned[0]) is list and type(planned[1]) is list
             and all(type(i) is int and 0 <= i < len(findings) for i in planned[1]))
        planned = ([edit(e) for e in planned[0]], [findings[i] for i in planned[1]])
    return log, findings, planned, _left(data[3], need)


def _left(value, need):
    """An entry's codemod.leftover.Left, checked field by field."""
    if value is None:
        return None
    from ..codemod.leftover import Left

    need(type(value) is list and len(value) == 5 and type(value[4]) is bool
         and all(type(v) is list for v in value[:4]))
    uses, guards, headers, imported, named = value
    need(all(type(u) is list and len(u) == 3 and type(u[0]) is int and type(u[1]) is int and type(u[2]) is str
             for u in uses))
    need(all(type(g) is list and len(g) == 2 and all(type(i) is int for i in g) for g in guards))
    need(all(type(h) is list and len(h) == 3 and all(type(i) is int for i in h) for h in headers))
    need(all(type(name) is str for name in imported))
    return Left(tuple(map(tuple, uses)), tuple(map(tuple, guards)), tuple(map(tuple, headers)), frozenset(imported),
                named)


# -- the folders: the user's key, and the cache's own folder -------------------------------


def _regular(path: Path):
    """A regular file opened for reading; ValueError for anything else (a
    FIFO put there is opened without blocking, and not read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path} is not a regular file")
    return open(fd, "rb")


def _inside(folder: str, trees: list[str]) -> bool:
    """`folder` is one of `trees` or below one."""
    return any(folder == tree or folder.startswith(tree.rstrip(os.sep) + os.sep) for tree in trees)


def _secret(linted: list[str]) -> bytes | None:
    """The user's key (made on first use), or None when it cannot be had
    safely: its folder the user's alone, the key a regular file of theirs
    that only they can read, of the right size, outside the linted trees."""
    base = os.environ.get("XDG_STATE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    folder = Path(os.path.realpath(os.path.join(base, "tfcompat-threads")))
    if _inside(str(folder), linted):
        return None
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(folder, 0o077):
        return None
    path = folder / "key"
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        _make_key(path)
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as stream:
        status = os.fstat(fd)
        if (not stat.S_ISREG(status.st_mode) or status.st_mode & 0o077 or status.st_size != _KEY_BYTES
                or (hasattr(os, "getuid") and status.st_uid != os.getuid())):
            return None
        secret = stream.read(_KEY_BYTES + 1)
    return secret if len(secret) == _KEY_BYTES else None


def _make_key(path: Path) -> None:
    """A new random key, written whole before it is linked into place (two
    runs at once: the first link wins, the other reads it)."""
    import secrets

    temporary = path.with_name(f"key.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        with open(fd, "wb") as stream:
            stream.write(secrets.token_bytes(_KEY_BYTES))
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


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


def _proof(root: Path, secret: bytes) -> bytes:
    """The tag of the folder `root`: the CACHEDIR.TAG text and an HMAC of
    this very folder (device, inode, path), which only this tool can make."""
    status = root.lstat()
    made_for = f"folder\0{status.st_dev}\0{status.st_ino}\0".encode() + os.fsencode(str(root))
    return (_TAG_TEXT + f"# {hmac.new(secret, made_for, hashlib.sha256).hexdigest()}\n").encode()


def _ours(root: Path, secret: bytes) -> bool:
    """The folder is this tool's cache (made here, empty, if missing; its tag
    proves this tool made it there), holds only the tag and build folders,
    and is the user's own and not writable by others."""
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not _private(root):
        return False
    tag = root / _TAG
    proof = _proof(root, secret)
    names = os.listdir(root)
    if _TAG not in names:
        if names:  # a folder with other things in it: not ours to fill or prune
            return False
        fd = os.open(tag, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
        with open(fd, "wb") as stream:
            stream.write(proof)
        return True
    try:
        with _regular(tag) as stream:
            if not hmac.compare_digest(stream.read(len(proof) + 1), proof):
                return False
    except (OSError, ValueError):
        return False
    with os.scandir(root) as entries:
        return all(entry.name == _TAG or (_BUILD.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False))
                   for entry in entries)


def _private(folder: Path, others: int = 0o022) -> bool:
    status = folder.lstat()
    mine = not hasattr(os, "getuid") or status.st_uid == os.getuid()
    return stat.S_ISDIR(status.st_mode) and mine and not status.st_mode & others


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
    """Remove the folders of other builds left unused for a week (the folder
    is ours, `_ours`: it holds nothing else)."""
    import shutil
    import time

    now = time.time()
    for entry in os.scandir(root):
        if entry.name != keep and _BUILD.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
            if now - entry.stat(follow_symlinks=False).st_mtime > _UNUSED_FOR:
                shutil.rmtree(entry.path, ignore_errors=True)
