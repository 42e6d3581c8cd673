"""Areas and the IoU of pairs of shapes.

* :func:`areas`: the exact area of every shape (numpy for boxes, shapely for polygons,
  computed once per shape, the kind's own formula for the rows of parametric kinds,
  :mod:`iaa_frames.geometry.kinds`).
* :func:`areas_inside`: the exact area of every shape inside a rectangle, in numpy
  (:mod:`iaa_frames.geometry.clip`), the cheap upper bound of a shared area that lets the
  matcher skip overlays.
* :func:`areas_inside_bound`: an upper bound of the same at a fixed cost per row, from
  the areas of each polygon in the cells of a grid over its box
  (:mod:`iaa_frames.geometry.area_grid`).
* :func:`iou`: intersection over union of every pair. Box-box pairs in numpy; pairs
  involving a polygon only where the bounding boxes overlap (elsewhere the IoU is 0), by
  the exact shared area or, for detailed polygons with known image sizes, by the mask
  IoU on the image's pixel grid, by the rule of :mod:`iaa_frames.geometry.mask_rule`.
  The exact shared area of valid polygons, multipolygons and boxes comes from their
  edges (:mod:`iaa_frames.geometry.shared_area`, numpy); invalid polygons and other
  geometries keep the shapely (GEOS) overlay. Two
  polygons with the same vertices in the same order (a copied annotation) have IoU exactly
  1 without an overlay, whose rounding could otherwise leave identical shapes just below a
  threshold of 1. Two shapes of one parametric kind share the area the kind computes
  (:meth:`~iaa_frames.geometry.kinds.Kind.intersection`); a shape of a parametric kind and
  a shape of another kind, the overlay of their polygons
  (:meth:`~iaa_frames.geometry.kinds.Kind.to_polygons`). A kind with its own similarity
  (:attr:`~iaa_frames.geometry.kinds.Kind.own_similarity`, keypoints' OKS) has that
  similarity as its "IoU", and 0 with shapes of other kinds
  (:mod:`iaa_frames.geometry.kind_similarity`).
"""

from __future__ import annotations

import numpy as np
import shapely

from iaa_frames.errors import ParameterError

from .area_grid import grid_bound
from .clip import clipped_areas
from .kind_similarity import involves_own_similarity, own_similarity_pairs
from .kinds.box import BOX, box_intersection
from .kinds.polygon import overlay_areas
from .kinds.registry import get_kind
from .mask_rule import mask_pixels, on_masks
from .shapes import Shapes, check_aligned
from .shared_area import shared_areas

__all__ = ["areas", "areas_inside", "areas_inside_bound", "iou", "iou_union", "overlap"]


def areas(shapes: Shapes) -> np.ndarray:
    """Area of every shape (exact for polygons).

    Examples
    --------
    >>> areas(Shapes([[0, 0, 2, 3]])).tolist()
    [6.0]
    """
    area = BOX.areas(shapes.boxes)
    poly = shapes.is_polygon
    if poly.any():
        rows = np.flatnonzero(poly)
        area[rows] = shapes.polygon_areas(rows)
    if shapes.params:
        shapes.kind_areas(np.arange(len(shapes)), area)
    return area


def _boxes_inside(shapes: Shapes, rects):
    """The rectangles as an (n, 4) float array, and the area of each shape's bounding box
    inside its row's rectangle (exact for boxes, an upper bound for the others)."""
    rects = np.asarray(rects, dtype=np.float64).reshape(-1, 4)
    bx = shapes.boxes
    w = np.minimum(bx[:, 2], rects[:, 2]) - np.maximum(bx[:, 0], rects[:, 0])
    h = np.minimum(bx[:, 3], rects[:, 3]) - np.maximum(bx[:, 1], rects[:, 1])
    return rects, np.maximum(w, 0) * np.maximum(h, 0)


