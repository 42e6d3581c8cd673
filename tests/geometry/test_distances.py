"""Tests for iaa_frames.geometry.distances (definitions: docs/ARCHITECTURE.md, "Distances").

Reference values are computed by hand (arithmetic in the comments); the polygon IoU is
cross-checked against rasterization with matplotlib's point-in-polygon test.
"""

import numpy as np
import pandas as pd
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.path import Path

from iaa_frames.errors import IAAError, ParameterError, SchemaError
from iaa_frames.geometry import distances as D
from iaa_frames.geometry.distances import (
    Distance,
    Shapes,
    as_polygons,
    available_distances,
    centroid_distance,
    get_distance,
    giou,
    giou_distance,
    hausdorff_distance,
    iou,
    iou_distance,
    l2_distance,
    register_distance,
)

NAN = float("nan")


def boxes(*rows):
    return Shapes(np.array(rows, dtype=float))


def as_poly_shapes(*rows):
    """The same boxes, held as polygons."""
    return Shapes.from_geometries([shapely.box(*r) for r in rows])


# Hand-computed box cases: (a, b, IoU, GIoU with the enclosing box).
BOX_CASES = {
    # disjoint side by side: I = 0, U = 1 + 1 = 2, C = [0,3]x[0,1] = 3
    # GIoU = 0 - (3 - 2)/3 = -1/3
    "disjoint": ([0, 0, 1, 1], [2, 0, 3, 1], 0.0, -1 / 3),
    # shared edge x = 1: I = 0, U = 2, C = [0,2]x[0,1] = 2 -> GIoU = 0 - 0/2 = 0
    "touching": ([0, 0, 1, 1], [1, 0, 2, 1], 0.0, 0.0),
    # nested: I = 2*2 = 4, U = 16, IoU = 1/4; C = 16 = U -> GIoU = 1/4
    "nested": ([0, 0, 4, 4], [1, 1, 3, 3], 0.25, 0.25),
    "identical": ([1, 2, 3, 5], [1, 2, 3, 5], 1.0, 1.0),
    # aligned partial overlap: I = 1*2 = 2, U = 4 + 4 - 2 = 6, IoU = 1/3; C = 3*2 = 6
    "aligned_partial": ([0, 0, 2, 2], [1, 0, 3, 2], 1 / 3, 1 / 3),
    # partial: I = [1,3]x[1,2] = 2*1 = 2, U = 8 + 8 - 2 = 14, IoU = 1/7;
    # C = [0,4]x[0,5] = 20, GIoU = 1/7 - (20 - 14)/20 = 1/7 - 3/10 = -11/70
    "partial": ([0, 0, 4, 2], [1, 1, 3, 5], 1 / 7, -11 / 70),
    # diagonal partial: I = 1, U = 7, IoU = 1/7; C = 9, GIoU = 1/7 - 2/9 = -5/63
    "diagonal": ([0, 0, 2, 2], [1, 1, 3, 3], 1 / 7, -5 / 63),
    # diagonal disjoint: I = 0, U = 2, C = 9 -> GIoU = -7/9
    "diagonal_disjoint": ([0, 0, 1, 1], [2, 2, 3, 3], 0.0, -7 / 9),
}

# Where the convex hull of the union is smaller than the enclosing box, the polygon
# GIoU differs (C is the convex hull for polygons).
POLY_GIOU = {
    **{k: v[3] for k, v in BOX_CASES.items()},
    # hull of [0,2]^2 and [1,3]^2: 9 minus two corner triangles of 1/2 = 8;
    # GIoU = 1/7 - (8 - 7)/8 = 1/56
    "diagonal": 1 / 56,
    # hull of [0,1]^2 and [2,3]^2: hexagon (0,0),(1,0),(3,2),(3,3),(2,3),(0,1),
    # area 9 - 2 - 2 = 5 (two corner triangles of legs 2); GIoU = 0 - (5 - 2)/5 = -3/5
    "diagonal_disjoint": -3 / 5,
    # hull of [0,4]x[0,2] and [1,3]x[1,5]: (0,0),(4,0),(4,2),(3,5),(1,5),(0,2);
    # shoelace: 0 + 8 + 14 + 10 + 2 + 0 = 34 -> 17; GIoU = 1/7 - 3/17 = -4/119
    "partial": -4 / 119,
}


