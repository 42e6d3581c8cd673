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


@pytest.mark.parametrize("groups", [False, True])
def test_valid_pairings_from_packed_codes_are_those_of_the_codes(groups):
    from iaa_frames.chance.population import valid_pairings
    from iaa_frames.matching.corpus import Slices

    rng = np.random.default_rng(7)
    n = 3_000
    item = np.r_[rng.integers(0, 400, n), -1]
    ann = np.r_[rng.integers(0, 9, n), -1]
    group = np.r_[rng.integers(0, 50, n), -1] if groups else None
    slots = Slices(np.zeros(n + 1, np.int64), np.ones(n + 1, np.int64), item, ann, group=group)
    a, b = rng.integers(0, n + 1, 50_000), rng.integers(0, n + 1, 50_000)  # the empty one too
    g = item if group is None else group
    want = (g[a] != g[b]) & (ann[a] != ann[b])
    assert slots.group_annotator is not None
    np.testing.assert_array_equal(valid_pairings(slots, a, b), want)
    np.testing.assert_array_equal(valid_pairings(slots, a[:100], b[:100]), want[:100])
