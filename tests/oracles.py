"""Plain, slow reference implementations that tests compare the package against.

They follow the textbook definitions directly (dense coincidence matrices, explicit
loops over units), share no code with the package, and take the per-unit weights that
the package itself never needs (a bootstrap replicate, or a unit seen from one
annotator's side with weight 1 / (raters - 1)).
"""

import numpy as np

from iaa_frames.engine import agreement
from iaa_frames.engine.cells import SIGMA_COMPONENTS, check_component


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
# The slices of the result that ``iaf.sigma`` / ``res.iaa.sigma`` (iaa_frames.shortcuts)
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
