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

Readers decode an RLE into the crop of its bounding box (:func:`iaa_frames.io.masks.rle_crop`) and trace
the masks of a file together (:func:`masks_to_geometries`: the outlines followed pixel
edge by pixel edge, no overlay; :func:`mask_to_geometry` for one mask).

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

__all__ = ["MASK", "TRACE_CANVAS_PIXELS", "MaskKind", "mask_to_geometry", "masks_to_geometries"]


#: Pixels of the canvas on which :func:`masks_to_geometries` traces masks at once (bounds
#: its memory, about 10 bytes a pixel).
TRACE_CANVAS_PIXELS = 1 << 23

# directed boundary edges: 0 = +x, 1 = +y, 2 = -x, 3 = -y (x to the right, y down); the
# pixel on an edge's left is inside the mask
_DX = np.array([1, 0, -1, 0])
_DY = np.array([0, 1, 0, -1])
_LEFT = np.array([3, 0, 1, 2])  # direction after a left turn
_RIGHT = np.array([1, 2, 3, 0])
_ROW = np.array([-1, 0, 0, -1])  # the pixel on the left of an edge, from its start vertex
_COL = np.array([0, 0, -1, -1])


def mask_to_geometry(mask: np.ndarray):
    """Turn a binary mask (height x width) into its exact (Multi)Polygon in pixel coordinates.

    Pixel (row r, column c) is the unit square [c, c+1] x [r, r+1], so the polygon is the
    union of the mask's pixel squares: its area is the number of pixels, and the area of
    the intersection (union) of two such polygons is the number of pixels the masks share
    (cover): vector IoU equals pixel IoU exactly. One polygon per 4-connected part of the
    mask (parts touching at a corner are two polygons), with its holes; vertices only
    where the outline turns. An empty mask gives None. Many masks are traced at once,
    faster, by :func:`masks_to_geometries`.

    Examples
    --------
    >>> m = np.zeros((4, 5), dtype=np.uint8); m[1:3, 1:4] = 1
    >>> g = mask_to_geometry(m)
    >>> g.bounds, g.area
    ((1.0, 1.0, 4.0, 3.0), 6.0)
    """
    m = np.asarray(mask)
    if m.ndim != 2:
        return None
    return masks_to_geometries([m])[0]


def masks_to_geometries(masks, origins=None) -> np.ndarray:
    """The exact polygons of many binary masks (:func:`mask_to_geometry`), traced at once.

    Each mask is cropped to its bounding box, the crops are stacked on one canvas (a row
    of background between two), and the outlines of the canvas are followed as directed
    pixel edges (the inside on the left); where two pixels of a part touch only at a corner
    the outline keeps them apart, unless one outline would pass the corner twice, where it
    is cut into an outer ring and a hole touching there (both valid for GEOS). Rings turn
    anticlockwise on screen around a part, clockwise around a hole.

    Parameters
    ----------
    masks : sequence of 2-d array_like
        Binary masks (nonzero is inside), of any sizes.
    origins : array_like of int, shape (n, 2), optional
        Pixel (row, column) of each mask's top-left corner in the image: the polygons are
        shifted by it (a mask given as the crop of its bounding box). Default: (0, 0).

    Returns
    -------
    numpy.ndarray of object, shape (n,)
        A Polygon (one part) or MultiPolygon per mask, None for an empty mask.

    Examples
    --------
    >>> a = np.zeros((3, 3), bool); a[0, 0] = a[1, 1] = True  # two pixels at a corner
    >>> b = np.ones((3, 3), bool); b[1, 1] = False  # a ring of pixels
    >>> g = masks_to_geometries([a, b, np.zeros((2, 2))], origins=[[0, 0], [10, 20]])
    >>> [x.geom_type if x is not None else None for x in g]
    ['MultiPolygon', 'Polygon', None]
    >>> g[1].bounds, g[1].area, len(g[1].interiors)
    ((20.0, 10.0, 23.0, 13.0), 8.0, 1)
    """
    n = len(masks)
    out = np.full(n, None, dtype=object)
    origins = np.zeros((n, 2), np.int64) if origins is None else np.asarray(origins, np.int64)
    crops, where = [], []
    for i, mask in enumerate(masks):  # the crops: numpy per mask, no loop over pixels
        m = np.asarray(mask)
        cols = np.flatnonzero(m.any(axis=0))
        if not len(cols):
            continue
        rows = np.flatnonzero(m.any(axis=1))
        crops.append(m[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1] != 0)
        where.append((origins[i, 0] + rows[0], origins[i, 1] + cols[0], i))
    by_width = np.argsort([c.shape[1] for c in crops], kind="stable")  # less blank canvas
    crops, where = [crops[j] for j in by_width], [where[j] for j in by_width]
    k = 0
    while k < len(crops):  # canvases of at most TRACE_CANVAS_PIXELS (or one mask)
        width = height = 0
        stop = k
        while stop < len(crops):
            h, w = crops[stop].shape
            if stop > k and max(width, w) * (height + h + 1) > TRACE_CANVAS_PIXELS:
                break
            width, height = max(width, w), height + h + 1
            stop += 1
        out[[w[2] for w in where[k:stop]]] = _trace_canvas(crops[k:stop], where[k:stop], width)
        k = stop
    return out