def _case_arrays(names):
    a = [BOX_CASES[n][0] for n in names]
    b = [BOX_CASES[n][1] for n in names]
    return a, b


NAMES = list(BOX_CASES)


# ---------------------------------------------------------------------------------------
# Hand-computed values
# ---------------------------------------------------------------------------------------


def test_box_iou_giou_hand_values():
    a, b = _case_arrays(NAMES)
    exp_iou = [BOX_CASES[n][2] for n in NAMES]
    exp_giou = [BOX_CASES[n][3] for n in NAMES]
    np.testing.assert_allclose(iou(boxes(*a), boxes(*b)), exp_iou, atol=1e-12)
    np.testing.assert_allclose(giou(boxes(*a), boxes(*b)), exp_giou, atol=1e-12)
    np.testing.assert_allclose(
        iou_distance(boxes(*a), boxes(*b)), 1 - np.array(exp_iou), atol=1e-12
    )
    np.testing.assert_allclose(
        giou_distance(boxes(*a), boxes(*b)), (1 - np.array(exp_giou)) / 2, atol=1e-12
    )


@pytest.mark.parametrize("mix", ["poly-poly", "poly-box", "box-poly"])
def test_polygon_that_is_a_box(mix):
    a, b = _case_arrays(NAMES)
    sa = as_poly_shapes(*a) if mix in ("poly-poly", "poly-box") else boxes(*a)
    sb = as_poly_shapes(*b) if mix in ("poly-poly", "box-poly") else boxes(*b)
    # IoU is the same whatever the representation
    np.testing.assert_allclose(iou(sa, sb), iou(boxes(*a), boxes(*b)), atol=1e-12)
    # GIoU uses the convex hull as soon as a polygon is involved
    np.testing.assert_allclose(giou(sa, sb), [POLY_GIOU[n] for n in NAMES], atol=1e-12)


def test_triangles_by_hand():
    t_upper = shapely.Polygon([(0, 0), (2, 0), (0, 2)])  # x + y <= 2, area 2
    t_lower = shapely.Polygon([(0, 0), (2, 0), (2, 2)])  # y <= x,    area 2
    a = Shapes.from_geometries([t_upper, t_upper])
    b = Shapes.from_geometries([t_lower, None])
    # second pair: t_upper against the plain box [1,2]x[0,1]
    b = Shapes(np.array([b.boxes[0], [1, 0, 2, 1]]), b.polygons)
    # pair 1: intersection = triangle (0,0),(2,0),(1,1), area 2*1/2 = 1;
    #   U = 2 + 2 - 1 = 3, IoU = 1/3; hull = square [0,2]^2, C = 4;
    #   GIoU = 1/3 - (4 - 3)/4 = 1/12
    # pair 2: intersection = integral_1^2 (2 - x) dx = 1/2; U = 2 + 1 - 1/2 = 5/2,
    #   IoU = 1/5; hull (0,0),(2,0),(2,1),(0,2): shoelace 0 + 2 + 4 + 0 = 6 -> 3;
    #   GIoU = 1/5 - (3 - 5/2)/3 = 1/5 - 1/6 = 1/30
    np.testing.assert_allclose(iou(a, b), [1 / 3, 1 / 5], atol=1e-12)
    np.testing.assert_allclose(giou(a, b), [1 / 12, 1 / 30], atol=1e-12)
    # centroids: t_upper (2/3, 2/3); t_lower (4/3, 2/3); box (3/2, 1/2)
    # pair 1: 2/3; pair 2: sqrt((3/2 - 2/3)^2 + (1/2 - 2/3)^2) = sqrt(25/36 + 1/36)
    np.testing.assert_allclose(centroid_distance(a, b), [2 / 3, np.sqrt(26) / 6], atol=1e-12)
    # l2 on bounds: [0,0,2,2] vs [0,0,2,2] -> 0; [0,0,2,2] vs [1,0,2,1] -> sqrt(1 + 1)
    np.testing.assert_allclose(l2_distance(a, b), [0, np.sqrt(2)], atol=1e-12)


