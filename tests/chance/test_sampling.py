"""Sorted-key helpers of the chance sampling (iaa_frames.chance.sampling), by brute force."""

import numpy as np
import pytest

from iaa_frames.chance.sampling import rank_in_group, union_sorted


@pytest.mark.parametrize("seed", range(20))
def test_union_sorted_is_the_sorted_distinct_union(seed):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 1 + rng.integers(1, 500), rng.integers(0, 200)))
    values = rng.integers(0, 600, rng.integers(0, 200))
    got = union_sorted(keys, values)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.array(sorted(set(keys) | set(values)), dtype=np.int64))


def test_rank_in_group_is_the_position_after_the_first_of_the_run():
    g = np.array([0, 0, 0, 2, 5, 5, 9])
    np.testing.assert_array_equal(rank_in_group(g), np.arange(len(g)) - np.searchsorted(g, g))


@pytest.mark.parametrize("seed", range(5))
def test_union_of_increasing_is_the_sorted_distinct_union(seed):
    from iaa_frames.chance.population import union_of_increasing

    rng = np.random.default_rng(seed)
    for n, m in ((0, 5), (5, 0), (1, 1), (300, 200), (2000, 3000)):
        x = np.unique(rng.integers(0, 4 * (n + m) + 1, n))
        y = np.unique(rng.integers(0, 4 * (n + m) + 1, m))
        np.testing.assert_array_equal(union_of_increasing(x, y), np.union1d(x, y))
        shuffled = rng.permutation(np.r_[x, x[: n // 3]])  # not increasing: sorted
        np.testing.assert_array_equal(union_of_increasing(shuffled, y), np.union1d(x, y))
