"""Running the command line as a real subprocess, the way a user or CI does.

Every run has a timeout. The child starts in a session of its own, so a run
that hangs (or leaves workers behind) is ended by killing its process group,
by id, and the test fails with "hung". The address space of every run is
capped (4 GB) so that a regression that reads without limit fails fast
instead of eating the machine.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
LEGACY = (FIXTURES / "keyword_args" / "input.py").read_bytes()
LEGACY_FIXED = (FIXTURES / "keyword_args" / "native.py").read_bytes()
CLEAN = b"import os\n\nprint(os.getcwd())\n"
TIMEOUT = 60
MEMORY_LIMIT = 4 * 1024**3
# The documented size limit of a file the linter reads (issue 13 item 4, issue 14).
SIZE_LIMIT = 10 * 1024 * 1024


class Run:
    def __init__(self, args, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.args = args
        self.returncode = returncode
        self.stdout_bytes = stdout
        self.stderr_bytes = stderr
        self.stdout = stdout.decode("utf-8", "surrogateescape")
        self.stderr = stderr.decode("utf-8", "surrogateescape")

    def __repr__(self) -> str:  # shown by pytest when an assertion fails
        return (f"Run({self.args!r}, exit {self.returncode})\n--- stdout\n{self.stdout[-3000:]}"
                f"\n--- stderr\n{self.stderr[-3000:]}")


def _limit_memory() -> None:
    """preexec_fn of every child: memory capped, and Ctrl-C as a terminal
    gives a foreground command (a test run started in the background, as
    `cmd &` in a script, would otherwise hand its children SIGINT ignored)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def unprivileged() -> None:
    """preexec_fn: as root, drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
    from the bounding set before the exec (memory limited as for every
    run): the run then may not read a file of mode 000 or list a folder of
    mode 0, as any user may not."""
    import ctypes

    _limit_memory()
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def command(*args) -> list[str]:
    return [sys.executable, "-m", "tfcompat_threads", *map(os.fspath, args)]


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TFCOMPAT", "FORCE_COLOR", "PYTEST"))}
    env.update(NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def start(argv: list[str], cwd, stdin=subprocess.DEVNULL, **kwargs) -> subprocess.Popen:
    """A child in its own session (process group = its pid), memory capped."""
    kwargs.setdefault("env", child_env())
    kwargs.setdefault("preexec_fn", _limit_memory)
    return subprocess.Popen(
        argv, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, **kwargs,
    )


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def finish(proc: subprocess.Popen, input: bytes | None = None,
           timeout: float = TIMEOUT) -> tuple[bytes, bytes]:
    try:
        return proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        pytest.fail(f"hung: {proc.args!r} did not finish in {timeout} s\nstdout: {out[-2000:]!r}\n"
                    f"stderr: {err[-2000:]!r}")


def tft(*args, cwd, input: bytes | None = None, timeout: float = TIMEOUT, **kwargs) -> Run:
    """`python -m tfcompat_threads ARGS` in `cwd`."""
    argv = command(*args)
    proc = start(argv, cwd, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL, **kwargs)
    try:
        out, err = finish(proc, input, timeout)
    finally:
        kill_group(proc)  # workers a bad run left behind
    return Run(argv[3:], proc.returncode, out, err)


def python(code: str, *args, cwd, timeout: float = TIMEOUT, **kwargs) -> Run:
    """`python -c CODE ARGS` in `cwd` (for the shim, and for runs with a patched module)."""
    argv = [sys.executable, "-c", code, *map(os.fspath, args)]
    proc = start(argv, cwd, **kwargs)
    try:
        out, err = finish(proc, None, timeout)
    finally:
        kill_group(proc)
    return Run(argv[1:], proc.returncode, out, err)


# -- what every failure must look like --------------------------------------------


def assert_no_traceback(run: Run) -> None:
    for stream in (run.stdout, run.stderr):
        assert "Traceback (most recent call last)" not in stream, run
    assert run.returncode >= 0, f"killed by signal {-run.returncode}: {run!r}"


def lines_naming(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if name in line]


def assert_one_error(run: Run, name: str, *words: str) -> str:
    """Exit 2, no traceback, and exactly one line of standard error names
    `name` (and holds each of `words`, case-insensitive). Returns the line."""
    assert_no_traceback(run)
    assert run.returncode == 2, run
    lines = lines_naming(run.stderr, name)
    assert len(lines) == 1, f"one line naming {name!r} expected: {lines!r}\n{run!r}"
    said = lines[0].replace(name, "").lower()  # the words must be in what is said, not in the name
    for word in words:
        assert word.lower() in said, f"{word!r} not said in {lines[0]!r}"
    return lines[0]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file below `root` (links not followed) with its bytes."""
    found = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found


def temporary_files(root: Path) -> list[str]:
    """Files a write may leave behind (`.NAME.XXXX.tfcompat` and the like)."""
    return sorted(str(p) for p in root.rglob("*") if re.search(r"\.tfcompat|\.tmp$|~$", p.name))


def _processes():
    """(pid, the fields of /proc/PID/stat after the command name) of every process."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    yield int(entry), handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue


def children(pid: int) -> list[int]:
    """Pids whose parent is `pid`."""
    return [child for child, fields in _processes() if int(fields[1]) == pid]


def group_alive(pgid: int) -> list[int]:
    """Running processes of a process group (zombies excluded)."""
    return [pid for pid, fields in _processes() if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X")]


def alive(pid: int) -> bool:
    """Running (a zombie is dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")
