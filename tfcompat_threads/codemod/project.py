"""The other modules of the repository a file belongs to, read on demand.

A config often leaves its module: built by a helper in `utils.py` and used
by sessions in `train.py`, or passed to `U.get_session(config=...)`. The
analysis follows it there: it resolves imports to the repository's own
files, parses a module only when a flow reaches it, and finds the callers of
a helper by a byte search of the repository's files first (most files never
name it). A one-file pre-commit run over a file whose configs stay in it
reads no other file.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

# Files larger than this are not read to follow a flow into them.
MAX_BYTES = 2_000_000
_SKIPPED = frozenset({".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules", "site-packages",
                      "__pycache__", "build", "dist"})


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._real_root = root.resolve()
        self._analyses: dict[Path, object] = {}
        self._files: list[Path] | None = None
        self._notebooks: list[Path] = []
        self._modules: frozenset[str] | None = None
        self._packaging = ""
        self._contents: dict[Path, tuple[tuple[int, int], bytes | None]] = {}
        self._digests: dict[Path, tuple[bytes | None, str | None]] = {}
        self._logs: list[_Log] = []
        self._made: dict[Path, _Log] = {}
        self._mentions: dict[str, tuple[int, list[Path]]] = {}
        self._generation = 0
        self._module_files: dict[tuple, Path | None] = {}
        self._resolved: dict[Path, Path] = {}
        self.told: dict[tuple[int, str], tuple[bytes, bool]] = {}
        """Whether a module's bytes may define a one-return function of a name (codemod/resolve.py `may_return_one`)."""

    @staticmethod
    def of(filename: str | None) -> Project | None:
        """The project of a file: its git work tree; else the nearest folder
        above it with a setup.py, setup.cfg or pyproject.toml; else the folder
        its top-level package is in (or its own)."""
        if not filename or filename == "-" or not os.path.exists(filename):
            return None
        folder = os.path.dirname(os.path.abspath(filename))
        if folder not in _ROOTS:  # once per folder and process
            _ROOTS[folder] = _root(Path(folder))
        return _cached(_ROOTS[folder])

    # -- files -------------------------------------------------------------------

    def files(self) -> list[Path]:
        if self._files is None:
            found, notebooks = [], []
            pending = [str(self.root)]  # a stack, not os.walk: Python 3.11's recurses (1,000 folders deep)
            while pending and len(found) + len(notebooks) <= 20_000:  # more: a home folder or a file system
                folder = pending.pop()
                try:
                    entries = sorted(os.scandir(folder), key=lambda e: e.name)
                except OSError:
                    continue
                folders = []
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if entry.name not in _SKIPPED and not entry.name.startswith("."):
                                folders.append(entry.path)
                        elif entry.name.endswith(".py"):
                            found.append(Path(entry.path))
                        elif entry.name.endswith(".ipynb"):
                            notebooks.append(Path(entry.path))
                    except OSError:
                        continue
                pending += reversed(folders)
            self._files, self._notebooks = found, notebooks
        return self._files

    def begin(self) -> None:
        """A new analysis starts: what other files said is asked again (they
        may have changed since the last one; within one they do not)."""
        self._generation += 1
        self._module_files.clear()
        self._resolved.clear()

    @property
    def generation(self) -> int:
        """Which answers are current: kept answers of another generation are asked again."""
        return self._generation

    def has_module(self, name: str) -> bool:
        """Some folder or file of the repository is a module or package
        `name`, wherever it is (a folder put on sys.path at run time too), or
        its packaging files name it (`package_dir={"name": "src"}`, a key
        `name = ...`): a package installed under another folder's name."""
        if self._modules is None:
            names = set()
            for path in self.files():
                parts = path.relative_to(self.root).parts
                names.update(parts[:-1])
                names.add(parts[-1][:-3])
            self._modules = frozenset(names)
            for file in ("setup.py", "setup.cfg", "pyproject.toml"):
                data = self._read(self.root / file)  # a FIFO or a link to /dev/zero there is not read
                if data is not None:
                    self._packaging += data.decode("utf-8", errors="replace") + "\n"
        quoted = re.escape(name)
        found = name in self._modules or re.search(
            rf"""["']{quoted}["']|^[ \t]*{quoted}[ \t]*=""", self._packaging, re.MULTILINE) is not None
        self._note("has_module", name, found)
        return found

    def read(self, path: Path) -> bytes | None:
        """A regular file's bytes (None: unreadable or too big); read again when it changed."""
        data = self._read(path)
        known = self._digests.get(path)
        if known is None or known[0] is not data:  # digested once per bytes read
            known = self._digests[path] = (data, digest(data))
        self._note("read", str(path), known[1])
        return data

    def _read(self, path: Path) -> bytes | None:
        try:
            status = path.stat()
        except OSError:
            return None
        stamp = (status.st_mtime_ns, status.st_size)
        cached = self._contents.get(path)
        if cached is None or cached[0] != stamp:
            data = None
            if status.st_size <= MAX_BYTES:
                from ..lint.files import FileError, read_bytes  # the one bounded regular-file reader

                try:
                    data = bytes(read_bytes(str(path)))
                except FileError:
                    data = None
            if cached is not None:
                self._generation += 1  # it changed: what was searched for is searched for again
            self._contents[path] = cached = (stamp, data)
            self._analyses.pop(path.resolve(), None)
            self._made.pop(path.resolve(), None)
        return cached[1]

    def mentioning(self, word: str, exclude: Path | None = None) -> list[Path]:
        """Files whose bytes contain `word` (a name): the candidates to parse.
        Each word is searched for once while no file is seen to change."""
        known = self._mentions.get(word)
        if known is None or known[0] != self._generation:
            needle = word.encode()
            known = (self._generation, [p for p in self.files() if (data := self._read(p)) is not None
                                        and needle in data])
            if known[0] == self._generation:
                self._mentions[word] = known
        found = [p for p in known[1] if p != exclude]
        self._note("mentioning", word, None if exclude is None else str(exclude), tuple(map(str, found)))
        return found

    def notebooks_mentioning(self, word: str) -> list[Path]:
        """The repository's notebooks whose bytes contain `word`."""
        self.files()
        needle = word.encode()
        found = [p for p in self._notebooks if (data := self._read(p)) is not None and needle in data]
        self._note("notebooks_mentioning", word, tuple(map(str, found)))
        return found

    def analysed(self) -> list[Path]:
        """The modules analysed so far (resolved paths)."""
        return list(self._analyses)

    def analysis(self, path: Path):
        """The analysis of another module of the project (None: unreadable)."""
        resolved = self._resolved.get(path)
        if resolved is None:
            resolved = self._resolved[path] = path.resolve()
        path = resolved
        if path in self._analyses:
            self._read(path)  # a file changed since (another run of this process wrote it) is analysed again
        if path in self._analyses:
            # what its making asked is asked again here
            self._replay(("made", path, self._generation), self._made.get(path, _Log()))
            known = self._analyses[path]
            return None if known is not None and known.completing else known
        self._analyses[path] = None  # a cycle finds None, not itself
        log = _Log()
        self._logs.append(log)
        try:
            data = self.read(path)
            if data is not None:
                from .analysis import Analysis
                from .source import Source, SourceError

                try:
                    self._analyses[path] = Analysis(Source(data, str(path)), project=self, path=path)
                except (SourceError, RecursionError, MemoryError):
                    self._analyses[path] = None
        finally:
            self._forget(log)
        self._made[path] = log
        return self._analyses[path]

    @contextlib.contextmanager
    def completing(self, analysis):
        """The rest of a module's analysis is made (codemod/analysis.py makes
        it when first asked): what that asks is part of its making, asked
        again wherever the analysis is reused."""
        made = self._made.get(analysis.path) if self._analyses.get(analysis.path) is analysis else None
        if made is None:
            yield
            return
        log = _Log()
        self._logs.append(log)
        try:
            yield
        finally:
            self._forget(log)
            made.included[("completed", analysis.path)] = log

    # -- what a result depends on ------------------------------------------------------

    def _note(self, kind: str, *question_and_answer) -> None:
        entry = (kind, *question_and_answer)
        for log in self._logs:
            log[entry] = None

    def _replay(self, key, entries: _Log) -> None:
        """What an earlier question (`key`: a module's analysis, a reader
        search) asked is asked again here: each recording under way holds
        its log (by reference: a log is read whole only when kept)."""
        for log in self._logs:
            log.included.setdefault(key, entries)

    @contextlib.contextmanager
    def recording(self):
        """Every question asked of the project meanwhile (what was read, which
        modules exist, which files mention a name), with its answer: the
        analysis of a file is a function of its bytes and these."""
        log = _Log()
        self._logs.append(log)
        try:
            yield log
        finally:
            self._forget(log)

    def _forget(self, log: _Log) -> None:
        """Stop noting into `log` (that list: another may be equal to it)."""
        self._logs = [other for other in self._logs if other is not log]

    def answers(self, log: list[tuple]) -> bool:
        """Every question of `log` gets the same answer now."""
        self.begin()
        for kind, *question, answer in log:
            if kind == "read":
                now = digest(self._read(Path(question[0])))
            elif kind == "has_module":
                now = self.has_module(question[0])
            elif kind == "module_file":
                found = self.module_file(Path(question[0]), question[1], question[2])
                now = None if found is None else str(found)
            elif kind == "notebooks_mentioning":
                now = tuple(map(str, self.notebooks_mentioning(question[0])))
            elif kind == "mentioning":
                now = tuple(map(str, self.mentioning(question[0], None if question[1] is None else Path(question[1]))))
            else:
                return False
            if now != answer:
                return False
        return True

    # -- modules -------------------------------------------------------------------

    def module_file(self, importer: Path, module: str, level: int = 0) -> Path | None:
        """The file of the project that `import module` (or a relative import
        of `level` dots) from `importer` would load, if it is one of ours."""
        key = (importer, module, level)
        if key in self._module_files:
            found = self._module_files[key]
            self._note("module_file", str(importer), module, level, None if found is None else str(found))
            return found
        parts = module.split(".") if module else []
        if level:
            base = Path(importer).parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = [Path(importer).parent, self.root, self.root / "src"]
        found = None
        for base in bases:
            for candidate in (base.joinpath(*parts).with_suffix(".py") if parts else None,
                              base.joinpath(*parts, "__init__.py")):
                if candidate is not None and candidate.is_file():
                    real = candidate.resolve()  # once: it is what is found, and where it is
                    if _within(real, self._real_root):
                        found = real
                        break
            if found is not None:
                break
        self._module_files[key] = found  # the repository's files are listed once per run, too
        self._note("module_file", str(importer), module, level, None if found is None else str(found))
        return found


