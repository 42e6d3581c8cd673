"""Tests for the within/between pair tables and the chance baseline (issue #3)."""

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.tables.pairs import pair_tables


def _boxes(rows):
    return iaf.from_records(
        [
            dict(item=i, annotator=a, label=lab, x0=x0, y0=0, x1=x1, y1=10)
            for i, a, lab, x0, x1 in rows
        ]
    )


def test_optimal_assignment_on_boxes_beats_greedy():
    # a0=[0,10] b0=[1,11]: IoU 9/11 = 0.818 (the greedy first choice)
    # a1=[3,13] b0: IoU 8/12 = 0.667;  a0 b1=[-2,8]: IoU 8/12 = 0.667;  a1 b1: 5/15 = 0.333
    # greedy keeps one pair (a0-b0); the optimal assignment keeps two (a0-b1, a1-b0)
    df = _boxes(
        [
            ("img", "A", "c", 0, 10),
            ("img", "A", "c", 3, 13),
            ("img", "B", "c", 1, 11),
            ("img", "B", "c", -2, 8),
        ]
    )
    w = iaf.within(df, n_chance=10)
    got = {frozenset(p) for p in zip(w["object_id_a"], w["object_id_b"])}
    assert got == {frozenset((0, 3)), frozenset((1, 2))}
    assert w["iou"].to_numpy() == pytest.approx([8 / 12, 8 / 12])


def test_within_columns_and_threshold():
    df = iaf.simulate(n_items=30, seed=2)
    w = iaf.within(df, match_threshold=0.7, n_chance=100)
    assert list(w.columns) == [
        "item",
        "annotator_a",
        "annotator_b",
        "label_a",
        "label_b",
        "object_id_a",
        "object_id_b",
        "iou",
        "distance",
    ]
    assert (w["iou"] >= 0.7).all()
    assert (w["annotator_a"] != w["annotator_b"]).all()
    assert w["distance"].between(0, 1).all()
    # giou distance of a matched pair, recomputed independently from the frame
    obj = df.set_index("object_id")
    r = w.iloc[0]
    a, b = obj.loc[r["object_id_a"]], obj.loc[r["object_id_b"]]
    sa = iaf.Shapes([[a.x0 / a.width, a.y0 / a.height, a.x1 / a.width, a.y1 / a.height]])
    sb = iaf.Shapes([[b.x0 / b.width, b.y0 / b.height, b.x1 / b.width, b.y1 / b.height]])
    assert r["distance"] == pytest.approx(iaf.get_distance("giou")(sa, sb)[0])


def test_between_uses_the_same_matcher_and_threshold():
    df = iaf.simulate(n_items=40, seed=3)
    for tau in (0.3, 0.6):
        b = iaf.between(df, match_threshold=tau, n_chance=300, seed=1)
        assert (b["iou"] >= tau).all()
        assert (b["item_a"] != b["item_b"]).all()
        assert (b["annotator_a"] != b["annotator_b"]).all()
        flags = ["in_uniform", "in_annotator_a", "in_annotator_b", "in_pair", "in_label"]
        assert b[flags].any(axis=1).all()  # every row counts in some cell
        by_class = b[b["in_label"]]
        assert (by_class["label_a"] == by_class["label_b"]).all()


def test_chance_sample_is_seeded_and_meets_its_target():
    # 200 items x 3 annotators: too many pairings to enumerate, so the strata are sampled;
    # a low threshold, so that unrelated objects match often enough to meet the targets
    df = iaf.simulate(n_items=200, seed=4)
    t1 = pair_tables(df, n_chance=400, seed=7, match_threshold=0.2)
    t2 = pair_tables(df, n_chance=400, seed=7, match_threshold=0.2)
    t3 = pair_tables(df, n_chance=400, seed=8, match_threshold=0.2)
    assert t1.params["chance_population"] == "sampled"
    pd.testing.assert_frame_equal(t1.localization_between, t2.localization_between)
    assert not t1.localization_between.equals(t3.localization_between)
    b = t1.localization_between
    assert not b.duplicated(["object_a", "object_b"]).any()
    assert b["in_uniform"].sum() >= 400
    # every annotator's cell: the uniform units that involve it and its own stratum's
    per_annotator = np.bincount(
        np.r_[
            b.annotator_a[b.in_uniform | b.in_annotator_a],
            b.annotator_b[b.in_uniform | b.in_annotator_b],
        ]
    )
    assert per_annotator.min() >= 400
    own = b[(b.label_a == b.label_b) & (b.in_uniform | b.in_label)]
    assert (own.groupby("label_a").size() >= 400).all()
    s = t1.sets_between
    assert not s.duplicated(["item_a", "item_b", "annotator_a", "annotator_b", "label"]).any()
    # detection and overall: the uniform stratum's pilot at least, the target at most
    # (sized by their noise: chance.sizing); each class cell likewise
    assert 200 <= (s[s["label"] == -1]["in_uniform"].sum()) <= 400
    per_class = s[s["label"] >= 0].groupby("label").size()
    assert ((per_class >= 50) & (per_class <= 400)).all()


