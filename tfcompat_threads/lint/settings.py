"""Settings of a run: `[tool.tfcompat-threads]` in pyproject.toml (found from
the first path upwards), under the command line's options.

The names of the settings are the fields of `Settings` (`extend_exclude` is
`extend-exclude` in the file); a setting that is misspelled, of the wrong
type, or a rule code that does not exist is an error, never ignored.

`tf-version` not set: the oldest TensorFlow the project's requirements
declare (lint/tf_requirement.py), else None (the names of TF 2.1 on).
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
    tf_version: str | None = None
    """The oldest TensorFlow ("X.Y") the fixed code must run on; None: the names of 2.1 on."""
    source: str | None = None
    """The pyproject.toml the settings came from."""
    tf_version_source: str = "default: the names of TensorFlow 2.1 on"
    """Where `tf_version` came from, as --show-settings says it."""
    build: str | None = None
    """"openmp" when the project's requirements name an OpenMP build of
    TensorFlow (intel-tensorflow), read with the tf-version default; None: the
    official wheels'."""

    def replace(self, **changes) -> Settings:
        return self._replace(**changes)

    def cache_key(self, enabled: frozenset[str]) -> list:
        """What decides a file's findings and fixes (lint/cache.py keys its
        entries by it, as black's Mode.get_cache_key): a setting that changes
        them is added here, and the cache follows."""
        return [self.target, self.tf_version, self.unsafe_fixes, sorted(enabled), self.build]

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
    if name not in ("source", "tf_version_source", "build")
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
    """The settings of the pyproject.toml above `start` (tf-version: not yet
    from the requirements; see with_declared_tf_version)."""
    path = find_pyproject(start)
    if path is None:
        return Settings()
    table = _read_section(path)
    values = {}
    for key, value in table.items():
        field = FILE_KEYS.get(key)
        if field is None:
            import difflib

            close = difflib.get_close_matches(key.replace("_", "-").lower(), FILE_KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(FILE_KEYS)})"
            raise SettingsError(f"{path}: [{SECTION}] has no setting {key!r}{hint}")
        expected = bool if field.type == "bool" else str if field.type.startswith("str") else list
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
    if "tf_version" in values:
        values["tf_version"] = checked_tf_version(values["tf_version"], f"{path}: [{SECTION}] tf-version")
        values["tf_version_source"] = f"{path}: [{SECTION}] tf-version"
    return Settings(source=path, **values)


def describe(settings: Settings, from_file: set[str], from_command_line: set[str]) -> str:
    """What `check --show-settings` prints: each setting's resolved value and
    where it came from (the command line, the settings file, or the default),
    then the rules the run reports."""
    import json

    from ..terminal import visible

    lines = [f"Settings file: {settings.source or 'none (no pyproject.toml with [' + SECTION + '] found)'}"]
    for key, field in FILE_KEYS.items():
        value = getattr(settings, field.name)
        shown = json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)
        origins = [where for where, names in (("command line", from_command_line), (settings.source, from_file))
                   if field.name in names]
        origin = " and ".join(origins) if origins else "default"
        if field.name == "tf_version" and settings.tf_version_source:
            origin = settings.tf_version_source  # the option, the setting, or the declared requirement
        lines.append(f"{key} = {shown}  # {origin}")
    if settings.build is not None:
        lines.append(f"# tensorflow build: {settings.build} (what the requirements name)")
    lines.append("# rules reported: " + ", ".join(sorted(settings.enabled())))
    return "\n".join(map(visible, lines)) + "\n"  # file names and requirement lines, escaped


def file_keys(path: str | None) -> set[str]:
    """The settings (field names) the settings file sets."""
    return {FILE_KEYS[key].name for key in _read_section(path) if key in FILE_KEYS} if path else set()


def checked_tf_version(text: str, where: str) -> str:
    """"X.Y" of a tf-version value ("1.15", "2.4.4"); SettingsError naming `where` for anything else."""
    from ..options import RELEASES, known_releases, release

    try:
        found = release(text)
    except ValueError as error:
        raise SettingsError(f"{where}: {error}") from None
    if found not in RELEASES:
        shown = "%d.%d" % found
        raise SettingsError(f"{where}: {shown} is not a TensorFlow release (known: {known_releases()})")
    return "%d.%d" % found


def with_declared_tf_version(settings: Settings, start: str) -> Settings:
    """`settings` with tf-version from the project's requirements when no setting gave one (and the
    build they name)."""
    if settings.tf_version is not None:
        return settings
    from .tf_requirement import RequirementError, declarations, declared_build

    try:
        found = declarations(start)
    except RequirementError as error:
        raise SettingsError(str(error)) from None
    settings = settings.replace(build=declared_build(found))
    oldest = min((d for d in found if d.release is not None), default=None)
    if oldest is None:
        return settings
    return settings.replace(tf_version=oldest.tf_version, tf_version_source=oldest.where)


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
