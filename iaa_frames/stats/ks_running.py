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
memory (about twice as fast as along the products' rows), two replicates at a time as
the parts of complex numbers (twice as fast again: :meth:`RunningColumns.shares`).

Examples
--------
>>> import numpy as np
>>> cols = RunningColumns(np.array([True, False, True, True]), np.array([0, 2]), np.array([2, 2]))
>>> cols.kept.tolist(), cols.index.tolist()
([0, 2, 3], [1, 1, 2, 3])
>>> shares, total = cols.shares(np.array([[1.0], [2.0], [3.0]]))
>>> cols.values(shares).tolist(), total.tolist()
([[1.0, 1.0, 0.4, 1.0]], [[1.0, 5.0]])
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
        self._rows = 0
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
            The histogram rows of the kept columns times a block of replicates (an even
            block is not copied; an odd one gets a column of zeros).

        Returns
        -------
        shares : ndarray of complex128, shape (ceil(block / 2), len(kept) + 1)
            Two replicates a value (replicate ``2 i`` the real part of row ``i``,
            ``2 i + 1`` the imaginary part): column 0 holds 0, column ``j + 1`` the ECDF
            of its cell at ``kept[j]``, ``(running sum - the cell's base) / the cell's
            total``, as the running sums over every column give it. Written into this
            object's buffer (the next call overwrites it: the blocks of replicates reuse
            its memory); read by :meth:`values`.
        total : ndarray of float64, shape (block, n_cells)
            Every cell's total (running sum at its last column minus its base).

        Notes
        -----
        numpy adds complex numbers part by part, the same additions as on each
        replicate's floats, and its running sum of complex numbers carries two chains
        of additions at once: about twice as fast. The division is made on the floats.
        """
        block = self._rows = product.shape[1]
        if block % 2:
            product = np.concatenate([product, np.zeros((len(product), 1), product.dtype)], 1)
        half = product.shape[1] // 2
        pairs = np.ascontiguousarray(product, dtype=np.float64).view(np.complex128)
        out = self._buffer("shares", (half, self.kept.size + 1))
        out[:, 0] = 0.0
        # numpy's running sums along the columns, written by replicate (contiguous)
        np.cumsum(pairs, axis=0, out=out[:, 1:].T)
        del pairs
        base = out[:, self._base]
        total = out[:, self._end] - base
        # a cell's value repeated over its kept columns (a copy of runs, where an index
        # per column is a gather)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, 1:] -= np.repeat(base, self._per_cell, axis=1)
            floats = out[:, 1:].view(np.float64)  # the division part by part
            floats /= np.repeat(total, self._per_cell, axis=1).view(np.float64)
        return out, _by_replicate(total)[:block]

    def values(self, shares, out=None):
        """The ECDFs at every grid column, shape (block, width), as floats one row per
        replicate: a gather of the columns of the last :meth:`shares` (into ``out`` if
        given, of ``block`` rows, or of ``block + 1`` for an odd block: no copy)."""
        half = shares.shape[0]
        width = self.kept.size if self.index is None else self.index.size
        if out is None:
            out = np.empty((self._rows, width))
        full = out if len(out) == 2 * half else np.empty((2 * half, width))
        # the parts of the complex values as (replicate pair, part, column)
        parts = shares.view(np.float64).reshape(half, -1, 2).transpose(0, 2, 1)
        target = full.reshape(half, 2, width)
        if self.index is None:
            np.copyto(target, parts[:, :, 1:])
        else:
            np.take(parts, self.index, axis=2, out=target, mode="clip")  # valid: no check
        if full is not out:
            out[...] = full[: len(out)]
        return out

    def _buffer(self, name, shape):
        """A reused complex array of at least ``shape`` (rows, columns), viewed at that
        shape (the blocks of replicates have at most the first block's rows)."""
        buf = self._buffers.get(name)
        if buf is None or buf.shape[0] < shape[0] or buf.shape[1] != shape[1]:
            buf = self._buffers[name] = np.empty(shape, dtype=np.complex128)
        return buf[: shape[0]]


def _by_replicate(pairs):
    """Complex values of two replicates each, (half, n), as floats one row per replicate
    (2 * half, n)."""
    half, n = pairs.shape
    return (
        np.ascontiguousarray(pairs)
        .view(np.float64)
        .reshape(half, n, 2)
        .transpose(0, 2, 1)
        .reshape(2 * half, n)
    )
