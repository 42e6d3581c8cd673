"""Array helpers every layer uses.

:func:`sorted_unique` is :func:`numpy.unique` of integer keys by a sort: numpy 2's
``unique`` hashes them first, which on millions of distinct int64 keys (item x cell codes,
pairing keys) takes a hundred times longer than sorting (3.3M keys: 2.9 s against
0.02 s, numpy 2.4). The result is the same array. :func:`unique_inverse` is
``numpy.unique(..., return_inverse=True)`` of non-negative integer codes of a small range
by counting instead of sorting (8M codes below 2M: 0.07 s against 1.2 s).

Examples
--------
>>> sorted_unique(np.array([5, 1, 5, 3])).tolist()
[1, 3, 5]
"""

from __future__ import annotations

import numpy as np

__all__ = ["sorted_unique", "unique_inverse"]


def sorted_unique(values) -> np.ndarray:
    """The sorted distinct values of ``values`` (flattened), as :func:`numpy.unique`
    returns them; integers and booleans by a sort, other dtypes by :func:`numpy.unique`.

    Examples
    --------
    >>> sorted_unique([[2, 2], [0, 7]]).tolist()
    [0, 2, 7]
    >>> sorted_unique(np.array([0.5, np.nan, 0.5, np.nan])).tolist()  # NaNs collapsed
    [0.5, nan]
    """
    a = np.asarray(values).ravel()
    if a.dtype.kind not in "iub":
        return np.unique(a)
    s = np.sort(a)
    return s[np.r_[True, s[1:] != s[:-1]]] if s.size else s


def unique_inverse(values) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(values, return_inverse=True)`` of a 1-D array: the sorted distinct
    values and, for each value, the index of its distinct value. Non-negative integer
    codes whose range is at most four times their number are counted (no sort); others
    go to :func:`numpy.unique`.

    Examples
    --------
    >>> u, inv = unique_inverse(np.array([7, 3, 7, 0]))
    >>> u.tolist(), inv.tolist()
    ([0, 3, 7], [2, 1, 2, 0])
    """
    a = np.asarray(values).ravel()
    if a.dtype.kind not in "iu" or not a.size or a.min() < 0 or a.max() >= 4 * a.size:
        u, inv = np.unique(a, return_inverse=True)
        return u, inv.ravel()
    present = np.bincount(a) > 0
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present).astype(a.dtype), rank[a]
