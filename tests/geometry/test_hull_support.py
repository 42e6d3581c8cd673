"""The support points of hulls and the lower bound of the area of the hull of two shapes
(iaa_frames.geometry.hull_support), against shapely."""

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.geometry.distances import Shapes
from iaa_frames.geometry.hull_support import DIRECTIONS, directions, support_points
from iaa_frames.geometry.kinds.box import box_intersection


def _shapes(rng, n):
    """Random polygons: concave stars, some with holes, some of two parts, some boxes,
    some thin slivers, at scales from 1e-3 to 1e3 and offsets up to 1e3."""
    out = []
    for i in range(n):
        k = int(rng.integers(3, 80))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(0.1, 1.0, k)
        scale = 10.0 ** rng.uniform(-3, 3)
        ring = np.c_[np.cos(ang) * r, np.sin(ang) * r]
        if i % 5 == 4:
            ring[:, 1] *= 1e-3  # a sliver
        ring = ring * scale + rng.uniform(-1, 1, 2) * 10.0 ** rng.uniform(0, 3)
        g = shapely.make_valid(shapely.Polygon(ring))
        if i % 4 == 1:
            g = g.difference(shapely.Point(*ring.mean(axis=0)).buffer(0.1 * scale))
        if i % 6 == 2:
            g = shapely.union(g, shapely.affinity.translate(g, 2.5 * scale, 0.5 * scale))
        if i % 7 == 3 or not g.area > 0:
            g = shapely.box(*ring.min(axis=0), *ring.max(axis=0))
        out.append(g)
    return np.array(out, dtype=object)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_support_points_are_the_hull_vertices_farthest_along_each_direction(seed):
    """Brute force per shape: the largest projection of its hull's vertices, and the first
    vertex attaining it."""
    rng = np.random.default_rng(seed)
    hulls = shapely.convex_hull(_shapes(rng, 12))
    h, x, y = support_points(hulls)
    u = directions(DIRECTIONS)
    for i, hull in enumerate(hulls):
        coords = shapely.get_coordinates(hull)
        # x cos + y sin, as support_points sums them (no BLAS call); the matrix product
        # may round differently (fused multiply-adds), never by more than an ulp or two
        proj = coords[:, :1] * u[0] + coords[:, 1:] * u[1]
        np.testing.assert_allclose(proj, coords @ u, rtol=1e-15, atol=1e-12 * np.abs(coords).max())
        np.testing.assert_array_equal(h[i], proj.max(axis=0))
        first = proj.argmax(axis=0)
        np.testing.assert_array_equal(x[i], coords[first, 0])
        np.testing.assert_array_equal(y[i], coords[first, 1])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_lower_bound_is_never_above_shapely_and_close_to_it(seed):
    """Never above the area of the hull of the two hulls as shapely computes it
    (Shapes.enclosing, what GIoU uses), and within 10 % of it for pairs of shapes that are
    not slivers and whose boxes meet (far apart, the hull of two small shapes is itself a
    sliver, which few support points inscribe poorly; the GIoU penalty is near 1 there
    either way)."""
    rng = np.random.default_rng(seed)
    geoms = _shapes(rng, 16)
    plain = rng.random(len(geoms)) < 0.2
    shapes = Shapes(shapely.bounds(geoms), np.where(plain, None, geoms))
    i, j = rng.integers(0, len(geoms), (2, 300))
    a, b = shapes.take(i), shapes.take(j)
    rows = np.arange(len(i))
    exact = a.enclosing(b, rows)
    low = a.enclosing_lower_bound(b, rows)
    assert (low <= exact).all()
    assert (low >= 0).all()
    near = (i % 5 != 4) & (j % 5 != 4) & (box_intersection(a.boxes, b.boxes) > 0)
    assert (low[near] >= 0.9 * exact[near]).all()
    assert np.median(low[near] / exact[near]) > 0.99


def test_identical_and_missing_shapes():
    """A shape with itself: its hull's area from below; a missing shape: NaN."""
    disc = shapely.Point(3, 4).buffer(2, quad_segs=64)
    s = Shapes([disc.bounds, [np.nan] * 4], [disc, None])
    low = s.take([0, 0]).enclosing_lower_bound(s.take([0, 1]), np.array([0, 1]))
    hull = shapely.area(shapely.convex_hull(disc))
    assert hull * 0.99 < low[0] <= hull
    assert np.isnan(low[1])
