"""glibc's heap settings for the array work of one task on a dask worker.

A ``dask.distributed`` nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``
(its ``distributed.nanny.pre-spawn-environ``), so that freed memory goes back to the
operating system. Setting that variable also fixes glibc's mmap threshold at its
minimum (128 KiB): every array larger than that is then a fresh ``mmap``, its pages
zeroed by the kernel on first touch and unmapped again when freed. The matching of a
partition and the KS tests allocate and free large temporaries by the thousand: on a
2-core machine about half of a task's CPU time went to those page faults (a 470k-row
partition: 2.7 s of system time, 0.5 s with :func:`large_heap`).

:func:`large_heap` raises both thresholds for the duration of a task, so that freed
blocks are reused, and on leaving restores the worker's settings, under which glibc gives
free memory back by itself (what the nanny's setting is for). Outside a
process started with ``MALLOC_TRIM_THRESHOLD_`` (the default scheduler, a user's own
process) it does nothing: there glibc adapts its thresholds itself, and a fixed value
would switch that off for good.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from contextlib import contextmanager

__all__ = ["glibc", "large_heap"]

_GLIBC: list = []  # the handle (or None), looked up once


def glibc():
    """glibc (with ``mallopt``), or None on another C library or system.

    Examples
    --------
    >>> lib = glibc()
    >>> lib is None or hasattr(lib, "mallopt")
    True
    """
    if not _GLIBC:
        lib = None
        if sys.platform.startswith("linux"):
            try:
                lib = ctypes.CDLL("libc.so.6")
                lib.mallopt  # noqa: B018 (glibc only)
            except (OSError, AttributeError):
                lib = None
        _GLIBC.append(lib)
    return _GLIBC[0]


#: ``mallopt`` parameters (glibc's malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: During a task: blocks up to 32 MiB (glibc's largest mmap threshold on 64-bit) come
#: from the heap, and the heap is not trimmed below 1 GiB while the task runs.
TASK_MMAP_THRESHOLD = 32 << 20
TASK_TRIM_THRESHOLD = 1 << 30
#: glibc's mmap threshold when fixed (``DEFAULT_MMAP_THRESHOLD_MIN``).
DEFAULT_MMAP_THRESHOLD = 128 << 10

_lock = threading.Lock()
_depth = 0


def _fixed_thresholds():
    """(trim, mmap) thresholds the process was started with, or None when it left them
    to glibc."""
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if trim is None:
        return None
    try:
        mmap = int(os.environ.get("MALLOC_MMAP_THRESHOLD_", DEFAULT_MMAP_THRESHOLD))
        return int(trim), mmap
    except ValueError:
        return None


@contextmanager
def large_heap():
    """Freed memory reused within the block, given back after it (in a process
    started with ``MALLOC_TRIM_THRESHOLD_``, as ``dask.distributed`` workers are; a
    no-op elsewhere). Blocks may nest and run in several threads: the outermost one
    sets and restores.

    Examples
    --------
    >>> import numpy as np
    >>> with large_heap():
    ...     total = float(np.ones(10**6).sum())
    >>> total
    1000000.0
    """
    global _depth
    fixed = _fixed_thresholds()
    libc = glibc() if fixed is not None else None
    if libc is None:
        yield
        return
    with _lock:
        _depth += 1
        if _depth == 1:
            libc.mallopt(M_MMAP_THRESHOLD, TASK_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, TASK_TRIM_THRESHOLD)
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                libc.mallopt(M_MMAP_THRESHOLD, fixed[1])
                libc.mallopt(M_TRIM_THRESHOLD, fixed[0])
