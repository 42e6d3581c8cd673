"""Cluster-bootstrap intervals of the cells of a measure built from per-item sums.

A measure beside the main result (attribute α, the per-keypoint breakdown) keeps its
cells as sums per item (:class:`~iaa_frames.stats.bootstrap.ItemSums`, and
:class:`~iaa_frames.stats.bootstrap.PairSums` for chance rows), so that its statistics on a
block of bootstrap replicates are one sparse product. :func:`cell_intervals` draws the
replicates (items, or groups of items with a ``group`` column, resampled with
:func:`~iaa_frames.stats.bootstrap.multiplicity_blocks`), and takes the interval of the
engine: BCa with the corrected width of :func:`iaa_frames.stats.intervals.interval_scale`
(the acceleration from :func:`~iaa_frames.stats.bootstrap.jackknife_blocks`), or the
percentile interval; a cell resting on fewer than
:data:`~iaa_frames.stats.intervals.MIN_CI_ITEMS` items gets none.

Examples
--------
>>> import numpy as np
>>> from iaa_frames.stats.bootstrap import ItemSums
>>> rng = np.random.default_rng(0)
>>> sums = ItemSums.from_entries(item=np.arange(40), column=np.zeros(40, int),
...                              value=rng.normal(0.5, 0.1, 40), n_items=40, n_columns=1)
>>> def mean(k=None):
...     return {"mean": sums.total(k) / (40 if k is None else k.sum(axis=1, keepdims=True))}
>>> est = mean()["mean"]
>>> ci = cell_intervals(mean, {"mean": est}, n_items=40, cell_items={"mean": np.array([40])},
...                     n_boot=200, seed=0)
>>> low, high = ci["mean"]
>>> bool(low[0] < est[0] < high[0])
True
"""

from __future__ import annotations

import numpy as np

from iaa_frames.stats.bootstrap import block_size, jackknife_blocks, multiplicity_blocks
from iaa_frames.stats.intervals import MIN_CI_ITEMS, bca_interval, interval_scale
from iaa_frames.stats.samples import percentile_ci

__all__ = ["CI_LEVEL", "cell_intervals", "interval_attrs", "replicates"]

#: Coverage of the bootstrap intervals.
CI_LEVEL = 0.95


def interval_attrs(*, n_boot: int, seed: int, ci_method: str) -> dict:
    """The Dataset attrs that say how the intervals were made.

    Examples
    --------
    >>> interval_attrs(n_boot=200, seed=0, ci_method="bca")["min_ci_items"]
    4
    """
    return {
        "n_boot": int(n_boot),
        "bootstrap_seed": int(seed),
        "ci_level": CI_LEVEL,
        "ci_method": ci_method,
        "min_ci_items": MIN_CI_ITEMS,
    }


def replicates(statistics, blocks, n_replicates: int) -> dict:
    """The statistics on every replicate of ``blocks`` (blocks of item multiplicities):
    ``name -> (n_replicates, *S)``."""
    out: dict = {}
    start = 0
    for k in blocks:  # blocks of replicates, each one sparse product per statistic
        for key, value in statistics(k).items():
            if key not in out:
                out[key] = np.empty((n_replicates,) + value.shape[1:])
            out[key][start : start + len(k)] = value
        start += len(k)
    return out


def cell_intervals(
    statistics,
    estimates: dict,
    *,
    n_items: int,
    cell_items: dict,
    n_boot: int,
    seed: int,
    ci_method: str = "bca",
    clusters=None,
    n_clusters: int | None = None,
    pair_variance: dict | None = None,
    width: int | None = None,
) -> dict:
    """Bootstrap intervals of the statistics of many cells at once.

    Parameters
    ----------
    statistics : callable
        ``statistics(k)``: for a ``(b, n_items)`` block of item multiplicities, a dict
        ``name -> (b, *S)`` of the statistics on those replicates (at least the names of
        ``estimates``).
    estimates : dict
        ``name -> S``: the statistics on the data.
    n_items : int
        Number of items.
    cell_items : dict
        ``name -> S``: the items each cell rests on (below
        :data:`~iaa_frames.stats.intervals.MIN_CI_ITEMS` no interval).
    n_boot : int
        Replicates (0: every bound NaN).
    seed : int
        Seed of the bootstrap stream.
    ci_method : {"bca", "percentile"}, default "bca"
    clusters : array-like of int, optional
        The group of every item (:meth:`iaa_frames.core.matching.corpus.Corpus.group_codes`):
        replicates draw whole groups.
    n_clusters : int, optional
        Number of groups (the resampled units; default ``n_items``).
    pair_variance : dict, optional
        ``name -> S``: the pair-level part of the bootstrap variance of a statistic with
        chance rows (:meth:`iaa_frames.core.engine.sigma.SigmaCells.pair_variance`; 0 for the
        others).
    width : int, optional
        Columns of the widest sums matrix, to size the blocks of replicates.

    Returns
    -------
    dict
        ``name -> (low, high)``, arrays of shape S; the upper bound at most 1; NaN where
        ``n_boot`` is 0, the estimate is NaN or the cell rests on too few items.
    """
    n_units = n_items if n_clusters is None else n_clusters
    nan = {k: np.full(np.shape(v), np.nan) for k, v in estimates.items()}
    if not n_boot:
        return {k: (v, v.copy()) for k, v in nan.items()}
    step = block_size(n_boot, max(n_items, width or 0))
    blocks = multiplicity_blocks(n_items, n_boot, seed=seed, block_size=step, clusters=clusters)
    reps = replicates(statistics, blocks, n_boot)
    if ci_method == "bca":
        jack_blocks = list(jackknife_blocks(n_items, clusters=clusters))
        jack = replicates(statistics, jack_blocks, sum(len(b) for b in jack_blocks))
    out = {}
    for key, est in estimates.items():
        est = np.asarray(est, dtype=np.float64)
        counts = np.asarray(cell_items[key], dtype=np.float64)
        items = np.minimum(counts, n_units)  # a cell rests on at most every group
        if ci_method == "bca":
            pair = 0.0 if pair_variance is None else pair_variance.get(key, 0.0)
            scale = interval_scale(
                jack[key], pair, n_items=n_units, level=CI_LEVEL, cell_items=items
            )
            low, high = bca_interval(est, reps[key], jack[key], level=CI_LEVEL, scale=scale)
        else:
            low, high = percentile_ci(reps[key], level=CI_LEVEL)
        reported = np.isfinite(est) & (counts >= MIN_CI_ITEMS)
        high = np.minimum(high, 1.0)
        out[key] = (np.where(reported, low, np.nan), np.where(reported, high, np.nan))
    return out
