"""The tests' own thread counter (tests/tfproc.py PRELUDE), and probe's, count what
stays: TensorFlow starts threads that end by themselves (its logger's
initialisation, a graph runner's one-thread pool; seen with gdb on 2.15),
and on a loaded machine one of them can still be alive when a scenario
emit()s. These scenarios need no TensorFlow: plain Python threads stand for
both kinds."""

from __future__ import annotations

from tests import tfproc

THREADS = """
import threading, time as clock
stay = threading.Event()
def waits():  # a pool thread: idle, asleep, never ends
    stay.wait()
def works_then_ends():  # busy a while, then gone
    end = clock.monotonic() + {busy}
    while clock.monotonic() < end:
        pass
def sleeps_then_ends():
    clock.sleep({asleep})
for target in (waits, waits, works_then_ends, sleeps_then_ends):
    threading.Thread(target=target, daemon=True).start()
started = len(__import__("os").listdir("/proc/self/task"))
emit(started=started)
"""


def test_threads_that_end_by_themselves_are_not_counted_and_idle_ones_are():
    """Five threads when emit() starts counting (the main one, two that
    wait, one busy for 0.6 s, one asleep for 0.6 s): the count is the main
    thread and the two that wait."""
    result = tfproc.run(THREADS.format(busy=0.6, asleep=0.6))
    assert result["started"] == 5, result
    assert tfproc.total(result) == 3, result["threads"]


def test_a_thread_that_never_settles_ends_the_wait_at_the_limit():
    """A thread busy for longer than the counter waits is counted: the wait
    has a bound (30 s in emit(), 1 s here), it does not hang."""
    result = tfproc.run(THREADS.replace("emit(started=started)", "emit(settled=len(_settled_tasks(limit=1.0)), threads=dict())")
                        .format(busy=2, asleep=0), timeout=60)
    assert result["settled"] == 4, result


def test_probe_counts_the_same_way():
    """probe's counter (tfcompat_threads/measure/threads.py settled_names),
    on the same threads: the main thread and the two that wait."""
    counted = THREADS.replace("emit(started=started)", "from tfcompat_threads.measure import threads\n"
                              "emit(started=started, threads=threads.settled_names())")
    result = tfproc.run(counted.format(busy=0.6, asleep=0.6))
    assert result["started"] == 5 and tfproc.total(result) == 3, result
