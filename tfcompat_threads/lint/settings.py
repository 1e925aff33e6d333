"""Settings of a run: `[tool.tfcompat-threads]` in pyproject.toml (found from
the first path upwards), under the command line's options."""

from __future__ import annotations

from pathlib import Path

from .files import Excludes

SECTION = "tool.tfcompat-threads"
KEYS = {
    "target": str,
    "exclude": list,
    "extend-exclude": list,
    "select": list,
    "ignore": list,
    "unsafe-fixes": bool,
}
DEFAULT_EXCLUDE = (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "build", "dist", "__pycache__")


class SettingsError(Exception):
    pass


class Settings:
    """A plain class (no dataclasses import on the pre-commit path)."""

    FIELDS = ("target", "exclude", "extend_exclude", "select", "ignore", "unsafe_fixes")

    def __init__(
        self,
        target: str = "native",
        exclude: tuple[str, ...] = DEFAULT_EXCLUDE,
        extend_exclude: tuple[str, ...] = (),
        select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
        unsafe_fixes: bool = False,
        source: Path | None = None,
    ) -> None:
        self.target = target
        self.exclude = exclude
        self.extend_exclude = extend_exclude
        self.select = select
        self.ignore = ignore
        self.unsafe_fixes = unsafe_fixes
        self.source = source
        """The pyproject.toml the settings came from."""

    def replace(self, **changes) -> Settings:
        values = {name: getattr(self, name) for name in (*self.FIELDS, "source")}
        return Settings(**{**values, **changes})

    @property
    def excludes(self) -> Excludes:
        return Excludes(self.exclude + self.extend_exclude)

    def wants(self, code: str) -> bool:
        """--select / --ignore, by code or code prefix (TFT1 = TFT101 ... TFT107)."""
        if self.select and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(i) for i in self.ignore)


def find_pyproject(start: Path) -> Path | None:
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        path = candidate / "pyproject.toml"
        if path.is_file():
            return path
    return None


def load(start: Path) -> Settings:
    path = find_pyproject(start)
    if path is None:
        return Settings()
    table = _read_section(path)
    values = {}
    for key, value in table.items():
        if key not in KEYS:
            raise SettingsError(f"{path}: [{SECTION}] has no setting {key!r} (known: {', '.join(KEYS)})")
        if not isinstance(value, KEYS[key]) or (
            KEYS[key] is list and not all(isinstance(item, str) for item in value)
        ):
            raise SettingsError(f"{path}: [{SECTION}] {key} must be a {KEYS[key].__name__}")
        values[key.replace("-", "_")] = tuple(value) if isinstance(value, list) else value
    if values.get("target", "native") not in ("native", "shim"):
        raise SettingsError(f"{path}: [{SECTION}] target must be \"native\" or \"shim\"")
    return Settings(source=path, **values)


def _read_section(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if f"[{SECTION}]" not in text and '"tfcompat-threads"' not in text:
        return {}
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        return _parse_section(text, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: {error}") from None
    return data.get("tool", {}).get("tfcompat-threads", {})


def _parse_section(text: str, path: Path) -> dict:
    """The subset of TOML this section uses (strings, booleans, lists of
    strings), for Pythons without tomllib."""
    import ast
    import re
    match = re.search(r"^\[tool\.tfcompat-threads\][ \t]*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if match is None:
        return {}
    body = re.sub(r"(?m)#.*$", "", match.group(1))
    table = {}
    for key, value in re.findall(r"(?ms)^\s*([\w-]+)\s*=\s*(\[.*?\]|\"[^\"]*\"|'[^']*'|true|false)", body):
        literal = {"true": "True", "false": "False"}.get(value, value)
        try:
            table[key] = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            raise SettingsError(f"{path}: [{SECTION}] {key}: cannot read {value!r}") from None
    return table