def test_invalid_polygon_is_repaired_not_fatal():
    # the bow-tie (0,0),(2,2),(2,0),(0,2) makes GEOS raise "side location conflict";
    # make_valid turns it into two triangles meeting at (1,1), each of area 1.
    # Against [0,1]x[0,2] the left triangle (0,0),(1,1),(0,2) lies inside: I = 1.
    bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
    with pytest.raises(shapely.errors.GEOSException):
        shapely.intersection(bowtie, shapely.box(0, 0, 1, 2))
    a = Shapes.from_geometries([bowtie])
    b = as_poly_shapes([0, 0, 1, 2])
    # repaired area 2, U = 2 + 2 - 1 = 3, IoU = 1/3 (the unrepaired bow-tie has
    # shapely.area 0 because its two lobes cancel, which would give IoU = 1)
    np.testing.assert_allclose(iou(a, b), [1 / 3])


def test_multipolygon():
    # squares [0,1]^2 and [2,3]x[0,1] as one MultiPolygon against the first one:
    # I = 1, U = 2, IoU = 1/2; hull of the union = [0,3]x[0,1], C = 3; the union of the
    # two shapes' own hulls is [0,3]x[0,1] too (U' = 3), so the penalty is 0: GIoU = 1/2
    # (with the plain union, the MultiPolygon would get GIoU 2/3 against itself)
    mp = shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)])
    a = Shapes.from_geometries([mp])
    b = boxes([0, 0, 1, 1])
    np.testing.assert_allclose(iou(a, b), [0.5])
    np.testing.assert_allclose(giou(a, b), [0.5])
    np.testing.assert_allclose(giou(a, a), [1.0])


def test_other_distances_by_hand():
    a = boxes([0, 0, 1, 1], [0, 0, 4, 4], [0, 0, 2, 2])
    b = boxes([0, 0, 2, 1], [1, 1, 3, 3], [3, 4, 5, 6])
    # l2: (0,0,1,0) -> 1; (1,1,-1,-1) -> 2; (3,4,3,4) -> sqrt(50)
    np.testing.assert_allclose(l2_distance(a, b), [1, 2, np.sqrt(50)])
    # centroids: (.5,.5)-(1,.5) -> .5; (2,2)-(2,2) -> 0; (1,1)-(4,5) -> 5
    np.testing.assert_allclose(centroid_distance(a, b), [0.5, 0, 5])
    # Hausdorff: vertex (2,0) is 1 from [0,1]^2; nested: corner (0,0) to (1,1) = sqrt2;
    # third: farthest vertex (0,0) of a to the box [3,5]x[4,6]: its corner (3,4) -> 5,
    # farthest vertex (5,6) of b to [0,2]^2: (2,2) -> 5
    np.testing.assert_allclose(hausdorff_distance(a, b), [1, np.sqrt(2), 5])


def test_hausdorff_mixed_matches_box_path():
    a = boxes([0, 0, 1, 1], [0, 0, 4, 4])
    b = boxes([0, 0, 2, 1], [1, 1, 3, 3])
    pa = as_poly_shapes([0, 0, 1, 1], [0, 0, 4, 4])
    np.testing.assert_allclose(hausdorff_distance(pa, b), hausdorff_distance(a, b))


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------