def test_detection_and_overall_distances_by_hand():
    # A draws two boxes, B draws one matching box: F1 = 2*1/(2+1) -> detection 1/3
    df = _boxes(
        [
            ("x", "A", "c", 0, 10),
            ("x", "A", "c", 50, 60),
            ("x", "B", "c", 0, 10),
            ("y", "A", "c", 0, 10),
        ]
    )
    df = pd.concat([df, pd.DataFrame([{"item": "y", "annotator": "B"}])], ignore_index=True)
    t = pair_tables(df, n_chance=5)
    s = t.sets_within.query("label == -1").set_index("item")
    x, y = (np.flatnonzero(t.corpus.items == k)[0] for k in ("x", "y"))
    assert s.loc[x, "detection"] == pytest.approx(1 / 3)
    # pooled best matches: A's boxes 1 and 0, B's box 1 -> similarity 2/3
    assert s.loc[x, "overall"] == pytest.approx(1 / 3)
    # y: A drew a box, B reviewed and drew nothing
    assert s.loc[y, "detection"] == 1 and s.loc[y, "overall"] == 1


def test_items_left_empty_by_everyone_count_as_agreement_on_absence():
    df = iaf.simulate(n_items=20, seed=5)
    empty = iaf.from_records([{"item": "blank", "annotator": a} for a in "ABC"])
    t = pair_tables(pd.concat([df, empty], ignore_index=True), n_chance=100)
    blank = np.flatnonzero(t.corpus.items == "blank")[0]  # noqa: F841  (used by query)
    rows = t.sets_within.query("item == @blank")
    assert len(rows) == 3 and (rows["detection"] == 0).all() and (rows["overall"] == 0).all()
    # an all-empty corpus has no objects and still builds (empty) tables
    t0 = pair_tables(empty, n_chance=10)
    assert len(t0.localization_within) == 0 and len(t0.units) == 0


def test_clusters_hold_one_object_per_annotator():
    df = iaf.simulate(
        n_items=50,
        annotators={"a": "sloppy", "b": "sloppy", "c": "good"},
        objects_per_item=8,
        seed=6,
    )
    u = pair_tables(df, match_threshold=0.1, n_chance=50).units
    assert not u.duplicated(["cluster", "annotator"]).any()
    assert (u.groupby("cluster")["item"].nunique() == 1).all()


def _canonical(t, frame, cols):
    c = t.corpus
    out = pd.DataFrame(
        {
            "item": c.items[frame["item"]],
            "ann": [
                tuple(sorted(p))
                for p in zip(c.annotators[frame["annotator_a"]], c.annotators[frame["annotator_b"]])
            ],
        }
    )
    for col in cols:
        out[col] = frame[col].to_numpy()
    return out.sort_values(list(out.columns)).reset_index(drop=True)


def test_tables_do_not_depend_on_row_order_or_names():
    df = iaf.simulate(n_items=40, seed=8)
    t = pair_tables(df, n_chance=300, seed=3)
    shuffled = df.sample(frac=1, random_state=1).reset_index(drop=True)
    t2 = pair_tables(shuffled, n_chance=300, seed=3)
    pd.testing.assert_frame_equal(
        _canonical(t, t.localization_within, ["iou", "distance"]),
        _canonical(t2, t2.localization_within, ["iou", "distance"]),
    )
    # the chance sample itself is the same: identical distances in the same order
    np.testing.assert_array_equal(
        t.localization_between["distance"], t2.localization_between["distance"]
    )
    # renaming items and annotators (reversing their sort order) changes nothing either
    ren = df.assign(
        item=df["item"].map(lambda s: "z" + s[::-1]),
        annotator=df["annotator"].map({"A": "zz", "B": "yy", "C": "xx"}),
    )
    t3 = pair_tables(ren, n_chance=300, seed=3)
    np.testing.assert_allclose(
        np.sort(t.localization_within["distance"]), np.sort(t3.localization_within["distance"])
    )
    np.testing.assert_array_equal(
        t.localization_between["distance"], t3.localization_between["distance"]
    )
    np.testing.assert_array_equal(t.sets_between["detection"], t3.sets_between["detection"])


