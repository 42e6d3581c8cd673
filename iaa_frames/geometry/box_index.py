"""The object pairs of many pairings whose bounding boxes overlap, without listing all pairs.

A pairing pairs the objects ``[start_a, start_a + count_a)`` with the objects
``[start_b, start_b + count_b)`` of one array of boxes. Each pairing gets a grid of its
own (cells about as wide and as tall as its boxes on average, at most
:data:`GRID_CELLS` along an axis); every box is entered in each cell it touches, and the
boxes of the two sides that share a cell are the candidates. Two overlapping boxes share
the cell of the corner ``(max x0, max y0)`` of their intersection, and are listed there
only, so no pair is listed twice. The candidates are about four times the overlapping
pairs when the boxes are of one size: the cost grows with the pairs that overlap, not with
``count_a * count_b`` (a sort-and-sweep along one axis, the method before, looked at every
pair overlapping along that axis: a tenth of all pairs for boxes of a tenth of the image,
so a cost that grew with the square of the objects per image). Nothing loops in Python per
pairing or per pair.

The candidates are then tested exactly (``x0_i < x1_j`` and ``x0_j < x1_i``, the same on
y), so the pairs returned are exactly the pairs with ``min(x1) - max(x0) > 0`` and
``min(y1) - max(y0) > 0``: a superset of the pairs with a positive intersection area. An
empty box (``x1 <= x0``, a NaN) overlaps nothing. Pairings with a box of infinite
coordinates use the sort-and-sweep (:func:`sweep_pairs`), exact there as well.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GRID_CELLS", "overlapping_pairs", "sweep_axis_cost", "sweep_cost", "sweep_pairs"]

#: Most cells of a pairing's grid along one axis.
GRID_CELLS = 4096


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


def _per_pairing(searches, n):
    total = np.zeros(n, dtype=np.int64)
    for pairing, _, _, count in searches:
        total += np.bincount(pairing, weights=count, minlength=n).astype(np.int64)
    return total


def _costs(index, n):
    """Pairs listed along x and along y, per pairing."""
    return [_per_pairing(index.searches(k, index.seg_a, index.seg_b), n) for k in (0, 1)]


def sweep_axis_cost(boxes, start_a, count_a, start_b, count_b) -> np.ndarray:
    """Object pairs :func:`sweep_pairs` looks at for each pairing (an upper bound
    of the pairs it returns), for sizing chunks of work.

    """
    n = len(start_a)
    if not n:
        return np.zeros(0, dtype=np.int64)
    index = _Index(np.asarray(boxes, dtype=np.float64), start_a, count_a, start_b, count_b)
    return np.minimum(*_costs(index, n))


def sweep_pairs(boxes, start_a, count_a, start_b, count_b):
    """Every object pair of every pairing whose boxes overlap in x and in y, by a
    sort-and-sweep along the axis where fewer pairs overlap (:func:`overlapping_pairs`).

    Parameters
    ----------
    boxes : ndarray of float, shape (n_objects, 4)
        ``x0, y0, x1, y1`` of every object.
    start_a, count_a, start_b, count_b : ndarray of int, shape (P,)
        Pairing ``p`` pairs objects ``start_a[p] + i`` (``i < count_a[p]``) with objects
        ``start_b[p] + j`` (``j < count_b[p]``).

    Returns
    -------
    pairing, local_a, local_b : ndarray of int64
        The pairs with ``min(x1) - max(x0) > 0`` and ``min(y1) - max(y0) > 0``, ordered
        by pairing, then ``i``, then ``j`` (the order of
        :func:`iaa_frames.matching.assignment.candidate_pairs`).

    """
    boxes = np.asarray(boxes, dtype=np.float64)
    n = len(start_a)
    z = np.zeros(0, dtype=np.int64)
    if not n:
        return z, z, z
    index = _Index(boxes, start_a, count_a, start_b, count_b)
    cost_x, cost_y = _costs(index, n)
    use_y = cost_y < cost_x
    parts = []
    for k, chosen in ((0, ~use_y), (1, use_y)):
        if not chosen.any():
            continue
        sel = np.flatnonzero(chosen)
        searches = index.searches(k, index.seg_a[sel], index.seg_b[sel])
        _, order, *_ = index.axis(k)
        # exact test of both axes on the ranks of the coordinates (integers, no gather of
        # boxes): the sweep lists x0_i <= x0_j < x1_i (or the converse), not x0_i < x1_j
        lo_k, hi_k = index.axis(k)[2:4]
        lo_o, hi_o = index.axis(1 - k)[2:4]
        for side, (pairing, entry, lo, count) in enumerate(searches):
            owner, step = _runs(count)
            found = order[lo[owner] + step]  # entries of the other side
            query = entry[owner]
            keep = (
                (lo_o[query] < hi_o[found])
                & (lo_o[found] < hi_o[query])
                & (lo_k[query] < hi_k[found])
                & (lo_k[found] < hi_k[query])
            )
            query, found, owner = query[keep], found[keep], owner[keep]
            ea, eb = (query, found) if side == 0 else (found, query)
            parts.append((sel[pairing[owner]], index.local[ea], index.local[eb]))
    pairing, la, lb = (np.concatenate(x) for x in zip(*parts))
    order = np.lexsort((lb, la, pairing))
    return pairing[order], la[order], lb[order]


def _side(boxes, start, count):
    """(pairing, object, box) of every object of one side whose box is not empty."""
    pairing, local = _runs(count)
    obj = start[pairing] + local
    box = boxes[obj]
    ok = (box[:, 0] < box[:, 2]) & (box[:, 1] < box[:, 3])
    return pairing[ok], local[ok], box[ok]


class _Grid:
    """Every non-empty box of both sides entered in the cells of its pairing's grid."""

    def __init__(self, boxes, start_a, count_a, start_b, count_b):
        n = len(start_a)
        start_a, count_a = np.asarray(start_a, np.int64), np.asarray(count_a, np.int64)
        start_b, count_b = np.asarray(start_b, np.int64), np.asarray(count_b, np.int64)
        self.a = _side(boxes, start_a, count_a)
        self.b = _side(boxes, start_b, count_b)
        # per pairing: the lower corner and the mean width and height of its boxes
        both = [np.r_[self.a[0], self.b[0]], np.r_[self.a[2], self.b[2]]]
        pairing, box = both
        lo = np.full((n, 2), np.inf)
        np.minimum.at(lo, (pairing[:, None], np.array([[0, 1]])), box[:, :2])
        lo = np.where(np.isfinite(lo), lo, 0.0)
        k = np.bincount(pairing, minlength=n).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_w = np.bincount(pairing, weights=box[:, 2] - box[:, 0], minlength=n) / k
            mean_h = np.bincount(pairing, weights=box[:, 3] - box[:, 1], minlength=n) / k
            hi = np.full((n, 2), -np.inf)
            np.maximum.at(hi, (pairing[:, None], np.array([[0, 1]])), box[:, 2:])
            extent = np.where(np.isfinite(hi), hi - lo, 0.0)
            size = np.stack([mean_w, mean_h], axis=1)
            size = np.fmax(size, extent / GRID_CELLS)
            size = np.where(np.isfinite(size) & (size > 0), size, 1.0)
        self.lo, self.size = lo, size
        self.cells_a = self._cells(*self.a)
        self.cells_b = self._cells(*self.b)

    def _cell(self, pairing, x, axis):
        c = np.floor((x - self.lo[pairing, axis]) / self.size[pairing, axis])
        return np.clip(c, 0, GRID_CELLS - 1).astype(np.int64)

    def _cells(self, pairing, local, box):
        """(key, entry, x cell of x0, y cell of y0) of every (box, cell it touches),
        sorted by key; ``key`` is (pairing, cell x, cell y)."""
        cx0, cy0 = self._cell(pairing, box[:, 0], 0), self._cell(pairing, box[:, 1], 1)
        cx1, cy1 = self._cell(pairing, box[:, 2], 0), self._cell(pairing, box[:, 3], 1)
        ny = cy1 - cy0 + 1
        entry, t = _runs((cx1 - cx0 + 1) * ny)
        cx = cx0[entry] + t // ny[entry]
        cy = cy0[entry] + t % ny[entry]
        key = (pairing[entry] * GRID_CELLS + cx) * GRID_CELLS + cy
        order = np.argsort(key, kind="stable")
        return key[order], entry[order], cx0, cy0

    def matches(self):
        """(entry of a, lo, count) of the run of b's sorted cell entries sharing each
        cell entry of a."""
        key_a, entry_a, _, _ = self.cells_a
        key_b = self.cells_b[0]
        lo = np.searchsorted(key_b, key_a, side="left")
        hi = np.searchsorted(key_b, key_a, side="right")
        return key_a, entry_a, lo, hi - lo


