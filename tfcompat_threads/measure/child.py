"""Run one measured child process: with a time limit, in a process group of
its own that is killed whole at the end, with its output kept only as a
bounded tail, and (Linux) killed by the kernel if this process dies first.

Used by `probe` and `tune`. A hung command costs at most `timeout` seconds;
1 GB of output costs at most `keep` bytes of memory.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

STDERR_KEEP = 64 * 1024
STDOUT_KEEP = 1024 * 1024


@dataclass
class ChildResult:
    returncode: int | None
    """The exit status (negative: killed by that signal); None when timed out."""
    timed_out: bool
    seconds: float
    stdout: bytes
    """The last STDOUT_KEEP bytes, when asked for; else b""."""
    stderr: bytes
    """The last STDERR_KEEP bytes."""

    def stderr_tail(self, lines: int = 5, width: int = 300) -> str:
        """The last `lines` lines of stderr, each cut to its last `width` characters."""
        text = self.stderr.decode("utf-8", "replace").strip()
        tail = text.splitlines()[-lines:]
        return "\n".join(line if len(line) <= width else "..." + line[-width:] for line in tail)

    def describe(self, timeout: float | None) -> str:
        """"exit 3", "killed by SIGSEGV" or "timed out after 5 s (killed)"."""
        if self.timed_out:
            return f"timed out after {timeout:g} s (killed)"
        if self.returncode is not None and self.returncode < 0:
            try:
                return f"killed by {signal.Signals(-self.returncode).name}"
            except ValueError:
                return f"killed by signal {-self.returncode}"
        return f"exit {self.returncode}"


def _prctl():
    """libc's prctl, loaded here: nothing may be imported between fork and exec."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
# Set in the command's environment: what the sweep may kill carries it.
_MARK = "TFCOMPAT_THREADS_MEASURED"


def _die_with_parent() -> None:  # runs in the child, between fork and exec
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the command has ended, without reaping it: until it is reaped
    its process group id cannot be reused, so killing the group is safe."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


class _Reaper:
    """While a command runs (Linux): this process is a child subreaper, so a
    process the command started that left its group (`setsid`) comes to it
    when its parent dies, and is killed at the end (`sweep`) instead of
    running on. Only processes that carry this run's mark in their
    environment are killed."""

    def __init__(self) -> None:
        import secrets

        self.mark = secrets.token_hex(16)
        self.was = None
        if _PRCTL is not None:
            import ctypes

            was = ctypes.c_int(0)
            if _PRCTL(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0) == 0 and \
                    _PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
                self.was = was.value

    def sweep(self, group: int) -> None:
        """Kill and reap the marked processes that came to this one, until
        none is left and nothing of the command's group runs (its members'
        orphans come as they die)."""
        if self.was is None:
            return
        me, deadline = os.getpid(), time.monotonic() + 5
        while time.monotonic() < deadline:
            processes = list(_processes())
            found = [pid for pid, parent, pgid, _ in processes if parent == me and (pgid == group or self._marked(pid))]
            running = any(pgid == group and state not in "ZX" for _, _, pgid, state in processes)
            if not found and not running:
                break
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
            if running:
                time.sleep(0.01)
        if not self.was:
            _PRCTL(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        self.was = None  # swept: a second call does nothing

    def _marked(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                return f"{_MARK}={self.mark}".encode() in handle.read().split(b"\0")
        except OSError:
            return False


def _processes():
    """(pid, parent pid, process group, state) of every process (Linux /proc)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            yield int(entry), int(fields[1]), int(fields[2]), fields[0].decode()


class _Stop(BaseException):
    """SIGTERM / SIGHUP arrived while a child ran: kill it, then leave."""


def run_child(command: list[str], env: dict[str, str], timeout: float | None,
              keep_stdout: bool = False) -> ChildResult:
    """Run `command`; raise OSError when it cannot start."""
    start = time.perf_counter()
    reaper = _Reaper()
    try:
        return _run_child(command, {**env, _MARK: reaper.mark}, timeout, keep_stdout, start, reaper)
    finally:
        reaper.sweep(-1)  # when the command could not start (else done already)


def _run_child(command: list[str], env: dict[str, str], timeout: float | None, keep_stdout: bool, start: float,
               reaper: _Reaper) -> ChildResult:
    proc = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if keep_stdout else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, killed whole
        preexec_fn=_die_with_parent if _PRCTL is not None else None,
    )
    buffers = {proc.stderr: bytearray()}
    limits = {proc.stderr: STDERR_KEEP}
    if keep_stdout:
        buffers[proc.stdout] = bytearray()
        limits[proc.stdout] = STDOUT_KEEP
    deadline = None if not timeout else start + timeout
    timed_out = False
    previous = {}

    def stop(signum, frame):
        raise _Stop(signum)

    try:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            previous[signum] = signal.signal(signum, stop)
    except ValueError:  # not the main thread
        previous = {}
    ended = False
    selector = selectors.DefaultSelector()
    try:
        for stream in buffers:
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            wait = 0.5 if deadline is None else min(0.5, deadline - time.perf_counter())
            if wait <= 0:
                timed_out = True
                _kill_group(proc)
                break
            for key, _ in selector.select(wait):
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                buffer = buffers[key.fileobj]
                buffer += data
                if len(buffer) > limits[key.fileobj]:
                    del buffer[: len(buffer) - limits[key.fileobj]]
            if not ended and _exited(proc):
                # the command ended: what it left in its group goes too, then the pipes drain
                ended = True
                _kill_group(proc)
        if timed_out:
            proc.wait()
        else:
            remaining = None if deadline is None else max(0.1, deadline - time.perf_counter())
            try:
                proc.wait(remaining)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                proc.wait()
    except _Stop as stopped:
        _kill_group(proc)
        proc.wait()
        raise SystemExit(128 + stopped.args[0]) from None
    finally:
        if proc.returncode is None:  # an exception (Ctrl-C) left it running, or not reaped
            _kill_group(proc)
            proc.wait()
        reaper.sweep(proc.pid)
        selector.close()
        for stream in buffers:
            stream.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    seconds = time.perf_counter() - start
    return ChildResult(
        returncode=None if timed_out else proc.returncode,
        timed_out=timed_out,
        seconds=seconds,
        stdout=bytes(buffers.get(proc.stdout, b"")) if keep_stdout else b"",
        stderr=bytes(buffers[proc.stderr]),
    )
