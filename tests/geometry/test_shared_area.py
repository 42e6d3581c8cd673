"""Shared areas without an overlay (iaa_frames.geometry.shared_area), against shapely.

Random valid polygons with holes and several parts, shapes on an integer grid (shared
edges, collinear overlaps, touching vertices, holes, shapes in holes), degenerate pairs
spelled out, pairs with plain boxes, and the real LVIS pairs when the data is present.
Agreement is asked to 1e-12 in IoU.
"""

from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.geometry.clip import RingEdges
from iaa_frames.geometry.shapes import Shapes
from iaa_frames.geometry.shared_area import extend_edges, polygon_shared_areas, shared_areas

LVIS = Path("/work/shared/data/lvis_v1.0_val_doubly_annos_subset200.json")


def _iou_gap(pa, pb, shared):
    """Largest difference in IoU between ``shared`` and the overlay of shapely."""
    want = shapely.area(shapely.intersection(pa, pb))
    union = shapely.area(pa) + shapely.area(pb)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(want / (union - want) - shared / (union - shared))
    return float(np.nanmax(gap, initial=0.0)), float(np.abs(want - shared).max(initial=0.0))


def _star(rng, k, center, scale):
    ang = np.sort(rng.uniform(0, 2 * np.pi, k))
    r = rng.uniform(0.2, 1.0, k) * scale
    return shapely.Polygon(np.c_[np.cos(ang) * r, np.sin(ang) * r] + center)


def _random_shapes(rng, n):
    """Valid polygons, some with holes, some reversed, some with several parts."""
    out = []
    while len(out) < n:
        center = rng.uniform(-1, 1, 2)
        g = shapely.make_valid(_star(rng, int(rng.integers(3, 40)), center, rng.uniform(0.3, 1.5)))
        g = shapely.reverse(g) if rng.random() < 0.3 else g
        if rng.random() < 0.4:  # a hole
            g = g.difference(shapely.make_valid(_star(rng, int(rng.integers(3, 12)), center, 0.15)))
        if rng.random() < 0.3:  # another part
            g = shapely.union(g, shapely.affinity.translate(g, *rng.uniform(-2.5, 2.5, 2)))
        g = shapely.make_valid(g)
        if shapely.get_type_id(g) in (3, 6) and g.area > 0 and g.is_valid:
            out.append(g)
    return np.array(out, dtype=object)


def _grid_shapes(rng, n, size=6):
    """Unions of cells of an integer grid: rectilinear shapes with holes, parts, shared
    edges and touching corners."""
    out = []
    while len(out) < n:
        cells = rng.random((size, size)) < rng.uniform(0.2, 0.7)
        y, x = np.nonzero(cells)
        if not len(x):
            continue
        g = shapely.union_all(shapely.box(x, y, x + 1, y + 1))
        if rng.random() < 0.3:  # a diagonal cut: collinear pieces off the axes
            g = g.intersection(shapely.Polygon([(0, 0), (size, 0), (0, size)]))
        g = shapely.make_valid(g)
        if shapely.get_type_id(g) == 7:
            g = shapely.union_all([p for p in g.geoms if p.area > 0])
        if shapely.get_type_id(g) in (3, 6) and g.area > 0 and g.is_valid:
            out.append(g)
    return np.array(out, dtype=object)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_shapes_equal_shapely(seed):
    rng = np.random.default_rng(seed)
    geoms = _random_shapes(rng, 16)
    i, j = rng.integers(0, len(geoms), (2, 80))
    gap, _ = _iou_gap(geoms[i], geoms[j], polygon_shared_areas(geoms[i], geoms[j]))
    assert gap < 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_grid_shapes_equal_shapely_exactly(seed):
    rng = np.random.default_rng(seed)
    geoms = _grid_shapes(rng, 12)
    # moved by whole and half cells: edges shared, collinear, crossing at vertices
    moved = shapely.affinity.translate(geoms[0], 0, 0)
    shifts = rng.integers(-4, 5, (12, 2)) / rng.choice([1, 2], (12, 1))
    moved = np.array(
        [shapely.affinity.translate(g, *d) for g, d in zip(geoms, shifts, strict=True)],
        dtype=object,
    )
    both = np.concatenate([geoms, moved])
    i, j = rng.integers(0, len(both), (2, 100))
    gap, area_gap = _iou_gap(both[i], both[j], polygon_shared_areas(both[i], both[j]))
    assert gap < 1e-12 and area_gap < 1e-12


