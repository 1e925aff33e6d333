"""The file layer: which files a run covers, reading them as bytes, and
writing them back atomically. No libcst, no TensorFlow here.

- Only regular files are read: a FIFO, a device, a socket or a folder given
  where a file is expected is reported and skipped, without being opened (a
  stat first, and an fstat after the open against a swap in between).
- Reading is bounded: a file above MAX_FILE_BYTES (10 MiB) is reported and
  left alone, never read into memory.
- A write replaces the file in one rename (temporary file in the same folder),
  keeps mode, owner and group, happens only when the bytes differ, and only if
  the file still holds the bytes that were read (compared right before the
  rename; otherwise it is reported and left as it now is), and only to the
  file that was read (same device and inode). SIGINT, SIGTERM and SIGHUP are
  held back while a write is under way, so that it ends wholly done or not
  done, never with a temporary file left behind.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from contextlib import contextmanager

SUFFIXES = (".py", ".ipynb")
# Folders never walked into (a folder named explicitly is still walked).
SKIPPED_DIRS = frozenset({"site-packages", "node_modules", "__pycache__", "dist-packages"})
MAX_FILE_BYTES = 10 * 1024 * 1024
"""The size limit (10 MiB): a bigger file is reported (exit 2) and left unchanged."""


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

    def matches(self, path: str, root: str) -> bool:
        real, top = os.path.realpath(path), os.path.realpath(root)
        if real == top:
            relative = "."
        elif real.startswith(top.rstrip(os.sep) + os.sep):
            relative = real[len(top.rstrip(os.sep)) + 1:]
        else:
            relative = clean(path)
        return self.matches_relative(relative.replace(os.sep, "/"))


def clean(raw: str) -> str:
    """`raw` as pathlib spells it (the names runs show): without `.` parts,
    doubled or trailing slashes."""
    head = "/" if raw.startswith("/") else ""
    return head + "/".join(part for part in raw.split("/") if part and part != ".") or "."


def _wild(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


class FileError(Exception):
    """A path that cannot be read or written; the message names it."""


def _skipped_dir(path: str, name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRS or os.path.exists(path + "/pyvenv.cfg")


def _inside(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


def discover(paths: list[str], excludes: Excludes, force_exclude: bool = False) -> tuple[list[str], list[str]]:
    """The files a run covers, in a stable order, and errors (one line each)
    for paths that do not exist, links that lead nowhere or loop. Folders are
    walked (git's view of ignored files inside a git work tree, and inside
    each git repository or submodule below); files named explicitly are taken
    whatever their suffix or kind is (reading reports what is not a regular
    file), unless --force-exclude and an exclude matches."""
    found: dict[str, None] = {}
    errors: list[str] = []
    cwd = os.getcwd()
    for raw in paths:
        try:
            info = os.stat(raw)
        except OSError as error:
            errors.append(_missing(raw, error))
            continue
        if stat.S_ISDIR(info.st_mode):
            for file in _walk(clean(raw), excludes, errors):
                found[file] = None
        elif not (force_exclude and excludes.matches(raw, cwd)):
            found[raw] = None
    return list(found), errors


def _missing(raw: str, error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return f"{raw}: symbolic link loop"
    if os.path.islink(raw):
        return f"{raw}: broken symbolic link"
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return f"{raw}: no such file or folder"
    return f"{raw}: cannot read: {error.strerror or error}"


class RegularFile(str):
    """A path the plain walk saw, in its folder's entry, to be a regular file
    (not a link): reading it needs no stat before the open (the open's fstat
    still checks it)."""

    __slots__ = ()


def _walk(top: str, excludes: Excludes, errors: list[str]) -> list[str]:
    """Files below `top`: what git does not ignore inside a work tree, else
    a plain walk; either way without skipped folders, excluded paths, or
    links that lead out of the tree (or nowhere, or round in a loop). A
    folder the plain walk cannot list is an error (one line, in `errors`)."""
    root = os.path.realpath(top)
    kinds: dict[str, str] | None = {}  # what the plain walk saw each file to be; None: ask each file
    listed = _git_files(top, excludes)
    if listed is None:
        listed = _os_walk(top, excludes, kinds, errors)
    else:
        kinds = None
    files = []
    head = top if top.endswith("/") else top + "/"  # os.path.join, without its cost per file
    for relative in listed:
        if not relative.endswith(SUFFIXES) or excludes.matches_relative(relative):
            continue
        path = head + relative
        kind = kinds.get(relative) if kinds is not None else "link" if os.path.islink(path) else None
        if kind == "link" and not (os.path.exists(path) and _inside(path, root)):
            continue
        files.append(RegularFile(path) if kind == "file" else path)
    return files


def _os_walk(top: str, excludes: Excludes, kinds: dict[str, str], errors: list[str] | None = None) -> list[str]:
    """A plain walk, in sorted order, without following links to folders and
    iterative however deep the tree is. A folder below `top` that holds
    `pyvenv.cfg` (a virtual environment) is skipped, one that holds `.git` (a
    file for submodules and worktrees) is listed as its git sees it. Each
    file's kind as its folder entry says, "file" or "link", goes into `kinds`
    (no stat per file). A folder that cannot be listed (no read permission)
    goes into `errors`, when given; one gone meanwhile is passed by."""
    listed = []
    stack = [(top, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as found:
                entries = sorted(found, key=lambda entry: entry.name)
        except FileNotFoundError:  # gone meanwhile
            continue
        except OSError as error:
            if errors is not None:
                errors.append(f"{folder}: cannot list this folder: {error.strerror or error}; its files are not checked")
            continue
        if prefix:
            names = {entry.name for entry in entries}
            if "pyvenv.cfg" in names:
                continue
            if ".git" in names:
                inner = _git_files(folder, excludes, prefix)
                if inner is not None:  # else git refused it: walked as a plain folder
                    listed += [prefix + name for name in inner]
                    continue
        subfolders = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not (entry.is_symlink() or name.startswith(".") or name in SKIPPED_DIRS
                        or excludes.matches_relative(prefix + name)):
                    subfolders.append((f"{folder}/{name}", f"{prefix}{name}/"))
                continue
            listed.append(prefix + name)
            if entry.is_symlink():
                kinds[prefix + name] = "link"
            elif entry.is_file(follow_symlinks=False):
                kinds[prefix + name] = "file"
        stack += reversed(subfolders)
    return listed


def _is_repository(folder: str) -> bool:
    """A git work tree's top: `.git` is a folder, or a file (submodules, worktrees)."""
    return os.path.lexists(os.path.join(folder, ".git"))


