# Over 400 lines: one idea, the KS test of agreement: the test and its form for many cells
# at once, the cells' grids, bins and differences, the running sums of the replicates and
# their screen, the draws of the replicates (shared between components).
"""A one-sided KS test of agreement that stays valid when pairs share items.

The within-item distances of a corpus are not independent: the pairings of one item share
its annotations, and a chance pairing of items i and j shares both items with many other
chance pairings. :func:`scipy.stats.ks_2samp` treats every distance as an independent
draw, so its p-value is too small: on corpora of a few items it rejects "no agreement"
far more often than its level says.

The test here keeps the two-sample KS statistic but takes its null distribution from a
**cluster bootstrap over items**, the same resampling as the intervals
(:mod:`iaa_frames.stats.bootstrap`): a replicate draws the items with replacement, a within row
of item i weighs ``k_i`` and a chance row of items (i, j) weighs ``k_i k_j``.

* The statistic is one-sided, for agreement: ``D+ = max_t (F_within(t) - F_between(t))``,
  how far the within-item distances are stochastically *smaller* than chance.
* Each replicate gives the *recentred* difference process
  ``G*(t) = (F*_within(t) - F*_between(t)) - (F_within(t) - F_between(t))``, whose law
  approximates that of ``F_within - F_between`` around its mean, whatever the dependence
  between rows of the same item; under "no agreement" that mean is 0 (Abadie, JASA 2002,
  builds the same recentred bootstrap for KS tests). Its spread is widened by
  ``sqrt(n / (n - 1))`` (the bootstrap's variance is ``(n - 1) / n`` times the unbiased
  one, which matters with a handful of items).
* ``p = (1 + #{max_t G*(t) >= D+}) / (1 + B)``.
* Below :data:`MIN_ITEMS` distinct items among the within rows the p-value is NaN: the
  bootstrap cannot see how the within rows of a single item vary from item to item.

Rows are binned once (per item for the within rows), the grids and bins of all cells from
one sort of (cell, value) keys; a block of replicates then costs a sparse product, so the
test scales to millions of rows and tens of thousands of cells.

``benchmarks/bench_kstest.py`` measures the false-positive rate on corpora of annotators
who draw at random (no agreement), from 4 to 200 items.

Grids, bins and differences
---------------------------
The grids, bins and observed ECDF differences of many cells at once.

A cell is a subset of the within rows and of the chance rows; an *entry* is a row in one
cell. Every cell's grid (its distinct pooled values, or ``max_grid`` inverted-CDF pooled
quantiles when it has more) and every entry's bin come from one sort of integer keys
``cell * span + rank of the value``; the observed differences
``F_within - F_between`` are cumulative sums along the rows of a padded
(cells x grid) array, block by block, so each runs as the cell's own: the results are
bitwise those of a loop over cells, without one.

The replicates
--------------
The replicates' ECDFs are computed at the grid columns where they move.

A replicate's within (chance) ECDF of a cell at a grid column is the running sum of the
cell's histogram up to that column, over the cell's total. The running sums of
:func:`ks_agreement_entries` run over the grid columns of all
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

A replicate's difference of the ECDFs reaches its cell's statistic at few grid columns,
if any: :class:`Screen` bounds it over runs of :data:`RUN_COLUMNS` columns from the
running sums, and reads the columns of the runs whose bound reaches the statistic only
(the same decisions, bit for bit). Where most runs reach it, the test computes every
column instead (:meth:`RunningColumns.normalize`, :meth:`RunningColumns.values`). On the
localization test of 30 annotators (590 cells, 82k grid columns) the replicates cost
about 0.14 s instead of 0.25 s (alone, best of 7).

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

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from iaa_frames.arrays import sorted_unique
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import check_int

from .bootstrap import multiplicity_blocks
from .counts import CountMatrix, counts_of_codes
from .segments import cell_groups, search_cells

__all__ = [
    "DEFAULT_RESAMPLES",
    "MAX_GRID",
    "MAX_KEPT_SHARE",
    "MAX_OPEN_SHARE",
    "MIN_ITEMS",
    "RUN_COLUMNS",
    "cell_differences",
    "cell_entries",
    "cell_grids",
    "check_entries",
    "check_rows",
    "grid_bins",
    "ks_agreement_entries",
    "ks_agreement_test",
    "ks_agreement_tests",
    "ks_multiplicities",
    "ks_multiplicities_bytes",
    "KSAgreementTest",
    "RunningColumns",
    "Screen",
    "segment_sums",
    "unique_codes",
    "within_count_blocks",
    "within_counts",
]


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
        out, base, total = self.running(product)
        return self.normalize(out, base, total), self.totals((out, base, total))

    def running(self, product):
        """The running sums of :meth:`shares` before they are restarted and divided.

        Parameters
        ----------
        product : ndarray, shape (len(kept), block)
            As in :meth:`shares`.

        Returns
        -------
        sums : ndarray of complex128, shape (ceil(block / 2), len(kept) + 1)
            Column 0 holds 0, column ``j + 1`` the running sum over the kept columns up
            to ``kept[j]`` (two replicates a value, as :meth:`shares`); this object's
            buffer. :meth:`normalize` turns it into the shares in place, :meth:`at`
            reads the shares at some columns from it.
        base, total : ndarray of complex128, shape (ceil(block / 2), n_cells)
            Every cell's base (the sum before its first column) and total.
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
        base = np.ascontiguousarray(out[:, self._base])
        return out, base, np.ascontiguousarray(out[:, self._end] - base)

    def totals(self, sums):
        """Every cell's total of the block of :meth:`running` ``sums`` (its output), as
        floats, shape (block, n_cells)."""
        return _by_replicate(sums[2])[: self._rows]

    def normalize(self, sums, base, total):
        """The shares of :meth:`shares` from the sums of :meth:`running`, in place."""
        # a cell's value repeated over its kept columns (a copy of runs, where an index
        # per column is a gather)
        with np.errstate(invalid="ignore", divide="ignore"):
            sums[:, 1:] -= np.repeat(base, self._per_cell, axis=1)
            floats = sums[:, 1:].view(np.float64)  # the division part by part
            floats /= np.repeat(total, self._per_cell, axis=1).view(np.float64)
        return sums

    def columns(self, grid_columns):
        """The position in the array of :meth:`shares` of the value of every given grid
        column (0: before its cell's first kept column, where the share is 0)."""
        cols = np.asarray(grid_columns)
        return cols + 1 if self.index is None else self.index[cols]

    def at(self, sums, base, total, replicate, column, cell):
        """The shares of :meth:`shares` at some (replicate, grid column) pairs, from the
        sums of :meth:`running` (not normalized): the same operations on the same
        values, bit for bit.

        Parameters
        ----------
        sums, base, total
            The output of :meth:`running`.
        replicate : ndarray of int
            Replicates (rows of the block).
        column : ndarray of int
            Positions of the grid columns' values (:meth:`columns`), broadcast with
            ``replicate`` and ``cell``.
        cell : ndarray of int
            The cells of the columns.

        Returns
        -------
        ndarray of float64, the broadcast shape
        """
        half, part = replicate >> 1, replicate & 1
        floats = sums.view(np.float64).reshape(sums.shape[0], sums.shape[1], 2)
        value = floats[half, column, part]
        value -= base.view(np.float64).reshape(base.shape[0], -1, 2)[half, cell, part]
        with np.errstate(invalid="ignore", divide="ignore"):
            value /= total.view(np.float64).reshape(total.shape[0], -1, 2)[half, cell, part]
        zero = column == 0
        if zero.any():
            value[np.broadcast_to(zero, value.shape)] = 0.0
        return value

    def at_runs(self, sums, base, total, column, runs):
        """:meth:`at` for every replicate of the block at one column of each of a
        sequence of runs of columns grouped by cell (``runs``: their number per cell),
        in the layout of the sums: shape (ceil(block / 2), len(column), 2), replicate
        ``2 i + p`` at ``[i, :, p]``."""
        value = np.take(sums, column, axis=1)  # C order (an index on axis 1 is not)
        value -= np.repeat(base, runs, axis=1)  # part by part, as the floats'
        floats = value.view(np.float64).reshape(len(value), -1, 2)
        divisor = np.repeat(total, runs, axis=1).view(np.float64).reshape(floats.shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            floats /= divisor
        zero = np.flatnonzero(column == 0)
        if zero.size:
            floats[:, zero] = 0.0
        return floats

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


#: Grid columns per run of :class:`Screen` (one bound per run and replicate).
RUN_COLUMNS = 16
#: Largest share of (replicate, run) pairs whose bound reaches the threshold for which
#: :meth:`Screen.exceeds` reads their columns one by one: above it, the block computes
#: every column (about what the columns of the open runs cost, read one by one).
MAX_OPEN_SHARE = 0.1


class Screen:
    """Which replicates' recentred differences reach a cell's statistic, from a bound per
    run of :data:`RUN_COLUMNS` grid columns, each column read only in the runs whose bound
    reaches it.

    In a cell, both ECDFs are nondecreasing along the grid columns (running sums of
    non-negative values, less a constant, over a positive total: rounding keeps the
    order), so at every column ``j`` of a run ``[lo, hi)`` the widened difference
    ``fl(widen * fl(fl(F_x(j) - F_y(j)) - observed(j)))`` is at most
    ``fl(widen * fl(fl(F_x(hi - 1) - F_y(lo)) - min(observed[lo:hi])))``: each rounded
    operation is nondecreasing in its first operand and nonincreasing in its second. A run
    whose bound stays below the threshold holds no column that reaches it; the others'
    columns are computed one by one, the same operations on the same values as the
    differences of every column: the same decisions, bit for bit.

    Parameters
    ----------
    x_cols, y_cols : RunningColumns
        The within and chance sides.
    starts, sizes : ndarray of int
        Every cell's first grid column and number of grid columns (at least 1).
    observed : ndarray of float
        The observed differences at every grid column.
    threshold : ndarray of float
        Per cell, the value the widened difference must reach.
    widen : float
        The factor of the differences (positive).
    """

    def __init__(self, x_cols, y_cols, starts, sizes, observed, threshold, widen):
        starts = np.asarray(starts, dtype=np.int64)
        sizes = np.asarray(sizes, dtype=np.int64)
        n_runs = -(-sizes // RUN_COLUMNS)
        cell = np.repeat(np.arange(len(sizes)), n_runs)
        first = np.cumsum(n_runs) - n_runs
        lo = starts[cell] + (np.arange(cell.size) - first[cell]) * RUN_COLUMNS
        hi = np.minimum(lo + RUN_COLUMNS, (starts + sizes)[cell])
        self._sides, self._runs = (x_cols, y_cols), n_runs
        self._cell, self._lo, self._hi = cell, lo, hi
        self._observed, self._threshold, self._widen = observed, threshold, widen
        # the runs cover the columns one after the other: a minimum per run
        self._low = np.minimum.reduceat(observed, lo) if lo.size else np.zeros(0)
        self._x_last = x_cols.columns(hi - 1)  # where each run's ECDFs are largest ...
        self._y_first = y_cols.columns(lo)  # ... and smallest
        self._run_threshold = threshold[cell]

    def exceeds(self, x_sums, y_sums, ok):
        """Per replicate and cell, whether the widened difference reaches the threshold
        at some grid column of the cell.

        Parameters
        ----------
        x_sums, y_sums : tuple
            The :meth:`RunningColumns.running` of a block on either side.
        ok : ndarray of bool, shape (block, n_cells)
            The replicates and cells to test (both totals positive).

        Returns
        -------
        ndarray of bool, shape (block, n_cells), or None
            None when more than :data:`MAX_OPEN_SHARE` of the (replicate, run) pairs
            may reach it (the caller computes every column instead).
        """
        (x_cols, y_cols), block = self._sides, ok.shape[0]
        # (replicate pair, run, part) as the sums hold them: no copy by replicate
        bound = x_cols.at_runs(*x_sums, self._x_last, self._runs)
        bound -= y_cols.at_runs(*y_sums, self._y_first, self._runs)
        bound -= self._low[:, None]
        bound *= self._widen
        is_open = bound >= self._run_threshold[:, None]
        del bound
        is_open = is_open.transpose(0, 2, 1).reshape(-1, len(self._lo))[:block]
        is_open &= np.repeat(ok, self._runs, axis=1)
        n_open = np.count_nonzero(is_open)
        if n_open > MAX_OPEN_SHARE * is_open.size:
            return None
        hit = np.zeros(ok.shape, dtype=bool)
        if not n_open:
            return hit
        rep, run = np.nonzero(is_open)
        # every column of the open runs (a run's first column again past its end)
        lo = self._lo[run, None]
        col = lo + np.arange(RUN_COLUMNS)
        col = np.where(col < self._hi[run, None], col, lo)
        cell, rep = self._cell[run, None], rep[:, None]
        diff = x_cols.at(*x_sums, rep, x_cols.columns(col), cell)
        diff -= y_cols.at(*y_sums, rep, y_cols.columns(col), cell)
        diff -= self._observed[col]
        diff *= self._widen
        found = (diff >= self._threshold[cell]).any(axis=1)
        hit[rep[found, 0], cell[found, 0]] = True
        return hit


WHICH = ("within entries", "between entries")


def segment_sums(values, cell, n_cells):
    """``values[cell == c].sum()`` for every cell, bitwise as numpy's pairwise sum of each
    cell's values (``cell`` sorted): the cells are gathered by length, one 2-D sum per
    distinct length (few of them), not a loop over cells."""
    count = np.bincount(cell, minlength=n_cells)
    start = np.cumsum(count) - count
    out = np.zeros(n_cells)
    for size in np.unique(count[count > 0]):
        which = np.flatnonzero(count == size)
        out[which] = values[start[which][:, None] + np.arange(size)].sum(axis=1)
    return out


def cell_grids(key, n_cells, span, max_grid):
    """Every cell's grid as sorted keys ``cell * span + rank``: its distinct pooled values,
    or ``max_grid`` inverted-CDF quantiles of them and the largest when there are more
    (as ``np.quantile(..., method="inverted_cdf")`` on each cell)."""
    return _grids_of(sorted_unique(key), n_cells, span, max_grid)


def _grids_of(pooled, n_cells, span, max_grid):
    """:func:`cell_grids` of the sorted distinct keys ``pooled``."""
    cell = pooled // span
    m = np.bincount(cell, minlength=n_cells)
    big = np.flatnonzero(m > max_grid)
    if not big.size:
        return pooled
    keep = np.ones(pooled.size, dtype=bool)
    start = np.cumsum(m) - m
    is_big = np.zeros(n_cells, dtype=bool)
    is_big[big] = True
    keep[is_big[cell]] = False
    q = np.linspace(0, 1, max_grid)
    index = m[big, None] * q[None, :] - 1  # numpy's inverted_cdf virtual index
    below = np.floor(index)
    pick = np.where(index - below == 0, below, below + 1).astype(np.int64)
    pick = np.clip(pick, 0, None)
    pick = np.column_stack([pick, m[big] - 1]) + start[big, None]
    keep[pick.ravel()] = True
    return pooled[keep]


def cell_entries(cells, dtype=np.int64):
    """(entries, cell of each entry, size of each cell) of a sequence of cells."""
    parts = [np.asarray(c, dtype=dtype).ravel() for c in cells]
    sizes = np.fromiter((p.size for p in parts), dtype=np.int64, count=len(parts))
    rows = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    return rows, np.repeat(np.arange(len(parts)), sizes), sizes


def check_rows(within, between, within_item, between_item_a, between_item_b):
    """The distances (finite floats) and item codes (non-negative integers) of all rows.

    Examples
    --------
    >>> check_rows([0.5], [0.1, 0.2], [0], [0, 1], [1, 0])[2][1].tolist()
    [0, 1]
    """
    x = np.asarray(within, dtype=np.float64).ravel()
    y = np.asarray(between, dtype=np.float64).ravel()
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ParameterError("distances must be finite")
    codes = []
    for values, n, name in (
        (within_item, x.size, "within_item"),
        (between_item_a, y.size, "between_item_a"),
        (between_item_b, y.size, "between_item_b"),
    ):
        arr = np.asarray(values)
        if arr.shape != (n,) or (
            arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0)
        ):
            raise ParameterError(f"{name} must be {n} non-negative integer item codes")
        # the within items in their own signed type (the engine's int32: no int64 copy of
        # every within row; they only enter int64 sums), the chance items in int64 (their
        # pairs' codes a * n_items + b need it)
        keep = name == "within_item" and arr.dtype.kind == "i"
        codes.append(arr if keep else arr.astype(np.int64))
    return x, y, tuple(codes)


def _integers(values) -> np.ndarray:
    """A 1-D array of integer codes, in its own integer type (no int64 copy of int32
    entries); other types as int64."""
    arr = np.asarray(values).ravel()
    return arr if arr.dtype.kind in "iu" else arr.astype(np.int64)


def check_entries(x, y, within, between, weight, n_cells):
    """The within and chance entries checked, grouped by cell (a stable sort: each
    cell's rows keep their order), with the chance entries' weights (default 1).

    Examples
    --------
    >>> (wr, wc), (br, bc, bw) = check_entries(np.zeros(2), np.zeros(1), ([1, 0], [1, 0]),
    ...                                         ([0], [1]), None, 2)
    >>> wr.tolist(), wc.tolist(), bw.tolist()
    ([0, 1], [0, 1], [1.0])
    """
    out = []
    for (rows, cell), size, name in zip((within, between), (x.size, y.size), WHICH):
        rows, cell = _integers(rows), _integers(cell)
        if rows.shape != cell.shape or (
            rows.size
            and (rows.min() < 0 or rows.max() >= size or cell.min() < 0 or cell.max() >= n_cells)
        ):
            raise ParameterError(
                f"{name}: one cell per row, rows in [0, {size}) and cells in [0, {n_cells})"
            )
        out.append([rows, cell])
    rows = out[1][0]
    bw = np.ones(rows.size) if weight is None else np.asarray(weight, dtype=np.float64).ravel()
    if bw.shape != rows.shape or not (np.isfinite(bw).all() and (bw >= 0).all()):
        raise ParameterError("between_weights must be finite, >= 0, one per chance row")
    out[1].append(bw)
    for entries in out:
        if entries[1].size and (entries[1][1:] < entries[1][:-1]).any():
            order = np.argsort(entries[1], kind="stable")
            entries[:] = [a[order] for a in entries]
    return tuple(out[0]), tuple(out[1])


def cell_differences(
    x, y, wi, within, between, *, n_cells, n_items, min_items, max_grid, distinct=None
):
    """Grid sizes, bins, one-sided statistics and observed differences of all cells.

    Parameters
    ----------
    x, y : ndarray of float
        Within and chance distances of all rows.
    wi : ndarray of int
        Item of every within row.
    within : (rows, cell) of ndarray of int
        The within entries, grouped by cell (each cell's rows in their order).
    between : (rows, cell, weight)
        The chance entries, grouped by cell, with their weights.
    n_cells, n_items, min_items, max_grid : int
        As in :func:`iaa_frames.stats.kstest.ks_agreement_tests`.
    distinct : ndarray of float, shape (n_cells,), optional
        Per cell, the distinct items among its within entries, when the caller has
        counted them (the engine's per-item sums:
        :meth:`iaa_frames.core.engine.sigma.SigmaCells.item_counts`); else counted here
        (:func:`_distinct_items`; 1M boxes: 0.1 s a component).

    Returns
    -------
    statistic : ndarray, shape (n_cells,)
        ``max(0, max_t F_within(t) - F_between(t))``; NaN where a side is empty or weighs 0.
    size : ndarray of int, shape (n_cells,)
        Points in every cell's grid.
    bin_w, bin_b : ndarray of int
        Bin (within its cell's grid) of every kept within and chance entry.
    observed : ndarray of float
        The differences at the grid points of the tested cells, one after the other.
    tested : ndarray of bool, shape (n_cells,)
        Cells with both sides and within rows of at least ``min_items`` items.
    within, between
        The entries kept (those of cells with both sides), as given.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.5])
    >>> out = cell_differences(x, y, np.arange(3), (np.arange(3), np.zeros(3, int)),
    ...                        (np.arange(2), np.zeros(2, int), np.ones(2)), n_cells=1,
    ...                        n_items=3, min_items=3, max_grid=256)
    >>> out[0].tolist(), out[1].tolist(), out[4].round(3).tolist()
    ([0.5], [4], [0.333, 0.167, 0.5, 0.0])
    """
    wr, wc = within
    br, bc, bw = between
    # the entries of each cell from a search of the grouped cells (no pass over them)
    n_w = np.diff(search_cells(wc, np.arange(n_cells + 1))).astype(np.float64)
    total = segment_sums(bw, bc, n_cells)  # bitwise each cell's weights.sum()
    valid = (n_w > 0) & (total > 0)
    statistic = np.full(n_cells, np.nan)
    if not valid.any():
        none = np.zeros(0, dtype=np.int64)
        size = np.zeros(n_cells, dtype=np.int64)
        return statistic, size, none, none, np.zeros(0), valid, (wr, wc), (br, bc, bw)
    # the entries of cells left out (only where some cell with entries is)
    if ((n_w > 0) & ~valid).any():
        keep_w = valid[wc]
        wr, wc = wr[keep_w], wc[keep_w]
        del keep_w
    keep_b = valid[bc]
    if not keep_b.all():
        br, bc, bw = br[keep_b], bc[keep_b], bw[keep_b]
    del keep_b
    # keys cell * span + rank of the value: one sort orders every cell's pooled values
    # (ranks among all rows' values, which order the values of every cell alike)
    # (the distinct values of each side merged: no sorted copy of both sides at once;
    # the ranks in int32 where they fit, a chunk at a time)
    values = _sorted_union(_distinct_values(x), _distinct_values(y))
    span = np.int64(values.size)
    rank_x, rank_y = _ranks(values, x), _ranks(values, y)
    del values
    # a group of whole cells at a time: the grid of a cell and the bins of its entries
    # depend on its entries alone
    size = np.zeros(n_cells, dtype=np.int64)
    # bins within a cell's grid (int32: a grid has far fewer points)
    bin_w, bin_b = np.empty(len(wr), dtype=np.int32), np.empty(len(br), dtype=np.int32)
    w_at = search_cells(wc, np.arange(n_cells + 1))
    b_at = search_cells(bc, np.arange(n_cells + 1))
    for c0, c1 in cell_groups(w_at, CHUNK_ENTRIES):  # a loop over groups of cells
        w, b = slice(w_at[c0], w_at[c1]), slice(b_at[c0], b_at[c1])
        kw, kb = _keys(rank_x, wr[w], wc[w], span), _keys(rank_y, br[b], bc[b], span)
        grid = _grids_of(
            _sorted_union(sorted_unique(kw), sorted_unique(kb)), n_cells, span, max_grid
        )
        part = np.bincount(grid // span, minlength=n_cells)  # 0 outside the group
        size += part
        g_start = np.cumsum(part) - part
        # the first grid point at or above, within the cell
        bin_w[w] = grid_bins(grid, kw) - g_start[wc[w]]
        bin_b[b] = grid_bins(grid, kb) - g_start[bc[b]]
        del kw, kb, grid
    del rank_x, rank_y
    # items among each cell's within rows
    if distinct is None:
        distinct = _distinct_items(wi, wr, wc, n_cells, n_items)
    tested_mask = valid & (np.asarray(distinct) >= min_items)
    # observed differences: cells in blocks of a padded (cells x grid) array, whose
    # cumulative sums along a row run as each cell's own
    cells = np.flatnonzero(valid)
    width = int(size[cells].max())
    per_block = max(1, (1 << 20) // width)
    # blocks of at most per_block cells and about CHUNK_ENTRIES within entries
    first = search_cells(wc, cells)
    block_of = np.arange(cells.size) // per_block * (wc.size // CHUNK_ENTRIES + 1)
    block_of += first // CHUNK_ENTRIES
    edges = np.r_[0, np.flatnonzero(np.diff(block_of)) + 1, cells.size]
    observed = []
    for lo, hi in zip(edges[:-1], edges[1:]):  # a loop over blocks of cells
        block = cells[lo:hi]
        k = block.size
        w0, w1 = search_cells(wc, [block[0], block[-1] + 1])
        b0, b1 = search_cells(bc, [block[0], block[-1] + 1])
        # the block's row of every within entry: its cells' entries one after the other
        # (the cells between are invalid: no entry), repeated, not searched
        row_w = np.repeat(np.arange(k), n_w[block].astype(np.int64))
        row_b = np.searchsorted(block, bc[b0:b1])
        hx = np.bincount(row_w * width + bin_w[w0:w1], minlength=k * width)
        hy = np.bincount(row_b * width + bin_b[b0:b1], weights=bw[b0:b1], minlength=k * width)
        diff = (
            np.cumsum(hx.reshape(k, width), axis=1) / n_w[block, None]
            - np.cumsum(hy.reshape(k, width), axis=1) / total[block, None]
        )
        statistic[block] = np.maximum(diff.max(axis=1), 0.0)
        t = tested_mask[block]
        observed.append(diff[t][np.arange(width) < size[block[t], None]])
    observed = np.concatenate(observed)
    return statistic, size, bin_w, bin_b, observed, tested_mask, (wr, wc), (br, bc, bw)


def grid_bins(grid, key):
    """``numpy.searchsorted(grid, key)``: the number of grid points below every key. Keys
    in ascending order (the engine's entries, sorted by (cell, value)) count them from
    a search of the few grid points among the many keys instead.

    Examples
    --------
    >>> grid_bins(np.array([2, 5]), np.array([1, 2, 3, 5, 6])).tolist()
    [0, 0, 1, 1, 2]
    """
    if len(key) < 2 or (key[1:] < key[:-1]).any():
        return np.searchsorted(grid, key)
    # grid point i is below the keys from the first one above it on
    first_above = np.searchsorted(key, grid, side="right")
    out = np.bincount(first_above, minlength=len(key) + 1)[: len(key)]
    return np.cumsum(out, out=out)


#: Entries whose keys are formed at a time (bounds the temporaries on millions of entries).
CHUNK_ENTRIES = 1 << 20


def _keys(rank, rows, cell, span) -> np.ndarray:
    """``cell * span + rank[rows]`` (int64), formed :data:`CHUNK_ENTRIES` at a time."""
    out = np.empty(len(rows), dtype=np.int64)
    for lo in range(0, len(rows), CHUNK_ENTRIES):  # a loop over chunks of entries
        part = slice(lo, lo + CHUNK_ENTRIES)
        np.multiply(cell[part], span, out=out[part], dtype=np.int64, casting="unsafe")
        out[part] += rank[rows[part]]
    return out


def _ranks(values, x) -> np.ndarray:
    """``numpy.searchsorted(values, x)``, in int32 when the ranks fit, formed
    :data:`CHUNK_ENTRIES` at a time (no int64 array of them all)."""
    out = np.empty(len(x), dtype=np.int32 if len(values) < 2**31 else np.int64)
    for lo in range(0, len(x), CHUNK_ENTRIES):  # a loop over chunks of rows
        out[lo : lo + CHUNK_ENTRIES] = np.searchsorted(values, x[lo : lo + CHUNK_ENTRIES])
    return out


def _sorted_union(a, b) -> np.ndarray:
    """The sorted distinct values of two sorted arrays of distinct values (the smaller
    one's new values inserted into the larger one, no sort)."""
    if len(a) < len(b):
        a, b = b, a
    at = np.searchsorted(a, b)
    new = (at == len(a)) | (a[np.minimum(at, max(len(a) - 1, 0))] != b) if len(a) else b == b
    return np.insert(a, at[new], b[new]) if new.any() else a


def _distinct_values(x) -> np.ndarray:
    """``numpy.unique(x)`` of finite floats; ascending ``x`` (the engine's KS lists) by
    one comparison of neighbours instead of a sort. (Only the values' order is read of
    them: a zero of either sign compares the same.)

    Examples
    --------
    >>> _distinct_values(np.array([0.1, 0.1, 0.3])).tolist()
    [0.1, 0.3]
    """
    if x.size < 2 or not (x[1:] >= x[:-1]).all():
        return np.unique(x)
    return x[np.r_[True, x[1:] != x[:-1]]]


def _distinct_items(wi, wr, wc, n_cells, n_items) -> np.ndarray:
    """Per cell, the number of distinct items ``wi[wr]`` among its entries (cells
    ``wc`` grouped in ascending order), a group of whole cells at a time."""
    n = np.int64(max(n_items, 1))
    start = search_cells(wc, np.arange(n_cells + 1))
    window = start[:-1] // CHUNK_ENTRIES
    edges = np.r_[0, np.flatnonzero(window[1:] != window[:-1]) + 1, n_cells]
    distinct = np.zeros(n_cells, dtype=np.int64)
    for c0, c1 in zip(edges[:-1], edges[1:]):  # a loop over groups of cells
        part = slice(start[c0], start[c1])
        if (c1 - c0) * n <= _MARK_BYTES:
            # a flag per (cell, item) of the group, set by its entries: no sort
            seen = np.zeros((c1 - c0) * n, dtype=bool)
            code = (wc[part] - c0).astype(np.int64)
            code *= n
            code += wi[wr[part]]
            seen[code] = True
            del code
            distinct[c0:c1] += np.count_nonzero(seen.reshape(c1 - c0, n), axis=1)
            del seen
            continue
        pairs = sorted_unique(wc[part] * n + wi[wr[part]])
        distinct += np.bincount(pairs // n, minlength=n_cells)
    return distinct


#: Largest (cells x items) flags of a group of cells :func:`_distinct_items` sets (bytes);
#: beyond, the group's (cell, item) codes are sorted.
_MARK_BYTES = 1 << 24


def _cell_groups(wc, offset, tested_mask):
    """Groups of whole tested cells of about :data:`CHUNK_ENTRIES` within entries each
    (entries grouped by cell, ascending ``wc``): each group's slice of the entries, its
    last cell and its first grid column."""
    tested = np.flatnonzero(tested_mask)
    lo = search_cells(wc, tested, side="left")  # every tested cell's entries
    hi = search_cells(wc, tested, side="right")
    window = lo // CHUNK_ENTRIES
    edges = np.r_[0, np.flatnonzero(window[1:] != window[:-1]) + 1, len(tested)]
    for t0, t1 in zip(edges[:-1], edges[1:]):  # a loop over groups of cells
        yield slice(lo[t0], hi[t1 - 1]), tested[t1 - 1], offset[tested[t0]]


def _count_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n):
    """The counts of :func:`within_counts` a group of whole tested cells of about
    :data:`CHUNK_ENTRIES` entries at a time: for each group, its first grid column and
    the counts of its grid columns (rows) x items (CSR)."""
    for part, last, row0 in _cell_groups(wc, offset, tested_mask):
        cell = wc[part]
        # the entries' flat codes column * n + item, formed in one array (the counts'
        # only copy of the entries: no column and item arrays beside it)
        code = offset[cell] - row0
        code += bin_w[part]
        code *= np.int64(n)
        code += wi[wr[part]]
        keep = tested_mask[cell]  # the entries of untested cells among them left out
        if not keep.all():
            code = code[keep]
        del cell, keep
        # float32 counts (exact below 2**24): the matrix is multiplied in float32
        m = counts_of_codes(code, (offset[last] + size[last] - row0, n), np.float32)
        del code
        yield int(row0), m
        del m


def within_counts(bin_w, wr, wc, wi, offset, size, tested_mask, n) -> sp.csr_matrix:
    """The (grid column x item) counts of the within entries of the tested cells: the
    :func:`~iaa_frames.stats.counts.count_matrix` of their columns ``offset[cell] + bin``
    and items ``wi[row]`` (entries grouped by cell, ascending), built for a group of
    whole cells of about :data:`CHUNK_ENTRIES` entries at a time: the same matrix,
    without the temporaries of all entries at once (for
    :func:`iaa_frames.stats.kstest.ks_agreement_entries`). The counts are float32 where
    exact (:func:`~iaa_frames.stats.counts.count_matrix`)."""
    width = int(size[tested_mask].sum())
    data, indices, per_row = [], [], []
    for _, m in _count_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n):
        data.append(m.data)
        indices.append(m.indices)
        per_row.append(np.diff(m.indptr))
        del m
    indptr = np.zeros(width + 1, dtype=np.int64)
    if per_row:
        np.cumsum(np.concatenate(per_row), out=indptr[1:])
    join = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype)
    return sp.csr_matrix(
        (join(data, np.float32), join(indices, np.int32), indptr), shape=(width, n)
    )


def within_count_blocks(bin_w, wr, wc, wi, offset, size, tested_mask, n) -> list:
    """:func:`within_counts` stored by item, as vertical blocks, one per group of whole
    tested cells: a list of ``(first grid column, CSC counts of the group's grid columns
    x items)``, each group counted once by item (:func:`_item_chunks`: scipy's conversion
    from COO, a counting sort) and never assembled into one matrix
    (:meth:`iaa_frames.stats.counts.CountMatrix.of_row_blocks` multiplies them block by
    block).

    Examples
    --------
    >>> args = (np.array([0, 1, 0]), np.array([0, 1, 2]), np.array([0, 0, 1]),
    ...         np.array([1, 0, 1]), np.array([0, 2]), np.array([2, 1]),
    ...         np.array([True, True]), 2)
    >>> blocks = within_count_blocks(*args)
    >>> whole = sp.vstack([m for _, m in blocks])
    >>> [r for r, _ in blocks], (whole != within_counts(*args)).nnz
    ([0], 0)
    """
    return list(_item_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n))