# no subnormal coordinates (2e-311): GEOS intersects such boxes as triangles
coord = st.floats(-10, 10, allow_nan=False, allow_subnormal=False)
side = st.floats(0.01, 10, allow_nan=False)
box_st = st.tuples(coord, coord, side, side).map(lambda t: [t[0], t[1], t[0] + t[2], t[1] + t[3]])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(box_st, box_st), min_size=1, max_size=20))
def test_giou_distance_properties(pairs):
    a = boxes(*[p[0] for p in pairs])
    b = boxes(*[p[1] for p in pairs])
    d = giou_distance(a, b)
    assert np.all((d >= 0) & (d <= 1 + 1e-12))
    np.testing.assert_allclose(d, giou_distance(b, a), atol=1e-12)
    np.testing.assert_allclose(giou_distance(a, a), 0, atol=1e-12)
    # GIoU <= IoU, and IoU in [0, 1]
    v = iou(a, b)
    assert np.all((v >= 0) & (v <= 1 + 1e-12))
    assert np.all(giou(a, b) <= v + 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(box_st, box_st), min_size=1, max_size=10))
def test_box_and_polygon_paths_agree(pairs):
    ra = [p[0] for p in pairs]
    rb = [p[1] for p in pairs]
    pa, pb = as_poly_shapes(*ra), as_poly_shapes(*rb)
    np.testing.assert_allclose(iou(pa, pb), iou(boxes(*ra), boxes(*rb)), atol=1e-9)
    # the hull of the union is inside the enclosing box: polygon GIoU >= box GIoU
    assert np.all(giou(pa, pb) >= giou(boxes(*ra), boxes(*rb)) - 1e-9)
    np.testing.assert_allclose(
        centroid_distance(pa, pb), centroid_distance(boxes(*ra), boxes(*rb)), atol=1e-9
    )


def _star_polygons(rng, n, k=12, center_spread=0.3):
    """Random star-shaped (simple) polygons around centres in [0.5 +- spread].

    One vertex per angular sector of 2 pi / k keeps the centre inside the kernel.
    """
    angles = (np.arange(k) + rng.uniform(0, 1, (n, k))) * (2 * np.pi / k)
    radii = rng.uniform(0.05, 0.35, (n, k))
    centres = 0.5 + rng.uniform(-center_spread, center_spread, (n, 1, 2))
    xy = centres + np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
    return shapely.polygons(xy), xy


def test_polygon_iou_against_rasterization():
    rng = np.random.default_rng(7)
    pa, xya = _star_polygons(rng, 4, center_spread=0.1)
    pb, xyb = _star_polygons(rng, 4, center_spread=0.1)
    assert shapely.is_valid(pa).all() and shapely.is_valid(pb).all()
    got = iou(Shapes.from_geometries(pa), Shapes.from_geometries(pb))
    # independent computation: matplotlib point-in-polygon on a 600 x 600 grid
    g = (np.arange(600) + 0.5) / 600
    pts = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    expected = []
    for i in range(4):  # test-side loop over 4 reference polygons
        ina = Path(xya[i]).contains_points(pts)
        inb = Path(xyb[i]).contains_points(pts)
        expected.append((ina & inb).sum() / (ina | inb).sum())
    assert np.all(got > 0.05)  # the cross-check is not vacuous
    np.testing.assert_allclose(got, expected, atol=1e-2)


def test_polygon_iou_skips_overlays_on_disjoint_bounding_boxes(monkeypatch):
    rng = np.random.default_rng(0)
    n = 300
    pa, _ = _star_polygons(rng, n)
    pb = shapely.transform(pa, lambda c: c + 10.0)  # far away
    pb[:5] = shapely.transform(pa[:5], lambda c: c + 0.01)  # five overlapping pairs
    seen = []
    real = shapely.intersection

    def counting(x, y, *args, **kwargs):
        seen.append(np.size(x))
        return real(x, y, *args, **kwargs)

    import iaa_frames.geometry.overlap as overlap

    monkeypatch.setattr(shapely, "intersection", counting)
    real_shared = overlap.shared_areas
    shared = []

    def counting_shared(edges_a, index_a, *args):
        shared.append(np.size(index_a))
        return real_shared(edges_a, index_a, *args)

    monkeypatch.setattr(overlap, "shared_areas", counting_shared)
    v = iou(Shapes.from_geometries(pa), Shapes.from_geometries(pb))
    assert sum(seen) + sum(shared) == 5  # valid polygons: from their edges, no overlay
    assert np.all((v[:5] > 0.5) & (v[:5] < 1))
    assert np.all(v[5:] == 0)


