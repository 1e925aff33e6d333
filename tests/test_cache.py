"""The cache (lint/cache.py): a later run uses what an earlier one found only
when nothing it came from changed, and then gives exactly what a run without
it gives. Runs are separate processes (as a user's are), except where the
engine's work is counted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import cli
from tfcompat_threads.codemod.findings import Place
from tfcompat_threads.codemod.source import Edit
from tests.test_project_flows import KERAS, LOGGED_OUTSIDE, SETTINGS, TRAIN, repository

MAIN = """\
import tensorflow as tf

config = tf.ConfigProto(intra_op_parallelism_threads=2)
with tf.Session(config=config) as session:
    session.run(1)
"""


def tree_of(tmp_path: Path, **files: str) -> Path:
    (tmp_path / "repo").mkdir(parents=True)
    return repository(tmp_path / "repo", **files)


def run(tree: Path, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if cache is not None:
        env["TFCOMPAT_THREADS_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "tfcompat_threads", *args], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=120)


def same_as_without_cache(tree: Path, *args: str, cache: Path) -> str:
    """The output of a run with the cache, checked against a run without it."""
    kept = run(tree, *args, "--output-format", "json", cache=cache)
    fresh = run(tree, *args, "--output-format", "json", "--no-cache", cache=cache)
    assert (kept.returncode, kept.stdout) == (fresh.returncode, fresh.stdout)
    return kept.stdout


def test_a_run_after_check_analyses_nothing_again_and_gives_the_same(tmp_path, monkeypatch):
    from tfcompat_threads.codemod import engine

    linted = []
    real = engine.lint
    monkeypatch.setattr(engine, "lint", lambda source, *a, **k: linted.append(source.filename) or real(source, *a, **k))
    monkeypatch.setenv("TFCOMPAT_THREADS_CACHE_DIR", str(tmp_path / "cache"))
    tree = tree_of(tmp_path, main=MAIN, other="import tensorflow as tf\nprint(tf.Session)\n")
    twin = tmp_path / "twin"
    shutil.copytree(tree, twin)

    first = cli("check", "-j", "1", "--output-format", "json", ".", cwd=tree)
    assert first.exit_code == 1 and len(linted) == 2
    again = cli("check", "-j", "1", "--output-format", "json", ".", cwd=tree)
    found = json.JSONDecoder().raw_decode(first.output)[0]
    assert len(found) == 3 and len(linted) == 2
    assert (again.exit_code, json.JSONDecoder().raw_decode(again.output)[0]) == (1, found)
    assert cli("fix", "-j", "1", ".", cwd=tree).exit_code == 0
    assert len(linted) == 2, "fix applied the edits check kept"
    assert cli("fix", "-j", "1", "--no-cache", ".", cwd=twin).exit_code == 0
    assert (tree / "app" / "main.py").read_bytes() == (twin / "app" / "main.py").read_bytes()
    assert b"tf.compat.v1.ConfigProto" in (tree / "app" / "main.py").read_bytes()
    assert cli("check", "-j", "1", ".", cwd=tree).exit_code == 0 and len(linted) > 2, "new bytes are analysed"


def test_another_module_the_analysis_read_changing_is_seen(tmp_path):
    """settings.py's finding names the read in keras_part.py; settings.py
    does not change, keras_part.py does."""
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, settings=SETTINGS, train=TRAIN, keras_part=KERAS)
    before = json.loads(same_as_without_cache(tree, "check", ".", cache=cache))
    assert any("keras_part.py:6" in f["message"] for f in before)
    (tree / "app" / "keras_part.py").write_text(KERAS.replace("K.set_session(", "print("))
    after = json.loads(same_as_without_cache(tree, "check", ".", cache=cache))
    assert after != before and not any("keras_part.py" in f["message"] for f in after)


def test_a_module_added_to_the_repository_is_seen(tmp_path):
    """Which modules the repository has decides TFT011 (outside) or TFT005."""
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, bench=LOGGED_OUTSIDE.format(module="official"))
    codes = [f["code"] for f in json.loads(same_as_without_cache(tree, "check", "--select", "ALL", ".", cache=cache))]
    assert codes == ["TFT011"]
    (tree / "tools" / "official").mkdir(parents=True)
    (tree / "tools" / "official" / "logs.py").write_text("def BenchmarkFileLogger(path):\n    pass\n")
    codes = [f["code"] for f in json.loads(same_as_without_cache(tree, "check", "--select", "ALL", ".", cache=cache))]
    assert codes == ["TFT005"]


HELPERS = """\
import tensorflow as tf
from tensorflow.compat.v1 import ConfigProto
from tensorflow.compat.v1 import InteractiveSession

