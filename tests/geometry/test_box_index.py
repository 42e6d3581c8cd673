"""The box sort-and-sweep (iaa_frames.geometry.box_index) against listing every pair."""

import numpy as np
import pytest

from iaa_frames.core.matching.assignment import candidate_pairs
from iaa_frames.geometry import box_index
from iaa_frames.geometry.box_index import Sweep, overlapping_pairs, sweep_cost


def _brute(boxes, sa, ca, sb, cb):
    p, i, j, oa, ob = candidate_pairs(sa, ca, sb, cb)
    ba, bb = boxes[oa], boxes[ob]
    with np.errstate(invalid="ignore"):
        keep = (np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0]) > 0) & (
            np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1]) > 0
        )
    return p[keep], i[keep], j[keep]


@pytest.mark.parametrize("banded", [True, False])
@pytest.mark.parametrize("seed", range(40))
def test_overlapping_pairs_equal_the_brute_force(seed, banded, monkeypatch):
    """Random boxes, with ties (integer coordinates), empty and reversed boxes, NaN,
    infinities and -0.0: exactly the pairs (and the order) of the all-pairs test, with
    the entries held by bands of the other axis and without, the pairs held as one
    integer each and (every third seed) as three arrays."""
    monkeypatch.setattr(box_index, "BAND_MIN_ENTRIES", 0 if banded else 10**9)
    if seed % 3 == 1:
        monkeypatch.setattr(box_index, "KEY_BITS", 0)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    centre, size = rng.uniform(0, 10, (n, 2)), rng.uniform(0, 3, (n, 2))
    if seed % 3 == 0:
        centre, size = np.round(centre), np.round(size)
    if seed % 4 == 0:
        size[rng.random((n, 2)) < 0.2] *= -1
    boxes = np.c_[centre - size / 2, centre + size / 2]
    if seed % 5 == 0:
        boxes[rng.integers(0, n, 3), rng.integers(0, 4, 3)] = np.nan
    if seed % 2 == 0:
        boxes[rng.integers(0, n, 3), rng.integers(0, 4, 3)] = rng.choice([np.inf, -np.inf, -0.0], 3)
    P = int(rng.integers(1, 7))
    sa, sb = rng.integers(0, n, P), rng.integers(0, n, P)
    ca, cb = rng.integers(0, n - sa + 1), rng.integers(0, n - sb + 1)
    want = _brute(boxes, sa, ca, sb, cb)
    got = overlapping_pairs(boxes, sa, ca, sb, cb)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)
    cost = sweep_cost(boxes, sa, ca, sb, cb)
    assert (cost >= np.bincount(got[0], minlength=P)).all()
    # the cost is exactly the pairs overlapping along the axis of the sweep (brute force)
    # whose boxes share a band of the other axis, each looked at once, and any axis given
    # to the sweep gives the same pairs
    index = box_index._Index(boxes, sa, ca, sb, cb)
    p, i, j, oa, ob = candidate_pairs(sa, ca, sb, cb)
    along = []
    for k in (0, 1):
        ax = index.axis(k)
        first = np.zeros(len(boxes), dtype=np.int64)
        first[index.obj] = ax.first_band
        last = np.zeros(len(boxes), dtype=np.int64)
        last[index.obj] = ax.first_band + np.bincount(ax.rep, minlength=len(index.obj)) - 1
        shared = np.minimum(last[oa], last[ob]) >= np.maximum(first[oa], first[ob])
        with np.errstate(invalid="ignore"):
            hit = np.minimum(boxes[oa, k + 2], boxes[ob, k + 2]) > np.maximum(
                boxes[oa, k], boxes[ob, k]
            )
        along.append(np.bincount(p, weights=hit & shared, minlength=P).astype(np.int64))
        assert banded or ax.n_bands == 1
    k = index.shorter_axis()  # one axis for every pairing: where the boxes are shorter
    np.testing.assert_array_equal(cost, along[k])
    for forced in (np.zeros(P, bool), np.ones(P, bool)):
        searched = Sweep(boxes, sa, ca, sb, cb).search(use_y=forced)
        np.testing.assert_array_equal(searched.cost, along[int(forced[0])])
        for w, g in zip(want, searched.pairs(), strict=True):
            np.testing.assert_array_equal(g, w)
    # the coordinates of every box ranked once (also those of boxes in no pairing): the
    # same pairs and costs as the pairings' own ranks
    ranks = box_index.coordinate_ranks(boxes)
    shared = Sweep(boxes, sa, ca, sb, cb, ranks=ranks).search()
    np.testing.assert_array_equal(shared.cost, cost)
    for w, g in zip(want, shared.pairs(), strict=True):
        np.testing.assert_array_equal(g, w)
    # the searches of any range of the pairings, taken from those of all of them: the
    # range's pairs and costs, numbered from 0, as a search of the range alone gives them
    use_y = np.asarray(rng.random(P) < 0.5)  # some rows along each axis
    whole = Sweep(boxes, sa, ca, sb, cb).search(use_y=use_y)
    for lo in range(P + 1):
        for hi in range(lo, P + 1):
            part = whole.part(lo, hi)
            alone = Sweep(boxes, sa, ca, sb, cb).search(np.arange(lo, hi), use_y[lo:hi])
            np.testing.assert_array_equal(part.cost, alone.cost)
            for x, y in zip(part.pairs(), alone.pairs(), strict=True):
                np.testing.assert_array_equal(x, y)
            keep = (want[0] >= lo) & (want[0] < hi)
            np.testing.assert_array_equal(part.pairs()[0], want[0][keep] - lo)


