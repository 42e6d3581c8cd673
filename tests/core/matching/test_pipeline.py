"""The matching pipeline (iaa_frames.core.matching.pipeline): its shortcuts change no result."""

import numpy as np
import pandas as pd
import pytest
import shapely
from helpers import object_row

import iaa_frames as iaf
from iaa_frames.core.matching import pipeline
from iaa_frames.core.matching.corpus import Slices, prepare
from iaa_frames.core.matching.pair_values import IoUCache
from iaa_frames.core.matching.pipeline import iou_upper_bound, run
from iaa_frames.geometry.distances import as_polygons, get_distance


@pytest.fixture(scope="module")
def polygon_corpus():
    df = iaf.simulate(
        n_items=40, kind="polygon", seed=4, annotators={"a": "good", "b": "sloppy", "c": "sloppy"}
    )
    return prepare(df)


def _pairings(corpus, n, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, corpus.annotations.empty, (2, n))
    return a, b


def _exact_iou(corpus, oa, ob):
    polys = as_polygons(corpus.shapes)
    inter = shapely.area(shapely.intersection(polys[oa], polys[ob]))
    return inter / (corpus.area[oa] + corpus.area[ob] - inter)


def test_bounds_are_never_below_the_exact_iou(polygon_corpus):
    """Both bounds (boxes; area inside the other's box, from the grid of each shape) hold
    on every overlapping pair (up to the overlay's own rounding, 1e-12), and the second
    is tighter."""
    c = polygon_corpus
    rng = np.random.default_rng(1)
    oa, ob = rng.integers(0, len(c.area), (2, 20_000))
    box = iou_upper_bound(c, oa, ob)
    rows = np.flatnonzero(box > 0)
    exact = _exact_iou(c, oa[rows], ob[rows])
    tight = pipeline._tighter_bound(c, oa, ob, rows, box[rows])
    assert (tight >= exact - 1e-12).all() and (tight <= box[rows]).all()
    assert (box[rows] >= exact - 1e-12).all()
    assert (tight < box[rows] - 0.05).mean() > 0.2  # it does prune


def test_identical_polygons_keep_iou_one():
    """The bound of a shape with itself is not below 1 despite rounding, so tau = 1
    still matches identical polygons."""
    df = iaf.simulate(
        n_items=10, kind="polygon", seed=2, annotators={"a": "perfect", "b": "perfect"}
    )
    c = prepare(df)
    a, b = _within(c)
    m = run(c, c.annotations, a, b, tau=1.0, distance=get_distance("giou"))
    assert len(m.pair_a) == int(iaf.is_object(df).sum()) // 2
    assert (m.pair_iou == 1.0).all()


def _within(corpus):
    ann = corpus.annotations
    item = ann.item[:-1]
    a, b = np.triu_indices(ann.empty, k=1)
    keep = item[a] == item[b]
    return a[keep], b[keep]


@pytest.mark.parametrize("tau", [0.0, 0.3, 0.5, 0.9])
def test_tighter_bound_changes_nothing(polygon_corpus, tau, monkeypatch):
    """The tighter bound only skips overlays: matches, distances and set distances
    are the same with it and without it (bound left at the boxes' bound)."""
    c = polygon_corpus
    a, b = _pairings(c, 4000, seed=int(tau * 10))
    giou = get_distance("giou")
    tight = run(c, c.annotations, a, b, tau=tau, distance=giou)
    monkeypatch.setattr(pipeline, "_tighter_bound", lambda corpus, oa, ob, rows, bound: bound)
    loose = run(c, c.annotations, a, b, tau=tau, distance=giou)
    for name in (
        "pair_pairing",
        "pair_a",
        "pair_b",
        "pair_iou",
        "pair_distance",
        "set_matched",
        "set_detection",
        "set_overall",
    ):
        np.testing.assert_array_equal(getattr(tight, name), getattr(loose, name), err_msg=name)


def _brute_force_overall(corpus, slots, a, b, distance):
    """The pooled set distance of each pairing from the similarity of every object pair."""
    out = np.zeros(len(a))
    for k, (sa, sb) in enumerate(zip(a, b, strict=True)):
        ia = np.arange(slots.start[sa], slots.start[sa] + slots.count[sa])
        ib = np.arange(slots.start[sb], slots.start[sb] + slots.count[sb])
        if not len(ia) or not len(ib):
            out[k] = 0.0 if len(ia) == len(ib) else 1.0
            continue
        oa, ob = np.repeat(ia, len(ib)), np.tile(ib, len(ia))
        sim = distance.similar(corpus.shapes.take(oa), corpus.shapes.take(ob)).reshape(len(ia), -1)
        out[k] = 1 - (sim.max(axis=1).sum() + sim.max(axis=0).sum()) / (len(ia) + len(ib))
    return out


