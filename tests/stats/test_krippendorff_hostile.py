"""Hostile review, round 6: ``iaf.nominal_alpha`` on values it cannot pair.

* A row whose ``annotator`` was missing counted as a value (alpha 1.0 from it) while a
  missing ``unit`` was an error; both are now ``InvalidAnnotationError``.
* A list or dict value (a frame column of choices, an object array) was a raw
  ``TypeError: unhashable type`` from pandas; it is a ``ParameterError`` naming it.
"""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import InvalidAnnotationError, ParameterError


def test_a_value_of_no_annotator_is_refused_like_a_value_of_no_unit():
    df = pd.DataFrame(
        {"unit": [1, 1, 2, 2], "annotator": ["a", np.nan, "a", "b"], "value": [1, 1, 2, 2]}
    )
    with pytest.raises(InvalidAnnotationError, match=r"column 'annotator' is NA in row\(s\) \[1\]"):
        iaf.nominal_alpha(df)


@pytest.mark.parametrize("bad", [[1], {"k": 1}], ids=["list", "dict"])
def test_an_uncomparable_value_in_a_frame_is_a_parameter_error(bad):
    df = pd.DataFrame(
        {"unit": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "value": [bad, 1, 2, 2]}
    )
    kind = type(bad).__name__
    with pytest.raises(ParameterError, match=rf"column 'value' holds .* \({kind}\) in row 0"):
        iaf.nominal_alpha(df)


def test_an_uncomparable_value_in_an_array_is_a_parameter_error():
    arr = np.empty((2, 2), dtype=object)
    arr[:] = [[[1], 2], [[1], 2]]
    with pytest.raises(ParameterError, match="the array holds a list"):
        iaf.nominal_alpha(arr)


def test_frozensets_are_values_like_any_other():
    a, b = frozenset({"x"}), frozenset({"y"})
    df = pd.DataFrame(
        {"unit": [1, 1, 2, 2, 3, 3], "annotator": list("ababab"), "value": [a, a, b, b, a, b]}
    )
    assert iaf.nominal_alpha(df) == pytest.approx(
        iaf.nominal_alpha(df.assign(value=["x", "x", "y", "y", "x", "y"]))
    )
