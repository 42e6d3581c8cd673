"""A one-sided KS test of agreement that stays valid when pairs share items.

The within-item distances of a corpus are not independent: the pairings of one item share
its annotations, and a chance pairing of items i and j shares both items with many other
chance pairings. :func:`scipy.stats.ks_2samp` treats every distance as an independent
draw, so its p-value is too small: on corpora of a few items it rejects "no agreement"
far more often than its level says.

The test here keeps the two-sample KS statistic but takes its null distribution from a
**cluster bootstrap over items**, the same resampling as the intervals
(:mod:`iaa_frames.bootstrap`): a replicate draws the items with replacement, a within row
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

Rows are binned once (per item for the within rows); a block of replicates then costs a
sparse product, so the test scales to millions of rows.

``benchmarks/bench_kstest.py`` measures the false-positive rate on corpora of annotators
who draw at random (no agreement), from 4 to 200 items.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .bootstrap import block_size, multiplicity_blocks
from .errors import ParameterError
from .settings import check_int

__all__ = [
    "DEFAULT_RESAMPLES",
    "MAX_GRID",
    "MIN_ITEMS",
    "KSAgreementTest",
    "ks_agreement_entries",
    "ks_agreement_test",
    "ks_agreement_tests",
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


def _as_codes(values, n, name):
    arr = np.asarray(values)
    if arr.shape != (n,) or (
        arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0)
    ):
        raise ParameterError(f"{name} must be {n} non-negative integer item codes")
    return arr.astype(np.int64)


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


def _segment_sums(values, cell, n_cells):
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


def _grids(key, n_cells, span, max_grid):
    """Every cell's grid as sorted keys ``cell * span + rank``: its distinct pooled values,
    or ``max_grid`` inverted-CDF quantiles of them and the largest when there are more
    (as ``np.quantile(..., method="inverted_cdf")`` on each cell)."""
    pooled = np.unique(key)
    cell = pooled // span
    m = np.bincount(cell, minlength=n_cells)
    big = np.flatnonzero(m > max_grid)
    if not big.size:
        return pooled
    keep = np.ones(pooled.size, dtype=bool)
    start = np.cumsum(m) - m
    keep[np.isin(cell, big)] = False
    q = np.linspace(0, 1, max_grid)
    index = m[big, None] * q[None, :] - 1  # numpy's inverted_cdf virtual index
    below = np.floor(index)
    pick = np.where(index - below == 0, below, below + 1).astype(np.int64)
    pick = np.clip(pick, 0, None)
    pick = np.column_stack([pick, m[big] - 1]) + start[big, None]
    keep[pick.ravel()] = True
    return pooled[keep]


def _cell_entries(cells, dtype=np.int64):
    """(entries, cell of each entry, size of each cell) of a sequence of cells."""
    parts = [np.asarray(c, dtype=dtype).ravel() for c in cells]
    sizes = np.fromiter((p.size for p in parts), dtype=np.int64, count=len(parts))
    rows = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    return rows, np.repeat(np.arange(len(parts)), sizes), sizes


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
        sample, :mod:`iaa_frames.engine.poststrata`): the chance ECDF is weighted, and a
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
    w_rows, w_cell, _ = _cell_entries(within_cells)
    b_rows, b_cell, b_sizes = _cell_entries(between_cells)
    b_weight = None
    if between_weights is not None:
        b_weight, _, w_sizes = _cell_entries(between_weights, np.float64)
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


def _entries(rows, cell, size, n_cells, name):
    rows = np.asarray(rows, dtype=np.int64).ravel()
    cell = np.asarray(cell, dtype=np.int64).ravel()
    if rows.shape != cell.shape or (
        rows.size
        and (rows.min() < 0 or rows.max() >= size or cell.min() < 0 or cell.max() >= n_cells)
    ):
        raise ParameterError(
            f"{name}: one cell per row, rows in [0, {size}) and cells in [0, {n_cells})"
        )
    return rows, cell


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

    Returns
    -------
    (statistic, pvalue, n_resamples) : three arrays, one entry per cell

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.array([0.1, 0.2, 0.3, 0.9]), np.array([0.5, 0.6, 0.7, 0.8, 0.4, 0.2])
    >>> stat, p, n = ks_agreement_entries(
    ...     x, y, within_item=[0, 1, 2, 3], between_item_a=[0, 1, 2, 3, 0, 1],
    ...     between_item_b=[1, 2, 3, 0, 2, 3], within_rows=[0, 1, 2, 3, 0, 1],
    ...     within_cell=[0, 0, 0, 0, 1, 1], between_rows=np.r_[0:6, 0:6],
    ...     between_cell=np.repeat([0, 1], 6), n_cells=3)
    >>> stat.round(3).tolist()[:2], bool(np.isnan(stat[2]))   # cell 2 is empty
    ([0.583, 0.833], True)
    """
    x = np.asarray(within, dtype=np.float64).ravel()
    y = np.asarray(between, dtype=np.float64).ravel()
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ParameterError("distances must be finite")
    wi = _as_codes(within_item, x.size, "within_item")
    ba = _as_codes(between_item_a, y.size, "between_item_a")
    bb = _as_codes(between_item_b, y.size, "between_item_b")
    check_int(n_resamples, "n_resamples", low=1)
    check_int(seed, "seed", low=0)
    check_int(min_items, "min_items", low=1)
    check_int(max_grid, "max_grid", low=2)
    check_int(n_cells, "n_cells", low=0)
    top = int(max(wi.max(initial=-1), ba.max(initial=-1), bb.max(initial=-1))) + 1
    n = top if n_items is None else int(n_items)
    if n < top:
        raise ParameterError(f"n_items ({n}) must exceed every item code (largest {top - 1})")
    wr, wc = _entries(within_rows, within_cell, x.size, n_cells, "within entries")
    br, bc = _entries(between_rows, between_cell, y.size, n_cells, "between entries")
    bw = (
        np.ones(br.size)
        if between_weight is None
        else np.asarray(between_weight, dtype=np.float64).ravel()
    )
    if bw.shape != br.shape or not (np.isfinite(bw).all() and (bw >= 0).all()):
        raise ParameterError("between_weights must be finite, >= 0, one per chance row")
    # entries grouped by cell, each cell's rows in the order given
    if wc.size and (np.diff(wc) < 0).any():
        order = np.argsort(wc, kind="stable")
        wr, wc = wr[order], wc[order]
    if bc.size and (np.diff(bc) < 0).any():
        order = np.argsort(bc, kind="stable")
        br, bc, bw = br[order], bc[order], bw[order]

    statistic = np.full(n_cells, np.nan)
    pvalue = np.full(n_cells, np.nan)
    used = np.zeros(n_cells, dtype=np.int64)
    n_w = np.bincount(wc, minlength=n_cells).astype(np.float64)
    total = _segment_sums(bw, bc, n_cells)  # bitwise each cell's weights.sum()
    valid = (n_w > 0) & (total > 0)
    if not valid.any():
        return statistic, pvalue, used
    keep_w, keep_b = valid[wc], valid[bc]
    if not keep_w.all():
        wr, wc = wr[keep_w], wc[keep_w]
    if not keep_b.all():
        br, bc, bw = br[keep_b], bc[keep_b], bw[keep_b]
    del keep_w, keep_b
    # keys cell * span + rank of the value: one sort orders every cell's pooled values
    # (ranks among all rows' values, which order the values of every cell alike)
    values = np.unique(np.concatenate([x, y]))
    span = np.int64(values.size)
    kw = np.searchsorted(values, x)[wr]
    kw += wc * span
    kb = np.searchsorted(values, y)[br]
    kb += bc * span
    del values
    grid = _grids(np.concatenate([kw, kb]), n_cells, span, max_grid)
    size = np.bincount(grid // span, minlength=n_cells)
    g_start = np.cumsum(size) - size
    bin_w = np.searchsorted(grid, kw)  # first grid point at or above, within the cell
    bin_w -= g_start[wc]
    del kw
    bin_b = np.searchsorted(grid, kb)
    del kb
    bin_b -= g_start[bc]
    del grid
    # items among each cell's within rows
    pairs = np.unique(wc * np.int64(max(n, 1)) + wi[wr])
    distinct = np.bincount(pairs // max(n, 1), minlength=n_cells)
    tested_mask = valid & (distinct >= min_items)
    offset = np.zeros(n_cells, dtype=np.int64)
    offset[tested_mask] = np.cumsum(size[tested_mask]) - size[tested_mask]
    # observed differences: cells in blocks of a padded (cells x grid) array, whose
    # cumulative sums along a row run as each cell's own
    cells = np.flatnonzero(valid)
    width = int(size[cells].max())
    per_block = max(1, (1 << 20) // width)
    observed = []
    for lo in range(0, cells.size, per_block):  # a loop over blocks of cells
        block = cells[lo : lo + per_block]
        k = block.size
        w0, w1 = np.searchsorted(wc, [block[0], block[-1] + 1])
        b0, b1 = np.searchsorted(bc, [block[0], block[-1] + 1])
        row_w = np.searchsorted(block, wc[w0:w1])
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
    tested = np.flatnonzero(tested_mask)
    if not tested.size:
        return statistic, pvalue, used
    t_w, t_b = tested_mask[wc], tested_mask[bc]
    sizes = size[tested]
    offsets = np.r_[0, np.cumsum(sizes)]
    width = int(offsets[-1])
    starts = offsets[:-1]
    ends = offsets[1:] - 1
    observed = np.concatenate(observed)
    stat = statistic[tested]
    hist_x = sp.csr_matrix(
        (np.ones(int(t_w.sum())), (wi[wr[t_w]], offset[wc[t_w]] + bin_w[t_w])),
        shape=(n, width),
    )
    # only the chance rows of tested cells enter the replicates: the pairs of items are
    # those of these rows (the other pairs would add nothing to any sum)
    rows_b = br[t_b]
    kept, row_code = np.unique(rows_b, return_inverse=True)
    hist_y = sp.csr_matrix(
        (bw[t_b], (row_code.ravel(), offset[bc[t_b]] + bin_b[t_b])),
        shape=(kept.size, width),
    )
    ba, bb = ba[kept], bb[kept]
    # chance rows of one unordered pair of items share their weight k_a * k_b: sum them
    pair, row_pair = np.unique(np.minimum(ba, bb) * n + np.maximum(ba, bb), return_inverse=True)
    hist_y = (
        sp.csr_matrix(
            (np.ones(kept.size), (row_pair.ravel(), np.arange(kept.size))),
            shape=(len(pair), kept.size),
        )
        @ hist_y
    )
    ba, bb = pair // n, pair % n
    hist_xt, hist_yt = hist_x.T.tocsr(), hist_y.T.tocsr()
    widen = np.sqrt(n / (n - 1.0)) if n > 1 else 1.0
    exceed = np.zeros(tested.size, dtype=np.int64)
    count_ok = np.zeros(tested.size, dtype=np.int64)
    step = block_size(n_resamples, len(pair) + n + 3 * width)
    seed_stream = int(np.random.SeedSequence([seed, _STREAM]).generate_state(1)[0])
    seg = np.repeat(np.arange(tested.size), np.diff(offsets))
    first = np.maximum(starts - 1, 0)
    for k in multiplicity_blocks(n, n_resamples, seed=seed_stream, block_size=step):
        k = k.astype(np.float64)  # a block of replicates at once, not a loop over rows
        cx = np.cumsum(np.asarray(hist_xt @ k.T).T, axis=1)
        cy = np.cumsum(np.asarray(hist_yt @ (k[:, ba] * k[:, bb]).T).T, axis=1)
        # cumulative sums restarted at every cell's first column (in place)
        cx -= np.where(starts > 0, cx[:, first], 0.0)[:, seg]
        cy -= np.where(starts > 0, cy[:, first], 0.0)[:, seg]
        tx, ty = cx[:, ends], cy[:, ends]
        with np.errstate(invalid="ignore", divide="ignore"):
            cx /= tx[:, seg]
            cy /= ty[:, seg]
        cx -= cy  # the replicate's difference, recentred and widened
        cx -= observed
        cx *= widen
        t = np.maximum.reduceat(cx, starts, axis=1)
        ok = (tx > 0) & (ty > 0)
        exceed += np.count_nonzero(ok & (t >= stat - 1e-12), axis=0)
        count_ok += np.count_nonzero(ok, axis=0)
    pvalue[tested] = (1.0 + exceed) / (1.0 + count_ok)
    used[tested] = count_ok
    return statistic, pvalue, used