@pytest.mark.parametrize("name", ["giou", "iou"])
@pytest.mark.parametrize("tau", [0.0, 0.5, 0.9])
def test_best_matches_from_bounds_change_nothing(polygon_corpus, name, tau, monkeypatch):
    """The best matches of the set distance, found from bounds and each object's most
    promising pair first (:func:`pipeline._raise_best`), are those of computing every
    pair: bitwise those of computing every pair the IoU bound lets through, and those of
    a brute force over every object pair up to the order of the sums."""
    c = polygon_corpus
    a, b = _pairings(c, 400, seed=int(tau * 10) + 7)
    distance = get_distance(name)
    lazy = run(c, c.annotations, a, b, tau=tau, distance=distance)
    np.testing.assert_allclose(
        lazy.set_overall, _brute_force_overall(c, c.annotations, a, b, distance), atol=1e-12
    )
    monkeypatch.setattr(pipeline, "BEST_ROUNDS", 0)
    monkeypatch.setattr(pipeline, "_similarity_bound", lambda corpus, d, oa, ob, bound, **kw: bound)
    monkeypatch.setattr(pipeline, "_tighter_bound", lambda corpus, oa, ob, rows, bound: bound)
    bulk = run(c, c.annotations, a, b, tau=tau, distance=distance)
    np.testing.assert_array_equal(lazy.set_overall, bulk.set_overall)
    np.testing.assert_array_equal(lazy.pair_distance, bulk.pair_distance)


def test_cache_gives_the_same_values_and_is_used(polygon_corpus, monkeypatch):
    """A cache shared between runs returns exactly what computing again gives, and the
    second run over the same pairs computes no polygon IoU at all."""
    c = polygon_corpus
    a, b = _within(c)
    giou = get_distance("giou")
    fresh = run(c, c.annotations, a, b, tau=0.5, distance=giou)
    cache = IoUCache()
    first = run(c, c.annotations, a, b, tau=0.5, distance=giou, cache=cache)
    assert len(cache.store("iou").keys) > 0 and len(cache.store("distance").keys) > 0
    calls = []
    monkeypatch.setattr(pipeline, "pair_iou", lambda x, y: calls.append(len(x)) or 1 / 0)
    second = run(c, c.annotations, a, b, tau=0.5, distance=giou, cache=cache)
    assert calls == []
    for m in (first, second):
        for name in ("pair_a", "pair_b", "pair_iou", "pair_distance", "set_overall"):
            np.testing.assert_array_equal(getattr(m, name), getattr(fresh, name))


def test_box_pairs_are_never_cached():
    c = prepare(iaf.simulate(n_items=20, seed=1))
    a, b = _within(c)
    cache = IoUCache()
    run(c, c.annotations, a, b, tau=0.5, distance=get_distance("giou"), cache=cache)
    assert all(len(cache.store(k).keys) == 0 for k in ("iou", "distance", "similarity"))


