"""Tests for the vectorized assignment and the constrained clusters."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from iaa_frames.core.matching import assignment
from iaa_frames.core.matching.assignment import assign, candidate_pairs, clusters


def _solve(matrices, tau):
    """Run assign() on a list of score matrices (one pairing each)."""
    na = np.array([m.shape[0] for m in matrices])
    nb = np.array([m.shape[1] for m in matrices])
    sa = np.r_[0, np.cumsum(na)[:-1]]
    sb = np.r_[0, np.cumsum(nb)[:-1]]
    pairing, la, lb, _, _ = candidate_pairs(sa, na, sb, nb)
    score = np.concatenate([m.ravel() for m in matrices]) if matrices else np.zeros(0)
    chosen = assign(pairing, la, lb, na, nb, score, score >= tau)
    return pairing[chosen], la[chosen], lb[chosen], score[chosen]


def test_optimal_beats_greedy():
    # greedy takes a0-b0 (0.9) and then nothing is left above 0.5; the optimum takes two pairs
    m = np.array([[0.9, 0.7], [0.7, 0.1]])
    p, la, lb, s = _solve([m], 0.5)
    assert sorted(zip(la.tolist(), lb.tolist())) == [(0, 1), (1, 0)]
    assert s.sum() == pytest.approx(1.4)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**31 - 1)),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from([0.0, 0.3, 0.5]),
)
def test_assignment_is_optimal_against_scipy(shapes, tau):
    mats = []
    for r, c, seed in shapes:
        rng = np.random.default_rng(seed)
        m = rng.random((r, c))
        m[rng.random((r, c)) < 0.4] = 0.0  # many zeros, as with real IoU
        mats.append(m)
    p, la, lb, s = _solve(mats, tau)
    for k, m in enumerate(mats):
        sel = p == k
        # one-to-one
        assert len(set(la[sel].tolist())) == sel.sum() == len(set(lb[sel].tolist()))
        assert (s[sel] >= tau).all()
        gated = np.where(m >= tau, m, 0.0)
        rows, cols = linear_sum_assignment(gated, maximize=True)
        assert s[sel].sum() == pytest.approx(gated[rows, cols].sum(), abs=1e-12)


def test_large_ambiguous_matrix_uses_fallback():
    rng = np.random.default_rng(3)
    m = rng.random((9, 9))  # 9! maps: solved by linear_sum_assignment, not enumerated
    p, la, lb, s = _solve([m, m[:2, :3]], 0.0)
    rows, cols = linear_sum_assignment(m, maximize=True)
    assert s[p == 0].sum() == pytest.approx(m[rows, cols].sum())
    assert (p == 0).sum() == 9 and (p == 1).sum() == 2


def test_clusters_respect_one_object_per_annotator():
    # objects 0 (ann 0), 1 (ann 0), 2 (ann 1): 0-2 is stronger than 1-2
    ids = clusters(3, np.array([0, 1]), np.array([2, 2]), np.array([0.6, 0.9]), np.array([0, 0, 1]))
    assert ids[1] == ids[2] != ids[0]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_clusters_properties(n, n_ann, seed):
    rng = np.random.default_rng(seed)
    ann = rng.integers(0, n_ann, n)
    m = rng.integers(0, 3 * n)
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = ann[a] != ann[b]
    a, b = a[keep], b[keep]
    w = rng.random(len(a))
    ids = clusters(n, a, b, w, ann)
    assert ids.shape == (n,)
    # never two objects of the same annotator in one cluster
    key = ids * n_ann + ann
    assert len(np.unique(key)) == n
    # same result whatever the order of the pairs
    perm = rng.permutation(len(a))
    assert (clusters(n, a[perm], b[perm], w[perm], ann) == ids).all()
    # clusters are only made of matched pairs: each multi-object cluster is connected
    for c in np.unique(ids):
        members = set(np.flatnonzero(ids == c).tolist())
        if len(members) > 1:
            inside = [
                (x, y) for x, y in zip(a.tolist(), b.tolist()) if x in members and y in members
            ]
            assert inside


def test_large_ambiguous_matrix_goes_to_scipy():
    # 200 x 200 with every edge eligible: far too many injections to enumerate (their
    # count overflows a float); the assignment must still be the optimum
    rng = np.random.default_rng(3)
    m = rng.random((200, 200))
    _, la, lb, s = _solve([m], 0.0)
    rows, cols = linear_sum_assignment(m, maximize=True)
    assert len(la) == 200 and len(set(lb.tolist())) == 200
    assert s.sum() == pytest.approx(m[rows, cols].sum())


def _lsa_per_pairing(mats, tau):
    """Reference: the optimum of each whole matrix (scipy), restricted to eligible edges."""
    out = []
    for k, m in enumerate(mats):
        gated = np.where(m >= tau, m, 0.0)
        rows, cols = linear_sum_assignment(gated, maximize=True)
        keep = m[rows, cols] >= tau
        out += [(k, int(i), int(j)) for i, j in zip(rows[keep], cols[keep], strict=True)]
    return sorted(out)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("tau", [0.3, 0.5, 0.7])
def test_large_sparse_pairings_split_into_components_exactly(seed, tau):
    """Large pairings (too many injections to enumerate) are split into the components
    of their eligible edges: the chosen edges are exactly scipy's optimum of the whole
    matrix (scores continuous, so the optimum is unique), small pairings unchanged."""
    rng = np.random.default_rng(seed)
    mats = []
    for r, c in [(40, 45), (3, 4), (120, 110), (9, 9)]:
        m = rng.random((r, c)) * (rng.random((r, c)) < 4 / c)  # a few edges per object
        mats.append(m)
    p, la, lb, s = _solve(mats, tau)
    got = sorted(zip(p.tolist(), la.tolist(), lb.tolist(), strict=True))
    assert got == _lsa_per_pairing(mats, tau)


def test_large_pairing_with_a_big_component_still_optimal():
    """A component too large to enumerate goes to scipy on its own rows and columns."""
    rng = np.random.default_rng(11)
    dense = rng.random((10, 10)) + 0.5  # one 10 x 10 component, every edge eligible
    sparse = np.zeros((50, 50))
    sparse[np.arange(50), np.arange(50)] = 0.9  # 50 uncontested edges
    m = np.zeros((60, 60))
    m[:10, :10] = dense
    m[10:, 10:] = sparse
    p, la, lb, s = _solve([m], 0.5)
    got = sorted(zip(p.tolist(), la.tolist(), lb.tolist(), strict=True))
    assert got == _lsa_per_pairing([m], 0.5)


def test_scores_of_ineligible_edges_are_never_read():
    # the pipeline adds its tie-break to the eligible edges only
    rng = np.random.default_rng(0)
    for _ in range(100):
        ca, cb = rng.integers(0, 7, 20), rng.integers(0, 7, 20)
        p, la, lb, _, _ = candidate_pairs(np.zeros(20, int), ca, np.zeros(20, int), cb)
        score = rng.random(len(p))
        eligible = score >= 0.4
        other = np.where(eligible, score, rng.random(len(p)) * 10)
        np.testing.assert_array_equal(
            assign(p, la, lb, ca, cb, score, eligible), assign(p, la, lb, ca, cb, other, eligible)
        )


@pytest.mark.parametrize("seed", range(20))
def test_candidate_pairs_list_every_object_pair_in_order(seed):
    # brute force: for each pairing, every (i, j) with i < count_a, j < count_b, by i then j
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 12))
    ca, cb = rng.integers(0, 5, n), rng.integers(0, 5, n)
    sa, sb = rng.integers(0, 100, n), rng.integers(0, 100, n)
    want = [
        (p, i, j, sa[p] + i, sb[p] + j)
        for p in range(n)
        for i in range(ca[p])
        for j in range(cb[p])
    ]
    got = candidate_pairs(sa, ca, sb, cb)
    assert all(x.dtype == np.int64 for x in got)
    assert list(zip(*(x.tolist() for x in got))) == [tuple(int(v) for v in w) for w in want]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_clusters_are_numbered_by_first_object_and_split_only_conflicts(n, n_ann, seed):
    # brute force: components of the matched pairs by repeated relaxation; a component
    # with no annotator twice is one cluster; ids follow each cluster's first object
    rng = np.random.default_rng(seed)
    ann = rng.integers(0, n_ann, n)
    a, b = rng.integers(0, n, 2 * n), rng.integers(0, n, 2 * n)
    keep = ann[a] != ann[b]
    a, b = a[keep], b[keep]
    ids = clusters(n, a, b, rng.random(len(a)), ann)
    comp = np.arange(n)
    for _ in range(n):
        for x, y in zip(a.tolist(), b.tolist()):
            comp[x] = comp[y] = min(comp[x], comp[y])
    for c in set(comp.tolist()):
        members = np.flatnonzero(comp == c)
        if len(set(ann[members].tolist())) == len(members):  # no conflict: one cluster
            assert len(set(ids[members].tolist())) == 1
    firsts = [int(np.flatnonzero(ids == k)[0]) for k in range(ids.max() + 1)]
    assert firsts == sorted(firsts) and set(ids.tolist()) == set(range(ids.max() + 1))


@pytest.mark.parametrize("n_cols", range(9))
def test_injections_are_itertools_permutations_in_order(n_cols):
    # the enumeration's tie-break is "first maximum in lexicographic order": the maps must
    # be exactly itertools' permutations, in its order, for every shape enumerated
    for n_rows in range(n_cols + 1):
        want = np.array(list(itertools.permutations(range(n_cols), n_rows)), dtype=np.int64)
        got = assignment._injections.__wrapped__(n_rows, n_cols)
        assert got.dtype == np.int64
        assert got.shape == want.shape  # (1, 0) for no rows: the one empty map
        assert np.array_equal(got, want)
