"""What is not a plain file, and files too big to read (issue 13 items 4, 8, 11).

Only regular files are read. A FIFO, a device or a socket, named on the
command line or met in a walked folder, is reported in one line and skipped,
without blocking; a symbolic link loop is reported as a loop; a file above the
documented size limit (10 MiB) is reported and left unchanged. Nested git
repositories and submodules are walked as git sees them (the outer
`git ls-files` does not list inside them).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess

import pytest

from .helpers import (
    CLEAN,
    LEGACY,
    LEGACY_FIXED,
    SIZE_LIMIT,
    assert_no_traceback,
    assert_one_error,
    lines_naming,
    tft,
)

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root (CAP_MKNOD)")


def legacy(folder, *names):
    for name in names:
        (folder / name).write_bytes(LEGACY)


def assert_fixed(folder, *names):
    for name in names:
        assert (folder / name).read_bytes() == LEGACY_FIXED, f"{name} not fixed: the others are still done"


# -- FIFOs, devices, sockets (item 4) -------------------------------------------------------


def test_fifo_named_is_reported_and_skipped(tmp_path):
    legacy(tmp_path, "a.py", "c.py")
    os.mkfifo(tmp_path / "f.py")
    run = tft("fix", "a.py", "f.py", "c.py", cwd=tmp_path, timeout=30)
    assert_one_error(run, "f.py", "fifo")
    assert_fixed(tmp_path, "a.py", "c.py")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "f.py").st_mode)


def test_fifo_in_a_walked_folder_is_reported_and_skipped(tmp_path):
    legacy(tmp_path, "a.py", "c.py")
    os.mkfifo(tmp_path / "f.py")
    (tmp_path / "link_to_fifo.py").symlink_to("f.py")  # a link inside the tree is followed
    run = tft("fix", ".", cwd=tmp_path, timeout=30)
    assert_one_error(run, "/f.py", "fifo")
    assert_one_error(run, "link_to_fifo.py", "fifo")
    assert_fixed(tmp_path, "a.py", "c.py")


def test_link_to_dev_zero_is_reported_not_read_without_limit(tmp_path):
    legacy(tmp_path, "a.py")
    (tmp_path / "z.py").symlink_to("/dev/zero")
    run = tft("fix", "z.py", "a.py", cwd=tmp_path, timeout=30)
    assert_one_error(run, "z.py", "device")
    assert_fixed(tmp_path, "a.py")


@needs_root
@pytest.mark.parametrize("how", ["named", "walked"])
def test_device_node_is_reported_and_skipped(tmp_path, how):
    legacy(tmp_path, "a.py")
    os.mknod(tmp_path / "dev.py", stat.S_IFCHR | 0o666, os.makedev(1, 5))  # what /dev/zero is
    run = tft("fix", *(["dev.py", "a.py"] if how == "named" else ["."]), cwd=tmp_path, timeout=30)
    assert_one_error(run, "dev.py", "device")
    assert_fixed(tmp_path, "a.py")


@pytest.mark.parametrize("how", ["named", "walked"])
def test_socket_is_reported_as_a_socket_and_skipped(tmp_path, how):
    legacy(tmp_path, "a.py")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(os.fspath(tmp_path / "s.py"))
        run = tft("fix", *(["s.py", "a.py"] if how == "named" else ["."]), cwd=tmp_path, timeout=30)
    assert_one_error(run, "s.py", "socket")
    assert_fixed(tmp_path, "a.py")


# -- the size limit (item 4, issue 14) --------------------------------------------------------


def sized(header: bytes, size: int) -> bytes:
    """`header`, then one string literal, `size` bytes in all."""
    filler = size - len(header) - len(b'DATA = ""\n')
    return header + b'DATA = "' + b"x" * filler + b'"\n'


def test_a_file_above_the_size_limit_is_reported_and_left_unchanged(tmp_path):
    big = sized(LEGACY, SIZE_LIMIT + 1)
    (tmp_path / "big.py").write_bytes(big)
    legacy(tmp_path, "a.py")
    run = tft("fix", ".", cwd=tmp_path, timeout=60)
    assert_one_error(run, "big.py", "limit")
    assert (tmp_path / "big.py").read_bytes() == big
    assert_fixed(tmp_path, "a.py")


def test_a_file_at_the_size_limit_is_read(tmp_path):
    """The limit is the documented number: a file of exactly 10 MiB is read."""
    (tmp_path / "big.py").write_bytes(sized(CLEAN, SIZE_LIMIT))
    run = tft("check", "big.py", cwd=tmp_path, timeout=60)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert not lines_naming(run.stderr, "big.py"), run


# -- symbolic link loops (items 4, 8) --------------------------------------------------------


@pytest.mark.parametrize("shape", ["self", "pair", "folder"])
def test_symlink_loop_named_is_reported_as_a_loop(tmp_path, shape):
    legacy(tmp_path, "a.py")
    if shape == "self":
        (tmp_path / "loop.py").symlink_to("loop.py")
    elif shape == "pair":
        (tmp_path / "loop.py").symlink_to("other.py")
        (tmp_path / "other.py").symlink_to("loop.py")
    else:  # no suffix: could be a folder as well as a file
        (tmp_path / "loopdir").symlink_to("loopdir")
    name = "loopdir" if shape == "folder" else "loop.py"
    run = tft("fix", "a.py", name, cwd=tmp_path, timeout=30)
    assert_one_error(run, name, "loop")
    assert_fixed(tmp_path, "a.py")


def test_symlink_loop_named_first_is_one_line_not_a_traceback(tmp_path):
    legacy(tmp_path, "a.py")
    (tmp_path / "loop.py").symlink_to("loop.py")
    run = tft("fix", "loop.py", "a.py", cwd=tmp_path, timeout=30)
    assert_one_error(run, "loop.py", "loop")
    assert_fixed(tmp_path, "a.py")


def test_symlink_loop_in_a_walked_folder_does_not_stop_the_walk(tmp_path):
    """A walk passes over links that lead nowhere (README), loops included."""
    legacy(tmp_path, "a.py")
    (tmp_path / "loop.py").symlink_to("loop.py")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to("..")  # a folder link back up: not followed
    legacy(tmp_path / "sub", "b.py")
    run = tft("fix", ".", cwd=tmp_path, timeout=30)
    assert_no_traceback(run)
    assert run.returncode == 0, run
    assert_fixed(tmp_path, "a.py", "sub/b.py")


def test_a_folder_tree_deeper_than_the_recursion_limit_is_walked(tmp_path):
    """The walk is iterative: 1,200 nested folders (Python's os.walk recursed,
    and its limit is 1,000) are walked, and the file at the bottom is fixed."""
    legacy(tmp_path, "a.py")
    folders = [tmp_path / "d"]
    for _ in range(1199):  # os.makedirs recurses too
        folders.append(folders[-1] / "d")
    try:
        for folder in folders:
            folder.mkdir()
        legacy(folders[-1], "b.py")
        run = tft("fix", ".", cwd=tmp_path, timeout=60)
        assert_no_traceback(run)
        assert run.returncode == 0, run
        assert_fixed(tmp_path, "a.py", "/".join(["d"] * 1200) + "/b.py")
    finally:  # bottom up: shutil.rmtree (pytest's clean-up) recurses
        (folders[-1] / "b.py").unlink(missing_ok=True)
        for folder in reversed(folders):
            if folder.exists():
                folder.rmdir()


def test_a_link_to_a_folder_inside_the_tree_is_not_walked_twice(tmp_path):
    """A walk does not follow links to folders: the files behind one are
    walked once, where they are."""
    (tmp_path / "pkg").mkdir()
    legacy(tmp_path / "pkg", "a.py")
    (tmp_path / "alias").symlink_to("pkg")
    run = tft("check", ".", "--output-format", "json", cwd=tmp_path, timeout=30)
    assert_no_traceback(run)
    assert run.returncode == 1, run
    names = {entry["filename"] for entry in json.loads(run.stdout)}
    assert names == {"./pkg/a.py"}, names


# -- nested git repositories and submodules (item 11) ----------------------------------------


def git(*args, cwd):
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.fspath(cwd), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", "-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main", *args],
                   cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


def test_nested_git_repository_is_walked_as_its_git_sees_it(tmp_path):
    top = tmp_path / "top"
    (top / "pkg").mkdir(parents=True)
    git("init", "-q", ".", cwd=top)
    legacy(top / "pkg", "a.py")
    vendor = top / "vendor"
    vendor.mkdir()
    git("init", "-q", ".", cwd=vendor)
    legacy(vendor, "b.py", "ignored.py")
    (vendor / ".gitignore").write_text("ignored.py\n")
    run = tft("check", "top", cwd=tmp_path)
    assert_no_traceback(run)
    assert lines_naming(run.stdout, "vendor/b.py"), f"the nested repository was skipped: {run!r}"
    assert not lines_naming(run.stdout, "ignored.py"), "the nested repository's .gitignore is honoured"
    assert lines_naming(run.stdout, "pkg/a.py")


def test_submodule_is_walked(tmp_path):
    library = tmp_path / "library"
    library.mkdir()
    git("init", "-q", ".", cwd=library)
    legacy(library, "lib.py")
    git("add", "lib.py", cwd=library)
    git("commit", "-q", "-m", "lib", cwd=library)
    top = tmp_path / "top"
    top.mkdir()
    git("init", "-q", ".", cwd=top)
    legacy(top, "a.py")
    git("submodule", "add", "-q", os.fspath(library), "third/lib", cwd=top)
    run = tft("check", ".", cwd=top)
    assert_no_traceback(run)
    assert lines_naming(run.stdout, "third/lib/lib.py"), f"the submodule was skipped: {run!r}"
    assert lines_naming(run.stdout, "a.py")


def test_folder_of_clones_honours_each_clones_gitignore(tmp_path):
    """Not inside a git work tree, but holding some: each is walked as git sees it."""
    clone = tmp_path / "clones" / "one"
    clone.mkdir(parents=True)
    git("init", "-q", ".", cwd=clone)
    legacy(clone, "kept.py", "generated.py")
    (clone / ".gitignore").write_text("generated.py\n")
    run = tft("check", "clones", cwd=tmp_path)
    assert_no_traceback(run)
    assert lines_naming(run.stdout, "kept.py"), run
    assert not lines_naming(run.stdout, "generated.py"), run
