"""Exact overlay or mask IoU: which pairs of shapes get which, and their pixel counts.

The IoU of a pair involving a polygon (:func:`iaa_frames.geometry.overlap.iou`) is
computed one of two ways, chosen per pair by a fixed rule (so the result does not depend on
the batch, the row order or the number of threads):

* *exact vector IoU* (shapely overlay) when the two shapes together have at most
  :data:`MASK_IOU_MIN_COORDINATES` coordinates (every ring, closing points included; a box
  counts 5), or when the image size of either is unknown;
* *mask IoU* otherwise: the IoU of the two shapes rasterized on a pixel grid, which is how
  the COCO evaluation defines segmentation IoU (:mod:`iaa_frames.geometry.raster`: a pixel
  is inside when its centre is). Within an item the grid is the image's own pixel grid
  (width x height, from :meth:`Shapes.from_frame`). For two objects of images of different
  sizes (chance pairs) it is the finer of the two in each direction:
  ``max(width_a, width_b)`` by ``max(height_a, height_b)`` pixels over the normalized
  image. Each shape is rasterized once per grid and kept for the life of the
  :class:`Shapes` (and of every :meth:`Shapes.take` of it). As in COCO, parts of a shape
  outside the image are cut off. Pairs whose two masks are both empty (shapes thinner than
  a pixel) fall back to the exact overlay.

Why: two annotators tracing one detailed contour give two nearly identical polygons, the
worst case for an overlay (``benchmarks/bench_traces.py`` prints the costs: milliseconds
per pair at 1,000 vertices, tens of milliseconds at 10,000), while a mask IoU costs tens
of microseconds per pair whatever the vertex count, once each shape is rasterized (about
a millisecond for 10,000 vertices). Below the threshold the overlay costs about as much or
less, so ordinary boxes and polygons (tens of vertices) keep their exact IoU.

**Accuracy.** The difference between the two is the rasterization error: each mask
differs from its shape by at most a band of half-width sqrt(2)/2 pixel along the boundary,
i.e. at most ``e = sqrt(2) * L + pi/2`` pixels for a ring of length ``L`` pixels, so
``|mask IoU - IoU| <= 2 e / (U - e)`` with ``e`` the sum of those bounds over both shapes
and ``U`` the union in pixels (in practice far smaller: below 1e-3 on the traces of the
benchmark, a few hundred pixels wide). :func:`iaa_frames.geometry.bounds.mask_iou_upper_bound`
uses the same band to bound the mask IoU from above.

Areas and the convex hulls of GIoU are always exact.
"""

from __future__ import annotations

import numpy as np

from .raster import intersection_pixels
from .shapes import Shapes, check_aligned

__all__ = [
    "MASK_IOU_MIN_COORDINATES",
    "mask_pixels",
    "masked_pairs",
    "may_use_masks",
    "on_masks",
    "uses_mask_iou",
]

#: Pairs whose two shapes have more coordinates than this in all get the mask IoU rather
#: than the exact overlay (see the module docstring). 500 is about where a shapely overlay
#: of two nearly identical traces costs as much as rasterizing them
#: (``benchmarks/bench_traces.py`` prints both per vertex count). Read from this module at
#: every call: set ``iaa_frames.geometry.mask_rule.MASK_IOU_MIN_COORDINATES`` to change it.
MASK_IOU_MIN_COORDINATES = 500


def on_masks(a: Shapes, b: Shapes, rows: np.ndarray) -> np.ndarray:
    """Which of the pairs ``rows`` get the mask IoU by the rule, as a bool array.

    The rule of :func:`uses_mask_iou` on a subset of the pairs, without checks.

    Examples
    --------
    >>> s = Shapes([[0, 0, 1, 1]], None, [[640, 480]])
    >>> on_masks(s, s, np.array([0])).tolist()  # a box-box pair: never masks
    [False]
    """
    if a.image_size is None or b.image_size is None or not len(rows):
        return np.zeros(len(rows), bool)
    known = np.isfinite(a.image_size[rows, 0]) & np.isfinite(b.image_size[rows, 0])
    coords = a.n_coords(rows) + b.n_coords(rows)
    return known & (coords > MASK_IOU_MIN_COORDINATES) & ~(a.is_box[rows] & b.is_box[rows])


