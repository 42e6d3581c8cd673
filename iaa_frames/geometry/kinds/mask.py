"""The mask kind: pixel masks, held as the exact polygons of their pixels.

A binary mask (a COCO RLE, a bitmap) becomes, when it is read, the union of its pixel
squares (:func:`mask_to_geometry`): a polygon row of the frame
(:mod:`iaa_frames.geometry.kinds.polygon`) whose area is its pixel count and whose overlay
with another such polygon is the pixel overlap, so the vector IoU of two masks *is* their
pixel IoU. Masks therefore need no column or container of their own: they are read here,
and stored, bounded and compared as polygons.

What the kind adds is the other direction, shapes *to* masks, for detailed shapes: a pair
whose two shapes have more than
:data:`~iaa_frames.geometry.mask_rule.MASK_IOU_MIN_COORDINATES` coordinates in all, on
images of known size, gets the COCO mask IoU (both shapes rasterized on the image's pixel
grid, :func:`iaa_frames.geometry.raster.rasterize`) rather than the overlay; the rule and
its error bound are :mod:`iaa_frames.geometry.mask_rule`, the upper bound of a mask IoU
that the matcher uses is :func:`iaa_frames.geometry.bounds.mask_iou_upper_bound`. Any kind
that can be drawn as polygons (:meth:`Kind.to_polygons`) can be rasterized.

Readers express a mask as an RLE decoded with pycocotools
(:func:`iaa_frames.io.masks.rle_geometry`) and passed to :func:`mask_to_geometry`.

Examples
--------
>>> m = np.zeros((4, 5), dtype=np.uint8); m[1:3, 1:4] = 1
>>> g = MASK.from_bitmasks([m])[0]
>>> g.bounds, g.area
((1.0, 1.0, 4.0, 3.0), 6.0)
"""

from __future__ import annotations

import numpy as np
import shapely

from iaa_frames.geometry.raster import Masks, rasterize

from .polygon import PolygonKind
from .registry import register_kind

__all__ = ["MASK", "MaskKind", "mask_to_geometry"]


def mask_to_geometry(mask: np.ndarray):
    """Turn a binary mask (height x width) into its exact (Multi)Polygon in pixel coordinates.

    Pixel (row r, column c) is the unit square [c, c+1] x [r, r+1], so the polygon is the
    union of the mask's pixel squares: its area is the number of pixels, and the area of
    the intersection (union) of two such polygons is the number of pixels the masks share
    (cover): vector IoU equals pixel IoU exactly. The mask is cut into vertical runs, runs
    of neighbouring columns with the same rows are merged into rectangles (vectorized),
    and the rectangles are merged with :func:`shapely.union_all`, so holes and several
    parts come out exactly. An empty mask gives None.

    Examples
    --------
    >>> m = np.zeros((4, 5), dtype=np.uint8); m[1:3, 1:4] = 1
    >>> g = mask_to_geometry(m)
    >>> g.bounds, g.area
    ((1.0, 1.0, 4.0, 3.0), 6.0)
    """
    m = np.asarray(mask).astype(bool, copy=False)
    if m.ndim != 2:
        return None
    # trace the mask's bounding box only (a small object on a large image costs its own
    # pixels); the runs are shifted back, so the rectangles are those of the whole image
    cols = np.flatnonzero(m.any(axis=0))
    if not len(cols):
        return None
    rows = np.flatnonzero(m.any(axis=1))
    c0, r0 = int(cols[0]), int(rows[0])
    m = m[r0 : rows[-1] + 1, c0 : cols[-1] + 1]
    t = np.zeros((m.shape[1], m.shape[0] + 2), np.int8)  # rows of t are the image columns
    t[:, 1:-1] = m.T
    d = np.diff(t, axis=1)
    sc, sr = np.nonzero(d == 1)  # run starts, column-major: (column, first row)
    _, er = np.nonzero(d == -1)  # run ends (one past the last row), in the same order
    sc, sr, er = sc + c0, sr + r0, er + r0
    # merge runs of consecutive columns that cover the same rows into one rectangle
    order = np.lexsort((sc, er, sr))
    sc, sr, er = sc[order], sr[order], er[order]
    new = np.ones(len(sc), bool)
    new[1:] = (sr[1:] != sr[:-1]) | (er[1:] != er[:-1]) | (sc[1:] != sc[:-1] + 1)
    group = np.cumsum(new) - 1
    x0 = sc[new]
    x1 = np.zeros(group[-1] + 1, dtype=sc.dtype)
    np.maximum.at(x1, group, sc + 1)
    boxes = shapely.box(x0, sr[new], x1, er[new])
    # rectangles of neighbouring columns share edges without sharing vertices, which rules
    # out the faster coverage union
    return shapely.union_all(boxes)


class MaskKind(PolygonKind):
    """Pixel masks, read as the exact polygons of their pixels (a polygon row).

    Examples
    --------
    >>> import shapely
    >>> MASK.rasterize(np.array([shapely.box(1, 1, 3, 3)]), width=4, height=4).area.tolist()
    [4]
    """

    name = "mask"
    description = "pixel masks, read as the exact polygons of their pixels; COCO mask IoU"

    def rows(self, frame) -> np.ndarray:
        """No row is told apart as a mask: masks are polygon rows once read."""
        return np.zeros(len(frame), dtype=bool)

    def from_bitmasks(self, masks) -> np.ndarray:
        """The exact polygons of binary masks (``None`` for an empty mask), as an object
        array (:func:`mask_to_geometry`)."""
        out = np.empty(len(masks), dtype=object)
        out[:] = [mask_to_geometry(m) for m in masks]
        return out

    def rasterize(self, polygons, *, width: int, height: int) -> Masks:
        """The masks of polygons on a ``width`` x ``height`` pixel grid (pixel
        coordinates), the COCO rule (:func:`iaa_frames.geometry.raster.rasterize`)."""
        return rasterize(polygons, width, height)


MASK = register_kind(MaskKind())
