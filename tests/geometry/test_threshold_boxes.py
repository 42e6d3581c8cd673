"""The boxes shrunk at the match threshold (iaa_frames.geometry.bounds.threshold_boxes): every
pair whose IoU, or its bound from the bounding boxes, reaches the threshold overlaps in them."""

import dataclasses

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.core.matching.corpus import prepare
from iaa_frames.geometry.bounds import threshold_boxes
from iaa_frames.geometry.kind_similarity import reach_boxes
from iaa_frames.geometry.mask_rule import may_use_masks
from iaa_frames.geometry.overlap import areas
from iaa_frames.geometry.shapes import Shapes
from iaa_frames.simulate import KeypointProfile, simulate_keypoints

TAUS = (0.05, 0.3, 0.5, 0.5 + 1e-12, 0.7, 0.95, 1.0)


def _overlap(ba, bb):
    """Strict overlap in x and in y, the box index's test."""
    return (np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0]) > 0) & (
        np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1]) > 0
    )


def _box_bound(boxes, area, i, j):
    """The matcher's IoU bound from the boxes (the IoU itself for two boxes)."""
    ba, bb = boxes[i], boxes[j]
    iw = np.clip(np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0]), 0, None)
    ih = np.clip(np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1]), 0, None)
    top = np.minimum(iw * ih, np.minimum(area[i], area[j]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nan_to_num(top / (area[i] + area[j] - top))


def _check(shapes, area, tau):
    n = len(area)
    i, j = np.triu_indices(n, k=0)
    bound = _box_bound(shapes.boxes, area, i, j)
    t = threshold_boxes(shapes, area, tau)
    need = bound >= tau
    assert need.any()
    missed = need & ~_overlap(t[i], t[j])
    assert not missed.any(), (tau, i[missed][:5], j[missed][:5], bound[missed][:5])
    listed = _overlap(shapes.boxes[i], shapes.boxes[j])
    return (~_overlap(t[i], t[j]))[listed].mean()  # of the pairs whose boxes overlap


@pytest.mark.parametrize("tau", TAUS)
@pytest.mark.parametrize("seed", range(6))
def test_box_pairs_at_or_above_the_threshold_overlap(tau, seed):
    """Boxes on an integer grid (ties, nested boxes, pairs exactly at IoU tau such as a box
    and its half) and their copies: none that can be matched is left out, and at
    tau >= 0.3 many overlapping pairs are."""
    rng = np.random.default_rng(seed)
    n = 300
    lo = rng.integers(0, 20, (n, 2)).astype(float)
    size = rng.integers(1, 9, (n, 2)).astype(float)
    boxes = np.c_[lo, lo + size]
    half = boxes[: n // 4].copy()
    half[:, 2] = half[:, 0] + (half[:, 2] - half[:, 0]) / 2  # IoU 0.5 with its box
    boxes = np.r_[boxes, half, boxes[: n // 4] * 1e-3 + 1e3]  # far from 0: rounding
    shapes = Shapes(boxes)
    area = areas(shapes)
    left_out = _check(shapes, area, tau)
    if 0.3 <= tau < 1:
        assert left_out > 0.2


@st.composite
def _polygon(draw):
    cx, cy = draw(st.floats(0, 20)), draw(st.floats(0, 20))
    k = draw(st.integers(3, 9))
    radii = draw(st.lists(st.floats(0.2, 6), min_size=k, max_size=k))
    angle = np.sort(np.asarray(draw(st.lists(st.floats(0, 2 * np.pi), min_size=k, max_size=k))))
    pts = np.c_[cx + np.asarray(radii) * np.cos(angle), cy + np.asarray(radii) * np.sin(angle)]
    g = shapely.make_valid(shapely.Polygon(pts))
    if draw(st.booleans()):  # a hole
        g = g.difference(shapely.Point(cx, cy).buffer(draw(st.floats(0.05, 0.5))))
    if draw(st.booleans()):  # a second part
        g = g.union(shapely.box(cx + 7, cy, cx + 8, cy + draw(st.floats(0.5, 3))))
    return g


@settings(max_examples=60, deadline=None)
@given(st.lists(_polygon(), min_size=2, max_size=12), st.sampled_from(TAUS))
def test_polygon_pairs_whose_bound_reaches_the_threshold_overlap(polys, tau):
    """Polygons with holes and several parts, beside their own boxes and copies: every
    pair whose bound (and so whose exact IoU) reaches tau overlaps in the shrunk boxes."""
    polys = [p for p in polys if p.area > 0]
    geoms = polys + [shapely.box(*p.bounds) for p in polys] + polys
    shapes = Shapes.from_geometries(geoms)
    area = areas(shapes)
    if len(area) >= 2:
        _check(shapes, area, tau)


def test_other_kinds_and_no_threshold_keep_the_reach_boxes():
    """tau = 0 (every pair is eligible), shapes of a kind with parameters and shapes that
    may get the mask IoU keep the boxes of reach_boxes: the proof holds for the exact IoU
    of boxes and polygons only."""
    shapes = Shapes([[0, 0, 2, 2], [1, 1, 3, 3]])
    area = areas(shapes)
    assert threshold_boxes(shapes, area, 0.0) is reach_boxes(shapes, 0.0)
    shrunk = threshold_boxes(shapes, area, 0.5)
    np.testing.assert_allclose(shrunk[0], [0.5, 0.5, 1.5, 1.5], rtol=1e-5)
    assert threshold_boxes(shapes, area, 0.5) is shrunk  # cached per tau
    # keypoints (a kind with its own similarity): their boxes grown by the kind's reach
    frame = simulate_keypoints(n_items=3, annotators={"a": KeypointProfile()}, seed=1)
    kp = prepare(frame).shapes
    assert kp.params
    out = threshold_boxes(kp, areas(kp), 0.5)
    assert out is reach_boxes(kp, 0.5)
    assert (out[:, :2] <= kp.boxes[:, :2]).all() and (out[:, 2:] >= kp.boxes[:, 2:]).all()
    # polygons that may get the mask IoU keep their boxes
    ring = shapely.Point(50, 50).buffer(30, quad_segs=64)
    masked = dataclasses.replace(
        Shapes.from_geometries([ring, ring]), image_size=np.array([[640.0, 480.0]] * 2)
    )
    assert may_use_masks(masked)
    assert threshold_boxes(masked, areas(masked), 0.5) is reach_boxes(masked, 0.5)


def test_degenerate_boxes_are_not_shrunk_past_themselves():
    """A box of zero width keeps its (empty) x interval, finite, and a box with a NaN
    coordinate stays empty (the sweep lists no pair of it); a polygon of zero area is
    not shrunk."""
    shapes = Shapes.from_geometries(
        [shapely.box(0, 0, 0, 2), shapely.box(0, 0, 1, 1), shapely.LineString([(0, 0), (1, 1)])]
    )
    out = threshold_boxes(shapes, areas(shapes), 0.5)
    np.testing.assert_array_equal(out[0, [0, 2]], [0, 0])
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out[2], shapes.boxes[2])
