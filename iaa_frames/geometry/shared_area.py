"""The exact area two polygons share, without an overlay: signed trapezoids of edge pairs.

The IoU of two polygons needs the area of their intersection. A GEOS overlay builds the
intersection polygon to measure it, tens of microseconds a pair; the area alone needs far
less. Here it is a sum over the pairs of edges of the two shapes, in numpy, chunks of edge
pairs at a time (a numba kernel was measured and left out: its import and first compile
cost more than it saved).

Why it is exact: orient the rings (exteriors counter-clockwise, holes clockwise, as
:class:`~iaa_frames.geometry.clip.RingEdges` holds them). For a point ``p`` not on a
ring, the indicator of a valid polygon (or multipolygon, holes included) is

    1_A(p) = sum over edges e of A of  s_e [p.x within e's x-range and p below e],

with ``s_e = +1`` for an edge running leftwards (the top of the inside) and ``-1`` for one
running rightwards: a vertical line through ``p`` crosses the boundary above ``p``
alternately leftwards and rightwards, ending leftwards exactly when ``p`` is inside.
Multiplying the two sums and integrating over any region ``R`` that holds ``A ∩ B``,

    area(A ∩ B) = sum over pairs (e, f) of  s_e s_f area(R ∩ below e ∩ below f),

and with ``R`` the intersection ``[x0, x1] x [y0, y1]`` of the two bounding boxes each term
is the integral, over the common x-range of ``e`` and ``f`` inside ``[x0, x1]``, of
``clamp(min(e(x), f(x)), y0, y1) - y0``: a piecewise linear function, integrated exactly
by cutting it where the two edges cross and where the minimum crosses ``y0`` or ``y1``.
Edges entirely below ``y0`` or outside ``[x0, x1]``, and vertical edges, contribute
nothing and are skipped. Shared edges, collinear overlaps, touching vertices and holes
need no special case: they change the integrand on a set of no area. Clamping to the
boxes' intersection keeps every term at most the area of that intersection (at most the
union of the shapes), so rounding stays of the order of the IoU's own; the sum of each
pair is compensated (Neumaier).

A box is the one edge of its top side (its bottom is below ``y0``, its sides vertical), so
a pair of a box and a polygon is the area of the polygon inside the boxes' intersection.

The identity holds for valid shapes; for rings that cross themselves it gives the
integral of the product of winding numbers instead, so callers keep invalid shapes for
GEOS (:func:`iaa_frames.geometry.overlap.overlap` does).

Examples
--------
>>> import shapely
>>> a = shapely.Polygon([(0, 0), (4, 0), (0, 4)])
>>> b = shapely.box(1, 0, 3, 5).difference(shapely.box(1.5, 0.5, 2, 1))  # with a hole
>>> float(polygon_shared_areas([a], [b])[0]), float(shapely.intersection(a, b).area)
(3.75, 3.75)
"""

from __future__ import annotations

import numpy as np
import shapely

from .clip import RingEdges

__all__ = ["polygon_shared_areas", "shared_areas"]


#: Edges of shapes gathered at once, and pairs of pieces of edges computed at once (they
#: bound the memory: some hundreds of bytes per edge, and per pair of pieces).
CHUNK_EDGES = 1 << 18
CHUNK_PAIRS = 1 << 20

#: A shared area at most this fraction of the sum of the absolute values of its terms is
#: rounding (32 units in the last place): it is 0, the area of shapes that only touch.
#: Setting a true area that small to 0 moves the IoU by less than about 1e-13.
ROUNDING = 32 * np.finfo(np.float64).eps


def _sweep_form(edges: RingEdges):
    """Every edge of ``edges`` from its left end to its right: ``xa, ya, xb, yb``, its sign
    (+1 leftwards, -1 rightwards, 0 vertical) and its top ``max(ya, yb)``; computed once
    per :class:`~iaa_frames.geometry.clip.RingEdges` and kept on it."""
    form = edges.__dict__.get("_sweep_form")
    if form is None:
        right = edges.x0 <= edges.x1
        xa, xb = np.where(right, edges.x0, edges.x1), np.where(right, edges.x1, edges.x0)
        ya, yb = np.where(right, edges.y0, edges.y1), np.where(right, edges.y1, edges.y0)
        sign = np.where(right, -1.0, 1.0)
        sign[xa == xb] = 0.0
        form = (xa, ya, xb, yb, sign, np.maximum(ya, yb))
        edges.__dict__["_sweep_form"] = form
    return form


