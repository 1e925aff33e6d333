"""The oldest TensorFlow a repository declares it runs on: the default of
`tf-version`, as ruff takes `target-version` from `requires-python`.

Read from the first folder, from the first path upwards, that holds a
`pyproject.toml` (`[project] dependencies`), `setup.py` (an `install_requires`
list literal), `setup.cfg` (`[options] install_requires`) or `requirements*.txt`;
every declaration of a distribution that installs `tensorflow` (tensorflow,
tensorflow-cpu, tensorflow-gpu, tf-nightly ...) there counts. A declaration's
lower bound is its `>=`, `==`, `~=` or `>` release (the highest if several);
the oldest of the declarations is the answer. A declaration without a lower
bound (`tensorflow`, `tensorflow<2`) says nothing.

    >>> lower_bound("tensorflow-gpu>=1.14,<2 ; python_version < '3.8'")
    (1, 14)
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

_FILES = re.compile(r"pyproject\.toml|setup\.py|setup\.cfg|requirements.*\.txt")
_MENTION = re.compile(rb"tensorflow|tf-nightly|tf_nightly", re.I)
_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)")
_SPEC = re.compile(r"\s*(===|==|~=|>=|<=|!=|>|<)\s*(\d+)(?:\.(\d+))?")
_LOWER = ("===", "==", "~=", ">=", ">")


class Declared(NamedTuple):
    release: tuple[int, int]
    where: str
    """The file and the declaration: `requirements.txt: tensorflow-gpu==1.15.0`."""

    @property
    def tf_version(self) -> str:
        return "%d.%d" % self.release


def lower_bound(requirement: str) -> tuple[int, int] | None:
    """(major, minor) below which a requirement string allows no TensorFlow;
    None when it is not TensorFlow's or has no lower bound."""
    from ..versions import DISTRIBUTIONS

    match = _NAME.fullmatch(requirement.split(";")[0].split("#")[0])
    if match is None or re.sub(r"[-_.]+", "-", match.group(1).lower()) not in DISTRIBUTIONS:
        return None
    bounds = [(int(major), int(minor or 0)) for spec in match.group(2).strip().strip("()").split(",")
              if (found := _SPEC.match(spec)) and found.group(1) in _LOWER
              for _, major, minor in [found.groups()]]
    return max(bounds) if bounds else None


def declared(start: str) -> Declared | None:
    """The oldest TensorFlow the project holding `start` declares, or None."""
    folder = os.path.realpath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        try:
            names = sorted(entry.name for entry in os.scandir(folder) if _FILES.fullmatch(entry.name))
        except OSError:
            names = []
        if names:
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    found = []
    for name in names:
        try:
            with open(os.path.join(folder, name), "rb") as file:
                data = file.read()
        except OSError:
            continue
        if not _MENTION.search(data):
            continue
        text = data.decode("utf-8", errors="replace")
        for requirement in _requirements(name, text):
            bound = lower_bound(requirement)
            if bound is not None:
                shown = " ".join(requirement.split("#")[0].split())
                found.append(Declared(bound, f"{os.path.join(folder, name)}: {shown}"))
    return min(found, default=None)


def _requirements(name: str, text: str) -> list[str]:
    """The requirement strings a file declares."""
    if name == "pyproject.toml":
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib
        try:
            project = tomllib.loads(text).get("project", {})
        except tomllib.TOMLDecodeError:
            return []
        dependencies = project.get("dependencies", []) if isinstance(project, dict) else []
        return [d for d in dependencies if isinstance(d, str)] if isinstance(dependencies, list) else []
    if name == "setup.py":
        match = re.search(r"install_requires\s*=\s*\[(.*?)\]", text, re.S)
        return re.findall(r"""['"]([^'"\n]+)['"]""", match.group(1)) if match else []
    if name == "setup.cfg":
        import configparser

        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
            value = parser.get("options", "install_requires", fallback="")
        except configparser.Error:
            return []
        return [line for line in value.splitlines() if line.strip()]
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", "-"))]
