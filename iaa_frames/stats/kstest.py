# Over 400 lines: the test, its form for many cells at once and the draws of its replicates
# (shared between components), one statistic.
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
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import check_int

from .bootstrap import multiplicity_blocks
from .counts import CountMatrix
from .ks_cells import (
    cell_differences,
    cell_entries,
    check_entries,
    check_rows,
    within_count_blocks,
)
from .ks_running import RunningColumns, Screen

__all__ = [
    "DEFAULT_RESAMPLES",
    "MAX_GRID",
    "MIN_ITEMS",
    "KSAgreementTest",
    "ks_agreement_entries",
    "ks_agreement_test",
    "ks_agreement_tests",
    "ks_multiplicities",
    "ks_multiplicities_bytes",
    "unique_codes",
]

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
        (:func:`~iaa_frames.stats.ks_cells.cell_differences`).

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
