"""The grid bound of a polygon's area inside a rectangle (iaa_frames.geometry.area_grid),
against shapely overlays: cell areas exact, the bound never below the truth."""

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from iaa_frames.geometry.area_grid import GRID, AreaGrid, grid_bound
from iaa_frames.geometry.clip import RingEdges, clipped_areas
from iaa_frames.geometry.distances import Shapes, areas_inside, areas_inside_bound


def _random_shapes(rng, n, most_vertices=30):
    """Star polygons (3 to ``most_vertices`` vertices), some with holes, some reversed,
    some multipolygons of two or three parts."""
    out = []
    for i in range(n):
        k = int(rng.integers(3, most_vertices))
        ang = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(0.2, 1.0, k)
        scale = rng.uniform(0.01, 3)
        ring = np.c_[np.cos(ang) * r, np.sin(ang) * r] * scale + rng.uniform(-1, 1, 2)
        g = shapely.make_valid(shapely.Polygon(ring if i % 3 else ring[::-1]))
        if i % 4 == 0:
            g = g.difference(shapely.Point(*ring.mean(axis=0)).buffer(0.3 * r.min() * scale))
        if i % 5 == 0:
            g = shapely.union(g, shapely.affinity.translate(g, 2.5 * r.max(), 0.5))
        if i % 7 == 0:
            g = shapely.union(g, shapely.affinity.scale(g, 0.2, 0.3, origin=(5, -4)))
        out.append(g if g.area > 0 else shapely.box(*ring.min(axis=0), *ring.max(axis=0)))
    return np.array(out, dtype=object)


def _cells_by_shapely(grid, s, geom):
    x, y = grid.x[grid.row[s]], grid.y[grid.row[s]]
    k = len(x) - 1
    cells = shapely.box(
        np.repeat(x[:-1], k), np.tile(y[:-1], k), np.repeat(x[1:], k), np.tile(y[1:], k)
    )
    return shapely.area(shapely.intersection(geom, cells)).reshape(k, k)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2, 3, GRID]))
def test_cell_areas_are_those_of_shapely(seed, k):
    rng = np.random.default_rng(seed)
    geoms = _random_shapes(rng, 10, most_vertices=int(rng.choice([8, 40, 400])))
    grid = AreaGrid.from_edges(RingEdges.from_geometries(geoms), k=k)
    np.testing.assert_array_equal(grid.row, np.arange(len(geoms)))  # every shape has edges
    for s, geom in enumerate(geoms):
        np.testing.assert_allclose(grid.x[s, [0, -1]], np.array(geom.bounds)[[0, 2]])
        np.testing.assert_allclose(grid.y[s, [0, -1]], np.array(geom.bounds)[[1, 3]])
        truth = _cells_by_shapely(grid, s, geom)
        assert (grid.cells[s] >= truth).all()
        np.testing.assert_allclose(grid.cells[s], truth, rtol=1e-9, atol=1e-11)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_bound_is_never_below_the_exact_area(seed):
    """Against the exact area inside random rectangles (shapely) and the clipped area of
    :mod:`iaa_frames.geometry.clip`, and against the area shared with other polygons,
    which is what the matcher bounds."""
    rng = np.random.default_rng(seed)
    geoms = _random_shapes(rng, 12, most_vertices=int(rng.choice([8, 40, 400])))
    edges = RingEdges.from_geometries(geoms)
    grid = AreaGrid.from_edges(edges)
    m = 80
    shape = rng.integers(0, len(geoms), m)
    lo = rng.uniform(-3, 3, (m, 2))
    rect = np.c_[lo, lo + rng.uniform(0, 3, (m, 2)) ** 2]
    bound = grid_bound(grid, shape, rect)
    exact = shapely.area(shapely.intersection(geoms[shape], shapely.box(*rect.T)))
    assert (bound >= exact).all()
    # (the clipped area itself is exact up to rounding: 1e-15 where the truth is 0)
    assert (bound >= clipped_areas(edges, shape, rect) * (1 - 1e-9) - 1e-12).all()
    other = rng.integers(0, len(geoms), m)
    shared = shapely.area(shapely.intersection(geoms[shape], geoms[other]))
    assert (grid_bound(grid, shape, shapely.bounds(geoms[other])) >= shared).all()
    # and never above the area of the shape's box inside the rectangle (up to the slack)
    box = shapely.bounds(geoms[shape])
    w = np.minimum(box[:, 2], rect[:, 2]) - np.maximum(box[:, 0], rect[:, 0])
    h = np.minimum(box[:, 3], rect[:, 3]) - np.maximum(box[:, 1], rect[:, 1])
    assert (bound <= np.maximum(w, 0) * np.maximum(h, 0) * (1 + 1e-8) + 1e-15).all()


