"""The GIoU upper bound of iaa_frames.geometry.giou: never below the GIoU itself."""

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.geometry.distances import Shapes, get_distance, iou
from iaa_frames.geometry.giou import giou, giou_upper_bound
from iaa_frames.geometry.mask_rule import uses_mask_iou


def _shapes(rng, n):
    """Star polygons (convex or not), some with holes, some of two parts, some boxes."""
    out = []
    for i in range(n):
        k = int(rng.integers(3, 60))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(0.2, 1.0, k) if i % 4 else np.ones(k)  # every fourth one convex
        scale = rng.uniform(0.05, 2)
        ring = np.c_[np.cos(ang) * r, np.sin(ang) * r] * scale + rng.uniform(-1, 1, 2)
        g = shapely.make_valid(shapely.Polygon(ring))
        if i % 5 == 1:
            g = g.difference(shapely.Point(*ring.mean(axis=0)).buffer(0.2 * r.min() * scale))
        if i % 6 == 2:
            g = shapely.union(g, shapely.affinity.translate(g, 2.2 * scale, 0.3))
        if i % 7 == 3 or not g.area > 0:
            g = shapely.box(*ring.min(axis=0), *ring.max(axis=0))
        out.append(g)
    return np.array(out, dtype=object)


def _pairs(rng, n_pairs=300):
    """Random pairs of :func:`_shapes` (a fifth given as plain boxes), their exact IoU and
    their GIoU."""
    geoms = _shapes(rng, 16)
    plain = rng.random(len(geoms)) < 0.2
    shapes = Shapes(shapely.bounds(geoms), np.where(plain, None, geoms))
    i, j = rng.integers(0, len(geoms), (2, n_pairs))
    a, b = shapes.take(i), shapes.take(j)
    value = np.nan_to_num(iou(a, b))
    return a, b, value, giou(a, b, known_iou=value)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bound_is_never_below_the_giou(seed):
    """From the exact IoU and from looser IoU bounds, on polygons, holes, multipolygons,
    convex polygons and boxes given as polygons or as plain boxes."""
    rng = np.random.default_rng(seed)
    geoms = _shapes(rng, 16)
    boxes = shapely.bounds(geoms)
    plain = rng.random(len(geoms)) < 0.2  # some rows plain boxes
    shapes = Shapes(boxes, np.where(plain, None, geoms))
    i, j = rng.integers(0, len(geoms), (2, 200))
    a, b = shapes.take(i), shapes.take(j)
    value = np.nan_to_num(iou(a, b))
    exact = giou(a, b, known_iou=value)
    for looser in (0.0, 1e-9, 0.1, 1.0):
        bound = giou_upper_bound(a, b, value + looser)
        assert (bound >= exact).all()
        assert (bound <= value + looser).all()
    sim = get_distance("giou")
    assert (sim.similarity_bound(a, b, iou_bound=value) >= sim.similar(a, b, known_iou=value)).all()


def test_bound_of_shapes_far_apart_is_below_zero():
    """Two triangles far apart: C is the hull of both, far more than their hulls."""
    a = Shapes.from_geometries([shapely.Polygon([(0, 0), (1, 0), (0, 1)])])
    b = Shapes.from_geometries([shapely.Polygon([(3, 3), (4, 3), (3, 4)])])
    bound = giou_upper_bound(a, b, [0.0])
    np.testing.assert_allclose(bound, [-(6.5 - 1.0) / 6.5])  # hull of the six points: 6.5
    np.testing.assert_allclose(giou(a, b), bound)  # the hulls do not meet: the bound is exact
    assert get_distance("giou").similarity_bound(a, b, iou_bound=[0.0]).tolist() == [0.0]