def _item_chunks(bin_w, wr, wc, wi, offset, size, tested_mask, n):
    """The counts of :func:`_count_chunks` by item (CSC, float32: a group holds far
    fewer than 2**24 entries), each group of cells with its first grid column: scipy's
    conversion from COO, a counting sort by item that keeps the entries' order (by
    grid column where the entries come sorted, as the engine's), then sums the
    duplicates (sorting an item's columns first where they are not)."""
    for part, last, row0 in _cell_groups(wc, offset, tested_mask):
        shape = (int(offset[last] + size[last] - row0), n)
        # the entries' grid columns (int32 where they fit, as scipy would store them)
        small = max(shape) <= np.iinfo(np.int32).max
        cell = wc[part]
        column = (offset - row0).astype(np.int32 if small else np.int64)[cell]
        column += bin_w[part]
        item = wi[wr[part]]
        keep = tested_mask[cell]  # the entries of untested cells among them left out
        if not keep.all():
            column, item = column[keep], item[keep]
        del cell, keep
        m = sp.coo_matrix(
            (np.ones(len(column), dtype=np.float32), (column, item)), shape=shape
        ).tocsc()
        del column, item
        m.sum_duplicates()  # canonical: each item's columns ascending, once
        yield int(row0), m
        del m


#: Bootstrap replicates of the test by default (p-values resolve to 1 / 200).
DEFAULT_RESAMPLES = 199
#: Fewest distinct items among the within rows for a p-value.
MIN_ITEMS = 3
#: Largest number of points at which the two ECDFs are compared.
MAX_GRID = 256
#: Key of the test's random stream (distinct from the bootstrap of the intervals).
_STREAM = 0x5EED5