def _pieces(edges: RingEdges, shape: np.ndarray, rect: np.ndarray):
    """The edges of shape ``shape[k]`` projected onto ``rect[k]``, for every ``k``, cut
    into pieces on which the projection is linear, without the pieces of no width or on
    the bottom of the rectangle (they add nothing); a ``-1`` shape: the rectangle's top.

    Returns
    -------
    k : ndarray of int64
        The pair of each piece.
    xl, xr, vl, slope, sign : ndarray of float64
        Left and right x of each piece, its height above the rectangle's bottom at its
        left end (the projection is in ``[0, y1 - y0]``), its slope and the sign of its
        edge.
    """
    m = len(shape)
    box = shape < 0
    s = np.where(box, 0, shape)
    n = np.where(box, 0, edges.offset[s + 1] - edges.offset[s])
    k = np.repeat(np.arange(m), n)
    e = np.repeat(edges.offset[s] - np.cumsum(n) + n, n) + np.arange(len(k))
    xa_all, ya_all, xb_all, yb_all, sign_all, top_all = _sweep_form(edges)
    x0, y0, x1, y1 = (np.ascontiguousarray(rect[:, c]) for c in range(4))
    xa, xb = xa_all[e], xb_all[e]
    kx0, kx1, ky0 = x0[k], x1[k], y0[k]
    top = top_all[e]
    keep = (xb > kx0) & (xa < kx1) & (xa < xb) & (top > ky0)
    k, e, xa, xb, kx0, kx1, ky0, top = (u[keep] for u in (k, e, xa, xb, kx0, kx1, ky0, top))
    ya, yb = ya_all[e], yb_all[e]
    ky1 = y1[k]
    # edges inside their rectangle are their own piece
    inside = (xa >= kx0) & (xb <= kx1) & (ya >= ky0) & (yb >= ky0) & (top <= ky1)
    out = [k[inside], xa[inside], xb[inside], ya[inside] - ky0[inside], None, None]
    out[4] = (yb[inside] - ya[inside]) / (out[2] - out[1])
    out[5] = sign_all[e[inside]]
    cut = ~inside
    if cut.any():
        cut_edges = (u[cut] for u in (k, e, xa, ya, xb, yb, kx0, kx1, ky0, ky1))
        more = _cut(*cut_edges, sign_all)
        out = [np.concatenate([u, w]) for u, w in zip(out, more, strict=True)]
    if box.any():  # a box: the top of the rectangle, one leftwards piece per pair
        b = np.flatnonzero(box)
        top = [b, x0[b], x1[b], (y1 - y0)[b], np.zeros(len(b)), np.ones(len(b))]
        out = [np.concatenate([u, w]) for u, w in zip(out, top, strict=True)]
    return out


def _cut(k, e, xa, ya, xb, yb, x0, x1, y0, y1, sign_all):
    """The pieces of the edges that leave their rectangle (:func:`_pieces`): cut where
    they cross its sides, projected onto it."""
    slope = (yb - ya) / (xb - xa)
    h = y1 - y0
    p = np.empty((4, len(k)))  # the ends and the crossings of the bottom and top, by x
    np.maximum(xa, x0, out=p[0])
    np.minimum(xb, x1, out=p[3])
    with np.errstate(divide="ignore", invalid="ignore"):
        cut_lo = xa + (y0 - ya) / slope
        cut_hi = xa + (y1 - ya) / slope
    flat = ~(slope != 0)
    cut_lo[flat] = p[3, flat]
    cut_hi[flat] = p[3, flat]
    np.minimum(cut_lo, cut_hi, out=p[1])
    np.maximum(cut_lo, cut_hi, out=p[2])
    np.clip(p[1:3], p[0], p[3], out=p[1:3])
    v = p - xa
    v *= slope
    v += ya
    v[3] = np.where(p[3] == xb, yb, v[3])  # exact at the right end
    v -= y0
    np.clip(v, 0.0, h, out=v)
    xl, xr, vl, vr = p[:3], p[1:], v[:3], v[1:]
    piece = (xr > xl) & ((vl > 0) | (vr > 0))
    rows = np.broadcast_to(np.arange(len(k)), (3, len(k)))[piece]
    xl, xr, vl = xl[piece], xr[piece], vl[piece]
    return k[rows], xl, xr, vl, (vr[piece] - vl) / (xr - xl), sign_all[e[rows]]


