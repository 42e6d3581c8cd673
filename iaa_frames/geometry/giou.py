"""Generalized IoU (Rezatofighi et al., CVPR 2019) of pairs of shapes.

``GIoU = IoU - (C - U) / C`` penalizes the empty space ``C - U`` of the smallest convex
region ``C`` enclosing both shapes: for box-box pairs the enclosing axis-aligned box (numpy),
for pairs involving a polygon the convex hull of the two shapes (shapely, with the hulls of
single shapes computed once per shape by :meth:`Shapes.hulls`). For polygons the union in
the penalty is that of the two shapes' own convex hulls (:func:`hull_terms`), so that a
concave shape or one with a hole has GIoU 1 with itself. The hull of two shapes together
is computed once per pair (:meth:`Shapes.enclosing`); with the hulls' areas alone it bounds
the GIoU of a pair from a bound of its IoU (:func:`giou_upper_bound`), which lets the
matcher skip the overlays of pairs that cannot change a best match.
"""

from __future__ import annotations

import numpy as np
import shapely

from .kind_similarity import involves_own_similarity
from .kinds.registry import Kind, get_kind
from .mask_rule import may_use_masks, uses_mask_iou
from .overlap import areas, iou_union
from .shapes import Shapes, check_aligned
from .shared_area import shared_areas

__all__ = ["giou", "giou_upper_bound", "hull_terms"]

#: Relative slack of the bound of the hulls' union from an exact IoU (rounding of the
#: overlays' areas; far above it, far below the bound's use).
_SHARED_SLACK = 1e-9


def _kind_terms(a: Shapes, b: Shapes, rows, enclosing, union) -> np.ndarray:
    """Write ``enclosing`` and ``union`` of the pairs ``rows`` of two shapes of one kind
    with its own GIoU terms (:meth:`~iaa_frames.geometry.kinds.Kind.giou_terms`, the
    upright prisms of cuboids); return the other pairs."""
    kinds_b = b.kind_rows()
    for name, in_a in a.kind_rows().items():
        kind, in_b = get_kind(name), kinds_b.get(name)
        if in_b is None or type(kind).giou_terms is Kind.giou_terms:
            continue
        same = in_a[rows] & in_b[rows]
        if same.any():
            r = rows[same]
            enclosing[r], union[r] = kind.giou_terms(a.params[name][r], b.params[name][r], union[r])
            rows = rows[~same]
    return rows


def hull_terms(a: Shapes, b: Shapes, rows: np.ndarray, union: np.ndarray):
    """Enclosing area C and the union U' of the GIoU penalty (C - U') / C for polygons.

    C is the area of the convex hull of the two shapes together (= of their union). U' is
    the area of the union of the two shapes' own convex hulls, so that the penalty
    measures the empty space *between* the shapes, not their concavities: a concave
    polygon or one with a hole then has GIoU 1 with itself. For two convex shapes U' is
    the plain union, as in Rezatofighi et al. The hulls are computed once per shape.

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length.
    rows : ndarray of int
        The pairs wanted (those involving a polygon).
    union : ndarray of float64, shape (len(rows),)
        The union of the two shapes of each of those pairs.

    Returns
    -------
    enclosing, hull_union : ndarray of float64, shape (len(rows),)

    Examples
    --------
    >>> import shapely
    >>> L = Shapes.from_geometries([shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2),
    ...                                               (0, 2)])])
    >>> c, u = hull_terms(L, L, np.array([0]), np.array([3.0]))
    >>> c.tolist(), u.tolist()  # the hull of the L, twice: no penalty
    ([3.5], [3.5])
    """
    hull_a, area_ha = a.hulls(rows)
    hull_b, area_hb = b.hulls(rows)
    enclosing = a.enclosing(b, rows)  # once per pair of shapes
    convex = np.isclose(area_ha, areas(a.take(rows)), rtol=1e-12, atol=0) & np.isclose(
        area_hb, areas(b.take(rows)), rtol=1e-12, atol=0
    )
    hull_union = np.asarray(union, dtype=np.float64).copy()
    nc = np.flatnonzero(~convex)
    if nc.size:  # the area the two hulls share, from their edges (no GEOS overlay)
        edges_a, index_a = a.hull_edges(rows[nc])
        edges_b, index_b = b.hull_edges(rows[nc])
        ba, bb = shapely.bounds(hull_a[nc]), shapely.bounds(hull_b[nc])
        rect = np.concatenate(
            [np.maximum(ba[:, :2], bb[:, :2]), np.minimum(ba[:, 2:], bb[:, 2:])], axis=1
        )
        shared = shared_areas(edges_a, index_a, edges_b, index_b, rect)
        hull_union[nc] = area_ha[nc] + area_hb[nc] - shared
    return enclosing, hull_union