def test_rectangles_on_grid_lines_vertices_and_edges():
    """Rectangles whose sides run along grid lines, edges or through vertices, degenerate
    rectangles, and rectangles apart: the bound holds, and is exact where the rectangle is
    made of whole cells."""
    square = shapely.box(0, 0, 2, 2)
    diamond = shapely.Polygon([(1, 0), (2, 1), (1, 2), (0, 1)])
    donut = shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 3, 3))
    geoms = np.array([square, diamond, donut], dtype=object)
    grid = AreaGrid.from_edges(RingEdges.from_geometries(geoms), k=4)
    rect = np.array(
        [[0, 0, 2, 2], [0, 0, 1, 1], [1, 0, 3, 2], [1, 1, 1, 1], [0, 1, 2, 1], [5, 5, 6, 6]],
        dtype=float,
    )
    for s, geom in enumerate(geoms):
        shape = np.full(len(rect), s)
        exact = shapely.area(shapely.intersection(geom, shapely.box(*rect.T)))
        bound = grid_bound(grid, shape, rect)
        assert (bound >= exact).all()
        if s == 0:  # the square's cells are halves: these rectangles are whole cells
            np.testing.assert_allclose(bound, exact, atol=1e-9)
    # apart, and inside the hole: nothing but the slack of the cells the hole's edges enter
    apart, hole = grid_bound(grid, [0, 2], [[5, 5, 6, 6], [1.2, 1.2, 2.8, 2.8]])
    assert apart == 0.0 and 0.0 <= hole < 1e-11


def test_cells_no_boundary_enters_are_whole_or_empty():
    """A cell no edge enters holds exactly its area or nothing (the donut's hole)."""
    donut = shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 3, 3))
    grid = AreaGrid.from_edges(RingEdges.from_geometries([donut]), k=8)  # cells of 0.5
    cells = grid.cells[grid.row[0]]
    assert cells[3, 3] == 0.0  # inside the hole
    assert cells[0, 4] == pytest.approx(0.25, abs=1e-11)


def test_shapes_without_edges_have_nothing():
    """... and no grid: only the shapes with edges take memory."""
    geoms = [None, shapely.LineString([(0, 0), (1, 1)]), shapely.box(0, 0, 1, 1)]
    grid = AreaGrid.from_edges(RingEdges.from_geometries(geoms))
    assert grid.row.tolist() == [-1, -1, 0] and grid.cells.shape == (1, GRID, GRID)
    got = grid_bound(grid, [0, 1, 2], np.tile([0, 0, 1, 1.0], (3, 1)))
    assert got[:2].tolist() == [0.0, 0.0]
    assert got[2] == pytest.approx(1.0)


def test_areas_inside_bound_of_mixed_shapes():
    """Boxes get their exact area inside the rectangle; polygons at least theirs; a row
    taken from a container uses the grid of the container it came from."""
    tri = shapely.Polygon([(0, 0), (4, 0), (0, 4)])
    shapes = Shapes([[0, 0, 2, 2], tri.bounds], [None, tri])
    rects = np.array([[1, 1, 3, 3], [0, 0, 2, 2]], dtype=float)
    got = areas_inside_bound(shapes, rects)
    exact = areas_inside(shapes, rects)
    assert got[0] == exact[0] == 1.0
    assert got[1] >= exact[1]
    taken = shapes.take([1, 1])
    np.testing.assert_array_equal(areas_inside_bound(taken, rects[[1, 1]]), got[[1, 1]])


def test_edges_in_any_order_give_the_same_cells():
    """The grid takes the cell of an edge's end from the next edge where that one starts
    there; edges listed in another order (no edge then starts where the previous ends)
    must give the same cells, up to the order of the sums."""
    rng = np.random.default_rng(11)
    geoms = _random_shapes(rng, 12, most_vertices=60)
    edges = RingEdges.from_geometries(geoms)
    grid = AreaGrid.from_edges(edges)
    order = np.concatenate(  # the edges of each shape in a random order
        [lo + rng.permutation(hi - lo) for lo, hi in zip(edges.offset[:-1], edges.offset[1:])]
    )
    mixed = RingEdges(
        *(getattr(edges, c)[order] for c in ("x0", "y0", "x1", "y1")), edges.offset.copy()
    )
    other = AreaGrid.from_edges(mixed)
    np.testing.assert_array_equal(other.x, grid.x)
    np.testing.assert_array_equal(other.y, grid.y)
    np.testing.assert_allclose(other.cells, grid.cells, rtol=1e-12, atol=1e-15)
    # and each shape alone gets, bit for bit, the grid it gets among the others
    for s in (0, 5, 11):
        alone = AreaGrid.from_edges(RingEdges.from_geometries(geoms[s : s + 1]))
        np.testing.assert_array_equal(alone.cells[0], grid.cells[s])


def test_blocks_of_shapes_give_the_same_grids(monkeypatch):
    """Grids built in blocks of a few shapes (shapes without edges among them) are those
    built at once, bit for bit, and each shape keeps its row."""
    import iaa_frames.geometry.area_grid as module

    rng = np.random.default_rng(12)
    geoms = _random_shapes(rng, 15, most_vertices=40).tolist()
    geoms[3:3] = [None, None]
    geoms.append(None)
    edges = RingEdges.from_geometries(geoms)
    whole = AreaGrid.from_edges(edges)
    monkeypatch.setattr(module, "CHUNK_EDGES", 50)
    blocks = AreaGrid.from_edges(edges)
    assert (blocks.row == -1).sum() == 3
    for c in ("row", "x", "y", "cells"):
        np.testing.assert_array_equal(getattr(blocks, c), getattr(whole, c))
