"""The tests' own thread counter (tests/tfproc.py PRELUDE), and probe's, count what
stays: TensorFlow starts threads that end by themselves (its logger's
initialisation, a graph runner's one-thread pool; seen with gdb on 2.15),
and on a loaded machine one of them can still be alive when a scenario
emit()s. These scenarios need no TensorFlow: plain Python threads stand for
both kinds."""

from __future__ import annotations

from tests import tfproc

# Nothing here depends on timing: the threads that end start their last
# 0.3 s only once the scenario has counted them all, and the busy thread of
# the bound's test runs until the wait is over.
THREADS = """
import os, threading, time as clock
stay, counted, over = threading.Event(), threading.Event(), threading.Event()
def waits():  # a pool thread: idle, asleep, never ends
    stay.wait()
def works_then_ends():  # busy a while, then gone
    counted.wait()
    end = clock.monotonic() + 0.3
    while clock.monotonic() < end:
        pass
def sleeps_then_ends():
    counted.wait()
    clock.sleep(0.3)
def works_until_the_wait_is_over():
    while not over.is_set():
        pass
for target in (waits, waits, {others}):
    threading.Thread(target=target, daemon=True).start()
started = len(os.listdir("/proc/self/task"))
counted.set()
"""


def test_threads_that_end_by_themselves_are_not_counted_and_idle_ones_are():
    """Five threads when emit() starts counting (the main one, two that
    wait, one busy for 0.3 s more, one asleep for 0.3 s more): the count is
    the main thread and the two that wait."""
    result = tfproc.run(THREADS.format(others="works_then_ends, sleeps_then_ends") + "emit(started=started)\n")
    assert result["started"] == 5, result
    assert tfproc.total(result) == 3, result["threads"]


def test_a_thread_that_never_settles_ends_the_wait_at_the_limit():
    """A thread busy for as long as the counter waits is counted: the wait
    has a bound (30 s in emit(), 1 s here), it does not hang."""
    result = tfproc.run(THREADS.format(others="works_until_the_wait_is_over")
                        + "settled = len(_settled_tasks(limit=1.0))\nover.set()\n"
                        "emit(started=started, settled=settled, threads=dict())\n", timeout=60)
    assert (result["started"], result["settled"]) == (4, 4), result


def test_probe_counts_the_same_way():
    """probe's counter (tfcompat_threads/measure/threads.py settled_names),
    on the same threads: the main thread and the two that wait."""
    result = tfproc.run(THREADS.format(others="works_then_ends, sleeps_then_ends")
                        + "from tfcompat_threads.measure import threads\n"
                        "emit(started=started, threads=threads.settled_names())\n")
    assert result["started"] == 5 and tfproc.total(result) == 3, result


RECORDER = """
import threading, time as clock
from tfcompat_threads.measure import threads
stay, counted, over = threading.Event(), threading.Event(), threading.Event()
def busy():  # the program's own thread, running since before the event
    while not over.is_set():
        pass
def waits():
    stay.wait()
def works_then_ends():
    counted.wait()
    end = clock.monotonic() + 0.3
    while clock.monotonic() < end:
        pass
def sleeps_then_ends():
    counted.wait()
    clock.sleep(0.3)
threading.Thread(target=busy, daemon=True).start()
before = threads.snapshot()
for target in (waits, waits, works_then_ends, sleeps_then_ends):  # what the event starts
    threading.Thread(target=target, daemon=True).start()
started = len(threads.snapshot())
counted.set()
after = threads.settled_snapshot(before, limit=120.0)
over.set()
emit(before=len(before), started=started, after=len(after), threads=dict())
"""


def test_runs_recorder_waits_for_the_threads_an_event_started_and_for_no_other():
    """`run`'s recorder (measure/threads.py settled_snapshot) counts the
    threads after an event once those the event started have settled: of
    the four started after `before`, the two that wait stay and the two
    that end are gone; the program's own thread, busy since before the
    event and until after the count, is counted and not waited for (were it
    waited for, the wait would end at its 120 s limit, past the 60 s the
    scenario has)."""
    result = tfproc.run(RECORDER, timeout=60)
    assert (result["before"], result["started"], result["after"]) == (2, 6, 4), result
