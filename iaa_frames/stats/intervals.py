# Over 400 lines: the interval of a cell in the order it is built (BCa, its width, the
# widening where matches are rare events), each step with the measurements that set it.
"""Bootstrap intervals of many statistics at once: BCa, and the width it should have.

The replicates come from :mod:`iaa_frames.stats.bootstrap` (a cluster bootstrap over items).
The percentile interval of the replicates is too narrow and lopsided for these
statistics: sigma is a ratio of means, biased low in small corpora, and its bootstrap
distribution is skewed. :func:`bca_interval` gives the bias-corrected and accelerated
interval (BCa; Efron, JASA 1987; Efron & Tibshirani, *An Introduction to the Bootstrap*,
ch. 14): the percentiles are moved by the bias correction ``z0`` (the share of
replicates below the estimate) and the acceleration ``a`` (the skewness of the
jackknife values, from a grouped delete-a-group jackknife over items,
:func:`iaa_frames.stats.bootstrap.jackknife_blocks`). Its half-widths are then scaled about the
BCa median by :func:`interval_scale`, which corrects the two ways the spread of the
replicates is not the uncertainty of the estimate:

* **Chance means are means over pairs of items.** Weighing a chance row by ``k_i k_j``
  counts its pair-level noise about three times over (in variance), so the bootstrap
  overstates the uncertainty of the chance part, most where few chance units stand for
  many pairs of items (localization at tau = 0.5). :func:`pair_level_shrink` removes the
  excess with the dyadic-robust variance.
* **The variance is itself estimated from the items.** Where a few items carry most of
  it (classification: confusions concentrate in hard items) its estimate is noisy and a
  normal-theory width is too narrow; the width takes Student's quantile with the
  Satterthwaite degrees of freedom of the jackknife variance (:func:`jackknife_df`).
* **A cell may rest on a few items of the corpus.** A rare class's cell changes only
  with the ``k`` items that hold it: the estimate of its variance has at most ``k - 1``
  degrees of freedom, whatever the corpus size, and the small-sample (plug-in) bias of
  its bootstrap variance is that of ``k`` items, not of the corpus (``cell_items`` of
  :func:`interval_scale`). Below :data:`MIN_CI_ITEMS` items no interval is reported at
  all: from one or two items the bootstrap interval has (near) zero width, and from
  three it still covers too little.
* **Matches may be rare events.** Detection's and overall's within distances are 1
  (``1 - F1`` of no match) except in the units where two annotators' objects match.
  Where fewer than :data:`MIN_EVENT_ITEMS` items hold such a match, the bootstrap sees
  the within part vary in those few items only (in none: every replicate has the same
  within mean, and the interval, from the chance side alone, lies wholly below 0 for a
  class nobody matched by luck). :func:`widen_rare_events` then widens the interval to
  the exact binomial interval of the number of items with a match
  (:func:`rare_event_bounds`). Classification's events are the other way round, the
  within pairs whose labels disagree: with none in any item every replicate reads 1, and
  :func:`widen_rare_disagreements` widens the interval likewise. Overall credits objects
  that overlap without matching too: its events are the items where detection has a
  match, the credit of the others kept as it is (:func:`matched_set_events`). Where the
  bootstrap draws clusters (the frames of a video), the events are counted in clusters:
  matches come in runs of frames, and one video is one draw (:func:`rare_event_bounds`).
* **Agreement is bounded by 1.** Widened on the agreement itself, detection of a class
  in 4-6 of 40 items covered 92.3 % (seed 1; 93.8 % seed 0), 6.8 % of misses below and
  0.8 % above; so :func:`bca_interval` widens on the cube root of ``1 - t`` (its Notes):
  93.4 % (5.6 % below, 1.0 % above; seed 0: 94.7 %).

``benchmarks/bench_coverage.py`` measures the coverage of the percentile and of the
shipped interval.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(1.0, 1.0, 30)
>>> reps = np.array([rng.choice(x, 30).mean() for _ in range(2000)])
>>> jack = (x.sum() - x) / 29
>>> low, high = bca_interval(x.mean(), reps, jack, scale=interval_scale(jack, 0.0, n_items=30))
>>> bool(low < x.mean() < high)
True
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.errors import ParameterError

__all__ = [
    "CI_METHODS",
    "MIN_CI_ITEMS",
    "MIN_EVENT_ITEMS",
    "bca_interval",
    "cubes_by_runs",
    "event_items",
    "matched_set_events",
    "rare_event_bounds",
    "widen_rare_events",
    "disagreement_events",
    "widen_rare_disagreements",
    "interval_scale",
    "jackknife_df",
    "jackknife_variance",
    "pair_level_shrink",
]

#: Interval methods: bias-corrected and accelerated (default), or plain percentile.
CI_METHODS = ("bca", "percentile")
#: Fewest items a cell's within units must come from for its interval to be reported
#: (``n_items`` of the result; Dataset attr ``min_ci_items``). From fewer, the cluster
#: bootstrap has almost nothing to resample: a class in one item gets an interval of zero
#: width, and at 1-3 items the interval covers far less than its level
#: (``benchmarks/bench_coverage.py --rare``; https://iaa-frames.readthedocs.io/en/latest/validation/coverage.html).
MIN_CI_ITEMS = 4
#: Fewest items (clusters, where the bootstrap draws clusters) holding a within-item event
#: (a unit below the largest distance, 1: a match) for which the bootstrap alone gives a
#: set-level cell's interval; below it the interval reaches the exact binomial interval
#: of the event items (:func:`rare_event_bounds`). Measured on exact-null corpora
#: (https://iaa-frames.readthedocs.io/en/latest/validation/coverage.html): detection cells
#: with no such item covered 0 in 29 % of corpora, with 1-3 items 96 %; overall's 28 %
#: and 75-89 %.
MIN_EVENT_ITEMS = 4


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
    bound: float | None = 1.0,
):
    """Bias-corrected and accelerated bootstrap interval of many statistics at once.

    Parameters
    ----------
    estimate : array-like, shape S
        The statistics on the data.
    replicates : array-like, shape ``(B, *S)``
        Their bootstrap replicates (NaN replicates are ignored).
    jackknife : array-like, shape ``(G, *S)``
        Their values on the jackknife replicates of
        :func:`iaa_frames.stats.bootstrap.jackknife_blocks` (they give the acceleration; NaN
        ones are ignored).
    level : float, default 0.95
        Coverage of the interval.
    n_items : int, optional
        Number of resampled units (items). When given, the interval is widened by
        ``sqrt(n / (n - 1))`` about the BCa median, the bootstrap's small-sample
        correction.
    scale : array-like, shape S, optional
        A further factor on the half-widths about the BCa median, per statistic (for
        example :func:`pair_level_shrink`).
    bound : float or None, default 1.0
        The statistics' largest value (agreement: 1). The widening by ``n_items`` and
        ``scale`` acts on the cube root of the distance to it, ``-(bound - t)^(1/3)``,
        not on ``t`` itself (Notes); None: on ``t`` (the same factor on both sides).

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

    **The interval holds its estimate.** ``z0`` is kept within ``+-z`` (``|z0| <= 1.96``
    at 95 %). Beyond, more than ``(1 - level) / 2`` of the replicates lie on one side of
    the estimate and BCa moves *both* bounds to the other side: with every replicate of a
    classification alpha below its estimate 0.000 (a bootstrap biased low by duplicated
    units), the interval was [-0.0064, -0.0062]. At ``|z0| = z`` one bound is the
    estimate's own rank, so the bounds straddle it for any acceleration (``|a| < 1/6``
    for jackknife values; where ``1 - a (z0 + z) <= 0`` the bound goes to the extreme
    replicate); the widening moves each bound away from the centre, never across it.
    When the estimate lies outside the replicates (all on one side, or all equal to
    another value) no quantile of theirs reaches it, and the bound on its side is the
    estimate itself: an interval never excludes its estimate.

    The widening ``w`` (``n_items``, ``scale``) moves each bound away from the BCa median
    ``m`` on ``u(t) = -(bound - t)^(1/3)``: ``u(low) = u(m) - w (u(m) - u(low))``, alike
    ``high``. Agreement is ``1 - D``, ``D`` a ratio of mean disagreements whose spread
    grows with it (bootstrap sd about ``D^0.66`` over detection's rare-class cells), so a
    corpus that happened to agree well gets a short interval. ``D^(1/3)`` is about its
    variance-stabilizing power and the normalizing power of a Poisson- or gamma-like
    quantity (Wilson & Hilferty, *PNAS* 1931): there the Student correction of
    :func:`interval_scale` holds, and the side towards disagreement gets the longer share.

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
    if bound is not None and (
        isinstance(bound, bool) or not isinstance(bound, (int, float)) or not np.isfinite(bound)
    ):
        raise ParameterError(f"bound must be a finite number or None, got {bound!r}")
    est = np.asarray(estimate, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64).reshape((-1,) + est.shape)
    jack = np.asarray(jackknife, dtype=np.float64).reshape((-1,) + est.shape)
    keep = np.isfinite(est)
    if est.ndim and 2 <= np.count_nonzero(keep) < keep.size:
        # a statistic's interval is its own replicates' (every step works per statistic):
        # those of NaN estimates are NaN, and are not computed. The kept replicates are
        # stored by replicate (C order) with at least two statistics: numpy then sums
        # each statistic's replicates one after the other, as with all of them (stored by
        # statistic, it would sum them pairwise)
        low, high = np.full(est.shape, np.nan), np.full(est.shape, np.nan)
        low[keep], high[keep] = bca_interval(
            est[keep],
            np.ascontiguousarray(reps[:, keep]),
            np.ascontiguousarray(jack[:, keep]),
            level=level,
            n_items=n_items,
            scale=None if scale is None else np.broadcast_to(scale, est.shape)[keep],
            bound=bound,
        )
        return low, high
    finite = np.isfinite(reps)
    n_valid = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = np.sum(finite & (reps < est), axis=0) + 0.5 * np.sum(finite & (reps == est), axis=0)
        share = np.clip(
            below / np.maximum(n_valid, 1),
            0.5 / np.maximum(n_valid, 1),
            1.0 - 0.5 / np.maximum(n_valid, 1),
        )
        z = ndtri(np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]))
        # beyond the interval's own quantile the bias correction puts both bounds on one
        # side of the estimate (Notes): at most |z|, where one bound meets the estimate
        z0 = np.clip(ndtri(share), z[0], z[1])
        jfin = np.isfinite(jack)
        jmean = np.nansum(np.where(jfin, jack, 0.0), axis=0) / np.maximum(jfin.sum(axis=0), 1)
        d = np.where(jfin, jmean - jack, 0.0)
        s2 = np.sum(d * d, axis=0)
        accel = np.where(s2 > 0, np.sum(cubes_by_runs(d), axis=0) / (6.0 * s2**1.5), 0.0)
        shifted = z0 + z.reshape((2,) + (1,) * est.ndim)
        # past 1 / a the BCa map turns back: the bound goes to the end it was heading for
        denom = 1.0 - accel * shifted
        prob = ndtr(z0 + np.where(denom > 0, shifted / denom, np.sign(shifted) * np.inf))
    ordered = np.sort(np.where(finite, reps, np.inf), axis=0)  # NaN (as inf) last
    ordered = np.where(np.isfinite(ordered), ordered, np.nan)
    low = _quantiles(ordered, n_valid, prob[0])
    high = _quantiles(ordered, n_valid, prob[1])
    widen = np.ones(est.shape) if scale is None else np.broadcast_to(scale, est.shape)
    if n_items is not None and n_items > 1:
        widen = widen * np.sqrt(n_items / (n_items - 1.0))
    if n_items is not None and n_items > 1 or scale is not None:
        centre = _quantiles(ordered, n_valid, ndtr(z0))
        if bound is None:
            low, high = centre - widen * (centre - low), centre + widen * (high - centre)
        else:
            u_centre, u_low, u_high = (-np.cbrt(bound - v) for v in (centre, low, high))
            low = bound + (u_centre - widen * (u_centre - u_low)) ** 3
            high = bound + (u_centre + widen * (u_high - u_centre)) ** 3
    # an estimate outside the replicates (all on one side of it: a bootstrap that cannot
    # reproduce it) is no quantile of theirs: the interval reaches it (Notes)
    both = np.isfinite(low) & np.isfinite(high)
    low, high = np.where(both, np.fmin(low, est), low), np.where(both, np.fmax(high, est), high)
    bad = ~np.isfinite(est) | (n_valid == 0)
    low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    if est.ndim == 0:
        return float(low), float(high)
    return low, high