class KSAgreementTest(NamedTuple):
    """Result of :func:`ks_agreement_test`.

    Attributes
    ----------
    statistic : float
        ``D+ = max_t (F_within(t) - F_between(t))`` in [0, 1].
    pvalue : float
        One-sided p-value of "no agreement" (within-item distances not stochastically
        smaller than chance) from the recentred cluster bootstrap.
    n_resamples : int
        Replicates used (those where both samples keep some weight).
    """

    statistic: float
    pvalue: float
    n_resamples: int


def ks_agreement_test(
    within,
    between,
    *,
    within_item,
    between_item_a,
    between_item_b,
    n_items: int | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    min_items: int = MIN_ITEMS,
    max_grid: int = MAX_GRID,
) -> KSAgreementTest:
    """One-sided KS test of agreement, with a cluster bootstrap over items.

    Parameters
    ----------
    within, between : array-like of float
        Within-item and chance distances (0 means identical).
    within_item : array-like of int
        Item code of every within row.
    between_item_a, between_item_b : array-like of int
        The two items of every chance row.
    n_items : int, optional
        Number of items (clusters) resampled; by default one more than the largest code.
    n_resamples : int, default 199
        Bootstrap replicates.
    seed : int, default 0
        Seed of the replicates.
    min_items : int, default 3
        Fewest distinct items among the within rows for a p-value: with the within rows
        of one or two items the bootstrap cannot see how much they vary from item to
        item, and the test would reject far too often (NaN p-value instead).
    max_grid : int, default 256
        The ECDFs are compared at the distinct pooled values, or at this many pooled
        quantiles when there are more (the statistic is then the maximum over those
        points).

    Returns
    -------
    KSAgreementTest
        ``(statistic, pvalue, n_resamples)``; NaN statistic and p-value when a sample is
        empty, NaN p-value below ``min_items``.

    Examples
    --------
    Four items, within-item distances clearly below chance:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> within = rng.uniform(0.0, 0.3, 12)
    >>> between = rng.uniform(0.2, 1.0, 36)
    >>> items = np.repeat(np.arange(4), 3)
    >>> a, b = np.repeat(np.arange(4), 9), np.tile(np.repeat(np.arange(4), 3)[::-1], 3)
    >>> res = ks_agreement_test(within, between, within_item=items, between_item_a=a,
    ...                         between_item_b=b, seed=1)
    >>> round(res.statistic, 3), res.pvalue < 0.05
    (0.944, True)
    """
    x = np.asarray(within, dtype=np.float64).ravel()
    y = np.asarray(between, dtype=np.float64).ravel()
    stat, pval, used = ks_agreement_tests(
        x,
        y,
        within_item=within_item,
        between_item_a=between_item_a,
        between_item_b=between_item_b,
        within_cells=[np.arange(x.size)],
        between_cells=[np.arange(y.size)],
        n_items=n_items,
        n_resamples=n_resamples,
        seed=seed,
        min_items=min_items,
        max_grid=max_grid,
    )
    return KSAgreementTest(float(stat[0]), float(pval[0]), int(used[0]))


