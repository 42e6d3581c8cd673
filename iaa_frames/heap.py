"""glibc's heap thresholds (the kernel's huge pages, Python's cyclic collector) for the
engine's array work.

The engine allocates and frees large temporaries by the thousand: the box pairs of each
pairing, sort keys, the chance sample's units, the KS tests' sparse products. Under
glibc, a block above the *mmap threshold* is a fresh ``mmap``, its pages zeroed by the
kernel on first touch and unmapped again when freed, and free memory above the *trim
threshold* at the top of the heap goes back to the system, to be faulted in again by the
next allocation. Both thresholds start low (128 KiB and 128 KiB) and grow only as large
blocks are freed, up to 32 MiB and 64 MiB; a process started with
``MALLOC_TRIM_THRESHOLD_`` (a ``dask.distributed`` worker: its nanny sets 65,536 so that
freed memory goes back to the system) keeps them fixed at their minimum.

:func:`large_heap` sets the mmap threshold at that ceiling (32 MiB) and the trim
threshold at 256 MiB for the duration of a block, from its start, so that the block's
freed memory is reused rather than unmapped or trimmed and faulted in again. It also limits the process to one malloc *arena* (glibc's
``M_ARENA_MAX``), unless the process was started with a limit of its own
(``MALLOC_ARENA_MAX``, or ``arena_max`` in ``GLIBC_TUNABLES``): a thread attached to an
arena of its own allocates from heaps of at most 64 MiB that glibc maps for it and unmaps
as soon as they are free, and what it frees cannot serve the other thread. The engine's
second thread (:mod:`iaa_frames.core.side_thread`), started inside the first block, then
allocates from the main arena: 1M boxes, fresh processes, five each in turn, 1.6-2.4 s of
system time against 2.7-3.9 s, 101k-136k page faults against 160k-229k, a peak of
1,851-1,928 MB against 1,868-2,284 MB. The limit holds for the rest of the process (glibc
fixes it once a thread has needed an arena; threads started later share the arenas the
process has).

Within the block the process also refuses *transparent huge pages* (Linux's
``prctl(PR_SET_THP_DISABLE)``), unless it had refused them already. NumPy asks for them
(``madvise(MADV_HUGEPAGE)``) on every array of 4 MiB or more, and where the system's
policy is ``madvise`` (the common default) the kernel then zeroes 2 MiB at a time on first
touch, touched or not: at 1M boxes a sampled profile (``perf``) put 15 % of the run's CPU
in ``clear_page_erms`` under ``do_huge_pmd_anonymous_page``. With them refused, 1M boxes
took 1.0-1.3 s of system time against 2.5-2.7 s, and 6.9-7.3 s of wall time against
7.5-7.7 s (fresh processes, the code before and after in one hour), about the same peak
(1,819-1,954 MB against 1,826-1,884 MB), more page faults (550k-670k against 95k-110k)
and 0.2-0.5 s more user time (TLB misses); the smaller corpora of the scale curves and
LVIS did not change (``benchmarks/results/thp_block_2026-12-07.txt``). Memory the process mapped
before the block keeps its pages.

Python's cyclic garbage collector is paused within the in-memory engine's blocks
(``pause_collector``; :func:`gc.disable`, on any system, with or without glibc). The
engine makes its objects by the ten thousand (the
shapely geometries of hulls and rings, the reader's polygons): enough of them live
through two young collections to make the collector run a *full* collection, which
walks every object the process holds (about 130,000 after importing pandas, scipy and
xarray) for nothing, the engine's objects being freed by their reference counts. On the
real LVIS subset that was one collection of 56-90 ms in a run of 1.1-1.4 s, none since;
callgrind counts 54M fewer instructions in the collector (of 7.2G for reading the file
and ``agreement``). Reference cycles made within the block are collected after it,
by the collector's next run. A dask worker's blocks leave the collector alone: its tasks
may follow one another in several threads without a moment when none is in a block.
When the last block in the process ends:

* the collector runs again (if it ran before the first block that paused it);
* huge pages are allowed again (if the block refused them);
* a process started with ``MALLOC_TRIM_THRESHOLD_`` (and ``MALLOC_MMAP_THRESHOLD_``) gets
  the values it was started with back;
* elsewhere the thresholds stay at the ceiling: glibc's adaptation stops once a threshold
  is set, and this is where it ends, in a process that has freed one array of 32 MiB;
* and ``malloc_trim(0)`` hands the free memory inside the heap back to the system. The
  trim threshold returns only the free memory at the *top* of the heap: one live block
  above the freed arrays (a result, a cached string) keeps all of them resident. After
  ``agreement`` on 1M boxes, a process holding the result held 1,415-1,619 MB without it
  and 991-1,008 MB with it (the frame, the result and its tables are the rest); three
  calls in turn, each result held until the next was computed, peaked at 2,824-2,908 MB
  without it and 2,570-2,603 MB with it. The trim takes 5 ms after 88k boxes, 17-19 ms
  after 1M.

Measured (the validation pages of the documentation, "glibc's heap"), the thresholds set
before a run of ~88k boxes at 1,000 objects per image: 0.86-1.24 s of system time
before, 0.44-0.46 s at the ceiling (0.33-0.50 s in two batches with a trim threshold of
128 MiB, whose peak over three calls of 1M boxes in one process was 2,141 MB against
1,969 MB). The dask workers had a block of 32 MiB and 1 GiB before (a 470k-row
partition: 2.7 s of system time without it, 0.5 s with it). The results are the same bit
for bit: the block changes where memory comes from, never a value (tested under glibc's
``MALLOC_PERTURB_``, which fills reused memory with a pattern). On another C library, or
another system, the block pauses the collector (where asked) and does nothing else.

Examples
--------
>>> import numpy as np
>>> with large_heap():
...     total = float(np.ones(10**6).sum())
>>> total
1000000.0
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
from contextlib import contextmanager

__all__ = ["glibc", "large_heap"]

_GLIBC: list = []  # the handle (or None), looked up once


def glibc():
    """glibc (with ``mallopt`` and ``malloc_trim``), or None on another C library or system.

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
                lib.malloc_trim  # noqa: B018
                lib.prctl  # noqa: B018
            except (OSError, AttributeError):
                lib = None
        _GLIBC.append(lib)
    return _GLIBC[0]


