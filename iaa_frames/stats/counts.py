"""Sparse matrices of counts (how many entries fall in each cell of a grid) and their
products with blocks of bootstrap multiplicities, exact in float32.

A product of counts and multiplicities is a sum of products of non-negative integers:
while every such sum stays below 2**24 it is exact in float32, hence equal bit for bit to
the float64 product, at a fraction of its cost (the KS test's within histograms of 1M
boxes: about 5x faster). Rows whose sums could reach 2**24 are multiplied in float64.

Examples
--------
>>> m = CountMatrix.of_entries(np.array([0, 0, 1]), np.array([1, 1, 0]), (2, 2))
>>> m.matrix.toarray().tolist()
[[0.0, 2.0], [1.0, 0.0]]
>>> m.times(np.array([[1, 3]], dtype=np.int32)).tolist()
[[6.0], [1.0]]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["CountMatrix", "count_matrix", "counts_of_codes"]

#: Sums of non-negative integers below this are exact in float32.
EXACT_FLOAT32 = 2.0**24
#: The float32 rows are those exact for multiplicities up to this; a block with a larger
#: multiplicity is multiplied in float64 throughout.
MAX_MULTIPLICITY = 64


def count_matrix(rows, cols, shape, dtype=np.float64) -> sp.csr_matrix:
    """``csr_matrix((ones, (rows, cols)), shape)`` with its duplicates summed: the number
    of entries at every (row, column), in canonical form (sorted indices), by one sort of
    the entries' flat codes instead of scipy's conversion from COO. ``dtype=float32``
    stores the counts in half the memory when all are exact in it (below 2**24; else
    float64).

    Examples
    --------
    >>> count_matrix([1, 0, 1], [2, 0, 2], (2, 3)).toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]
    """
    n_cols = int(shape[1])
    code = np.asarray(rows, dtype=np.int64) * np.int64(n_cols)
    code += np.asarray(cols, dtype=np.int64)
    return counts_of_codes(code, shape, dtype)


def counts_of_codes(code: np.ndarray, shape, dtype=np.float64) -> sp.csr_matrix:
    """:func:`count_matrix` of the entries' flat codes ``row * n_columns + column``
    (int64), sorted in place and turned into the column indices in place: the array is
    the function's (no copy of the entries' codes is made).

    Examples
    --------
    >>> counts_of_codes(np.array([5, 0, 5]), (2, 3)).toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]
    """
    n_rows, n_cols = (int(v) for v in shape)
    code.sort()
    first = np.empty(code.size, dtype=bool)
    first[:1] = True
    np.not_equal(code[1:], code[:-1], out=first[1:])
    start = np.flatnonzero(first)
    del first
    if np.dtype(dtype) != np.float32 or code.size >= EXACT_FLOAT32:
        dtype = np.float64  # a count of 2**24 entries or more is not exact in float32
    count = np.empty(start.size, dtype=dtype)
    count[:-1] = np.diff(start)
    count[-1:] = code.size - start[-1:]
    code = code[start]
    del start
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(code // n_cols, minlength=n_rows), out=indptr[1:])
    np.remainder(code, n_cols, out=code)  # the column of every distinct code, in place
    if max(n_rows, n_cols, code.size) <= np.iinfo(np.int32).max:
        code = code.astype(np.int32)  # the index type scipy would convert them to
    return sp.csr_matrix((count, code, indptr), shape=(n_rows, n_cols))


class CountMatrix:
    """A count matrix and its products with blocks of multiplicities (``times``), float32
    wherever exact.

    The float32 counts are kept by item (CSC): a product then reads the multiplicities
    item after item, each once, and adds into the rows' sums, which stay in the cache.
    Read by row (CSR), every stored count fetched its item's multiplicities from
    anywhere in the block: with 500k items the KS test of a dask group of cells spent
    most of its time there (a group of 12M entries: 22.2 s, 16.1 s by item; the 1M
    localization test 1.57-1.72 s, 1.24-1.45 s). The sums are exact whatever their
    order (integers below 2**24), so the results are bitwise the same.

    Parameters
    ----------
    matrix : scipy.sparse.csr_matrix
        Non-negative integer counts, rows x items (float64, or float32 when exact).
    """

    @classmethod
    def of_row_blocks(cls, blocks, shape, kept: np.ndarray) -> CountMatrix:
        """The rows ``kept`` (ascending, among them every row with a stored count) of
        counts given as vertical blocks by item (a list of ``(first row, CSC block)``,
        the blocks' rows one after the other, as
        :func:`~iaa_frames.stats.kstest.within_count_blocks` gives them), kept as
        blocks: no matrix of all the counts is assembled (1M boxes: neither the
        localization test's second pass over its entries nor their scatter into one
        matrix). The list is emptied as its blocks are taken.

        A product is the blocks' products, one after the other, each into its rows: the
        same exact integers as the product of the whole matrix, whatever the order of
        their additions (float32 blocks where every row is exact in it, the others in
        float64).

        Examples
        --------
        >>> blocks = [(0, sp.csc_matrix(np.array([[0.0, 2.0]]))),
        ...           (1, sp.csc_matrix(np.array([[0.0, 0.0], [1.0, 0.0]])))]
        >>> m = CountMatrix.of_row_blocks(blocks, (3, 2), np.array([0, 2]))
        >>> m.times(np.array([[1, 3]], dtype=np.int32)).tolist()
        [[6.0], [1.0]]
        """
        out = cls.__new__(cls)
        n_rows, n_cols = len(kept), int(shape[1])
        out.shape = (n_rows, n_cols)
        out._small, out._large, out._double = None, np.zeros(0, dtype=np.int64), None
        row = np.zeros(int(shape[0]), dtype=np.int64)
        row[kept] = np.arange(n_rows)
        parts = []
        while blocks:
            row0, m = blocks.pop(0)
            lo = int(np.searchsorted(kept, row0))
            hi = int(np.searchsorted(kept, row0 + m.shape[0]))
            index = (row[row0 : row0 + m.shape[0]] - lo).astype(m.indices.dtype)
            m = sp.csc_matrix((m.data, index[m.indices], m.indptr), shape=(hi - lo, n_cols))
            row_sum = np.bincount(m.indices, weights=m.data, minlength=hi - lo)
            if (row_sum * MAX_MULTIPLICITY < EXACT_FLOAT32).all():
                m = m if m.dtype == np.float32 else m.astype(np.float32)
            else:
                m = m.astype(np.float64).tocsr()  # by row, in float64 (exact integers)
            parts.append((lo, hi, m))
            del m
        out._blocks = parts
        out._single = None
        return out

    def __init__(self, matrix: sp.csr_matrix):
        self._blocks = None
        self.shape = matrix.shape
        # a row's product entries are at most its sum times the largest multiplicity
        row_sum = np.asarray(matrix.sum(axis=1, dtype=np.float64)).ravel()
        exact = row_sum * MAX_MULTIPLICITY < EXACT_FLOAT32
        if exact.all():  # no row to split off
            self._small, self._large = None, np.zeros(0, dtype=np.int64)
            single = matrix if matrix.dtype == np.float32 else matrix.astype(np.float32)
            self._single, self._double = single.tocsc(), None
        else:
            self._small, self._large = np.flatnonzero(exact), np.flatnonzero(~exact)
            self._single = matrix[self._small].astype(np.float32).tocsc()
            self._double = matrix[self._large].astype(np.float64)

    @property
    def matrix(self) -> sp.csr_matrix:
        """The counts (float64, rows x items)."""
        if self._blocks is not None:
            if not self._blocks:
                return sp.csr_matrix(self.shape)
            return sp.vstack([m.astype(np.float64) for _, _, m in self._blocks], format="csr")
        if self._small is None:
            return self._single.astype(np.float64).tocsr()
        out = sp.vstack([self._single.astype(np.float64), self._double]).tocsr()
        return out[np.argsort(np.r_[self._small, self._large])]

    @classmethod
    def of_entries(cls, rows, cols, shape) -> CountMatrix:
        """The counts of entries at (row, column) (:func:`count_matrix`)."""
        return cls(count_matrix(rows, cols, shape))

    def times(self, k: np.ndarray, *, exact: bool = False) -> np.ndarray:
        """``matrix @ k.T`` in float64, shape (rows, block), for a (block, items) array
        of multiplicities; ``exact=True``: the same values, in float32 when the product
        was computed in it (exact integers: no float64 copy)."""
        if not k.size or int(k.max()) > MAX_MULTIPLICITY:
            return np.asarray(self.matrix @ np.ascontiguousarray(k.T, dtype=np.float64))
        if self._blocks is not None:
            return self._blocks_times(k, exact)
        single = self._single @ np.ascontiguousarray(k.T, dtype=np.float32)
        if self._small is None:
            return single if exact else single.astype(np.float64)
        out = np.empty((self.shape[0], k.shape[0]))
        out[self._small] = single
        out[self._large] = self._double @ np.ascontiguousarray(k.T, dtype=np.float64)
        return out

    def _blocks_times(self, k: np.ndarray, exact: bool) -> np.ndarray:
        """:meth:`times` of counts held as row blocks (:meth:`of_row_blocks`)."""
        single = all(m.dtype == np.float32 for _, _, m in self._blocks)
        dtype = np.float32 if single and exact else np.float64
        out = np.empty((self.shape[0], k.shape[0]), dtype=dtype)
        k32 = np.ascontiguousarray(k.T, dtype=np.float32)
        k64 = None if single else np.ascontiguousarray(k.T, dtype=np.float64)
        for lo, hi, m in self._blocks:  # a loop over blocks of rows (groups of cells)
            out[lo:hi] = m @ (k32 if m.dtype == np.float32 else k64)
        return out
