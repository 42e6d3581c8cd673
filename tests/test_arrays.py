"""Tests for iaa_frames.arrays: sorted_unique is numpy.unique, dtype and all."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays, integer_dtypes

from iaa_frames.arrays import sorted_unique, unique_inverse


@settings(max_examples=80, deadline=None)
@given(arrays(integer_dtypes(), st.tuples(st.integers(0, 40), st.integers(1, 3))))
def test_equals_numpy_unique_on_integers(values):
    out, expected = sorted_unique(values), np.unique(values)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def test_other_dtypes_go_to_numpy_unique():
    x = np.array([0.5, np.nan, 0.5, -1.0, np.nan])
    np.testing.assert_array_equal(sorted_unique(x), np.unique(x))
    assert sorted_unique(np.array(["b", "a", "b"])).tolist() == ["a", "b"]
    assert sorted_unique(np.array([True, False, True])).tolist() == [False, True]
    assert sorted_unique(np.zeros(0, np.int64)).dtype == np.int64


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 200), max_size=60) | st.lists(st.integers(-5, 10**12), max_size=60))
def test_unique_inverse_equals_numpy(values):
    a = np.array(values, dtype=np.int64)
    u, inv = unique_inverse(a)
    nu, ninv = np.unique(a, return_inverse=True)
    np.testing.assert_array_equal(u, nu)
    np.testing.assert_array_equal(inv, ninv.ravel())
    assert u.dtype == nu.dtype