def test_identical_polygons_have_iou_exactly_one_without_overlay(monkeypatch):
    """Copied polygons: IoU exactly 1 (an overlay's rounding can give 1 - 1e-16, which
    would miss a threshold of 1), and no overlay is run for them."""
    rng = np.random.default_rng(5)
    pa, _ = _star_polygons(rng, 200)
    overlay = shapely.area(shapely.intersection(pa, pa))
    assert (overlay != shapely.area(pa)).any()  # the rounding this guards against
    seen = []
    real = shapely.intersection
    monkeypatch.setattr(
        shapely,
        "intersection",
        lambda x, y, *a, **k: seen.append(np.size(x)) or real(x, y, *a, **k),
    )
    copy = shapely.from_wkb(shapely.to_wkb(pa))
    v = iou(Shapes.from_geometries(pa), Shapes.from_geometries(copy))
    assert sum(seen) == 0 and np.all(v == 1.0)


# ---------------------------------------------------------------------------------------
# Missing values
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["giou", "iou", "l2", "centroid", "hausdorff"])
def test_nan_propagation(name):
    d = get_distance(name)
    tri = shapely.Polygon([(0, 0), (2, 0), (0, 2)])
    a = Shapes(
        np.array([[0, 0, 1, 1], [NAN] * 4, [0, 0, 1, 1], [NAN] * 4, [0, 0, 2, 2]]),
        np.array([None, None, None, None, tri], dtype=object),
    )
    b = Shapes(np.array([[0, 0, 2, 1], [0, 0, 1, 1], [NAN] * 4, [NAN] * 4, [NAN] * 4]))
    out = d(a, b)
    assert out.dtype == np.float64 and out.shape == (5,)
    assert np.isfinite(out[0])
    assert np.all(np.isnan(out[1:]))


def test_nan_in_from_frame_coverage_rows():
    df = pd.DataFrame(
        {
            "x0": [0.0, NAN],
            "y0": [0.0, NAN],
            "x1": [10.0, NAN],
            "y1": [10.0, NAN],
            "geometry": [shapely.box(0, 0, 10, 10), None],
            "width": [100.0, 100.0],
            "height": [100.0, 100.0],
        }
    )
    s = Shapes.from_frame(df)
    assert s.is_polygon.tolist() == [True, False]
    out = iou(s, s.take([0, 0]))
    assert out[0] == 1.0 and np.isnan(out[1])


# ---------------------------------------------------------------------------------------
# Shapes and normalization
# ---------------------------------------------------------------------------------------


def test_from_frame_normalizes_boxes_and_polygons():
    tri = shapely.Polygon([(10, 20), (50, 20), (10, 100)])
    df = pd.DataFrame(
        {
            "x0": [10.0, 10.0, 5.0, 5.0],
            "y0": [20.0, 20.0, 5.0, 5.0],
            "x1": [50.0, 50.0, 15.0, 15.0],
            "y1": [60.0, 100.0, 25.0, 25.0],
            "geometry": [None, tri, None, None],
            "width": [100.0, 100.0, NAN, 0.0],
            "height": [200.0, 200.0, 50.0, 50.0],
        }
    )
    s = Shapes.from_frame(df)
    np.testing.assert_allclose(
        s.boxes,
        [[0.1, 0.1, 0.5, 0.3], [0.1, 0.1, 0.5, 0.5], [5, 5, 15, 25], [5, 5, 15, 25]],
    )
    # the triangle scaled by (1/100, 1/200): vertices (0.1,0.1),(0.5,0.1),(0.1,0.5)
    expected = shapely.Polygon([(0.1, 0.1), (0.5, 0.1), (0.1, 0.5)])
    assert shapely.equals_exact(s.polygons[1], expected, tolerance=1e-12)
    assert shapely.area(s.polygons[1]) == pytest.approx(0.4 * 0.4 / 2)
    # the frame itself is not modified
    assert df["geometry"].iloc[1].equals(tri)
    raw = Shapes.from_frame(df, normalize=False)
    np.testing.assert_allclose(raw.boxes, df[["x0", "y0", "x1", "y1"]].to_numpy())


