"""Hostile review, round 6: box corners of a dtype that holds no coordinate.

A complex column was cast to float with numpy's ``ComplexWarning`` leaking to the user
(the imaginary part dropped), a boolean column was read as the coordinates 0 and 1, and
a datetime column as nanoseconds since 1970 (reported as inverted boxes). Each is now the
row reason ``non_numeric_coordinates``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import InvalidAnnotationError


@pytest.fixture(scope="module")
def df():
    return iaf.simulate(n_items=5, seed=2).drop(columns=["truth_id", "object_id"])


@pytest.mark.parametrize(
    "convert",
    [
        lambda s: s + 0j,
        lambda s: (s + 0j).astype(object),
        lambda s: s > 100,
        lambda s: (s > 100).astype("boolean"),
        lambda s: pd.to_datetime(s, unit="s"),
        lambda s: pd.to_timedelta(s, unit="s"),
    ],
    ids=["complex", "complex-objects", "bool", "boolean", "datetime", "timedelta"],
)
def test_a_corner_column_of_no_coordinates_is_invalid_without_a_numpy_warning(df, convert):
    bad = df.assign(x0=convert(df["x0"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        res = iaf.check(bad)
    objects = int(iaf.is_object(df).sum())
    assert res.counts == {"non_numeric_coordinates": objects}
    with pytest.raises(InvalidAnnotationError, match="a box coordinate is not a number"):
        iaf.agreement(bad, n_boot=0, n_chance=50)


def test_integer_float32_and_text_numbers_are_still_coordinates(df):
    for convert in (
        lambda s: s.round().astype(np.int64),
        lambda s: s.astype(np.float32),
        lambda s: s.astype(str),
    ):
        assert iaf.check(df.assign(x0=convert(df["x0"]))).counts == {}
