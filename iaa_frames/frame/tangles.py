"""How often a polygon's outline crosses itself, counted up to a bound.

A drawn outline that crosses itself a few times (a slip of the pen, a polygon closed the
wrong way round) is repaired by :func:`shapely.make_valid` in microseconds. A scrambled
one (vertices in random order, the output of a broken converter) crosses itself about
``n^2 / 10`` times for ``n`` vertices, and GEOS then needs minutes (30 s at 200
vertices, 5 min at 400, measured on a busy 2-core machine) or runs out of memory
(10,000). :func:`crossings` counts the
proper crossings of the edges of every ring of a geometry, over the pairs of edges whose
boxes meet (an R-tree lists them), in blocks, and stops at ``limit``: the count costs a
vectorized pass over those pairs and stops early exactly where the repair would not end.

Examples
--------
>>> import shapely
>>> bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
>>> crossings(np.array([bowtie, shapely.box(0, 0, 1, 1)]), limit=100).tolist()
[1, 0]
"""

from __future__ import annotations

import numpy as np
import shapely

__all__ = ["MAX_CROSSINGS", "MAX_PAIRS", "crossings"]

#: The most self-crossings of an invalid polygon that is repaired; beyond it the polygon
#: is an invalid row ("tangled_polygon"). Real outlines that need repair cross themselves
#: a handful of times (the 7 of LVIS's 3,521 polygons that need it: at most 2); scrambled
#: outlines of 40 and 100 vertices about 140 and 1,000 times, which GEOS repairs in 0.26 s
#: and 4 s.
MAX_CROSSINGS = 100
#: Edge pairs compared at once (memory of one block: about 100 bytes a pair): a block
#: holds at most this many pairs of meeting boxes.
_BLOCK_PAIRS = 1 << 18
#: The pairs of edges with meeting boxes looked at, at most, in one geometry (about 1.5 s).
MAX_PAIRS = 20_000_000


def _edges(geom) -> tuple[np.ndarray, np.ndarray]:
    """The edges of every ring of a (Multi)Polygon: ``(starts, ends)``, each ``(m, 2)``,
    and nothing else (a ring's closing vertex repeats its first, so ring i's edges are
    its consecutive coordinates)."""
    rings = shapely.get_rings(shapely.get_parts(geom))
    xy, owner = shapely.get_coordinates(rings, return_index=True)
    same = owner[1:] == owner[:-1]
    return xy[:-1][same], xy[1:][same]


def _orient(ax, ay, bx, by, cx, cy):
    return np.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))


def _count(a: np.ndarray, b: np.ndarray, limit: int) -> int:
    """Proper crossings among the edges ``a[k] -> b[k]``, at most ``limit``.

    Only edges whose boxes meet can cross: an R-tree of the edges
    (:class:`shapely.STRtree`) lists those pairs, a block of edges at a time, and the
    orientation tests run on them alone. A valid outline of ``n`` edges then costs about
    ``n log n`` (each edge meets its neighbours), not the ``n^2 / 2`` of every pair (20,000
    vertices: 17 s before). Zero-length edges cross nothing properly and are left out.
    Past :data:`MAX_PAIRS` pairs of meeting boxes without ``limit`` crossings the outline
    counts as ``limit``: only a drawing made to defeat the check gets there (every edge's
    box meeting thousands of others'), and repairing it would not end either.
    """
    moves = (a != b).any(axis=1)
    a, b = a[moves], b[moves]
    m = len(a)
    if m < 4:
        return 0
    tree = shapely.STRtree(shapely.linestrings(np.stack([a, b], axis=1)))
    edges = tree.geometries
    found = looked = 0
    rows = max(1, _BLOCK_PAIRS // m)
    for start in range(0, m, rows):  # blocks of edges, not a loop over pairs
        ii, jj = tree.query(edges[start : start + rows])
        ii += start
        keep = jj > ii
        ii, jj = ii[keep], jj[keep]
        looked += len(ii)
        p, q, r, s = a[ii], b[ii], a[jj], b[jj]
        o1 = _orient(p[:, 0], p[:, 1], q[:, 0], q[:, 1], r[:, 0], r[:, 1])
        o2 = _orient(p[:, 0], p[:, 1], q[:, 0], q[:, 1], s[:, 0], s[:, 1])
        o3 = _orient(r[:, 0], r[:, 1], s[:, 0], s[:, 1], p[:, 0], p[:, 1])
        o4 = _orient(r[:, 0], r[:, 1], s[:, 0], s[:, 1], q[:, 0], q[:, 1])
        found += int(np.count_nonzero((o1 * o2 < 0) & (o3 * o4 < 0)))
        if found >= limit or looked > MAX_PAIRS:
            return limit
    return found


def crossings(geoms: np.ndarray, *, limit: int = MAX_CROSSINGS) -> np.ndarray:
    """Per geometry, the proper crossings of its rings' edges (an edge crossing another
    of any ring of the same geometry at a point inside both), counted up to ``limit``.

    Edges that only touch (a shared vertex, a vertex on an edge, collinear overlaps) do
    not count: they are cheap to repair.
    """
    out = np.zeros(len(geoms), np.int64)
    for k, g in enumerate(geoms):  # a loop over invalid polygons only: they are rare
        a, b = _edges(g)
        out[k] = _count(a, b, limit)
    return out
