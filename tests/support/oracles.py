"""Plain, slow reference implementations that tests compare the package against.

They follow the textbook definitions directly (dense coincidence matrices, explicit
loops over units), share no code with the package, and take the per-unit weights that
the package itself never needs (a bootstrap replicate, or a unit seen from one
annotator's side with weight 1 / (raters - 1)).
"""

import numpy as np

from iaa_frames.core.engine import agreement
from iaa_frames.core.engine.cells import SIGMA_COMPONENTS, check_component


def weighted_nominal_alpha(unit_codes, value_codes, weights=None):
    """Krippendorff's nominal alpha from the coincidence matrix, units weighted.

    ``o[c, k] = sum_u w_u sum_{i != j in u} [v_i = c][v_j = k] / (m_u - 1)`` over units
    with ``m_u >= 2`` values; ``n_c = sum_k o[c, k]``, ``n = sum_c n_c``;
    ``alpha = 1 - (n - 1) sum_{c != k} o[c, k] / sum_{c != k} n_c n_k``
    (Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011). NaN when
    undefined.
    """
    units = np.asarray(unit_codes, dtype=int)
    values = np.asarray(value_codes, dtype=int)
    n_units = units.max() + 1 if units.size else 0
    w = np.ones(n_units) if weights is None else np.asarray(weights, dtype=float)
    cats = np.unique(values)
    o = np.zeros((len(cats), len(cats)))
    for u in range(n_units):
        v = np.searchsorted(cats, values[units == u])
        m = len(v)
        if m < 2:
            continue
        for i in range(m):
            for j in range(m):
                if i != j:
                    o[v[i], v[j]] += w[u] / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    off = ~np.eye(len(cats), dtype=bool)
    expected = (np.outer(n_c, n_c)[off]).sum()
    if n < 2 or expected <= 0:
        return np.nan
    return 1.0 - (n - 1) * o[off].sum() / expected


def presence_alpha(n_present, n_raters, weights=None):
    """Nominal alpha over present/absent values: unit ``u`` has ``n_raters[u]`` values,
    ``n_present[u]`` of them "present"."""
    units, values = [], []
    for u, (p, r) in enumerate(zip(n_present, n_raters)):
        units += [u] * int(r)
        values += [1] * int(p) + [0] * int(r - p)
    return weighted_nominal_alpha(units, values, weights)


def binary_alpha(unit_codes, value_codes, category, weights=None):
    """Alpha of one category after recoding every value to {category, other}."""
    recoded = (np.asarray(value_codes) == category).astype(int)
    return weighted_nominal_alpha(unit_codes, recoded, weights)


# ---------------------------------------------- one component of a fresh agreement()
# The slices of the result that ``iaf.sigma`` / ``res.iaa.sigma`` (iaa_frames.api.shortcuts)
# give, written again from the engine's Dataset for the accessor tests.


def _with_coords(da, ds, component, names):
    extra = {n: ds[n].sel(component=component) for n in names}
    return da.assign_coords({n: (v.dims, v.values, v.attrs) for n, v in extra.items()})


def component_sigma(df, *, component: str = "localization", **params):
    """Sigma of one component by label and annotator (the accessor's ``.sigma()``).

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    component : {"localization", "detection", "overall"}, default "localization"
    **params
        Keyword parameters of :func:`agreement`.

    Returns
    -------
    xarray.DataArray
        Dims ``(label, annotator)``, with ``ci_low``, ``ci_high``, ``n_units``,
        ``n_chance`` and ``note`` as coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> s = component_sigma(simulate(n_items=20, seed=0), n_chance=200)
    >>> s.dims
    ('label', 'annotator')
    """
    check_component(component, SIGMA_COMPONENTS)
    ds = agreement(df, **params)
    da = ds["agreement"].sel(component=component).rename("sigma")
    return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "n_chance", "note"))


def component_ks(df, *, component: str = "localization", **params):
    """KS statistic of one component by label and annotator (the accessor's ``.ks()``).

    Parameters
    ----------
    df : pandas.DataFrame
    component : {"localization", "detection", "overall"}, default "localization"
    **params
        Keyword parameters of :func:`agreement`.

    Returns
    -------
    xarray.DataArray
        Dims ``(label, annotator)``, with ``ks_sign``, ``ks_pvalue`` and ``note`` as
        coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> k = component_ks(simulate(n_items=20, seed=0), n_chance=200)
    >>> float(k.sel(label="(all)", annotator="(all)").ks_sign)
    1.0
    """
    check_component(component, SIGMA_COMPONENTS)
    ds = agreement(df, **params)
    return _with_coords(
        ds["ks"].sel(component=component), ds, component, ("ks_sign", "ks_pvalue", "note")
    )


def component_alpha(df, *, component: str = "classification", **params):
    """Alpha by label and annotator (the accessor's ``.alpha()``).

    Parameters
    ----------
    df : pandas.DataFrame
    component : {"classification", "detection"}, default "classification"
        "classification": Krippendorff's alpha of the labels (the component's agreement);
        "detection": the presence alpha reported beside detection sigma for comparison.
    **params
        Keyword parameters of :func:`agreement`.

    Returns
    -------
    xarray.DataArray
        Dims ``(label, annotator)``; classification carries ``ci_low``, ``ci_high``,
        ``n_units`` and ``note`` as coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> a = component_alpha(simulate(n_items=20, seed=0), n_chance=200)
    >>> float(a.sel(label="(all)", annotator="(all)")) > 0.5
    True
    """
    check_component(component, ("classification", "detection"))
    ds = agreement(df, **params)
    if component == "detection":
        return ds["presence_alpha"].sel(component="detection").rename("alpha")
    da = ds["agreement"].sel(component="classification").rename("alpha")
    return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "note"))