def ks_agreement_tests(
    within,
    between,
    *,
    within_item,
    between_item_a,
    between_item_b,
    within_cells,
    between_cells,
    between_weights=None,
    n_items: int | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    min_items: int = MIN_ITEMS,
    max_grid: int = MAX_GRID,
):
    """:func:`ks_agreement_test` for many cells (subsets of the rows) at once.

    The cells share the replicates: one draw of item multiplicities per replicate
    reweights every cell, and a block of replicates costs one sparse product for all
    cells together. The cells' grids and bins are computed for all cells together too
    (:func:`ks_agreement_entries`, no loop over cells).

    Parameters
    ----------
    within, between, within_item, between_item_a, between_item_b
        All rows, as in :func:`ks_agreement_test`.
    within_cells, between_cells : sequence of array-like of int
        The within rows and the chance rows of every cell (positions in the arrays above).
    between_weights : sequence of array-like of float, optional
        The weight of each of a cell's chance rows (a post-stratified or pooled chance
        sample, :mod:`iaa_frames.core.chance.poststrata`): the chance ECDF is weighted, and a
        replicate multiplies each row's weight by ``k_a k_b``. By default 1.
    n_items, n_resamples, seed, min_items, max_grid
        As in :func:`ks_agreement_test`.

    Returns
    -------
    (statistic, pvalue, n_resamples) : three arrays, one entry per cell

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.array([0.1, 0.2, 0.3, 0.9]), np.array([0.5, 0.6, 0.7, 0.8, 0.4, 0.2])
    >>> items = np.array([0, 1, 2, 3])
    >>> a, b = np.array([0, 1, 2, 3, 0, 1]), np.array([1, 2, 3, 0, 2, 3])
    >>> stat, p, n = ks_agreement_tests(x, y, within_item=items, between_item_a=a,
    ...                                 between_item_b=b, within_cells=[[0, 1, 2, 3], [0, 1]],
    ...                                 between_cells=[np.arange(6), np.arange(6)])
    >>> stat.round(3).tolist(), bool(np.isnan(p[1]))      # cell 1: two items only
    ([0.583, 0.833], True)
    """
    if len(within_cells) != len(between_cells):
        raise ParameterError("within_cells and between_cells must have one entry per cell")
    if between_weights is not None and len(between_weights) != len(between_cells):
        raise ParameterError("between_weights must have one entry per cell")
    w_rows, w_cell, _ = cell_entries(within_cells)
    b_rows, b_cell, b_sizes = cell_entries(between_cells)
    b_weight = None
    if between_weights is not None:
        b_weight, _, w_sizes = cell_entries(between_weights, np.float64)
        if not np.array_equal(w_sizes, b_sizes):
            raise ParameterError("between_weights must be finite, >= 0, one per chance row")
    return ks_agreement_entries(
        within,
        between,
        within_item=within_item,
        between_item_a=between_item_a,
        between_item_b=between_item_b,
        within_rows=w_rows,
        within_cell=w_cell,
        between_rows=b_rows,
        between_cell=b_cell,
        between_weight=b_weight,
        n_cells=len(within_cells),
        n_items=n_items,
        n_resamples=n_resamples,
        seed=seed,
        min_items=min_items,
        max_grid=max_grid,
    )


