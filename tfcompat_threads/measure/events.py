"""The events folder `run` hands to its command, read without trusting it:
the command may replace it, put links, FIFOs, devices or other names in it,
or write lines that are no event. Only the recorder's event files, regular
and bounded, through the folder `run` made (held open), are read; what else
is there is named, never followed or waited on.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

# What one event file may hold; the rest is not read (a program writes a few MB at most).
EVENTS_KEEP = 64 * 1024 * 1024
_EVENT_FILE = re.compile(r"([0-9]{1,10})\.jsonl")


def still(events: str, folder: int) -> bool:
    """Whether the path names the folder made (not a link or another folder put there)."""
    try:
        return os.path.samestat(os.lstat(events), os.fstat(folder))
    except OSError:
        return False


def remove(events: str, folder: int) -> None:
    """Remove the events folder if it is still the one made (never follow
    what the command may have put in its place), then close it."""
    same = still(events, folder)
    os.close(folder)
    if same:
        shutil.rmtree(events, ignore_errors=True)


def _read_regular(folder: int, name: str) -> bytes | None:
    """The first EVENTS_KEEP bytes of a regular file in the folder, or None
    (a link, a FIFO, a device, a folder: not the recorder's)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], EVENTS_KEEP
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def load_events(folder: int | str | Path, skipped: list[str] | None = None) -> list[dict]:
    """One dict per process image that loaded the recorder: its events in
    order. A process that exec()ed another Python gives one per image (each
    imports TensorFlow anew: a `tf` event starts an image). Whatever the
    folder holds that is not the recorder's (another name, a link, a FIFO, a
    line that is no event) is left out and named in `skipped`."""
    skipped = [] if skipped is None else skipped
    own = not isinstance(folder, int)
    fd = os.open(str(folder), os.O_RDONLY | os.O_DIRECTORY) if own else folder
    processes = []
    try:
        for name in sorted(os.listdir(fd)):
            match = _EVENT_FILE.fullmatch(name)
            data = _read_regular(fd, name) if match else None
            if data is None:
                skipped.append(f"{name!r}: not an event file of the recorder")
                continue
            images, events, bad = [], [], 0
            for line in data.decode("utf-8", "replace").splitlines():
                try:
                    event = json.loads(line)
                except ValueError:  # a line cut by a kill
                    continue
                if not isinstance(event, dict) or not isinstance(event.get("ev"), str):
                    bad += 1
                    continue
                if event["ev"] == "tf" and any(e["ev"] == "tf" for e in events):
                    images.append(events)
                    events = []
                events.append(event)
            if bad:
                skipped.append(f"{name!r}: {bad} line(s) that are no event")
            images.append(events)
            images = [image for image in images if image]
            for number, image in enumerate(images, 1):
                process = {"pid": int(match.group(1)), "events": image}
                if len(images) > 1:
                    process["image"] = [number, len(images)]
                processes.append(process)
    finally:
        if own:
            os.close(fd)

    def started(process):
        t = process["events"][0].get("t")
        return (t if isinstance(t, (int, float)) and not isinstance(t, bool) else process["pid"],
                process.get("image", [0])[0])

    processes.sort(key=started)
    return processes
