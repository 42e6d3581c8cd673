"""Tests for iaa_frames.arrays: sorted_unique is numpy.unique, dtype and all."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays, integer_dtypes

from iaa_frames.arrays import ranges, sorted_unique, stable_argsort, unique_inverse


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


@settings(max_examples=80, deadline=None)
@given(arrays(integer_dtypes(), st.integers(0, 60)))
def test_unique_inverse_equals_numpy_on_every_integer_dtype(values):
    # the packed sort offsets by the minimum: int8 ranges over 127, uint64 over 2**63
    u, inv = unique_inverse(values)
    nu, ninv = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(u, nu)
    np.testing.assert_array_equal(inv, ninv.ravel())
    assert u.dtype == nu.dtype


def test_sorted_unique_of_sorted_and_of_small_codes():
    # already sorted: no sort; small non-negative codes: counted
    a = np.repeat(np.arange(-3, 50, 2), 3)
    np.testing.assert_array_equal(sorted_unique(a), np.unique(a))
    codes = np.array([4, 0, 4, 2, 2], dtype=np.uint16)
    assert sorted_unique(codes).tolist() == [0, 2, 4]
    assert sorted_unique(codes).dtype == np.uint16


def test_counting_keeps_extreme_codes():
    # small ranges far from 0 are counted from their minimum, in every dtype
    for a in (
        np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64),
        np.array([-(2**63), -(2**63) + 2, -(2**63)], dtype=np.int64),
        np.array([-128, 127, -128], dtype=np.int8),
        np.array([-1, 8, -1, 3], dtype=np.int64),
    ):
        u, inv = unique_inverse(a)
        nu, ninv = np.unique(a, return_inverse=True)
        np.testing.assert_array_equal(u, nu)
        np.testing.assert_array_equal(inv, ninv.ravel())
        np.testing.assert_array_equal(sorted_unique(a), nu)
        assert u.dtype == nu.dtype == sorted_unique(a).dtype


def test_ranges_is_the_concatenation_of_the_ranges():
    rng = np.random.default_rng(0)
    start, count = rng.integers(-50, 50, 200), rng.integers(0, 6, 200)
    want = np.concatenate([np.arange(s, s + c) for s, c in zip(start, count, strict=True)])
    np.testing.assert_array_equal(ranges(start, count), want)
    assert ranges(np.zeros(0, int), np.zeros(0, int)).size == 0


@settings(max_examples=300, deadline=None)
@given(
    arrays(
        np.float64,
        st.integers(0, 300),
        elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-300])
        | st.floats(allow_nan=True, allow_infinity=True),
    )
)
def test_stable_argsort_equals_numpy_stable_on_floats(values):
    # ties (few distinct values, 0.0 and -0.0), NaNs and infinities included
    assert np.array_equal(stable_argsort(values), np.argsort(values, kind="stable"))


@settings(max_examples=100, deadline=None)
@given(arrays(integer_dtypes(), st.integers(0, 200), elements=st.integers(-3, 3)))
def test_stable_argsort_equals_numpy_stable_on_integers(values):
    assert np.array_equal(stable_argsort(values), np.argsort(values, kind="stable"))


def test_stable_argsort_of_a_million_distinct_and_tied_floats():
    rng = np.random.default_rng(0)
    for x in (rng.random(1_000_000), np.round(rng.random(1_000_000), 3)):
        assert np.array_equal(stable_argsort(x), np.argsort(x, kind="stable"))
