"""Sorted-key helpers of the chance sampling (iaa_frames.core.chance.sampling), by brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.core.chance import sampling
from iaa_frames.core.chance.sampling import rank_in_group, union_sorted


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
    from iaa_frames.core.chance.population import union_of_increasing

    rng = np.random.default_rng(seed)
    for n, m in ((0, 5), (5, 0), (1, 1), (300, 200), (2000, 3000)):
        x = np.unique(rng.integers(0, 4 * (n + m) + 1, n))
        y = np.unique(rng.integers(0, 4 * (n + m) + 1, m))
        np.testing.assert_array_equal(union_of_increasing(x, y), np.union1d(x, y))
        shuffled = rng.permutation(np.r_[x, x[: n // 3]])  # not increasing: sorted
        np.testing.assert_array_equal(union_of_increasing(shuffled, y), np.union1d(x, y))


@pytest.mark.parametrize("groups", [False, True])
def test_valid_pairings_from_packed_codes_are_those_of_the_codes(groups):
    from iaa_frames.core.chance.population import valid_pairings
    from iaa_frames.core.matching.corpus import Slices

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


def _slots(rng, n, n_items, n_annotators, groups=False):
    from iaa_frames.core.matching.corpus import Slices

    item = np.r_[rng.integers(0, n_items, n), -1]
    ann = np.r_[rng.integers(0, n_annotators, n), -1]
    group = np.r_[rng.integers(0, max(n_items // 3, 1), n), -1] if groups else None
    return Slices(np.zeros(n + 1, np.int64), np.ones(n + 1, np.int64), item, ann, group=group)


@pytest.mark.parametrize("block", [1_000, 262_144])
def test_valid_pairings_with_repeat_are_those_of_the_repeated_slots(block, monkeypatch):
    from iaa_frames.core.chance import population
    from iaa_frames.core.chance.population import valid_pairings

    monkeypatch.setattr(population, "_BLOCK", block)  # several blocks, or one
    rng = np.random.default_rng(3)
    slots = _slots(rng, 2_000, 300, 5)
    for n_rows in (10, 3_000):  # few pairings, then enough for the packed codes
        a = rng.integers(0, 2_000, n_rows)
        rep = rng.integers(0, 5, n_rows)
        b = rng.integers(0, 2_000, rep.sum())
        a_all = np.repeat(a, rep)
        want = (slots.item[a_all] != slots.item[b]) & (slots.annotator[a_all] != slots.annotator[b])
        np.testing.assert_array_equal(valid_pairings(slots, a, b, repeat=rep), want)
        np.testing.assert_array_equal(valid_pairings(slots, a_all, b), want)


@pytest.mark.parametrize("seed", range(12))
def test_lexsorted_by_group_is_the_lexsort(seed):
    from iaa_frames.core.chance import sampling

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 5_000))
    r = rng.random(n)
    g = rng.integers(0, int(rng.integers(1, 40)), n)  # not sorted
    cases = [(r, g), (r, np.sort(g))]
    cases.append((rng.integers(0, 4, n) / 4, g))  # many exact ties of r: by position
    # top bits of r tie, low bits differ: groups up to 2**24 leave r fewer than 53 bits
    cases.append(((2**40 + rng.integers(0, 8, n)) * 2.0**-53, rng.integers(0, 2**24, n)))
    cases.append((r, rng.integers(0, 2**45, n)))  # too many groups: the lexsort
    cases.append((r * 3 - 1, g))  # r outside [0, 1): the lexsort
    for rr, gg in cases:
        want = np.lexsort((rr, gg))
        np.testing.assert_array_equal(sampling.lexsorted_by_group(rr, gg), want)
        index = np.cumsum(rng.integers(1, 1_000, n))  # increasing, stands for positions
        np.testing.assert_array_equal(sampling.lexsorted_by_group(rr, gg, index=index), index[want])


def _pools(rng, n_slots, n_groups, shuffle=False):
    """CSR pools of random distinct slots per group (groups may share slots), sorted
    unless ``shuffle``."""
    count = rng.integers(0, 60, n_groups)
    count[rng.random(n_groups) < 0.2] = int(rng.integers(0, 2))  # empty or one slot
    parts = [np.sort(rng.choice(n_slots, min(int(c), n_slots), replace=False)) for c in count]
    if shuffle:
        parts = [rng.permutation(p) for p in parts]
    count = np.array([len(p) for p in parts], np.int64)
    start = np.r_[0, np.cumsum(count)[:-1]].astype(np.int64)
    pool = np.concatenate(parts).astype(np.int64)
    # the CSR rows in another order than the pool's: starts are read, not assumed
    perm = rng.permutation(n_groups)
    return pool, start[perm], count[perm]


@pytest.mark.parametrize("seed", range(16))
def test_enumerate_within_is_enumerate_groups_of_the_pool_with_itself(seed):
    from iaa_frames.core.chance import sampling
    from iaa_frames.core.chance.population import pairing_key, valid_pairings

    rng = np.random.default_rng(seed)
    n = int(rng.choice([40, 300, 3_000]))
    slots = _slots(rng, n, max(n // 10, 2), int(rng.integers(2, 5)), groups=seed % 2 == 1)
    pools = _pools(rng, n, int(rng.integers(1, 30)))
    pool, start, count = pools
    need = rng.integers(0, 300, len(count))
    need[rng.random(len(count)) < 0.3] = 0
    n_slots = slots.empty + 1
    # taken: some valid pairings of the groups (and keys of no pairing of them)
    g = rng.integers(0, len(count), 500)
    ok = count[g] > 0
    g = g[ok]
    a = pool[start[g] + rng.integers(0, np.maximum(count[g], 1))]
    b = pool[start[g] + rng.integers(0, np.maximum(count[g], 1))]
    valid = valid_pairings(slots, a, b)
    taken = np.unique(
        np.r_[
            g[valid] * n_slots**2 + pairing_key(a[valid], b[valid], n_slots),
            rng.integers(0, len(count) * n_slots**2, 20),
        ]
    )
    for t in (taken, np.zeros(0, np.int64)):
        r_old, r_new = np.random.default_rng(seed), np.random.default_rng(seed)
        want = sampling._enumerate_groups(r_old, slots, need, pools, pools, t)
        got = sampling._enumerate_within(r_new, slots, need, pools, t)
        for x, y in zip(got, want):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)
        assert r_new.random() == r_old.random()  # the same numbers drawn


@pytest.mark.parametrize("seed", range(6))
def test_sample_groups_within_one_pool_enumerates_as_before(seed):
    from iaa_frames.core.chance import sampling

    rng = np.random.default_rng(seed)
    slots = _slots(rng, 400, 40, 3)
    shuffle = seed % 2 == 1  # pools not increasing: no shortcut, the pairs each way
    pools = _pools(rng, 400, 8, shuffle=shuffle)
    pool, start, count = pools
    need = 2 * count * count  # every group small enough to enumerate
    got = sampling.sample_groups(np.random.default_rng(seed), slots, need, *pools)
    want = sampling._enumerate_groups(
        np.random.default_rng(seed), slots, need, pools, pools, np.zeros(0, np.int64)
    )
    unsorted = any((np.diff(pool[s : s + c]) <= 0).any() for s, c in zip(start, count))
    assert unsorted == shuffle
    assert (sampling._enumerate_within(rng, slots, need, pools, want[0][:0]) is None) == unsorted
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("seed", range(8))
def test_regrouped_is_the_stable_sort_by_group_of_the_parts(seed):
    from iaa_frames.core.chance import sampling

    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(int(rng.integers(1, 6))):
        n = int(rng.integers(0, 300))
        g = np.sort(rng.integers(0, int(rng.integers(1, 12)), n))
        parts.append((rng.integers(0, 10**6, n), rng.integers(0, 10**6, n), g))
    a, b, g = (np.concatenate(x) for x in zip(*parts))
    order = np.argsort(g, kind="stable")
    for x, y in zip(sampling._regrouped(parts), (a[order], b[order], g[order])):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("seed", range(8))
def test_insert_sorted_is_numpy_insert(seed):
    from iaa_frames.core.chance import sampling

    rng = np.random.default_rng(seed)
    both = rng.permutation(np.unique(rng.integers(0, 10**9, int(rng.integers(0, 2_000)))))
    cut = int(rng.integers(0, len(both) + 1))
    keys, values = np.sort(both[:cut]), np.sort(both[cut:])
    want = np.insert(keys, np.searchsorted(keys, values), values)
    got = sampling._insert_sorted(keys, values)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
def test_first_occurrence_and_first_new_by_brute_force(seed):
    from iaa_frames.core.chance import sampling

    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 50, 5_000]))
    key = rng.integers(0, max(n // 3, 1), n)
    want = np.zeros(n, dtype=bool)
    want[np.unique(key, return_index=True)[1]] = True
    np.testing.assert_array_equal(sampling.first_occurrence(key), want)
    seen = [np.unique(rng.integers(0, n, n // 4)) for _ in range(2)]
    v, order = sampling.sort_with_order(key)
    new = want & ~np.isin(key, np.concatenate(seen))
    np.testing.assert_array_equal(sampling._first_new(v, order, *seen), new)


def test_distinct_sorted_is_sorted_unique():
    from iaa_frames.arrays import sorted_unique
    from iaa_frames.core.chance import sampling

    rng = np.random.default_rng(4)
    for keys in (
        np.unique(rng.integers(0, 10**12, 1_000)),  # increasing already: itself
        rng.integers(0, 10**12, 1_000),
        np.repeat(np.arange(5), 2),
        np.zeros(0, np.int64),
        np.arange(5, dtype=np.int32),
    ):
        got = sampling._distinct_sorted(keys)
        want = sorted_unique(keys)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([1, 2, 3, 7, 1000, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 5, 2**40]),
            st.sampled_from([0, 1, 2, 3, 4095, 4096, 5001]),
        ),
        min_size=1,
        max_size=8,
    ),
    st.integers(0, 2**32 - 1),
)
def test_bounded_draws_are_numpys_array_of_bounds(runs, seed):
    """The values of rng.integers(0, np.repeat(high, repeats)), and the generator left
    in the same state (the draws after them agree too): numpy draws an array of bounds
    element by element as it draws a run of one bound."""
    high, repeats = (np.array(v, dtype=np.int64) for v in zip(*runs, strict=True))
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    got = sampling.bounded_draws(ours, high, repeats)
    want = numpys.integers(0, np.repeat(high, repeats))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ours.integers(0, 2**40, 4), numpys.integers(0, 2**40, 4))
