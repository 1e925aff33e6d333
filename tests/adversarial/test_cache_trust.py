"""The cache is never a way in (issue 20 items 1-3).

A repository, a tar file or a restored CI cache can hold a folder that looks
like the tool's cache: the tag, the user's owner, mode 0755, entries under the
names the tool would use (they are predictable). Such a folder is not the
tool's (it did not make it), so nothing in it is read, written or pruned; an
entry in the tool's own folder is used only when it carries the HMAC of the
user's key; entries are data, never code; a cache folder inside the tree
being linted is not used.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import time

import pytest

from .helpers import LEGACY, LEGACY_FIXED, assert_no_traceback, child_env, snapshot, tft

HOW = ["git clone", "tar", "cp -a"]
SETTING = "set_intra_op_parallelism_threads"
EVIL = b"PWNED_BY_A_PLANTED_CACHE_ENTRY__"
assert len(EVIL) == len(SETTING)


class _Runs:
    """A pickle that runs a command when it is loaded."""

    def __init__(self, marker) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


def _entries(folder):
    return [p for p in folder.rglob("*") if p.is_file() and p.name != "CACHEDIR.TAG"]


def _prepared(how: str, repo, scratch) -> None:
    """`repo` made again, at its own path, from what it holds now: by a
    clone of it as a git repository, an unpacked tar file, or `cp -a`."""
    scratch.mkdir()
    saved = scratch / "saved"
    if how == "git clone":
        git = ["git", "-c", "user.name=a", "-c", "user.email=a@b", "-c", "init.defaultBranch=main"]
        subprocess.run([*git, "init", "-q", str(repo)], check=True)
        subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
        subprocess.run([*git, "-C", str(repo), "commit", "-q", "-m", "cache"], check=True)
        repo.rename(saved)
        subprocess.run(["git", "clone", "-q", str(saved), str(repo)], check=True)
    elif how == "tar":
        subprocess.run(["tar", "-C", str(repo), "-cpf", str(scratch / "repo.tar"), "."], check=True)
        repo.rename(saved)
        repo.mkdir()
        subprocess.run(["tar", "-C", str(repo), "-xpf", str(scratch / "repo.tar")], check=True)
    else:
        repo.rename(saved)
        subprocess.run(["cp", "-a", str(saved), str(repo)], check=True)
    shutil.rmtree(saved, ignore_errors=True)


def _attacker_cache(tmp_path, plant: str):
    """A repository holding `.cache/tfcompat-threads` as the tool made it on
    the attacker's machine for this very path (with the attacker's key),
    its entries then replaced by a pickle that runs code, or their edits by
    the attacker's text."""
    repo = tmp_path / "work" / "repo"
    repo.mkdir(parents=True)
    (repo / "train.py").write_bytes(LEGACY)
    env = child_env(XDG_CACHE_HOME=str(repo / ".cache"), XDG_STATE_HOME=str(tmp_path / "attacker"))
    assert tft("diff", "train.py", cwd=repo, env=env).returncode == 1
    entries = _entries(repo / ".cache")
    assert entries, "the attacker's run kept entries"
    marker = tmp_path / "code-ran"
    for entry in entries:
        if plant == "code":
            entry.write_bytes(pickle.dumps(_Runs(marker)))
        else:
            assert SETTING.encode() in entry.read_bytes()
            entry.write_bytes(entry.read_bytes().replace(SETTING.encode(), EVIL))
    return repo, marker


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("plant", ["code", "edits"])
@pytest.mark.parametrize("args", [("fix", "train.py"), ("fix", ".")])
def test_a_planted_cache_is_never_used(tmp_path, how, plant, args):
    """Items 1 and 2: `XDG_CACHE_HOME=$PWD/.cache` in CI, on a repository
    that ships the cache folder (cloned, untarred or copied with its modes
    and owner): no code runs, the file is fixed as without a cache."""
    repo, marker = _attacker_cache(tmp_path, plant)
    _prepared(how, repo, tmp_path / "scratch")
    cache = repo / ".cache" / "tfcompat-threads"
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    run = tft(*args, cwd=repo, env=child_env(XDG_CACHE_HOME=str(repo / ".cache"),
                                             XDG_STATE_HOME=str(tmp_path / "victim")))
    assert_no_traceback(run)
    assert not marker.exists(), "a planted entry ran code"
    assert (repo / "train.py").read_bytes() == LEGACY_FIXED, run
    assert run.returncode == 0, run
    assert {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()} == before, "nothing written in it"


