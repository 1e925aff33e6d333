"""The oldest TensorFlow a repository declares it runs on: the default of
`tf-version`, as ruff takes `target-version` from `requires-python`.

Read from the first folder, from the first path upwards, that holds a
`pyproject.toml` (`[project] dependencies` and `optional-dependencies`),
`setup.py` (an `install_requires` list literal and an `extras_require` dict
literal), `setup.cfg` (`[options] install_requires`, `[options.extras_require]`)
or `requirements*.txt`; a TF1-era package often names TensorFlow only in its
`cpu`/`gpu` extras;
every declaration of a distribution that installs `tensorflow` (tensorflow,
tensorflow-cpu, tensorflow-gpu, tf-nightly ...) there counts. A declaration's
lower bound is its `>=`, `==`, `~=` or `>` release (the highest if several);
the oldest of the declarations is the answer. A declaration without a lower
bound (`tensorflow`, `tensorflow<2`) says nothing; a bound newer than the
newest release the tool knows is that release (its names are the newest).

Each file is read as every file the tool reads is (files.read_bytes: regular
files only, at most 10 MiB) and decoded as pip decodes it: by its byte order
mark (UTF-8, UTF-16 or UTF-32, LE or BE), else as UTF-8. A file that cannot
be read, TOML nested too deep to parse or a release number of more than
RELEASE_DIGITS digits is a RequirementError: one line naming the file
(`--tf-version` given, no requirement is read).

    >>> lower_bound("tensorflow-gpu>=1.14,<2 ; python_version < '3.8'")
    (1, 14)
"""

from __future__ import annotations

import codecs
import os
import re
from typing import NamedTuple

_FILES = re.compile(r"pyproject\.toml|setup\.py|setup\.cfg|requirements.*\.txt")
_MENTION = re.compile(r"tensorflow|tf-nightly|tf_nightly", re.I)
# Each regular expression here is linear: no two quantifiers next to each other may take the same character.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SPEC = re.compile(r"(===|==|~=|>=|<=|!=|>|<)[ \t]*([0-9]+)(?:\.([0-9]+))?")
_LOWER = ("===", "==", "~=", ">=", ">")
RELEASE_DIGITS = 4
"""A release number longer than this is no TensorFlow release (nor one int() may parse)."""
# pip's byte order marks, in its order (pip/_internal/req/req_file.py): the 4-byte ones before the
# 2-byte ones that begin them; and its coding comment.
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_CODING = re.compile(rb"coding[:=][ \t]*([-\w.]+)")


class RequirementError(Exception):
    """A requirement file that cannot be used; the message (one line) names it."""


class Declared(NamedTuple):
    release: tuple[int, int] | None
    """The lowest release it allows; None: no lower bound."""
    where: str
    """The file and the declaration: `requirements.txt: tensorflow-gpu==1.15.0`."""
    distribution: str = "tensorflow"
    """The distribution it names, normalized (`intel-tensorflow`: Intel's OpenMP build)."""

    @property
    def tf_version(self) -> str:
        return "%d.%d" % self.release


def lower_bound(requirement: str) -> tuple[int, int] | None:
    """(major, minor) below which a requirement string allows no TensorFlow;
    None when it is not TensorFlow's or has no lower bound (the newest known
    release for a bound beyond it).
    ValueError for a release number of more than RELEASE_DIGITS digits."""
    from ..options import RELEASES
    from ..versions import DISTRIBUTIONS

    text = requirement.split(";")[0].split("#")[0].strip()
    match = _NAME.match(text)
    if match is None or re.sub(r"[-_.]+", "-", match.group(0).lower()) not in DISTRIBUTIONS:
        return None
    rest = text[match.end():].lstrip()
    if rest.startswith("["):  # extras
        rest = rest[rest.find("]") + 1:] if "]" in rest else ""
    bounds = []
    for spec in rest.strip().strip("()").split(","):
        found = _SPEC.match(spec.strip())
        if found is None or found.group(1) not in _LOWER:
            continue
        major, minor = found.group(2), found.group(3) or "0"
        if len(major.lstrip("0")) > RELEASE_DIGITS or len(minor.lstrip("0")) > RELEASE_DIGITS:
            shown = major[:12] + ("..." if len(major) > 12 else "")
            raise ValueError(f"{found.group(1)}{shown}: not a TensorFlow release number")
        bounds.append(min((int(major), int(minor)), RELEASES[-1]))
    return max(bounds) if bounds else None


