"""Krippendorff's alpha for nominal data, from unit x value counts.

Everything here is computed from the sparse matrix of counts ``n_uc`` (how many pairable
values of unit ``u`` equal category ``c``), never from a dense values x values
coincidence matrix, so memory grows with the number of *pairable values*, not with the
square of the number of categories. With ``m_u = sum_c n_uc`` (only units with
``m_u >= 2`` count), ``n = sum_u m_u`` and ``n_c = sum_u n_uc``::

    D_o = (1/n) sum_u [sum_c n_uc (m_u - n_uc)] / (m_u - 1)
    D_e = (1/(n(n-1))) sum_c n_c (n - n_c)
    alpha = 1 - D_o / D_e

(Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.errors import InvalidAnnotationError, ParameterError, SchemaError

__all__ = [
    "binary_alpha_per_category",
    "binary_disagreements",
    "nominal_alpha",
    "nominal_alpha_from_codes",
    "nominal_disagreements",
]


# ----------------------------------------------------------------------------- public


def nominal_alpha(data, *, unit="unit", annotator="annotator", value="value"):
    """Krippendorff's alpha for nominal data.

    Parameters
    ----------
    data : pandas.DataFrame or array-like
        Either a tidy frame with one row per pairable value and the columns named by
        `unit`, `annotator` and `value` (rows whose value is NA are ignored), or an
        annotators x units 2-D array-like with NaN (or None) for missing values. Values
        may be numbers or strings; they are only compared for equality.
    unit, annotator, value : str
        Column names used when `data` is a DataFrame.

    Returns
    -------
    float
        Alpha in [-1, 1]; NaN when undefined: fewer than two pairable values, or no
        expected disagreement (every pairable value is the same).

    Raises
    ------
    SchemaError
        A column is missing from the frame.
    ParameterError
        `data` is not a DataFrame or a 2-D array-like.
    InvalidAnnotationError
        An annotator gives more than one value for the same unit.

    Notes
    -----
    Only units with at least two values are pairable. The annotator column is used to
    check that each annotator gives at most one value per unit; alpha itself depends
    only on the values per unit.

    Examples
    --------
    >>> import numpy as np
    >>> from iaa_frames.stats.krippendorff import nominal_alpha
    >>> nan = np.nan
    >>> round(nominal_alpha([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...                      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...                      [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...                      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]), 3)
    0.743
    >>> import pandas as pd
    >>> df = pd.DataFrame({"unit": [0, 0, 1, 1], "annotator": ["a", "b", "a", "b"],
    ...                    "value": ["cat", "cat", "dog", "cat"]})
    >>> round(nominal_alpha(df), 3)
    0.0
    """
    if isinstance(data, pd.DataFrame):
        unit_codes, value_codes = _codes_from_tidy(data, unit, annotator, value)
    else:
        unit_codes, value_codes = _codes_from_matrix(data)
    return _nominal_alpha_core(unit_codes, value_codes)


def nominal_alpha_from_codes(unit_codes, value_codes):
    """Nominal alpha from integer codes.

    Parameters
    ----------
    unit_codes, value_codes : array-like of int, shape (n_values,)
        One entry per pairable value: the unit it belongs to and its category, both as
        non-negative integer codes (e.g. from :func:`pandas.factorize`).

    Returns
    -------
    float
        Alpha; NaN when undefined (fewer than two pairable values, or no expected
        disagreement).

    Examples
    --------
    >>> from iaa_frames.stats.krippendorff import nominal_alpha_from_codes
    >>> units = [0, 0, 1, 1, 2, 2]
    >>> values = [0, 0, 1, 1, 0, 1]
    >>> round(nominal_alpha_from_codes(units, values), 4)
    0.4444
    """
    unit_codes, value_codes = _validate_codes(unit_codes, value_codes)
    return _nominal_alpha_core(unit_codes, value_codes)


def binary_alpha_per_category(unit_codes, value_codes, *, n_categories=None):
    """Binary alpha of every category at once, from the same unit x value counts.

    For category ``c`` the values are recoded to {c, other} (how Krippendorff assesses
    the reliability of a single category); each unit then holds ``n_uc`` and
    ``m_u - n_uc`` values, so::

        alpha_c = 1 - (n - 1) sum_u n_uc (m_u - n_uc) / (m_u - 1) / (n_c (n - n_c))

    Parameters
    ----------
    unit_codes, value_codes : array-like of int, shape (n_values,)
        As in :func:`nominal_alpha_from_codes`.
    n_categories : int, optional
        Length of the result; must exceed the largest value code. Defaults to the
        largest value code + 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_categories,)``. NaN for a category that no pairable value uses, or
        that every pairable value uses.

    Examples
    --------
    >>> from iaa_frames.stats.krippendorff import binary_alpha_per_category
    >>> units = [0, 0, 1, 1, 2, 2]
    >>> values = [0, 0, 1, 2, 2, 2]
    >>> binary_alpha_per_category(units, values).round(4)
    array([1.    , 0.    , 0.4444])
    """
    unit_codes, value_codes = _validate_codes(unit_codes, value_codes)
    n_categories = _n_categories(value_codes, n_categories)
    pairing, n, n_c = _tallies(unit_codes, value_codes, n_categories)
    observed_c = np.asarray(pairing.sum(axis=0)).ravel()
    return _binary_alpha(n, n_c, observed_c)


# ------------------------------------------------------------------ formula helpers


def _unit_value_counts(unit_codes, value_codes, n_units, n_categories):
    """Sparse ``n_uc`` (units x categories) restricted to pairable units, and ``m_u``."""
    ones = np.ones(unit_codes.size, dtype=np.float64)
    counts = sp.csr_matrix((ones, (unit_codes, value_codes)), shape=(n_units, n_categories))
    counts.sum_duplicates()
    m = np.asarray(counts.sum(axis=1)).ravel()
    unpairable = m < 2
    if unpairable.any():
        counts = sp.diags(np.where(unpairable, 0.0, 1.0)) @ counts
        counts.eliminate_zeros()
        m = np.where(unpairable, 0.0, m)
    return sp.csr_matrix(counts), m


def _pairing_disagreement(counts, m):
    """Sparse ``n_uc (m_u - n_uc) / (m_u - 1)``: unit ``u``'s pairable disagreements
    involving category ``c``, per pairing opportunity."""
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    m_row = m[rows]
    pairing = counts.copy()
    pairing.data = counts.data * (m_row - counts.data) / (m_row - 1.0)
    return pairing


def nominal_disagreements(n, n_c, o):
    """Observed and expected disagreement of nominal values, from pairable totals.

    ``D_o = o / n`` and ``D_e = (n^2 - sum_c n_c^2) / (n (n - 1))``, where ``n`` is the
    number of pairable values, ``n_c`` their count per category (last axis) and ``o`` the
    coincidence mass off the diagonal, ``sum_u [sum_c n_uc (m_u - n_uc)] / (m_u - 1)``.
    NaN where ``n <= 1``. Arrays broadcast (a leading replicate axis, cells).

    Examples
    --------
    Two units of two values, one agreeing (a, a), one not (a, b):

    >>> d_o, d_e = nominal_disagreements(4.0, np.array([3.0, 1.0]), 2.0)
    >>> float(d_o), float(d_e), float(1 - d_o / d_e)
    (0.5, 0.5, 0.0)
    """
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = o / n
        d_e = (n * n - np.sum(n_c * n_c, axis=-1)) / (n * (n - 1.0))
    return np.where(n > 1, d_o, np.nan), np.where(n > 1, d_e, np.nan)


def binary_disagreements(n, n_c, o_c):
    """Observed and expected disagreement for the two values {c, other}.

    ``D_o = 2 o_c / n`` and ``D_e = 2 n_c (n - n_c) / (n (n - 1))``, where ``o_c`` is the
    mass of c-other coincidences in one direction,
    ``sum_u n_uc (m_u - n_uc) / (m_u - 1)``. NaN where ``n <= 1``.

    Examples
    --------
    >>> d_o, d_e = binary_disagreements(4.0, 3.0, 1.0)
    >>> float(d_o), float(d_e)
    (0.5, 0.5)
    """
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = 2.0 * o_c / n
        d_e = 2.0 * n_c * (n - n_c) / (n * (n - 1.0))
    return np.where(n > 1, d_o, np.nan), np.where(n > 1, d_e, np.nan)


def _alpha(d_o, d_e, n):
    """``alpha = 1 - D_o / D_e``, NaN where undefined (D_e = 0 or n < 2)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - d_o / d_e
    alpha = np.where((d_e > 0) & (n >= 2), alpha, np.nan)
    return float(alpha) if alpha.ndim == 0 else alpha


