# Over 400 lines: the sample statistics (sigma, KS, fraction below chance, percentile CI) and their
# cell-wise version.
"""Statistics on within-item and between-item (chance) distance samples.

All functions take two 1-D samples of distances, ``within`` (pairs on the same item) and
``between`` (chance pairs on different items), where 0 means identical, and optional
per-row weights of shape ``(n,)`` (a pooled chance baseline weighs its rows). Integer
weights give exactly the statistic of the sample with each row repeated that many times.
:func:`cell_tests` computes the KS test and the fraction below chance of many cells at
once, as the engine needs them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.stats

from iaa_frames.errors import ParameterError

from .segments import cell_groups, first_argmax, merged_positions, search_cells, sorted_by_cell

__all__ = [
    "KSResult",
    "cell_tests",
    "count_below_sorted",
    "frac_below_chance",
    "ks",
    "percentile_ci",
    "sigma",
]


class KSResult(NamedTuple):
    """Two-sample Kolmogorov-Smirnov test of within- against between-item distances.

    Attributes
    ----------
    statistic : float
        The two-sided statistic ``max |F_within - F_between|``.
    sign : float
        +1 when the within ECDF lies above the between ECDF at the point of maximal
        difference (within-item distances are smaller: agreement), -1 when below, 0 when
        the statistic is 0.
    pvalue : float
        Two-sided p-value of :func:`scipy.stats.ks_2samp`.
    """

    statistic: float
    sign: float
    pvalue: float


# ----------------------------------------------------------------------------- public


def sigma(within, between, *, within_weights=None, between_weights=None):
    """Chance-corrected agreement ``1 - mean(within) / mean(between)``.

    Parameters
    ----------
    within, between : array-like of float, shape (n_within,) and (n_between,)
        Within-item and between-item (chance) distances.
    within_weights, between_weights : None or array-like, shape (n,)
        Per-row weights (non-negative, finite); the means become weighted means.

    Returns
    -------
    float
        Sigma, never clipped: negative when within-item distances exceed chance
        (systematic disagreement). NaN when a side is empty (or has zero total weight) or
        the between mean is 0.

    Examples
    --------
    >>> from iaa_frames.stats.samples import sigma
    >>> sigma([0.1, 0.3], [0.4, 0.6])
    0.6
    >>> round(sigma([0.1, 0.3], [0.4, 0.6], within_weights=[0, 2]), 2)
    0.4
    """
    x, y, wx, wy = _validate_samples(within, between, within_weights, between_weights)
    return _sigma(_weighted_mean(x, wx), _weighted_mean(y, wy))


def ks(within, between, *, between_weights=None, method="auto"):
    """Two-sided two-sample KS test of within- against between-item distances.

    Parameters
    ----------
    within, between : array-like of float
        Within-item and between-item (chance) distances.
    between_weights : array-like of float, shape (n_between,), optional
        Weights of the chance distances (a pooled chance baseline). Unequal weights give
        the statistic of the weighted ECDF and scipy's asymptotic p-value
        (``method="asymp"``) at the effective sample size ``(sum w)^2 / sum w^2``.
    method : {"auto", "exact", "asymp"}, default "auto"
        How :func:`scipy.stats.ks_2samp` computes the p-value ("asymp" is fast; the
        statistic and sign do not depend on it).

    Returns
    -------
    KSResult
        ``(statistic, sign, pvalue)`` from :func:`scipy.stats.ks_2samp`; ``sign`` is +1
        when within-item distances are stochastically smaller (agreement), -1 otherwise
        and 0 when the statistic is 0. All NaN when a side is empty.

    Examples
    --------
    >>> from iaa_frames.stats.samples import ks
    >>> res = ks([0.1, 0.2, 0.3], [0.5, 0.6, 0.7])
    >>> float(res.statistic), float(res.sign), round(float(res.pvalue), 3)
    (1.0, 1.0, 0.1)
    """
    x, y, _, wy = _validate_samples(within, between, None, between_weights)
    if x.size == 0 or y.size == 0:
        return KSResult(np.nan, np.nan, np.nan)
    if wy is not None and np.any(wy != wy.flat[0]):
        return _ks_weighted(x, y, wy)
    res = scipy.stats.ks_2samp(x, y, alternative="two-sided", method=method)
    sign = float(res.statistic_sign) if res.statistic > 0 else 0.0
    return KSResult(float(res.statistic), sign, float(res.pvalue))


def _ks_weighted(x, y, wy) -> KSResult:
    """KS test of ``x`` against ``y`` weighted by ``wy`` (see :func:`ks`)."""
    values = np.union1d(x, y)
    fx = np.searchsorted(np.sort(x), values, side="right") / x.size
    order = np.argsort(y, kind="stable")
    cum = np.r_[0.0, np.cumsum(wy[order])]
    fy = cum[np.searchsorted(y[order], values, side="right")] / cum[-1]
    diff = fx - fy
    at = int(np.argmax(np.abs(diff)))
    stat = float(abs(diff[at]))
    n_eff = cum[-1] ** 2 / float(np.sum(wy**2))
    en = max(round(x.size * n_eff / (x.size + n_eff)), 1)  # as ks_2samp(method="asymp")
    p = float(scipy.stats.kstwo.sf(stat, en)) if stat > 0 else 1.0
    return KSResult(stat, float(np.sign(diff[at])) if stat > 0 else 0.0, min(p, 1.0))


def frac_below_chance(within, between, *, q=0.05, within_weights=None, between_weights=None):
    """Share of within-item distances strictly below the q-quantile of chance.

    This is the figure that Braylan et al.'s code calls "sigma" (not ours).

    Parameters
    ----------
    within, between : array-like of float
        Within-item and between-item (chance) distances.
    q : float, default 0.05
        Quantile of the between distribution used as threshold, in [0, 1].
    within_weights, between_weights : None or array-like, shape (n,)
        Per-row weights.

    Returns
    -------
    float
        The (weighted) share in [0, 1]. NaN when a side is empty or has zero total
        weight.

    Notes
    -----
    The threshold is the inverted-CDF quantile (``numpy.quantile(...,
    method="inverted_cdf")``): the smallest between distance whose ECDF reaches ``q``.
    Unlike interpolating definitions it is unchanged when rows are duplicated, so
    integer weights and repeated rows agree exactly.

    Examples
    --------
    >>> from iaa_frames.stats.samples import frac_below_chance
    >>> frac_below_chance([0.0, 0.1, 0.5, 0.9], [0.2, 0.4, 0.6, 0.8, 1.0], q=0.2)
    0.5
    """
    if (
        isinstance(q, (bool, np.bool_))
        or not isinstance(q, (int, float, np.number))
        or not 0.0 <= float(q) <= 1.0
    ):
        raise ParameterError(f"q must be a number in [0, 1], got {q!r}")
    x, y, wx, wy = _validate_samples(within, between, within_weights, between_weights)
    if x.size == 0 or y.size == 0:
        return np.nan
    order_x, order_y = np.argsort(x, kind="stable"), np.argsort(y, kind="stable")
    wx = np.ones((1, x.size)) if wx is None else wx[None, :]
    wy = np.ones((1, y.size)) if wy is None else wy[None, :]
    threshold = _chance_quantile(y[order_y], _cumulative(wy, order_y), float(q))
    return float(_share_below(x[order_x], _cumulative(wx, order_x), threshold)[0])


def percentile_ci(replicates, *, level=0.95):
    """Percentile bootstrap interval over axis 0, ignoring NaN replicates.

    Parameters
    ----------
    replicates : array-like, shape (B, ...)
        Bootstrap replicates of one or many statistics.
    level : float, default 0.95
        Coverage of the interval, in (0, 1).

    Returns
    -------
    (low, high)
        Floats for a 1-D input, else arrays of shape ``replicates.shape[1:]``. NaN where
        every replicate is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from iaa_frames.stats.samples import percentile_ci
    >>> low, high = percentile_ci(np.arange(101.0), level=0.9)
    >>> round(low, 6), round(high, 6)
    (5.0, 95.0)
    """
    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, (int, float, np.number))
        or not 0.0 < float(level) < 1.0
    ):
        raise ParameterError(f"level must be a number in (0, 1), got {level!r}")
    reps = np.asarray(replicates, dtype=np.float64)
    if reps.ndim == 0:
        raise ParameterError("replicates must have at least one dimension (B, ...)")
    tail = 50.0 * (1.0 - float(level))
    if reps.shape[0] == 0:
        low = high = np.full(reps.shape[1:], np.nan)
    else:
        all_nan = np.all(np.isnan(reps), axis=0)
        filled = np.where(all_nan, 0.0, reps)  # keep nanpercentile quiet on all-NaN cells
        low, high = np.nanpercentile(filled, [tail, 100.0 - tail], axis=0)
        low, high = np.where(all_nan, np.nan, low), np.where(all_nan, np.nan, high)
    if reps.ndim == 1:
        return float(low), float(high)
    return low, high


# ------------------------------------------------------------------ formula helpers


def _weighted_mean(x, w):
    """``sum_i w_i x_i / sum_i w_i`` (plain mean when ``w`` is None); NaN if empty."""
    if w is None:
        return x.mean() if x.size else np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        return (w @ x) / w.sum(axis=-1)


def _sigma(mean_within, mean_between):
    """``sigma = 1 - mean(within) / mean(between)``, NaN when the between mean is 0."""
    mean_between = np.asarray(mean_between, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = 1.0 - mean_within / mean_between
    s = np.where(mean_between != 0, s, np.nan)
    return float(s) if s.ndim == 0 else s


def _cumulative(w_block, order):
    """Cumulative weights of the sorted sample, with a leading 0: shape (b, n + 1)."""
    sorted_w = w_block[:, order]
    cum = np.zeros((sorted_w.shape[0], sorted_w.shape[1] + 1))
    np.cumsum(sorted_w, axis=1, out=cum[:, 1:])
    return cum


def _chance_quantile(sorted_between, cum, q):
    """Inverted-CDF q-quantile: the smallest ``v`` with ``F_between(v) >= q``."""
    total = cum[:, -1]
    # first sorted position whose cumulative weight reaches q * total (and is > 0); the
    # relative slack absorbs rounding in q * total and in the cumulative sums
    target = np.maximum(q * total, np.finfo(np.float64).tiny)[:, None]
    pos = np.sum(cum[:, 1:] < target * (1 - 1e-12), axis=1)
    pos = np.minimum(pos, sorted_between.size - 1)
    return np.where(total > 0, sorted_between[pos], np.nan)


def _share_below(sorted_within, cum, threshold):
    """``sum_{i: x_i < t} w_i / sum_i w_i`` for one threshold per replicate."""
    k = np.searchsorted(sorted_within, np.nan_to_num(threshold), side="left")
    below = np.take_along_axis(cum, k[:, None], axis=1)[:, 0]
    total = cum[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = below / total
    return np.where(np.isnan(threshold) | (total <= 0), np.nan, share)


# ------------------------------------------------------------------------ plumbing


def _as_sample(x, name):
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ParameterError(f"{name} must be a 1-D array of distances, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "biuf":
        raise ParameterError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all():
        raise ParameterError(f"{name} contains NaN or infinite distances")
    return arr


def _as_weights(w, n, name):
    if w is None:
        return None
    arr = np.asarray(w)
    if arr.shape != (n,):
        raise ParameterError(f"{name} must have shape ({n},), got {arr.shape}")
    if arr.size and arr.dtype.kind not in "biuf":
        raise ParameterError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all() or (arr.size and arr.min() < 0):
        raise ParameterError(f"{name} must be finite and non-negative")
    return arr


def _validate_samples(within, between, within_weights, between_weights):
    x = _as_sample(within, "within")
    y = _as_sample(between, "between")
    wx = _as_weights(within_weights, x.size, "within_weights")
    wy = _as_weights(between_weights, y.size, "between_weights")
    return x, y, wx, wy


def cell_tests(
    within,
    within_cell,
    between,
    between_cell,
    between_weight,
    n_cells,
    *,
    q: float = 0.05,
    within_rows=None,
    pvalue: bool = True,
    presorted: bool = False,
):
    """KS statistic, sign, asymptotic p-value and fraction below chance of many cells at
    once (each cell a subset of the rows), without a loop over cells.

    Parameters
    ----------
    within, between : ndarray of float
        Distances of the entries (an entry is a row in one cell; rows repeat over cells).
    within_cell, between_cell : ndarray of int
        The cell of each entry.
    between_weight : ndarray of float
        Weight of each chance entry (1, or a pooled unit's weight).
    n_cells : int
    q : float, default 0.05
        Quantile of :func:`frac_below_chance`.
    within_rows : ndarray of int, optional
        The row of every within entry: ``within`` then holds one distance per row, and
        the entries' distances ``within[within_rows]`` are gathered a group of cells at
        a time (never all at once).
    pvalue : bool, default True
        Whether to compute the asymptotic p-values (False: NaN in their row, for a
        caller that tests otherwise; the engine's cluster-bootstrap test).
    presorted : bool, default False
        True: the caller guarantees that the entries of both sides are grouped by cell,
        cells ascending, each cell's values ascending (the engine's KS lists), which is
        then not checked (1M boxes: a pass over the within entries' distances, 0.1 s a
        component); False: checked, the entries sorted here when they are not.

    Returns
    -------
    ndarray, shape (4, n_cells)
        Rows: the two-sided statistic of the (weighted) ECDFs, its sign (+1 when the
        within ECDF is above), the asymptotic two-sided p-value (as
        ``scipy.stats.ks_2samp(method="asymp")``, at the effective size
        ``(sum w)^2 / sum w^2`` of the chance side) and the
        share of within distances strictly below the inverted-CDF ``q``-quantile of the
        chance distances. NaN where a side is empty. Equal to :func:`ks`
        (``method="asymp"``) and :func:`frac_below_chance` cell by cell.

    Examples
    --------
    >>> import numpy as np
    >>> out = cell_tests(np.array([0.1, 0.2, 0.3]), np.zeros(3, int),
    ...                  np.array([0.5, 0.6, 0.7]), np.zeros(3, int), np.ones(3), 1)
    >>> out[:2, 0].tolist(), float(out[3, 0])
    ([1.0, 1.0], 1.0)
    """
    within, between = np.asarray(within, float), np.asarray(between, float)
    wc, bc = _as_cells(within_cell), _as_cells(between_cell)
    bw = np.asarray(between_weight, float)
    out = np.full((4, n_cells), np.nan)
    if within_rows is None:
        value_of = within.__getitem__
    else:
        rows = _as_cells(within_rows)

        def value_of(part):
            return within[rows[part]]

    presorted = presorted or (_sorted_in_chunks(value_of, wc) and sorted_by_cell(between, bc))
    if presorted:  # the entries of a cell together: where each cell's entries start
        w_at = search_cells(wc, np.arange(n_cells + 1))
        n_w = np.diff(w_at).astype(float)
    else:
        n_w = np.bincount(wc, minlength=n_cells).astype(float)
    w_b = np.bincount(bc, weights=bw, minlength=n_cells)
    w2_b = np.bincount(bc, weights=bw * bw, minlength=n_cells)
    ok = (n_w > 0) & (w_b > 0)
    if not ok.any():
        return out
    # every entry's step of F_within - F_between (one division per cell)
    with np.errstate(divide="ignore", invalid="ignore"):
        step_w, step_b = 1.0 / n_w, -bw / w_b[bc]
    # fraction below chance: the smallest chance value whose weighted ECDF reaches q
    b_order = np.arange(len(bc)) if presorted else np.lexsort((between, bc))
    b_cell, b_val = bc[b_order], between[b_order]
    cum = np.cumsum(bw[b_order])
    cum -= np.r_[0.0, cum][search_cells(b_cell, np.arange(n_cells))][b_cell]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = cum / w_b[b_cell]
    del cum, b_order
    reach = frac >= q - 1e-12
    first_reach = np.full(n_cells, -1)
    idx = np.flatnonzero(reach)
    first_idx = np.r_[True, b_cell[idx][1:] != b_cell[idx][:-1]] if len(idx) else idx
    first_reach[b_cell[idx][first_idx]] = idx[first_idx]
    threshold = np.where(first_reach >= 0, b_val[np.maximum(first_reach, 0)], np.inf)
    stat = np.zeros(n_cells)
    sign = np.zeros(n_cells)
    below = np.zeros(n_cells)
    if presorted:
        # the engine's entries: the two sorted sides merged (no sort), a group of cells
        # at a time, the running sum carried from group to group (the same additions
        # as over all entries at once)
        b_at = search_cells(bc, np.arange(n_cells + 1))
        carry = None
        for c0, c1 in cell_groups(w_at, CHUNK_ENTRIES):
            w, b = slice(w_at[c0], w_at[c1]), slice(b_at[c0], b_at[c1])
            x, xc = value_of(w), wc[w]
            cell, value, diff = _merged(
                x,
                xc,
                between[b],
                bc[b],
                (step_w[xc], step_b[b]),
                np.arange(c0, c1),
                np.diff(w_at[c0 : c1 + 1]) + np.diff(b_at[c0 : c1 + 1]),
            )
            carry = _largest_differences(cell, value, diff, c0, c1, carry, stat, sign)
            del cell, value, diff
            # counted, not summed as floats (the same integers): each cell's distances
            # ascending, those below its threshold are the first ones
            below[c0:c1] += count_below_sorted(x, w_at[c0 : c1 + 1] - w_at[c0], threshold[c0:c1])
    else:
        within = value_of(slice(None))
        cell, value = np.concatenate([wc, bc]), np.concatenate([within, between])
        order = np.lexsort((value, cell))
        cell = cell[order]  # one array at a time: entries are many (rows x cells)
        value = value[order]
        diff = np.concatenate([step_w[wc], step_b])[order]
        del order
        _largest_differences(cell, value, diff, 0, n_cells, None, stat, sign)
        del cell, value, diff
        below = np.bincount(wc[within < threshold[wc]], minlength=n_cells).astype(float)
    n_eff = np.where(w2_b > 0, w_b**2 / np.maximum(w2_b, 1e-300), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        en = np.round(n_w * n_eff / (n_w + n_eff))  # scipy's ks_2samp(method="asymp")
    p = np.ones(n_cells) if pvalue else np.full(n_cells, np.nan)
    tested = (stat > 0) & (en >= 1) & pvalue
    if tested.any():  # sf once per distinct (statistic, size): cells repeat a few pairs
        pair, back = np.unique(np.stack([stat[tested], en[tested]]), axis=1, return_inverse=True)
        p[tested] = scipy.stats.kstwo.sf(pair[0], pair[1])[back.reshape(-1)]
    out[0], out[1], out[2] = stat, np.where(stat > 0, sign, 0.0), np.minimum(p, 1.0)
    out[3] = below / np.where(n_w > 0, n_w, np.nan)
    out[:, ~ok] = np.nan
    return out


#: Within entries whose ECDF differences :func:`cell_tests` forms together (entries sorted
#: by cell, a group of whole cells at a time): bounds its temporaries on millions of entries.
CHUNK_ENTRIES = 1 << 21


def count_below_sorted(values, edges, threshold) -> np.ndarray:
    """Per segment ``values[edges[c]:edges[c + 1]]`` (each ascending), how many of its
    values are strictly below ``threshold[c]``: ``(values[seg] < threshold[c]).sum()``,
    by a bisection of all segments at once (a loop over halvings, about
    ``log2(longest segment)`` of them, each over the segments, not the values).

    Examples
    --------
    >>> count_below_sorted(np.array([0.1, 0.5, 0.2, 0.3, 0.9]), np.array([0, 2, 5]),
    ...                    np.array([0.5, np.inf])).tolist()
    [1, 3]
    """
    edges = np.asarray(edges, dtype=np.int64)
    lo, hi = edges[:-1].copy(), edges[1:].copy()
    threshold = np.asarray(threshold, dtype=np.float64)
    while True:  # a loop over halvings of the segments' ranges
        open_ = lo < hi
        if not open_.any():
            return lo - edges[:-1]
        mid = (lo + hi) // 2
        below = np.zeros(len(lo), dtype=bool)
        below[open_] = values[mid[open_]] < threshold[open_]
        lo = np.where(open_ & below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)


def _sorted_in_chunks(value_of, cell) -> bool:
    """:func:`~iaa_frames.stats.segments.sorted_by_cell` of the values ``value_of(part)``
    of the entries, :data:`CHUNK_ENTRIES` at a time (windows overlapping by one entry)."""
    n = len(cell)
    if n < 2:
        return sorted_by_cell(value_of(slice(0, n)), cell)
    for lo in range(0, n - 1, CHUNK_ENTRIES):  # a loop over chunks of entries
        part = slice(lo, min(lo + CHUNK_ENTRIES + 1, n))
        if not sorted_by_cell(value_of(part), cell[part]):
            return False
    return True


def _as_cells(cell) -> np.ndarray:
    """Cell codes as an integer array, in their own integer type (no int64 copy)."""
    cell = np.asarray(cell)
    return cell if cell.dtype.kind in "iu" else cell.astype(np.int64)


def _largest_differences(cell, value, diff, c0, c1, carry, stat, sign):
    """Each cell's largest |F_within - F_between| (first on ties) and its sign, written
    into ``stat`` and ``sign``, from the steps ``diff`` of cells ``c0 .. c1 - 1`` in order
    of (cell, value); ``carry`` is the running sum of the entries before them (None:
    none), returned updated. Cumulated in place."""
    if not len(diff):
        return carry
    if carry is not None:
        diff[0] += carry  # the running sum as over all entries at once
    np.cumsum(diff, out=diff)
    before = np.r_[0.0 if carry is None else carry, diff][
        np.searchsorted(cell, np.arange(c0, c1))
    ]  # cumulative sum at the start of each cell
    carry = float(diff[-1])
    diff -= before[cell - c0]
    # read the difference after the last entry of each run of equal values of a cell
    last = np.r_[(cell[1:] != cell[:-1]) | (value[1:] != value[:-1]), True]
    d_cell, d = cell[last], diff[last]
    del last
    a = np.abs(d)
    # the largest |difference| of each cell, first position on ties
    at = first_argmax(a, d_cell)
    if at is None:
        top = np.lexsort((np.arange(len(a)), -a, d_cell))
        at = top[np.r_[True, d_cell[top][1:] != d_cell[top][:-1]]]
    stat[d_cell[at]] = a[at]
    sign[d_cell[at]] = np.sign(d[at])
    return carry


def _merged(within, wc, between, bc, steps, cells, count):
    """(cell, value, step) of the within and chance entries of ``cells`` (``count``
    entries each), each side sorted by (cell, value), in their merged order
    (:func:`~iaa_frames.stats.segments.merged_positions`), written in place: no
    concatenation, no order array."""
    at_b = merged_positions(within, wc, between, bc)
    side_a = np.ones(len(wc) + len(bc), dtype=bool)
    side_a[at_b] = False
    cell = np.repeat(cells, count)
    merged = []
    for a, b in ((within, between), steps):
        out = np.empty(len(side_a))
        out[side_a] = a
        out[at_b] = b
        merged.append(out)
    return cell, merged[0], merged[1]
