"""The units of a class from its components (iaa_frames.core.matching.units): exactly those of
matching the whole pairing, ties and components that join classes included."""

import numpy as np
import pandas as pd
import pytest
from helpers import object_row

from iaa_frames.core.matching import pipeline, units
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.core.matching.pair_values import IoUCache
from iaa_frames.core.matching.units import class_units
from iaa_frames.geometry.distances import get_distance


def _frame(n, kind, seed, n_items=4, n_classes=3, lattice=False):
    """Items with ``n`` objects per annotator (three annotators), dense enough for the
    eligible pairs to form long components; classes drawn at random, so that components
    join objects of several classes. With ``lattice``, every item holds the same grid of
    equal boxes (each overlapping its neighbours), some of them twice: the pairings
    between items are full of exact ties."""
    rng = np.random.default_rng(seed)
    rows = []
    side = int(np.ceil(np.sqrt(n)))
    # one layout for every item: the pairings between items are as dense as within
    layout, sizes = rng.uniform(0, 100, (n, 2)), rng.uniform(4, 16, (n, 2))
    for i in range(n_items):
        if lattice:
            g = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)
            centre = (g[:n] * 6.0).astype(float)
            centre[1::4] = centre[::4][: len(centre[1::4])]  # exact copies
            size = np.full((n, 2), 9.0)
        else:
            centre = layout + rng.normal(0, 1.5, (n, 2))
            size = sizes
        for ann in "abc":
            c = centre if lattice else centre + rng.normal(0, 1.5, (n, 2))
            label = rng.integers(0, n_classes, n)
            rows += [
                object_row(f"i{i}", ann, f"c{label[k]}", c[k], size[k], kind == "polygon" and k % 2)
                for k in range(n)
            ]
    return pd.DataFrame(rows)


def _whole(corpus, a, b, label, tau, dist):
    """The reference: every pairing matched whole, its pairs of two objects of the class."""
    m = pipeline.run(corpus, corpus.annotations, a, b, tau=tau, distance=dist, sets=False)
    lab = label[m.pair_pairing]
    k = (corpus.label[m.pair_a] == lab) & (corpus.label[m.pair_b] == lab)
    return m.pair_pairing[k], m.pair_a[k], m.pair_b[k], m.pair_iou[k], m.pair_distance[k]


def _every_class(corpus):
    """Every (pairing of two annotations of different annotators, class) of the corpus."""
    ann = corpus.annotations
    a, b = np.triu_indices(ann.empty, k=1)
    keep = ann.annotator[a] != ann.annotator[b]
    a, b = a[keep], b[keep]
    L = len(corpus.labels)
    return np.repeat(a, L), np.repeat(b, L), np.tile(np.arange(L), len(a))


@pytest.fixture
def restricted(monkeypatch):
    """Pairings of these small corpora go through the components (the default keeps
    pairings under 500 x 500 objects whole); counts the pairings proven large."""
    monkeypatch.setattr(units, "RESTRICT_MIN_PAIRS", pipeline.SPARSE_MIN_PAIRS + 1)
    seen = {"rows": 0, "proven": 0}
    inner = units._restricted

    def spy(corpus, slots, rows, *args):
        out = inner(corpus, slots, rows, *args)
        seen["rows"] += len(rows[0])
        seen["proven"] += int(out[1].sum())
        return out

    monkeypatch.setattr(units, "_restricted", spy)
    return seen


@pytest.mark.parametrize(
    ("kind", "lattice", "tau"),
    [("box", False, 0.5), ("box", False, 0.3), ("box", True, 0.3), ("polygon", False, 0.4)],
)
def test_units_are_those_of_the_whole_matching(kind, lattice, tau, restricted):
    """Brute force: for every pairing of the corpus (within and between items) and every
    class, the units from the components are the whole matching's pairs of two objects
    of the class, bit for bit and in its order; the pairings are dense (objects with
    several eligible partners: ambiguous assignments), their components join classes,
    and most pairings go through the components."""
    c = prepare(_frame(48, kind, seed=7, lattice=lattice))
    a, b, lab = _every_class(c)
    dist = get_distance("giou")
    got = class_units(c, c.annotations, a, b, lab, tau=tau, distance=dist, cache=IoUCache())
    want = _whole(c, a, b, lab, tau, dist)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert len(want[0]) > 100
    assert restricted["proven"] > restricted["rows"] / 2
    # the assignment had real choices, across classes
    m, near = pipeline.run(
        c, c.annotations, a[:: len(c.labels)], b[:: len(c.labels)], tau=tau, distance=dist,
        sets=False, near=True,
    )  # fmt: skip
    key = near.pairing * len(c.area) + near.a
    assert (np.unique(key, return_counts=True)[1] > 1).any()
    assert (c.label[m.pair_a] != c.label[m.pair_b]).any()


