"""An upper bound of a polygon's area inside any rectangle, in O(1) work per query.

The matcher needs, for many pairs of shapes, an upper bound of the area they share that is
far cheaper than their overlay (:mod:`iaa_frames.core.matching.pipeline`). The exact area of a
polygon inside the other's bounding box (:mod:`iaa_frames.geometry.clip`) costs work per
edge and per query, about as much as the overlay itself for polygons of a few dozen
vertices. This module computes, once per polygon, the exact area of the polygon in each
cell of a :data:`GRID` x :data:`GRID` grid laid over its own bounding box
(:class:`AreaGrid`); the area inside a rectangle ``R`` is then at most
``sum over cells of min(area in the cell, area of the cell inside R)`` (:func:`grid_bound`):
the cells ``R`` covers count their exact area, the cells it cuts at most what ``R`` leaves of
them. That is a fixed number of operations per query whatever the vertex count.

How the cell areas are computed: the area of a region is ``-integral y dx`` along its
oriented boundary (exterior rings counter-clockwise, holes clockwise). For the column
``c_i <= x <= c_(i+1)`` and any height ``d``, the area of the polygon in the column below
``d`` is ``-integral min(y, d) dx`` over the boundary pieces in the column (for each x, the
cross-section's intervals contribute ``min(top, d) - min(bottom, d)``). With every edge cut
where it crosses a grid line, each piece lies in one cell ``(i, r)``, and the area of cell
``(i, j)`` is ``-(S1(i, j) + h_j * sum over r > j of S0(i, r))``, with ``S1`` the sum of
``integral (y - d_r) dx`` and ``S0`` the sum of ``dx`` over the pieces of a cell and ``h_j``
the height of row ``j``. A cell no boundary piece enters is wholly inside or wholly outside
the polygon; its area is then exactly the cell's area or 0 (the winding number, rounded).

Examples
--------
>>> import shapely
>>> from iaa_frames.geometry.clip import RingEdges
>>> tri = shapely.Polygon([(0, 0), (4, 0), (0, 4)])
>>> grid = AreaGrid.from_edges(RingEdges.from_geometries([tri]), k=2)
>>> grid.cells[grid.row[0]].round(9).tolist()  # column 0 (x in [0, 2]): rows y in [0, 2] and [2, 4]
[[4.0, 2.0], [2.0, 0.0]]
>>> grid_bound(grid, [0, 0], [[0, 0, 2, 2], [0, 0, 1, 1]]).round(6).tolist()
[4.0, 1.0]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .clip import RingEdges

__all__ = ["GRID", "AreaGrid", "grid_bound"]

#: Cells per side of the grid of each polygon.
GRID = 8
#: Edges whose grids are computed at once (blocks of whole shapes: their temporaries stay
#: in the processor's caches; the grids do not depend on them).
CHUNK_EDGES = 1 << 14
#: Slack added to a cell a boundary piece enters, as a share of the cell's area, so that
#: rounding in the cell areas never lets the bound fall below the area an overlay computes.
_CELL_SLACK = 1e-12
#: Relative slack of the bound (rounding of the cell and query areas).
_BOUND_SLACK = 1e-9


@dataclass(frozen=True, eq=False)
class AreaGrid:
    """The area of every shape in each cell of a grid over its bounding box.

    Only the shapes with edges have a grid (boxes and missing shapes of a container
    have none, so a few polygons among a million boxes cost a few grids).

    Attributes
    ----------
    row : ndarray of int64, shape (n,)
        The grid of each shape: its row in ``x``, ``y`` and ``cells``, or -1 for a shape
        without edges.
    x, y : ndarray of float64, shape (m, k + 1)
        The grid lines of each grid (the first and last are its shape's bounds).
    cells : ndarray of float64, shape (m, k, k)
        ``cells[g, i, j]``: the area of the shape of grid ``g`` in column ``i`` (``x[g, i]
        <= x <= x[g, i + 1]``) and row ``j``; for a cell some boundary piece enters, plus a
        slack of :data:`_CELL_SLACK` times the cell's area.
    """

    row: np.ndarray
    x: np.ndarray
    y: np.ndarray
    cells: np.ndarray

    @classmethod
    def from_edges(cls, edges: RingEdges, *, k: int = GRID) -> AreaGrid:
        """The grid of every shape of ``edges``, over the bounds of its edges.

        Examples
        --------
        >>> import shapely
        >>> donut = shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 3, 3))
        >>> g = AreaGrid.from_edges(RingEdges.from_geometries([donut]), k=2)
        >>> g.cells[g.row[0]].round(9).tolist()
        [[3.0, 3.0], [3.0, 3.0]]
        """
        offset = edges.offset
        if offset[-1] <= CHUNK_EDGES:
            return cls._of_edges(edges, k)
        # blocks of whole shapes (each shape's grid is its own, whatever the block)
        cuts = np.searchsorted(offset, np.arange(CHUNK_EDGES, offset[-1], CHUNK_EDGES))
        cuts = np.unique(np.r_[0, cuts[(cuts > 0) & (cuts < len(offset) - 1)], len(offset) - 1])
        parts = []
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
            a, b = offset[lo], offset[hi]
            block = RingEdges(
                *(getattr(edges, c)[a:b] for c in ("x0", "y0", "x1", "y1")),
                offset[lo : hi + 1] - a,
            )
            parts.append(cls._of_edges(block, k))
        rows = [len(p.x) for p in parts]
        first = np.cumsum(rows) - rows
        return cls(
            np.concatenate(
                [np.where(p.row >= 0, p.row + f, -1) for p, f in zip(parts, first, strict=True)]
            ),
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.y for p in parts]),
            np.concatenate([p.cells for p in parts]),
        )

    @classmethod
    def _of_edges(cls, edges: RingEdges, k: int) -> AreaGrid:
        """:meth:`from_edges` of one block of shapes."""
        count = np.diff(edges.offset)
        has = np.flatnonzero(count > 0)
        n = has.size  # shapes with a grid
        grid_of = np.full(len(count), -1, np.int64)
        grid_of[has] = np.arange(n)
        owner = np.repeat(np.arange(n), count[has])
        xa, ya, xb, yb = edges.x0, edges.y0, edges.x1, edges.y1
        bounds = np.zeros((n, 4))  # of the edges (the start points hold every vertex)
        if has.size:
            first = edges.offset[has]
            bounds[:, 0], bounds[:, 1] = (
                np.minimum.reduceat(xa, first),
                np.minimum.reduceat(ya, first),
            )
            bounds[:, 2], bounds[:, 3] = (
                np.maximum.reduceat(xa, first),
                np.maximum.reduceat(ya, first),
            )
        steps = np.arange(k + 1) / k
        gx = _lines(bounds[:, 0], bounds[:, 2], steps)
        gy = _lines(bounds[:, 1], bounds[:, 3], steps)
        if not owner.size:
            return cls(grid_of, gx, gy, np.zeros((n, k, k)))
        # the cells of the edges' ends; an edge within one cell is a piece as it is, the
        # others are cut where they cross a grid line
        # an edge ends where the next one starts (but the last of each ring): the cell of
        # its end is that of the next one's start, looked up once
        chained = np.flatnonzero(
            (xb[:-1] == xa[1:]) & (yb[:-1] == ya[1:]) & (owner[:-1] == owner[1:])
        )
        alone = np.ones(len(xa), bool)
        alone[chained] = False
        alone = np.flatnonzero(alone)
        ends = []
        for g, v0, v1 in ((gx, xa, xb), (gy, ya, yb)):
            start = _cell_of(g, owner, v0, k)
            end = np.empty_like(start)
            end[chained] = start[chained + 1]
            end[alone] = _cell_of(g, owner[alone], v1[alone], k)
            ends.append((start, end))
        inside = (ends[0][0] == ends[0][1]) & (ends[1][0] == ends[1][1])
        whole, cut = np.flatnonzero(inside), np.flatnonzero(~inside)
        px, py, pe = [xa[cut], xb[cut]], [ya[cut], yb[cut]], [cut, cut]
        pt = [np.zeros(len(cut)), np.ones(len(cut))]
        for lines, a0, a1, b0, b1, along_x, (ia, ib) in (
            (gx, xa, xb, ya, yb, True, ends[0]),
            (gy, ya, yb, xa, xb, False, ends[1]),
        ):
            lo, n_cross = np.minimum(ia, ib)[cut], np.abs(ia - ib)[cut]
            e = np.repeat(cut, n_cross)
            first = np.repeat(np.cumsum(n_cross) - n_cross, n_cross)
            m = np.repeat(lo, n_cross) + 1 + np.arange(len(e)) - first
            at = lines.ravel().take(owner.take(e) * (k + 1) + m)
            u0, u1 = a0.take(e), a1.take(e)
            t = np.clip((at - u0) / (u1 - u0), 0.0, 1.0)
            u0, u1 = b0.take(e), b1.take(e)
            other = u0 + t * (u1 - u0)
            px.append(at if along_x else other)
            py.append(other if along_x else at)
            pe.append(e)
            pt.append(t)
        px, py, pe, pt = (np.concatenate(v) for v in (px, py, pe, pt))
        # by edge, then along it (ties in the order above): complex numbers sort by their
        # real part, then their imaginary part, one stable sort for numpy.lexsort's two
        order = np.argsort(pe + 1j * pt, kind="stable")
        px, py, pe = px.take(order), py.take(order), pe.take(order)
        piece = np.flatnonzero(pe[1:] == pe[:-1])  # a piece from each point to the next
        x0, y0, x1, y1 = px.take(piece), py.take(piece), px.take(piece + 1), py.take(piece + 1)
        s = owner.take(pe.take(piece))
        col = _cell_of(gx, s, (x0 + x1) / 2, k)
        row = _cell_of(gy, s, (y0 + y1) / 2, k)
        x0, y0 = np.concatenate([xa[whole], x0]), np.concatenate([ya[whole], y0])
        x1, y1 = np.concatenate([xb[whole], x1]), np.concatenate([yb[whole], y1])
        s = np.concatenate([owner[whole], s])
        col = np.concatenate([ends[0][0][whole], col])
        row = np.concatenate([ends[1][0][whole], row])
        dx = x1 - x0
        flat = (s * k + col) * k + row
        s1 = np.bincount(flat, weights=dx * ((y0 + y1) / 2 - gy[s, row]), minlength=n * k * k)
        s0 = np.bincount(flat, weights=dx, minlength=n * k * k).reshape(n, k, k)
        touched = np.bincount(flat, minlength=n * k * k).reshape(n, k, k) > 0
        above = np.zeros((n, k, k))  # sum of S0 over the rows above each cell
        above[:, :, :-1] = np.cumsum(s0[:, :, ::-1], axis=2)[:, :, ::-1][:, :, 1:]
        w, h = np.diff(gx, axis=1), np.diff(gy, axis=1)
        cell_area = w[:, :, None] * h[:, None, :]
        cells = -(s1.reshape(n, k, k) + h[:, None, :] * above)
        with np.errstate(invalid="ignore", divide="ignore"):
            winding = np.rint(np.where(w[:, :, None] > 0, -above / w[:, :, None], 0.0))
        cells = np.where(
            touched, np.maximum(cells, 0.0) + _CELL_SLACK * cell_area, winding * cell_area
        )
        return cls(grid_of, gx, gy, np.maximum(cells, 0.0))


def _lines(lo, hi, steps):
    """Grid lines from ``lo`` to ``hi`` (both exactly) at the fractions ``steps``."""
    lines = lo[:, None] + (hi - lo)[:, None] * steps[None, :]
    lines[:, 0], lines[:, -1] = lo, hi
    return lines


def _cell_of(lines, shape, v, k):
    """The cell (column or row) of value ``v`` of shape ``shape``: the ``i`` with
    ``lines[shape, i] <= v < lines[shape, i + 1]``, clipped to ``[0, k - 1]``."""
    flat = lines.ravel()
    at = shape * (k + 1)  # the flat position of line 0 of the shape, then of line i
    lo, hi = flat.take(at), flat.take(at + k)
    with np.errstate(invalid="ignore", divide="ignore"):
        guess = np.where(hi > lo, np.floor((v - lo) / (hi - lo) * k), 0.0)
    i = np.clip(np.nan_to_num(guess), 0, k - 1).astype(np.int64)
    at += i
    for _ in range(2):  # the guess is off by at most one line through rounding
        move = i > 0
        move &= v < flat.take(at)
        i -= move
        at -= move
        move = i < k - 1
        move &= v >= flat.take(at + 1)
        i += move
        at += move
    return i


def grid_bound(grid: AreaGrid, shape, rect) -> np.ndarray:
    """An upper bound of the area of shape ``shape[q]`` inside rectangle ``rect[q]``.

    ``sum over cells of min(area of the shape in the cell, area of the cell inside the
    rectangle)``, plus a relative slack for rounding: never below the exact area.

    Parameters
    ----------
    grid : AreaGrid
    shape : array_like of int, shape (m,)
        Index of a shape of ``grid`` per query.
    rect : array_like of float, shape (m, 4)
        ``x0, y0, x1, y1`` of each query's rectangle.

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
    """
    shape = np.asarray(shape, dtype=np.int64)
    rect = np.asarray(rect, dtype=np.float64).reshape(-1, 4)
    out = np.zeros(len(shape))
    g = grid.row[shape]
    ok = np.flatnonzero(g >= 0)  # a shape without edges has no area
    g, rect = g[ok], rect[ok]
    gx, gy = grid.x[g], grid.y[g]
    wx = np.minimum(gx[:, 1:], rect[:, 2:3]) - np.maximum(gx[:, :-1], rect[:, 0:1])
    wy = np.minimum(gy[:, 1:], rect[:, 3:4]) - np.maximum(gy[:, :-1], rect[:, 1:2])
    inside = np.maximum(wx, 0.0)[:, :, None] * np.maximum(wy, 0.0)[:, None, :]
    np.minimum(inside, grid.cells[g], out=inside)
    out[ok] = inside.sum(axis=(1, 2)) * (1 + _BOUND_SLACK)
    return out