def _dense_frame(n, kind, seed, n_items=3):
    """Items with n objects per annotator, two annotators: jittered copies of random
    boxes (or polygons: rotated squares), overlapping their neighbours."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        centre = rng.uniform(0, 100, (n, 2))
        size = rng.uniform(4, 14, (n, 2))
        for ann in "ab":
            c = centre + rng.normal(0, 1, (n, 2))
            rows += [
                object_row(
                    f"i{i}",
                    ann,
                    "cell" if k % 3 else "dot",
                    c[k],
                    size[k],
                    kind == "polygon" and k % 2,
                )
                for k in range(n)
            ]
    return pd.DataFrame(rows)


_FIELDS = (
    "pair_pairing",
    "pair_a",
    "pair_b",
    "pair_iou",
    "pair_distance",
    "set_n_a",
    "set_n_b",
    "set_matched",
    "set_detection",
    "set_overall",
)


@pytest.mark.parametrize("kind", ["box", "polygon"])
@pytest.mark.parametrize("tau", [0.0, 0.3, 0.5, 0.7])
@pytest.mark.parametrize("n", [12, 150])
def test_sparse_candidates_give_the_dense_result(kind, tau, n, monkeypatch):
    """Listing only the overlapping object pairs of large pairings (box sort-and-sweep,
    components of the assignment) gives exactly the matching and set distances of
    listing every pair: within-item and chance (between-item) pairings, giou, iou and a
    distance without IoU reuse (which keeps every pair), with and without sets."""
    c = prepare(_dense_frame(n, kind, seed=n + int(tau * 10)))
    ann = c.annotations
    a, b = np.triu_indices(ann.empty, k=1)  # every pairing, within and between items
    keep = ann.annotator[a] != ann.annotator[b]
    a, b = a[keep], b[keep]
    for name in ("giou", "iou", "centroid"):
        dist = get_distance(name)
        for sets in (True, False):
            monkeypatch.setattr(pipeline, "SPARSE_MIN_PAIRS", 0)
            sparse = run(c, ann, a, b, tau=tau, distance=dist, sets=sets)
            monkeypatch.setattr(pipeline, "SPARSE_MIN_PAIRS", 10**18)
            dense = run(c, ann, a, b, tau=tau, distance=dist, sets=sets)
            for f in _FIELDS:
                np.testing.assert_array_equal(
                    getattr(sparse, f), getattr(dense, f), err_msg=f"{name} {sets} {f}"
                )
            assert (sparse.set_matched > 0).any()


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_chunks_of_searched_pairings_change_nothing(kind, monkeypatch):
    """The pairings are cut into consecutive chunks by the pairs their sweeps look at,
    known from the searches of blocks of pairings: every pairing in one chunk, each
    chunk's searches those of its swept pairings in order, and the matching, the
    pairings that can match and the count of candidates the same with chunks and blocks
    of any size (down to one pairing each)."""
    small = _dense_frame(8, kind, seed=8)
    small["item"] = "s" + small["item"]
    c = prepare(pd.concat([_dense_frame(40, kind, seed=7), small], ignore_index=True))
    ann = c.annotations
    a, b = np.triu_indices(ann.empty, k=1)
    keep = ann.annotator[a] != ann.annotator[b]
    a, b = a[keep], b[keep]
    dist = get_distance("giou")
    monkeypatch.setattr(pipeline, "SPARSE_MIN_PAIRS", 400)  # some pairings swept, some not
    big = ann.count[a] * ann.count[b] > 400
    assert big.any() and not big.all()
    want = run(c, ann, a, b, tau=0.5, distance=dist, sets=False)
    reach = pipeline.can_match(c, ann, a, b, tau=0.5)
    total = pipeline.candidate_count(c, ann, a, b, tau=0.5, distance=dist, sets=False)
    sweep = pipeline.sweep_index(
        c, 0.5, True, ann.start[a[big]], ann.count[a[big]], ann.start[b[big]], ann.count[b[big]]
    )
    assert total == (ann.count[a] * ann.count[b])[~big].sum() + sweep.search().cost.sum()
    for size, objects in ((1, 1), (500, 60), (5_000, 10**9)):
        monkeypatch.setattr(pipeline, "CHUNK_PAIRS", size)
        monkeypatch.setattr(pipeline, "SEARCH_OBJECTS", objects)
        monkeypatch.setattr(pipeline, "REACH_CHUNK_PAIRS", size)
        chunks = list(pipeline._chunked(c, ann, a, b, True, 0.5, True))
        assert [c[0] for c in chunks] == [0] + [c[1] for c in chunks[:-1]]
        assert sum(c[3] for c in chunks) == total
        assert chunks[-1][1] == len(a)
        if size == 1:
            assert len(chunks) == len(a)
        for lo, hi, searched, _ in chunks:
            n_big = int(big[lo:hi].sum())
            assert (searched is None) == (n_big == 0)
            if searched is not None:
                rows = np.flatnonzero(big[:hi])[-n_big:]
                np.testing.assert_array_equal(
                    searched.rows, np.searchsorted(np.flatnonzero(big), rows)
                )
        got = run(c, ann, a, b, tau=0.5, distance=dist, sets=False)
        for f in _FIELDS:
            np.testing.assert_array_equal(getattr(got, f), getattr(want, f), err_msg=f"{size} {f}")
        np.testing.assert_array_equal(pipeline.can_match(c, ann, a, b, tau=0.5), reach)
        assert pipeline.candidate_count(c, ann, a, b, tau=0.5, distance=dist, sets=False) == total


@pytest.mark.parametrize("overall", ["pooled", "per_direction"])
@pytest.mark.parametrize("name", ["giou", "iou"])
def test_set_distance_of_boxes_equals_every_pair(name, overall):
    """The set distance of box pairings (each object's best similarity, computed only
    where a pair's IoU can beat a floor of the best of one of its objects) equals the
    one of every pair's similarity, within and between items."""
    from iaa_frames.core.matching.assignment import candidate_pairs

    c = prepare(_dense_frame(60, "box", seed=4))
    ann = c.annotations
    a, b = np.triu_indices(ann.empty, k=1)
    dist = get_distance(name)
    got = run(c, ann, a, b, tau=0.5, distance=dist, sets=True, overall=overall)
    p, _, _, oa, ob = candidate_pairs(ann.start[a], ann.count[a], ann.start[b], ann.count[b])
    shapes = c.shapes
    sim = np.maximum(dist.similar(shapes.take(oa), shapes.take(ob)), 0.0)
    want = []
    for k in range(len(a)):
        s = sim[p == k].reshape(ann.count[a[k]], ann.count[b[k]])
        best_a, best_b = s.max(axis=1), s.max(axis=0)
        if overall == "pooled":
            want.append(1 - (best_a.sum() + best_b.sum()) / (len(best_a) + len(best_b)))
        else:
            want.append(1 - (best_a.mean() + best_b.mean()) / 2)
    np.testing.assert_allclose(got.set_overall, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_sparse_can_match_equals_dense(kind, monkeypatch):
    """The pairings that can match, from the pairs listed in the boxes shrunk at the
    threshold (bounds.threshold_boxes), are those of every pair."""
    c = prepare(_dense_frame(60, kind, seed=3))
    ann = c.annotations
    a, b = np.triu_indices(ann.empty, k=1)
    for tau in (0.0, 0.5, 0.9):
        monkeypatch.setattr(pipeline, "REACH_SPARSE_MIN_PAIRS", 0)
        sparse = pipeline.can_match(c, ann, a, b, tau=tau)
        monkeypatch.setattr(pipeline, "REACH_SPARSE_MIN_PAIRS", 10**18)
        np.testing.assert_array_equal(sparse, pipeline.can_match(c, ann, a, b, tau=tau))


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_can_match_tried_on_the_first_objects_equals_every_pair(kind, monkeypatch):
    """can_match decides a large pairing on its first REACH_HEAD objects of side a where
    they have a pair that can reach tau, and on every pair otherwise: the pairings are
    those of looking at every pair (some decided on the head, some reachable only
    through an object after it, some not at all)."""
    c = prepare(_dense_frame(60, kind, seed=3))
    ann = c.annotations
    a, b = np.triu_indices(ann.empty, k=1)
    monkeypatch.setattr(pipeline, "REACH_HEAD", 2)
    seen = np.zeros(3, dtype=bool)
    for tau in (0.5, 0.8):
        whole = pipeline._can_match(c, ann, a, b, tau, True)
        np.testing.assert_array_equal(pipeline.can_match(c, ann, a, b, tau=tau), whole)
        head = ann.count[a] > 4
        m, z = np.arange(len(a)), np.zeros(2 * len(a) + 1, dtype=np.int64)
        start = np.concatenate([ann.start[a], ann.start[b], [0]])
        count = np.concatenate([np.minimum(ann.count[a], 2), ann.count[b], [0]])
        short = Slices(start=start, count=count, item=z, annotator=z)
        on_head = head & pipeline._can_match(c, short, m, m + len(a), tau, True)
        seen |= [on_head.any(), (whole & head & ~on_head).any(), (head & ~whole).any()]
    assert seen.all()


def test_sweep_index_ranks_the_corpus_once_after_twice_its_objects():
    """The sweeps of a corpus rank their own coordinates until they have ranked twice its
    objects; then every object's coordinates are ranked once and held (for these boxes),
    and the pairs are those of a sweep ranking its own."""
    from iaa_frames.geometry.box_index import Sweep

    corpus = prepare(iaf.simulate(n_items=6, objects_per_item=40, seed=3))
    slots = corpus.annotations
    a, b = np.arange(3), np.arange(3, 6)
    args = (slots.start[a], slots.count[a], slots.start[b], slots.count[b])
    n = len(corpus.area)
    entries = int(slots.count[a].sum() + slots.count[b].sum())
    held = []
    for _ in range(2 * n // entries + 2):
        sweep = pipeline.sweep_index(corpus, 0.5, False, *args)
        held.append(sweep.index.global_ranks is not None)
        own = Sweep(pipeline.sweep_boxes(corpus, 0.5, False), *args)
        for x, y in zip(sweep.pairs(), own.pairs(), strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(sweep.search().cost, own.search().cost)
    first = held.index(True)
    assert not any(held[:first]) and all(held[first:])
    assert first * entries < 2 * n <= (first + 1) * entries