def _keys(k, xl, xr, rect):
    """Integer keys of the pieces' ends, ordered by pair, then by x: ``k 2**32 +
    floor(2**31 (x - x0) / (x1 - x0))``, non-decreasing in ``x`` within a pair whatever
    the rounding, and the same for a piece in any batch of pairs but for ``k``."""
    x0, width = rect[k, 0], (rect[:, 2] - rect[:, 0])[k]
    base = k << 32
    out = []
    for x in (xl, xr):
        u = x - x0
        u /= width
        u *= 2.0**31
        out.append(base + np.clip(u, 0, 2.0**31).astype(np.int64))
    return out


def _overlapping(pair, key_l, key_r, xl, xr, other_key_l, other_xl, strict):
    """Pairs ``(i, j)`` of a piece ``i`` and a piece ``j`` of the other side of the same
    pair such that ``xl[i] <= other_xl[j] < xr[i]`` (``strict``: ``xl[i] <`` it), in
    blocks of about :data:`CHUNK_PAIRS` that never split the pieces of one pair.

    The keys (:func:`_keys`) order the pieces by pair, then by x, and both sides are
    sorted by their left key, so the candidates from the keys are a superset of the
    pairs wanted, filtered exactly on the coordinates. The pairs come in an order that
    depends on the two shapes alone, whatever else is in the batch.
    """
    lo = np.searchsorted(other_key_l, key_l, "left")
    count = np.searchsorted(other_key_l, key_r, "right")
    count -= lo
    cum = np.cumsum(count)
    cuts = np.searchsorted(cum, np.arange(CHUNK_PAIRS, cum[-1] if len(cum) else 0, CHUNK_PAIRS))
    # moved back to the first piece of their pair: a pair's terms are summed in one block
    cuts = np.unique(np.searchsorted(pair, pair[cuts], "left"))
    cuts = cuts[cuts > 0]
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(count)], strict=True):
        c = count[a:b]
        i = np.repeat(np.arange(a, b), c)
        j = np.repeat(lo[a:b] - np.cumsum(c) + c, c)
        j += np.arange(len(i))
        at = other_xl[j]
        ok = (at > xl[i]) if strict else (at >= xl[i])
        ok &= at < xr[i]
        yield i[ok], j[ok]


def _trapezoids(pa, pb, i, j) -> np.ndarray:
    """The signed area under both pieces ``pa[i]`` and ``pb[j]`` (above the bottom of
    their rectangle), for each pair of the pieces."""
    _, axl, axr, avl, sa, asg = (u[i] for u in pa)
    _, bxl, bxr, bvl, sb, bsg = (u[j] for u in pb)
    xl, xr = np.maximum(axl, bxl), np.minimum(axr, bxr)
    yal = avl + (xl - axl) * sa
    yar = avl + (xr - axl) * sa
    ybl = bvl + (xl - bxl) * sb
    ybr = bvl + (xr - bxl) * sb
    dl, dr = yal - ybl, yar - ybr
    gl, gr = np.minimum(yal, ybl), np.minimum(yar, ybr)
    cross = np.flatnonzero(((dl < 0) & (dr > 0)) | ((dl > 0) & (dr < 0)))
    twice = (xr - xl) * (gl + gr)
    if cross.size:  # where the two edges cross, the minimum changes edge
        c = cross
        xl, xr, gl, gr, dl, dr = (u[c] for u in (xl, xr, gl, gr, dl, dr))
        xc = np.clip(xl + (xr - xl) * (dl / (dl - dr)), xl, xr)
        gc = np.minimum(avl[c] + (xc - axl[c]) * sa[c], bvl[c] + (xc - bxl[c]) * sb[c])
        twice[c] = (xc - xl) * (gl + gc) + (xr - xc) * (gc + gr)
    twice *= asg
    twice *= bsg
    return twice


def _add(total, size, pair, terms) -> None:
    """Add ``terms`` to ``total`` and their absolute values to ``size``, by ``pair``."""
    total += np.bincount(pair, terms, minlength=len(total))
    np.abs(terms, out=terms)
    size += np.bincount(pair, terms, minlength=len(total))


