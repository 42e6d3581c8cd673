"""A lower bound of the area of the convex hull of two shapes, in numpy, from per-shape data.

GIoU's penalty needs ``C``, the area of the convex hull of two shapes together
(:mod:`iaa_frames.geometry.giou`); shapely computes it at a few microseconds a pair, which
the matcher's bound of the GIoU (:func:`~iaa_frames.geometry.giou.giou_upper_bound`) pays
for tens of thousands of pairs it then never computes. This module bounds ``C`` from below
at a fixed cost per pair from :data:`DIRECTIONS` *support points* of each shape's hull,
computed once per shape (:func:`support_points`).

How: for the direction ``u_k`` at angle ``2 pi k / K``, the support point of a convex set
is its point farthest along ``u_k`` (the first hull vertex attaining the largest
projection ``h_k``). The hull of two shapes is the hull of their two hulls, so its support
point along ``u_k`` is that of the shape with the larger ``h_k``. Support points taken in
increasing angle run counter-clockwise along the hull's boundary, so the polygon through
them is convex and inscribed in the hull: its shoelace area is at most ``C``
(:func:`enclosing_lower_bound`; about 0.6 % below it on average at 32 directions on the
LVIS polygons). It is lowered further by a margin far above the rounding of either area.

Examples
--------
>>> import shapely
>>> h, x, y = support_points(np.array([shapely.box(0, 0, 1, 1), shapely.box(3, 0, 4, 1)]))
>>> low = enclosing_lower_bound((h[:1], x[:1], y[:1]), (h[1:], x[1:], y[1:]),
...                             np.array([[2.0, 0.5]]), np.array([2.0]))
>>> bool(low[0] <= 4.0), round(float(low[0]), 6)  # the hull of both boxes: 4 x 1
(True, 4.0)
"""

from __future__ import annotations

import numpy as np
import shapely

__all__ = ["DIRECTIONS", "directions", "enclosing_lower_bound", "support_points"]

#: Directions of the support points of each hull.
DIRECTIONS = 32
#: Margin of the lower bound, relative to ``8 k extent ** 2`` (a bound of the sum of the
#: shoelace terms' magnitudes) and to the coordinates' magnitude times the extent (the
#: rounding of the bound and of shapely's area are below 1e-12 of those).
_MARGIN = 1e-10


def directions(k: int = DIRECTIONS) -> np.ndarray:
    """The ``k`` unit directions of the support points, as the columns of a (2, k) array
    (angles ``2 pi j / k``, the axes exactly).

    Examples
    --------
    >>> directions(4).tolist()
    [[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0]]
    """
    angle = 2 * np.pi * np.arange(k) / k
    u = np.stack([np.cos(angle), np.sin(angle)])  # (2, k)
    u[np.abs(u) < 1e-15] = 0.0  # the axes exactly
    return u


def support_points(hulls: np.ndarray, k: int = DIRECTIONS):
    """The largest projection of each hull's vertices on ``k`` directions, and the first
    vertex attaining it.

    Parameters
    ----------
    hulls : ndarray of shapely geometries, shape (n,)
        Convex hulls (any geometry: its vertices are used). ``None`` or an empty geometry
        has no support points (``h`` is -inf and the points NaN).
    k : int
        The directions, at angles ``2 pi j / k``.

    Returns
    -------
    h, x, y : ndarray of float64, shape (n, k)
        The largest projection along each direction, and the coordinates of the vertex.

    Examples
    --------
    >>> import shapely
    >>> h, x, y = support_points(np.array([shapely.box(0, 0, 2, 1)]), k=4)
    >>> h[0].tolist()  # along +x, +y, -x, -y
    [2.0, 1.0, 0.0, 0.0]
    >>> x[0].tolist(), y[0].tolist()
    ([2.0, 2.0, 0.0, 2.0], [0.0, 1.0, 1.0, 0.0])
    """
    n = len(hulls)
    h = np.full((n, k), -np.inf)
    x, y = np.full((n, k), np.nan), np.full((n, k), np.nan)
    coords, owner = shapely.get_coordinates(hulls, return_index=True)
    if not len(coords):
        return h, x, y
    # (vertices, k): x cos + y sin elementwise, not ``coords @ directions(k)``, whose
    # BLAS call starts BLAS's own threads on long coordinate lists (LVIS: 0.1 s of CPU
    # on a second core, beside the engine's threads)
    u = directions(k)
    proj = coords[:, :1] * u[0]
    proj += coords[:, 1:] * u[1]
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    shape = owner[starts]
    h[shape] = np.maximum.reduceat(proj, starts, axis=0)
    # the first vertex of each shape attaining its largest projection, per direction
    vertex = np.where(proj == h[owner], np.arange(len(owner))[:, None], len(owner))
    first = np.minimum.reduceat(vertex, starts, axis=0)
    x[shape], y[shape] = coords[first, 0], coords[first, 1]
    return h, x, y