config = ConfigProto()
config.gpu_options.allow_growth = True
config.intra_op_parallelism_threads = 2
session = InteractiveSession(config=config)

STORE = []


def keep(config):
    STORE.append(config)
"""
KEEPS = """\
import tensorflow as tf
from app.helpers import keep
config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)
keep(config)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fix_reads_every_module_as_the_run_found_it_whatever_the_order(tmp_path, jobs):
    """helpers.py is fixed (3 lines shorter) in the run in which main.py's
    finding names a line of it: every file is analysed before any is
    written, so the finding is the one the run found, with one process or
    two, with the cache or without (a helper's analysis made for a0.py was
    handed to main.py after helpers.py had been written, or not: 0.2.0.dev0);
    the line it names is shown where it is after the fix (14 before, 11 after)."""
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, a0=KEEPS, helpers=HELPERS, main=KEEPS)
    twin = tmp_path / "twin"
    shutil.copytree(tree, twin)
    assert run(tree, "check", ".", cache=cache).returncode == 1
    kept = run(tree, "fix", "-j", jobs, "--output-format", "json", ".", cache=cache)
    fresh = run(twin, "fix", "-j", jobs, "--output-format", "json", "--no-cache", ".", cache=cache)
    assert (kept.returncode, kept.stdout) == (fresh.returncode, fresh.stdout)
    messages = [f["message"] for f in json.loads(kept.stdout) if f["filename"].endswith("main.py")]
    assert len(messages) == 1 and "(app/helpers.py:11)" in messages[0]
    assert (tree / "app" / "helpers.py").read_bytes() == (twin / "app" / "helpers.py").read_bytes() != HELPERS.encode()
    assert (tree / "app" / "helpers.py").read_text().splitlines()[10].strip() == "STORE.append(config)"


def test_an_entry_made_for_another_file_is_not_taken(tmp_path):
    """Same bytes, same repository, another path (whose sibling helper
    differs): an entry copied over this file's is a miss."""
    cache = tmp_path / "cache"
    relative = KEEPS.replace("from app.helpers import", "from .helpers import")
    tree = tree_of(tmp_path)
    for package, helpers in (("one", HELPERS), ("two", "def keep(config):\n    pass\n")):
        (tree / "app" / package).mkdir()
        (tree / "app" / package / "__init__.py").write_text("")
        (tree / "app" / package / "helpers.py").write_text(helpers)
        (tree / "app" / package / "main.py").write_text(relative)
    assert run(tree, "check", "app/one/main.py", cache=cache).returncode == 1
    [entry] = [p for p in cache.rglob("*") if p.is_file() and p.name != "CACHEDIR.TAG"]
    assert run(tree, "check", "app/two/main.py", cache=cache).returncode == 0
    [other] = [p for p in cache.rglob("*") if p.is_file() and p.name not in ("CACHEDIR.TAG", entry.name)]
    other.write_bytes(entry.read_bytes())
    assert same_as_without_cache(tree, "check", "app/two/main.py", cache=cache).strip() == "[]"


def test_settings_that_change_findings_do_not_share_entries(tmp_path):
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, main=MAIN)
    default = same_as_without_cache(tree, "check", ".", cache=cache)
    narrow = same_as_without_cache(tree, "check", "--select", "TFT001", ".", cache=cache)
    shim = same_as_without_cache(tree, "check", "--target", "shim", ".", cache=cache)
    assert default != narrow and len({default, narrow, shim}) >= 2


def test_the_tf_version_decides_findings_and_a_changed_requirement_is_seen(tmp_path):
    """tf-version is a setting that decides fixes, also when it comes from the
    project's requirements: a run after the requirement changed is not served
    what the earlier one kept."""
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, main=MAIN)
    newest = same_as_without_cache(tree, "check", ".", cache=cache)
    (tree / "requirements.txt").write_text("tensorflow==1.12.0\n")
    old = same_as_without_cache(tree, "check", ".", cache=cache)
    assert old != newest and '"fix": null' in old and '"fix": null' not in newest
    assert same_as_without_cache(tree, "check", "--tf-version", "2.4", ".", cache=cache) == newest