def masked_pairs(shapes: Shapes, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Which pairs ``(shapes[ia[k]], shapes[ib[k]])`` get the mask IoU: the rule of
    :func:`uses_mask_iou` read from the rows of one container, without taking them (the
    matcher asks it of every candidate pair).

    Examples
    --------
    >>> import shapely
    >>> circle = shapely.Point(0.5, 0.5).buffer(0.3, quad_segs=200)  # 801 coordinates
    >>> s = Shapes.from_geometries([circle, shapely.box(0, 0, 1, 1)])
    >>> t = Shapes(s.boxes, s.polygons, image_size=[[640, 480], [640, 480]])
    >>> masked_pairs(t, np.array([0, 1, 1]), np.array([1, 0, 1])).tolist()
    [True, True, False]
    """
    ia, ib = np.asarray(ia, np.int64), np.asarray(ib, np.int64)
    size = shapes.image_size
    if size is None or not len(ia):
        return np.zeros(len(ia), bool)
    known = np.isfinite(size[:, 0])
    coords = shapes.n_coords()
    is_box = shapes.is_box
    return (
        known[ia]
        & known[ib]
        & (coords[ia] + coords[ib] > MASK_IOU_MIN_COORDINATES)
        & ~(is_box[ia] & is_box[ib])
    )


def mask_pixels(a: Shapes, b: Shapes, rows: np.ndarray):
    """Pixel counts of the pairs ``rows`` on the grid of each pair (the finer of the two
    images' in each direction).

    Returns
    -------
    inter, area_a, area_b : ndarray of int64, shape (len(rows),)
        Pixels of the intersection and of each mask.
    pixels : ndarray of float64, shape (len(rows),)
        Pixels of each pair's grid (width x height).

    Examples
    --------
    >>> s = Shapes([[0, 0, 0.5, 0.5], [0.25, 0.25, 1, 1]], None, [[4, 4], [4, 4]])
    >>> inter, pa, pb, pixels = mask_pixels(s.take([0]), s.take([1]), np.array([0]))
    >>> inter.tolist(), pa.tolist(), pb.tolist(), pixels.tolist()
    ([1], [4], [9], [16.0])
    """
    grid = np.ceil(np.maximum(a.image_size[rows], b.image_size[rows])).astype(np.int64)
    sizes, which = np.unique(grid, axis=0, return_inverse=True)
    which = which.ravel()
    inter = np.zeros(len(rows), np.int64)
    area_a = np.zeros(len(rows), np.int64)
    area_b = np.zeros(len(rows), np.int64)
    for k, (width, height) in enumerate(sizes.tolist()):  # one pass per distinct grid
        sel = np.flatnonzero(which == k)
        block, pa, pb = a.pair_masks(b, rows[sel], width, height)
        inter[sel] = intersection_pixels(block, pa, pb)
        pixel_area = block.area
        area_a[sel], area_b[sel] = pixel_area[pa], pixel_area[pb]
    return inter, area_a, area_b, (grid[:, 0] * grid[:, 1]).astype(np.float64)


def may_use_masks(shapes: Shapes) -> bool:
    """Whether any pair of these shapes (with each other) can get the mask IoU.

    False when no image size is known or when no two shapes together have more than
    :data:`MASK_IOU_MIN_COORDINATES` coordinates: a cheap test before
    :func:`uses_mask_iou` on many pairs.

    Examples
    --------
    >>> may_use_masks(Shapes([[0, 0, 1, 1]], None, [[640, 480]]))
    False
    """
    if shapes.image_size is None or not len(shapes) or shapes.is_box.all():
        return False
    coords = shapes.n_coords()
    return bool(2 * coords.max() > MASK_IOU_MIN_COORDINATES)


def uses_mask_iou(a: Shapes, b: Shapes) -> np.ndarray:
    """Which pairs get the mask IoU rather than the exact overlay.

    The rule of the module docstring: a pair involving a polygon, both image sizes
    known, and more than :data:`MASK_IOU_MIN_COORDINATES` coordinates in the two shapes
    together. (:func:`~iaa_frames.geometry.overlap.iou` also falls back to the overlay
    where the bounding boxes are disjoint, IoU 0 either way, and where both masks are
    empty.)

    Parameters
    ----------
    a, b : Shapes
        Pair ``i`` is ``a[i]`` with ``b[i]``.

    Returns
    -------
    numpy.ndarray of bool, True where the mask IoU is used

    Examples
    --------
    >>> import shapely
    >>> circle = shapely.Point(0.5, 0.5).buffer(0.3, quad_segs=200)  # 801 coordinates
    >>> s = Shapes.from_geometries([circle, shapely.box(0, 0, 1, 1)])
    >>> uses_mask_iou(s, s).tolist()  # image size unknown: always exact
    [False, False]
    >>> t = Shapes(s.boxes, s.polygons, image_size=[[640, 480], [640, 480]])
    >>> uses_mask_iou(t, t).tolist()
    [True, False]
    """
    check_aligned(a, b, "uses_mask_iou")
    return on_masks(a, b, np.arange(len(a)))