#: ``mallopt`` parameters (glibc's malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
#: The ceiling of glibc's adaptive mmap threshold (``DEFAULT_MMAP_THRESHOLD_MAX``: 4 MiB
#: times the size of a long, 32 MiB on 64-bit systems); its adaptive trim threshold is
#: twice the mmap threshold.
ADAPTIVE_MMAP_CEILING = (4 << 20) * ctypes.sizeof(ctypes.c_long)
ADAPTIVE_TRIM_CEILING = 2 * ADAPTIVE_MMAP_CEILING
#: Inside a block: the adaptive ceiling of the mmap threshold, from the start, and a trim
#: threshold of 256 MiB. With two arenas a trim threshold of 128 MiB or 1 GiB saved no
#: more system time than the ceiling (64 MiB) at 1,000 boxes per image, and raised the
#: peak; with the one arena the two threads share, their frees meet at the top of one
#: heap: 256 MiB took 0.15-0.16 s of system time there against 0.22-0.36 s (three fresh
#: processes each, in turn), and three 1M calls in one process peaked at 2,549-2,571 MB
#: against 2,583-2,602 MB.
BLOCK_MMAP_THRESHOLD = ADAPTIVE_MMAP_CEILING
BLOCK_TRIM_THRESHOLD = 256 << 20
#: ``prctl`` options (linux/prctl.h): set and read the process's refusal of transparent
#: huge pages.
PR_SET_THP_DISABLE, PR_GET_THP_DISABLE = 41, 42
#: glibc's mmap threshold when fixed (``DEFAULT_MMAP_THRESHOLD_MIN``).
DEFAULT_MMAP_THRESHOLD = 128 << 10

