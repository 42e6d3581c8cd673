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


def _cell_bins(x, y, max_grid):
    """Grid of one cell and the bin of every value: the first grid point at or above it
    (a value counts in the ECDF at every grid point from its bin on)."""
    grid = np.unique(np.concatenate([x, y]))
    if grid.size > max_grid:  # pooled quantiles, always with the largest value
        grid = np.unique(
            np.r_[np.quantile(grid, np.linspace(0, 1, max_grid), method="inverted_cdf"), grid[-1]]
        )
    return grid.size, np.searchsorted(grid, x), np.searchsorted(grid, y)


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
    cells together.

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
    if len(within_cells) != len(between_cells):
        raise ParameterError("within_cells and between_cells must have one entry per cell")
    top = int(max(wi.max(initial=-1), ba.max(initial=-1), bb.max(initial=-1))) + 1
    n = top if n_items is None else int(n_items)
    if n < top:
        raise ParameterError(f"n_items ({n}) must exceed every item code (largest {top - 1})")

    n_cells = len(within_cells)
    statistic = np.full(n_cells, np.nan)
    pvalue = np.full(n_cells, np.nan)
    used = np.zeros(n_cells, dtype=np.int64)
    # per cell (a loop over cells, each vectorized): grid, bins, observed difference
    offsets, observed, hx, hy = [0], [], [], []
    tested = []
    if between_weights is not None and len(between_weights) != len(between_cells):
        raise ParameterError("between_weights must have one entry per cell")
    for c, (rw, rb) in enumerate(zip(within_cells, between_cells)):
        rw, rb = np.asarray(rw, dtype=np.int64), np.asarray(rb, dtype=np.int64)
        wb = (
            np.ones(rb.size)
            if between_weights is None
            else np.asarray(between_weights[c], dtype=np.float64)
        )
        if wb.shape != rb.shape or not (np.isfinite(wb).all() and (wb >= 0).all()):
            raise ParameterError("between_weights must be finite, >= 0, one per chance row")
        if rw.size == 0 or rb.size == 0 or not wb.sum() > 0:
            continue
        size, bin_x, bin_y = _cell_bins(x[rw], y[rb], max_grid)
        diff = (
            np.cumsum(np.bincount(bin_x, minlength=size)) / rw.size
            - np.cumsum(np.bincount(bin_y, weights=wb, minlength=size)) / wb.sum()
        )
        statistic[c] = max(float(diff.max()), 0.0)
        if np.count_nonzero(np.bincount(wi[rw], minlength=n)) < min_items:
            continue
        tested.append(c)
        hx.append((wi[rw], offsets[-1] + bin_x))
        hy.append((rb, offsets[-1] + bin_y, wb))
        observed.append(diff)
        offsets.append(offsets[-1] + size)
    if not tested:
        return statistic, pvalue, used
    width = offsets[-1]
    starts = np.asarray(offsets[:-1], dtype=np.int64)
    ends = np.asarray(offsets[1:], dtype=np.int64) - 1
    observed = np.concatenate(observed)
    stat = statistic[tested]
    hist_x = sp.csr_matrix(
        (
            np.ones(sum(len(i) for i, _ in hx)),
            (np.concatenate([i for i, _ in hx]), np.concatenate([j for _, j in hx])),
        ),
        shape=(n, width),
    )
    hist_y = sp.csr_matrix(
        (
            np.concatenate([wb for _, _, wb in hy]),
            (np.concatenate([r for r, _, _ in hy]), np.concatenate([j for _, j, _ in hy])),
        ),
        shape=(y.size, width),
    )
    # chance rows of one unordered pair of items share their weight k_a * k_b: sum them
    pair, row_pair = np.unique(np.minimum(ba, bb) * n + np.maximum(ba, bb), return_inverse=True)
    hist_y = (
        sp.csr_matrix(
            (np.ones(y.size), (row_pair.ravel(), np.arange(y.size))), shape=(len(pair), y.size)
        )
        @ hist_y
    )
    ba, bb = pair // n, pair % n
    hist_xt, hist_yt = hist_x.T.tocsr(), hist_y.T.tocsr()
    widen = np.sqrt(n / (n - 1.0)) if n > 1 else 1.0
    exceed = np.zeros(len(tested), dtype=np.int64)
    count_ok = np.zeros(len(tested), dtype=np.int64)
    step = block_size(n_resamples, y.size + n + 3 * width)
    seed_stream = int(np.random.SeedSequence([seed, _STREAM]).generate_state(1)[0])
    for k in multiplicity_blocks(n, n_resamples, seed=seed_stream, block_size=step):
        k = k.astype(np.float64)  # a block of replicates at once, not a loop over rows
        cum_x = np.cumsum(np.asarray(hist_xt @ k.T).T, axis=1)
        cum_y = np.cumsum(np.asarray(hist_yt @ (k[:, ba] * k[:, bb]).T).T, axis=1)
        # cumulative sums restarted at every cell's first column
        before_x = np.where(starts > 0, cum_x[:, np.maximum(starts - 1, 0)], 0.0)
        before_y = np.where(starts > 0, cum_y[:, np.maximum(starts - 1, 0)], 0.0)
        seg = np.repeat(np.arange(len(tested)), np.diff(offsets))
        cx, cy = cum_x - before_x[:, seg], cum_y - before_y[:, seg]
        tx, ty = cx[:, ends], cy[:, ends]
        with np.errstate(invalid="ignore", divide="ignore"):
            diff = cx / tx[:, seg] - cy / ty[:, seg]
        t = np.maximum.reduceat(widen * (diff - observed), starts, axis=1)
        ok = (tx > 0) & (ty > 0)
        exceed += np.count_nonzero(ok & (t >= stat - 1e-12), axis=0)
        count_ok += np.count_nonzero(ok, axis=0)
    pvalue[tested] = (1.0 + exceed) / (1.0 + count_ok)
    used[tested] = count_ok
    return statistic, pvalue, used