# -- the chance baseline: random annotators -------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "tau, k, n_items", [(0.5, 1, 4000), (0.0, 1, 400), (0.5, 10, 150), (0.0, 10, 100)]
)
def test_random_annotators_within_equals_between(tau, k, n_items):
    """The property existing tools get wrong: for annotators who draw at random, the
    within-item and between-item distances have the same mean (within sampling error),
    at any threshold and density. Filtering only the within pairs by the matcher would
    give sigma around 0.7 here."""
    n_ann = 6 if k == 1 and tau > 0 else 4
    df = iaf.simulate(
        n_items=n_items,
        annotators={f"r{i}": "random" for i in range(n_ann)},
        objects_per_item=k,
        objects_per="fixed",
        seed=11,
    )
    t = pair_tables(df, match_threshold=tau, n_chance=2000, seed=0)
    w = t.localization_within["distance"].to_numpy()
    b = t.localization_between.query("in_uniform")["distance"].to_numpy()
    assert len(w) >= 100 and len(b) >= 250
    se = np.sqrt(w.var() / len(w) + b.var() / len(b))
    assert abs(w.mean() - b.mean()) < 4 * se
    assert abs(1 - w.mean() / b.mean()) < 0.05
    dw = t.sets_within.query("label == -1")["detection"].to_numpy()
    db = t.sets_between.query("label == -1 and in_uniform")["detection"].to_numpy()
    if db.mean() > 0:  # at tau = 0 with fixed counts every object is matched
        se = np.sqrt(dw.var() / len(dw) + db.var() / len(db))
        assert abs(dw.mean() - db.mean()) < 4 * se


def test_naive_chance_pairs_would_be_biased():
    """Guard that the test above can fail: unfiltered chance pairs give a large sigma."""
    df = iaf.simulate(
        n_items=400,
        annotators={f"r{i}": "random" for i in range(4)},
        objects_per_item=1,
        objects_per="fixed",
        seed=11,
    )
    t = pair_tables(df, match_threshold=0.5, n_chance=200, seed=0)
    w = t.localization_within["distance"].to_numpy()
    c = t.corpus
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, len(c.objects), (2, 5000))
    naive = iaf.get_distance("giou")(c.shapes.take(i), c.shapes.take(j))
    assert 1 - w.mean() / naive.mean() > 0.5


@pytest.mark.parametrize("kind, tau", [("box", 0.5), ("polygon", 0.5), ("mixed", 0.3)])
def test_skipping_pairings_that_cannot_match_changes_nothing(kind, tau):
    """can_match is an exact shortcut: the pairings it rules out produce no matched pair."""
    from iaa_frames.core.matching.corpus import prepare
    from iaa_frames.core.matching.pipeline import can_match, run
    from iaa_frames.geometry.distances import get_distance

    corpus = prepare(iaf.simulate(n_items=60, kind=kind, seed=9))
    slots = corpus.annotations
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, slots.empty, (2, 3000))
    ok = can_match(corpus, slots, a, b, tau=tau)
    assert 0 < ok.sum() < len(ok)
    full = run(corpus, slots, a, b, tau=tau, distance=get_distance("giou"), sets=False)
    part = run(corpus, slots, a[ok], b[ok], tau=tau, distance=get_distance("giou"), sets=False)
    assert set(np.unique(full.pair_pairing)) <= set(np.flatnonzero(ok))
    np.testing.assert_array_equal(full.pair_a, part.pair_a)
    np.testing.assert_array_equal(full.pair_b, part.pair_b)
    np.testing.assert_allclose(full.pair_distance, part.pair_distance)


def test_polygon_shortcuts_give_the_exact_matching():
    """The pipeline computes exact polygon IoU only where it can matter; a brute-force
    computation of every candidate IoU with shapely gives the same matches."""
    import shapely

    from iaa_frames.core.matching.assignment import assign, candidate_pairs
    from iaa_frames.core.matching.corpus import prepare
    from iaa_frames.core.tables.steps import within_pairings
    from iaa_frames.geometry.distances import as_polygons

    df = iaf.simulate(
        n_items=30, kind="polygon", seed=10, annotators={"a": "sloppy", "b": "good", "c": "sloppy"}
    )
    t = pair_tables(df, n_chance=50)
    corpus = prepare(df)
    ann = corpus.annotations
    a, b = within_pairings(ann)
    p, la, lb, oa, ob = candidate_pairs(ann.start[a], ann.count[a], ann.start[b], ann.count[b])
    polys = as_polygons(corpus.shapes)
    inter = shapely.area(shapely.intersection(polys[oa], polys[ob]))
    iou = inter / (corpus.area[oa] + corpus.area[ob] - inter)
    chosen = assign(p, la, lb, ann.count[a], ann.count[b], iou, iou >= 0.5)
    brute = {tuple(x) for x in np.column_stack([oa[chosen], ob[chosen]])}
    got = {tuple(x) for x in t.localization_within[["object_a", "object_b"]].to_numpy()}
    assert got == brute


