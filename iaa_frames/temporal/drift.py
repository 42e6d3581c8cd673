"""Who drifted, and when: one-sided bootstrap bounds of a fall, and a change point over
windows.

Both read the replicates of :mod:`.windows`, in which every window (and the baseline)
of a replicate shares one draw of the corpus's chance side, so that a difference of two
windows is resampled as a difference.

* :func:`fall_margin`: how far a fall (a drop of agreement) must go to be beyond what
  resampling explains: its estimate minus the lower bound of its one-sided percentile
  interval at ``(1 + level) / 2`` (for 95 % intervals, a fall is flagged when its
  2.5 % quantile is above 0: about 2.5 % false alarms on a stationary corpus).
* :func:`change_points`: per cell, the split of the windows into an earlier and a
  later run whose inverse-variance weighted means differ most, in units of the
  bootstrap standard error of that difference (a binary segmentation with one change);
  a change is reported when the largest standardized fall exceeds the normal quantile
  at ``alpha / (W - 1)`` (Bonferroni over the ``W - 1`` splits, ``alpha`` one-sided:
  at most about 2.5 % false alarms per cell for 95 % intervals).

Examples
--------
>>> rng = np.random.default_rng(0)
>>> values = np.r_[np.full(5, 0.8), np.full(3, 0.5)][:, None]     # (windows, cells)
>>> reps = values[None] + rng.normal(0, 0.03, (200, 8, 1))
>>> at, z = change_points(values, reps)
>>> int(at[0]), bool(z[0] > 5)
(5, True)
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import norm

__all__ = ["change_points", "fall_margin"]


def _one_sided(level: float) -> float:
    return (1.0 - float(level)) / 2.0


def fall_margin(fall, replicates, *, level: float = 0.95):
    """The margin a fall must exceed: ``fall`` minus the ``(1 - level) / 2`` quantile of
    its replicates (NaN replicates ignored; NaN where none is finite).

    Examples
    --------
    >>> reps = np.linspace(-0.1, 0.5, 101)[:, None]
    >>> fall_margin(np.array([0.2]), reps).round(3).tolist()
    [0.285]
    """
    reps = np.asarray(replicates, dtype=np.float64)
    finite = np.isfinite(reps).any(axis=0)
    filled = np.where(finite, reps, 0.0)
    low = np.nanquantile(filled, _one_sided(level), axis=0)
    return np.where(finite, np.asarray(fall) - low, np.nan)


def change_points(values, replicates, *, level: float = 0.95):
    """The window from which each cell's series stays lower, if any.

    Parameters
    ----------
    values : array-like, shape ``(W, *S)``
        The estimate of every window (NaN: none; such a window weighs nothing).
    replicates : array-like, shape ``(B, W, *S)``
        Their bootstrap replicates (drawn together: one row is one replicate of every
        window).
    level : float, default 0.95
        The one-sided test is at ``(1 - level) / 2``, Bonferroni-corrected over the
        ``W - 1`` splits.

    Returns
    -------
    at : numpy.ndarray of int, shape S
        The index of the first window of the later run (-1: no change).
    z : numpy.ndarray, shape S
        The largest standardized fall over the splits (NaN with fewer than two
        windows with an estimate).
    """
    x = np.asarray(values, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    n_windows = x.shape[0]
    shape = x.shape[1:]
    at = np.full(shape, -1, dtype=np.int64)
    best = np.full(shape, np.nan)
    if n_windows < 2 or not reps.shape[0]:
        return at, best
    # cells without a finite replicate in a window (too few units) have no spread there:
    # numpy's warnings about the empty slices say nothing more
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        var = np.nanvar(np.where(np.isfinite(reps), reps, np.nan), axis=0)
        weight = np.where(np.isfinite(x) & (var > 0), 1.0 / var, 0.0)
        # a window without a spread (every replicate equal) weighs as the least certain
        # window with one, never infinitely
        flat = np.isfinite(x) & (var == 0)
        least = np.min(np.where(weight > 0, weight, np.inf), axis=0)
        weight = np.where(flat, np.where(np.isfinite(least), least, 1.0), weight)
        y = np.where(weight > 0, x, 0.0)
        r = np.where(weight > 0, reps, 0.0)  # a NaN replicate of a weighed window stays NaN
        for t in range(1, n_windows):  # the splits: a few windows
            z = _split(y, r, weight, t)
            better = np.isfinite(z) & ~(z <= best)
            best = np.where(better, z, best)
            at = np.where(better, t, at)
    critical = norm.ppf(1.0 - _one_sided(level) / (n_windows - 1))
    at = np.where(best > critical, at, -1)
    return at, best


def _split(y, r, weight, t):
    """Standardized fall of the weighted mean of windows ``t..`` below that of ``..t``."""
    wb, wa = weight[:t], weight[t:]
    sb, sa = wb.sum(axis=0), wa.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        fall = (wb * y[:t]).sum(axis=0) / sb - (wa * y[t:]).sum(axis=0) / sa
        fall_reps = (wb * r[:, :t]).sum(axis=1) / sb - (wa * r[:, t:]).sum(axis=1) / sa
        se = np.nanstd(fall_reps, axis=0)
        return np.where((sb > 0) & (sa > 0) & (se > 0), fall / se, np.nan)
