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
        self._analyses: dict[Path, object] = {}
        self._files: list[Path] | None = None
        self._modules: frozenset[str] | None = None
        self._packaging = ""
        self._contents: dict[Path, tuple[tuple[int, int], bytes | None]] = {}

    @staticmethod
    def of(filename: str | None) -> Project | None:
        """The project of a file: its git work tree; else the nearest folder
        above it with a setup.py, setup.cfg or pyproject.toml; else the folder
        its top-level package is in (or its own)."""
        if not filename or filename == "-" or not os.path.exists(filename):
            return None
        folder = Path(os.path.abspath(filename)).parent
        for candidate in (folder, *folder.parents):
            if (candidate / ".git").exists():
                return _cached(candidate)
        for candidate in (folder, *folder.parents):
            if any((candidate / name).is_file() for name in ("setup.py", "setup.cfg", "pyproject.toml")):
                return _cached(candidate)
        while (folder / "__init__.py").is_file() and folder.parent != folder:
            folder = folder.parent
        return _cached(folder)

    # -- files -------------------------------------------------------------------

    def files(self) -> list[Path]:
        if self._files is None:
            found = []
            for folder, dirnames, filenames in os.walk(self.root):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED and not d.startswith("."))
                found += [Path(folder, name) for name in sorted(filenames) if name.endswith(".py")]
                if len(found) > 20_000:  # not a repository: a home folder or a file system
                    break
            self._files = found
        return self._files

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
                try:
                    self._packaging += (self.root / file).read_text(encoding="utf-8", errors="replace") + "\n"
                except OSError:
                    pass
        if name in self._modules:
            return True
        quoted = re.escape(name)
        return re.search(rf"""["']{quoted}["']|^\s*{quoted}\s*=""", self._packaging, re.MULTILINE) is not None

    def read(self, path: Path) -> bytes | None:
        """A regular file's bytes (None: unreadable or too big); read again when it changed."""
        try:
            status = path.stat()
        except OSError:
            return None
        stamp = (status.st_mtime_ns, status.st_size)
        cached = self._contents.get(path)
        if cached is None or cached[0] != stamp:
            data = None
            if status.st_size <= MAX_BYTES and path.is_file():
                try:
                    data = path.read_bytes()
                except OSError:
                    data = None
            self._contents[path] = cached = (stamp, data)
            self._analyses.pop(path.resolve(), None)
        return cached[1]

    def mentioning(self, word: str, exclude: Path | None = None) -> list[Path]:
        """Files whose bytes contain `word` (a name): the candidates to parse."""
        needle = word.encode()
        return [p for p in self.files() if p != exclude and (data := self.read(p)) is not None and needle in data]

    def analysis(self, path: Path):
        """The analysis of another module of the project (None: unreadable)."""
        path = path.resolve()
        if path not in self._analyses:
            self._analyses[path] = None  # a cycle finds None, not itself
            data = self.read(path)
            if data is not None:
                from .analysis import Analysis
                from .source import Source, SourceError

                try:
                    self._analyses[path] = Analysis(Source(data, str(path)), project=self, path=path)
                except (SourceError, RecursionError, MemoryError):
                    self._analyses[path] = None
        return self._analyses[path]

    # -- modules -------------------------------------------------------------------

    def module_file(self, importer: Path, module: str, level: int = 0) -> Path | None:
        """The file of the project that `import module` (or a relative import
        of `level` dots) from `importer` would load, if it is one of ours."""
        parts = module.split(".") if module else []
        if level:
            base = Path(importer).parent
            for _ in range(level - 1):
                base = base.parent
            bases = [base]
        else:
            bases = [Path(importer).parent, self.root, self.root / "src"]
        for base in bases:
            for candidate in (base.joinpath(*parts).with_suffix(".py") if parts else None,
                              base.joinpath(*parts, "__init__.py")):
                if candidate is not None and candidate.is_file() and _inside(candidate, self.root):
                    return candidate.resolve()
        return None


_PROJECTS: dict[Path, Project] = {}


def _cached(root: Path) -> Project:
    if root not in _PROJECTS:
        _PROJECTS[root] = Project(root)
    return _PROJECTS[root]


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False