def enclosing_lower_bound(a, b, centre, extent, hulls=None) -> np.ndarray:
    """A lower bound of the area of the convex hull of each pair of shapes together,
    from their support points (:func:`support_points`).

    Parameters
    ----------
    a, b : tuple of three ndarray of float64, shape (m, k)
        The support data ``(h, x, y)`` of the two shapes of each pair.
    centre : ndarray of float64, shape (m, 2)
        A point near the two shapes (the centre of their boxes together), the origin of
        the shoelace sum.
    extent : ndarray of float64, shape (m,)
        The largest distance along an axis from ``centre`` to a point of either shape
        (half the longer side of their boxes together).
    hulls : tuple of three ndarray of float64, shape (m,), optional
        The areas of the two hulls and of the intersection of the two shapes' boxes:
        the hull of both holds the union of the hulls, of area at least ``Ha + Hb -
        min(Ha, Hb, box intersection)``, which the bound is then never below (less a
        margin of :data:`_MARGIN` times ``Ha + Hb``). That is the better bound for long
        thin shapes, whose few distinct support points inscribe a poor polygon.

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
        At most the hull's area as shapely computes it (by a margin of :data:`_MARGIN`
        times ``k * extent ** 2`` and the coordinates' magnitude times ``extent``); NaN
        where a shape has no support points.

    Examples
    --------
    >>> import shapely
    >>> tri, box = shapely.Polygon([(0, 0), (1, 0), (0, 1)]), shapely.box(2, 2, 3, 3)
    >>> h, x, y = support_points(np.array([tri, box]))
    >>> C = shapely.convex_hull(shapely.union(tri, box)).area
    >>> low = enclosing_lower_bound((h[:1], x[:1], y[:1]), (h[1:], x[1:], y[1:]),
    ...                             np.array([[1.5, 1.5]]), np.array([1.5]))[0]
    >>> bool(low <= C), bool(low > 0.97 * C)
    (True, True)
    """
    pick = a[0] >= b[0]
    x = np.where(pick, a[1], b[1])  # the support points of the pair's hull
    x -= centre[:, :1]
    y = np.where(pick, a[2], b[2])
    y -= centre[:, 1:]
    cross = x[:, :-1] * y[:, 1:]
    cross -= x[:, 1:] * y[:, :-1]
    twice = cross.sum(axis=1)
    twice += x[:, -1] * y[:, 0] - x[:, 0] * y[:, -1]
    k = x.shape[1]
    margin = _MARGIN * (8 * k * extent**2 + np.abs(centre).max(axis=1) * extent)
    with np.errstate(invalid="ignore"):
        low = np.maximum(twice / 2 - margin, 0.0)
        if hulls is not None:
            ha, hb, boxes = hulls
            both = ha + hb
            union = both - np.minimum(np.minimum(ha, hb), boxes) - _MARGIN * both
            low = np.where(np.isnan(low), low, np.maximum(low, union))
    return low