def test_ties_choose_as_the_whole_matching(restricted):
    """On lattices of equal boxes (and exact copies), every tie of the assignment is
    broken as in the whole matching: the same pairs, not only as many."""
    c = prepare(_frame(64, "box", seed=1, lattice=True, n_classes=2))
    a, b, lab = _every_class(c)
    dist = get_distance("iou")
    got = class_units(c, c.annotations, a, b, lab, tau=0.2, distance=dist)
    want = _whole(c, a, b, lab, 0.2, dist)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert restricted["proven"] > 0


def test_pairings_not_proven_large_are_matched_whole(restricted, monkeypatch):
    """A pairing whose objects with an eligible pair may be few enough to enumerate whole
    (where a tie may be broken across components) is matched whole: with a prefix too
    short to prove anything, every pairing is, and the units do not change."""
    c = prepare(_frame(40, "box", seed=3))
    a, b, lab = _every_class(c)
    dist = get_distance("iou")
    want = _whole(c, a, b, lab, 0.5, dist)
    monkeypatch.setattr(units, "PREFIX", 0)
    monkeypatch.setattr(units, "_large", lambda pairing, oa, ob, N, P: np.zeros(P, bool))
    got = class_units(c, c.annotations, a, b, lab, tau=0.5, distance=dist)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert restricted["proven"] == 0 and restricted["rows"] > 0


@pytest.mark.parametrize(
    ("kind", "lattice", "tau"), [("box", False, 0.5), ("box", True, 0.3), ("polygon", False, 0.4)]
)
def test_square_prefixes_prove_pairings_large(kind, lattice, tau, restricted, monkeypatch):
    """The eligible pairs of the first ``4 * PREFIX`` objects of both sides prove
    pairings large that their components do not (a short prefix here, for these small
    annotations to have one), and the units stay those of the whole matching (ties and
    polygons included)."""
    c = prepare(_frame(48, kind, seed=5, n_classes=6, lattice=lattice))
    a, b, lab = _every_class(c)
    dist = get_distance("giou")
    want = _whole(c, a, b, lab, tau, dist)
    monkeypatch.setattr(units, "PREFIX", 8)
    proofs, inner = [], units._large

    def large(*args):
        out = inner(*args)
        proofs.append(out.copy())
        return out

    monkeypatch.setattr(units, "_large", large)
    got = class_units(c, c.annotations, a, b, lab, tau=tau, distance=dist)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    # per call: the components, the square prefixes, then the two prefixes of side a
    assert proofs[1].any() and not (proofs[1] & proofs[0]).any()
    assert restricted["proven"] > 0


