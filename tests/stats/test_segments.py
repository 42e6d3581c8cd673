"""Entries grouped by cell: the merged order and the first largest value of every cell
equal numpy.lexsort's, ties and empty cells included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.stats.segments import first_argmax, merged_order, sorted_by_cell


def _side(rng, n, n_cells, n_values):
    # few distinct values, so that ties within and across the sides are common
    cell = np.sort(rng.integers(0, n_cells, n))
    value = rng.integers(0, n_values, n) / 4.0
    order = np.lexsort((value, cell))
    return value[order], cell[order]


SIDES = st.tuples(st.integers(0, 60), st.integers(0, 60), st.integers(1, 6), st.integers(1, 8))


@settings(max_examples=200, deadline=None)
@given(SIDES, st.integers(0, 2**32 - 1))
def test_merged_order_is_lexsorts_stable_order(sizes, seed):
    n_a, n_b, n_cells, n_values = sizes
    rng = np.random.default_rng(seed)
    a, ca = _side(rng, n_a, n_cells, n_values)
    b, cb = _side(rng, n_b, n_cells, n_values)
    want = np.lexsort((np.r_[a, b], np.r_[ca, cb]))
    assert merged_order(a, ca, b, cb).tolist() == want.tolist()


@pytest.mark.parametrize("n_a, n_b", [(200_000, 700), (700, 200_000)])
def test_merged_order_of_many_against_a_few(n_a, n_b):
    # either side the larger (the engine's chance entries outnumber the within ones)
    rng = np.random.default_rng(1)
    a, ca = _side(rng, n_a, 30, 5000)
    b, cb = _side(rng, n_b, 30, 5000)
    want = np.lexsort((np.r_[a, b], np.r_[ca, cb]))
    assert np.array_equal(merged_order(a, ca, b, cb), want)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 50), st.integers(1, 5), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_first_argmax_is_lexsorts_first_of_each_cell(n, n_cells, n_values, seed):
    rng = np.random.default_rng(seed)
    cell = np.sort(rng.integers(0, n_cells, n))
    value = rng.integers(0, n_values, n).astype(float)
    top = np.lexsort((np.arange(n), -value, cell))
    want = top[np.r_[True, cell[top][1:] != cell[top][:-1]]]
    assert first_argmax(value, cell).tolist() == want.tolist()


def test_first_argmax_leaves_nan_to_the_caller():
    assert first_argmax(np.array([0.1, np.nan]), np.array([0, 0])) is None


def test_sorted_by_cell_rejects_unsorted_values_and_nan():
    assert sorted_by_cell(np.array([0.2, 0.3, 0.1]), np.array([0, 0, 1]))
    assert not sorted_by_cell(np.array([0.3, 0.2]), np.array([0, 0]))
    assert not sorted_by_cell(np.array([0.1, 0.2]), np.array([1, 0]))
    assert not sorted_by_cell(np.array([0.1, np.nan]), np.array([0, 0]))
