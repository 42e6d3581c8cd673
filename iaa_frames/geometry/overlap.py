"""Areas and the IoU of pairs of shapes.

* :func:`areas`: the exact area of every shape (numpy for boxes, shapely for polygons,
  computed once per shape).
* :func:`areas_inside`: the exact area of every shape inside a rectangle, in numpy
  (:mod:`iaa_frames.geometry.clip`), the cheap upper bound of a shared area that lets the
  matcher skip overlays.
* :func:`iou`: intersection over union of every pair. Box-box pairs in numpy; pairs
  involving a polygon only where the bounding boxes overlap (elsewhere the IoU is 0), by
  the exact shapely overlay or, for detailed polygons with known image sizes, by the mask
  IoU on the image's pixel grid, by the rule of :mod:`iaa_frames.geometry.mask_rule`. Two
  polygons with the same vertices in the same order (a copied annotation) have IoU exactly
  1 without an overlay, whose rounding could otherwise leave identical shapes just below a
  threshold of 1.
"""

from __future__ import annotations

import numpy as np
import shapely

from .clip import clipped_areas
from .mask_rule import mask_pixels, on_masks
from .shapes import Shapes, check_aligned

__all__ = ["areas", "areas_inside", "iou", "iou_union", "overlap"]


def areas(shapes: Shapes) -> np.ndarray:
    """Area of every shape (exact for polygons).

    Examples
    --------
    >>> areas(Shapes([[0, 0, 2, 3]])).tolist()
    [6.0]
    """
    bx = shapes.boxes
    area = (bx[:, 2] - bx[:, 0]) * (bx[:, 3] - bx[:, 1])
    poly = shapes.is_polygon
    if poly.any():
        rows = np.flatnonzero(poly)
        area[rows] = shapes.polygon_areas(rows)
    return area


def areas_inside(shapes: Shapes, rects) -> np.ndarray:
    """Area of each shape inside the axis-aligned rectangle of its row.

    Exact up to rounding, in numpy (:mod:`iaa_frames.geometry.clip`), at a few operations per
    polygon edge: an upper bound of the area a shape can share with any shape whose
    bounding box is the rectangle, far cheaper than an overlay.

    Parameters
    ----------
    shapes : Shapes
    rects : array_like, shape (n, 4)
        ``x0, y0, x1, y1`` per row.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Examples
    --------
    >>> import shapely
    >>> s = Shapes.from_geometries([shapely.Polygon([(0, 0), (4, 0), (0, 4)])])
    >>> areas_inside(s, [[0, 0, 2, 2]]).tolist()
    [4.0]
    """
    rects = np.asarray(rects, dtype=np.float64).reshape(-1, 4)
    bx = shapes.boxes
    w = np.minimum(bx[:, 2], rects[:, 2]) - np.maximum(bx[:, 0], rects[:, 0])
    h = np.minimum(bx[:, 3], rects[:, 3]) - np.maximum(bx[:, 1], rects[:, 1])
    out = np.maximum(w, 0) * np.maximum(h, 0)
    rows = np.flatnonzero(shapes.is_polygon)
    if rows.size:
        edges, index = shapes.ring_edges()
        out[rows] = clipped_areas(edges, index[rows], rects[rows])
    return out