def _degenerate_pairs():
    sq = shapely.box(0, 0, 2, 2)
    donut = shapely.Polygon([(0, 0), (4, 0), (4, 4), (0, 4)], [[(1, 1), (3, 1), (3, 3), (1, 3)]])
    tri = shapely.Polygon([(0, 0), (4, 0), (0, 4)])
    return {
        "identical": (sq, shapely.box(0, 0, 2, 2)),
        "same shape, other start": (tri, shapely.Polygon([(4, 0), (0, 4), (0, 0)])),
        "shared edge, outside": (sq, shapely.box(2, 0, 4, 2)),
        "shared edge, inside": (sq, shapely.box(0, 0, 1, 2)),
        "collinear overlap": (sq, shapely.box(1, 0, 3, 1)),
        "touching corner": (sq, shapely.box(2, 2, 3, 3)),
        "vertex on edge": (sq, shapely.Polygon([(1, 2), (2, 3), (0, 3)])),
        "one inside the other": (shapely.box(0, 0, 10, 10), tri),
        "in the hole": (donut, shapely.box(1.5, 1.5, 2.5, 2.5)),
        "filling the hole": (donut, shapely.box(1, 1, 3, 3)),
        "across the hole": (donut, shapely.box(0.5, 1.5, 3.5, 2.5)),
        "hole edge shared": (donut, shapely.box(1, 1, 2, 2)),
        "two parts and a hole": (
            shapely.MultiPolygon([donut, shapely.box(5, 5, 6, 7)]),
            shapely.box(0.5, 0.5, 5.5, 6),
        ),
        "vertical and horizontal edges": (tri, shapely.box(0, 0, 4, 0.5)),
        "sliver": (sq, shapely.Polygon([(0, 0), (2, 1e-9), (2, 0)])),
        "far from the origin": (
            shapely.affinity.translate(tri, 1e6, -1e6),
            shapely.affinity.translate(shapely.box(1, 1, 3, 3), 1e6, -1e6),
        ),
        "disjoint boxes": (sq, shapely.box(5, 5, 6, 6)),
        "a zigzag against its mirror": (
            shapely.Polygon([(0, 0), *[(x, 1 + x % 2) for x in range(11)], (10, 0)]),
            shapely.Polygon([(0, 3), *[(x, 2 - x % 2) for x in range(11)], (10, 3)]),
        ),
    }


@pytest.mark.parametrize("name", list(_degenerate_pairs()))
def test_degenerate_pairs(name):
    a, b = _degenerate_pairs()[name]
    pa, pb = np.array([a, b], dtype=object), np.array([b, a], dtype=object)
    shared = polygon_shared_areas(pa, pb)
    want = shapely.area(shapely.intersection(pa, pb))
    np.testing.assert_allclose(shared, want, rtol=1e-12, atol=1e-12 * max(a.area, b.area))
    assert _iou_gap(pa, pb, shared)[0] < 1e-12
    if not want.any():  # shapes that only touch share exactly nothing
        assert not shared.any()


def test_boxes_stand_for_their_rectangle():
    rng = np.random.default_rng(5)
    geoms = _random_shapes(rng, 30)
    boxes = np.sort(rng.uniform(-2, 2, (30, 2, 2)), axis=1).reshape(30, 4)  # x0 y0 x1 y1
    bounds = shapely.bounds(geoms)
    rect = np.c_[np.maximum(bounds[:, :2], boxes[:, :2]), np.minimum(bounds[:, 2:], boxes[:, 2:])]
    edges = RingEdges.from_geometries(geoms)
    got = shared_areas(edges, np.arange(30), edges, np.full(30, -1), rect)
    want = shapely.area(shapely.intersection(geoms, shapely.box(*boxes.T)))
    assert want.any()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # a box against a box: their intersection
    both = shared_areas(edges, np.full(30, -1), edges, np.full(30, -1), rect)
    np.testing.assert_allclose(
        both, np.clip(rect[:, 2] - rect[:, 0], 0, None) * np.clip(rect[:, 3] - rect[:, 1], 0, None)
    )


def test_empty_input_and_empty_rectangles():
    edges = RingEdges.from_geometries([shapely.box(0, 0, 1, 1)])
    assert shared_areas(edges, [], edges, [], np.zeros((0, 4))).shape == (0,)
    got = shared_areas(edges, [0, 0], edges, [0, 0], [[0, 0, 0, 1], [np.nan, 0, 1, 1]])
    assert got.tolist() == [0.0, 0.0]