@pytest.mark.parametrize("kind", ["box", "polygon"])
def test_set_distance_equals_brute_force(kind):
    """The set-level distance skips pairs that cannot change a best match; computing the
    floored GIoU of every candidate pair gives the same pooled distance (Braylan et al.)."""
    from iaa_frames.core.matching.assignment import candidate_pairs
    from iaa_frames.core.matching.corpus import prepare
    from iaa_frames.core.tables.steps import within_pairings
    from iaa_frames.geometry.distances import giou

    df = iaf.simulate(
        n_items=25,
        kind=kind,
        seed=12,
        objects_per_item=6,
        annotators={"a": "sloppy", "b": "good", "c": "misser"},
    )
    t = pair_tables(df, n_chance=50)
    corpus = prepare(df)
    ann = corpus.annotations
    a, b = within_pairings(ann)
    p, la, lb, oa, ob = candidate_pairs(ann.start[a], ann.count[a], ann.start[b], ann.count[b])
    sim = np.maximum(giou(corpus.shapes.take(oa), corpus.shapes.take(ob)), 0)
    best_a = pd.Series(sim).groupby([p, la]).max().groupby(level=0).sum()
    best_b = pd.Series(sim).groupby([p, lb]).max().groupby(level=0).sum()
    n = ann.count[a] + ann.count[b]
    expected = np.where(
        n == 0,
        0.0,
        1
        - (
            best_a.reindex(range(len(a)), fill_value=0)
            + best_b.reindex(range(len(a)), fill_value=0)
        )
        / n,
    )
    expected = np.where((ann.count[a] == 0) != (ann.count[b] == 0), 1.0, expected)
    got = t.sets_within.query("label == -1")["overall"].to_numpy()
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_pair_tables_repr_is_one_line():
    t = pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=50)
    text = repr(t)
    assert "\n" not in text and text.startswith("<PairTables: 10 items, 3 annotators")
    assert f"localization_within {len(t.localization_within):,}" in text


# ------------------------------- #41 B6: the within-item matching is bounded by memory


def test_b6_a_corpus_whose_pairs_exceed_memory_is_refused_before_matching(monkeypatch):
    import time

    from iaa_frames.core.tables import pairs as pairs_module
    from iaa_frames.errors import NotComparableError

    rng = np.random.default_rng(0)
    n_ann = 300  # 2 boxes each on 5 images: ~120 annotations per image
    items = rng.integers(0, 5, size=2 * n_ann)
    x = rng.uniform(0, 80, size=2 * n_ann)
    df = pd.DataFrame(
        {
            "item": [f"img{i}" for i in items],
            "annotator": np.repeat([f"a{k}" for k in range(n_ann)], 2),
            "label": "cat",
            "x0": x,
            "y0": x,
            "x1": x + 20,
            "y1": x + 20,
        }
    )
    monkeypatch.setattr(pairs_module, "BYTES_PER_PAIR", 1 << 20)  # as if 1 MiB a pair
    monkeypatch.setattr(pairs_module, "available_memory", lambda: 4 << 30)
    start = time.perf_counter()
    with pytest.raises(NotComparableError, match=r"pairs of annotations \(300 annotators") as e:
        iaf.agreement(df, n_boot=0, n_chance=50, progress=False)
    assert time.perf_counter() - start < 10  # refused before matching
    assert "GiB of memory available" in str(e.value) and "sample of the annotators" in str(e.value)
    # memory the system does not report, or enough of it: computed
    monkeypatch.setattr(pairs_module, "available_memory", lambda: None)
    monkeypatch.setattr(pairs_module, "BYTES_PER_PAIR", 450)
    assert iaf.agreement(df.iloc[:40], n_boot=0, n_chance=50, progress=False).sizes["annotator"]


def test_b6_available_memory_is_a_positive_count_or_none():
    from iaa_frames.core.tables.pairs import available_memory

    free = available_memory()
    assert free is None or (isinstance(free, int) and free > 0)
