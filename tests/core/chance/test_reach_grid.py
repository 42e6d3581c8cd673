"""Tests for iaa_frames.core.chance.reach_grid: the grid of reach boxes never rules out a
pairing that the IoU bound of its object pairs lets through, and the tables built with
it are those built without it."""

import numpy as np
import pandas as pd
import pytest

from iaa_frames.core.chance import reach_grid
from iaa_frames.core.chance.reach_grid import ReachGrid, object_cells, reach_boxes
from iaa_frames.core.matching.corpus import Slices, prepare
from iaa_frames.core.matching.pipeline import can_match, iou_upper_bound


def _frame(rng, n_items, n_ann, scale, spread, per=3, sizes=None):
    """Boxes placed at random with sides of log-uniform size (``spread`` decades)."""
    n = n_items * n_ann * per
    side = scale * 10.0 ** rng.uniform(-spread, 0, (n, 2))
    if sizes is not None:
        side[: len(sizes)] = sizes
    lo = rng.uniform(0, scale * 4, (n, 2))
    if sizes is not None:  # at the origin, where a tiny side is still a side
        lo[: len(sizes)] = 0.0
    return pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items), n_ann * per).astype(str),
            "annotator": np.tile(np.repeat(np.arange(n_ann), per), n_items).astype(str),
            "label": rng.integers(0, 3, n).astype(str),
            "x0": lo[:, 0],
            "y0": lo[:, 1],
            "x1": lo[:, 0] + side[:, 0],
            "y1": lo[:, 1] + side[:, 1],
        }
    )


def _pairings(rng, slots, n):
    a, b = rng.integers(0, slots.empty + 1, n), rng.integers(0, slots.empty + 1, n)
    return a, b


@pytest.mark.parametrize("tau", [0.001, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize(("scale", "spread"), [(1.0, 1.5), (1000.0, 3.0), (1e-6, 2.0), (1e9, 1.0)])
def test_a_pairing_that_can_match_is_never_ruled_out(tau, scale, spread):
    rng = np.random.default_rng(int(tau * 1000) + int(np.log10(scale)) + 50)
    corpus = prepare(_frame(rng, 40, 4, scale, spread), normalize=False)
    for slots in (corpus.annotations, corpus.by_label):
        grid = ReachGrid.of(corpus, slots, tau)
        assert grid is not None
        a, b = _pairings(rng, slots, 20_000)
        can = can_match(corpus, slots, a, b, tau=tau)
        may = grid.may_match(a, b)
        assert not (can & ~may).any()
        assert may.sum() < len(a)  # the test rules some out


@pytest.mark.parametrize("tau", [1 / 3, 0.5, 0.25, 0.7])
def test_boxes_whose_iou_is_exactly_the_threshold_are_kept(tau):
    # two unit-high boxes of width 1 offset so that their IoU is tau, at many offsets
    # from the origin and scales: the IoU as computed reaches tau (or just misses it)
    rng = np.random.default_rng(3)
    shift = (1 - tau) / (1 + tau)  # IoU of [0, 1] and [s, 1 + s] is (1 - s) / (1 + s)
    rows = []
    for k in range(200):
        off, scale = rng.uniform(-1e3, 1e3), 10.0 ** rng.uniform(-3, 3)
        for ann, dx in ((0, 0.0), (1, shift)):
            x0 = off + dx * scale
            rows.append((f"i{k}", str(ann), "a", x0, off, x0 + scale, off + scale))
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "x0", "y0", "x1", "y1"])
    corpus = prepare(df, normalize=False)
    slots = corpus.annotations
    n = slots.empty
    a = np.repeat(np.arange(n), n)
    b = np.tile(np.arange(n), n)
    can = can_match(corpus, slots, a, b, tau=tau)
    assert can.sum() >= 100  # the computed IoU reaches tau at least half the time
    assert not (can & ~ReachGrid.of(corpus, slots, tau).may_match(a, b)).any()