def test_pairings_proven_large_are_not_proven_again(restricted, monkeypatch):
    """A pairing proven large by one call is held on the corpus: a later call on other
    classes of the same pairings takes it as proven (here with no proof of its own) and
    its units stay those of the whole matching."""
    c = prepare(_frame(48, "box", seed=11, n_classes=4))
    a, b, lab = _every_class(c)
    dist = get_distance("giou")
    want = _whole(c, a, b, lab, 0.4, dist)
    first = lab < 2
    got = class_units(c, c.annotations, a[first], b[first], lab[first], tau=0.4, distance=dist)
    proven = restricted["proven"]
    assert proven > 0 and len(units._held_large(c, c.annotations, 0.4))
    assert not len(units._held_large(c, c.annotations, 0.5))
    monkeypatch.setattr(units, "_large", lambda pairing, oa, ob, N, P: np.zeros(P, bool))
    rest = class_units(c, c.annotations, a[~first], b[~first], lab[~first], tau=0.4, distance=dist)
    assert restricted["proven"] > proven
    rows = np.r_[np.flatnonzero(first), np.flatnonzero(~first)]
    pairing = np.r_[rows[got[0]], rows[rest[0] + first.sum()]]
    merged = [np.r_[g, r] for g, r in zip(got[1:], rest[1:], strict=True)]
    order = np.lexsort((merged[1], merged[0], pairing))
    for g, w in zip([pairing[order]] + [m[order] for m in merged], want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_no_class_objects_and_tau_zero():
    """A class absent from either side gives no unit; at tau = 0 (every pair eligible)
    the pairings are matched whole."""
    c = prepare(_frame(40, "box", seed=5))
    a, b, lab = _every_class(c)
    dist = get_distance("iou")
    absent = np.full(len(a), len(c.labels) + 3)
    assert len(class_units(c, c.annotations, a, b, absent, tau=0.5, distance=dist)[0]) == 0
    got = class_units(c, c.annotations, a[:30], b[:30], lab[:30], tau=0.0, distance=dist)
    for g, w in zip(got, _whole(c, a[:30], b[:30], lab[:30], 0.0, dist), strict=True):
        np.testing.assert_array_equal(g, w)


def test_boxes_index_lists_the_sweeps_pairs():
    """The boxes of one annotation overlapping given boxes (width classes) are those of
    the sweep, empty and NaN boxes included."""
    from iaa_frames.geometry.box_index import overlapping_pairs

    rng = np.random.default_rng(0)
    n = 400
    x0, y0 = rng.uniform(0, 100, (2, n))
    w, h = np.exp(rng.normal(1, 1.2, (2, n)))
    boxes = np.stack([x0, y0, x0 + w, y0 + h], 1)
    boxes[::37, 2] = boxes[::37, 0]  # empty
    boxes[5::41, 1] = np.nan
    start, count = np.array([0, 200]), np.array([200, 200])
    index = units._Boxes(boxes, start, count)
    q = np.arange(200)
    found_q, found_o = index.overlapping(q, np.full(200, index.segment(start[1:], count[1:])[0]))
    p, i, j = overlapping_pairs(boxes, start[:1], count[:1], start[1:], count[1:])
    want = sorted(zip(i.tolist(), (200 + j).tolist(), strict=True))
    assert sorted(zip(found_q.tolist(), found_o.tolist(), strict=True)) == want
    assert len(want) > 100


def test_components_choose_as_a_large_pairing():
    """Brute force on random graphs: the assignment one component at a time is that of
    :func:`assign` on the whole pairing when the pairing is too large to enumerate
    whole (at least 8 objects a side with an eligible pair), scores drawn from a few
    values (exact ties) or at random."""
    from iaa_frames.core.matching.assignment import assign

    rng = np.random.default_rng(0)
    for trial in range(300):
        n_a, n_b = rng.integers(8, 30, 2)
        n_edges = int(rng.integers(n_a + n_b, 3 * (n_a + n_b)))
        ia, ib = rng.integers(0, n_a, n_edges), rng.integers(0, n_b, n_edges)
        ia[:n_a], ib[:n_a] = np.arange(n_a), rng.integers(0, n_b, n_a)  # every row
        ib[n_a : n_a + n_b], ia[n_a : n_a + n_b] = np.arange(n_b), rng.integers(0, n_a, n_b)
        key = np.unique(ia * n_b + ib)
        ia, ib = key // n_b, key % n_b
        values = [0.5, 0.6, 0.75] if trial % 2 else rng.uniform(0.5, 1, len(ia))
        score = rng.choice(values, len(ia)) if trial % 2 else values
        p = np.zeros(len(ia), np.int64)
        whole = assign(p, ia, ib, np.array([n_a]), np.array([n_b]), score, np.ones(len(ia), bool))
        comp = units.by_components(p, ia, 100 + ib, score, 200)
        np.testing.assert_array_equal(comp, whole, err_msg=str(trial))


def test_why_small_pairings_are_matched_whole():
    """A pairing small enough to be enumerated whole may break a tie across components
    otherwise than each component alone (sums in floating point: 0.1 + 0.2 + 0.7 is not
    0.7 + 0.2 + 0.1): such pairings are matched whole (test above)."""
    from iaa_frames.core.matching.assignment import assign

    # rows 0..2, columns 0..2: component {0, 2} x {0, 2} with two optimal assignments
    # (0.1 + 0.7 either way), component {1} x {1}
    ia, ib = np.array([0, 0, 1, 2, 2]), np.array([0, 2, 1, 0, 2])
    score = np.array([0.7, 0.1, 0.2, 0.7, 0.1])  # r0-c0 + r2-c2 = r0-c2 + r2-c0
    p = np.zeros(5, np.int64)
    whole = assign(p, ia, ib, np.array([3]), np.array([3]), score, np.ones(5, bool))
    comp = units.by_components(p, ia, 10 + ib, score, 20)
    assert whole.tolist() != comp.tolist()
    assert (score[whole].sum(), whole.sum()) == pytest.approx((score[comp].sum(), comp.sum()))
