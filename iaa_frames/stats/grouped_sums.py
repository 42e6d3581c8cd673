"""Rows of a sparse matrix summed per key, bit for bit as the indicator product.

:func:`sum_rows_by_key` sums the chance rows of :class:`iaa_frames.stats.bootstrap.PairSums`
per pair of items: every sum is formed by the same additions, in the same order, as the
sparse product ``G @ matrix`` (``G`` the keys x rows indicator) that it replaces, but by
integer sorts (numpy sorts integer codes with SIMD instructions) and one
:func:`numpy.bincount`, in place where it can: a crowd of 10,000 annotators has 2M chance
rows (2M rows of random pairs on a loaded 2-core machine: 0.77-1.15 s for the product,
whose rows are read in random order, against 0.34-0.67 s; on the 10k crowd's chance rows
167 MB of temporaries against 288 MB for a first version of this one).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["sum_rows_by_key"]


def sum_rows_by_key(key, matrix, scales=(None,)) -> tuple[np.ndarray, sp.csr_matrix]:
    """The rows of a sparse matrix summed per distinct ``key`` (one key per row).

    Returns the sorted distinct keys and the (keys x columns) CSR matrix of sums, in
    canonical form, without the entries that sum to 0. Every entry is the sum of its rows'
    values added in order of row (and, within a row, of storage), starting from 0: the
    sums of the product ``G @ matrix`` with ``G`` the keys x rows indicator, bit for bit,
    found by two sorts of integer codes that break ties by position (rows by key, entries by
    key and column) and one :func:`numpy.bincount` instead of a sparse product.

    ``scales`` (each None or one factor per row) gives the sums of the matrices
    ``diag(scale) @ matrix`` side by side, ``G @ hstack([diag(s) @ matrix for s in
    scales])``, from one sort of the entries.

    Examples
    --------
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 3.0], [4.0, -3.0]]))
    >>> keys, sums = sum_rows_by_key(np.array([7, 5, 7]), m)
    >>> keys.tolist(), sums.toarray().tolist()
    ([5, 7], [[2.0, 3.0], [5.0, -3.0]])
    >>> sum_rows_by_key(np.array([7, 5, 7]), m, (None, np.array([1.0, 0.5, 2.0])))[1].toarray()
    array([[ 2. ,  3. ,  1. ,  1.5],
           [ 5. , -3. ,  9. , -6. ]])
    """
    key = np.asarray(key, dtype=np.int64)
    matrix = sp.csr_matrix(matrix)
    n_rows, width = len(key), max(matrix.shape[1], 1)
    big = np.iinfo(np.int64).max
    # rows in order of key, then of row: one sort of (key, row) codes, or a stable sort
    # (codes are built, sorted and split in place: a big crowd has millions of rows)
    if n_rows and key.min() >= 0 and key.max() < big // n_rows - 1:
        code = key * n_rows
        code += np.arange(n_rows)
        code.sort()
        order = code % n_rows
        code //= n_rows
        key = code
    else:
        order = np.argsort(key, kind="stable")
        key = key[order]
    first = np.r_[True, key[1:] != key[:-1]] if n_rows else np.zeros(0, dtype=bool)
    keys = key[first]
    del key
    row_group = np.empty(n_rows, dtype=np.int64)
    row_group[order] = np.cumsum(first) - 1
    del order, first
    per_row = np.diff(matrix.indptr)
    group = np.repeat(row_group, per_row)  # the key of every entry
    del row_group
    n = len(group)
    # codes of keys, columns and entries in int32 when they fit (half the memory)
    fits = max(len(keys), len(scales) * width, n) < 2**31
    index = np.int32 if fits else np.int64
    # entries in order of (key, column, entry): the entries of one sum in order of row
    if n and len(keys) * width < big // n - 1:
        code = group
        code *= width
        code += matrix.indices
        code *= n
        code += np.arange(n)
        code.sort()
        entries = code % n
        code //= n
        column = (code % width).astype(index)
        code //= width
        group = code.astype(index)
        del code
    else:
        column = matrix.indices.astype(np.int64)
        entries = np.lexsort((column, group))  # stable
        group, column = group[entries].astype(index), column[entries].astype(index)
    new = np.ones(n, dtype=bool)
    np.not_equal(group[1:], group[:-1], out=new[1:])
    new[1:] |= column[1:] != column[:-1]
    group, column = group[new], column[new]
    sum_of = np.cumsum(new)
    sum_of -= 1
    del new
    values = matrix.data[entries].astype(np.float64, copy=False)
    sums, keep = [], []
    for scale in scales:
        weights = values
        if scale is not None:
            weights = values * np.repeat(np.asarray(scale, np.float64), per_row)[entries]
        total = np.bincount(sum_of, weights=weights, minlength=len(group))
        del weights
        keep.append(total != 0)
        sums.append(total[keep[-1]])
    del entries, values, sum_of
    # the parts side by side, written in place: in every key's row, the entries of each
    # part (in order of column) after those of the parts before it
    count = [np.bincount(group[k], minlength=len(keys)) for k in keep]
    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.sum(count, axis=0), out=indptr[1:])
    data = np.empty(indptr[-1], dtype=np.float64)
    indices = np.empty(indptr[-1], dtype=index)
    free = indptr[:-1].copy()  # next free position of every key's row
    for part, c in enumerate(count):
        k, v = keep.pop(0), sums.pop(0)
        g = group[k]
        at = free[g] + np.arange(len(g)) - (np.cumsum(c) - c)[g]
        data[at], indices[at] = v, column[k] + index(part * matrix.shape[1])
        del k, v, g, at
        free += c
    return keys, sp.csr_matrix(
        (data, indices, indptr), shape=(len(keys), len(scales) * matrix.shape[1])
    )