def _successors(order, skey, lo, ekey, d, saddle, turn):
    succ = order[np.minimum(lo, len(order) - 1)]
    succ[saddle] = order[np.searchsorted(skey, ekey[saddle] + turn[d[saddle]])]
    return succ


def _rings(succ):
    """The ring of each edge (its cycle of successors, numbered from 0 in order of first
    edge) and the steps from it to its ring's first edge, by pointer doubling."""
    n = len(succ)
    ring = np.arange(n)
    nxt = succ.copy()
    while not (ring == ring[succ]).all():  # the smallest edge of each cycle
        ring = np.minimum(ring, ring[nxt])
        nxt = nxt[nxt]
    is_first = ring == np.arange(n)
    nxt = np.where(is_first, np.arange(n), succ)
    dist = (~is_first).astype(np.int64)
    while not is_first[nxt].all():
        dist = dist + dist[nxt]
        nxt = nxt[nxt]
    return np.cumsum(is_first)[ring] - 1, dist


def _trace_canvas(crops, where, width):
    """Polygons of the masks ``crops`` stacked on one canvas (see masks_to_geometries)."""
    heights = np.array([c.shape[0] for c in crops])
    top = np.r_[0, np.cumsum(heights + 1)[:-1]] + 1  # canvas row of each crop's first row
    p = np.zeros((top[-1] + heights[-1] + 1, width + 2), bool)
    for t, c in zip(top, crops):
        p[t : t + c.shape[0], 1 : c.shape[1] + 1] = c
    above, below = p[:-1, 1:-1], p[1:, 1:-1]
    hy, hx = np.nonzero(above != below)
    hpos = above[hy, hx]
    left, right = p[1:-1, :-1], p[1:-1, 1:]
    vy, vx = np.nonzero(left != right)
    vpos = right[vy, vx]
    del above, below, left, right
    # start vertex and direction of every directed edge, vertex (x, y) of the canvas
    sx = np.concatenate([np.where(hpos, hx, hx + 1), vx]).astype(np.int64)
    sy = np.concatenate([hy, np.where(vpos, vy, vy + 1)]).astype(np.int64)
    d = np.concatenate([np.where(hpos, 0, 2), np.where(vpos, 1, 3)])
    stride = p.shape[0] - 1
    key = (sx * stride + sy) * 4 + d
    order = np.argsort(key)
    skey = key[order]
    ekey = ((sx + _DX[d]) * stride + sy + _DY[d]) * 4
    lo = np.searchsorted(skey, ekey)
    # a vertex with two edges out is a corner where two pixels meet diagonally: keep them
    # apart (a left turn) ...
    saddle = np.searchsorted(skey, ekey + 4) - lo == 2
    succ = _successors(order, skey, lo, ekey, d, saddle, _LEFT)
    if saddle.any():
        # ... unless one ring passes that corner twice: turn right there, which cuts the
        # ring into two touching at the corner (a part and its hole, or two holes); which
        # ring an edge is on is all this needs (the cycles of succ, one C pass); scipy
        # imported here: the readers import this module, and scipy.sparse.csgraph (with
        # scipy.linalg) took 0.3 s of a first read_coco that traces no mask
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        _, cycle = connected_components(
            coo_matrix((np.ones(len(succ), np.int8), (np.arange(len(succ)), succ)),
                       shape=(len(succ), len(succ))),
            connection="weak",
        )  # fmt: skip
        sv = np.flatnonzero(saddle)
        sv = sv[np.argsort(ekey[sv], kind="stable")]  # the two edges in of each corner
        twice = cycle[sv[0::2]] == cycle[sv[1::2]]
        if twice.any():
            flip = np.zeros(len(d), bool)
            flip[sv[0::2][twice]] = flip[sv[1::2][twice]] = True
            succ[flip] = order[np.searchsorted(skey, ekey[flip] + _RIGHT[d[flip]])]
    ring, dist = _rings(succ)
    # the vertices where the outline turns, ring by ring in order along it
    pred = np.empty(len(d), np.int64)
    pred[succ] = np.arange(len(d))
    k = np.flatnonzero(d[pred] != d)
    k = k[np.lexsort((-dist[k], ring[k]))]
    kr = ring[k]
    n_rings = int(kr[-1]) + 1
    first = np.searchsorted(kr, np.arange(n_rings))
    x, y = sx[k], sy[k]
    nxt = np.arange(1, len(k) + 1)
    nxt[np.r_[first[1:], len(k)] - 1] = first
    hole = np.add.reduceat(x * y[nxt] - x[nxt] * y, first) > 0  # shoelace, y down
    owner = np.searchsorted(top, y + 1, side="right") - 1  # canvas row y is crop row y - top
    origin = np.array([(r, c) for r, c, _ in where], np.int64)
    xy = np.column_stack([x + origin[owner, 1], y - top[owner] + 1 + origin[owner, 0]])
    rings = shapely.linearrings(xy.astype(np.float64), indices=kr)
    # one polygon per outer ring; a hole belongs to the smallest outer ring around the
    # centre of the pixel on the left of its first edge (a pixel of the part it bounds)
    shells = np.flatnonzero(~hole)
    part = np.empty(n_rings, np.int64)
    part[shells] = np.arange(len(shells))
    holes = np.flatnonzero(hole)
    shell_owner = owner[first[shells]]
    n_shells = np.bincount(shell_owner, minlength=len(crops))
    hole_owner = owner[first[holes]]
    alone = n_shells[hole_owner] == 1  # the hole of a mask of one part: that part's
    shell_of = np.zeros(len(crops), np.int64)
    shell_of[shell_owner] = np.arange(len(shells))  # (the last shell of a mask of several)
    part[holes[alone]] = shell_of[hole_owner[alone]]
    holes = holes[~alone]
    if len(holes):
        e = k[first[holes]]
        px = (
            x[first[holes]] + _COL[d[e]] + 0.5 + origin[owner[first[holes]], 1],
            y[first[holes]]
            + _ROW[d[e]]
            + 0.5
            - top[owner[first[holes]]]
            + 1
            + origin[owner[first[holes]], 0],
        )
        filled = shapely.polygons(rings[shells])
        # the tree holds the points and the shells ask it: a prepared polygon tests many
        # points fast, where a point asking a tree of polygons relates each candidate anew
        si, hi = shapely.STRtree(shapely.points(*px)).query(filled, predicate="contains")
        same = owner[first[holes[hi]]] == owner[first[shells[si]]]  # masks overlap
        hi, si = hi[same], si[same]
        smallest = np.lexsort((shapely.area(filled)[si], hi))
        hi, si = hi[smallest], si[smallest]
        firsts = np.r_[True, hi[1:] != hi[:-1]]
        if firsts.sum() != len(holes):
            raise AssertionError("mask tracing: a hole outside every outer ring")
        part[holes[hi[firsts]]] = si[firsts]
    n_parts = len(shells)
    by = np.lexsort((hole, part))  # each part's outer ring first
    polys = shapely.polygons(rings[by], indices=part[by])
    part_mask = np.zeros(n_parts, np.int64)
    part_mask[part] = owner[first]
    count = np.bincount(part_mask, minlength=len(crops))
    geoms = np.empty(len(crops), dtype=object)
    single = count == 1
    geoms[single] = polys[np.searchsorted(part_mask, np.flatnonzero(single))]
    if not single.all():
        multi = np.isin(part_mask, np.flatnonzero(~single))
        geoms[~single] = shapely.multipolygons(
            polys[multi], indices=np.unique(part_mask[multi], return_inverse=True)[1]
        )
    return geoms


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
        return masks_to_geometries(masks)

    def rasterize(self, polygons, *, width: int, height: int) -> Masks:
        """The masks of polygons on a ``width`` x ``height`` pixel grid (pixel
        coordinates), the COCO rule (:func:`iaa_frames.geometry.raster.rasterize`)."""
        return rasterize(polygons, width, height)


MASK = register_kind(MaskKind())
