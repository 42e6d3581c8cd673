"""Area of polygons inside rectangles (iaa_frames.geometry.clip), against shapely overlays."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.geometry.clip import RingEdges, clipped_areas


def _random_shapes(rng, n):
    """Star polygons, some with holes, some reversed, some multipolygons."""
    out = []
    for i in range(n):
        k = int(rng.integers(3, 30))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(0.2, 1.0, k)
        ring = np.c_[np.cos(ang) * r, np.sin(ang) * r] + rng.uniform(-1, 1, 2)
        g = shapely.make_valid(shapely.Polygon(ring if i % 3 else ring[::-1]))
        if i % 4 == 0:
            g = g.difference(shapely.Point(*ring.mean(axis=0)).buffer(0.1))
        if i % 5 == 0:
            g = shapely.union(g, shapely.affinity.translate(g, 2.5, 0.5))
        out.append(g)
    return np.array(out, dtype=object)


def _shapely_clip(geoms, rect):
    return shapely.area(shapely.intersection(geoms, shapely.box(*rect.T)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_equals_shapely_on_random_shapes_and_rectangles(seed):
    rng = np.random.default_rng(seed)
    geoms = _random_shapes(rng, 12)
    edges = RingEdges.from_geometries(geoms)
    m = 60
    shape = rng.integers(0, len(geoms), m)
    lo = rng.uniform(-2.5, 3, (m, 2))
    rect = np.c_[lo, lo + rng.uniform(0, 3, (m, 2))]
    np.testing.assert_allclose(
        clipped_areas(edges, shape, rect), _shapely_clip(geoms[shape], rect), rtol=1e-9, atol=1e-12
    )


def test_rectangles_on_vertices_and_edges():
    """Rectangles whose sides run along edges or through vertices (crossings at t = 0 or
    1, edges parallel to a side), and degenerate rectangles."""
    square = shapely.box(0, 0, 2, 2)
    diamond = shapely.Polygon([(1, 0), (2, 1), (1, 2), (0, 1)])
    geoms = np.array([square, diamond], dtype=object)
    edges = RingEdges.from_geometries(geoms)
    rect = np.array(
        [
            [0, 0, 2, 2],
            [0, 0, 1, 1],
            [1, 0, 3, 2],
            [1, 1, 1, 1],
            [0, 1, 2, 1],
            [5, 5, 6, 6],
            [-1, -1, 1, 3],
        ],
        dtype=float,
    )
    for s in range(2):
        shape = np.full(len(rect), s)
        np.testing.assert_allclose(
            clipped_areas(edges, shape, rect), _shapely_clip(geoms[shape], rect), atol=1e-12
        )


def test_shapes_without_area_have_no_edges():
    geoms = [
        None,
        shapely.LineString([(0, 0), (1, 1)]),
        shapely.Point(0, 0),
        shapely.box(0, 0, 1, 1),
    ]
    edges = RingEdges.from_geometries(geoms)
    assert np.diff(edges.offset).tolist() == [0, 0, 0, 4]
    assert clipped_areas(edges, [0, 1, 2, 3], np.tile([0, 0, 1, 1.0], (4, 1))).tolist() == [
        0.0,
        0.0,
        0.0,
        1.0,
    ]


def test_orientation_does_not_matter():
    ring = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)]  # an L
    ccw, cw = shapely.Polygon(ring), shapely.Polygon(ring[::-1])
    edges = RingEdges.from_geometries([ccw, cw])
    rect = np.array([[0.5, 0.5, 2, 2]] * 2)
    got = clipped_areas(edges, [0, 1], rect)
    assert got[0] == pytest.approx(got[1]) == pytest.approx(1.5 * 0.5 + 0.5 * 1.0)


def test_chunks_give_the_same_values(monkeypatch):
    rng = np.random.default_rng(3)
    geoms = _random_shapes(rng, 20)
    edges = RingEdges.from_geometries(geoms)
    shape = rng.integers(0, 20, 500)
    rect = np.c_[rng.uniform(-2, 1, (500, 2)), rng.uniform(1, 3, (500, 2))]
    whole = clipped_areas(edges, shape, rect)
    monkeypatch.setattr("iaa_frames.geometry.clip.CHUNK_EDGES", 37)
    np.testing.assert_array_equal(clipped_areas(edges, shape, rect), whole)


def _edges_of_oriented_rings(geometries):
    """The reference: every ring of every part of ``shapely.orient_polygons`` of the
    shapes, its consecutive vertices (what ``RingEdges`` held before it read the
    coordinates as arrays)."""
    geoms = np.empty(len(geometries), dtype=object)
    geoms[:] = list(geometries)
    kind = shapely.get_type_id(geoms)
    surface = (kind == 3) | (kind == 6)
    geoms[~surface] = None
    geoms[surface] = shapely.orient_polygons(geoms[surface])
    parts, part_of = shapely.get_parts(geoms, return_index=True)
    rings, ring_of = shapely.get_rings(parts, return_index=True)
    xy, vertex_ring = shapely.get_coordinates(rings, return_index=True)
    same = vertex_ring[1:] == vertex_ring[:-1]
    owner = part_of[ring_of[vertex_ring[:-1][same]]]
    start, end = xy[:-1][same], xy[1:][same]
    offset = np.zeros(len(geoms) + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=len(geoms)), out=offset[1:])
    return start[:, 0], start[:, 1], end[:, 0], end[:, 1], offset


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_edges_are_those_of_shapelys_oriented_rings_bit_for_bit(seed):
    """Rings of either turn, holes, multipolygons, empty shapes, None and lines: the same
    edges in the same order as the rings ``shapely.orient_polygons`` gives (exteriors
    counter-clockwise, holes clockwise), bit for bit."""
    rng = np.random.default_rng(seed)
    shapes = []
    for _ in range(int(rng.integers(1, 8))):
        centre, radius = rng.uniform(0, 100, 2), rng.uniform(1, 20)
        angle = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 12))))
        if rng.random() < 0.5:
            angle = angle[::-1]  # clockwise
        ring = centre + radius * np.c_[np.cos(angle), np.sin(angle)]
        hole = centre + 0.3 * radius * np.c_[np.cos(angle[:3]), np.sin(angle[:3])]
        shape = shapely.Polygon(ring, [hole] if rng.random() < 0.4 else None)
        shapes.append(shapely.make_valid(shape))
    polygons = [s for s in shapes if s.geom_type == "Polygon"]
    if len(polygons) >= 2:
        shapes.append(shapely.MultiPolygon(polygons[:2]))
    shapes += [None, shapely.Polygon(), shapely.LineString([(0, 0), (1, 1)])][
        : int(rng.integers(0, 4))
    ]
    order = rng.permutation(len(shapes))
    shapes = [shapes[i] for i in order]
    got = RingEdges.from_geometries(shapes)
    want = _edges_of_oriented_rings(shapes)
    for a, b in zip((got.x0, got.y0, got.x1, got.y1, got.offset), want, strict=True):
        np.testing.assert_array_equal(a, b)