def shared_areas(edges_a: RingEdges, shape_a, edges_b: RingEdges, shape_b, rect) -> np.ndarray:
    """Area shared by shape ``shape_a[k]`` of ``edges_a`` and shape ``shape_b[k]`` of
    ``edges_b``, for every ``k``, without an overlay (the method is in the module's
    docstring). Vectorized in numpy over the pairs of edges whose x-ranges overlap, in
    blocks.

    Parameters
    ----------
    edges_a, edges_b : RingEdges
        Oriented ring edges, grouped by shape (they may be the same object).
    shape_a, shape_b : array_like of int, shape (m,)
        Index of a shape per pair; ``-1`` stands for a box holding ``rect[k]`` (a plain
        box of the pair).
    rect : array_like of float, shape (m, 4)
        ``x0, y0, x1, y1``: the intersection of the two shapes' bounding boxes (any
        rectangle holding their intersection and inside the box of a ``-1`` side).

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
        Exact up to rounding for valid shapes; 0 where ``rect`` is empty, and where the
        sum is within rounding of 0 (:data:`ROUNDING`: shapes that only touch).

    Examples
    --------
    >>> import shapely
    >>> e = RingEdges.from_geometries([shapely.box(0, 0, 2, 2), shapely.box(1, 1, 3, 3)])
    >>> shared_areas(e, [0, 0], e, [1, -1], [[1, 1, 2, 2], [0, 0, 1, 1]]).tolist()
    [1.0, 1.0]
    """
    shape_a = np.asarray(shape_a, dtype=np.int64).reshape(-1)
    shape_b = np.asarray(shape_b, dtype=np.int64).reshape(-1)
    rect = np.asarray(rect, dtype=np.float64).reshape(-1, 4)
    out = np.zeros(len(rect))
    todo = np.flatnonzero((rect[:, 2] > rect[:, 0]) & (rect[:, 3] > rect[:, 1]))
    if not todo.size:
        return out
    size = np.zeros(len(todo), np.int64)
    for edges, shape in ((edges_a, shape_a[todo]), (edges_b, shape_b[todo])):
        s = np.where(shape < 0, 0, shape)
        size += np.where(shape < 0, 1, edges.offset[s + 1] - edges.offset[s])
    cum = np.cumsum(size)
    cuts = np.searchsorted(cum, np.arange(CHUNK_EDGES, cum[-1], CHUNK_EDGES), side="right")
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(todo)], strict=True):
        rows = todo[lo:hi]
        r = rect[rows]
        pa = _pieces(edges_a, shape_a[rows], r)
        pb = _pieces(edges_b, shape_b[rows], r)
        keys = []
        for side in (pa, pb):  # sorted by pair, then left x (see _overlapping)
            key_l, key_r = _keys(side[0], side[1], side[2], r)
            # stable, so that ties keep an order of the pair's own (its edges')
            order = np.argsort(key_l, kind="stable")
            side[:] = [u[order] for u in side]
            keys.append((key_l[order], key_r[order]))
        (kal, kar), (kbl, kbr) = keys
        total, size = np.zeros(len(rows)), np.zeros(len(rows))
        # every overlapping pair once: the piece of b starts within the piece of a, or
        # the piece of a starts strictly within the piece of b
        for i, j in _overlapping(pa[0], kal, kar, pa[1], pa[2], kbl, pb[1], strict=False):
            _add(total, size, pa[0][i], _trapezoids(pa, pb, i, j))
        for j, i in _overlapping(pb[0], kbl, kbr, pb[1], pb[2], kal, pa[1], strict=True):
            _add(total, size, pa[0][i], _trapezoids(pa, pb, i, j))
        # what rounding can leave of shapes that only touch is zero
        total[total <= ROUNDING * size] = 0.0
        out[rows] = total / 2
    return out


def polygon_shared_areas(pa, pb) -> np.ndarray:
    """Area shared by each pair of valid (multi)polygons ``(pa[k], pb[k])``, without an
    overlay (:func:`shared_areas`); 0 for a geometry with no area.

    Parameters
    ----------
    pa, pb : array_like of shapely geometries, shape (m,)

    Returns
    -------
    numpy.ndarray of float64, shape (m,)

    Examples
    --------
    >>> import shapely
    >>> polygon_shared_areas([shapely.box(0, 0, 2, 2)], [shapely.box(1, 1, 3, 3)]).tolist()
    [1.0]
    """
    pa = np.asarray(pa, dtype=object).reshape(-1)
    pb = np.asarray(pb, dtype=object).reshape(-1)
    ea, eb = RingEdges.from_geometries(pa), RingEdges.from_geometries(pb)
    ba, bb = shapely.bounds(pa), shapely.bounds(pb)
    rect = np.column_stack([np.maximum(ba[:, :2], bb[:, :2]), np.minimum(ba[:, 2:], bb[:, 2:])])
    rect[~np.isfinite(rect).all(axis=1)] = 0.0  # a missing or empty shape: nothing shared
    index = np.arange(len(pa))
    return shared_areas(ea, index, eb, index, rect)
