"""Upper bounds of the IoU of pairs of shapes, from boxes, areas and outlines only.

The matcher keeps an object pair only when its IoU reaches the threshold, and it needs the
best match of each object; a bound that costs a few numpy operations per pair lets it skip
the overlay (or the rasterization) of the many pairs that cannot qualify
(:mod:`iaa_frames.core.matching.pipeline`). A bound must hold for the IoU actually computed, so for
pairs given by masks (:mod:`iaa_frames.geometry.mask_rule`) it allows for the
rasterization error: each mask is within the band ``e = sqrt(2) L + pi/2`` pixels of its
shape (``L`` the outline length in pixels, per ring), and two masks share at most the pixel
centres of their bounding boxes' intersection.
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

from .kind_similarity import reach_boxes
from .kinds.registry import Kind, get_kind
from .mask_rule import may_use_masks, on_masks
from .overlap import areas
from .shapes import Shapes, check_aligned

__all__ = ["iou_upper_bound", "kind_shared_bound", "mask_iou_upper_bound", "threshold_boxes"]

#: Relative slack of :func:`threshold_boxes`: each box is shrunk by a share this much
#: smaller than the exact one, so that pairs at the threshold, and coordinates rounded
#: in the shrinking, stay listed (pairs a little below the threshold are listed too,
#: and refused by their IoU as before).
_SHRINK_SLACK = 1e-6


def kind_shared_bound(a: Shapes, b: Shapes, planar, ia=None, ib=None) -> np.ndarray:
    """``planar`` (a bound of the area the bounding boxes of pairs share), with the pairs
    of two shapes of one parametric kind bounded by the kind's own rule
    (:meth:`~iaa_frames.geometry.kinds.Kind.shared_bound`: for cuboids, times the
    overlap of their heights, so that it bounds a volume).

    The pairs are ``(a[ia[k]], b[ib[k]])``, or ``(a[k], b[k])`` without ``ia, ib``.
    ``planar`` itself (not a copy) when no pair needs a change.

    Examples
    --------
    >>> kind_shared_bound(Shapes([[0, 0, 2, 2]]), Shapes([[1, 0, 3, 2]]), np.array([2.0]))
    array([2.])
    """
    if not (a.params and b.params):
        return planar
    out = planar
    kinds_b = b.kind_rows()
    for name, in_a in a.kind_rows().items():
        kind = get_kind(name)
        in_b = kinds_b.get(name)
        if in_b is None or type(kind).shared_bound is Kind.shared_bound:
            continue
        ra, rb = (in_a, in_b) if ia is None else (in_a[ia], in_b[ib])
        sel = np.flatnonzero(ra & rb)
        if sel.size:
            out = np.array(out, dtype=np.float64)
            pa = a.params[name][sel if ia is None else ia[sel]]
            pb = b.params[name][sel if ib is None else ib[sel]]
            out[sel] = kind.shared_bound(pa, pb, out[sel])
    return out


def iou_upper_bound(a: Shapes, b: Shapes) -> np.ndarray:
    """An upper bound of the IoU of every pair, without overlay or rasterization.

    Box-box pairs: their IoU. Pairs with a polygon: ``min(I, A, B) / (A + B - min(I, A,
    B))`` with ``I`` the intersection of the bounding boxes (for two shapes of a kind not
    measured in plane areas, the kind's bound of what they share from it,
    :func:`kind_shared_bound`) and ``A, B`` the areas; for
    pairs given by masks (:func:`~iaa_frames.geometry.mask_rule.uses_mask_iou`) the largest
    value the mask IoU can take (:func:`mask_iou_upper_bound`), so that the bound holds
    for whichever IoU :func:`~iaa_frames.geometry.overlap.iou` returns.

    Parameters
    ----------
    a, b : Shapes
        The pairs ``(a[i], b[i])``.

    Returns
    -------
    numpy.ndarray of float64, one bound per pair
        In [0, 1]; 0 where a shape is missing.

    Examples
    --------
    >>> a = Shapes([[0, 0, 2, 2]])
    >>> iou_upper_bound(a, Shapes([[1, 0, 3, 2]])).round(4).tolist()
    [0.3333]
    """
    check_aligned(a, b, "iou_upper_bound")
    ba, bb = a.boxes, b.boxes
    iw = np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0])
    ih = np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1])
    inter = np.maximum(iw, 0) * np.maximum(ih, 0)
    area_a, area_b = areas(a), areas(b)
    poly_pair = ~(a.is_box & b.is_box)
    shared = kind_shared_bound(a, b, inter)
    top = np.where(poly_pair, np.minimum(shared, np.minimum(area_a, area_b)), inter)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = np.nan_to_num(top / (area_a + area_b - top))
    rows = np.flatnonzero(poly_pair & (inter > 0))
    rows = rows[on_masks(a, b, rows)]
    if rows.size:
        bound[rows] = np.maximum(bound[rows], mask_iou_upper_bound(a.take(rows), b.take(rows)))
    return bound


def mask_iou_upper_bound(a: Shapes, b: Shapes) -> np.ndarray:
    """An upper bound of the mask IoU of every pair on its grid.

    From the boxes, exact areas and outline lengths only: each mask has at most as many
    pixels as its area plus the band bound ``e = sqrt(2) L + pi/2`` per ring (``L`` in
    pixels, bounded by the sums of ``|dx| * width`` and ``|dy| * height``), at least its
    area minus ``e`` when the shape lies inside the image, and the two share at most the
    pixel centres in the intersection of their bounding boxes. Needs both image sizes.

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length, with :attr:`Shapes.image_size` known.

    Returns
    -------
    numpy.ndarray of float64, the largest mask IoU each pair can have

    Examples
    --------
    >>> import shapely
    >>> from iaa_frames.geometry.overlap import iou
    >>> disc = shapely.Point(0.5, 0.5).buffer(0.25, quad_segs=200)
    >>> a = Shapes([disc.bounds], [disc], [[100, 100]])
    >>> b = Shapes([(0.3, 0.3, 0.35, 0.35)], None, [[100, 100]])  # a 5 x 5 pixel box
    >>> bound = mask_iou_upper_bound(a, b)
    >>> bool(bound[0] >= iou(a, b)[0]), bool(bound[0] < 0.2)
    (True, True)
    """
    check_aligned(a, b, "mask_iou_upper_bound")
    if a.image_size is None or b.image_size is None:
        raise ParameterError("mask_iou_upper_bound needs the image size of both sides")
    grid = np.ceil(np.maximum(a.image_size, b.image_size))
    W, H = grid[:, 0], grid[:, 1]
    ba, bb = a.boxes, b.boxes

    def centres(lo, hi, n):  # pixel centres c + 0.5 in [lo * n, hi * n]
        return np.maximum(np.floor(hi * n - 0.5) - np.ceil(lo * n - 0.5) + 1, 0)

    shared = centres(np.maximum(ba[:, 0], bb[:, 0]), np.minimum(ba[:, 2], bb[:, 2]), W) * centres(
        np.maximum(ba[:, 1], bb[:, 1]), np.minimum(ba[:, 3], bb[:, 3]), H
    )

    def pixels(s):  # (fewest, most) pixels the mask of each shape can have
        lx, ly, rings = s.outline()
        band = np.sqrt(2) * (lx * W + ly * H) + np.pi / 2 * rings
        area = areas(s) * W * H
        inside = (s.boxes[:, :2] >= 0).all(axis=1) & (s.boxes[:, 2:] <= 1).all(axis=1)
        return np.where(inside, np.maximum(area - band, 0), 0), area + band

    lo_a, hi_a = pixels(a)
    lo_b, hi_b = pixels(b)
    top = np.minimum(shared, np.minimum(hi_a, hi_b))
    low = np.maximum(np.maximum(lo_a, lo_b), lo_a + lo_b - shared)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(low > 0, np.minimum(top / low, 1.0), np.where(top > 0, 1.0, 0.0))


def threshold_boxes(shapes: Shapes, area: np.ndarray, tau: float) -> np.ndarray:
    """Boxes that overlap (in x and in y) for every pair of shapes whose IoU, or the
    bound of it from their bounding boxes, can reach ``tau``: each shape's bounding box
    shrunk about its centre by the share ``tau * fill`` of its width and of its height,
    ``fill`` the share of its box the shape covers (1 for a box).

    Why it holds: a pair with ``IoU >= tau`` shares at least ``tau * max(A_a, A_b)``
    (the union is at least the larger area), and that shared area lies in the strip of
    ``a``'s box that ``b``'s box covers in x, of height at most ``h_a``: the boxes
    overlap in x by at least ``ov >= tau * fill_a * w_a``, and by ``tau * fill_b * w_b``.
    Two intervals overlapping by ``ov`` still overlap after each loses half of its own
    share to either side (``ov > (tau fill_a w_a + tau fill_b w_b) / 2`` unless both are
    equal to ``ov``, which the slack :data:`_SHRINK_SLACK` covers), and so do nested
    ones. The bound of :func:`iaa_frames.core.matching.pipeline.iou_upper_bound` uses the
    boxes' intersection in place of the shared area, so the same holds for it.

    At ``tau = 0.5`` two boxes' pairs are listed only where their half-size boxes
    overlap: 26 % of the pairs whose boxes overlap, on chance pairings of annotations of
    300 and of 1,000 boxes an image (``benchmarks/bench_scale.py``'s corpora). Only
    pairs that can be matched are listed:
    what needs the others (best matches, the set-level distance) uses
    :func:`~iaa_frames.geometry.kind_similarity.reach_boxes`.

    The shrinking holds for the exact IoU of boxes and polygons; shapes of other kinds
    (their own similarity, volumes, cuboids) and corpora whose pairs may get the mask IoU
    (:func:`~iaa_frames.geometry.mask_rule.may_use_masks`, whose bound allows for the
    rasterization) keep :func:`~iaa_frames.geometry.kind_similarity.reach_boxes`.

    Parameters
    ----------
    shapes : Shapes
    area : ndarray of float
        The area of every shape (as the matching computes its IoU).
    tau : float
        The match threshold, above 0.

    Returns
    -------
    ndarray of float, shape (n, 4)
        Cached on ``shapes`` per ``tau``.

    Examples
    --------
    >>> boxes = threshold_boxes(Shapes([[0, 0, 4, 2]]), np.array([8.0]), 0.5)
    >>> np.round(boxes, 3).tolist()
    [[1.0, 0.5, 3.0, 1.5]]
    """
    if not tau > 0 or shapes.params or may_use_masks(shapes):
        return reach_boxes(shapes, tau)
    cache = shapes.__dict__.setdefault("_threshold_boxes", {})
    key = float(tau)
    if key not in cache:
        boxes = shapes.boxes
        w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            fill = np.where(shapes.is_box, 1.0, np.asarray(area, np.float64) / (w * h))
        # a degenerate or unknown box is not shrunk (NaN compares false: nothing changes)
        fill = np.where(np.isfinite(fill), np.clip(fill, 0.0, 1.0), 0.0)
        share = (min(key, 1.0) * (1 - _SHRINK_SLACK) / 2) * fill
        dx, dy = share * w, share * h
        cache[key] = np.column_stack(
            [boxes[:, 0] + dx, boxes[:, 1] + dy, boxes[:, 2] - dx, boxes[:, 3] - dy]
        )
    return cache[key]
