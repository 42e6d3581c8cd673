# Over 400 lines: one kernel (pieces, candidate pairs, terms) whose steps share the layout of
# their arrays, with the proof of the method in the docstring.
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

__all__ = ["extend_edges", "polygon_shared_areas", "shared_areas"]


#: Edges of shapes gathered at once, and pairs of pieces of edges computed at once (they
#: bound the memory: some hundreds of bytes per edge, and per pair of pieces). Blocks of
#: some 30,000 edges keep the temporaries of a block in the processor's caches: about 10 %
#: less CPU on the LVIS pairs than blocks of 260,000 (the areas do not depend on them).
CHUNK_EDGES = 1 << 15
CHUNK_PAIRS = 1 << 20

#: A shared area at most this fraction of the sum of the absolute values of its terms is
#: rounding (32 units in the last place): it is 0, the area of shapes that only touch.
#: Setting a true area that small to 0 moves the IoU by less than about 1e-13.
ROUNDING = 32 * np.finfo(np.float64).eps


def _sweep_form(edges: RingEdges) -> np.ndarray:
    """Every edge of ``edges`` from its left end to its right, as the rows of one array:
    ``xa, xb``, its top ``max(ya, yb)``, ``ya, yb`` and its sign (+1 leftwards, -1
    rightwards, 0 vertical), shape (6, n); computed once per
    :class:`~iaa_frames.geometry.clip.RingEdges` and kept on it."""
    form = edges.__dict__.get("_sweep_form")
    if form is None:
        right = edges.x0 <= edges.x1
        form = np.empty((6, len(right)))
        np.copyto(form[0], np.where(right, edges.x0, edges.x1))
        np.copyto(form[1], np.where(right, edges.x1, edges.x0))
        np.copyto(form[3], np.where(right, edges.y0, edges.y1))
        np.copyto(form[4], np.where(right, edges.y1, edges.y0))
        np.maximum(form[3], form[4], out=form[2])
        np.copyto(form[5], np.where(right, -1.0, 1.0))
        form[5, form[0] == form[1]] = 0.0
        edges.__dict__["_sweep_form"] = form
    return form


def extend_edges(edges: RingEdges, more: RingEdges) -> RingEdges:
    """The edges of ``edges``' shapes, then of ``more``'s, as one
    :class:`~iaa_frames.geometry.clip.RingEdges`, keeping the form :func:`shared_areas`
    computed of ``edges`` (only ``more``'s is computed again, when needed).

    Examples
    --------
    >>> import shapely
    >>> a = RingEdges.from_geometries([shapely.box(0, 0, 1, 1)])
    >>> b = RingEdges.from_geometries([shapely.box(1, 1, 2, 2)])
    >>> both = extend_edges(a, b)
    >>> both.offset.tolist(), float(shared_areas(both, [0], both, [1], [[0, 0, 2, 2]])[0])
    ([0, 4, 8], 0.0)
    """
    out = RingEdges(
        *(np.concatenate([getattr(edges, c), getattr(more, c)]) for c in ("x0", "y0", "x1", "y1")),
        np.concatenate([edges.offset, edges.offset[-1] + more.offset[1:]]),
    )
    form = edges.__dict__.get("_sweep_form")
    if form is not None:
        out.__dict__["_sweep_form"] = np.concatenate([form, _sweep_form(more)], axis=1)
    return out