def test_reach_boxes_of_two_boxes_at_the_threshold_overlap():
    # item i holds box a_i of one annotator and b_i, near it, of the other
    rng = np.random.default_rng(5)
    n = 5_000
    a = rng.uniform(-5, 5, (n, 2))
    wa = rng.uniform(0.1, 3, (n, 2))
    b = a + rng.normal(0, 0.3, (n, 2))
    wb = wa * rng.uniform(0.5, 2, (n, 2))
    boxes = np.vstack([np.hstack([a, a + wa]), np.hstack([b, b + wb])])
    frame = pd.DataFrame(
        {
            "item": np.r_[np.arange(n), np.arange(n)].astype(str),
            "annotator": np.repeat(["p", "q"], n),
            "label": "a",
            "x0": boxes[:, 0],
            "y0": boxes[:, 1],
            "x1": boxes[:, 2],
            "y1": boxes[:, 3],
        }
    )
    corpus = prepare(frame, normalize=False)
    first = np.flatnonzero(corpus.annotator == 0)
    second = np.flatnonzero(corpus.annotator == 1)
    oa = first[np.argsort(corpus.item[first])]
    ob = second[np.argsort(corpus.item[second])]
    for tau in (0.2, 0.5, 0.8):
        reach = iou_upper_bound(corpus, oa, ob) >= tau
        lo_x, hi_x, lo_y, hi_y, sure = reach_boxes(corpus.shapes.boxes, tau)
        meet = (
            (lo_x[oa] <= hi_x[ob])
            & (lo_x[ob] <= hi_x[oa])
            & (lo_y[oa] <= hi_y[ob])
            & (lo_y[ob] <= hi_y[oa])
        )
        assert sure.all()
        assert reach.sum() > 10 and not (reach & ~meet).any()
        assert meet.sum() < n  # and rules some pairs out


def test_boxes_not_sure_keep_their_slots_and_empty_slots_never_match():
    rng = np.random.default_rng(9)
    df = _frame(rng, 10, 3, 1.0, 1.0, sizes=[[1e-200, 1.0]])  # one degenerate box
    corpus = prepare(df, normalize=False)
    slots = corpus.annotations
    sure = reach_boxes(corpus.shapes.boxes, 0.5)[4]
    assert (~sure).sum() == 1
    slot = np.searchsorted(slots.start[:-1], np.flatnonzero(~sure)[0], side="right") - 1
    grid = ReachGrid.of(corpus, slots, 0.5)
    others = np.arange(slots.empty)
    others = others[slots.count[others] > 0]
    assert grid.may_match(np.full(len(others), slot), others).all()
    empty = np.full(len(others), slots.empty)
    assert not grid.may_match(empty, others).any()


def test_no_grid_below_the_smallest_threshold_or_for_other_shapes():
    import iaa_frames as iaf

    corpus = prepare(iaf.simulate(n_items=4, seed=0))
    assert ReachGrid.of(corpus, corpus.annotations, reach_grid.MIN_TAU / 2) is None
    assert ReachGrid.of(corpus, corpus.annotations, 0.0) is None
    polygons = prepare(iaf.simulate(n_items=4, seed=0, kind="polygon"))
    assert ReachGrid.of(polygons, polygons.annotations, 0.5) is None


