"""Levels of measurement of per-object attributes, and their values as codes.

Which distance Krippendorff's α of an attribute uses (:func:`infer_level` from the
column, or given), and the column turned into what the sums of
:mod:`iaa_frames.measures.attribute_cells` take (:func:`attribute_codes`): category codes
for nominal, ordinal and set values (with the sets' MASI distances), centred and scaled
numbers for interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.stats.krippendorff_levels import LEVELS as VALUE_LEVELS
from iaa_frames.stats.masi import as_set, masi_matrix

__all__ = ["LEVELS", "MAX_ORDINAL_CATEGORIES", "attribute_codes", "chosen_levels", "infer_level"]

#: The levels of measurement of an attribute: Krippendorff's three for single values, and
#: "masi" for sets of choices (:mod:`iaa_frames.stats.masi`).
LEVELS = (*VALUE_LEVELS, "masi")
#: The most categories an ordinal attribute may have (its coincidences grow with C^2).
MAX_ORDINAL_CATEGORIES = 200


def infer_level(values: pd.Series) -> str:
    """The level of measurement a column implies: an ordered Categorical is ordinal;
    numbers (not booleans) are interval; a column whose values are lists, tuples or sets
    (several choices of one question) is "masi"; booleans, strings, unordered
    Categoricals and anything else nominal.

    Examples
    --------
    >>> infer_level(pd.Series([True, False])), infer_level(pd.Series([1.5, 2.0]))
    ('nominal', 'interval')
    >>> infer_level(pd.Series(pd.Categorical(["lo", "hi"], ["lo", "hi"], ordered=True)))
    'ordinal'
    >>> infer_level(pd.Series([["a", "b"], ["a"], None]))
    'masi'
    """
    dtype = values.dtype
    if pd.api.types.is_object_dtype(dtype):
        present = values.dropna()
        if (
            len(present)
            and present.map(lambda v: isinstance(v, (list, tuple, set, frozenset))).all()
        ):
            return "masi"
    if isinstance(dtype, pd.CategoricalDtype):
        return "ordinal" if dtype.ordered else "nominal"
    if pd.api.types.is_bool_dtype(dtype):
        return "nominal"
    if pd.api.types.is_numeric_dtype(dtype):
        return "interval"
    return "nominal"


def _hashable(v):
    """A list of choices as a tuple, sorted where its items compare (a set of choices)."""
    if not isinstance(v, (list, tuple)):
        return v
    items = [_hashable(x) for x in v]
    try:
        return tuple(sorted(items))
    except TypeError:
        return tuple(items)


def attribute_codes(name: str, values: pd.Series, level: str):
    """``(codes or values, n_categories, distances)`` of a column at a level: category
    codes (-1 missing) for nominal, ordinal and masi (the distinct sets, with their
    ``(C, C)`` MASI distances; None at the other levels), centred and scaled floats (NaN
    missing) for interval."""
    if level == "masi":
        sets = values.map(as_set, na_action="ignore")
        codes, uniques = pd.factorize(sets, use_na_sentinel=True)
        return codes.astype(np.int64), len(uniques), masi_matrix(uniques)
    codes, n = _value_codes(name, values, level)
    return codes, n, None


def _value_codes(name: str, values: pd.Series, level: str):
    """:func:`attribute_codes` of nominal, ordinal and interval values."""
    if level == "nominal":
        try:
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
        except TypeError:  # lists (several choices): compared as sets
            codes, uniques = pd.factorize(values.map(_hashable, na_action="ignore"))
        return codes.astype(np.int64), len(uniques)
    if isinstance(values.dtype, pd.CategoricalDtype):
        if level == "ordinal":
            if not values.dtype.ordered:
                raise ParameterError(
                    f"attribute {name!r}: ordinal needs an order; make it an ordered "
                    "Categorical (pd.Categorical(..., categories=[low, ..., high], ordered=True))"
                )
            codes = values.cat.codes.to_numpy(np.int64)
            return codes, len(values.dtype.categories)
        values = values.astype(object)
    numbers = pd.to_numeric(values.astype(object), errors="coerce").astype(np.float64)
    bad = values.notna().to_numpy() & ~np.isfinite(numbers.to_numpy())
    if bad.any():
        first = values[bad].iloc[0]
        raise ParameterError(
            f"attribute {name!r} is {level} but holds {first!r}, not a finite number "
            "(an ordinal attribute of words: an ordered Categorical)"
        )
    x = numbers.to_numpy()
    if level == "ordinal":
        uniq = np.unique(x[np.isfinite(x)])
        if len(uniq) > MAX_ORDINAL_CATEGORIES:
            raise ParameterError(
                f"attribute {name!r} has {len(uniq)} distinct values: too many for ordinal "
                f"(at most {MAX_ORDINAL_CATEGORIES}); pass levels={{{name!r}: 'interval'}}"
            )
        codes = np.where(np.isfinite(x), np.searchsorted(uniq, np.nan_to_num(x)), -1)
        return codes.astype(np.int64), len(uniq)
    present = np.isfinite(x)
    if present.any():
        x = x - x[present].mean()
        scale = np.abs(x[present]).max()
        x = x / scale if scale > 0 else x
    return x, 0


def chosen_levels(df, names, levels) -> tuple[dict, dict]:
    if levels is None:
        levels = {}
    elif isinstance(levels, str):
        levels = dict.fromkeys(names, levels)
    elif not isinstance(levels, dict):
        raise ParameterError(
            f"levels must be None, a level or a dict {{attribute: level}}, got {levels!r}"
        )
    unknown = [k for k in levels if k not in names]
    if unknown:
        raise ParameterError(f"levels names {unknown}, which are not among the attributes {names}")
    for k, v in levels.items():
        if v not in LEVELS:
            raise ParameterError(f"levels[{k!r}] must be one of {LEVELS}, got {v!r}")
    chosen = {n: levels.get(n) or infer_level(df[n]) for n in names}
    source = {n: "given" if n in levels else f"inferred from dtype {df[n].dtype}" for n in names}
    return chosen, source