def giou_upper_bound(
    a: Shapes, b: Shapes, iou_bound, *, exact: bool = False, floor=None
) -> np.ndarray:
    """An upper bound of the GIoU of every pair whose IoU is at most ``iou_bound``, with
    no overlay of the two shapes.

    ``GIoU = IoU - max((C - U') / C, 0)``, and the union ``U'`` of the penalty (the union
    of the two hulls, or of the two convex shapes) is at most the sum of the two hulls'
    areas and of the two areas. For pairs involving a polygon, ``C`` is computed as
    :func:`giou` computes it (the hull of the two hulls, a few microseconds a pair,
    against tens for the overlay of the IoU) and the bound is ``iou_bound - max((C -
    max(Ha + Hb, A + B)) / C, 0)``; it holds for the rounded values too, every step being
    monotone. Other pairs (two boxes, pairs of kinds with their own terms or their own
    similarity) keep ``iou_bound``.

    With ``exact``, ``iou_bound`` holds the pairs' exact IoU (as :func:`iou` gives it),
    so the area the two shapes share, ``I = IoU (A + B) / (1 + IoU)``, is known too. The
    two hulls share at least that much (each holds its shape), so ``U' <= Ha + Hb - I``
    (for two convex shapes ``U' = A + B - I``, no more), a tighter bound still without
    the overlay of the two hulls that :func:`giou` computes for concave shapes. ``I`` is
    lowered by a relative :data:`_SHARED_SLACK` of the hulls' areas for the rounding of
    the overlays. Pairs given by masks (:func:`~iaa_frames.geometry.mask_rule.uses_mask_iou`),
    whose IoU is not that of the shapes, keep the bound without ``I``.

    With ``floor``, the caller says that a bound at or below a pair's floor is as good to
    it as any lower one (the matcher retires such pairs: the floor is the best similarity
    its objects already have). ``C`` is then first bounded from below in numpy
    (:meth:`~iaa_frames.geometry.shapes.Shapes.enclosing_lower_bound`, no shapely call),
    which bounds the GIoU from above; only the pairs whose bound from it is above their
    floor get ``C`` itself. So a pair gets either a bound at or below its floor, or the
    bound it gets without ``floor``.

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length.
    iou_bound : array_like of float, shape (n,)
        An upper bound of the IoU of each pair (with ``exact``, the IoU itself).
    exact : bool, default False
        Whether ``iou_bound`` is the exact IoU of each pair.
    floor : array_like of float, shape (n,), optional
        The value at or below which the bound of each pair need not be tighter.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Examples
    --------
    >>> import shapely
    >>> a = Shapes.from_geometries([shapely.Polygon([(0, 0), (1, 0), (0, 1)])])
    >>> b = Shapes.from_geometries([shapely.Polygon([(3, 3), (4, 3), (3, 4)])])
    >>> bound = giou_upper_bound(a, b, [0.5])  # C = 6.5, Ha + Hb = 1
    >>> bool(bound[0] >= giou(a, b)[0]), round(float(bound[0]), 4)
    (True, -0.3462)
    >>> giou_upper_bound(a, b, [0.5], floor=[0.0])[0] <= 0.0  # any bound <= 0 will do
    np.True_
    """
    check_aligned(a, b, "giou_upper_bound")
    bound = np.array(iou_bound, dtype=np.float64)
    other = a.is_box & b.is_box
    own = involves_own_similarity(a, b)
    if own is not None:
        other = other | own
    for in_a in a.kind_rows().values():
        other = other | in_a
    for in_b in b.kind_rows().values():
        other = other | in_b
    rows = np.flatnonzero(~other)
    if rows.size:
        area_ha, area_hb = a.hulls(rows)[1], b.hulls(rows)[1]
        ta, tb = a.take(rows), b.take(rows)
        hulls, shapes = area_ha + area_hb, areas(ta) + areas(tb)
        union = np.maximum(hulls, shapes)
        if exact:
            union = _union_from_shared(ta, tb, bound[rows], hulls, shapes, union)
        if floor is None:
            enclosing = a.enclosing(b, rows)
        else:  # C itself only where the bound from its lower bound is above the floor
            enclosing = a.enclosing_lower_bound(b, rows)
            low = bound[rows] - _penalty(enclosing, union)
            need = np.flatnonzero(~(low <= np.asarray(floor, dtype=np.float64)[rows]))
            if need.size:
                enclosing[need] = a.enclosing(b, rows[need])
        bound[rows] -= _penalty(enclosing, union)
    return bound