class _Log(dict):
    """The questions asked of the project and their answers, each once (an
    ordered set), and the logs of earlier questions it holds (`flat()`: all)."""

    __slots__ = ("included",)

    def __init__(self) -> None:
        super().__init__()
        self.included: dict = {}

    def flat(self) -> list[tuple]:
        entries: dict = {}
        seen: set[int] = set()
        pending = [self]
        while pending:
            log = pending.pop()
            if id(log) in seen:
                continue
            seen.add(id(log))
            entries.update(dict.fromkeys(log))
            pending += reversed(log.included.values())
        return list(entries)


try:  # the C module itself: hashlib would load OpenSSL first (milliseconds)
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

_PROJECTS: dict[Path, Project] = {}
_ROOTS: dict[str, Path] = {}


def _root(folder: Path) -> Path:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    for candidate in (folder, *folder.parents):
        if any((candidate / name).is_file() for name in ("setup.py", "setup.cfg", "pyproject.toml")):
            return candidate
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def digest(data: bytes | None) -> str | None:
    """What stands for a file's bytes in a recorded answer (None: unreadable)."""
    return None if data is None else blake2b(data, digest_size=16).hexdigest()


def _cached(root: Path) -> Project:
    if root not in _PROJECTS:
        _PROJECTS[root] = Project(root)
    return _PROJECTS[root]


def _within(path: Path, root: Path) -> bool:
    """`path` (resolved) is `root` (resolved) or below it."""
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False