def test_boxes_keep_the_iou_bound():
    a, b = Shapes([[0, 0, 1, 1]]), Shapes([[5, 5, 6, 6]])
    assert giou_upper_bound(a, b, [0.25]).tolist() == [0.25]
    assert get_distance("iou").similarity_bound is None


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bound_from_the_exact_iou_is_tighter_and_never_below_the_giou(seed):
    """``exact=True`` (the IoU given is the pair's own): never below the GIoU computed
    from that IoU, never above the bound without it, and below it for some concave
    pairs (the shared area lowers the hulls' union)."""
    rng = np.random.default_rng(seed)
    a, b, value, exact = _pairs(rng)
    tight = giou_upper_bound(a, b, value, exact=True)
    loose = giou_upper_bound(a, b, value)
    assert (tight >= exact).all()
    assert (tight <= loose).all()
    sim = get_distance("giou")
    assert sim.bound_hints
    bound = sim.similarity_bound(a, b, iou_bound=value, exact=True)
    assert (bound >= sim.similar(a, b, known_iou=value)).all()


def test_bound_from_the_exact_iou_of_two_crossing_bars():
    """Two thin bars crossing in an X: the enclosing hull is far larger than the bars, so
    the penalty counts, and with the shared area known the union of the hulls is at most
    Ha + Hb - I: the bound falls below the one without it, to the formula by hand."""
    bar = shapely.box(-5, -0.5, 5, 0.5)
    up, down = shapely.affinity.rotate(bar, 45), shapely.affinity.rotate(bar, -45)
    a, b = Shapes.from_geometries([up]), Shapes.from_geometries([down])
    value = iou(a, b)
    exact, tight = giou(a, b, known_iou=value), giou_upper_bound(a, b, value, exact=True)
    loose = giou_upper_bound(a, b, value)
    assert exact[0] <= tight[0] < loose[0]
    shared = float(shapely.area(shapely.intersection(up, down)))  # the central square
    np.testing.assert_allclose(shared, 1.0)
    C = float(shapely.area(shapely.convex_hull(shapely.union(up, down))))
    np.testing.assert_allclose(tight[0], value[0] - (C - (20.0 - shared)) / C, rtol=1e-7)
    np.testing.assert_allclose(loose[0], value[0] - (C - 20.0) / C, rtol=1e-12)


def test_bound_from_a_mask_iou_keeps_the_looser_union():
    """A detailed pair given by masks: its IoU is the masks', not the shapes', so the
    exact bound does not use the shared area it implies."""
    disc = shapely.Point(0.5, 0.5).buffer(0.25, quad_segs=200)
    moved = shapely.affinity.translate(disc, 0.1)
    size = [[100, 100]]
    a, b = Shapes([disc.bounds], [disc], size), Shapes([moved.bounds], [moved], size)
    assert uses_mask_iou(a, b).tolist() == [True]
    value = iou(a, b)
    np.testing.assert_array_equal(
        giou_upper_bound(a, b, value, exact=True), giou_upper_bound(a, b, value)
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bound_with_a_floor_is_at_or_below_it_or_the_bound_without(seed):
    """``floor``: each pair gets a bound at or below its floor, or bitwise the bound it
    gets without a floor; never below the GIoU."""
    rng = np.random.default_rng(seed)
    a, b, value, exact = _pairs(rng)
    floor = rng.uniform(-0.5, 1.0, len(value))
    for known in (False, True):
        plain_bound = giou_upper_bound(a, b, value, exact=known)
        bound = giou_upper_bound(a, b, value, exact=known, floor=floor)
        assert ((bound <= floor) | (bound == plain_bound)).all()
        assert (bound >= exact).all()
    # a floor of -inf asks for the bound without one, +inf for the cheapest
    np.testing.assert_array_equal(
        giou_upper_bound(a, b, value, floor=np.full(len(value), -np.inf)),
        giou_upper_bound(a, b, value),
    )
    cheapest = giou_upper_bound(a, b, value, floor=np.full(len(value), np.inf))
    assert (cheapest >= giou_upper_bound(a, b, value)).all()