def ks_agreement_entries(
    within,
    between,
    *,
    within_item,
    between_item_a,
    between_item_b,
    within_rows,
    within_cell,
    between_rows,
    between_cell,
    between_weight=None,
    n_cells: int,
    n_items: int | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    min_items: int = MIN_ITEMS,
    max_grid: int = MAX_GRID,
    multiplicities=None,
    within_items=None,
):
    """:func:`ks_agreement_tests` with the cells given as entries (a row in one cell).

    Every cell's grid (its distinct pooled values, or ``max_grid`` pooled quantiles) and
    every entry's bin come from one sort of the (cell, value) keys of all cells, so the
    cost does not carry a Python step per cell.

    Parameters
    ----------
    within, between, within_item, between_item_a, between_item_b
        All rows, as in :func:`ks_agreement_test`.
    within_rows, within_cell : array-like of int
        Every within entry's row and cell; a cell's rows keep the order given.
    between_rows, between_cell : array-like of int
        The same for the chance entries.
    between_weight : array-like of float, optional
        Weight of every chance entry (default 1).
    n_cells : int
        Number of cells (a cell without entries gets NaN).
    n_items, n_resamples, seed, min_items, max_grid
        As in :func:`ks_agreement_test`.
    multiplicities : ndarray of int, shape (n_resamples, n_items), optional
        The replicates' item multiplicities, :func:`ks_multiplicities` of the same
        ``n_items``, ``n_resamples`` and ``seed`` (tests of several sets of cells on the
        same items draw them once); by default drawn here, the same.
    within_items : array-like of float, shape (n_cells,), optional
        Per cell, the distinct items among its within entries, when the caller has
        counted them (the engine's per-item sums:
        :meth:`iaa_frames.core.engine.sigma.SigmaCells.tests`); else counted here
        (:func:`~iaa_frames.stats.kstest.cell_differences`).

    Returns
    -------
    (statistic, pvalue, n_resamples) : three arrays of length ``n_cells``

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.r_[0.1, 0.2, 0.3, 0.9], np.r_[0.5, 0.6, 0.7, 0.8, 0.4, 0.2]  # within, chance
    >>> stat, p, n = ks_agreement_entries(
    ...     x, y, within_item=[0, 1, 2, 3], between_item_a=[0, 1, 2, 3, 0, 1],
    ...     between_item_b=[1, 2, 3, 0, 2, 3], within_rows=[0, 1, 2, 3, 0, 1],
    ...     within_cell=[0, 0, 0, 0, 1, 1], between_rows=np.r_[0:6, 0:6],
    ...     between_cell=np.repeat([0, 1], 6), n_cells=3)
    >>> stat.round(3).tolist()[:2], bool(np.isnan(stat[2]))   # cell 2 is empty
    ([0.583, 0.833], True)
    """
    x, y, (wi, ba, bb) = check_rows(within, between, within_item, between_item_a, between_item_b)
    check_int(n_resamples, "n_resamples", low=1)
    check_int(seed, "seed", low=0)
    check_int(min_items, "min_items", low=1)
    check_int(max_grid, "max_grid", low=2)
    check_int(n_cells, "n_cells", low=0)
    top = int(max(wi.max(initial=-1), ba.max(initial=-1), bb.max(initial=-1))) + 1
    n = top if n_items is None else int(n_items)
    if n < top:
        raise ParameterError(f"n_items ({n}) must exceed every item code (largest {top - 1})")
    if multiplicities is not None and np.shape(multiplicities) != (n_resamples, n):
        raise ParameterError(
            f"multiplicities must have shape (n_resamples, n_items) = ({n_resamples}, {n}); "
            f"got {np.shape(multiplicities)}"
        )
    (wr, wc), (br, bc, bw) = check_entries(
        x, y, (within_rows, within_cell), (between_rows, between_cell), between_weight, n_cells
    )
    statistic, size, bin_w, bin_b, observed, tested_mask, (wr, wc), (br, bc, bw) = cell_differences(
        x,
        y,
        wi,
        (wr, wc),
        (br, bc, bw),
        n_cells=n_cells,
        n_items=n,
        min_items=min_items,
        max_grid=max_grid,
        distinct=within_items,
    )
    # the replicates: only cells whose within rows span min_items items
    pvalue = np.full(n_cells, np.nan)
    used = np.zeros(n_cells, dtype=np.int64)
    offset = np.zeros(n_cells, dtype=np.int64)
    offset[tested_mask] = np.cumsum(size[tested_mask]) - size[tested_mask]
    tested = np.flatnonzero(tested_mask)
    if not tested.size:
        return statistic, pvalue, used
    t_b = tested_mask[bc]
    sizes = size[tested]
    offsets = np.r_[0, np.cumsum(sizes)]
    width = int(offsets[-1])
    starts = offsets[:-1]
    stat = statistic[tested]
    # within rows per (grid column, item): times the multiplicities, a replicate column
    # (blocks of whole cells, each counted once: no matrix of them all assembled)
    by_item = within_count_blocks(bin_w, wr, wc, wi, offset, size, tested_mask, n)
    del bin_w, wr, wc
    has_x = np.zeros(width, dtype=bool)
    for row0, m in by_item:  # a loop over blocks of cells
        has_x[row0 + m.indices] = True
    x_cols = RunningColumns(has_x, starts, sizes)
    counts = CountMatrix.of_row_blocks(by_item, (width, n), x_cols.kept)
    del by_item, has_x
    # only the chance rows of tested cells enter the replicates: the pairs of items are
    # those of these rows (the other pairs would add nothing to any sum)
    rows_b = br[t_b]
    kept, row_code = unique_codes(rows_b, y.size)
    hist_y = sp.csr_matrix(
        (bw[t_b], (row_code.ravel(), offset[bc[t_b]] + bin_b[t_b])),
        shape=(kept.size, width),
    )
    ba, bb = ba[kept], bb[kept]
    # chance rows of one unordered pair of items share their weight k_a * k_b: sum them
    pair, row_pair = unique_codes(np.minimum(ba, bb) * n + np.maximum(ba, bb), n * n)
    hist_y = (
        sp.csr_matrix(
            (np.ones(kept.size), (row_pair.ravel(), np.arange(kept.size))),
            shape=(len(pair), kept.size),
        )
        @ hist_y
    )
    ba, bb = pair // n, pair % n
    hist_yt = hist_y.T.tocsr()
    del hist_y
    y_cols = RunningColumns(np.diff(hist_yt.indptr) > 0, starts, sizes)
    if y_cols.index is not None:
        hist_yt = hist_yt[y_cols.kept]  # the rows of the kept columns, as they are
    widen = np.sqrt(n / (n - 1.0)) if n > 1 else 1.0
    exceed = np.zeros(tested.size, dtype=np.int64)
    count_ok = np.zeros(tested.size, dtype=np.int64)
    step = ks_block_size(n_resamples, n_items=n, n_pairs=len(pair), width=width)
    if multiplicities is None:
        blocks = multiplicity_blocks(n, n_resamples, seed=_stream_seed(seed), block_size=step)
    else:
        blocks = (multiplicities[b : b + step] for b in range(0, n_resamples, step))
    threshold = stat - 1e-12
    screen = Screen(x_cols, y_cols, starts, sizes, observed, threshold, widen)
    buffers = None
    # (replicate x grid column) blocks: every cell's ECDFs from running sums that
    # restart at its first column (RunningColumns: those of sums over every column, bit
    # for bit), the same operations on the same values as column by column
    for k in blocks:
        b = len(k)
        if b % 2:  # an even block: its replicates are summed in pairs (RunningColumns)
            k = np.concatenate([k, np.zeros((1, k.shape[1]), k.dtype)])
        sx = x_cols.running(counts.times(k, exact=True))
        # the pairs' weights k_a * k_b in float64 (the gathered rows converted, not the
        # whole block), one row per pair as the product reads them
        kt = np.ascontiguousarray(k.T)
        weight = kt[ba].astype(np.float64)
        weight *= kt[bb]
        del kt
        sy = y_cols.running(hist_yt @ weight)
        del weight
        tx, ty = x_cols.totals(sx)[:b], y_cols.totals(sy)[:b]
        ok = (tx > 0) & (ty > 0)
        count_ok += np.count_nonzero(ok, axis=0)
        # the replicates and cells whose difference may reach the statistic (a bound
        # per run of columns), the others left out without their differences
        hit = None if screen is None else screen.exceeds(sx, sy, ok)
        if hit is None:  # most runs may: every column, as the differences were
            screen = None  # (and for the next blocks: their bounds would rarely pay)
            if buffers is None:
                buffers = np.empty((2, step + step % 2, width))
            fx, fy = x_cols.normalize(*sx), y_cols.normalize(*sy)
            # the replicate's difference, recentred ... (in two arrays reused by the blocks)
            diff = x_cols.values(fx, out=buffers[0][: len(k)])
            diff -= y_cols.values(fy, out=buffers[1][: len(k)])
            diff -= observed
            t = np.maximum.reduceat(diff[:b], starts, axis=1)
            del fx, fy, diff
            # ... and widened after the maximum: x -> fl(widen * x) is nondecreasing, so
            # the maximum of the widened values is the widened maximum, bit for bit
            t *= widen
            hit = t >= threshold
        del sx, sy
        exceed += np.count_nonzero(ok & hit, axis=0)
    pvalue[tested] = (1.0 + exceed) / (1.0 + count_ok)
    used[tested] = count_ok
    return statistic, pvalue, used