def ratio_bin_oracle(n, m):
    """The count-ratio bin of :mod:`iaa_frames.core.chance.poststrata`, by its definition:
    ``min(n, m) / max(n, m)`` (1 for two empty annotations) in [0, .5), [.5, .75),
    [.75, 1) or exactly 1."""
    r = 1.0 if max(n, m) == 0 else min(n, m) / max(n, m)
    return 3 if r == 1 else 2 if r >= 0.75 else 1 if r >= 0.5 else 0


def poststratified_weights(tables, within, between, weights, pools_classes):
    """Weights of a cell's chance rows after post-stratification, by the textbook rule,
    one row at a time: the cell's chance mean is ``sum_s p_s mean_s`` over the strata of
    its within units (class pair x count-ratio bin where the cell pools classes, count-ratio
    bin otherwise), a stratum with fewer than 10 chance units falling back to its class
    pair, then to the cell's plain mean; rows weighted so that the weighted mean equals it and the
    weights sum to the cell's chance weight."""
    corpus = tables.corpus
    count = {}
    for slot in range(corpus.annotations.empty):
        key = (int(corpus.annotations.item[slot]), int(corpus.annotations.annotator[slot]))
        count[key] = int(corpus.annotations.count[slot])

    def strata(item_a, item_b, ann_a, ann_b, la, lb):
        cpair = ratio_bin_oracle(count[(int(item_a), int(ann_a))], count[(int(item_b), int(ann_b))])
        lpair = (min(la, lb), max(la, lb)) if pools_classes else None
        return (lpair, cpair), lpair

    w_keys = [
        strata(r.item, r.item, r.annotator_a, r.annotator_b, r.label_a, r.label_b)
        for r in within.itertuples()
    ]
    b_keys = [
        strata(r.item_a, r.item_b, r.annotator_a, r.annotator_b, r.label_a, r.label_b)
        for r in between.itertuples()
    ]
    weights = np.asarray(weights, dtype=float)
    total = weights.sum()
    fine_b, coarse_b, fine_n, coarse_n = {}, {}, {}, {}
    for (f, g), m in zip(b_keys, weights):
        fine_b[f] = fine_b.get(f, 0.0) + m
        coarse_b[g] = coarse_b.get(g, 0.0) + m
        fine_n[f] = fine_n.get(f, 0) + 1
        coarse_n[g] = coarse_n.get(g, 0) + 1
    p, q, r = {}, {}, 0.0
    for f, g in w_keys:
        share = 1.0 / len(w_keys)
        if fine_n.get(f, 0) >= 10:  # MIN_STRATUM_UNITS
            p[f] = p.get(f, 0.0) + share
        elif coarse_n.get(g, 0) >= 10:
            q[g] = q.get(g, 0.0) + share
        else:
            r += share
    out = []
    for (f, g), m in zip(b_keys, weights):
        factor = p.get(f, 0.0) / fine_b[f] + q.get(g, 0.0) / coarse_b[g] + r / total
        out.append(m * factor * total)
    return np.asarray(out)


# --- the KS test of agreement, one cell at a time ----------------------------------------
# The implementation of iaa_frames.stats.kstest.ks_agreement_tests before it was vectorized over
# cells (a grid, bins and observed difference per cell in a Python loop), kept verbatim as
# the oracle that the vectorized version must equal bitwise.

import scipy.sparse as sp  # noqa: E402

from iaa_frames.errors import ParameterError  # noqa: E402
from iaa_frames.stats import kstest as _kstest  # noqa: E402
from iaa_frames.stats.bootstrap import block_size, multiplicity_blocks  # noqa: E402
from iaa_frames.stats.kstest import DEFAULT_RESAMPLES, MAX_GRID, MIN_ITEMS  # noqa: E402

_STREAM = _kstest._STREAM  # noqa: SLF001  (the test's random stream)


def _as_codes(values, n, name):
    arr = np.asarray(values)
    if arr.shape != (n,) or (
        arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0)
    ):
        raise ParameterError(f"{name} must be {n} non-negative integer item codes")
    return arr.astype(np.int64)


from iaa_frames.settings.parameters import check_int  # noqa: E402


def _cell_bins(x, y, max_grid):
    """Grid of one cell and the bin of every value: the first grid point at or above it
    (a value counts in the ECDF at every grid point from its bin on)."""
    grid = np.unique(np.concatenate([x, y]))
    if grid.size > max_grid:  # pooled quantiles, always with the largest value
        grid = np.unique(
            np.r_[np.quantile(grid, np.linspace(0, 1, max_grid), method="inverted_cdf"), grid[-1]]
        )
    return grid.size, np.searchsorted(grid, x), np.searchsorted(grid, y)


def ks_agreement_tests_loop(
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
    """The loop-per-cell ks_agreement_tests (oracle)."""
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
