"""The replicates' ECDFs of the KS test of agreement, computed at the grid columns where
they move (:func:`iaa_frames.stats.kstest.ks_agreement_entries`).

A replicate's within (chance) ECDF of a cell at a grid column is the running sum of the
cell's histogram up to that column, over the cell's total. The running sums of
:func:`~iaa_frames.stats.kstest.ks_agreement_entries` run over the grid columns of all
tested cells one after the other (a cell's sums are then the running sum minus its value
before the cell's first column): numpy's ``cumsum``, one addition after the other. A
column whose histogram row holds no entry adds an exact 0 in every replicate, so the
running sum there is the one at the last column with entries: the sums are computed at
the columns with entries only (:class:`RunningColumns`), in the same order, and each
column reads its value from the last column with entries of its cell (0 before the
first). The values are those of the sums over every column, bit for bit, at a fraction
of their cost where most columns of a side are empty (the within rows of localization:
1 column in 7 on LVIS).

The sums are computed on (columns x replicates) arrays as the sparse products give
them, into arrays stored by replicate, where numpy's ``cumsum`` adds along contiguous
memory (about twice as fast as along the products' rows).

Examples
--------
>>> import numpy as np
>>> cols = RunningColumns(np.array([True, False, True, True]), np.array([0, 2]), np.array([2, 2]))
>>> cols.kept.tolist(), cols.index.tolist()
([0, 2, 3], [1, 1, 2, 3])
>>> shares, total = cols.shares(np.array([[1.0], [2.0], [3.0]]))
>>> shares.tolist(), total.tolist()
([[0.0, 1.0, 0.4, 1.0]], [[1.0, 5.0]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_KEPT_SHARE", "RunningColumns"]

#: Largest share of kept columns for which the values are gathered from them: above it,
#: every column is computed (a gather of every column costs about what it saves).
MAX_KEPT_SHARE = 0.85


class RunningColumns:
    """Running sums per cell of a (grid column x replicate) product, at the columns with
    entries.

    Parameters
    ----------
    has_entries : ndarray of bool, shape (width,)
        Whether a grid column's histogram row holds an entry (the others add 0).
    starts : ndarray of int
        Every cell's first grid column (the cells' columns one after the other).
    sizes : ndarray of int
        Every cell's number of grid columns.

    Attributes
    ----------
    kept : ndarray of int
        The columns computed (those with entries, or every column).
    index : ndarray of int or None
        For every grid column, its value in the array of :meth:`shares` (whose column 0
        is 0); None when every column is kept (the values are then the columns').
    """

    def __init__(self, has_entries, starts, sizes):
        width = int(has_entries.size)
        starts = np.asarray(starts, dtype=np.int64)
        sizes = np.asarray(sizes, dtype=np.int64)
        if np.count_nonzero(has_entries) > MAX_KEPT_SHARE * width:
            has_entries = np.ones(width, dtype=bool)
        kept = np.flatnonzero(has_entries)
        self.kept = kept
        self._buffers = {}
        # values of the running sums: column 0 the sum before any kept column (0), then
        # one per kept column; a cell's base is the value before its first column, its
        # total the value at its last column
        self._base = np.searchsorted(kept, starts, side="left")
        self._end = np.searchsorted(kept, starts + sizes - 1, side="right")
        cell = np.repeat(np.arange(len(starts)), sizes)
        self._per_cell = np.bincount(cell[kept], minlength=len(starts))  # kept columns
        if kept.size == width:
            self.index = None
        else:
            at = np.cumsum(has_entries)  # kept columns at or before every column
            # before a cell's first kept column its share is 0 (column 0)
            self.index = np.where(at > self._base[cell], at, 0)

    def shares(self, product):
        """The cells' ECDFs at the kept columns and their totals.

        Parameters
        ----------
        product : ndarray, shape (len(kept), block)
            The histogram rows of the kept columns times a block of replicates.

        Returns
        -------
        shares : ndarray of float64, shape (block, len(kept) + 1)
            Column 0 holds 0, column ``j + 1`` the ECDF of its cell at ``kept[j]``:
            ``(running sum - the cell's base) / the cell's total``, as the running sums
            over every column give it. Written into this object's buffer (the next call
            overwrites it: blocks of replicates reuse their memory).
        total : ndarray of float64, shape (block, n_cells)
            Every cell's total (running sum at its last column minus its base).
        """
        block = product.shape[1]
        out = self._buffer("shares", (block, self.kept.size + 1))
        out[:, 0] = 0.0
        # numpy's cumsum along the columns, written by replicate (contiguous additions)
        np.cumsum(product, axis=0, dtype=np.float64, out=out[:, 1:].T)
        base = out[:, self._base]
        total = out[:, self._end] - base
        # a cell's value repeated over its kept columns (a copy of runs, where an index
        # per column is a gather)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, 1:] -= np.repeat(base, self._per_cell, axis=1)
            out[:, 1:] /= np.repeat(total, self._per_cell, axis=1)
        return out, total

    def values(self, shares, out=None):
        """The ECDFs at every grid column, shape (block, width): a gather of
        :meth:`shares`' columns (into ``out`` if given; a view of them when every
        column is kept and no ``out`` is given)."""
        if self.index is None:
            if out is None:
                return shares[:, 1:]
            out[...] = shares[:, 1:]
            return out
        return np.take(shares, self.index, axis=1, out=out)

    def _buffer(self, name, shape):
        """A reused array of at least ``shape`` (rows, columns), viewed at that shape
        (the blocks of replicates have at most the first block's rows)."""
        buf = self._buffers.get(name)
        if buf is None or buf.shape[0] < shape[0] or buf.shape[1] != shape[1]:
            buf = self._buffers[name] = np.empty(shape)
        return buf[: shape[0]]