def cubes_by_runs(d):
    """``d**3`` of a (replicates, statistics) array, the power taken once per run of
    equal values down a column (the jackknife groups without an item of a small cell
    leave it unchanged: LVIS, 3 values in 10 start a run). The same values: each is
    ``d**3`` of its own value.

    Examples
    --------
    >>> d = np.array([[0.5, -1.0], [0.5, 2.0], [0.1, 2.0]])
    >>> bool((cubes_by_runs(d) == d**3).all())
    True
    """
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 2 or len(d) < 2:
        return d**3
    start = np.ones(d.shape, dtype=bool)
    np.not_equal(d[1:], d[:-1], out=start[1:])  # NaN: a run of its own
    if np.count_nonzero(start) > 0.8 * d.size:
        return d**3
    cubes = np.zeros(d.shape)
    cubes[start] = d[start] ** 3
    for g in range(1, len(d)):  # a loop over the jackknife groups (at most 200)
        np.copyto(cubes[g], cubes[g - 1], where=~start[g])  # the run's cube, carried down
    return cubes


def _jackknife_deviations(jackknife):
    """(finite mask, number of finite values, deviations from their mean; 0 where not
    finite) of jackknife values, per statistic."""
    jack = np.asarray(jackknife, dtype=np.float64)
    finite = np.isfinite(jack)
    g = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, jack, 0.0).sum(axis=0) / g
        return finite, g, np.where(finite, jack - mean, 0.0)