def test_normalization_scales_per_row():
    # two polygons in images of different sizes, scaled by their own width/height
    sq = shapely.box(0, 0, 40, 40)
    df = pd.DataFrame(
        {
            "x0": [0.0, 0.0],
            "y0": [0.0, 0.0],
            "x1": [40.0, 40.0],
            "y1": [40.0, 40.0],
            "geometry": [sq, sq],
            "width": [40.0, 80.0],
            "height": [80.0, 40.0],
        }
    )
    s = Shapes.from_frame(df)
    np.testing.assert_allclose(s.boxes, [[0, 0, 1, 0.5], [0, 0, 0.5, 1]])
    np.testing.assert_allclose(shapely.bounds(s.polygons), s.boxes)
    # IoU of two same-image shapes is invariant under the per-axis scaling
    both = pd.concat([df.iloc[[0]], df.iloc[[0]]], ignore_index=True)
    both.loc[1, "geometry"] = shapely.box(20, 20, 60, 60)
    both.loc[1, ["x0", "y0", "x1", "y1"]] = [20.0, 20.0, 60.0, 60.0]
    sn = Shapes.from_frame(both)
    sp = Shapes.from_frame(both, normalize=False)
    np.testing.assert_allclose(iou(sn.take([0]), sn.take([1])), iou(sp.take([0]), sp.take([1])))


def test_from_frame_boxes_only_and_schema_error():
    df = pd.DataFrame({"x0": [0.0], "y0": [0.0], "x1": [1.0], "y1": [2.0]})
    s = Shapes.from_frame(df)
    assert s.polygons is None and len(s) == 1
    with pytest.raises(SchemaError, match="y1"):
        Shapes.from_frame(df.drop(columns="y1"))


def test_shapes_take_and_validation():
    s = Shapes.from_geometries([shapely.box(0, 0, 1, 1), None, shapely.box(2, 2, 3, 3)])
    t = s.take([2, 0])
    np.testing.assert_allclose(t.boxes, [[2, 2, 3, 3], [0, 0, 1, 1]])
    assert t.is_polygon.tolist() == [True, True]
    m = s.take(np.array([False, True, True]))
    assert len(m) == 2 and m.is_polygon.tolist() == [False, True]
    assert len(s.take([])) == 0
    with pytest.raises(ParameterError, match=r"\(n, 4\)"):
        Shapes(np.zeros((3, 3)))
    with pytest.raises(ParameterError, match="match the boxes"):
        Shapes(np.zeros((3, 4)), [None, None])
    with pytest.raises(ParameterError, match="equal length"):
        iou(boxes([0, 0, 1, 1]), boxes([0, 0, 1, 1], [0, 0, 1, 1]))
    with pytest.raises(IAAError, match="two Shapes"):
        giou(np.zeros((1, 4)), boxes([0, 0, 1, 1]))


def test_as_polygons():
    s = Shapes(
        np.array([[0, 0, 2, 3], [NAN] * 4, [0, 0, 2, 2]]),
        [None, None, shapely.Polygon([(0, 0), (2, 0), (0, 2)])],
    )
    p = as_polygons(s)
    assert shapely.area(p[0]) == 6.0 and p[1] is None and shapely.area(p[2]) == 2.0


def test_empty_input():
    e = Shapes(np.empty((0, 4)))
    for name in available_distances():
        assert get_distance(name)(e, e).shape == (0,)


# ---------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------


@pytest.fixture
def fresh_registry(monkeypatch):
    monkeypatch.setattr(D, "_REGISTRY", dict(D._REGISTRY))