#: Bytes of the temporaries of one block of the test's replicates.
KS_BLOCK_BYTES = 32 << 20


def ks_block_size(n_resamples: int, *, n_items: int, n_pairs: int, width: int) -> int:
    """Replicates per block of :func:`ks_agreement_entries`, whose temporaries take per
    replicate about 8 bytes an item (the multiplicities, and their float32 copy for the
    within counts), 16 a pair of items (its weights) and 52 a grid column (the running
    sums): :data:`KS_BLOCK_BYTES` in all. The blocks do not change the result (each
    replicate is computed alone, and the replicates come from one stream). Larger
    blocks buy little for their memory (the test runs beside the bootstrap): 96 and
    256 MiB made a dask-sized group of cells (500k items, 12M entries) 4 % and 12 %
    faster.

    Examples
    --------
    >>> ks_block_size(199, n_items=500_000, n_pairs=26_000, width=6_000)
    7
    >>> ks_block_size(199, n_items=50_000, n_pairs=26_000, width=6_000)
    29
    """
    per = 8 * n_items + 16 * n_pairs + 52 * width
    return int(max(1, min(n_resamples, KS_BLOCK_BYTES // max(per, 1))))


def ks_multiplicities(n_items: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0):
    """The item multiplicities of the replicates of :func:`ks_agreement_entries` (its
    ``multiplicities``): one row per replicate, int32, shape (n_resamples, n_items).

    Examples
    --------
    >>> k = ks_multiplicities(4, 3, seed=1)
    >>> k.shape, k.sum(axis=1).tolist()
    ((3, 4), [4, 4, 4])
    """
    check_int(n_items, "n_items", low=0)
    check_int(n_resamples, "n_resamples", low=1)
    check_int(seed, "seed", low=0)
    return next(
        multiplicity_blocks(n_items, n_resamples, seed=_stream_seed(seed), block_size=n_resamples)
    )


#: Bytes of the temporaries of one block of :func:`ks_multiplicities_bytes`: 28 an item
#: and replicate (the draws, their offsets and their counts in int64, the int32 block).
_BYTES_BLOCK = 64 << 20
#: Largest multiplicity :func:`ks_multiplicities_bytes` stores in one byte.
_BYTE_MAX = np.iinfo(np.uint8).max


def ks_multiplicities_bytes(n_items: int, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0):
    """:func:`ks_multiplicities` stored one byte a value: the same multiplicities as uint8
    (as int32 in the rare table where an item is drawn more than 255 times in one
    replicate), drawn a few replicates at a time, so that neither the table in int32 nor
    its int64 draws are ever held whole. The tests read them as they read the int32 ones
    (the same values: the same p-values, bit for bit).

    Examples
    --------
    >>> k = ks_multiplicities_bytes(4, 3, seed=1)
    >>> k.dtype.name, bool((k == ks_multiplicities(4, 3, seed=1)).all())
    ('uint8', True)
    """
    check_int(n_items, "n_items", low=0)
    check_int(n_resamples, "n_resamples", low=1)
    check_int(seed, "seed", low=0)
    out = np.empty((n_resamples, n_items), dtype=np.uint8)
    step = max(1, min(n_resamples, _BYTES_BLOCK // max(28 * n_items, 1)))
    start = 0
    for k in multiplicity_blocks(n_items, n_resamples, seed=_stream_seed(seed), block_size=step):
        if out.dtype == np.uint8 and k.size and int(k.max()) > _BYTE_MAX:
            out = out.astype(np.int32)
        out[start : start + len(k)] = k
        start += len(k)
    return out


def unique_codes(values, size: int):
    """``numpy.unique(values, return_inverse=True)`` of integer codes in ``[0, size)``: by
    a flag per code where the codes are few against the values (no sort), the same
    arrays.

    Examples
    --------
    >>> [a.tolist() for a in unique_codes(np.array([5, 1, 5, 3]), 8)]
    [[1, 3, 5], [2, 0, 2, 1]]
    """
    values = np.asarray(values)
    if size > 8 * values.size + (1 << 16):
        return np.unique(values, return_inverse=True)
    seen = np.zeros(size, dtype=bool)
    seen[values] = True
    code = np.cumsum(seen) - 1
    return np.flatnonzero(seen), code[values]


def _stream_seed(seed: int) -> int:
    """The seed of the test's stream of multiplicities."""
    return int(np.random.SeedSequence([seed, _STREAM]).generate_state(1)[0])