def _pieces(edges: RingEdges, shape: np.ndarray, rect_t: np.ndarray):
    """The edges of shape ``shape[k]`` projected onto rectangle ``k`` (the columns of
    ``rect_t``, ``x0, y0, x1, y1``), for every ``k``, cut into pieces on which the
    projection is linear, without the pieces of no width or on the bottom of the
    rectangle (they add nothing); a ``-1`` shape: the rectangle's top.

    Returns
    -------
    k : ndarray of int64
        The pair of each piece.
    piece : ndarray of float64, shape (5, len(k))
        Rows: left and right x of each piece, its height above the rectangle's bottom at
        its left end (the projection is in ``[0, y1 - y0]``), its slope and the sign of
        its edge.
    """
    m = len(shape)
    box = shape < 0
    s = np.where(box, 0, shape)
    start = edges.offset[s]
    n = edges.offset[s + 1] - start
    n[box] = 0
    k = np.repeat(np.arange(m), n)
    e = np.repeat(start - np.cumsum(n) + n, n)
    e += np.arange(len(k))
    form = _sweep_form(edges)
    g = form[:3].take(e, axis=1)  # xa, xb, top
    r = np.repeat(rect_t[:3], n, axis=1)  # x0, y0, x1
    keep = g[1] > r[0]
    keep &= g[0] < r[2]
    keep &= g[0] < g[1]
    keep &= g[2] > r[1]
    at = np.flatnonzero(keep)
    k = k.take(at)
    g, r = form.take(e.take(at), axis=1), rect_t.take(k, axis=1)  # r: x0, y0, x1, y1
    xa, xb, top, ya, yb, _ = g
    # edges inside their rectangle are their own piece
    inside = xa >= r[0]
    inside &= xb <= r[2]
    inside &= ya >= r[1]
    inside &= yb >= r[1]
    inside &= top <= r[3]
    at = np.flatnonzero(inside)
    gi = np.empty((5, len(at)))  # xa, xb, ya - y0, slope, sign
    xa.take(at, out=gi[0])
    xb.take(at, out=gi[1])
    ya_in = ya.take(at)
    np.subtract(yb.take(at), ya_in, out=gi[3])  # (yb - ya) / (xb - xa)
    gi[3] /= gi[1] - gi[0]
    np.subtract(ya_in, r[1].take(at), out=gi[2])
    g[5].take(at, out=gi[4])
    ks, out = [k.take(at)], [gi]
    if len(at) < len(k):
        at = np.flatnonzero(~inside)
        kc, pc = _cut(k.take(at), g.take(at, axis=1), r.take(at, axis=1))
        ks.append(kc)
        out.append(pc)
    if box.any():  # a box: the top of the rectangle, one leftwards piece per pair
        b = np.flatnonzero(box)
        rb = rect_t.take(b, axis=1)
        lid = np.empty((5, len(b)))
        lid[0], lid[1], lid[2], lid[3], lid[4] = rb[0], rb[2], rb[3] - rb[1], 0.0, 1.0
        ks.append(b)
        out.append(lid)
    if len(out) == 1:
        return ks[0], out[0]
    return np.concatenate(ks), np.concatenate(out, axis=1)


def _cut(k, g, r):
    """The pieces of the edges that leave their rectangle (:func:`_pieces`): cut where
    they cross its sides, projected onto it."""
    xa, xb, _, ya, yb, sign = g
    x0, y0, x1, y1 = r
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
    n = len(k)
    piece = p[1:] > p[:3]  # xr > xl
    piece &= (v[:3] > 0) | (v[1:] > 0)
    # the pieces by their flat position in the first three rows of p and v (the next
    # row's is n further on), their edges by their column
    at = np.flatnonzero(piece)
    rows = at % n
    p, v = p.ravel(), v.ravel()
    out = np.empty((5, len(at)))
    p.take(at, out=out[0])
    at += n
    p.take(at, out=out[1])
    np.subtract(v.take(at), v.take(at - n, out=out[2]), out=out[3])
    out[3] /= out[1] - out[0]
    sign.take(rows, out=out[4])
    return k.take(rows), out


def _keys(k, xl, xr, rect):
    """Integer keys of the pieces' ends, ordered by pair, then by x: ``k 2**32 +
    floor(2**31 (x - x0) / (x1 - x0))``, non-decreasing in ``x`` within a pair whatever
    the rounding, and the same for a piece in any batch of pairs but for ``k``."""
    x0, width = rect[:, 0].take(k), (rect[:, 2] - rect[:, 0]).take(k)
    base = k << 32
    out = []
    for x in (xl, xr):
        u = x - x0
        u /= width
        u *= 2.0**31
        np.clip(u, 0, 2.0**31, out=u)
        key = u.astype(np.int64)
        key += base
        out.append(key)
    return out