def _penalty(enclosing, union) -> np.ndarray:
    """``max((C - U') / C, 0)`` of the bound, 0 where it is NaN (no area)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = (enclosing - union) / enclosing
    return np.where(slack > 0, slack, 0.0)


def _union_from_shared(a: Shapes, b: Shapes, value, hulls, shapes, union) -> np.ndarray:
    """``union`` (a bound of the hulls' union of each pair) lowered to ``Ha + Hb - I``,
    ``I`` the area the pair shares by its exact IoU ``value`` (:func:`giou_upper_bound`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        shared = value * (shapes / (1.0 + value))
    shared -= _SHARED_SLACK * (shared + hulls)
    tight = hulls - shared
    usable = np.isfinite(tight)
    if may_use_masks(a) or may_use_masks(b):
        usable &= ~uses_mask_iou(a, b)
    return np.where(usable, np.minimum(union, tight), union)


def giou(a: Shapes, b: Shapes, *, known_iou: np.ndarray | None = None) -> np.ndarray:
    """Generalized IoU (Rezatofighi et al., CVPR 2019) of each pair, in [-1, 1].

    ``GIoU = IoU - (C - U) / C`` with ``U`` the area of the union and ``C`` the area of
    the smallest enclosing axis-aligned box for box-box pairs, and of the convex hull
    of the union for pairs involving a polygon. For polygons ``U`` in the penalty is the
    union of the two shapes' convex hulls, so that concavities and holes are not
    penalized: GIoU of any shape with itself is 1 (for convex shapes this is the plain
    union). Note the two definitions of ``C`` differ for boxes that are not aligned on an
    axis, so a polygon that happens to be a box can get a higher GIoU than the same box.

    ``IoU`` is :func:`~iaa_frames.geometry.overlap.iou` (the mask IoU for detailed
    polygons, :mod:`iaa_frames.geometry.mask_rule`); the penalty always uses the exact areas and hulls, and for pairs given
    by masks the union is the one the IoU implies, ``U = (A + B) / (1 + IoU)`` with the
    exact areas ``A, B``, so that passing ``known_iou=iou(a, b)`` gives the same values.
    The penalty is floored at 0 (C contains U; a mask IoU slightly above the exact one
    could otherwise make GIoU exceed IoU).

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length.
    known_iou : ndarray, optional
        The IoU of the pairs when already known: the union is then derived from it
        (U = (A + B) / (1 + IoU)) and no intersection is computed again.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        NaN where a shape is missing or ``C`` is zero.

    Examples
    --------
    >>> a = Shapes([[0, 0, 1, 1]])
    >>> b = Shapes([[2, 0, 3, 1]])
    >>> giou(a, b).round(4).tolist()  # IoU 0, U = 2, C = 3 x 1
    [-0.3333]
    """
    check_aligned(a, b, "giou")
    if known_iou is None:
        value, union, masked = iou_union(a, b)
        if masked.size:
            union[masked] = (areas(a.take(masked)) + areas(b.take(masked))) / (1.0 + value[masked])
    else:
        value = np.array(known_iou, dtype=np.float64)
        union = (areas(a) + areas(b)) / (1.0 + value)
    ab = a.boxes
    bb = b.boxes
    cw = np.maximum(ab[:, 2], bb[:, 2])
    cw -= np.minimum(ab[:, 0], bb[:, 0])
    ch = np.maximum(ab[:, 3], bb[:, 3])
    ch -= np.minimum(ab[:, 1], bb[:, 1])
    enclosing = cw
    enclosing *= ch
    own = involves_own_similarity(a, b)  # their GIoU is their similarity: no hull
    keep = None if own is None else value[own]
    rows = np.flatnonzero(~(a.is_box & b.is_box) & np.isfinite(value) & (own is None or ~own))
    if rows.size and a.params and b.params:
        rows = _kind_terms(a, b, rows, enclosing, union)
    if rows.size:
        enclosing[rows], union[rows] = hull_terms(a, b, rows, union[rows])
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = enclosing - union
        slack /= enclosing
    np.maximum(slack, 0.0, out=slack, where=~np.isnan(slack))
    value -= slack
    if own is not None:
        value[own] = keep
    return value
