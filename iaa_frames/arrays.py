"""Array helpers every layer uses.

:func:`sorted_unique` is :func:`numpy.unique` of integer keys by a sort: numpy 2's
``unique`` hashes them first, which on millions of distinct int64 keys (item x cell codes,
pairing keys) takes a hundred times longer than sorting (3.3M keys: 2.9 s against
0.02 s, numpy 2.4). The result is the same array.

Examples
--------
>>> sorted_unique(np.array([5, 1, 5, 3])).tolist()
[1, 3, 5]
"""

from __future__ import annotations

import numpy as np

__all__ = ["sorted_unique"]


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