def _finite(boxes, start_a, count_a, start_b, count_b):
    """Whether no box of the pairings has an infinite coordinate (the grid's cells need
    finite ones)."""
    bad = np.isinf(boxes).any(axis=1)
    if not bad.any():
        return True
    prefix = np.r_[0, np.cumsum(bad)]
    return not (
        (prefix[start_a + count_a] - prefix[start_a]).any()
        or (prefix[start_b + count_b] - prefix[start_b]).any()
    )


def sweep_cost(boxes, start_a, count_a, start_b, count_b) -> np.ndarray:
    """Candidate object pairs :func:`overlapping_pairs` looks at for each pairing (an
    upper bound of the pairs it returns, at most ``count_a * count_b``), for sizing
    chunks of work.

    Examples
    --------
    >>> boxes = np.array([[0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 3, 3], [9, 0, 10, 1.0]])
    >>> sweep_cost(boxes, np.array([0]), np.array([2]), np.array([2]), np.array([2])).tolist()
    [4]

    (Four boxes share few cells: at most all 2 x 2 pairs are looked at.)
    """
    boxes = np.asarray(boxes, dtype=np.float64)
    n = len(start_a)
    if not n:
        return np.zeros(0, dtype=np.int64)
    start_a, count_a = np.asarray(start_a, np.int64), np.asarray(count_a, np.int64)
    start_b, count_b = np.asarray(start_b, np.int64), np.asarray(count_b, np.int64)
    if not _finite(boxes, start_a, count_a, start_b, count_b):
        return sweep_axis_cost(boxes, start_a, count_a, start_b, count_b)
    grid = _Grid(boxes, start_a, count_a, start_b, count_b)
    key_a, _, _, count = grid.matches()
    cost = np.bincount(key_a // GRID_CELLS**2, weights=count, minlength=n).astype(np.int64)
    return np.minimum(cost, count_a * count_b)


def overlapping_pairs(boxes, start_a, count_a, start_b, count_b):
    """Every object pair of every pairing whose boxes overlap in x and in y.

    Parameters
    ----------
    boxes : ndarray of float, shape (n_objects, 4)
        ``x0, y0, x1, y1`` of every object.
    start_a, count_a, start_b, count_b : ndarray of int, shape (P,)
        Pairing ``p`` pairs objects ``start_a[p] + i`` (``i < count_a[p]``) with objects
        ``start_b[p] + j`` (``j < count_b[p]``).

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
    start_a, count_a = np.asarray(start_a, np.int64), np.asarray(count_a, np.int64)
    start_b, count_b = np.asarray(start_b, np.int64), np.asarray(count_b, np.int64)
    if not _finite(boxes, start_a, count_a, start_b, count_b):
        return sweep_pairs(boxes, start_a, count_a, start_b, count_b)
    grid = _Grid(boxes, start_a, count_a, start_b, count_b)
    key_a, entry_a, lo, count = grid.matches()
    owner, step = _runs(count)
    ea = entry_a[owner]
    eb = grid.cells_b[1][lo[owner] + step]
    cell = key_a[owner] % GRID_CELLS**2
    del owner, step
    (pa, la, box_a), (_, lb, box_b) = grid.a, grid.b
    cx0a, cy0a = grid.cells_a[2:]
    cx0b, cy0b = grid.cells_b[2:]
    # listed in the cell of the intersection's lower corner only, then tested exactly
    keep = (np.maximum(cx0a[ea], cx0b[eb]) == cell // GRID_CELLS) & (
        np.maximum(cy0a[ea], cy0b[eb]) == cell % GRID_CELLS
    )
    ea, eb = ea[keep], eb[keep]
    ba, bb = box_a[ea], box_b[eb]
    keep = (
        (ba[:, 0] < bb[:, 2])
        & (bb[:, 0] < ba[:, 2])
        & (ba[:, 1] < bb[:, 3])
        & (bb[:, 1] < ba[:, 3])
    )
    pairing, i, j = pa[ea[keep]], la[ea[keep]], lb[eb[keep]]
    order = np.lexsort((j, i, pairing))
    return pairing[order], i[order], j[order]
