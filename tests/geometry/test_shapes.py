"""Tests for the per-shape methods of iaa_frames.geometry.shapes.Shapes.

Each cached quantity is checked against shapely (or the rasterizer) called directly on the
same shapes, on containers taken from one another in shuffled order, so that the map from
a container's rows to the shared cache is exercised.
"""

import numpy as np
import pytest
import shapely

from iaa_frames.errors import ParameterError
from iaa_frames.geometry.clip import clipped_areas
from iaa_frames.geometry.raster import intersection_pixels, rasterize
from iaa_frames.geometry.shapes import Shapes, as_polygons, check_aligned


def star(rng, k, cx, cy, rmin, rmax):
    angle = (np.arange(k) + rng.uniform(0, 1, k)) * (2 * np.pi / k)
    radius = rng.uniform(rmin, rmax, k)
    return shapely.Polygon(
        np.column_stack([cx + radius * np.cos(angle), cy + radius * np.sin(angle)])
    )


@pytest.fixture
def mixed():
    """Stars, a donut, a multipolygon, plain boxes and a missing shape, in [0, 1]^2."""
    rng = np.random.default_rng(5)
    geoms = [
        star(rng, int(rng.integers(5, 300)), *rng.uniform(0.3, 0.7, 2), 0.05, 0.25)
        for _ in range(12)
    ]
    geoms.append(
        shapely.Polygon(
            [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)],
            [[(0.3, 0.3), (0.3, 0.6), (0.6, 0.6), (0.6, 0.3)]],
        )
    )
    geoms.append(
        shapely.MultiPolygon([shapely.box(0, 0, 0.2, 0.2), shapely.box(0.5, 0.5, 0.8, 0.9)])
    )
    boxes = np.vstack(
        [shapely.bounds(geoms), [[0.2, 0.3, 0.5, 0.4], [0.0, 0.0, 1.0, 0.5], [np.nan] * 4]]
    )
    polygons = np.array(geoms + [None, None, None], dtype=object)
    return Shapes(boxes, polygons, np.tile([[64.0, 48.0]], (len(boxes), 1)))


def test_per_shape_quantities_equal_shapely_on_taken_containers(mixed):
    rng = np.random.default_rng(0)
    idx = rng.permutation(np.r_[np.arange(len(mixed)), np.arange(len(mixed))])
    t = mixed.take(idx)
    geoms = as_polygons(t)  # polygons, boxes as polygons, None for the missing shape
    known = np.array([g is not None for g in geoms])
    n_coords = np.where(t.is_polygon, shapely.get_num_coordinates(t.polygons), 5)
    assert t.n_coords().tolist() == n_coords.tolist()
    rows = np.flatnonzero(t.is_polygon)[::-1]
    assert t.n_coords(rows).tolist() == n_coords[rows].tolist()
    np.testing.assert_array_equal(t.polygon_areas(rows), shapely.area(t.polygons[rows]))
    rows = np.flatnonzero(known)
    hull, area = t.hulls(rows)
    np.testing.assert_array_equal(area, shapely.area(shapely.convex_hull(geoms[rows])))
    assert shapely.equals(hull, shapely.convex_hull(geoms[rows])).all()
    # the cache is shared: the root container sees what the taken one computed
    assert mixed.take(np.arange(len(mixed))).hulls(np.array([0]))[1][0] == shapely.area(
        shapely.convex_hull(mixed.polygons[0])
    )


def test_outline_and_ring_edges_equal_shapely(mixed):
    t = mixed.take(np.arange(len(mixed))[::-1])
    lx, ly, rings = t.outline()
    poly = np.flatnonzero(t.is_polygon)
    for r in poly:
        ring_list = [
            ring
            for part in shapely.get_parts(t.polygons[r])
            for ring in [part.exterior, *part.interiors]
        ]
        xy = [np.asarray(ring.coords) for ring in ring_list]
        assert rings[r] == len(ring_list)
        assert lx[r] == pytest.approx(sum(np.abs(np.diff(c[:, 0])).sum() for c in xy))
        assert ly[r] == pytest.approx(sum(np.abs(np.diff(c[:, 1])).sum() for c in xy))
    edges, index = t.ring_edges()
    rect = np.array([[0.25, 0.2, 0.55, 0.7]] * len(poly))
    got = clipped_areas(edges, index[poly], rect)
    want = shapely.area(shapely.intersection(t.polygons[poly], shapely.box(*rect[0])))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("shared", [True, False])
