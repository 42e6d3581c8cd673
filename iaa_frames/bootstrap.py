"""Cluster bootstrap over items: replicate weights of the stored table rows.

A replicate draws ``n_items`` items with replacement; item ``i`` is drawn ``k_i`` times
(its *multiplicity*). Nothing geometric is recomputed: the rows of the stored pair and unit
tables are reweighted.

* A row that belongs to one item (a within-item pair, a cluster, a pair of values in a
  cluster) weighs ``k_i``: the item's rows appear ``k_i`` times in the resampled corpus.
* A between-item (chance) row pairing items ``i`` and ``j`` weighs ``k_i * k_j``: the number
  of copies of that pairing among the pairings of the resampled corpus, so the chance
  sample is reweighted exactly as the corpus it stands for.

Every statistic of the agreement table is a function of *sums* of row values (counts,
sums of distances, coincidences) that are linear in these weights. A table is therefore
summarised once, as a sparse matrix of per-item (or per-row) contributions to every cell
(:class:`ItemSums`, :class:`PairSums`), and a block of replicates costs one sparse-dense
product.

Intervals
---------
The percentile interval of the replicates is too narrow and lopsided for these
statistics: sigma is a ratio of means, biased low in small corpora, and its bootstrap
distribution is skewed. :func:`bca_interval` gives the bias-corrected and accelerated
interval (BCa; Efron, JASA 1987; Efron & Tibshirani, *An Introduction to the Bootstrap*,
ch. 14): the percentiles are moved by the bias correction ``z0`` (the share of
replicates below the estimate) and the acceleration ``a`` (the skewness of the
jackknife values, from a grouped delete-a-group jackknife over items,
:func:`jackknife_blocks`). Its half-widths are then scaled about the BCa median by
:func:`interval_scale`, which corrects the two ways the spread of the replicates is not
the uncertainty of the estimate:

* **Chance means are means over pairs of items.** Weighing a chance row by ``k_i k_j``
  counts its pair-level noise about three times over (in variance), so the bootstrap
  overstates the uncertainty of the chance part, most where few chance units stand for
  many pairs of items (localization at tau = 0.5). :func:`pair_level_shrink` removes the
  excess with the dyadic-robust variance.
* **The variance is itself estimated from the items.** Where a few items carry most of
  it (classification: confusions concentrate in hard items) its estimate is noisy and a
  normal-theory width is too narrow; the width takes Student's quantile with the
  Satterthwaite degrees of freedom of the jackknife variance (:func:`jackknife_df`).

``benchmarks/bench_coverage.py`` measures the coverage of the percentile and of the
shipped interval.

Examples
--------
>>> import numpy as np
>>> from iaa_frames.bootstrap import ItemSums, multiplicity_blocks
>>> sums = ItemSums.from_entries(item=[0, 1, 1], column=[0, 0, 1], value=[1.0, 2.0, 5.0],
...                              n_items=2, n_columns=2)
>>> sums.total()
array([3., 5.])
>>> sums.total(np.array([[2, 0], [0, 2]]))
array([[ 2.,  0.],
       [ 4., 10.]])
>>> [block.shape for block in multiplicity_blocks(4, 5, seed=0, block_size=2)]
[(2, 4), (2, 4), (1, 4)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .errors import ParameterError

__all__ = [
    "CI_METHODS",
    "ItemSums",
    "PairSums",
    "bca_interval",
    "block_size",
    "interval_scale",
    "jackknife_blocks",
    "jackknife_df",
    "jackknife_variance",
    "multiplicity_blocks",
    "pair_level_shrink",
]

#: Key of the bootstrap's random stream, so that it differs from the chance sample's even
#: when both use the same seed.
_STREAM = 0xB0075
#: Replicates are processed in blocks of about this many (replicate x column) elements.
BLOCK_ELEMENTS = 1 << 22
#: Interval methods: bias-corrected and accelerated (default), or plain percentile.
CI_METHODS = ("bca", "percentile")
#: Largest number of groups of the jackknife that estimates the BCa acceleration.
JACKKNIFE_GROUPS = 200


def block_size(n_boot: int, width: int) -> int:
    """Replicates per block so that a (block, width) float array stays near
    :data:`BLOCK_ELEMENTS` elements.

    Examples
    --------
    >>> block_size(200, 1 << 21)
    2
    """
    return int(max(1, min(n_boot, BLOCK_ELEMENTS // max(width, 1))))


def multiplicity_blocks(
    n_items: int, n_boot: int, *, seed: int = 0, block_size: int = 64
) -> Iterator[np.ndarray]:
    """Item multiplicities of ``n_boot`` replicates, in blocks of replicates.

    Each replicate draws ``n_items`` items uniformly with replacement; row ``b`` of a
    block holds how many times each item was drawn (it sums to ``n_items``). The draws
    come from one seeded stream consumed in replicate order, so the replicates do not
    depend on ``block_size``.

    Parameters
    ----------
    n_items : int
        Number of items (clusters of the bootstrap).
    n_boot : int
        Number of replicates.
    seed : int, default 0
        Seed of the stream (``numpy.random.default_rng([seed, _STREAM])``, distinct from
        the stream of the chance sample with the same seed).
    block_size : int, default 64
        Replicates per block (the last block may be smaller).

    Yields
    ------
    numpy.ndarray of int32, shape (b, n_items)

    Examples
    --------
    >>> blocks = list(multiplicity_blocks(3, 2, seed=1))
    >>> blocks[0].sum(axis=1).tolist()
    [3, 3]
    """
    rng = np.random.default_rng([seed, _STREAM])
    for start in range(0, n_boot, block_size):  # blocks of replicates, not items
        b = min(block_size, n_boot - start)
        draws = (
            rng.integers(0, n_items, size=(b, n_items))
            if n_items
            else np.zeros((b, 0), dtype=np.int64)
        )
        flat = draws + (np.arange(b) * n_items)[:, None]
        yield np.bincount(flat.ravel(), minlength=b * n_items).reshape(b, n_items).astype(np.int32)


def jackknife_blocks(
    n_items: int, *, n_groups: int = JACKKNIFE_GROUPS, block_size: int = 64
) -> Iterator[np.ndarray]:
    """Item multiplicities of a grouped delete-a-group jackknife, in blocks.

    Items are dealt into ``g = min(n_items, n_groups)`` groups by code (item ``i`` in
    group ``i % g``); replicate ``j`` leaves group ``j`` out (multiplicity 0) and keeps
    every other item once. With ``n_items <= n_groups`` it is the delete-one jackknife.

    Parameters
    ----------
    n_items : int
        Number of items.
    n_groups : int, default 200
        Largest number of groups.
    block_size : int, default 64
        Replicates per block.

    Yields
    ------
    numpy.ndarray of int32, shape (b, n_items)

    Examples
    --------
    >>> np.concatenate(list(jackknife_blocks(3))).tolist()
    [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
    >>> next(jackknife_blocks(4, n_groups=2)).tolist()
    [[0, 1, 0, 1], [1, 0, 1, 0]]
    """
    g = min(n_items, n_groups)
    group = np.arange(n_items) % max(g, 1)
    for start in range(0, g, block_size):  # blocks of replicates, not items
        j = np.arange(start, min(g, start + block_size))
        yield (group[None, :] != j[:, None]).astype(np.int32)


def _quantiles(sorted_values, n_valid, prob):
    """Per-column quantile (linear interpolation, as numpy's default) of columns sorted
    ascending with their ``n_valid`` finite values first, at per-column ``prob``."""
    pos = np.clip(prob, 0.0, 1.0) * np.maximum(n_valid - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n_valid - 1, 0))
    frac = pos - lo
    v_lo = np.take_along_axis(sorted_values, lo[None], axis=0)[0]
    v_hi = np.take_along_axis(sorted_values, hi[None], axis=0)[0]
    return np.where(n_valid > 0, v_lo + frac * (v_hi - v_lo), np.nan)


def bca_interval(
    estimate,
    replicates,
    jackknife,
    *,
    level: float = 0.95,
    n_items: int | None = None,
    scale=None,
):
    """Bias-corrected and accelerated bootstrap interval of many statistics at once.

    Parameters
    ----------
    estimate : array-like, shape S
        The statistics on the data.
    replicates : array-like, shape (B, *S)
        Their bootstrap replicates (NaN replicates are ignored).
    jackknife : array-like, shape (G, *S)
        Their values on the jackknife replicates of :func:`jackknife_blocks` (they give
        the acceleration; NaN ones are ignored).
    level : float, default 0.95
        Coverage of the interval.
    n_items : int, optional
        Number of resampled units (items). When given, the interval is widened by
        ``sqrt(n / (n - 1))`` about the BCa median, the bootstrap's small-sample
        correction.
    scale : array-like, shape S, optional
        A further factor on the half-widths about the BCa median, per statistic (for
        example :func:`pair_level_shrink`).

    Returns
    -------
    (low, high)
        Arrays of shape S (floats for a scalar statistic). NaN where the estimate is
        NaN or no replicate is finite.

    Notes
    -----
    With ``z0 = Phi^-1(share of replicates below the estimate, ties counted half)`` and
    the acceleration ``a = sum d^3 / (6 (sum d^2)^1.5)``, ``d`` the deviations of the
    jackknife values from their mean, the bounds are the replicates' quantiles at
    ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1((1 -+ level) / 2)``.
    With ``z0 = a = 0`` and no widening it is the percentile interval.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> reps = rng.normal(1.0, 0.1, 4000)
    >>> low, high = bca_interval(1.0, reps, rng.normal(1.0, 0.01, 50))
    >>> round(low, 1), round(high, 1)
    (0.8, 1.2)
    """
    from scipy.special import ndtr, ndtri

    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, (int, float, np.number))
        or not 0.0 < float(level) < 1.0
    ):
        raise ParameterError(f"level must be a number in (0, 1), got {level!r}")
    est = np.asarray(estimate, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64).reshape((-1,) + est.shape)
    jack = np.asarray(jackknife, dtype=np.float64).reshape((-1,) + est.shape)
    finite = np.isfinite(reps)
    n_valid = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = np.sum(finite & (reps < est), axis=0) + 0.5 * np.sum(finite & (reps == est), axis=0)
        share = np.clip(
            below / np.maximum(n_valid, 1),
            0.5 / np.maximum(n_valid, 1),
            1.0 - 0.5 / np.maximum(n_valid, 1),
        )
        z0 = ndtri(share)
        jfin = np.isfinite(jack)
        jmean = np.nansum(np.where(jfin, jack, 0.0), axis=0) / np.maximum(jfin.sum(axis=0), 1)
        d = np.where(jfin, jmean - jack, 0.0)
        s2 = np.sum(d * d, axis=0)
        accel = np.where(s2 > 0, np.sum(d**3, axis=0) / (6.0 * s2**1.5), 0.0)
        z = ndtri(np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]))
        shifted = z0 + z.reshape((2,) + (1,) * est.ndim)
        prob = ndtr(z0 + shifted / (1.0 - accel * shifted))
    ordered = np.sort(np.where(finite, reps, np.inf), axis=0)  # NaN (as inf) last
    ordered = np.where(np.isfinite(ordered), ordered, np.nan)
    low = _quantiles(ordered, n_valid, prob[0])
    high = _quantiles(ordered, n_valid, prob[1])
    widen = np.ones(est.shape) if scale is None else np.broadcast_to(scale, est.shape)
    if n_items is not None and n_items > 1:
        widen = widen * np.sqrt(n_items / (n_items - 1.0))
    if n_items is not None and n_items > 1 or scale is not None:
        centre = _quantiles(ordered, n_valid, ndtr(z0))
        low, high = centre - widen * (centre - low), centre + widen * (high - centre)
    bad = ~np.isfinite(est) | (n_valid == 0)
    low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    if est.ndim == 0:
        return float(low), float(high)
    return low, high


def jackknife_variance(jackknife, *, n_items: int):
    """Variance of statistics on the bootstrap's scale, from their jackknife values.

    The jackknife estimate ``(g - 1) / g * sum (t_j - mean t)^2`` over the ``g`` finite
    values of :func:`jackknife_blocks`, times ``(n - 1) / n``: for a linear statistic
    it is then the variance of the bootstrap distribution (the sum of the squared item
    influences).

    Parameters
    ----------
    jackknife : array-like, shape (G, *S)
        Values on the jackknife replicates (NaN ones are ignored).
    n_items : int
        Number of items.

    Returns
    -------
    numpy.ndarray, shape S
        NaN where fewer than two jackknife values are finite.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> jack = np.array([np.delete(x, i).mean() for i in range(4)])
    >>> round(float(jackknife_variance(jack, n_items=4)), 6), float(x.var() / 4)
    (1.3125, 1.3125)
    """
    jack = np.asarray(jackknife, dtype=np.float64)
    finite = np.isfinite(jack)
    g = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, jack, 0.0).sum(axis=0) / g
        ss = np.where(finite, (jack - mean) ** 2, 0.0).sum(axis=0)
        out = (g - 1.0) / g * ss * (n_items - 1.0) / max(n_items, 1)
    return np.where(g >= 2, out, np.nan)


def pair_level_shrink(linear_variance, pair_variance):
    """Factor on the bootstrap's spread of a mean over *pairs* of items.

    A chance mean averages rows that pair two items (Hoeffding: an item effect per item
    plus a pair-level residual). Its variance counts every pair-level residual once;
    the item bootstrap, which weighs a pair by ``k_i k_j``, counts it three times: once
    in the product ``(k_i - 1)(k_j - 1)`` and twice in the items' influences, which
    carry the residuals of all their pairs. With ``V`` the bootstrap's linear variance
    (the squared item influences, :func:`jackknife_variance`) and ``P`` the pair-level
    part (squared pair residuals), the bootstrap's variance is about ``V + P`` and the
    variance is about ``V - P`` (the dyadic-robust estimator of Fafchamps & Gubert,
    *J. Dev. Econ.* 2007; Aronow, Samii & Assenova, *Political Analysis* 2015), so its
    spread is scaled by ``sqrt((V - P) / (V + P))``.

    The ratio is kept in ``[1/3, 1]``: with no item effects ``V = 2P`` on average and
    the bootstrap's variance is three times the true one, the most it can overstate.

    Parameters
    ----------
    linear_variance, pair_variance : array-like
        ``V`` and ``P`` (same shape, or broadcastable).

    Returns
    -------
    numpy.ndarray
        The factor in ``[sqrt(1/3), 1]``; 1 where ``V + P`` is 0 or NaN.

    Examples
    --------
    >>> pair_level_shrink([1.0, 1.0, 1.0], [0.0, 0.25, 0.5]).round(3).tolist()
    [1.0, 0.775, 0.577]
    """
    v = np.asarray(linear_variance, dtype=np.float64)
    p = np.asarray(pair_variance, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = (v - p) / (v + p)
    return np.sqrt(np.where(np.isfinite(ratio), np.clip(ratio, 1.0 / 3.0, 1.0), 1.0))


def jackknife_df(jackknife):
    """Satterthwaite degrees of freedom of the jackknife variance, per statistic.

    With the pseudo-values ``p_j = (g - 1) (mean t - t_j)`` of the ``g`` finite jackknife
    values and ``s_j = p_j^2``, ``nu = 2 g mean(s)^2 / var(s)``: ``g`` for normal
    influences, fewer when a few items carry most of the variance (heavy tails), more
    when the influences are even.

    Parameters
    ----------
    jackknife : array-like, shape (G, *S)
        Values on the jackknife replicates (NaN ones are ignored).

    Returns
    -------
    numpy.ndarray, shape S
        ``inf`` where the squared pseudo-values do not vary, NaN below three finite
        values.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=400)
    >>> jack = (x.sum() - x) / 399
    >>> 300 < float(jackknife_df(jack)) < 500
    True
    """
    jack = np.asarray(jackknife, dtype=np.float64)
    finite = np.isfinite(jack)
    g = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, jack, 0.0).sum(axis=0) / g
        sq = np.where(finite, ((g - 1.0) * (mean - jack)) ** 2, 0.0)
        sq_mean = sq.sum(axis=0) / g
        sq_var = np.where(finite, (sq - sq_mean) ** 2, 0.0).sum(axis=0) / (g - 1.0)
        df = np.where(sq_var > 0, 2.0 * g * sq_mean**2 / sq_var, np.inf)
    return np.where(g >= 3, df, np.nan)


def interval_scale(jackknife, pair_variance, *, n_items: int, level: float = 0.95):
    """Factor on the half-widths of the bootstrap interval of each statistic.

    ``sqrt(C / (V + P)) * t_nu(q) / z(q)`` at ``q = (1 + level) / 2``:

    * ``sqrt(C / (V + P))``, ``C = V - P``: the pair-level correction of
      :func:`pair_level_shrink` (1 without chance rows, ``P = 0``);
    * ``t_nu / z``: the variance that sets the width is estimated from the items, so
      the interval takes Student's quantile instead of the normal one, with the
      Satterthwaite degrees of freedom of that estimate: ``nu`` of
      :func:`jackknife_df` times ``(C / V)^2`` (subtracting ``P`` keeps the noise of
      ``V`` on a smaller variance).

    Parameters
    ----------
    jackknife : array-like, shape (G, *S)
        The statistics on the jackknife replicates of :func:`jackknife_blocks`.
    pair_variance : array-like, shape S
        ``P``, the pair-level part of the bootstrap variance (0 for statistics without
        chance rows).
    n_items : int
        Number of items.
    level : float, default 0.95
        Coverage of the interval.

    Returns
    -------
    numpy.ndarray, shape S
        1 where the jackknife gives no variance.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=20)
    >>> jack = (x.sum() - x) / 19
    >>> factor = float(interval_scale(jack, 0.0, n_items=20))
    >>> 1.0 < factor < 1.1        # Student's t with about 20 degrees of freedom
    True
    """
    from scipy.special import ndtri, stdtrit

    v = jackknife_variance(jackknife, n_items=n_items)
    p = np.broadcast_to(np.asarray(pair_variance, dtype=np.float64), v.shape)
    shrink = pair_level_shrink(v, p)
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.where(v > 0, np.clip(1.0 - p / v, 0.5, 1.0), 1.0)
    nu = jackknife_df(jackknife) * kept**2
    q = (1.0 + level) / 2.0
    student = np.where(np.isfinite(nu) & (nu > 0), stdtrit(np.maximum(nu, 1.0), q), ndtri(q))
    return np.where(np.isfinite(v) & (v > 0), shrink * student / ndtri(q), 1.0)


@dataclass(frozen=True, eq=False)
class ItemSums:
    """Per-item contributions to a set of columns (cells x quantities).

    ``matrix[i, c]`` is the sum of column ``c``'s row values over the rows of item ``i``;
    a replicate's column totals are ``k @ matrix`` for multiplicities ``k``.
    """

    matrix: sp.csr_matrix

    @classmethod
    def from_entries(cls, item, column, value, *, n_items: int, n_columns: int) -> ItemSums:
        """Sum ``value`` into ``(item, column)``; duplicates add up.

        Parameters
        ----------
        item, column : array-like of int
            Item code and column of every entry.
        value : array-like of float
            Value of every entry.
        n_items, n_columns : int
            Shape of the matrix.
        """
        m = sp.coo_matrix(
            (
                np.asarray(value, dtype=np.float64),
                (np.asarray(item, dtype=np.int64), np.asarray(column, dtype=np.int64)),
            ),
            shape=(n_items, n_columns),
        ).tocsr()
        m.sum_duplicates()
        return cls(m)

    def total(self, multiplicities: np.ndarray | None = None) -> np.ndarray:
        """Column totals: ``(n_columns,)``, or ``(b, n_columns)`` for a (b, n_items) block of
        multiplicities."""
        if multiplicities is None:
            return np.asarray(self.matrix.sum(axis=0)).ravel()
        k = np.asarray(multiplicities, dtype=np.float64)
        return np.asarray(self.matrix.T @ k.T).T


@dataclass(frozen=True, eq=False)
class PairSums:
    """Per-row contributions of rows that pair two items (chance rows).

    Row ``r`` weighs ``k[item_a[r]] * k[item_b[r]]`` in a replicate with multiplicities
    ``k``. The weight is the same for every row of one unordered pair of items, so rows
    are summed per pair when built: a replicate costs one weight per pair of items, not
    per row. After construction ``item_a``, ``item_b`` and ``matrix`` hold one row per
    distinct pair of items (``item_a <= item_b``).
    """

    item_a: np.ndarray
    item_b: np.ndarray
    matrix: sp.csr_matrix
    _by_column: sp.csr_matrix = field(init=False, repr=False)

    def __post_init__(self):
        a = np.asarray(self.item_a, dtype=np.int64)
        b = np.asarray(self.item_b, dtype=np.int64)
        n = int(max(a.max(initial=0), b.max(initial=0))) + 1
        pair, row_pair = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_inverse=True)
        group = sp.csr_matrix(
            (np.ones(len(a)), (row_pair.ravel(), np.arange(len(a)))), shape=(len(pair), len(a))
        )
        matrix = sp.csr_matrix(group @ self.matrix)
        object.__setattr__(self, "item_a", pair // n)
        object.__setattr__(self, "item_b", pair % n)
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "_by_column", matrix.T.tocsr())

    @classmethod
    def from_entries(cls, item_a, item_b, row, column, value, *, n_columns: int) -> PairSums:
        """Sum ``value`` into ``(row, column)``; rows pair ``item_a[row]`` and
        ``item_b[row]``.

        Parameters
        ----------
        item_a, item_b : array-like of int, shape (n_rows,)
            The two items of every row.
        row, column : array-like of int
            Row and column of every entry.
        value : array-like of float
            Value of every entry.
        n_columns : int
            Number of columns.
        """
        item_a = np.asarray(item_a, dtype=np.int64)
        m = sp.coo_matrix(
            (
                np.asarray(value, dtype=np.float64),
                (np.asarray(row, dtype=np.int64), np.asarray(column, dtype=np.int64)),
            ),
            shape=(len(item_a), n_columns),
        ).tocsr()
        m.sum_duplicates()
        return cls(item_a, np.asarray(item_b, dtype=np.int64), m)

    def total(self, multiplicities: np.ndarray | None = None) -> np.ndarray:
        """Column totals: ``(n_columns,)``, or ``(b, n_columns)`` for a (b, n_items) block of
        multiplicities (row weights ``k_a * k_b``, built in sub-blocks to bound memory)."""
        if multiplicities is None:
            return np.asarray(self.matrix.sum(axis=0)).ravel()
        k = np.asarray(multiplicities, dtype=np.float64)
        step = block_size(len(k), len(self.item_a))
        mt = self._by_column
        parts = []
        for start in range(0, len(k), step):  # blocks of replicates, not rows
            kb = k[start : start + step]
            weights = kb[:, self.item_a] * kb[:, self.item_b]
            parts.append(np.asarray(mt @ weights.T).T)
        return np.concatenate(parts, axis=0) if parts else np.zeros((0, self.matrix.shape[1]))