def test_a_notebook_fixed_after_check_is_the_notebook_fixed_without_cache(tmp_path):
    from tests.test_notebooks import notebook

    cache = tmp_path / "cache"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = notebook(tmp_path / "a"), notebook(tmp_path / "b")
    assert run(tmp_path / "a", "check", ".", cache=cache).returncode == 1
    assert run(tmp_path / "a", "fix", ".", cache=cache).returncode == 0
    assert run(tmp_path / "b", "fix", "--no-cache", ".", cache=cache).returncode == 0
    assert one.read_bytes() == two.read_bytes() != b""


@pytest.mark.parametrize("case", ["a file", "others can write it", "entries are garbage", "entries are cut short",
                                  "entries are FIFOs", "entries are folders"])
def test_a_cache_that_cannot_be_used_is_no_cache_never_an_error(tmp_path, case):
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, main=MAIN)
    if case == "a file":
        cache.write_text("not a folder")
    elif case == "others can write it":
        cache.mkdir()
        cache.chmod(0o777)
    else:
        assert run(tree, "check", ".", cache=cache).returncode == 1
        entries = [p for p in cache.rglob("*") if p.is_file()]
        assert entries
        for entry in entries:
            if case == "entries are FIFOs":
                entry.unlink()
                os.mkfifo(entry)
            elif case == "entries are folders":
                entry.unlink()
                entry.mkdir()
            else:
                entry.write_bytes(b"\x80\x04garbage" if case == "entries are garbage" else entry.read_bytes()[:40])
    check = same_as_without_cache(tree, "check", ".", cache=cache)
    assert json.loads(check)[0]["code"] == "TFT002"
    fixed = run(tree, "fix", ".", cache=cache)
    assert fixed.returncode == 0 and fixed.stderr.count("error") == 0
    if case == "others can write it":
        assert list(cache.iterdir()) == [], "nothing is kept where others could change it"


def test_a_cache_folder_reached_through_a_link_is_used(tmp_path):
    (tmp_path / "disk").mkdir(mode=0o700)
    (tmp_path / "cache").symlink_to(tmp_path / "disk")
    tree = tree_of(tmp_path, main=MAIN)
    same_as_without_cache(tree, "check", ".", cache=tmp_path / "cache")
    assert [p for p in (tmp_path / "disk").rglob("*") if p.is_file()], "kept in the folder the link leads to"


def test_entries_of_a_build_unused_for_a_week_are_removed_and_nothing_else(tmp_path):
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, main=MAIN)
    assert run(tree, "check", ".", cache=cache).returncode == 1
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    old, recent = cache / "0123456789abcdef", cache / "fedcba9876543210"
    week = 8 * 24 * 3600
    for folder in (old, recent):
        folder.mkdir()
        (folder / "entry").write_bytes(b"x")
    os.utime(old, (old.stat().st_atime - week, old.stat().st_mtime - week))
    assert run(tree, "check", ".", cache=cache).returncode == 1
    assert not old.exists() and recent.exists()
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 2, "this build's folder, the recent one"