def _binary_alpha(n, n_c, observed_c):
    """``alpha_c = 1 - D_o / D_e`` for {c, other} (:func:`binary_disagreements`)."""
    n = np.asarray(n, dtype=np.float64)
    d_o, d_e = binary_disagreements(n, np.asarray(n_c, dtype=np.float64), observed_c)
    return _alpha(d_o, d_e, n)


def _tallies(unit_codes, value_codes, n_categories):
    """The pairing disagreement of every unit and value (:func:`_pairing_disagreement`),
    the number of pairable values ``n`` and each value's count ``n_c``."""
    n_units = int(unit_codes.max()) + 1 if unit_codes.size else 0
    counts, m = _unit_value_counts(unit_codes, value_codes, n_units, n_categories)
    return _pairing_disagreement(counts, m), m.sum(), np.asarray(counts.sum(axis=0)).ravel()


def _nominal_alpha_core(unit_codes, value_codes):
    """Validated codes -> alpha."""
    n_categories = int(value_codes.max()) + 1 if value_codes.size else 0
    pairing, n, n_c = _tallies(unit_codes, value_codes, n_categories)
    unit_disagreement = np.asarray(pairing.sum(axis=1)).ravel()
    d_o, d_e = nominal_disagreements(n, n_c, unit_disagreement.sum())
    return _alpha(d_o, d_e, n)


