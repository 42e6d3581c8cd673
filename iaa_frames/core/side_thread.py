"""The engine's second thread: one for the process, started once and kept.

The steps the engine runs beside its calling thread (the matching's blocks, the within
rows beside the chance sample, the alpha cells beside the sigma cells, the KS tests
beside the bootstrap) go to one thread kept for the life of the process, not to a pool
started for each call and stopped after it.

Why one thread, kept: glibc attaches a thread to a malloc *arena* at its first
allocation. A thread of its own arena allocates from heaps of at most 64 MiB that glibc
maps for it and unmaps as soon as they are free, so the same memory is faulted in again
and again, and what one thread frees cannot serve the other. :func:`iaa_frames.heap.
large_heap` therefore limits the process to one arena where the process has set no limit
of its own; a thread started after that is attached to one of the arenas the process
already has, taking them in turn (glibc's ``reused_arena``). A process that has imported
pandas holds two (the main one, and that of a thread pandas' imports start), so pools
started anew for every call would take the main arena and the other one in turn; the
one thread started inside the first block takes the main arena, for good. Measured on 1M
boxes, fresh processes, five each in turn: 1.6-2.4 s of system time against 2.7-3.9 s,
a peak of 1,851-1,928 MB against 1,868-2,284 MB (the validation pages, "One malloc arena
for the two threads").

:class:`SideThread` lends the thread for a block of work: steps are submitted as to an
executor; when the block ends, its steps not started are cancelled and those running are
waited for (those of another caller, in another thread, are left alone). A step submitted
from the thread itself (a step that calls the engine) runs at once, where it is
submitted: queued behind the step that waits for it, it would never run. A process
forked from one that has the thread starts its own when it first needs one.

Examples
--------
>>> with SideThread() as side:
...     side.submit(sum, [1, 2, 3]).result()
6
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait

__all__ = ["SideThread", "side_by_side"]

_lock = threading.Lock()
_pool: list = []  # the process's one-thread executor, once started
_here = threading.local()  # ``side`` is True on the thread of the executor


def _mark() -> None:
    _here.side = True


def _executor() -> ThreadPoolExecutor:
    """The process's one-thread executor (started at its first step)."""
    with _lock:
        if not _pool:
            _pool.append(
                ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="iaa_frames", initializer=_mark
                )
            )
        return _pool[0]


def _run_here(fn, args, kwargs) -> Future:
    """``fn(*args, **kwargs)`` run now, as a finished future."""
    future: Future = Future()
    future.set_running_or_notify_cancel()
    try:
        future.set_result(fn(*args, **kwargs))
    except BaseException as exc:  # given to whoever asks for the result, as a pool does
        future.set_exception(exc)
    return future


def _forget_in_child() -> None:
    """In a forked child the parent's thread does not exist: start afresh."""
    global _lock
    _lock = threading.Lock()
    _pool.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def side_by_side(first, second):
    """``(first(), second())``: ``first`` on the second thread while ``second`` runs here,
    and here too if the thread has not started it by the time ``second`` is done (it may
    be busy with another step: nothing waits behind it).

    Examples
    --------
    >>> side_by_side(lambda: "there", lambda: "here")
    ('there', 'here')
    """
    with SideThread() as side:
        step = side.submit(first)
        out = second()
        return (first() if step.cancel() else step.result()), out


class SideThread:
    """The process's second thread, lent for a block of work (module docstring).

    Examples
    --------
    >>> side = SideThread()
    >>> step = side.submit(max, 2, 5)
    >>> step.result()
    5
    >>> side.close()
    """

    def __init__(self):
        self._futures: list[Future] = []

    def submit(self, fn, /, *args, **kwargs) -> Future:
        """``fn(*args, **kwargs)`` on the second thread, after the steps before it (at
        once, where submitted from that thread)."""
        if getattr(_here, "side", False):
            return _run_here(fn, args, kwargs)
        future = _executor().submit(fn, *args, **kwargs)
        self._futures.append(future)
        return future

    def close(self) -> None:
        """Cancel this block's steps not started; wait for those running."""
        futures, self._futures = self._futures, []
        # a step cancelled is not "done" for wait() until the thread has dequeued it,
        # after whatever it runs now (another caller's step, maybe): not waited for
        wait([future for future in futures if not future.cancel()])

    def __enter__(self) -> SideThread:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