def areas_inside(shapes: Shapes, rects) -> np.ndarray:
    """Area of each shape inside the axis-aligned rectangle of its row.

    Exact up to rounding, in numpy (:mod:`iaa_frames.geometry.clip`), at a few operations per
    polygon edge: an upper bound of the area a shape can share with any shape whose
    bounding box is the rectangle, far cheaper than an overlay. For the rows of parametric
    kinds it is the area of their bounding box inside the rectangle, an upper bound.

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
    rects, out = _boxes_inside(shapes, rects)
    rows = np.flatnonzero(shapes.is_polygon)
    if rows.size:
        edges, index = shapes.ring_edges()
        out[rows] = clipped_areas(edges, index[rows], rects[rows])
    return out


def areas_inside_bound(shapes: Shapes, rects) -> np.ndarray:
    """An upper bound of the area of each shape inside the rectangle of its row, at a
    fixed cost per row whatever the vertex count.

    For polygons, from the areas of the polygon in the cells of a grid over its bounding
    box, computed once per polygon (:mod:`iaa_frames.geometry.area_grid`); for boxes their
    exact area inside the rectangle; for the rows of parametric kinds the area of their
    bounding box inside it. Never below :func:`areas_inside`, and at most the area of the
    shape's box inside the rectangle (up to a relative slack of 1e-9).

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
    >>> bound = areas_inside_bound(s, [[0, 0, 2, 2]])
    >>> bool(bound[0] >= areas_inside(s, [[0, 0, 2, 2]])[0]), float(bound[0].round(6))
    (True, 4.0)
    """
    rects, out = _boxes_inside(shapes, rects)
    rows = np.flatnonzero(shapes.is_polygon)
    if rows.size:
        grid, index = shapes.area_grid()
        out[rows] = grid_bound(grid, index[rows], rects[rows])
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
    inter = box_intersection(a.boxes, b.boxes)
    area_a = BOX.areas(a.boxes)
    area_b = BOX.areas(b.boxes)

    a_poly, b_poly = a.is_polygon, b.is_polygon
    if a_poly.any():
        rows = np.flatnonzero(a_poly)
        area_a[rows] = a.polygon_areas(rows)
    if b_poly.any():
        rows = np.flatnonzero(b_poly)
        area_b[rows] = b.polygon_areas(rows)
    if a.params:
        a.kind_areas(np.arange(len(a)), area_a)
    if b.params:
        b.kind_areas(np.arange(len(b)), area_b)
    # Pairs involving a shape other than a box whose bounding boxes overlap need the
    # intersection; where the boxes do not overlap the shapes cannot either.
    rows = np.flatnonzero(~(a.is_box & b.is_box) & (inter > 0))
    own = involves_own_similarity(a, b)
    if own is not None:  # scored by their kind's similarity in iou_union, not by areas
        inter[own] = 0.0
        rows = rows[~own[rows]]
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
    if rows.size and (a.params or b.params):
        rows = _same_kind(a, b, rows, inter)
    if rows.size:
        pa = a.polygons_at(rows)
        pb = b.polygons_at(rows)
        # the same vertices (a copied annotation): IoU exactly 1, no overlay
        same = shapely.equals_exact(pa, pb, tolerance=0)
        if same.any():
            inter[rows[same]] = np.minimum(area_a[rows[same]], area_b[rows[same]])
            rows, pa, pb = rows[~same], pa[~same], pb[~same]
        rows, pa, pb = _shared_without_overlay(a, b, rows, pa, pb, inter)
    if rows.size:
        shared, repaired = overlay_areas(pa, pb)
        if repaired is not None:
            # invalid input (e.g. self-intersecting rings not passed through
            # validate), repaired as validate() would: the areas of the repaired shapes
            area_a[rows] = shapely.area(repaired[0])
            area_b[rows] = shapely.area(repaired[1])
        inter[rows] = shared
    return inter, area_a, area_b, masked, mask_value


def _shared_without_overlay(a: Shapes, b: Shapes, rows, pa, pb, inter: np.ndarray):
    """Write into ``inter`` the shared area of the pairs ``rows`` of valid polygons,
    multipolygons and boxes, from their edges (:mod:`iaa_frames.geometry.shared_area`, no
    GEOS overlay); return the other pairs and their geometries ``pa``, ``pb``."""
    index_a, ok = a.surface_index(rows)
    index_b, ok_b = b.surface_index(rows)
    ok &= ok_b
    if ok.any():
        r = rows[ok]
        ba, bb = a.boxes[r], b.boxes[r]
        rect = np.concatenate(
            [np.maximum(ba[:, :2], bb[:, :2]), np.minimum(ba[:, 2:], bb[:, 2:])], axis=1
        )
        inter[r] = shared_areas(
            a.ring_edges()[0], index_a[ok], b.ring_edges()[0], index_b[ok], rect
        )
        rows, pa, pb = rows[~ok], pa[~ok], pb[~ok]
    return rows, pa, pb


def _same_kind(a: Shapes, b: Shapes, rows: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """Write into ``inter`` the shared area of the pairs ``rows`` whose two shapes are of
    one parametric kind (by the kind's own method); return the other pairs."""
    kinds_b = b.kind_rows()
    for name, in_a in a.kind_rows().items():
        in_b = kinds_b.get(name)
        if in_b is None:
            continue
        same = in_a[rows] & in_b[rows]
        if same.any():
            r = rows[same]
            kind = get_kind(name)
            if kind.payload is None:
                inter[r] = kind.intersection(a.params[name][r], b.params[name][r])
            else:  # its variable-length data too (a volume's voxel runs)
                inter[r] = kind.intersection(
                    a.params[name][r],
                    b.params[name][r],
                    _payload(a, name).take(r),
                    _payload(b, name).take(r),
                )
            rows = rows[~same]
    return rows


def _payload(shapes: Shapes, name: str):
    """The payload of kind ``name`` of ``shapes``, or a ParameterError saying how it was
    lost."""
    y = (shapes.payloads or {}).get(name)
    if y is None:
        raise ParameterError(
            f"shapes of the geometry kind {name!r} came without their "
            f"{get_kind(name).payload!r} data: build them with Shapes.from_frame from a "
            "frame holding that column"
        )
    return y


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
    if a.params or b.params:
        own, value, foreign = own_similarity_pairs(a, b)
        out[own] = value
        out[foreign] = 0.0
    return out, union, masked


def iou(a: Shapes, b: Shapes) -> np.ndarray:
    """Intersection over union of each pair ``(a[i], b[i])``.

    Pure numpy for box-box pairs. For pairs involving a polygon (computed only where
    the bounding boxes overlap): the exact shared area or, for detailed polygons
    with known image sizes, the mask IoU on the image's pixel grid, by the rule of
    :mod:`iaa_frames.geometry.mask_rule`. The shared area of valid polygons (holes and
    parts included) and boxes comes from their edges, in numpy
    (:mod:`iaa_frames.geometry.shared_area`); of other shapes, from a shapely overlay.
    Polygons are expected to be valid (``validate`` repairs them); where GEOS refuses an
    intersection of invalid input the pairs are repaired with :func:`shapely.make_valid`
    and retried.

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
