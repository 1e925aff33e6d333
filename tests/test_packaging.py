"""The package as it would be published: `python -m build` (the sdist, then the
wheel built from that sdist, each in an isolated environment with the build
requirement of pyproject.toml) and `twine check --strict` are clean; the wheel
holds the package, the LICENSE and the entry point; the sdist holds the package,
README, CHANGELOG and LICENSE and no tests (they need the repository: its git
history, fixtures and scripts)."""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import tfcompat_threads

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]

# MD5 of the Apache License 2.0 as the ASF publishes it (LICENSE-2.0.txt), the
# text TensorFlow is under; the same bytes as Debian's
# /usr/share/common-licenses/Apache-2.0.
APACHE_2_0_MD5 = "3b83ef96387f14655fc854ddc3c6bd57"

PACKAGE_FILES = sorted(
    [p.relative_to(ROOT).as_posix() for p in (ROOT / "tfcompat_threads").rglob("*.py")]
    + ["tfcompat_threads/py.typed"]  # the shim's API is typed (PEP 561)
)


def test_license_is_the_full_apache_2_0_text():
    data = (ROOT / "LICENSE").read_bytes()
    assert hashlib.md5(data).hexdigest() == APACHE_2_0_MD5, "LICENSE is not the unmodified Apache-2.0 text"
    text = data.decode("ascii")
    assert text.lstrip().startswith("Apache License\n")
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text


def test_metadata_ready_to_publish():
    assert PROJECT["license"] == "Apache-2.0", "an SPDX expression, not a table"
    assert PROJECT["license-files"] == ["LICENSE"]
    build_requires = PYPROJECT["build-system"]["requires"]
    # flit_core 3.12 is the first to write license expressions, and runs on
    # Python 3.7 (setuptools 77, the first of setuptools to, needs 3.9).
    assert build_requires == ["flit_core>=3.12,<5"], "a build requirement that installs on Python 3.7"
    assert PROJECT["authors"] and all(a.get("name") for a in PROJECT["authors"])
    assert {"tensorflow", "codemod", "pre-commit"} <= set(PROJECT["keywords"])
    # One documentation address (JSON `url` and SARIF `helpUri` derive from
    # it: tests/test_docs.py), and the changelog on that site.
    assert PROJECT["urls"]["Documentation"].startswith("https://")
    assert PROJECT["urls"]["Changelog"].startswith(PROJECT["urls"]["Documentation"])
    # No extra that installs nothing useful: the tests are not shipped, so what
    # they need is tests/requirements.txt, not a `test` extra.
    assert set(PROJECT["optional-dependencies"]) == {"tf", "tf-cpu", "plot", "docs"}