@pytest.mark.parametrize("how", HOW)
def test_a_planted_tag_does_not_make_a_folder_the_tools(tmp_path, how):
    """Item 3: `TFCOMPAT_THREADS_CACHE_DIR=.` in a repository that holds the
    tag: no build folder is written into it, and a user folder named like
    a build (16 hex digits, a month old) is not pruned."""
    repo = tmp_path / "repo"
    repo.mkdir()
    made = tmp_path / "made"
    (tmp_path / "seed.py").write_bytes(LEGACY)
    seeded = tft("check", "-q", "seed.py", cwd=tmp_path, env=child_env(TFCOMPAT_THREADS_CACHE_DIR=str(made)))
    assert seeded.returncode == 1 and (made / "CACHEDIR.TAG").is_file(), seeded
    shutil.copy(made / "CACHEDIR.TAG", repo / "CACHEDIR.TAG")
    (repo / "train.py").write_bytes(LEGACY)
    mine = repo / "0123456789abcdef"
    mine.mkdir()
    (mine / "notes.txt").write_bytes(b"keep me")
    _prepared(how, repo, tmp_path / "scratch")
    month = time.time() - 31 * 24 * 3600
    os.utime(mine, (month, month))
    before = snapshot(repo)
    folders = sorted(p.name for p in repo.iterdir())
    run = tft("check", "-q", "train.py", cwd=repo, env=child_env(TFCOMPAT_THREADS_CACHE_DIR="."))
    assert_no_traceback(run)
    assert run.returncode == 1, run
    assert snapshot(repo) == before and sorted(p.name for p in repo.iterdir()) == folders


def test_a_cache_folder_inside_the_linted_tree_is_not_used(tmp_path):
    """Even an empty one the tool could make its own: `check .` with the
    cache in `./.cache` writes nothing into the tree."""
    (tmp_path / "train.py").write_bytes(LEGACY)
    before = snapshot(tmp_path)
    for _ in range(2):
        run = tft("check", ".", cwd=tmp_path, env=child_env(XDG_CACHE_HOME=str(tmp_path / ".cache"),
                                                           XDG_STATE_HOME=str(tmp_path.parent / "state")))
        assert run.returncode == 1, run
    assert snapshot(tmp_path) == before and not (tmp_path / ".cache" / "tfcompat-threads").exists()


@pytest.mark.parametrize("entry", ["edited", "another key's"])
def test_an_entry_in_the_tools_own_folder_is_used_only_with_the_users_hmac(tmp_path, entry):
    """Item 2 in the tool's own folder: an entry whose bytes were changed
    (the edits it holds replaced, same length), or one made under another
    user's key for the same file and path, is a miss."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_bytes(LEGACY)
    cache = tmp_path / "cache"

    def env(key: str):
        return child_env(TFCOMPAT_THREADS_CACHE_DIR=str(cache), XDG_STATE_HOME=str(tmp_path / key))

    assert tft("diff", "train.py", cwd=repo, env=env("theirs" if entry == "another key's" else "mine")).returncode == 1
    [kept] = _entries(cache)
    forged = kept.read_bytes().replace(SETTING.encode(), EVIL)
    if entry == "another key's":
        shutil.rmtree(cache)
        assert tft("check", "train.py", cwd=repo, env=env("mine")).returncode == 1
        [kept] = _entries(cache)
    kept.write_bytes(forged)
    run = tft("fix", "train.py", cwd=repo, env=env("mine"))
    assert run.returncode == 0 and (repo / "train.py").read_bytes() == LEGACY_FIXED, run


def test_the_key_is_the_users_alone_and_a_key_that_is_not_is_no_cache(tmp_path):
    """The key is made 0600 in a 0700 folder outside the cache; a key others
    can read (or a folder others can write) means no cache, never an error."""
    (tmp_path / "train.py").write_bytes(LEGACY)
    state, cache = tmp_path.parent / f"{tmp_path.name}-state", tmp_path.parent / f"{tmp_path.name}-cache"
    env = child_env(TFCOMPAT_THREADS_CACHE_DIR=str(cache), XDG_STATE_HOME=str(state))
    assert tft("check", "train.py", cwd=tmp_path, env=env).returncode == 1
    key = state / "tfcompat-threads" / "key"
    assert (key.stat().st_mode & 0o777, key.parent.stat().st_mode & 0o777, key.stat().st_size) == (0o600, 0o700, 32)
    assert _entries(cache)
    shutil.rmtree(cache)
    key.chmod(0o644)
    run = tft("check", "train.py", cwd=tmp_path, env=env)
    assert run.returncode == 1 and "error" not in run.stderr.lower(), run
    assert not _entries(cache) if cache.exists() else True
    shutil.rmtree(state)