def _git_files(top: str, excludes: Excludes, prefix: str = "") -> list[str] | None:
    """Paths (relative, POSIX) that git does not ignore below `top`, tracked
    or not, without those in skipped folders; None outside a git work tree.
    Nested repositories and submodules (which `git ls-files` shows as one
    entry) are listed the same way, each by its own git. `prefix`: where
    `top` is in the folder walked, for the excludes."""
    if not _in_git_work_tree(os.path.realpath(top)):
        return None
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "."],
            check=False,
            cwd=top,
            stdin=subprocess.DEVNULL,
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
            last = folder.rpartition("/")[2]
            skipped[folder] = in_skipped_folder(folder) or _skipped_dir(os.path.join(top, folder), last)
        return skipped[folder]

    listed = []
    for name in names:
        if in_skipped_folder(name):
            continue
        # An untracked repository is one entry `name/`; a submodule, one entry
        # `name` (a file suffix on a folder is rare: such names are not stat'ed).
        if name.endswith("/") or not name.endswith(SUFFIXES):
            folder = name.rstrip("/")
            path = os.path.join(top, folder)
            if os.path.isdir(path) and not os.path.islink(path):
                if not (in_skipped_folder(folder + "/") or excludes.matches_relative(prefix + folder)):
                    inner = None
                    if _is_repository(path):
                        inner = _git_files(path, excludes, prefix + folder + "/")
                    if inner is None:  # git refused it (an unpopulated submodule, ownership): a plain walk
                        inner = _os_walk(path, excludes, {})  # its links are looked at one by one
                    listed += [folder + "/" + f for f in inner]
                continue
        listed.append(name)
    return sorted(listed)


def _in_git_work_tree(folder: str) -> bool:
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


# -- reading -------------------------------------------------------------------------


