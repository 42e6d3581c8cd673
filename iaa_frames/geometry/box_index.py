"""The object pairs of many pairings whose bounding boxes overlap, without listing all pairs.

A pairing pairs the objects ``[start_a, start_a + count_a)`` with the objects
``[start_b, start_b + count_b)`` of one array of boxes. Two boxes overlap (their
intersection has positive width and height) only if their x intervals overlap, and two
intervals ``[x0_i, x1_i)``, ``[x0_j, x1_j)`` overlap exactly when one starts inside the
other: ``x0_i <= x0_j < x1_i`` or ``x0_j < x0_i < x1_j``. With each side's boxes sorted
by ``x0``, each of the two cases is a contiguous run of the other side, found by binary
search (a sort-and-sweep). Every pairing gets the axis (x or y) whose intervals overlap
least, so strips of boxes along one axis stay cheap; the listed pairs are then checked on
the other axis. The cost grows with the pairs that overlap along the chosen axis, not
with ``count_a * count_b``, and nothing loops in Python per pairing or per pair.

Comparisons are made on exact ranks of the coordinates (no arithmetic on them), so the
pairs returned are exactly the pairs with ``min(x1) - max(x0) > 0`` and
``min(y1) - max(y0) > 0``: a superset of the pairs with a positive intersection area.
"""

from __future__ import annotations

import numpy as np

__all__ = ["overlapping_pairs", "sweep_cost", "sweep_plan"]


def _runs(counts):
    """(owner, position within the owner's run) of every element of runs of ``counts``."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    start = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=start[1:])
    return owner, np.arange(len(owner), dtype=np.int64) - start[owner]


class _Index:
    """Each distinct object range of the pairings, sorted along one axis, for searching."""

    def __init__(self, boxes, start_a, count_a, start_b, count_b):
        start = np.concatenate([start_a, start_b]).astype(np.int64)
        count = np.concatenate([count_a, count_b]).astype(np.int64)
        ranges, inverse = np.unique(np.stack([start, count], axis=1), axis=0, return_inverse=True)
        inverse = inverse.ravel()
        self.seg_a, self.seg_b = inverse[: len(start_a)], inverse[len(start_a) :]
        seg, local = _runs(ranges[:, 1])
        self.obj = ranges[seg, 0] + local  # object of every (segment, position) entry
        self.local, self.seg = local, seg
        self.seg_first = np.zeros(len(ranges), dtype=np.int64)
        np.cumsum(ranges[:-1, 1], out=self.seg_first[1:])
        self.boxes = boxes
        self.n_seg = len(ranges)
        self.axes = {}

    def axis(self, k):
        """Sorted search keys and the ranks of every entry's interval along axis ``k``."""
        if k not in self.axes:
            lo, hi = self.boxes[self.obj, k], self.boxes[self.obj, k + 2]
            _, rank = np.unique(np.concatenate([lo, hi]), return_inverse=True)
            rank = rank.ravel().astype(np.int32 if len(rank) < 2**31 - 2 else np.int64)
            n = len(lo)
            r_lo, r_hi = rank[:n], rank[n:]
            width = int(rank.max()) + 2 if n else 1
            # an empty interval (x1 <= x0, or a NaN) overlaps nothing: it starts after
            # every other and ends before every other
            bad = ~(lo < hi)
            r_lo = np.where(bad, width - 1, r_lo)
            r_hi = np.where(bad, -1, r_hi)
            key = self.seg * width + r_lo
            order = np.argsort(key, kind="stable")  # by segment, then by interval start
            self.axes[k] = (key[order], order, r_lo, r_hi, width)
        return self.axes[k]

    def searches(self, k, seg_query, seg_other):
        """For every entry of the segments ``seg_query`` (one per pairing), the run of
        sorted entries of ``seg_other`` that starts inside its interval (``>=`` its start
        when ``closed``) as (pairing, query entry, lo, count), for both cases."""
        key, _, r_lo, r_hi, width = self.axis(k)
        counts = np.diff(np.r_[self.seg_first, len(self.obj)])
        out = []
        for closed, q_seg, o_seg in ((True, seg_query, seg_other), (False, seg_other, seg_query)):
            pairing, pos = _runs(counts[q_seg])
            entry = self.seg_first[q_seg][pairing] + pos
            base = o_seg[pairing] * width
            lo = np.searchsorted(key, base + r_lo[entry], side="left" if closed else "right")
            hi = np.searchsorted(key, base + r_hi[entry], side="left")
            out.append((pairing, entry, lo, np.maximum(hi - lo, 0)))
        return out

    def overlaps(self, k, seg_query, seg_other):
        """Per pairing, the entry pairs whose intervals along axis ``k`` overlap: the
        pairs :meth:`searches` lists, counted with one search per entry instead of two.

        Of the pairs of non-empty intervals, those that do not overlap lie one wholly
        before the other. With ``c_i`` the entries of the other side that start before
        ``i`` ends, ``sum_i c_i`` counts the overlapping pairs and the pairs whose ``j``
        lies wholly before ``i``; those are, from the other side, ``sum_j (n_q - c_j)``
        (``n_q`` the query side's non-empty entries, ``c_j`` those that start before
        ``j`` ends). An empty interval starts after every end: it is in no ``c``,
        and counts nothing as a query.
        """
        key, _, r_lo, r_hi, width = self.axis(k)
        filled = r_lo < r_hi  # the non-empty intervals, and how many a segment has
        n_filled = np.bincount(self.seg[filled], minlength=self.n_seg)
        counts = np.diff(np.r_[self.seg_first, len(self.obj)])
        n = len(seg_query)
        total = np.zeros(n, dtype=np.int64)
        for sign, q_seg, o_seg in ((1, seg_query, seg_other), (-1, seg_other, seg_query)):
            pairing, pos = _runs(counts[q_seg])
            entry = self.seg_first[q_seg][pairing] + pos
            o = o_seg[pairing]
            started = np.searchsorted(key, o * width + r_hi[entry], side="left")
            started -= self.seg_first[o]  # entries of the other side that start before
            if sign < 0:  # the pairs with this side's entry wholly before the other's
                started = n_filled[o] - started
            started = np.where(filled[entry], started, 0)  # an empty entry: none
            total += sign * np.bincount(pairing, weights=started, minlength=n).astype(np.int64)
        return total