_lock = threading.Lock()
_depth = 0
_huge_pages_refused = False  # by the first block (the process had not refused them itself)
_paused_depth = 0  # blocks that pause the collector
_collector_paused = False  # by the first of them (the collector was running)


def _after():
    """(trim, mmap) thresholds to set when the last block ends: those the process was
    started with, or the ceiling of glibc's adaptive ones."""
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if trim is not None:
        try:
            mmap = int(os.environ.get("MALLOC_MMAP_THRESHOLD_", DEFAULT_MMAP_THRESHOLD))
            return int(trim), mmap
        except ValueError:
            pass
    return ADAPTIVE_TRIM_CEILING, ADAPTIVE_MMAP_CEILING


def _arena_limit_free() -> bool:
    """Whether the process was started without a limit of glibc's arenas of its own
    (``MALLOC_ARENA_MAX``, or ``glibc.malloc.arena_max`` in ``GLIBC_TUNABLES``)."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return "MALLOC_ARENA_MAX" not in os.environ and "arena_max" not in tunables


@contextmanager
def large_heap(*, pause_collector: bool = False):
    """glibc's thresholds raised within the block (and one arena for the process, and
    no transparent huge pages), so that freed memory is reused and fresh memory is not
    zeroed 2 MiB at a time, and with ``pause_collector`` Python's cyclic collector paused
    (the in-memory engine's entry points; not a dask worker's tasks, which may follow
    one another without end); after the last block, the collector and huge pages as
    before, a worker's own settings back and the heap's free memory returned to the
    system (module docstring). Blocks may nest and run in several threads: the first to
    enter sets the thresholds, the last to leave sets those of after and trims (the
    collector likewise, among the blocks that pause it). Without glibc, the collector's
    pause alone.

    Examples
    --------
    >>> import gc, numpy as np
    >>> with large_heap(pause_collector=True):
    ...     with large_heap():  # nested: the outer block sets and restores
    ...         n = int(np.arange(10).sum())
    ...     paused = not gc.isenabled()
    >>> n, paused, gc.isenabled()
    (45, True, True)
    """
    global _depth, _paused_depth, _collector_paused
    libc = glibc()
    with _lock:
        _depth += 1
        if pause_collector:
            _paused_depth += 1
            if _paused_depth == 1:
                _collector_paused = gc.isenabled()
                gc.disable()
        if _depth == 1 and libc is not None:
            _enter(libc)
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if pause_collector:
                _paused_depth -= 1
                if _paused_depth == 0 and _collector_paused:
                    gc.enable()
                    _collector_paused = False
            if _depth == 0 and libc is not None:
                _leave(libc)


def _enter(libc) -> None:
    """The settings of the first block: one arena, the thresholds, no huge pages."""
    global _huge_pages_refused
    if _arena_limit_free():
        libc.mallopt(M_ARENA_MAX, 1)
    libc.mallopt(M_MMAP_THRESHOLD, BLOCK_MMAP_THRESHOLD)
    libc.mallopt(M_TRIM_THRESHOLD, BLOCK_TRIM_THRESHOLD)
    # 0: huge pages allowed (-1: a kernel before 3.15, 1: refused already)
    if libc.prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0:
        _huge_pages_refused = libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0


def _leave(libc) -> None:
    """The settings after the last block: those of after, huge pages as before, a trim."""
    global _huge_pages_refused
    trim, mmap = _after()
    libc.mallopt(M_MMAP_THRESHOLD, mmap)
    libc.mallopt(M_TRIM_THRESHOLD, trim)
    if _huge_pages_refused:
        libc.prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0)
        _huge_pages_refused = False
    libc.malloc_trim(0)