def test_blocks_give_the_same_sums(monkeypatch):
    import iaa_frames.geometry.shared_area as module

    rng = np.random.default_rng(3)
    geoms = _random_shapes(rng, 20)
    i, j = rng.integers(0, 20, (2, 200))
    whole = polygon_shared_areas(geoms[i], geoms[j])
    monkeypatch.setattr(module, "CHUNK_EDGES", 64)
    monkeypatch.setattr(module, "CHUNK_PAIRS", 50)
    np.testing.assert_array_equal(polygon_shared_areas(geoms[i], geoms[j]), whole)


def test_a_pair_has_the_same_area_in_any_batch():
    """Bit for bit: the area of a pair depends on its two shapes alone (the matcher
    splits and bounds pairs differently and must get the same numbers)."""
    rng = np.random.default_rng(4)
    geoms = np.concatenate([_random_shapes(rng, 10), _grid_shapes(rng, 10)])
    i, j = rng.integers(0, 20, (2, 150))
    whole = polygon_shared_areas(geoms[i], geoms[j])
    for part in (slice(0, 1), slice(3, 40), slice(77, 150)):
        np.testing.assert_array_equal(
            polygon_shared_areas(geoms[i][part], geoms[j][part]), whole[part]
        )
    flip = rng.permutation(150)
    np.testing.assert_array_equal(polygon_shared_areas(geoms[i][flip], geoms[j][flip]), whole[flip])


def test_extended_edges_keep_their_form_and_their_areas():
    """The edges of more shapes appended (the hulls of :class:`ShapeCache`) give the
    areas of the edges built at once, bit for bit, whether or not the form of the first
    part was computed already."""
    rng = np.random.default_rng(6)
    geoms = np.concatenate([_random_shapes(rng, 12), _grid_shapes(rng, 12)])
    i, j = rng.integers(0, 24, (2, 120))
    bounds = shapely.bounds(geoms)
    rect = np.c_[np.maximum(bounds[i, :2], bounds[j, :2]), np.minimum(bounds[i, 2:], bounds[j, 2:])]
    whole = RingEdges.from_geometries(geoms)
    want = shared_areas(whole, i, whole, j, rect)
    for warm in (False, True):
        first = RingEdges.from_geometries(geoms[:9])
        if warm:  # its form kept, the form of the rest computed and appended
            shared_areas(first, [0], first, [1], [[-9, -9, 9, 9]])
        both = extend_edges(first, RingEdges.from_geometries(geoms[9:]))
        for c in ("x0", "y0", "x1", "y1", "offset"):
            np.testing.assert_array_equal(getattr(both, c), getattr(whole, c))
        np.testing.assert_array_equal(shared_areas(both, i, both, j, rect), want)
    np.testing.assert_array_equal(both.__dict__["_sweep_form"], whole.__dict__["_sweep_form"])


@pytest.mark.skipif(not LVIS.exists(), reason="real LVIS data not present")
def test_lvis_pairs_equal_shapely():
    import iaa_frames as iaf

    frame = iaf.read_coco(LVIS, rater_key="rater_id", rater_list_key="rater_list")
    frame = frame[iaf.is_object(frame)].reset_index(drop=True)
    shapes = Shapes.from_frame(frame)
    # every pair of objects of one image (both annotators) whose boxes overlap
    rows = frame[["item"]].reset_index().rename(columns={"index": "row"})
    both = rows.merge(rows, on="item")
    i, j = both["row_x"].to_numpy(), both["row_y"].to_numpy()
    ba, bb = shapes.boxes[i], shapes.boxes[j]
    keep = (i < j) & (np.minimum(ba[:, 2:], bb[:, 2:]) > np.maximum(ba[:, :2], bb[:, :2])).all(1)
    i, j = i[keep], j[keep]
    assert len(i) > 5000
    index, ok = shapes.surface_index(np.arange(len(shapes)))
    assert ok.all()
    ba, bb = shapes.boxes[i], shapes.boxes[j]
    rect = np.c_[np.maximum(ba[:, :2], bb[:, :2]), np.minimum(ba[:, 2:], bb[:, 2:])]
    edges = shapes.ring_edges()[0]
    shared = shared_areas(edges, index[i], edges, index[j], rect)
    gap, _ = _iou_gap(shapes.polygons[i], shapes.polygons[j], shared)
    assert gap < 1e-12
