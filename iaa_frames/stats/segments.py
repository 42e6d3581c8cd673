"""Entries grouped by cell (an *entry* is a value in one cell, cells in ascending order):
the two sides of a test merged in order of (cell, value), and the first largest value of
every cell, without a general sort.

The engine's within and chance entries already come sorted by (cell, value) (every cell's
rows in order of distance, :class:`iaa_frames.core.engine.sigma.SigmaCells`): merging them
costs a binary search of every entry of the smaller side in its cell's entries of the
other side, where a ``numpy.lexsort`` of the millions of entries would sort them again.

Examples
--------
>>> import numpy as np
>>> merged_order(np.array([0.1, 0.3]), np.array([0, 0]), np.array([0.2]), np.array([0])).tolist()
[0, 2, 1]
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cell_groups",
    "first_argmax",
    "merged_order",
    "merged_positions",
    "search_cells",
    "sorted_by_cell",
]


def search_cells(cell, values, side: str = "left") -> np.ndarray:
    """``numpy.searchsorted(cell, values, side)`` with ``values`` in the integer type of
    the sorted codes ``cell`` when they fit in it: numpy searches in a common type, and
    int64 values would make it copy every int32 entry of ``cell`` to int64 (1M boxes:
    80 MB a search); the same positions.

    Examples
    --------
    >>> search_cells(np.array([0, 0, 2], dtype=np.int32), np.arange(4)).tolist()
    [0, 2, 2, 3]
    """
    values = np.asarray(values)
    kind = cell.dtype
    if kind.kind in "iu" and values.dtype.kind in "iu" and values.dtype != kind and values.size:
        info = np.iinfo(kind)
        if info.min <= int(values.min()) and int(values.max()) <= info.max:
            values = values.astype(kind)
    return np.searchsorted(cell, values, side=side)


def cell_groups(start, budget) -> list[tuple[int, int]]:
    """Consecutive ranges ``(c0, c1)`` of cells grouped by the window of ``budget``
    entries their first entry falls in (``start``: where each cell's entries start, then
    the end): a group holds at most ``budget`` entries besides its last cell's.

    Examples
    --------
    >>> cell_groups(np.array([0, 3, 5, 9, 10]), 4)
    [(0, 2), (2, 3), (3, 4)]
    """
    window = np.asarray(start)[:-1] // max(int(budget), 1)
    edges = np.r_[0, np.flatnonzero(window[1:] != window[:-1]) + 1, len(window)]
    return list(zip(edges[:-1].tolist(), edges[1:].tolist()))


def sorted_by_cell(value, cell) -> bool:
    """Whether the entries are sorted by (cell, value): cells ascending, values ascending
    within a cell (False with a NaN value).

    Examples
    --------
    >>> sorted_by_cell(np.array([0.5, 0.1, 0.2]), np.array([0, 1, 1]))
    True
    >>> sorted_by_cell(np.array([0.5, 0.1]), np.array([0, 0]))
    False
    """
    if len(cell) < 2:
        return not np.isnan(value).any()
    step = np.diff(cell)
    return bool((step >= 0).all() and ((step > 0) | (value[1:] >= value[:-1])).all())


def merged_positions(value_a, cell_a, value_b, cell_b) -> np.ndarray:
    """Where side b's entries stand in the merged order of :func:`merged_order` (side a
    fills the other positions, in its order), from a binary search of every entry of the
    smaller side in its cell's entries of the other side.

    Parameters
    ----------
    value_a, cell_a : ndarray
        Side a's values (float) and cells (int), sorted by (cell, value).
    value_b, cell_b : ndarray
        The same for side b.

    Returns
    -------
    ndarray of int64
        The merged position of every b entry (ascending).

    Examples
    --------
    >>> a, ca = np.array([0.2, 0.2, 0.1]), np.array([0, 0, 1])
    >>> merged_positions(a, ca, np.array([0.2, 0.0]), np.array([0, 1])).tolist()
    [2, 3]
    >>> merged_positions(np.array([0.2]), np.array([0]), a, ca).tolist()
    [1, 2, 3]
    """
    n_a, n_b = len(value_a), len(value_b)
    cell_a = np.asarray(cell_a, dtype=np.int64)
    cell_b = np.asarray(cell_b, dtype=np.int64)
    if n_b <= n_a:
        # a b entry follows the a entries of earlier cells and those of its cell with a
        # value at most its own (ties: a first)
        return _entries_before(value_a, cell_a, value_b, cell_b, strict=False) + np.arange(n_b)
    # an a entry follows the b entries of earlier cells and those of its cell with a value
    # below its own; b fills the positions a leaves
    at_a = _entries_before(value_b, cell_b, value_a, cell_a, strict=True) + np.arange(n_a)
    free = np.ones(n_a + n_b, dtype=bool)
    free[at_a] = False
    return np.flatnonzero(free)


def _entries_before(value_s, cell_s, value_q, cell_q, *, strict: bool) -> np.ndarray:
    """Per query entry, the number of searched entries before it: those of earlier cells
    and those of its cell with a value below (``strict``) or at most its own; a binary
    search in its cell's run of searched entries, all queries at once."""
    low = np.searchsorted(cell_s, cell_q, side="left")
    high = np.searchsorted(cell_s, cell_q, side="right")
    last = max(len(value_s) - 1, 0)
    while True:  # about log2(the largest run) halvings, each over the queries
        open_ = low < high
        if not open_.any():
            break
        mid = (low + high) // 2
        at = value_s[np.minimum(mid, last)]
        below = open_ & ((at < value_q) if strict else (at <= value_q))
        low = np.where(below, mid + 1, low)
        high = np.where(open_ & ~below, mid, high)
    return low