def decoded(data: bytes) -> str:
    """A requirement file's text, as pip decodes it: by its byte order mark,
    else by a PEP 263 coding comment on one of its first two lines, else as
    UTF-8 (what cannot be decoded replaced, where pip tries the locale's)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    for line in data.split(b"\n", 2)[:2]:
        found = _CODING.search(line) if line[:1] == b"#" else None
        if found is not None:
            try:
                return data.decode(found.group(1).decode("ascii"), errors="replace")
            except LookupError:  # no such codec (pip fails there)
                break
    return data.decode("utf-8", errors="replace")


def declared(start: str) -> Declared | None:
    """The oldest TensorFlow the project holding `start` declares, or None;
    RequirementError for a file there that cannot be read or used."""
    return min((d for d in declarations(start) if d.release is not None), default=None)


OPENMP_DISTRIBUTIONS = ("intel-tensorflow",)
"""Distributions of TensorFlow whose oneDNN runs on OpenMP (shim/build.py tells it at run time)."""


def declared_build(found: list[Declared]) -> str | None:
    """"openmp" when the requirements name an OpenMP build of TensorFlow, else None."""
    return "openmp" if any(d.distribution in OPENMP_DISTRIBUTIONS for d in found) else None


def declarations(start: str) -> list[Declared]:
    """Every TensorFlow requirement of the project holding `start`, in file
    order; RequirementError for a file there that cannot be read or used."""
    from .files import FileError, read_bytes

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
            return []
        folder = parent
    found: list[Declared] = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            text = decoded(read_bytes(path))  # a FIFO, a device or a link to /dev/zero is not read
        except FileError as error:
            raise RequirementError(f"{error}; give --tf-version to read no requirement") from None
        if not _MENTION.search(text):
            continue
        for requirement in _requirements(path, name, text):
            try:
                bound = lower_bound(requirement)
            except ValueError as error:
                raise RequirementError(f"{path}: {error}; give --tf-version") from None
            distribution = _distribution(requirement)
            if distribution is not None:
                shown = " ".join(requirement.split("#")[0].split())
                found.append(Declared(bound, f"{path}: {shown}", distribution))
    return found


def _distribution(requirement: str) -> str | None:
    """The TensorFlow distribution a requirement string names (normalized), or None."""
    from ..versions import DISTRIBUTIONS

    match = _NAME.match(requirement.split(";")[0].split("#")[0].strip())
    name = re.sub(r"[-_.]+", "-", match.group(0).lower()) if match is not None else None
    return name if name in DISTRIBUTIONS else None


def _requirements(path: str, name: str, text: str) -> list[str]:
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
        except (RecursionError, MemoryError):  # arrays or tables nested a hundred thousand deep
            raise RequirementError(f"{path}: TOML nested too deep to read; give --tf-version") from None
        if not isinstance(project, dict):
            return []
        optional = project.get("optional-dependencies", {})
        lists = [project.get("dependencies", []), *(optional.values() if isinstance(optional, dict) else ())]
        return [d for found in lists if isinstance(found, list) for d in found if isinstance(d, str)]
    if name == "setup.py":  # the first `install_requires=[...]` and `extras_require={...}` (linear)
        found = []
        for keyword, closing in (("install_requires", "]"), ("extras_require", "}")):
            match = re.search(keyword + r"[ \t\r\n]*=[ \t\r\n]*" + ("\\[" if closing == "]" else "\\{"), text)
            end = text.find(closing, match.end()) if match is not None else -1
            if end >= 0:  # an unclosed one says nothing
                found += re.findall(r"""['"]([^'"\n]+)['"]""", text[match.end():end])
        return found
    if name == "setup.cfg":  # read as configparser reads it, line by line (its option pattern is quadratic)
        return _options_install_requires(text)
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", "-"))]


def _options_install_requires(text: str) -> list[str]:
    """`[options] install_requires` of a setup.cfg, as configparser (which
    setuptools reads it with) finds it: a section header, `key = value` or
    `key: value` (the key in any case), indented lines going on with the
    value, `#` and `;` lines comments."""
    section, key, values = None, None, []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t" and key is not None:  # the value goes on
            if _declares(section, key):
                values.append(stripped)
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section, key = stripped[1:-1], None
            continue
        cut = min((at for at in (line.find("="), line.find(":")) if at >= 0), default=-1)
        if cut < 0:
            key = None
            continue
        key = line[:cut].strip().lower()
        if _declares(section, key):
            values.append(line[cut + 1:].strip())
    return [value for value in values if value]


def _declares(section: str | None, key: str) -> bool:
    """A setup.cfg option that lists requirements: `[options] install_requires`
    or any extra of `[options.extras_require]` (`gpu = tensorflow-gpu>=1.10`)."""
    return (section == "options" and key == "install_requires") or section == "options.extras_require"