@pytest.mark.parametrize("n_chance", [100, 2000])
def test_pair_tables_are_the_same_without_the_grid(n_chance, monkeypatch):
    import iaa_frames as iaf
    import iaa_frames.core.tables.pairs as pairs

    df = iaf.simulate(n_items=1500, seed=2)
    tested = []
    may_match = ReachGrid.may_match
    monkeypatch.setattr(
        ReachGrid, "may_match", lambda self, a, b: tested.append(len(a)) or may_match(self, a, b)
    )
    got = iaf.pair_tables(df, n_chance=n_chance, progress=False)
    assert sum(tested) > 0  # the draw went through the grids
    monkeypatch.setattr(pairs, "object_cells", lambda corpus, tau: None)
    want = iaf.pair_tables(df, n_chance=n_chance, progress=False)
    for name in ("localization_between", "sets_between", "localization_within", "label_source"):
        a, b = getattr(got, name), getattr(want, name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
        else:
            np.testing.assert_array_equal(a, b)


def test_slots_in_any_order_get_the_cells_of_their_objects():
    # the annotations in reverse order (and the empty slot first): no longer a tiling of
    # the objects in order, the slower path must give each slot the same cells
    rng = np.random.default_rng(11)
    corpus = prepare(_frame(rng, 30, 3, 1.0, 1.5), normalize=False)
    slots = corpus.annotations
    order = np.arange(len(slots.count))[::-1]
    shuffled = Slices(
        start=slots.start[order],
        count=slots.count[order],
        item=slots.item[order],
        annotator=slots.annotator[order],
    )
    cells = object_cells(corpus, 0.5)
    want = ReachGrid.of(corpus, slots, 0.5, cells).cells[order]
    np.testing.assert_array_equal(ReachGrid.of(corpus, shuffled, 0.5, cells).cells, want)
    assert (want[1:] != 0).any(axis=1).all()  # every annotation holds a box (empty: first)


@pytest.mark.parametrize("tau", [0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize(("scale", "spread"), [(1.0, 0.3), (1e-6, 0.5), (1e9, 0.2)])
def test_reach_pairings_are_those_of_every_object_pair(tau, scale, spread):
    # the listing from reach boxes finds exactly the pairings the comparison of every
    # pair of a class's objects finds, in the same order
    from iaa_frames.core.chance.gating import reachable_label_pairings

    rng = np.random.default_rng(int(tau * 100) + int(np.log10(scale)) + 7)
    corpus = prepare(_frame(rng, 80, 3, scale, spread, per=6), normalize=False)
    labels = np.arange(len(corpus.labels))
    lab, a, b, listed = reach_grid.reach_pairings(corpus, labels, tau, np.full(len(labels), 1e12))
    assert listed.all()
    want = reachable_label_pairings(corpus, labels, tau)
    for got, expected in zip((lab, a, b), want, strict=True):
        np.testing.assert_array_equal(got, expected)
    if tau <= 0.5:  # at 0.9 there may be none
        assert len(lab) > 50


def test_reach_pairings_of_classes_in_their_own_regions_and_sizes():
    # classes with their own sizes and places, objects small against the image, a few
    # annotators whose boxes are near each other's: the same pairings as in full
    from iaa_frames.core.chance.gating import reachable_label_pairings

    rng = np.random.default_rng(5)
    n = 3000
    label = rng.integers(0, 4, n)
    side = (8.0 + 12.0 * label) * np.exp(rng.normal(0, 0.3, n))
    x = 150.0 * label + rng.uniform(0, 200, n)
    y = rng.uniform(0, 400, n)
    df = pd.DataFrame(
        {
            "item": (np.arange(n) // 15).astype(str),
            "annotator": (np.arange(n) % 3).astype(str),
            "label": label.astype(str),
            "x0": x,
            "y0": y,
            "x1": x + side,
            "y1": y + side,
            "width": 800.0,
            "height": 600.0,
        }
    )
    corpus = prepare(df)
    labels = np.arange(len(corpus.labels))
    got = reach_grid.reach_pairings(corpus, labels, 0.5, np.full(4, 1e12))
    want = reachable_label_pairings(corpus, labels, 0.5)
    assert len(want[0]) > 100
    for g, w in zip(got[:3], want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_reach_pairings_leave_out_pairs_of_one_group_and_find_identical_boxes():
    # items in groups (near-duplicate frames): a pair of one group is no chance pairing;
    # boxes copied exactly from item to item reach tau = 1
    from iaa_frames.core.chance.gating import reachable_label_pairings

    rng = np.random.default_rng(11)
    df = _frame(rng, 60, 3, 1.0, 0.3, per=4)
    df["group"] = (df["item"].astype(int) // 3).astype(str)
    # annotator 0's boxes of item 0, drawn by annotator 1 on item 59
    copied = df[(df["item"] == "0") & (df["annotator"] == "0")]
    copied = copied.assign(item="59", group="19", annotator="1")
    df = pd.concat([df[df["item"] != "59"], copied], ignore_index=True)
    corpus = prepare(df, normalize=False)
    assert corpus.group is not None
    labels = np.arange(len(corpus.labels))
    for tau in (0.5, 1.0):
        got = reach_grid.reach_pairings(corpus, labels, tau, np.full(3, 1e12))
        want = reachable_label_pairings(corpus, labels, tau)
        for g, w in zip(got[:3], want, strict=True):
            np.testing.assert_array_equal(g, w)
        items = corpus.annotations.item
        assert (corpus.group[items[got[1]]] != corpus.group[items[got[2]]]).all()
    assert len(got[0]) > 0  # the copies reach tau = 1


def test_a_class_with_a_box_not_sure_or_past_its_budget_is_not_listed():
    rng = np.random.default_rng(9)
    corpus = prepare(_frame(rng, 30, 3, 1.0, 1.0, sizes=[[1e-200, 1.0]]), normalize=False)
    labels = np.arange(len(corpus.labels))
    sure = reach_boxes(corpus.shapes.boxes, 0.5)[4]
    unsure = corpus.label[~sure][0]
    lab, _, _, listed = reach_grid.reach_pairings(corpus, labels, 0.5, np.full(3, 1e12))
    assert not listed[unsure] and listed[labels != unsure].all()
    assert not (lab == unsure).any()
    # a budget of nothing: no class listed (their pairs are not none)
    lab, _, _, listed = reach_grid.reach_pairings(corpus, labels, 0.5, np.zeros(3))
    assert not listed.any() and not len(lab)
    # only the classes asked for
    lab, _, _, listed = reach_grid.reach_pairings(corpus, labels[:1], 0.5, np.full(3, 1e12))
    assert listed.tolist() == [unsure != 0, False, False]
    assert set(lab.tolist()) <= {0}


def test_class_pairs_are_every_meeting_pair_once_or_none_past_the_most(monkeypatch):
    import shapely

    monkeypatch.setattr(reach_grid, "QUERY_BLOCK", 64)  # several blocks of queries
    rng = np.random.default_rng(2)
    lo = rng.uniform(0, 10, (300, 2))
    hi = lo + rng.uniform(0, 1.5, (300, 2))
    geoms = shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1])
    i, j = np.triu_indices(300, 1)
    meet = (np.minimum(hi[i], hi[j]) >= np.maximum(lo[i], lo[j])).all(axis=1)
    want = set(zip(i[meet].tolist(), j[meet].tolist(), strict=True))
    got = reach_grid._class_pairs(geoms, 1e12)
    assert set(zip(*(x.tolist() for x in got), strict=True)) == want
    assert len(got[0]) == len(want)  # each once
    assert reach_grid._class_pairs(geoms, len(want) - 1) is None


def _meeting_pairs(lo, hi) -> int:
    """The pairs of boxes (rows of corners ``lo``, ``hi``) that meet, every pair compared."""
    i, j = np.triu_indices(len(lo), 1)
    return int((np.minimum(hi[i], hi[j]) >= np.maximum(lo[i], lo[j])).all(axis=1).sum())


def test_overlaps_estimate_is_the_count_when_every_box_is_sampled():
    # at most ESTIMATE_SAMPLE boxes per class: every box is sampled and every overlap in
    # x looked at, so the estimate is the number of pairs whose boxes meet
    rng = np.random.default_rng(4)
    n = 2 * reach_grid.ESTIMATE_SAMPLE
    label = np.repeat([0, 1], n // 2)
    lo = rng.uniform(0, 10, (n, 2))
    hi = lo + rng.uniform(0, 2, (n, 2))
    span = 2 * float(max(hi.max(), 10)) + 1
    got = reach_grid._overlaps_estimate(label, (lo[:, 0], hi[:, 0]), (lo[:, 1], hi[:, 1]), span, 2)
    for c in (0, 1):
        want = _meeting_pairs(lo[label == c], hi[label == c])
        assert got[c] == pytest.approx(want, rel=1e-12)


def _regions(rng, n_items, per_item=5, n_labels=4, extent=800.0):
    """Three annotators who each draw the same objects (their boxes jittered by a tenth
    of a side), of classes with their own sizes and regions (``extent`` wide, twice as
    high), small against a 4000 x 3000 image."""
    n = n_items * per_item
    label = rng.integers(0, n_labels, n)
    side = (8.0 + 12.0 * label) * np.exp(rng.normal(0, 0.3, n))
    x = 900.0 * label + rng.uniform(0, extent, n)
    y = rng.uniform(0, 2 * extent, n)
    frames = []
    for annotator in range(3):
        jitter = rng.normal(0, 0.1, (n, 2)) * side[:, None]
        frames.append(
            pd.DataFrame(
                {
                    "item": np.repeat(np.arange(n_items), per_item).astype(str),
                    "annotator": str(annotator),
                    "label": label.astype(str),
                    "x0": x + jitter[:, 0],
                    "y0": y + jitter[:, 1],
                    "x1": x + jitter[:, 0] + side,
                    "y1": y + jitter[:, 1] + side,
                    "width": 4000.0,
                    "height": 3000.0,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def test_listed_classes_get_their_units_from_the_pairings_that_can_match(monkeypatch):
    # the per-class localization stratum of classes too large to compare in full, as at
    # scale (no chance index): listed, each class gets at least the units the draws got,
    # every pairing it matched is one that can match, and a class whose whole list was
    # matched is "enumerated"
    import iaa_frames as iaf
    import iaa_frames.core.chance.strata as strata
    from iaa_frames.core.chance.gating import reachable_label_pairings

    df = _regions(np.random.default_rng(1), 1200)
    monkeypatch.setattr(strata, "gated_pairings", lambda *a, **k: None)
    lists = []
    listing = strata.reach_pairings
    monkeypatch.setattr(strata, "reach_pairings", lambda *a: lists.append(listing(*a)) or lists[-1])
    got = iaf.pair_tables(df, n_chance=1500, progress=False)
    lab, a, b, listed = lists[0]
    assert listed.sum() >= 2

    def none(corpus, labels, tau, budget):
        z = np.zeros(0, np.int64)
        return z, z, z, np.zeros(len(corpus.labels), bool)

    monkeypatch.setattr(strata, "reach_pairings", none)
    drawn = iaf.pair_tables(df, n_chance=1500, progress=False)

    def units(t):
        lb = t.localization_between
        same = lb[lb["label_a"] == lb["label_b"]]
        return same.groupby("label_a", observed=True).size()

    u_got, u_drawn = units(got), units(drawn)
    names = got.corpus.labels
    for c in np.flatnonzero(listed):
        assert u_got.get(names[c], 0) >= u_drawn.get(names[c], 0)
        assert got.label_source[c] in ("enumerated", "sampled")
    assert u_got.sum() > u_drawn.sum()
    # the listed pairings are those of the full comparison
    want = reachable_label_pairings(got.corpus, np.flatnonzero(listed), 0.5)
    np.testing.assert_array_equal(lab, want[0])


def test_overlaps_estimate_of_a_subsample_is_near_the_count(monkeypatch):
    # a class larger than ESTIMATE_OBJECTS is estimated among that many of its boxes,
    # scaled by the ratio of pairs: near the exact count of the pairs that meet
    monkeypatch.setattr(reach_grid, "ESTIMATE_OBJECTS", 500)
    rng = np.random.default_rng(8)
    n = 3000
    label = np.repeat([0, 1], n // 2)
    lo = rng.uniform(0, 20, (n, 2))
    hi = lo + np.exp(rng.normal(-0.5, 0.5, (n, 2)))
    span = 2 * float(hi.max()) + 1
    got = reach_grid._overlaps_estimate(label, (lo[:, 0], hi[:, 0]), (lo[:, 1], hi[:, 1]), span, 2)
    for c in (0, 1):
        want = _meeting_pairs(lo[label == c], hi[label == c])
        assert want > 1000
        assert got[c] == pytest.approx(want, rel=0.25)