def test_classifiers_are_valid_and_match_requires_python():
    from trove_classifiers import classifiers as known
    from trove_classifiers import deprecated_classifiers

    ours = PROJECT["classifiers"]
    assert ours == sorted(set(ours), key=ours.index), "duplicates"
    unknown = [c for c in ours if c not in known]
    assert not unknown, f"not trove classifiers (the index rejects the upload): {unknown}"
    assert not [c for c in ours if c in deprecated_classifiers]
    # With a license expression, setuptools >= 77 refuses License :: classifiers.
    assert not [c for c in ours if c.startswith("License ::")]
    python = re.compile(r"Programming Language :: Python :: (3\.\d+)")
    versions = [m[1] for m in map(python.fullmatch, ours) if m]
    assert versions == ["3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
    assert PROJECT["requires-python"] == ">=3.7"
    assert "Programming Language :: Python :: 3 :: Only" in ours
    # true per part: the linter and the shim are pure Python; explain, probe,
    # tune and run read /proc (Linux), as the description's table says
    assert "Operating System :: OS Independent" not in ours
    assert "Operating System :: POSIX :: Linux" in ours
    assert "Typing :: Typed" in ours and (ROOT / "tfcompat_threads" / "py.typed").is_file()
    assert any(c.startswith("Topic ::") for c in ours)


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    """`python -m build` from a copy of the working tree (its build/ and
    egg-info stay out of the checkout): the sdist, then the wheel from it."""
    base = tmp_path_factory.mktemp("dists")
    source = base / "source"
    shutil.copytree(
        ROOT, source,
        ignore=shutil.ignore_patterns(".git", ".venv*", "*.egg-info", "build", "dist", "__pycache__",
                                      ".pytest_cache", ".hypothesis"),
    )
    out = base / "dist"
    # With PYTHONDONTWRITEBYTECODE set, setuptools prints "warning: byte-compiling
    # is disabled": not the project's doing, so not asked for here.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
        capture_output=True, text=True, env=env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return built.stdout + built.stderr, sdist, wheel


def test_build_and_twine_check_are_clean(dists):
    log, sdist, wheel = dists
    warnings = [line for line in log.splitlines() if re.search(r"warn|deprecat", line, re.I)]
    assert not warnings, "\n".join(warnings)
    version = tfcompat_threads.__version__
    assert sdist.name == f"tfcompat_threads-{version}.tar.gz"
    assert wheel.name == f"tfcompat_threads-{version}-py3-none-any.whl"
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
        capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"},
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2 and "WARNING" not in checked.stdout + checked.stderr


def test_wheel_holds_package_license_and_entry_point(dists, tmp_path):
    _, _, wheel = dists
    version = tfcompat_threads.__version__
    info = f"tfcompat_threads-{version}.dist-info"
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert {n for n in names if n.startswith("tfcompat_threads/")} == set(PACKAGE_FILES)
        assert zf.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
        metadata = zf.read(f"{info}/METADATA").decode()
        entry_points = configparser.ConfigParser()
        entry_points.read_string(zf.read(f"{info}/entry_points.txt").decode())
        zf.extractall(tmp_path)
    assert not [n for n in names if n.startswith("tests/")]
    # 2.4 is the first with License-Expression (flit_core 4 writes 2.5).
    assert re.search(r"^Metadata-Version: 2\.([4-9]|\d\d)$", metadata, re.M), metadata[:40]
    for header in (f"Version: {version}", "License-Expression: Apache-2.0",
                   "License-File: LICENSE", "Requires-Python: >=3.7"):
        assert header + "\n" in metadata, header
    assert "\nLicense: " not in metadata, "the deprecated License field"
    assert dict(entry_points["console_scripts"]) == {"tfcompat-threads": "tfcompat_threads.cli:main"}
    # The entry point, loaded from the unpacked wheel (not from this checkout).
    run = subprocess.run(
        [sys.executable, "-c",
         ("import sys; sys.path.insert(0, sys.argv[1]); import importlib.metadata as m; "
          "(ep,) = m.distribution('tfcompat-threads').entry_points.select(group='console_scripts'); "
          "main = ep.load(); print(sys.modules['tfcompat_threads'].__file__); main(['--version'])"),
         str(tmp_path)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [str(tmp_path / "tfcompat_threads" / "__init__.py"),
                                       f"tfcompat-threads, version {version}"]


def test_sdist_holds_package_docs_and_license_but_no_tests(dists):
    _, sdist, _ = dists
    top = sdist.name.removesuffix(".tar.gz")
    with tarfile.open(sdist) as tf:
        files = {m.name.removeprefix(top + "/"): m for m in tf.getmembers() if m.isfile()}
        license_bytes = tf.extractfile(files["LICENSE"]).read()
    assert license_bytes == (ROOT / "LICENSE").read_bytes()
    assert {"README.md", "CHANGELOG.md", "LICENSE", "pyproject.toml", "PKG-INFO"} <= set(files)
    assert sorted(n for n in files if n.startswith("tfcompat_threads/")) == PACKAGE_FILES
    assert not [n for n in files if n.startswith(("tests/", "fixtures/"))], "tests are not shipped"
    # Everything else is build metadata.
    rest = set(files) - set(PACKAGE_FILES) - {"README.md", "CHANGELOG.md", "LICENSE", "pyproject.toml",
                                              "PKG-INFO"}
    assert not rest, rest