# ------------------------------------------------------------------------ validation


def _codes_from_tidy(df, unit, annotator, value):
    missing = [c for c in (unit, annotator, value) if c not in df.columns]
    if missing:
        raise SchemaError(
            f"nominal_alpha: the frame lacks column(s) {missing}; it needs one row per "
            f"value with columns {[unit, annotator, value]!r} (pass unit=, annotator=, "
            "value= to name others; for an annotators x units matrix pass an array, "
            "e.g. df.to_numpy())"
        )
    rows = df.loc[df[value].notna(), [unit, annotator, value]]
    for col in (unit, annotator):  # a value of no unit, or of nobody, pairs with nothing
        if rows[col].isna().any():
            raise InvalidAnnotationError(
                f"nominal_alpha: column {col!r} is NA in row(s) "
                f"{list(rows.index[rows[col].isna()][:5])}"
            )
    try:
        dup = rows.duplicated([unit, annotator], keep=False)
        unit_codes = pd.factorize(rows[unit])[0].astype(np.int64)
        value_codes = pd.factorize(rows[value])[0].astype(np.int64)
    except TypeError:  # a list, dict or set: no code can stand for it
        raise ParameterError(_unhashable(rows)) from None
    if dup.any():
        raise InvalidAnnotationError(
            "nominal_alpha: an annotator gives more than one value for the same unit "
            f"in rows {list(rows.index[dup][:5])}; Krippendorff's alpha takes at most "
            "one value per annotator and unit"
        )
    return unit_codes, value_codes


def _unhashable(rows: pd.DataFrame) -> str:
    """The error of a frame holding a unit, annotator or value that cannot be compared
    (looked for after the codes failed)."""
    for col in rows.columns:
        for at, v in zip(rows.index, rows[col].to_numpy(dtype=object)):
            try:
                hash(v)
            except TypeError:
                return (
                    f"nominal_alpha: column {col!r} holds {v!r} ({type(v).__name__}) in row "
                    f"{at!r}; values are compared for equality: give a number or a text "
                    "(a set of choices: frozenset, or iaa_frames.stats.masi)"
                )
    return "nominal_alpha: a unit, annotator or value cannot be compared for equality"


def _codes_from_matrix(data):
    if isinstance(data, (str, bytes, dict)):
        raise ParameterError(
            "nominal_alpha: data must be a tidy DataFrame or an annotators x units "
            f"2-D array-like, got {type(data).__name__}"
        )
    try:
        arr = np.asarray(data)
    except (ValueError, TypeError) as exc:
        raise ParameterError(
            "nominal_alpha: data must be a tidy DataFrame or a rectangular annotators x "
            f"units 2-D array-like ({exc})"
        ) from None
    if arr.ndim != 2:
        raise ParameterError(
            "nominal_alpha: an array must be 2-D (annotators x units), got "
            f"{arr.ndim} dimension(s) with shape {arr.shape}"
        )
    if arr.dtype.kind not in "biufOUSM":
        raise ParameterError(f"nominal_alpha: unsupported array dtype {arr.dtype}")
    present = ~np.asarray(pd.isna(arr), dtype=bool)
    _, unit_idx = np.nonzero(present)  # row-major: annotator by annotator
    values = arr[present]
    try:
        value_codes = pd.factorize(values)[0].astype(np.int64)
    except TypeError:  # an object array holding lists or dicts
        kind = next(type(v).__name__ for v in values if not _hashable(v))
        raise ParameterError(
            f"nominal_alpha: the array holds a {kind}; values are compared for equality: "
            "give numbers or texts"
        ) from None
    return unit_idx.astype(np.int64), value_codes


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _as_int_codes(x, name):
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ParameterError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise ParameterError(f"{name} must hold integer codes, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and arr.min() < 0:
        raise ParameterError(f"{name} must be non-negative, got {arr.min()}")
    return arr


def _validate_codes(unit_codes, value_codes):
    units = _as_int_codes(unit_codes, "unit_codes")
    values = _as_int_codes(value_codes, "value_codes")
    if units.size != values.size:
        raise ParameterError(
            f"unit_codes and value_codes must have the same length, got {units.size} "
            f"and {values.size}"
        )
    return units, values


def _n_categories(value_codes, n_categories):
    needed = int(value_codes.max()) + 1 if value_codes.size else 0
    if n_categories is None:
        return needed
    if isinstance(n_categories, (bool, np.bool_)) or not isinstance(
        n_categories, (int, np.integer)
    ):
        raise ParameterError(f"n_categories must be an integer, got {n_categories!r}")
    if n_categories < needed:
        raise ParameterError(f"n_categories={n_categories} but value_codes use {needed} categories")
    return int(n_categories)