class SourceBytes(bytes):
    """The bytes of a file, and which file they came from: `identity` is its
    (device, inode), for write_atomic to check that it writes the file that
    was read. Plain bytes otherwise (the identity survives pickling)."""

    identity: tuple[int, int] | None = None


class _Refused(Exception):
    """Not read: not a regular file, or too big. The message says why."""


_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISLNK, "a symbolic link"),
)
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def _check_regular(info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = next((kind for test, kind in _KINDS if test(info.st_mode)), "a special file")
        raise _Refused(f"{kind}, not a regular file; skipped")
    if info.st_size > MAX_FILE_BYTES:
        raise _too_big(info.st_size)


def _too_big(size: int) -> _Refused:
    return _Refused(f"{size} bytes, above the size limit of {MAX_FILE_BYTES} bytes "
                    f"({MAX_FILE_BYTES // (1024 * 1024)} MiB); left unchanged")


def _read_regular(path: str, follow: bool = True, dir_fd: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file, at most MAX_FILE_BYTES. Looked at before it
    is opened (opening a FIFO blocks, opening a device may act; a RegularFile
    was looked at by the walk), and again once open (it may have been swapped
    in between). `follow=False`: a link is refused (O_NOFOLLOW). `dir_fd`:
    `path` is a name in that open folder. _Refused or OSError when it cannot
    be read."""
    if not isinstance(path, RegularFile):
        _check_regular(os.stat(path, dir_fd=dir_fd, follow_symlinks=follow))
    fd = os.open(path, _OPEN_FLAGS | (0 if follow else getattr(os, "O_NOFOLLOW", 0)), dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        _check_regular(info)
        chunks = []
        left = MAX_FILE_BYTES + 1
        want = min(info.st_size + 1, left)  # a regular file reads whole in one call, and a short read is its end
        while left > 0:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            if len(chunk) < want:
                break
            want = min(left, 1024 * 1024)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE_BYTES:  # it grew while it was read
        raise _too_big(len(data))
    return data, info


def _describe(path, error: OSError, verb: str) -> str:
    if error.errno == errno.ELOOP:
        return f"{path}: symbolic link loop"
    if error.errno == errno.ENOENT and os.path.islink(path):
        return f"{path}: broken symbolic link"
    return f"{path}: cannot {verb}: {error.strerror or error}"


def read_bytes(path: str) -> bytes:
    """The bytes of the regular file at `path` (links followed), at most
    MAX_FILE_BYTES, as SourceBytes; FileError (one line naming `path`) for
    anything else."""
    try:
        data, info = _read_regular(path)
    except _Refused as reason:
        raise FileError(f"{path}: cannot read: {reason}") from None
    except OSError as error:
        raise FileError(_describe(path, error, "read")) from None
    result = SourceBytes(data)
    result.identity = (info.st_dev, info.st_ino)
    return result


def read_stdin() -> bytes:
    """Standard input, bounded like a file."""
    try:
        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise FileError(f"-: cannot read standard input: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise FileError(f"-: standard input is larger than {MAX_FILE_BYTES // 2**20} MiB; not processed")
    return data


# -- writing -------------------------------------------------------------------------


def write_atomic(path: str, data: bytes, expected: bytes) -> None:
    """Replace the file at `path` (a link is written through to its target)
    with `data` in one rename, if it still holds `expected`, the bytes that
    were read (and, for SourceBytes, is still the file they were read from);
    a no-op when it holds `data` already. Mode, owner and group are kept.
    FileError (one line naming `path`; the file left as it now is) when the
    file changed or was replaced since it was read, is read-only (no write
    bit: refused even to root), or cannot be written.

    The content is compared again right before the rename: an edit in the
    moment between the two is the one window left (editors take no locks)."""
    target = os.path.realpath(path)
    try:
        current, info = _read_regular(target, follow=False)
    except _Refused as reason:
        raise FileError(f"{path}: not written: {reason}") from None
    except OSError as error:
        raise FileError(_describe(path, error, "write")) from None
    if current == data:
        return
    _check_unchanged(path, expected, current, info)
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o222 or not os.access(target, os.W_OK):  # no write bit: refused, even to root
        raise FileError(f"{path}: cannot write: the file is read-only")
    folder, name = os.path.split(target)
    with _signals_held():
        try:
            _replace_in(folder, name, path, data, expected, info)
        except OSError as error:
            raise FileError(_describe(path, error, "write")) from None


def _replace_in(folder: str, name: str, path, data: bytes, expected: bytes, info: os.stat_result) -> None:
    """Write `data` to a new file in `folder` and rename it over `name`, all
    through one open folder (a folder moved or swapped for a link meanwhile
    leaves no temporary file, and nothing is written elsewhere). The new file
    gets the old one's owner, group, mode and extended attributes; the rename
    happens only if the file still holds `expected`, is still the file that
    was read, with the mode and owner it had (one made read-only meanwhile is
    left as it is)."""
    import secrets

    folder_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    temporary = None
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        for _ in range(100):
            candidate = f".{name}.{secrets.token_hex(4)}.tfcompat"
            try:
                fd = os.open(candidate, flags, 0o600, dir_fd=folder_fd)
            except FileExistsError:
                continue
            temporary = candidate
            break
        else:
            raise FileExistsError(errno.EEXIST, "no free temporary name", folder)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            _keep_owner(fd, info, path)
            os.fchmod(fd, stat.S_IMODE(info.st_mode))  # after the chown, which clears set-id bits
            _copy_xattrs(name, fd, folder_fd)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            now, now_info = _read_regular(name, follow=False, dir_fd=folder_fd)
        except (_Refused, OSError):  # gone, or swapped for something else
            raise FileError(f"{path}: not written: the file was replaced since it was read; "
                            "left as it is now") from None
        if now == data:  # another run (a second `fix`) wrote the same bytes meanwhile
            return
        _check_unchanged(path, expected, now, now_info, (info.st_dev, info.st_ino))
        if (now_info.st_mode, now_info.st_uid, now_info.st_gid) != (info.st_mode, info.st_uid, info.st_gid):
            raise FileError(f"{path}: not written: its mode or owner changed since it was read (now "
                            f"{stat.filemode(now_info.st_mode)}); left as it is now")
        os.replace(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        temporary = None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary, dir_fd=folder_fd)
            except OSError:
                pass
        os.close(folder_fd)


def _copy_xattrs(name: str, fd: int, folder_fd: int) -> None:
    """The file's extended attributes (user.*, and where this user may, ACLs,
    SELinux labels, capabilities) on the new file: best effort, one by one."""
    if not hasattr(os, "listxattr"):
        return
    try:
        source = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                         dir_fd=folder_fd)
    except OSError:
        return
    try:
        for attribute in os.listxattr(source):
            try:
                os.setxattr(fd, attribute, os.getxattr(source, attribute))
            except OSError:
                pass
    except OSError:  # a file system without extended attributes
        pass
    finally:
        os.close(source)


def _check_unchanged(path, expected: bytes, current: bytes, info: os.stat_result, identity=None) -> None:
    identity = identity or getattr(expected, "identity", None)
    if identity is not None and (info.st_dev, info.st_ino) != tuple(identity):
        raise FileError(f"{path}: not written: the file was replaced since it was read; left as it is now")
    if current != expected:
        raise FileError(f"{path}: not written: the file changed since it was read; left as it is now")


def _keep_owner(fd: int, info: os.stat_result, path) -> None:
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.fchown(fd, info.st_uid, info.st_gid)
    except PermissionError:
        raise FileError(
            f"{path}: not written: a new file cannot keep its owner and group "
            f"({info.st_uid}:{info.st_gid}) for this user; left unchanged"
        ) from None


@contextmanager
def _signals_held():
    """SIGINT, SIGTERM and SIGHUP wait until the block is done, then are
    raised again as they came (Ctrl-C is still a KeyboardInterrupt, SIGTERM
    still ends the process). Outside the main thread, where handlers cannot
    be set, the block runs as it is (its `finally` still cleans up)."""
    import signal  # only runs that write pay for it

    received: list[int] = []
    previous = {}
    held = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    for signum in held:
        try:
            previous[signum] = signal.signal(signum, lambda number, frame: received.append(number))
        except (ValueError, OSError):  # not the main thread
            break
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        for signum in dict.fromkeys(received):
            signal.raise_signal(signum)
