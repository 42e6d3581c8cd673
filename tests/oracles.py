"""Plain, slow reference implementations that tests compare the package against.

They follow the textbook definitions directly (dense coincidence matrices, explicit
loops over units), share no code with the package, and take the per-unit weights that
the package itself never needs (a bootstrap replicate, or a unit seen from one
annotator's side with weight 1 / (raters - 1)).
"""

import numpy as np


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
