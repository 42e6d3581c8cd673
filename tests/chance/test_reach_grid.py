"""Tests for iaa_frames.chance.reach_grid: the grid of reach boxes never rules out a
pairing that the IoU bound of its object pairs lets through, and the tables built with
it are those built without it."""

import numpy as np
import pandas as pd
import pytest

from iaa_frames.chance import reach_grid
from iaa_frames.chance.reach_grid import ReachGrid, object_cells, reach_boxes
from iaa_frames.matching.corpus import Slices, prepare
from iaa_frames.matching.pipeline import can_match, iou_upper_bound


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
    import iaa_frames.tables.pairs as pairs

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
