"""Hostile review, round 6: frames and parameters that reached a raw pandas or numpy error,
or a silently wrong figure, through the public functions.

* a frame indexed by its own ``item`` column (``df.set_index(["item", ...], drop=False)``)
  stopped every agreement function with pandas' "'item' is both an index level and a column
  label, which is ambiguous" (a ``ValueError`` from the comparability check);
* a frame with two-level columns (a ``MultiIndex``, as ``pd.concat(..., axis=1, keys=...)``
  or a pivot gives) reached ``AttributeError: 'DataFrame' object has no attribute 'dtype'``
  from inside :func:`iaa_frames.validate`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import SchemaError

FAST = dict(n_boot=0, n_chance=50)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=8, seed=3).drop(columns="truth_id")


def _figures(result):
    """The agreement figures of a result (Dataset) or of a slice of it (DataArray)."""
    return np.asarray(result["agreement"] if hasattr(result, "data_vars") else result)


def _indexed_by_item(df):
    return df.set_index([df["item"].rename("item"), pd.RangeIndex(len(df))])


@pytest.mark.parametrize(
    "call",
    [
        lambda d: iaf.agreement(d, **FAST),
        lambda d: iaf.sigma(d, **FAST),
        lambda d: d.iaa.agreement(**FAST),
        lambda d: iaf.annotator_quality(d, n_boot=0),
    ],
    ids=["agreement", "sigma", "accessor", "annotator_quality"],
)
def test_an_index_level_named_item_beside_the_column_is_no_error(df, call):
    indexed = _indexed_by_item(df)
    assert indexed.index.names[0] == "item" and "item" in indexed.columns
    got, want = call(indexed), call(df)
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True))
    else:
        np.testing.assert_array_equal(_figures(got), _figures(want))


@pytest.mark.parametrize(
    "call",
    [
        iaf.validate,
        iaf.check,
        lambda d: iaf.agreement(d, **FAST),
        lambda d: iaf.sigma(d, **FAST),
        lambda d: d.iaa.agreement(**FAST),
    ],
    ids=["validate", "check", "agreement", "sigma", "accessor"],
)
def test_two_level_columns_are_a_schema_error_saying_how_to_flatten(df, call):
    two = df.copy()
    two.columns = pd.MultiIndex.from_arrays([df.columns, ["v"] * df.shape[1]])
    with pytest.raises(SchemaError, match=r"2 levels \(a MultiIndex.*flatten"):
        call(two)


def test_two_level_columns_without_item_on_top_name_the_levels_too(df):
    two = df.copy()
    two.columns = pd.MultiIndex.from_arrays([["v"] * df.shape[1], df.columns])
    with pytest.raises(SchemaError, match=r"MultiIndex.*get_level_values"):
        iaf.agreement(two, **FAST)