def jackknife_variance(jackknife, *, n_items: int):
    """Variance of statistics on the bootstrap's scale, from their jackknife values.

    The jackknife estimate ``(g - 1) / g * sum (t_j - mean t)^2`` over the ``g`` finite
    values of :func:`iaa_frames.stats.bootstrap.jackknife_blocks`, times ``(n - 1) / n``: for
    a linear statistic it is then the variance of the bootstrap distribution (the sum of
    the squared item influences).

    Parameters
    ----------
    jackknife : array-like, shape ``(G, *S)``
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
    return _variance_of(_jackknife_deviations(jackknife), n_items)


def _variance_of(deviations, n_items: int):
    """:func:`jackknife_variance` from the :func:`_jackknife_deviations`."""
    _, g, dev = deviations
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (g - 1.0) / g * np.sum(dev**2, axis=0) * (n_items - 1.0) / max(n_items, 1)
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
    jackknife : array-like, shape ``(G, *S)``
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
    return _df_of(_jackknife_deviations(jackknife))


def _df_of(deviations):
    """:func:`jackknife_df` from the :func:`_jackknife_deviations`."""
    finite, g, dev = deviations
    with np.errstate(invalid="ignore", divide="ignore"):
        sq = ((g - 1.0) * dev) ** 2  # squared pseudo-values (0 where not finite)
        sq_mean = sq.sum(axis=0) / g
        sq_var = np.where(finite, (sq - sq_mean) ** 2, 0.0).sum(axis=0) / (g - 1.0)
        df = np.where(sq_var > 0, 2.0 * g * sq_mean**2 / sq_var, np.inf)
    return np.where(g >= 3, df, np.nan)


def interval_scale(jackknife, pair_variance, *, n_items: int, level: float = 0.95, cell_items=None):
    """Factor on the half-widths of the bootstrap interval of each statistic.

    ``sqrt(C / (V + P)) * t_nu(q) / z(q) * sqrt(k (n - 1) / ((k - 1) n))`` at
    ``q = (1 + level) / 2``, for a statistic that rests on ``k`` of the ``n`` items:

    * ``sqrt(C / (V + P))``, ``C = V - P``: the pair-level correction of
      :func:`pair_level_shrink` (1 without chance rows, ``P = 0``);
    * ``t_nu / z``: the variance that sets the width is estimated from the items, so
      the interval takes Student's quantile instead of the normal one, with the
      Satterthwaite degrees of freedom of that estimate: ``nu`` of
      :func:`jackknife_df` times ``(C / V)^2`` (subtracting ``P`` keeps the noise of
      ``V`` on a smaller variance), and at most ``k - 1``;
    * ``sqrt(k (n - 1) / ((k - 1) n))``: the plug-in factor ``sqrt(k / (k - 1))`` of
      the statistic's own items, relative to the corpus's: 1 for a statistic on every
      item (the interval of a whole-corpus cell is calibrated without it: with the flat
      ``sqrt(n / (n - 1))`` detection on 20 items covers 97.9 %), 1.14 for 4 of 40 items.
      Without it detection covers 91.5 % on rare classes in 4-6 items
      (``benchmarks/bench_coverage.py --rare``).

    Parameters
    ----------
    jackknife : array-like, shape ``(G, *S)``
        The statistics on the jackknife replicates of
        :func:`iaa_frames.stats.bootstrap.jackknife_blocks`.
    pair_variance : array-like, shape S
        ``P``, the pair-level part of the bootstrap variance (0 for statistics without
        chance rows).
    n_items : int
        Number of items.
    level : float, default 0.95
        Coverage of the interval.
    cell_items : array-like, shape S, optional
        ``k``, the number of items each statistic rests on (the result's ``n_items``);
        by default ``n_items`` for every statistic. Counts below 2 leave the factor
        undefined there (NaN): such a statistic has no interval.

    Returns
    -------
    numpy.ndarray, shape S
        1 where the jackknife gives no variance; NaN where ``k < 2``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=20)
    >>> jack = (x.sum() - x) / 19
    >>> factor = float(interval_scale(jack, 0.0, n_items=20))
    >>> 1.0 < factor < 1.15       # Student's t with about 19 degrees of freedom
    True
    >>> # the same statistic resting on 4 of the items: t with 3 degrees of freedom
    >>> factor4 = float(interval_scale(jack, 0.0, n_items=20, cell_items=4))
    >>> round(factor4, 2)
    1.83
    """
    from scipy.special import ndtri, stdtrit

    # the deviations once, for the variance and its degrees of freedom
    deviations = _jackknife_deviations(jackknife)
    v = _variance_of(deviations, n_items)
    p = np.broadcast_to(np.asarray(pair_variance, dtype=np.float64), v.shape)
    k = np.broadcast_to(
        np.asarray(n_items if cell_items is None else cell_items, dtype=np.float64), v.shape
    )
    shrink = pair_level_shrink(v, p)
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.where(v > 0, np.clip(1.0 - p / v, 0.5, 1.0), 1.0)
        plug_in = np.sqrt(k / (k - 1.0) * (n_items - 1.0) / n_items) if n_items > 1 else 1.0
    nu = np.fmin(_df_of(deviations) * kept**2, k - 1.0)
    q = (1.0 + level) / 2.0
    student = np.where(np.isfinite(nu) & (nu > 0), stdtrit(np.maximum(nu, 1.0), q), ndtri(q))
    factor = np.where(np.isfinite(v) & (v > 0), shrink * student / ndtri(q) * plug_in, 1.0)
    return np.where(k >= 2, factor, np.nan)


def event_items(within, between, *, n_cells: int, top: float = 1.0, clusters=None):
    """Per cell, the within-item events of a sigma component whose distances are at most
    ``top``: a unit below ``top`` (detection's ``1 - F1`` below 1: a match) is an event,
    its *credit* ``top - distance``.

    Parameters
    ----------
    within : iaa_frames.stats.bootstrap.ItemSums
        Per item, the within units' [count | distance sum] of every cell (its first
        ``2 n_cells`` columns; further columns are ignored).
    between : iaa_frames.stats.bootstrap.PairSums
        Per pair of items, the chance units' [count | distance sum] of every cell.
    n_cells : int
    top : float, default 1.0
        The largest distance.
    clusters : array-like of int, shape (n_items,), optional
        The cluster of every item, when the bootstrap draws clusters (groups: the frames
        of a video, :meth:`iaa_frames.core.matching.corpus.Corpus.group_codes`).

    Returns
    -------
    dict of numpy.ndarray, shape (n_cells,)
        ``items``: items with an event (x); ``credit``: the within credit (C);
        ``units``: within units (N); ``chance_credit``: the mean credit of a pair of items
        with a chance event (NaN where chance has none): what an event would bring where
        no item has one. With ``clusters``, also ``clusters``: the clusters holding an
        event, and ``cell_clusters``: those the cell's within units come from
        (:func:`rare_event_bounds` then counts in clusters).

    Examples
    --------
    >>> from iaa_frames.stats.bootstrap import ItemSums, PairSums
    >>> within = ItemSums.from_entries(item=[0, 0, 1, 1, 2, 2], column=[0, 1] * 3,
    ...                                value=[2, 2.0, 2, 1.5, 1, 1.0], n_items=3, n_columns=2)
    >>> between = PairSums.from_entries([0, 1], [1, 2], [0, 0, 1, 1], [0, 1, 0, 1],
    ...                                 [4, 3.6, 2, 2.0], n_columns=2)
    >>> {k: v.round(6).tolist() for k, v in event_items(within, between, n_cells=1).items()}
    {'items': [1.0], 'credit': [0.5], 'units': [5.0], 'chance_credit': [0.4]}
    """
    tiny = 1e-9 * max(top, 1.0)
    w = within.matrix.tocsc()
    count, dist = w[:, :n_cells], w[:, n_cells : 2 * n_cells]
    b = between.matrix.tocsc()
    # from the stored entries only (an entry not stored is 0, never an event): no dense
    # (items x cells) or (pairs x cells) array, whose size grows with items x annotators
    gain = top * count - dist
    items, credit = _column_events(gain, tiny, n_cells)
    chance_events, chance_sum = _column_events(
        top * b[:, :n_cells] - b[:, n_cells : 2 * n_cells], tiny, n_cells
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        chance_credit = np.where(chance_events > 0, chance_sum / chance_events, np.nan)
    out = {
        "items": items.astype(np.float64),
        "credit": credit,
        "units": np.asarray(count.sum(axis=0), dtype=np.float64).ravel(),
        "chance_credit": chance_credit,
    }
    return out | _cluster_counts(gain, count, clusters, tiny)


def _column_events(m, tiny: float, n_cells: int):
    """Per column of the sparse ``m``: the entries above ``tiny`` and their sum (added in
    row order, as a dense column sum adds them)."""
    m = m.tocsc()
    m.sum_duplicates()
    m.sort_indices()
    column = np.repeat(np.arange(n_cells), np.diff(m.indptr))
    event = m.data > tiny
    column = column[event]
    return (
        np.bincount(column, minlength=n_cells),
        np.bincount(column, weights=m.data[event], minlength=n_cells).astype(np.float64),
    )


def _clusters_per_column(m, clusters, *, above=None) -> np.ndarray:
    """Per column of the sparse (items x columns) ``m``, the distinct clusters of the
    items whose entry is above ``above`` (None: not 0).

    Examples
    --------
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 0.5], [0.0, 3.0]]))
    >>> _clusters_per_column(m, [0, 0, 1]).tolist()
    [1.0, 2.0]
    >>> _clusters_per_column(m, [0, 0, 1], above=1).tolist()
    [1.0, 1.0]
    """
    m = sp.csc_matrix(m)
    m.sum_duplicates()
    column = np.repeat(np.arange(m.shape[1], dtype=np.int64), np.diff(m.indptr))
    keep = m.data != 0 if above is None else m.data > above
    group = np.asarray(clusters, dtype=np.int64)[m.indices[keep]]
    n_groups = max(int(group.max(initial=-1)) + 1, 1)
    pairs = np.unique(column[keep] * n_groups + group)
    return np.bincount(pairs // n_groups, minlength=m.shape[1]).astype(np.float64)


def _cluster_counts(events, units, clusters, tiny: float) -> dict:
    """``clusters`` (the clusters with an entry of ``events`` above ``tiny``) and
    ``cell_clusters`` (with a unit in ``units``), per column; empty without clusters."""
    if clusters is None:
        return {}
    return {
        "clusters": _clusters_per_column(events, clusters, above=tiny),
        "cell_clusters": _clusters_per_column(units, clusters),
    }


def matched_set_events(part, matches, *, n_cells: int, top: float = 1.0, cells=None, clusters=None):
    """Per cell, the events of a set component that gives credit without a match too
    (overall: the set distance credits objects that overlap without matching): an item
    (a pair of items, for chance) holds an event where ``matches`` (detection) has a match
    in the cell, and the credit of ``part`` in the other items is their ``rest``.

    Counted as :func:`event_items` counts them, overall's events were every item with any
    overlap: on 40 items drawn by image-blind annotators a cell had 28 such items and 1
    with a match, so the widening never fired while the matches, rare and carrying most
    of the credit, were what the bootstrap could not see (12 % of the blind annotators'
    overall cells lay wholly outside 0, against none of detection's).

    Parameters
    ----------
    part, matches
        The cells of the component and of the one whose events it takes: ``within``
        (:class:`~iaa_frames.stats.bootstrap.ItemSums`, one row per item) and ``between``
        (:class:`~iaa_frames.stats.bootstrap.PairSums`), [count | distance sum] of every
        cell in their first ``2 n_cells`` columns.
    n_cells : int
    top : float, default 1.0
        The largest distance.
    cells : array-like of int, optional
        Only these cells (the others' values are NaN): the columns of the sums are
        converted for them alone (at 1M boxes the whole matrices take 0.2 s).
    clusters : array-like of int, shape (n_items,), optional
        The cluster of every item, as :func:`event_items` takes it.

    Returns
    -------
    dict of numpy.ndarray, shape (n_cells,)
        As :func:`event_items` (``items``, ``credit`` of the event items, ``units``,
        ``chance_credit``; with ``clusters``, ``clusters`` and ``cell_clusters``), and
        ``rest``: the credit of the items without an event.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from iaa_frames.stats.bootstrap import ItemSums, PairSums
    >>> def cells(within, between):
    ...     w = ItemSums.from_entries(item=[0, 0, 1, 1], column=[0, 1] * 2, value=within,
    ...                               n_items=2, n_columns=2)
    ...     b = PairSums.from_entries([0], [1], [0, 0], [0, 1], between, n_columns=2)
    ...     return SimpleNamespace(within=w, between=b)
    >>> overall = cells([2, 1.2, 2, 1.9], [4, 2.0])  # both items overlap; item 0 matches
    >>> detection = cells([2, 1.5, 2, 2.0], [4, 3.0])
    >>> ev = matched_set_events(overall, detection, n_cells=1)
    >>> {k: np.round(v, 6).tolist() for k, v in ev.items()}
    {'items': [1.0], 'credit': [0.8], 'units': [4.0], 'chance_credit': [2.0], 'rest': [0.1]}
    """
    tiny = 1e-9 * max(top, 1.0)
    cols = np.arange(n_cells) if cells is None else np.asarray(cells, dtype=np.int64)

    def credit(m):
        m = m.tocsc()
        return sp.csr_matrix(top * m[:, cols] - m[:, n_cells + cols])

    def where_event(m):
        m = credit(m)
        m.data = (m.data > tiny).astype(np.float64)
        m.eliminate_zeros()
        return m

    w = part.within.matrix
    own, event = credit(w), where_event(matches.within.matrix)
    items = np.asarray(event.sum(axis=0), dtype=np.float64).ravel()
    credit_in = np.asarray(own.multiply(event).sum(axis=0), dtype=np.float64).ravel()
    total = np.asarray(own.sum(axis=0), dtype=np.float64).ravel()
    # chance: the pairs of items of ``part`` where ``matches`` has a match (rows by pair)
    b, mb = part.between, matches.between
    n = int(max(b.item_b.max(initial=0), mb.item_b.max(initial=0))) + 1
    key, mkey = b.item_a * n + b.item_b, mb.item_a * n + mb.item_b
    at = np.minimum(np.searchsorted(mkey, key), max(len(mkey) - 1, 0))
    found = (mkey[at] == key) if len(mkey) else np.zeros(len(key), bool)
    chance_event = sp.diags(found.astype(np.float64)) @ where_event(mb.matrix)[at]
    chance_credit_sum = np.asarray(
        credit(b.matrix).multiply(chance_event).sum(axis=0), dtype=np.float64
    ).ravel()
    chance_events = np.asarray(chance_event.sum(axis=0), dtype=np.float64).ravel()
    with np.errstate(invalid="ignore", divide="ignore"):
        chance_credit = np.where(chance_events > 0, chance_credit_sum / chance_events, np.nan)
    unit_counts = w.tocsc()[:, cols]
    units = np.asarray(unit_counts.sum(axis=0), dtype=np.float64).ravel()
    got = {
        "items": items,
        "credit": credit_in,
        "units": units,
        "chance_credit": chance_credit,
        "rest": np.maximum(total - credit_in, 0.0),
    } | _cluster_counts(event, unit_counts, clusters, 0.0)
    out = {k: np.full(n_cells, np.nan) for k in got}
    for k, v in got.items():
        out[k][cols] = v
    return out


def _event_count(events: dict):
    """The events a cell's rule counts: its clusters holding one where the events are
    counted in clusters (:func:`event_items` with ``clusters``), else its items."""
    return np.asarray(events.get("clusters", events["items"]), dtype=np.float64)


def _event_credit(events: dict, k, level: float):
    """The range of the credit the event items of each cell hold: ``c k [p_L, p_U]``,
    ``[p_L, p_U]`` the Clopper-Pearson interval of the share of its ``k`` items holding an
    event (``events["items"]`` of them) and ``c`` an event item's credit, its own mean,
    at least what a chance event brings (a single event of little credit says little
    about the next ones; that alone where no item has one).

    Counted in clusters (``events["clusters"]`` of the cell's ``events["cell_clusters"]``
    ``g``), it is ``c g [p_L, p_U]`` with the share of clusters, and ``c`` an event
    cluster's credit: its own mean, at least ``k / g`` times what a chance event brings,
    every item of a cluster an event (:func:`rare_event_bounds`)."""
    from scipy.special import betaincinv

    x = _event_count(events)
    floor = events["chance_credit"]
    if "clusters" in events:  # a cluster of the cell's k / g items, all of them events
        g = np.asarray(events["cell_clusters"], dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            floor = floor * (np.asarray(k, dtype=np.float64) / g)
        k = g
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        p_low = np.where(x > 0, betaincinv(x, k - x + 1.0, tail), 0.0)
        p_high = np.where(x < k, betaincinv(x + 1.0, k - x, 1.0 - tail), 1.0)
        per_item = np.fmax(np.where(x > 0, events["credit"] / x, np.nan), floor)
        return per_item * k * p_low, per_item * k * p_high


def rare_event_bounds(events: dict, expected, cell_items, *, level: float = 0.95, top=1.0):
    """Agreement bounds of the exact binomial interval of the items with an event.

    With ``x`` of the cell's ``k`` items holding an event, the Clopper-Pearson interval
    ``[p_L, p_U]`` of their share gives the within credit ``c k [p_L, p_U]`` (at most
    ``N`` units' worth), ``c`` the credit of an event item: the larger of ``C / x`` and
    the mean credit of a pair of items with a chance event (that alone where ``x = 0``).
    With ``O = top - credit / N`` and the chance mean ``E``, agreement ``1 - O / E`` runs
    over ``[1 - O_high / E, 1 - O_low / E]``.

    Where no item has an event, the upper bound is above 0 exactly when chance expects
    fewer than about ``-log((1 - level) / 2) = 3.7`` event items (the rule of three at
    97.5 %): seeing none is then no evidence of disagreement. Events of
    :func:`matched_set_events` also carry a ``rest``, the credit of the items without an
    event, added to both ends as it is.

    **Counted in clusters.** Where the bootstrap draws clusters (``group``: the frames of
    a video), the events come in runs inside a cluster (a lucky overlap of two tracks
    lasts for frames) and the cell's items are not independent draws: no match in 350
    frames of 8 videos says what 8 draws say, not 350 (counted in frames, 5 of 18 blind
    video cells without a match lay wholly below 0). The events given with ``clusters``
    and ``cell_clusters`` (:func:`event_items` with ``clusters``) are counted so: ``x``
    of the cell's ``g`` clusters hold an event, ``[p_L, p_U]`` is the interval of their
    share and ``c`` an event cluster's credit, the larger of ``C / x`` and ``k / g``
    times a chance event's credit: a cluster of the cell's mean size whose every item
    holds an event. The credit runs over ``c g [p_L, p_U]``; with no event, up to
    ``k p_U c_e`` (``p_U = 0.37`` for 8 clusters), ``c_e`` the chance event's credit.

    That is the least favourable case, and the only one the data bound: for a mean
    credit per cluster ``m``, no event in ``g`` clusters is likeliest when events fill
    whole clusters (then fewest clusters, ``m / (c_e k / g)``, hold one), so the bound
    inverts the binomial test at that case and reaches agreement 0 exactly when ``p_U``
    reaches the share of units chance makes events. The mean credit of *any* cluster by
    chance (its items times the chance share of events times ``c_e``) would not do as an
    event cluster's credit: it is already averaged over the clusters without one, and
    ``g p_U < g`` clusters' worth of it stays below chance's own, so the interval of a
    cell without an event would never reach 0. The floor holds where some clusters have
    an event too: one short lucky run says little about the next ones, and the bound
    grows with ``x`` (none is no narrower than one). Only cells with fewer than
    :data:`MIN_EVENT_ITEMS` event clusters widen: annotators who agree (matches in every
    video) keep the bootstrap's interval. Without groups every item is a cluster of one
    (``g = k``): the rule in items, and the same values.

    Parameters
    ----------
    events : dict
        :func:`event_items` (or :func:`matched_set_events`) of the cells.
    expected : array-like, shape (n_cells,)
        ``E``, the chance mean distance of every cell.
    cell_items : array-like, shape (n_cells,)
        ``k``, the items every cell's within units come from (the result's ``n_items``).
    level : float, default 0.95
    top : float, default 1.0
        The largest distance.

    Returns
    -------
    (low, high)
        Arrays of shape (n_cells,); NaN where ``k`` or ``E`` is not positive, or no
        event credit is known.

    Examples
    --------
    >>> ev = {"items": np.array([0.0]), "credit": np.array([0.0]),
    ...       "units": np.array([40.0]), "chance_credit": np.array([0.8])}
    >>> low, high = rare_event_bounds(ev, [0.99], [40])
    >>> round(float(low[0]), 4), round(float(high[0]), 3)   # 1 - 1 / 0.99; above 0
    (-0.0101, 0.061)
    >>> grouped = ev | {"clusters": np.array([0.0]), "cell_clusters": np.array([8.0])}
    >>> low, high = rare_event_bounds(grouped, [0.99], [40])  # 40 items in 8 clusters
    >>> round(float(low[0]), 4), round(float(high[0]), 3)
    (-0.0101, 0.288)
    """
    k = np.asarray(cell_items, dtype=np.float64)
    n = np.asarray(events["units"], dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    event_low, event_high = _event_credit(events, k, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.asarray(events.get("rest", 0.0), dtype=np.float64)
        credit_low = rest + event_low
        credit_high = np.minimum(rest + event_high, top * n)
        low = 1.0 - (top - credit_low / n) / e
        high = 1.0 - (top - credit_high / n) / e
    ok = (k > 0) & (n > 0) & (e > 0) & np.isfinite(low) & np.isfinite(high)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def widen_rare_events(
    low, high, parts, cells, components, widen, *, level: float = 0.95, clusters=None
):
    """Intervals of the cells whose within part rests on fewer than
    :data:`MIN_EVENT_ITEMS` items with an event (clusters, where the bootstrap draws
    clusters), widened to :func:`rare_event_bounds`.

    The cluster bootstrap sees a within mean vary only with the items it varies in: with
    no match in any item every replicate has the same within mean, and the interval,
    from the chance mean's spread alone, lies wholly below 0 however few matches chance
    would expect (on exact-null corpora, every such class). Such a cell's interval is the
    smallest one holding both the bootstrap's and the exact binomial interval's.

    Parameters
    ----------
    low, high : numpy.ndarray, shape (n_components, n_cells)
        The bootstrap intervals.
    parts : mapping
        Per component, its cells: ``within`` (:class:`~iaa_frames.stats.bootstrap.ItemSums`)
        and ``between`` (:class:`~iaa_frames.stats.bootstrap.PairSums`) sums, as
        :func:`event_items` reads them.
    cells : mapping
        ``"expected"`` (every cell's chance mean) and ``"n_items"`` (the items its
        within units come from), arrays of shape (n_components, n_cells); optional
        ``"unit_credit"``, per component its corpus's mean distance of a within unit in
        the items that hold a disagreement
        (:func:`iaa_frames.core.engine.credit.unit_credits`).
    components : sequence of str
        The names of the rows of ``low`` and ``high``.
    widen : sequence of str
        The components widened: those whose distances are at most 1, 1 where nothing
        matches (detection, overall; overall's events are the items where detection has a
        match when ``parts`` holds detection, :func:`matched_set_events`), and
        ``"classification"``, whose events are label disagreements: its cells widen
        themselves (their ``widen_rare``, :func:`widen_rare_disagreements`; cells without
        one are left as they are). Every other component named (detection, overall,
        localization) also widens where fewer than :data:`MIN_EVENT_ITEMS` items hold a
        disagreement, a within distance above 0 (:func:`widen_rare_disagreements`, an
        item credited with ``cells["unit_credit"]`` per unit).
    level : float, default 0.95
    clusters : array-like of int, shape (n_items,), optional
        The cluster of every item, those the bootstrap draws
        (:meth:`iaa_frames.core.matching.corpus.Corpus.group_codes`): the events are then
        counted in clusters (:func:`rare_event_bounds`). None: every item its own.

    Returns
    -------
    (low, high)
        New arrays; cells of other components, and those with enough event items, as
        they were.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from iaa_frames.stats.bootstrap import ItemSums, PairSums
    >>> within = ItemSums.from_entries(item=[0, 1, 2, 3] * 2, column=[0] * 4 + [1] * 4,
    ...                                value=[1.0] * 8, n_items=4, n_columns=2)
    >>> between = PairSums.from_entries([0, 1], [2, 3], [0, 0, 1, 1], [0, 1, 0, 1],
    ...                                 [10, 9.5, 10, 10.0], n_columns=2)
    >>> parts = {"detection": SimpleNamespace(within=within, between=between)}
    >>> cells = {"expected": np.array([[0.975]]), "n_items": np.array([[4.0]])}
    >>> low, high = widen_rare_events(np.array([[-0.03]]), np.array([[-0.02]]), parts,
    ...                               cells, ["detection"], ["detection"])
    >>> float(low[0, 0]), bool(high[0, 0] > 0)
    (-0.03, True)
    >>> # the 4 items in 2 clusters: 2 draws without an event, wider still
    >>> low2, high2 = widen_rare_events(np.array([[-0.03]]), np.array([[-0.02]]), parts,
    ...                                 cells, ["detection"], ["detection"], clusters=[0, 0, 1, 1])
    >>> bool(high2[0, 0] > high[0, 0])
    True
    """
    low, high = np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)
    n_cells, seen = low.shape[-1], {}
    for name in widen:
        c = list(components).index(name)
        if name == "classification":  # label disagreements: the cells' own rule, if any
            own = getattr(parts[name], "widen_rare", None)
            if own is not None:
                extra = {} if clusters is None else {"clusters": clusters}
                low[c], high[c] = own(low[c], high[c], cells["n_items"][c], level=level, **extra)
            continue
        if name in MATCH_EVENTS:
            low[c], high[c] = _widen_rare_matches(
                low[c], high[c], name, parts, cells, c, seen, level=level, clusters=clusters
            )
        # few items with any disagreement (annotators who agree exactly): as
        # classification's rule, an event item credited with ``cells["unit_credit"]``
        # (the corpus's mean distance of a unit in its items that disagree, per
        # component) per unit, not as a chance pair; without it, as chance per item
        part = parts[name]
        ev = disagreement_events(part.within, None, n_cells=n_cells, clusters=clusters)
        units = np.asarray(part.within.matrix[:, :n_cells].sum(axis=0), dtype=float).ravel()
        credit = (cells.get("unit_credit") or {}).get(name, np.nan)
        low[c], high[c] = widen_rare_disagreements(
            low[c],
            high[c],
            ev,
            units,
            cells["expected"][c],
            cells["n_items"][c],
            level=level,
            unit_credit=np.float64(credit),
        )
    return low, high


#: The components whose events are matches (:func:`widen_rare_events`).
MATCH_EVENTS = ("detection", "overall")


def _widen_rare_matches(low, high, name, parts, cells, c, seen, *, level, clusters):
    """:func:`widen_rare_events`'s rule of rare matches, for one component's cells."""
    n_cells = low.shape[-1]
    finite = np.isfinite(low) & np.isfinite(high)
    if name == "overall" and "detection" in parts:  # its events: detection's matches
        matches = seen.get("detection")
        if matches is None:
            matches = event_items(
                parts["detection"].within,
                parts["detection"].between,
                n_cells=n_cells,
                clusters=clusters,
            )
        cols = np.flatnonzero((_event_count(matches) < MIN_EVENT_ITEMS) & finite)
        if not cols.size:
            return low, high
        ev = matched_set_events(
            parts[name], parts["detection"], n_cells=n_cells, cells=cols, clusters=clusters
        )
    else:
        ev = event_items(
            parts[name].within, parts[name].between, n_cells=n_cells, clusters=clusters
        )
    seen[name] = ev
    few = (_event_count(ev) < MIN_EVENT_ITEMS) & finite
    if not few.any():
        return low, high
    b_low, b_high = rare_event_bounds(ev, cells["expected"][c], cells["n_items"][c], level=level)
    return np.where(few, np.fmin(low, b_low), low), np.where(few, np.fmax(high, b_high), high)


def disagreement_events(within, between, *, n_cells: int, clusters=None):
    """Per cell, the within-item events of a disagreement component (classification): a
    unit of distance above 0 is an event, its *credit* its distance.

    Parameters
    ----------
    within : iaa_frames.stats.bootstrap.ItemSums
        Per item, the within units' [count | distance sum] of every cell (its first
        ``2 n_cells`` columns).
    between : iaa_frames.stats.bootstrap.PairSums or None
        Per pair of items, the chance units' [count | distance sum] of every cell (None:
        no ``chance_credit``, NaN).
    n_cells : int
    clusters : array-like of int, shape (n_items,), optional
        The cluster of every item, as :func:`event_items` takes it.

    Returns
    -------
    dict of numpy.ndarray, shape (n_cells,)
        ``items``: items with a disagreement (x); ``credit``: the within disagreement (D);
        ``chance_credit``: the mean disagreement of a pair of items with a chance
        disagreement (NaN where chance has none). With ``clusters``, also ``clusters``
        (those holding a disagreement) and ``cell_clusters`` (those of the cell's units).

    Examples
    --------
    >>> from iaa_frames.stats.bootstrap import ItemSums, PairSums
    >>> within = ItemSums.from_entries(item=[0, 0, 1, 1], column=[0, 1] * 2,
    ...                                value=[2, 0.0, 3, 1.0], n_items=2, n_columns=2)
    >>> between = PairSums.from_entries([0], [1], [0, 0], [0, 1], [5, 2.0], n_columns=2)
    >>> {k: v.tolist() for k, v in disagreement_events(within, between, n_cells=1).items()}
    {'items': [1.0], 'credit': [1.0], 'chance_credit': [2.0]}
    """
    tiny = 1e-9
    w = within.matrix.tocsc()
    items, credit = _column_events(w[:, n_cells : 2 * n_cells], tiny, n_cells)
    if between is None:  # a credit of the caller's own (the distance components')
        chance_credit = np.full(n_cells, np.nan)
    else:
        b = between.matrix.tocsc()
        chance_events, chance_sum = _column_events(b[:, n_cells : 2 * n_cells], tiny, n_cells)
        with np.errstate(invalid="ignore", divide="ignore"):
            chance_credit = np.where(chance_events > 0, chance_sum / chance_events, np.nan)
    out = {"items": items.astype(np.float64), "credit": credit, "chance_credit": chance_credit}
    return out | _cluster_counts(w[:, n_cells : 2 * n_cells], w[:, :n_cells], clusters, tiny)


def widen_rare_disagreements(
    low, high, events: dict, units, expected, cell_items, *, level: float = 0.95, unit_credit=None
):
    """Intervals of the cells of a disagreement component whose within disagreements
    rest on fewer than :data:`MIN_EVENT_ITEMS` items, widened to the exact binomial
    interval of those items (of clusters, for events counted in clusters: a cluster
    whose every item disagrees, as :func:`rare_event_bounds` counts matches).

    Agreement is ``1 - D / (N E)``, with ``D`` the within disagreement over ``N`` units and
    ``E`` the chance disagreement of a unit. The cluster bootstrap sees ``D`` vary only
    with the items that hold a disagreement: with none, every replicate reads 1 and the
    cell says 1.00 [1.00, 1.00], though chance leaves a cell that expects ``N E = 3.4``
    disagreements with none in 3 % of corpora (two annotators who never looked at the
    image, on classes with places of their own). With ``x`` of the cell's ``k`` items
    holding a disagreement, the Clopper-Pearson interval ``[p_L, p_U]`` of their share
    gives ``D`` in ``c k [p_L, p_U]`` (at most ``N``), ``c`` the disagreement of an event
    item: the larger of ``D / x`` and the mean disagreement of a pair of items with a
    chance disagreement (that alone where ``x = 0``); a cell on a borrowed chance rate (a
    class on the pooled rate, with no chance disagreement of its own) takes ``N E / k``,
    what an item that disagrees as chance does brings, so that with no item disagreeing
    its low end is ``1 - p_U`` (0.40 on 4 items, 0.48 on 5; such cells of the real LVIS
    double annotations read 1.00 [1.00, 1.00] before). The cell's interval is the
    smallest one holding both the bootstrap's and ``[1 - D_high / (N E), 1 - D_low / (N
    E)]``. Where no item holds a disagreement the low end is below 0 exactly when ``N E``
    is below about ``-log((1 - level) / 2) = 3.7`` (the rule of three at 97.5 %) times the
    event item's disagreement.

    Parameters
    ----------
    low, high : numpy.ndarray, shape (n_cells,)
        The bootstrap intervals (NaN: none, left as it is).
    events : dict
        :func:`disagreement_events` of the cells (with ``clusters``: counted in clusters).
    units : array-like, shape (n_cells,)
        ``N``, the within units each cell's disagreement is taken over.
    expected : array-like, shape (n_cells,)
        ``E``, each cell's chance disagreement of a unit.
    cell_items : array-like, shape (n_cells,)
        ``k``, the items each cell's within units come from.
    level : float, default 0.95

    Returns
    -------
    (low, high)
        New arrays; cells with enough event items as they were.

    Examples
    --------
    >>> ev = {"items": np.array([0.0]), "credit": np.array([0.0]),
    ...       "chance_credit": np.array([1.0])}
    >>> low, high = widen_rare_disagreements(np.array([1.0]), np.array([1.0]), ev,
    ...                                      [40.0], [0.08], [20])
    >>> bool(low[0] < 0), float(high[0])  # 3.2 disagreements expected, none seen
    (True, 1.0)
    """
    low, high = np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)
    x = _event_count(events)
    k = np.asarray(cell_items, dtype=np.float64)
    n = np.asarray(units, dtype=np.float64)
    scale = n * np.asarray(expected, dtype=np.float64)  # the disagreements chance expects
    # a cell whose chance rate is borrowed (a class with too few chance pairs of its own,
    # on the pooled rate) has no chance disagreement of its own to credit an event item
    # with: an item that disagrees as chance does brings N E / k
    with np.errstate(invalid="ignore", divide="ignore"):
        borrowed = np.where(k > 0, scale / k, np.nan)
        floor = events["chance_credit"]
        if unit_credit is not None:  # a distance's disagreement (sigma): the corpus's own
            floor = np.where(np.isfinite(unit_credit), unit_credit * n / k, np.nan)
    events = events | {"chance_credit": np.where(np.isfinite(floor), floor, borrowed)}
    event_low, event_high = _event_credit(events, k, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        b_high = 1.0 - event_low / scale
        b_low = 1.0 - np.minimum(event_high, n) / scale
    few = (x < MIN_EVENT_ITEMS) & np.isfinite(low) & np.isfinite(high)
    few &= (k > 0) & (scale > 0) & np.isfinite(b_low) & np.isfinite(b_high)
    low = np.where(few, np.fmin(low, b_low), low)
    high = np.where(few, np.fmax(high, b_high), high)
    return low, high
