"""A frame with a duplicated column name is refused by every entry point with a
:class:`~iaa_frames.errors.SchemaError` naming the column
(:func:`iaa_frames.frame.schema.require_unique_columns`), not with the pandas error of
the first step that reads ``df["item"]`` (a frame, not a column): "Grouper for 'item' not
1-dimensional", "'DataFrame' object has no attribute 'dtype'"."""

from __future__ import annotations

import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import SchemaError

FAST = dict(n_chance=50)


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=6, seed=0)


CALLS = {
    "agreement": lambda d: iaf.agreement(d, n_boot=0, **FAST),
    "sigma": lambda d: iaf.sigma(d, n_boot=0, **FAST),
    "pairwise": lambda d: iaf.pairwise(d, n_boot=0, **FAST),
    "pair_tables": lambda d: iaf.pair_tables(d, **FAST),
    "items": lambda d: iaf.items(d, **FAST),
    "conflicts": lambda d: iaf.conflicts(d, **FAST),
    "annotator_quality": lambda d: iaf.annotator_quality(d, n_boot=0),
    "df.iaa.agreement": lambda d: d.iaa.agreement(n_boot=0, **FAST),
    "df.iaa.items": lambda d: d.iaa.items(**FAST),
    "validate": lambda d: iaf.validate(d),
}


@pytest.mark.parametrize("column", ["item", "annotator", "label"])
@pytest.mark.parametrize("call", list(CALLS))
def test_a_duplicated_column_is_a_schema_error_naming_it(df, column, call):
    doubled = pd.concat([df, df[[column]]], axis=1)
    with pytest.raises(SchemaError, match=rf"duplicate column name\(s\): \['{column}'\]"):
        CALLS[call](doubled)


def test_the_frame_is_left_as_it_was(df):
    doubled = pd.concat([df, df[["item"]]], axis=1)
    before = doubled.copy()
    with pytest.raises(SchemaError):
        iaf.agreement(doubled, n_boot=0, **FAST)
    pd.testing.assert_frame_equal(doubled, before)