def test_pair_masks_equal_direct_rasterization(mixed, shared):
    rng = np.random.default_rng(1)
    n = len(mixed) - 1  # not the missing shape
    i, j = rng.integers(0, n, 40), rng.integers(0, n, 40)
    other = mixed if shared else Shapes(mixed.boxes, mixed.polygons, mixed.image_size)
    a, b = mixed.take(i), other.take(j)
    rows = np.arange(40)[::2]
    block, pa, pb = a.pair_masks(b, rows, 64, 48)
    direct = rasterize(as_polygons(mixed), 64, 48, normalized=True)
    np.testing.assert_array_equal(block.area[pa], direct.area[i[rows]])
    np.testing.assert_array_equal(block.area[pb], direct.area[j[rows]])
    np.testing.assert_array_equal(
        intersection_pixels(block, pa, pb), intersection_pixels(direct, i[rows], j[rows])
    )


def test_check_aligned():
    s = Shapes([[0, 0, 1, 1]])
    check_aligned(s, s, "f")
    with pytest.raises(ParameterError, match="f needs two Shapes"):
        check_aligned(s, [[0, 0, 1, 1]], "f")
    with pytest.raises(ParameterError, match="equal length; got 1 and 2"):
        check_aligned(s, s.take([0, 0]), "f")


def test_enclosing_is_computed_once_per_pair_and_equals_the_direct_hull(monkeypatch):
    """The hull of two shapes together, kept per pair of rows of the owning container:
    the same values as computing it directly, in any batch, whichever side asks first."""
    import iaa_frames.geometry.shape_cache as shape_cache

    rng = np.random.default_rng(5)
    geoms = [shapely.Point(*rng.uniform(0, 5, 2)).buffer(rng.uniform(0.2, 1), 3) for _ in range(12)]
    shapes = Shapes.from_geometries(geoms)
    i, j = rng.integers(0, 12, (2, 60))

    def direct(i, j):
        both = [
            shapely.GeometryCollection(
                [shapely.convex_hull(geoms[p]), shapely.convex_hull(geoms[q])]
            )
            for p, q in zip(i, j, strict=True)
        ]
        return shapely.area(shapely.convex_hull(np.array(both, dtype=object)))

    first = shapes.take(i[:30]).enclosing(shapes.take(j[:30]), np.arange(30))
    np.testing.assert_array_equal(first, direct(i[:30], j[:30]))
    expected = direct(i, j)
    calls = []
    real = shape_cache.shapely.convex_hull
    monkeypatch.setattr(
        shape_cache.shapely, "convex_hull", lambda g: calls.append(len(g)) or real(g)
    )
    again = shapes.take(i).enclosing(shapes.take(j), np.arange(60))
    np.testing.assert_array_equal(again, expected)
    new_pairs = len(set(zip(i, j, strict=True)) - set(zip(i[:30], j[:30], strict=True)))
    assert calls == [new_pairs]  # only the pairs not seen before (hulls of shapes kept too)


def test_a_validated_frames_surfaces_are_taken_as_valid_without_a_check(monkeypatch):
    """``from_frame(validated=True)`` gives every polygon row of a validated frame to the
    exact shared area without asking GEOS whether it is valid; the same surface index
    as the check gives, and no call of ``shapely.is_valid``."""
    import warnings

    import iaa_frames as iaf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = iaf.validate(iaf.simulate(n_items=12, kind="polygon", seed=2))
    rows = np.arange(len(df))
    checked = Shapes.from_frame(df).take(rows).surface_index(rows)
    calls = []
    real = shapely.is_valid
    monkeypatch.setattr(shapely, "is_valid", lambda g, **kw: calls.append(1) or real(g, **kw))
    taken = Shapes.from_frame(df, validated=True).take(rows[::-1])
    index, ok = taken.surface_index(rows)
    assert calls == []
    np.testing.assert_array_equal(ok, checked[1][::-1])
    assert ok[taken.is_polygon].all()


def test_without_validated_an_invalid_polygon_is_kept_from_the_exact_area():
    bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
    s = Shapes(
        np.array([[0.0, 0, 2, 2], [0, 0, 1, 1]]), np.array([bowtie, shapely.box(0, 0, 1, 1)])
    )
    _, ok = s.surface_index(np.array([0, 1]))
    assert ok.tolist() == [False, True]