def overlap(a: Shapes, b: Shapes):
    """Intersection area and the two areas of every pair; the rows given by masks and
    their mask IoU.

    Exact for box-box pairs and for polygon pairs under the vertex threshold; the mask
    IoU rule (:mod:`iaa_frames.geometry.mask_rule`) for the others, whose three areas are
    then the pixel counts of the masks over the pixels of the grid.

    Returns
    -------
    inter, area_a, area_b : ndarray of float64, shape (n,)
    masked : ndarray of int
        The pairs given by masks.
    mask_value : ndarray of float64, shape (len(masked),)
        Their mask IoU, from the pixel counts.

    Examples
    --------
    >>> inter, area_a, area_b, masked, _ = overlap(Shapes([[0, 0, 2, 2]]), Shapes([[1, 0, 3, 2]]))
    >>> inter.tolist(), area_a.tolist(), area_b.tolist(), masked.tolist()
    ([2.0], [4.0], [4.0], [])
    """
    ax0, ay0, ax1, ay1 = a.boxes.T
    bx0, by0, bx1, by1 = b.boxes.T
    # Box intersection: NaN propagates through np.minimum / np.maximum.
    iw = np.minimum(ax1, bx1)
    iw -= np.maximum(ax0, bx0)
    np.maximum(iw, 0.0, out=iw)
    ih = np.minimum(ay1, by1)
    ih -= np.maximum(ay0, by0)
    np.maximum(ih, 0.0, out=ih)
    inter = iw
    inter *= ih
    area_a = (ax1 - ax0) * (ay1 - ay0)
    area_b = (bx1 - bx0) * (by1 - by0)

    a_poly, b_poly = a.is_polygon, b.is_polygon
    if a_poly.any():
        rows = np.flatnonzero(a_poly)
        area_a[rows] = a.polygon_areas(rows)
    if b_poly.any():
        rows = np.flatnonzero(b_poly)
        area_b[rows] = b.polygon_areas(rows)
    # Pairs involving a polygon whose bounding boxes overlap need the intersection;
    # where the boxes do not overlap the polygons cannot either.
    rows = np.flatnonzero((a_poly | b_poly) & (inter > 0))
    masked = rows[on_masks(a, b, rows)]
    if masked.size:
        ipx, apx, bpx, pixels = mask_pixels(a, b, masked)
        ok = apx + bpx > 0  # both masks empty: no pixel to compare, use the overlay
        masked = masked[ok]
        inter[masked] = ipx[ok] / pixels[ok]
        area_a[masked] = apx[ok] / pixels[ok]
        area_b[masked] = bpx[ok] / pixels[ok]
        # the IoU itself from the pixel counts, exactly as the masks give it
        mask_value = ipx[ok] / (apx[ok] + bpx[ok] - ipx[ok])
        rows = np.setdiff1d(rows, masked, assume_unique=True)
    else:
        mask_value = np.zeros(0)
    if rows.size:
        pa = a.polygons_at(rows)
        pb = b.polygons_at(rows)
        # the same vertices (a copied annotation): IoU exactly 1, no overlay
        same = shapely.equals_exact(pa, pb, tolerance=0)
        if same.any():
            inter[rows[same]] = np.minimum(area_a[rows[same]], area_b[rows[same]])
            rows, pa, pb = rows[~same], pa[~same], pb[~same]
        try:
            shared = shapely.intersection(pa, pb)
        except shapely.errors.GEOSException:
            # invalid input (e.g. self-intersecting rings not passed through
            # validate): repair as validate() would, then retry once
            pa, pb = shapely.make_valid(pa), shapely.make_valid(pb)
            shared = shapely.intersection(pa, pb)
            area_a[rows] = shapely.area(pa)
            area_b[rows] = shapely.area(pb)
        inter[rows] = shapely.area(shared)
    return inter, area_a, area_b, masked, mask_value


def iou_union(a: Shapes, b: Shapes):
    """IoU of each pair, the union area it comes from, and the pairs given by masks.

    :func:`iou` and :func:`~iaa_frames.geometry.giou.giou` share it. For pairs given by
    masks the union is the pixels of the two masks' union over the pixels of the grid
    (an area of the normalized image), and the IoU is the masks' own.

    Returns
    -------
    value, union : ndarray of float64, shape (n,)
    masked : ndarray of int

    Examples
    --------
    >>> value, union, masked = iou_union(Shapes([[0, 0, 2, 2]]), Shapes([[1, 0, 3, 2]]))
    >>> value.round(4).tolist(), union.tolist(), masked.tolist()
    ([0.3333], [6.0], [])
    """
    inter, area_a, area_b, masked, mask_value = overlap(a, b)
    union = area_a + area_b
    union -= inter
    with np.errstate(divide="ignore", invalid="ignore"):
        out = inter / union
    out[masked] = mask_value
    return out, union, masked


def iou(a: Shapes, b: Shapes) -> np.ndarray:
    """Intersection over union of each pair ``(a[i], b[i])``.

    Pure numpy for box-box pairs. For pairs involving a polygon (computed only where
    the bounding boxes overlap): the exact overlay (shapely) or, for detailed polygons
    with known image sizes, the mask IoU on the image's pixel grid, by the rule of
    :mod:`iaa_frames.geometry.mask_rule`. Polygons are expected to be valid (``validate``
    repairs them); where GEOS refuses an intersection of invalid input the pairs are
    repaired with :func:`shapely.make_valid` and retried.

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        In [0, 1]; NaN where a shape is missing or both have zero area.

    Examples
    --------
    >>> a = Shapes([[0, 0, 2, 2], [0, 0, 1, 1]])
    >>> b = Shapes([[1, 0, 3, 2], [5, 5, 6, 6]])
    >>> iou(a, b).round(4).tolist()
    [0.3333, 0.0]

    A detailed polygon on a 100 x 100 image: the mask IoU (pixel counts) instead of the
    exact overlay.

    >>> import shapely
    >>> disc = shapely.Point(0.5, 0.5).buffer(0.25, quad_segs=200)
    >>> moved = shapely.affinity.translate(disc, 0.1)
    >>> size = [[100, 100]]
    >>> exact = iou(Shapes.from_geometries([disc]), Shapes.from_geometries([moved]))
    >>> masks = iou(Shapes([disc.bounds], [disc], size), Shapes([moved.bounds], [moved], size))
    >>> round(float(exact[0]), 4), round(float(masks[0]), 4)
    (0.5962, 0.5961)
    """
    check_aligned(a, b, "iou")
    return iou_union(a, b)[0]