def _overlapping(pair, key_l, key_r, other_key_l):
    """Candidate pairs ``(i, j)`` of a piece ``i`` and a piece ``j`` of the other side of
    the same pair such that ``xl[i] <= other_xl[j] < xr[i]`` may hold, in blocks of about
    :data:`CHUNK_PAIRS` that never split the pieces of one pair.

    The keys (:func:`_keys`) order the pieces by pair, then by x, and both sides are
    sorted by their left key, so the candidates from the keys are a superset of the
    pairs wanted; :func:`_terms` keeps the pairs wanted, exactly on the coordinates. The
    pairs come in an order that depends on the two shapes alone, whatever else is in the
    batch.
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
        yield i, j


def _line_at(x, x0, slope, y0):
    """``(x - x0) * slope + y0``, computed in place in one new array."""
    y = x - x0
    y *= slope
    y += y0
    return y


def _terms(pa, pb, strict) -> np.ndarray:
    """The signed area under both pieces ``pa`` and ``pb`` (columns of pieces as
    :func:`_pieces` gives them, above the bottom of their rectangle), twice, for each
    pair of columns; 0 for the pairs not wanted: those where the piece of ``pb`` does not
    start within the piece of ``pa`` (``strict``: where the piece of ``pa`` does not
    start strictly within the piece of ``pb``)."""
    axl, axr, avl, sa, asg = pa
    bxl, bxr, bvl, sb, bsg = pb
    if strict:
        ok = axl > bxl
        ok &= axl < bxr
    else:
        ok = bxl >= axl
        ok &= bxl < axr
    xl, xr = np.maximum(axl, bxl), np.minimum(axr, bxr)
    with np.errstate(over="ignore", invalid="ignore"):  # in the pairs not wanted alone
        yal, yar = _line_at(xl, axl, sa, avl), _line_at(xr, axl, sa, avl)
        ybl, ybr = _line_at(xl, bxl, sb, bvl), _line_at(xr, bxl, sb, bvl)
        dl, dr = yal - ybl, yar - ybr
        gl, gr = np.minimum(yal, ybl, out=yal), np.minimum(yar, ybr, out=yar)
        cross = np.flatnonzero(((dl < 0) & (dr > 0)) | ((dl > 0) & (dr < 0)))
        twice = xr - xl
        twice *= gl + gr
        if cross.size:  # where the two edges cross, the minimum changes edge
            c = cross
            xl, xr, gl, gr, dl, dr = (u.take(c) for u in (xl, xr, gl, gr, dl, dr))
            xc = np.clip(xl + (xr - xl) * (dl / (dl - dr)), xl, xr)
            gc = np.minimum(
                avl.take(c) + (xc - axl.take(c)) * sa.take(c),
                bvl.take(c) + (xc - bxl.take(c)) * sb.take(c),
            )
            twice[c] = (xc - xl) * (gl + gc) + (xr - xc) * (gc + gr)
    twice *= asg * bsg
    twice[~ok] = 0.0
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
        rect_t = np.ascontiguousarray(r.T)
        sides = []
        for edges, shape in ((edges_a, shape_a[rows]), (edges_b, shape_b[rows])):
            k, piece = _pieces(edges, shape, rect_t)
            key_l, key_r = _keys(k, piece[0], piece[1], r)
            # sorted by pair, then left x (see _overlapping); stable, so that ties keep
            # an order of the pair's own (its edges')
            order = np.argsort(key_l, kind="stable")
            sides.append(
                (k.take(order), piece.take(order, axis=1), key_l.take(order), key_r.take(order))
            )
        (ka, pa, kal, kar), (kb, pb, kbl, kbr) = sides
        total, size = np.zeros(len(rows)), np.zeros(len(rows))
        # every overlapping pair once: the piece of b starts within the piece of a, or
        # the piece of a starts strictly within the piece of b
        for i, j in _overlapping(ka, kal, kar, kbl):
            _add(total, size, ka.take(i), _terms(pa.take(i, axis=1), pb.take(j, axis=1), False))
        for j, i in _overlapping(kb, kbl, kbr, kal):
            _add(total, size, ka.take(i), _terms(pa.take(i, axis=1), pb.take(j, axis=1), True))
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
