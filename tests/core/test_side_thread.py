"""iaa_frames.core.side_thread: the engine's second thread, one for the process."""

from __future__ import annotations

import os
import threading
import time

import pytest

from iaa_frames.core.side_thread import SideThread, side_by_side


def test_every_block_gets_the_same_thread():
    """Started once and kept: the thread (and so its malloc arena) is the same, block
    after block, and it is not the caller's."""
    seen = set()
    for _ in range(3):
        with SideThread() as side:
            seen.add(side.submit(threading.get_ident).result())
    assert len(seen) == 1 and threading.get_ident() not in seen


def test_steps_run_in_order_and_errors_reach_the_caller():
    ran = []
    with SideThread() as side:
        steps = [side.submit(ran.append, k) for k in range(5)]
        failing = side.submit(int, "not a number")
        for step in steps:
            step.result()
        with pytest.raises(ValueError, match="not a number"):
            failing.result()
    assert ran == list(range(5))


def test_the_end_of_a_block_cancels_its_steps_not_started_and_waits_for_the_running():
    started, release, ran = threading.Event(), threading.Event(), []

    def running():
        started.set()
        release.wait(5)
        time.sleep(0.05)
        ran.append("running")

    side = SideThread()
    first = side.submit(running)
    later = side.submit(ran.append, "later")
    started.wait(5)
    release.set()
    side.close()
    assert first.done() and ran == ["running"]  # waited for
    assert later.cancelled()


def test_a_block_leaves_the_steps_of_another_alone():
    """Two callers share the thread: one's end does not cancel the other's steps."""
    started, release = threading.Event(), threading.Event()
    one, other = SideThread(), SideThread()
    blocking = one.submit(lambda: started.set() or release.wait(5))
    theirs = other.submit(lambda: "theirs")
    started.wait(5)
    release.set()
    one.close()  # its running step waited for; the other caller's queued step kept
    assert blocking.result() is True
    assert theirs.result(timeout=5) == "theirs" and not theirs.cancelled()
    other.close()


def test_a_step_that_submits_and_waits_does_not_wait_for_ever():
    """A step on the thread that calls the engine (which submits to the thread and waits
    for it) runs the inner step at once: queued behind itself it would never run."""

    def outer():
        with SideThread() as inner:
            step = inner.submit(threading.get_ident)
            failing = inner.submit(int, "x")
            assert step.done() and failing.done()
            with pytest.raises(ValueError):
                failing.result()
            return step.result(timeout=5), threading.get_ident()

    with SideThread() as side:
        ran_on, outer_on = side.submit(outer).result(timeout=10)
    assert ran_on == outer_on != threading.get_ident()


def test_side_by_side_runs_the_first_here_when_the_thread_is_busy():
    """Nothing waits behind a busy thread: the first step, not started by the time the
    second is done, runs here; on an idle thread it runs there."""
    started, release = threading.Event(), threading.Event()
    busy = SideThread()
    busy.submit(lambda: started.set() or release.wait(10))
    started.wait(5)
    try:
        here = threading.get_ident()
        first, second = side_by_side(threading.get_ident, threading.get_ident)
        assert first == second == here
    finally:
        release.set()
        busy.close()
    started.clear()
    first, second = side_by_side(
        lambda: started.set() or threading.get_ident(), lambda: started.wait(5)
    )
    assert first != threading.get_ident() and second is True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_starts_its_own_thread():
    """The parent's thread does not exist in a forked child: without a fresh start, its
    first step would wait for ever."""
    with SideThread() as side:
        parent = side.submit(threading.get_ident).result()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a step runs, on a thread of its own
        try:
            with SideThread() as side:
                ident = side.submit(threading.get_ident).result(timeout=10)
            os.write(write, b"ran" if ident != threading.get_ident() else b"caller")
        finally:
            os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 16) == b"ran"
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    assert parent != threading.get_ident()


def test_the_engine_keeps_one_second_thread_from_call_to_call():
    """``agreement`` runs its side steps on the one thread (a pool of its own per call
    would start a thread, and glibc would attach it to an arena, every call)."""
    import warnings

    import iaa_frames as iaf

    df = iaf.simulate(n_items=8, seed=3)

    def side_threads():
        return {t.ident for t in threading.enumerate() if t.name.startswith("iaa_frames")}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iaf.agreement(df, n_boot=20, progress=False)
        first = side_threads()
        iaf.agreement(df, n_boot=20, progress=False)
    assert len(first) == 1 and side_threads() == first