def test_builtin_registry():
    assert available_distances()[:5] == ["giou", "iou", "l2", "centroid", "hausdorff"]
    assert get_distance("giou").func is giou_distance
    assert get_distance("giou").bounded and get_distance("iou").bounded
    assert not get_distance("l2").bounded
    for name in ("l2", "centroid", "hausdorff"):
        assert get_distance(name).similarity is None
    a, b = _case_arrays(["disjoint", "nested", "partial"])
    sa, sb = boxes(*a), boxes(*b)
    # similarity for the overall component: IoU for iou, max(GIoU, 0) for giou
    np.testing.assert_allclose(get_distance("iou").similarity(sa, sb), [0, 0.25, 1 / 7])
    np.testing.assert_allclose(get_distance("giou").similarity(sa, sb), [0, 0.25, 0])


def test_user_callable_and_errors(fresh_registry):
    def width_gap(a, b):
        return np.abs((a.boxes[:, 2] - a.boxes[:, 0]) - (b.boxes[:, 2] - b.boxes[:, 0]))

    d = get_distance(width_gap)
    assert isinstance(d, Distance) and d.name == "width_gap" and d.similarity is None
    np.testing.assert_allclose(d(boxes([0, 0, 3, 1]), boxes([0, 0, 1, 1])), [2])
    assert get_distance(d) is d

    with pytest.raises(ParameterError, match="unknown distance 'gio'") as err:
        get_distance("gio")
    for name in ("giou", "iou", "l2", "centroid", "hausdorff"):
        assert name in str(err.value)
    with pytest.raises(ParameterError):
        get_distance(3)

    registered = register_distance("wgap", width_gap, bounded=False)
    assert get_distance("wgap") is registered and "wgap" in available_distances()
    with pytest.raises(ParameterError, match="already registered"):
        register_distance("wgap", width_gap)
    register_distance("wgap", l2_distance, overwrite=True)
    assert get_distance("wgap").func is l2_distance
    with pytest.raises(ParameterError, match="callable"):
        register_distance("bad", "not a function")

    bad = get_distance(lambda a, b: np.zeros(3))
    with pytest.raises(ParameterError, match="returned shape"):
        bad(boxes([0, 0, 1, 1]), boxes([0, 0, 1, 1]))


# -- concave polygons and holes -------------------------------------------------------------

L_SHAPE = shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])  # area 3, hull 3.5
WITH_HOLE = shapely.Polygon([(0, 0), (4, 0), (4, 4), (0, 4)], [[(1, 1), (2, 1), (2, 2), (1, 2)]])


def test_giou_of_concave_shape_or_hole_with_itself_is_one():
    # with the plain union in the penalty, the L-shape would get GIoU 1 - 0.5 / 3.5 and
    # the square with a hole 1 - 1 / 16: a perfect annotator would never score 1
    s = Shapes.from_geometries([L_SHAPE, WITH_HOLE])
    np.testing.assert_allclose(giou(s, s), [1.0, 1.0])
    np.testing.assert_allclose(giou_distance(s, s), [0.0, 0.0], atol=1e-15)


def test_giou_concave_disjoint_by_hand():
    # L-shape (hull: pentagon of area 3.5) and the unit square [3, 4] x [0, 1]:
    # IoU 0; union of the hulls U' = 3.5 + 1 = 4.5; C = hull of both, the pentagon
    # (0,0) (4,0) (4,1) (1,2) (0,2) of area 13 / 2 = 6.5 (shoelace: 0 + 4 + 7 + 2 + 0 = 13)
    # GIoU = 0 - (6.5 - 4.5) / 6.5 = -4 / 13
    a = Shapes.from_geometries([L_SHAPE])
    b = Shapes.from_geometries([shapely.box(3, 0, 4, 1)])
    assert giou(a, b)[0] == pytest.approx(-4 / 13)
    assert giou(b, a)[0] == pytest.approx(-4 / 13)
    # the same value when the IoU is passed in
    assert giou(a, b, known_iou=np.array([0.0]))[0] == pytest.approx(-4 / 13)