def test_dense_ranges_are_held_by_bands():
    """Ranges of 600 small boxes (as annotations of 1,000 objects an image) are held by
    bands of the other axis, with large and infinite boxes among them: each pair is
    listed once, exactly the pairs of the all-pairs test, and the sweep looks at fewer
    pairs than without bands."""
    rng = np.random.default_rng(5)
    n = 1200
    centre, size = rng.uniform(0, 1, (n, 2)), np.exp(rng.normal(np.log(0.04), 0.8, (n, 2)))
    boxes = np.c_[centre - size / 2, centre + size / 2]
    boxes[:3, 3] = np.inf
    boxes[3:6, 1] = -np.inf
    sa, ca, sb, cb = (
        np.array([0, 0, 600]),
        np.array([600] * 3),
        np.array([600, 0, 0]),
        np.array([600] * 3),
    )
    index = box_index._Index(boxes, sa, ca, sb, cb)
    assert min(index.axis(k).n_bands for k in (0, 1)) > 1
    want = _brute(boxes, sa, ca, sb, cb)
    for w, g in zip(want, overlapping_pairs(boxes, sa, ca, sb, cb), strict=True):
        np.testing.assert_array_equal(g, w)
    banded = sweep_cost(boxes, sa, ca, sb, cb)
    assert (banded >= np.bincount(want[0], minlength=3)).all()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(box_index, "BAND_MIN_ENTRIES", 10**9)
        assert (banded < sweep_cost(boxes, sa, ca, sb, cb)).all()


def test_strips_use_the_other_axis():
    """Tall thin boxes side by side all overlap in y: the sweep runs along x, so it looks
    at about one pair per box, not n^2."""
    n = 2000
    x = np.arange(n, dtype=float)
    boxes = np.c_[x, np.zeros(n), x + 0.9, np.full(n, 100.0)]
    start, count = np.array([0]), np.array([n])
    cost = sweep_cost(boxes, start, count, start, count)
    assert cost[0] <= 2 * n
    p, i, j = overlapping_pairs(boxes, start, count, start, count)
    assert (i == j).all() and len(i) == n
    rot = boxes[:, [1, 0, 3, 2]]  # the same along the other axis
    assert sweep_cost(rot, start, count, start, count)[0] <= 2 * n


@pytest.mark.parametrize("high", [5, 1 << 20, 1 << 60])
def test_sorted_keys_are_a_stable_argsort(high):
    """The keys sorted with their positions packed in (or, past 63 bits, by an argsort):
    the sorted keys and the positions they came from, ties in order of position where
    packed (a stable argsort's order)."""
    rng = np.random.default_rng(3)
    key = rng.integers(0, high, 5000)
    got, order = box_index._sorted_keys(key)
    np.testing.assert_array_equal(got, np.sort(key))
    np.testing.assert_array_equal(key[order], got)
    if high < 1 << 40:  # packed
        np.testing.assert_array_equal(order, np.argsort(key, kind="stable"))
    assert box_index._sorted_keys(key[:0])[0].size == 0


@pytest.mark.parametrize("block", [1, 64, 1 << 16])
def test_pairs_listed_by_blocks_equal_the_brute_force(block, monkeypatch):
    """Thousands of pairings of 600 objects a side listed a block of pairings at a time
    (a pairing a block, a few, most at once: keys of 32 bits and, a block of thousands
    of pairings, of 64): exactly the pairs and the order of the all-pairs test; without
    ``ordered``, the same pairs."""
    monkeypatch.setattr(box_index, "PAIR_BLOCK", block)
    rng = np.random.default_rng(5)
    n, P = 600, 5000
    centre, size = rng.uniform(0, 100, (2 * n, 2)), rng.uniform(1, 8, (2 * n, 2))
    boxes = np.c_[centre - size / 2, centre + size / 2]
    boxes = np.r_[boxes, boxes[:n] + 1000.0]  # far copies of the first n: no pair
    sa, sb, count = np.zeros(P, np.int64), np.full(P, 2 * n), np.full(P, n)
    live = np.sort(rng.choice(P, 6, replace=False))
    sb[live] = n  # these pair the first n with the next n, the others with the far ones
    p, i, j = _brute(boxes, sa[live], count[live], sb[live], count[live])
    want = live[p], i, j
    searched = Sweep(boxes, sa, count, sb, count).search()
    assert searched.cost[np.setdiff1d(np.arange(P), live)].sum() == 0
    for w, g in zip(want, searched.pairs(), strict=True):
        np.testing.assert_array_equal(g, w)
    got = searched.pairs(ordered=False)
    order = np.lexsort(got[::-1])
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g[order], w)
