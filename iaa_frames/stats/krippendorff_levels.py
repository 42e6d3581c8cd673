"""Krippendorff's alpha at the ordinal and interval levels, from totals of coincidences.

Alpha is ``1 - D_o / D_e`` whatever the level; the level of measurement only chooses the
squared difference ``delta^2(c, k)`` between two values (Krippendorff, "Computing
Krippendorff's Alpha-Reliability", 2011). With ``o_ck`` the coincidences of values c and
k (every ordered pair of values of a unit of ``m_u`` pairable values weighs
``1 / (m_u - 1)``), ``n_c = sum_k o_ck`` and ``n = sum_c n_c``::

    D_o = (1/n) sum_{c != k} o_ck delta^2(c, k)
    D_e = (1/(n (n - 1))) sum_{c, k} n_c n_k delta^2(c, k)

* **interval**: ``delta^2 = (c - k)^2``, so ``D_e = 2 (n s_2 - s_1^2) / (n (n - 1))``
  with ``s_1 = sum_c n_c c`` and ``s_2 = sum_c n_c c^2``: three sums, no categories
  (:func:`interval_disagreements`);
* **ordinal**: ``delta(c, k) = sum_{g=c}^{k} n_g - (n_c + n_k) / 2`` over the ranked
  categories, which is ``M_k - M_c`` for the *midranks* ``M_g = sum_{h<g} n_h + n_g / 2``
  (:func:`midranks`): the interval metric on midranks, whose ``D_e`` takes the same
  closed form; ``D_o`` needs the coincidences of every pair of categories
  (:func:`ordinal_disagreements`);
* **nominal**: :func:`iaa_frames.stats.krippendorff.nominal_disagreements`.

Every helper takes totals with any leading axes (bootstrap replicates, cells), so a whole
block of replicates is one array expression. :func:`level_alpha` computes alpha of an
annotators x units matrix with them (the closed form per unit), for checks against other
implementations.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError

from .krippendorff import nominal_alpha

__all__ = [
    "LEVELS",
    "alpha_from_disagreements",
    "interval_disagreements",
    "level_alpha",
    "midranks",
    "ordinal_disagreements",
    "pair_index",
]

#: The levels of measurement, in order of how much of the values they use.
LEVELS = ("nominal", "ordinal", "interval")


def alpha_from_disagreements(d_o, d_e, n):
    """``alpha = 1 - D_o / D_e``; NaN where undefined (``n < 2`` or ``D_e <= 1e-12 * n``
    relative to the values' scale: no variation).

    Examples
    --------
    >>> float(alpha_from_disagreements(0.25, 1.0, 10))
    0.75
    >>> float(alpha_from_disagreements(0.0, 0.0, 10))
    nan
    """
    d_o, d_e, n = (np.asarray(x, dtype=np.float64) for x in (d_o, d_e, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - d_o / d_e
    return np.where((d_e > 1e-12) & (n >= 2), alpha, np.nan)


def interval_disagreements(n, s1, s2, o):
    """Observed and expected disagreement of interval values, from sums.

    ``D_o = o / n`` and ``D_e = 2 (n s_2 - s_1^2) / (n (n - 1))``, where ``n`` is the
    number of pairable values, ``s_1`` and ``s_2`` the sums of the values and of their
    squares, and ``o = sum_u sum_{i != j} (v_i - v_j)^2 / (m_u - 1)`` the coincidence
    mass of squared differences (both orders of every pair). Centre the values first
    (any shift leaves alpha unchanged) to keep ``n s_2 - s_1^2`` accurate. NaN where
    ``n <= 1``.

    Examples
    --------
    Two units of two values, (0, 0) and (0, 2):

    >>> d_o, d_e = interval_disagreements(4.0, 2.0, 4.0, 8.0)
    >>> float(d_o), float(d_e), float(1 - d_o / d_e)
    (2.0, 2.0, 0.0)
    """
    n, s1, s2, o = (np.asarray(x, dtype=np.float64) for x in (n, s1, s2, o))
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = o / n
        d_e = 2.0 * (n * s2 - s1 * s1) / (n * (n - 1.0))
    return np.where(n > 1, d_o, np.nan), np.where(n > 1, np.maximum(d_e, 0.0), np.nan)


def midranks(n_c):
    """Midrank ``M_g = sum_{h<g} n_h + n_g / 2`` of every ranked category (last axis).

    Examples
    --------
    >>> midranks(np.array([2.0, 1.0, 3.0])).tolist()
    [1.0, 2.5, 4.5]
    """
    n_c = np.asarray(n_c, dtype=np.float64)
    return np.cumsum(n_c, axis=-1) - n_c / 2.0


def pair_index(n_categories: int):
    """``(c, k)``, ``c < k``: the pairs of categories in the order of the last axis of
    ``o_pairs`` (:func:`ordinal_disagreements`); ``numpy.triu_indices(C, 1)``.

    Examples
    --------
    >>> [tuple(map(int, p)) for p in zip(*pair_index(3))]
    [(0, 1), (0, 2), (1, 2)]
    """
    return np.triu_indices(int(n_categories), 1)


def ordinal_disagreements(n_c, o_pairs):
    """Observed and expected disagreement of ordinal values, from coincidences.

    Parameters
    ----------
    n_c : array-like, shape ``(..., C)``
        Pairable values per ranked category (``n_c`` of the coincidence matrix).
    o_pairs : array-like, shape ``(..., C (C - 1) / 2)``
        Coincidences ``o_ck + o_kc`` of every pair ``c < k`` in :func:`pair_index` order.

    Returns
    -------
    (D_o, D_e)
        Arrays of the leading shape; NaN where ``n <= 1``.

    Notes
    -----
    ``delta(c, k) = M_k - M_c`` (:func:`midranks`), so
    ``D_o = sum_{c<k} o_pairs (M_k - M_c)^2 / n`` and ``D_e`` is
    :func:`interval_disagreements`'s on the midranks.

    Examples
    --------
    Units (1, 1), (2, 3), (3, 3) of the categories 1 < 2 < 3 (0.7778 with the
    ``krippendorff`` package too):

    >>> n_c, o = np.array([2.0, 1.0, 3.0]), np.array([0.0, 0.0, 2.0])
    >>> d_o, d_e = ordinal_disagreements(n_c, o)
    >>> round(float(1 - d_o / d_e), 4)
    0.7778
    """
    n_c = np.asarray(n_c, dtype=np.float64)
    o_pairs = np.asarray(o_pairs, dtype=np.float64)
    m = midranks(n_c)
    n = n_c.sum(axis=-1)
    c, k = pair_index(n_c.shape[-1])
    d2 = (m[..., k] - m[..., c]) ** 2
    centred = m - (np.sum(n_c * m, axis=-1) / np.where(n > 0, n, 1.0))[..., None]
    s2 = np.sum(n_c * centred * centred, axis=-1)
    d_o, d_e = interval_disagreements(n, 0.0, s2, np.sum(o_pairs * d2, axis=-1))
    return d_o, d_e


def level_alpha(reliability_data, *, level: str = "interval") -> float:
    """Krippendorff's alpha of an annotators x units matrix at a level of measurement.

    Parameters
    ----------
    reliability_data : array-like, shape (annotators, units)
        Values, NaN (or None) where missing. Numbers for "ordinal" (ranked by value) and
        "interval"; anything comparable for equality for "nominal".
    level : {"nominal", "ordinal", "interval"}, default "interval"

    Returns
    -------
    float
        NaN when undefined (fewer than two pairable values, or no variation).

    Examples
    --------
    Krippendorff's (2011) example of four coders and twelve units:

    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(level_alpha(data, level="interval"), 3), round(level_alpha(data, level="ordinal"), 3)
    (0.849, 0.815)
    """
    if level not in LEVELS:
        raise ParameterError(f"level must be one of {LEVELS}, got {level!r}")
    if level == "nominal":
        return nominal_alpha(reliability_data)
    try:
        arr = np.asarray(reliability_data, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(
            f"level_alpha: {level} values must be numbers (NaN where missing)"
        ) from None
    if arr.ndim != 2:
        raise ParameterError(f"level_alpha: expected a 2-D matrix, got shape {arr.shape}")
    present = np.isfinite(arr)
    m = present.sum(axis=0).astype(np.float64)
    keep = m >= 2
    arr, present, m = arr[:, keep], present[:, keep], m[keep]
    w = 1.0 / (m - 1.0)
    if level == "interval":
        v = np.where(present, arr - arr[present].mean() if present.any() else 0.0, 0.0)
        s1u, s2u = v.sum(axis=0), (v * v).sum(axis=0)
        o = np.sum(w * 2.0 * (m * s2u - s1u * s1u))
        d_o, d_e = interval_disagreements(m.sum(), s1u.sum(), s2u.sum(), o)
        return float(alpha_from_disagreements(d_o, d_e, m.sum()))
    values = np.unique(arr[present])
    codes = np.searchsorted(values, np.where(present, arr, values[0] if len(values) else 0))
    unit = np.broadcast_to(np.arange(arr.shape[1]), arr.shape)
    counts = pd.crosstab(unit[present], codes[present]).reindex(
        columns=range(len(values)), fill_value=0
    )
    n_uc = counts.to_numpy(np.float64)
    coinc = (n_uc * w[:, None]).T @ n_uc  # o_ck for c != k (the diagonal is not used)
    c, k = pair_index(len(values))
    d_o, d_e = ordinal_disagreements(n_uc.sum(axis=0), coinc[c, k] + coinc[k, c])
    return float(alpha_from_disagreements(d_o, d_e, m.sum()))