def test_a_cache_folder_holding_anything_else_is_neither_used_nor_pruned(tmp_path):
    cache = tmp_path / "cache"
    tree = tree_of(tmp_path, main=MAIN)
    assert run(tree, "check", ".", cache=cache).returncode == 1
    old, foreign = cache / "0123456789abcdef", cache / "notes"
    week = 8 * 24 * 3600
    for folder in (old, foreign):
        folder.mkdir()
        (folder / "entry").write_bytes(b"x")
        os.utime(folder, (folder.stat().st_atime - week, folder.stat().st_mtime - week))
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    same_as_without_cache(tree, "check", ".", cache=cache)
    assert {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("where", ["the repository", "a folder of other things"])
def test_a_folder_that_is_not_the_tools_own_is_neither_written_nor_pruned(tmp_path, where):
    """TFCOMPAT_THREADS_CACHE_DIR=. in a repository, or a folder with other
    things in it: used as no cache, every byte in it left as it was."""
    tree = tree_of(tmp_path, main=MAIN)
    cache = tree if where == "the repository" else tmp_path / "mine"
    if where != "the repository":
        (cache / "0123456789abcdef").mkdir(parents=True)
        (cache / "0123456789abcdef" / "data").write_bytes(b"keep")
    week = 8 * 24 * 3600
    for folder in [p for p in cache.rglob("*") if p.is_dir()]:
        os.utime(folder, (folder.stat().st_atime - week, folder.stat().st_mtime - week))
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    same_as_without_cache(tree, "check", ".", cache=cache)
    assert {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()} == before


def test_what_lies_where_an_entry_is_written_is_never_followed_or_waited_on(tmp_path, monkeypatch):
    from tfcompat_threads.lint.cache import Cache
    from tfcompat_threads.lint.settings import Settings

    monkeypatch.setenv("TFCOMPAT_THREADS_CACHE_DIR", str(tmp_path / "cache"))
    tree = tree_of(tmp_path, main=MAIN)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    cache = Cache.open(Settings(), frozenset({"TFT002"}))
    for plant in ("fifo", "link"):
        memo = cache.memo(str(tree / "app" / "main.py"))
        temporary = memo.entry.with_name(f"{memo.entry.name}.{os.getpid()}.tmp")
        os.mkfifo(temporary) if plant == "fifo" else temporary.symlink_to(victim)
        memo.keep(MAIN.encode(), [], None)
        assert memo.entry.is_file() and not memo.entry.is_symlink() and not temporary.exists()
        assert victim.read_text() == "mine"
        assert memo.recall(MAIN.encode()) == ([], None, None)
        memo.entry.unlink()


def test_an_entry_of_another_shape_is_a_miss(tmp_path, monkeypatch):
    """Entries are JSON, checked field by field even under the user's HMAC."""
    from tfcompat_threads.codemod.leftover import Left
    from tfcompat_threads.lint.cache import Cache
    from tfcompat_threads.lint.settings import Settings

    monkeypatch.setenv("TFCOMPAT_THREADS_CACHE_DIR", str(tmp_path / "cache"))
    tree = tree_of(tmp_path, main=MAIN)
    memo = Cache.open(Settings(), frozenset({"TFT002"})).memo(str(tree / "app" / "main.py"))
    code = MAIN.encode()

    def sealed(value) -> bytes:
        body = json.dumps(value).encode()
        return memo._seal(code, body).encode() + b"\n" + body

    finding = ["TFT002", "m", [1, 1], [1, 2], ["safe", "m", [["Edit", 0, 1, "x"]], ""], "", None, None, "error",
               [["/a.py", 3]], True, None, 1]
    left = [[[10, 20, "tf.placeholder"]], [[0, 23]], [[30, 40, 50]], ["tf"], True]
    for payload in [[1, 2], [[], [1], None, None], [[], [], [[], [1]], None], [[], [], "edits", None], "nothing",
                    [[], [], None], [[], [], None, left[:4]], [[], [], None, [*left[:4], 1]],
                    [[], [], None, [[[10, "20", "tf.placeholder"]], *left[1:]]],
                    [[], [], None, [left[0], [[0]], *left[2:]]], [[], [], None, [*left[:2], [[30, 40]], *left[3:]]],
                    [[], [], None, [*left[:3], [1], True]],
                    [[], [finding[:-1]], None, None], [[], [[*finding[:8], "fatal", *finding[9:]]], None, None],
                    [[], [[*finding[:9], [["/a.py", "3"]], *finding[10:]]], None, None],
                    [[], [[*finding[:4], ["safe", "m", [["Popen", 1]], ""], *finding[5:]]], None, None],
                    [[], [[*finding[:4], ["safe", "m", [["Edit", "0", 1, "x"]], ""], *finding[5:]]], None, None]]:
        memo.entry.write_bytes(sealed(payload))
        assert memo.recall(code) is None, payload
    memo.entry.write_bytes(sealed([[], [], None, None]))
    assert memo.recall(code) == ([], None, None)
    memo.entry.write_bytes(sealed([[], [], None, left]))
    assert memo.recall(code)[2] == Left(((10, 20, "tf.placeholder"),), ((0, 23),), ((30, 40, 50),), frozenset({"tf"}),
                                        True)
    memo.entry.write_bytes(sealed([[], [finding], [[["Edit", 0, 1, "x"]], [0]], None]))
    [kept], (edits, [skipped]), _ = memo.recall(code)
    assert (kept.code, kept.fix.edits, edits, skipped) == ("TFT002", (Edit(0, 1, "x"),), [Edit(0, 1, "x")], kept)
    assert (kept.severity, kept.places) == ("error", (Place("/a.py", 3),))


def test_a_build_that_cannot_be_fingerprinted_is_no_cache(tmp_path, monkeypatch):
    from tfcompat_threads.lint import cache
    from tfcompat_threads.lint.settings import Settings

    monkeypatch.setenv("TFCOMPAT_THREADS_CACHE_DIR", str(tmp_path / "cache"))

    def broken():
        raise FileNotFoundError("a dangling module link in the installed package")

    monkeypatch.setattr(cache, "_build", broken)
    assert cache.Cache.open(Settings(), frozenset()) is None