def merged_order(value_a, cell_a, value_b, cell_b) -> np.ndarray:
    """``numpy.lexsort((values, cells))`` of side a's entries followed by side b's, each
    side already sorted by (cell, value) (:func:`sorted_by_cell`): the same stable order
    (on ties side a first, each side in its order), from :func:`merged_positions`.

    Returns
    -------
    ndarray of int64
        Positions in the concatenation ``[side a, side b]``, in merged order.

    Examples
    --------
    >>> a, ca = np.array([0.2, 0.2, 0.1]), np.array([0, 0, 1])
    >>> b, cb = np.array([0.2, 0.0]), np.array([0, 1])
    >>> merged_order(a, ca, b, cb).tolist()
    [0, 1, 3, 4, 2]
    >>> np.lexsort((np.r_[a, b], np.r_[ca, cb])).tolist()
    [0, 1, 3, 4, 2]
    """
    n_a, n_b = len(value_a), len(value_b)
    at_b = merged_positions(value_a, cell_a, value_b, cell_b)
    # a entries keep their order in the positions the b entries leave: the a entry at
    # position p is p less the b entries before it
    before = np.zeros(n_a + n_b, dtype=np.int64)
    before[at_b] = 1
    order = np.arange(n_a + n_b, dtype=np.int64)
    order -= np.cumsum(before, out=before)
    order[at_b] = np.arange(n_a, n_a + n_b)
    return order


def first_argmax(value, cell) -> np.ndarray | None:
    """Per run of a sorted ``cell`` array, the position of its largest value, the first
    on ties: ``numpy.lexsort((positions, -value, cell))`` read at each cell's first
    entry. None when a value is NaN (the caller's sort decides those).

    Examples
    --------
    >>> first_argmax(np.array([0.1, 0.3, 0.3, 0.2]), np.array([0, 0, 0, 2])).tolist()
    [1, 3]
    """
    if not len(value) or np.isnan(value).any():
        return None if len(value) else np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    top = np.maximum.reduceat(value, starts)
    hit = np.flatnonzero(value == np.repeat(top, np.diff(np.r_[starts, len(value)])))
    return hit[np.r_[True, cell[hit][1:] != cell[hit][:-1]]]
