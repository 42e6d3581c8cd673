"""Independent steps of the pair tables run side by side, on two threads.

numpy releases the GIL in its large sorts, gathers and arithmetic, so two steps that share
no mutable state run on two cores at once: blocks of one run of the matching pipeline (a
pairing's matching does not depend on the other pairings of its run, :func:`blocks`,
:func:`joined`), the search for copied items beside the matching, the within-item rows
beside the chance sample. Each step computes exactly what it would alone (the same
functions on the same arrays), so the tables do not depend on whether the steps ran side
by side or one after the other, nor on which finished first.

The second thread is the process's one (:mod:`iaa_frames.core.side_thread`), used on a
machine of two cores or more (:func:`spare_workers`), whatever else
it runs, so that a run's cost does not depend on the moment it starts. (On a two-core
machine shared at a load of 4 to 7, threaded runs were as often slower as faster than
steps in turn: two threads of one process can stall each other there.)

Steps that write to shared state (the exact polygon IoU of
:class:`~iaa_frames.core.matching.pair_values.IoUCache`, for a corpus with polygons) run one
after the other, in the calling thread (``Jobs(0)``).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from iaa_frames.core.matching.pipeline import Matched
from iaa_frames.core.side_thread import SideThread

__all__ = [
    "BLOCKS_PER_THREAD",
    "BLOCK_MIN_COST",
    "WORKERS",
    "Jobs",
    "blocks",
    "joined",
    "known_rows",
    "locked",
    "matched_once",
    "spare_workers",
]

#: Threads beside the calling one, which works too (:meth:`Jobs.run_all`): two cores
#: busy, as on the two-core machine the targets are set on; more threads would hold more
#: temporaries at once for no gain there.
WORKERS = 1
#: Candidate object pairs of a block of pairings, at least (tens of milliseconds of work:
#: smaller blocks cost more to hand over than they save). A run is cut into up to
#: :data:`BLOCKS_PER_THREAD` blocks per thread, so that no thread waits long for the
#: last block of another.
BLOCK_MIN_COST = 400_000
BLOCKS_PER_THREAD = 4


def spare_workers(cores: int | None = None) -> int:
    """:data:`WORKERS`, or 0 on a machine of one core (the cores this process may use).

    Examples
    --------
    >>> spare_workers(cores=2), spare_workers(cores=1)
    (1, 0)
    """
    if cores is None:
        affinity = getattr(os, "sched_getaffinity", None)
        cores = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    return WORKERS if cores >= 2 else 0


class Jobs:
    """Steps submitted to a pool of threads, or run at once.

    Parameters
    ----------
    workers : {0, 1}, optional
        1: steps on the process's second thread
        (:class:`~iaa_frames.core.side_thread.SideThread`); 0: every step in the calling
        thread (a submitted one when its result is asked for). Default
        :func:`spare_workers`.

    Examples
    --------
    >>> import numpy as np
    >>> with Jobs(1) as jobs:
    ...     jobs.submit(np.sort, np.array([3, 1, 2])).result().tolist()
    [1, 2, 3]
    >>> step = Jobs(0).submit(np.sort, np.array([2, 1]))
    >>> step.done(), step.result().tolist(), step.done()
    (False, [1, 2], True)
    """

    def __init__(self, workers: int | None = None):
        workers = spare_workers() if workers is None else workers
        if workers not in (0, 1):
            raise ValueError(f"workers must be 0 or 1, not {workers!r}")
        #: Threads working on a :meth:`run_all`: the pool's and the calling one.
        self.threads = workers + 1
        #: Blocks to cut a run of pairings into (:func:`blocks`): one without threads.
        self.blocks = BLOCKS_PER_THREAD * self.threads if workers > 0 else 1
        self._pool = SideThread() if workers > 0 else None

    def __enter__(self) -> Jobs:
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:  # a step still running is waited for, none started
            self._pool.close()

    def run_all(self, calls) -> list:
        """The results of ``calls`` (tuples ``(fn, *args)``), in order: every call is
        submitted to the pool, which takes them from the first, and the calling thread
        runs those the pool has not started, from the last (so that it works rather than
        waits, and nothing waits behind a busy pool).

        Examples
        --------
        >>> with Jobs(1) as jobs:
        ...     jobs.run_all([(max, 1, 2), (min, 1, 2)])
        [2, 1]
        """
        calls = list(calls)
        if self._pool is None or len(calls) < 2:
            return [fn(*args) for fn, *args in calls]
        futures = [self._pool.submit(*call) for call in calls]
        out = [None] * len(calls)
        # the pool takes the calls from the first, this thread from the last, until it
        # meets one the pool has started (hence every one before it): calls[:by_pool]
        # are the pool's. Taken in order, this thread would wait on each call the pool
        # had just started, and run almost none (1M boxes: 1.5 s of waiting).
        by_pool = len(calls)
        while by_pool and futures[by_pool - 1].cancel():
            by_pool -= 1
            fn, *args = calls[by_pool]
            out[by_pool] = fn(*args)
        for i in range(by_pool):  # a loop over blocks (a few), not rows
            out[i] = futures[i].result()
        return out

    def submit(self, fn, /, *args, **kwargs):
        """``fn(*args, **kwargs)`` on a thread of the pool; without one, in the calling
        thread when its ``result()`` is first asked for (so that one after the other the
        steps run, and hold their memory, where they did before there were threads)."""
        if self._pool is not None:
            return self._pool.submit(fn, *args, **kwargs)
        return _Later(fn, args, kwargs)


class _Later:
    """A step run in the calling thread when its result is first asked for."""

    def __init__(self, fn, args, kwargs):
        self._call = (fn, args, kwargs)
        self._value = self._error = None

    def done(self) -> bool:
        return self._call is None

    def result(self):
        if self._call is not None:
            (fn, args, kwargs), self._call = self._call, None
            try:
                self._value = fn(*args, **kwargs)
            except BaseException as error:  # raised at every result(), as by a Future
                self._error = error
        if self._error is not None:
            raise self._error
        return self._value


def locked(update):
    """``update`` (a progress bar's, say) callable from several threads at once, one call
    at a time.

    Examples
    --------
    >>> seen = []
    >>> locked(seen.append)(3)
    >>> seen
    [3]
    """
    lock = threading.Lock()

    def call(n):
        with lock:
            update(n)

    return call


def blocks(cost, n_blocks: int, min_cost: int | None = None) -> list[tuple[int, int]]:
    """``(lo, hi)`` ranges cutting pairings of ``cost`` (candidate pairs each) into at
    most ``n_blocks`` consecutive blocks of about equal cost, each of about ``min_cost``
    (default :data:`BLOCK_MIN_COST`) or more: one block when the total is below twice
    that, or ``n_blocks`` < 2. Empty blocks are left out.

    Examples
    --------
    >>> blocks(np.array([5, 1, 1, 1, 1, 1]), 2, min_cost=0)
    [(0, 1), (1, 6)]
    >>> blocks(np.array([5, 1]), 2)
    [(0, 2)]
    >>> blocks(np.ones(12), 4, min_cost=5)  # at most 12 // 5 blocks of 5 or more
    [(0, 6), (6, 12)]
    """
    cost = np.asarray(cost, dtype=np.int64)
    min_cost = BLOCK_MIN_COST if min_cost is None else min_cost
    n = len(cost)
    total = int(cost.sum())
    n_blocks = min(n_blocks, total // max(min_cost, 1))
    if n_blocks < 2 or n < 2:
        return [(0, n)] if n else []
    cum = np.cumsum(cost)
    # block k ends after the first pairing where the running cost reaches k/n of the total
    ends = np.searchsorted(cum, total * np.arange(1, n_blocks) / n_blocks, side="left") + 1
    cuts = np.unique(np.r_[0, np.minimum(ends, n), n])
    return [(int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)]


def joined(parts) -> Matched:
    """One :class:`~iaa_frames.core.matching.pipeline.Matched` of the matchings ``(lo, m)`` of
    consecutive blocks of pairings (``lo`` the first pairing of each, in order): what
    matching all the pairings at once gives, since a pairing's matching does not depend on
    the others.

    Examples
    --------
    >>> m = Matched.empty()
    >>> len(joined([(0, m), (0, m)]).set_n_a)
    0
    """
    parts = list(parts)
    if not parts:
        return Matched.empty()
    if len(parts) == 1:
        return parts[0][1]
    fields = [f for f in Matched.__dataclass_fields__]
    out = {f: np.concatenate([getattr(m, f) for _, m in parts]) for f in fields}
    out["pair_pairing"] = np.concatenate([m.pair_pairing + lo for lo, m in parts])
    return Matched(**out)


def _taken(matched: Matched, rows: np.ndarray) -> Matched:
    """The :class:`~iaa_frames.core.matching.pipeline.Matched` of the pairings ``rows`` of
    ``matched`` (in that order): each pairing's pairs as they stand in it (a run of
    consecutive pairs: :func:`~iaa_frames.core.matching.pipeline.run` lists them by
    pairing), renumbered."""
    rows = np.asarray(rows, dtype=np.int64)
    lo = np.searchsorted(matched.pair_pairing, rows, side="left")
    count = np.searchsorted(matched.pair_pairing, rows, side="right") - lo
    pairing = np.repeat(np.arange(len(rows), dtype=np.int64), count)
    pick = np.repeat(lo - (np.cumsum(count) - count), count) + np.arange(len(pairing))
    fields = {
        f: getattr(matched, f)[pick if f.startswith("pair_") else rows]
        for f in Matched.__dataclass_fields__
        if f != "pair_pairing"
    }
    return Matched(pair_pairing=pairing, **fields)


def matched_once(match, known: list, a, b, n_slots: int, **kwargs) -> Matched:
    """``match(a, b, **kwargs)``, the pairings already matched in ``known`` (a list of
    ``(a, b, Matched)``) taken from there rather than matched again: the same result, a
    pairing's matching not depending on the others of its call (:func:`joined`), and
    :func:`~iaa_frames.core.matching.pipeline.run` listing the pairs by pairing.

    The per-class chance rows of detection and overall are matched in their classes
    after the draw; the classes' strata, sized by their noise, matched most of them
    already (the uniform stratum's pairings in every class either side holds): at 1,000
    objects an image, 2,000 of those pairings of about 1,000 boxes were matched twice
    (0.2 s of CPU, 6 % of the run).

    Examples
    --------
    >>> import numpy as np
    >>> def match(a, b):  # pairing i: one pair (a[i], b[i]), its set values a[i] + b[i]
    ...     i = np.arange(len(a))
    ...     v = (a + b).astype(float)
    ...     return Matched(i, a, b, v, v, a, b, i, v, v)
    >>> first = match(np.array([1, 2]), np.array([5, 6]))
    >>> got = matched_once(match, [(np.array([1, 2]), np.array([5, 6]), first)],
    ...                    np.array([2, 3]), np.array([6, 7]), n_slots=10)
    >>> got.pair_a.tolist(), got.set_overall.tolist(), got.pair_pairing.tolist()
    ([2, 3], [8.0, 10.0], [0, 1])
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    rows = known_rows(known, a, b, n_slots)
    if not (rows >= 0).any():
        return match(a, b, **kwargs)
    new = np.flatnonzero(rows < 0)
    parts = [m for _, _, m in known]
    if new.size:
        parts.append(match(a[new], b[new], **kwargs))
        rows[new] = sum(len(m.set_n_a) for m in parts[:-1]) + np.arange(new.size)
    starts = np.cumsum([0] + [len(m.set_n_a) for m in parts[:-1]])
    return _taken(joined(zip(starts.tolist(), parts, strict=True)), rows)


def known_rows(known: list, a, b, n_slots: int) -> np.ndarray:
    """For every pairing ``(a[i], b[i])``, its place among the pairings of ``known``
    (``(a, b, Matched)`` entries, laid end to end), or -1 where it is not there.

    Examples
    --------
    >>> known = [(np.array([1, 2]), np.array([5, 6]), None)]
    >>> known_rows(known, np.array([2, 3]), np.array([6, 7]), n_slots=10).tolist()
    [1, -1]
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    out = np.full(len(a), -1, dtype=np.int64)
    if not known or not len(a):
        return out
    old = np.concatenate([np.asarray(x, np.int64) * n_slots + y for x, y, _ in known])
    if not len(old):
        return out
    order = np.argsort(old, kind="stable")
    key = a * n_slots + b
    pos = np.minimum(np.searchsorted(old, key, sorter=order), len(old) - 1)
    found = old[order[pos]] == key
    out[found] = order[pos[found]]
    return out
