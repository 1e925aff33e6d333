"""Settings of a run: `[tool.tfcompat-threads]` in pyproject.toml (found from
the first path upwards), under the command line's options.

The names of the settings are the fields of `Settings` (`extend_exclude` is
`extend-exclude` in the file); a setting that is misspelled, of the wrong
type, or a rule code that does not exist is an error, never ignored.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from .files import Excludes, FileError, read_bytes

SECTION = "tool.tfcompat-threads"
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "build", "dist", "__pycache__")
TARGETS = ("native", "shim")


class SettingsError(Exception):
    """A settings file or option that cannot be used; the message names it."""


class Settings(NamedTuple):
    """A NamedTuple, not a dataclass: building a dataclass costs the one-file
    hook milliseconds at start-up."""

    target: str = "native"
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    source: str | None = None
    """The pyproject.toml the settings came from."""

    def replace(self, **changes) -> Settings:
        return self._replace(**changes)

    @property
    def excludes(self) -> Excludes:
        return Excludes(self.exclude + self.extend_exclude)

    def enabled(self) -> frozenset[str]:
        """The rule codes this run reports: select (the rules on by default
        when empty) and extend-select, less ignore."""
        from ..codemod.rules import DEFAULT, expand

        chosen = DEFAULT if not self.select else frozenset().union(*map(expand, self.select))
        chosen |= frozenset().union(*map(expand, self.extend_select))
        return chosen - frozenset().union(*map(expand, self.ignore)) if self.ignore else chosen


class _Key(NamedTuple):
    name: str
    type: str
    """Its annotation, as written."""


# The file's keys, derived from the fields: what the file may set, and as what type.
FILE_KEYS = {
    name.replace("_", "-"): _Key(name, getattr(kind, "__forward_arg__", kind))  # typing makes strings ForwardRefs
    for name, kind in Settings.__annotations__.items()
    if name != "source"
}


def check_codes(selectors, where: str) -> None:
    """Every selector names a rule (a code, a prefix, a name, an old code)."""
    if not selectors:
        return  # the rules are not imported for nothing
    from ..codemod.rules import UnknownCode, expand

    for selector in selectors:
        try:
            expand(selector)
        except UnknownCode as error:
            raise SettingsError(f"{where}: {error}") from None


def find_pyproject(start: str) -> str | None:
    folder = os.path.realpath(start)  # a symbolic link loop stays itself: its folder is where it is
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        path = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(path):
            return path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load(start: str) -> Settings:
    path = find_pyproject(start)
    if path is None:
        return Settings()
    table = _read_section(path)
    values = {}
    for key, value in table.items():
        field = FILE_KEYS.get(key)
        if field is None:
            raise SettingsError(f"{path}: [{SECTION}] has no setting {key!r} (known: {', '.join(FILE_KEYS)})")
        expected = bool if field.type == "bool" else str if field.type == "str" else list
        if expected is list:
            if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
                raise SettingsError(f"{path}: [{SECTION}] {key} must be a list of strings")
            value = tuple(value)
        elif not isinstance(value, expected):
            raise SettingsError(f"{path}: [{SECTION}] {key} must be a {expected.__name__}")
        values[field.name] = value
    if values.get("target", "native") not in TARGETS:
        raise SettingsError(f"{path}: [{SECTION}] target must be \"native\" or \"shim\"")
    for key in ("select", "extend-select", "ignore"):
        check_codes(values.get(key.replace("-", "_"), ()), f"{path}: [{SECTION}] {key}")
    return Settings(source=path, **values)


def _read_section(path: str) -> dict:
    try:
        raw = read_bytes(path)  # bounded as source files are: a 3 GB pyproject.toml is not read
    except FileError as error:
        raise SettingsError(str(error)) from None
    if b"tfcompat-threads" not in raw and b"tfcompat_threads" not in raw:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the same parser, as a package
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: invalid TOML: {error}") from None
    except (RecursionError, MemoryError):  # arrays or tables nested a thousand deep
        raise SettingsError(f"{path}: TOML nested too deep to read; not used") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise SettingsError(f"{path}: `tool` must be a table")
    if "tfcompat_threads" in tool:
        raise SettingsError(f"{path}: the section is [{SECTION}] (with a dash), not [tool.tfcompat_threads]")
    section = tool.get("tfcompat-threads", {})
    if not isinstance(section, dict):
        raise SettingsError(f"{path}: [{SECTION}] must be a table")
    return section