def _costs(index, n):
    """Pairs listed along x and along y, per pairing."""
    return [index.overlaps(k, index.seg_a, index.seg_b) for k in (0, 1)]


def sweep_cost(boxes, start_a, count_a, start_b, count_b) -> np.ndarray:
    """Object pairs :func:`overlapping_pairs` looks at for each pairing (an upper bound
    of the pairs it returns), for sizing chunks of work.

    Examples
    --------
    >>> boxes = np.array([[0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 3, 3], [9, 0, 10, 1.0]])
    >>> sweep_cost(boxes, np.array([0]), np.array([2]), np.array([2]), np.array([2])).tolist()
    [1]
    """
    return sweep_plan(boxes, start_a, count_a, start_b, count_b)[0]


def sweep_plan(boxes, start_a, count_a, start_b, count_b):
    """:func:`sweep_cost` of each pairing, and the axis its sweep runs along (True: y),
    which :func:`overlapping_pairs` takes as ``use_y`` instead of counting again.

    Examples
    --------
    >>> boxes = np.array([[0, 0, 9, 1], [0, 3, 9, 4], [0, 0, 9, 1], [0, 3, 9, 4.0]])
    >>> cost, use_y = sweep_plan(boxes, np.array([0]), np.array([2]), np.array([2]),
    ...                          np.array([2]))
    >>> cost.tolist(), use_y.tolist()
    ([2], [True])
    """
    n = len(start_a)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    index = _Index(np.asarray(boxes, dtype=np.float64), start_a, count_a, start_b, count_b)
    cost_x, cost_y = _costs(index, n)
    return np.minimum(cost_x, cost_y), cost_y < cost_x


def overlapping_pairs(boxes, start_a, count_a, start_b, count_b, *, use_y=None):
    """Every object pair of every pairing whose boxes overlap in x and in y.

    Parameters
    ----------
    boxes : ndarray of float, shape (n_objects, 4)
        ``x0, y0, x1, y1`` of every object.
    start_a, count_a, start_b, count_b : ndarray of int, shape (P,)
        Pairing ``p`` pairs objects ``start_a[p] + i`` (``i < count_a[p]``) with objects
        ``start_b[p] + j`` (``j < count_b[p]``).
    use_y : ndarray of bool, shape (P,), optional
        The axis each pairing's sweep runs along, as :func:`sweep_plan` chose it for
        these boxes (counted here when not given). Any choice gives the same pairs.

    Returns
    -------
    pairing, local_a, local_b : ndarray of int64
        The pairs with ``min(x1) - max(x0) > 0`` and ``min(y1) - max(y0) > 0``, ordered
        by pairing, then ``i``, then ``j`` (the order of
        :func:`iaa_frames.matching.assignment.candidate_pairs`).

    Examples
    --------
    >>> boxes = np.array([[0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 3, 3], [9, 0, 10, 1.0]])
    >>> p, i, j = overlapping_pairs(boxes, np.array([0]), np.array([2]), np.array([2]),
    ...                             np.array([2]))
    >>> list(zip(i.tolist(), j.tolist()))
    [(0, 0)]
    """
    boxes = np.asarray(boxes, dtype=np.float64)
    n = len(start_a)
    z = np.zeros(0, dtype=np.int64)
    if not n:
        return z, z, z
    index = _Index(boxes, start_a, count_a, start_b, count_b)
    if use_y is None:
        cost_x, cost_y = _costs(index, n)
        use_y = cost_y < cost_x
    use_y = np.asarray(use_y, dtype=bool)
    parts = []
    for k, chosen in ((0, ~use_y), (1, use_y)):
        if not chosen.any():
            continue
        sel = np.flatnonzero(chosen)
        searches = index.searches(k, index.seg_a[sel], index.seg_b[sel])
        _, order, *_ = index.axis(k)
        # the exact test of the other axis on the ranks of the coordinates (integers, no
        # gather of boxes). Along the searched axis the run found holds the entries j
        # with x0_i <= x0_j < x1_i (x0_i < x0_j < x1_i the other way round): they
        # overlap i there, since x0_j < x1_j (an empty interval is ranked to start
        # after every end, so no run holds it)
        lo_o, hi_o = index.axis(1 - k)[2:4]
        for side, (pairing, entry, lo, count) in enumerate(searches):
            owner, step = _runs(count)
            found = order[lo[owner] + step]  # entries of the other side
            query = entry[owner]
            keep = (lo_o[query] < hi_o[found]) & (lo_o[found] < hi_o[query])
            query, found, owner = query[keep], found[keep], owner[keep]
            ea, eb = (query, found) if side == 0 else (found, query)
            parts.append((sel[pairing[owner]], index.local[ea], index.local[eb]))
    pairing, la, lb = (np.concatenate(x) for x in zip(*parts))
    return _in_order(pairing, la, lb, int(count_a.max()), int(count_b.max()))


def _in_order(pairing, la, lb, n_a: int, n_b: int):
    """The pairs ordered by pairing, then ``la``, then ``lb`` (each listed once): by one
    sort of the integer ``(pairing * n_a + la) * n_b + lb`` where it fits in 63 bits
    (several times faster than ``lexsort`` of the three), else by ``lexsort``."""
    if len(pairing) and (int(pairing.max()) + 1) * max(n_a, 1) * max(n_b, 1) < 2**62:
        key = (pairing * n_a + la) * n_b + lb
        key.sort()
        rest, lb = np.divmod(key, n_b)
        pairing, la = np.divmod(rest, n_a)
        return pairing, la, lb
    order = np.lexsort((lb, la, pairing))
    return pairing[order], la[order], lb[order]
