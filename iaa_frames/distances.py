"""Distances between two annotated objects, vectorized over arrays of pairs (DESIGN §3).

Objects are held in a :class:`Shapes` container: an ``(n, 4)`` array of boxes and,
optionally, an ``(n,)`` object array of shapely polygons (``None`` where the row is a
plain box). Every function takes two aligned :class:`Shapes` ``a`` and ``b`` of equal
length and returns an ``(n,)`` float64 array, one value per pair ``(a[i], b[i])``.
Missing input (NaN box, no geometry) gives NaN, in the style of shapely.

Box-box pairs are computed with numpy alone. Pairs involving a polygon use shapely 2
array functions; a plain box is turned into a polygon with :func:`shapely.box` when its
partner is a polygon. Polygon intersections are only computed where the bounding boxes
overlap.

**Exact overlay or mask IoU.** The IoU of a pair involving a polygon is computed one of two
ways, chosen per pair by a fixed rule (so the result does not depend on the batch, the row
order or the number of threads):

* *exact vector IoU* (shapely overlay) when the two shapes together have at most
  :data:`MASK_IOU_MIN_COORDINATES` coordinates (every ring, closing points included; a box
  counts 5), or when the image size of either is unknown;
* *mask IoU* otherwise: the IoU of the two shapes rasterized on a pixel grid, which is how
  the COCO evaluation defines segmentation IoU (:mod:`iaa_frames.raster`: a pixel is inside
  when its centre is). Within an item the grid is the image's own pixel grid (width x
  height, from :meth:`Shapes.from_frame`). For two objects of images of different sizes
  (chance pairs) it is the finer of the two in each direction: ``max(width_a, width_b)``
  by ``max(height_a, height_b)`` pixels over the normalized image. Each shape is
  rasterized once per grid and kept for the life of the :class:`Shapes` (and of every
  :meth:`Shapes.take` of it). As in COCO, parts of a shape outside the image are cut off.
  Pairs whose two masks are both empty (shapes thinner than a pixel) fall back to the
  exact overlay.

Two polygons with the same vertices in the same order (a copied annotation) have IoU
exactly 1 without an overlay, whose rounding could otherwise leave identical shapes just
below a threshold of 1.

Why: two annotators tracing one detailed contour give two nearly identical polygons, the
worst case for an overlay (``benchmarks/bench_traces.py`` prints the costs: milliseconds
per pair at 1,000 vertices, tens of milliseconds at 10,000), while a mask IoU costs tens
of microseconds per pair whatever the vertex count, once each shape is rasterized (about
a millisecond for 10,000 vertices). Below the threshold the overlay costs about as much or
less, so ordinary boxes and polygons (tens of vertices) keep their exact IoU. The difference
between the two is the rasterization error: each mask differs from its shape by at most a
band of half-width sqrt(2)/2 pixel along the boundary, i.e. at most ``sqrt(2) * L + pi/2``
pixels for a ring of length ``L`` pixels, so ``|mask IoU - IoU| <= 2 e / (U - e)`` with
``e`` the sum of those bounds over both shapes and ``U`` the union in pixels (in practice
far smaller: below 1e-3 on the traces of the benchmark, a few hundred pixels wide).

Areas (:func:`areas`) and the convex hulls of GIoU are always exact; hulls, areas and
coordinate counts are also computed once per shape and kept like the masks.

The registry maps the names of DESIGN §3 (``"giou"``, the default, ``"iou"``, ``"l2"``,
``"centroid"``, ``"hausdorff"``) to :class:`Distance` records; users may register their
own callables.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np
import shapely

from .errors import ParameterError, SchemaError
from .clip import RingEdges, clipped_areas
from .raster import Masks, intersection_pixels, rasterize, ring_vertices

__all__ = [
    "Shapes",
    "as_polygons",
    "areas",
    "areas_inside",
    "iou",
    "giou",
    "giou_distance",
    "iou_distance",
    "l2_distance",
    "centroid_distance",
    "hausdorff_distance",
    "Distance",
    "register_distance",
    "get_distance",
    "available_distances",
    "DEFAULT_DISTANCE",
    "MASK_IOU_MIN_COORDINATES",
    "uses_mask_iou",
    "iou_upper_bound",
    "mask_iou_upper_bound",
    "may_use_masks",
]

DEFAULT_DISTANCE = "giou"

#: Pairs whose two shapes have more coordinates than this in all get the mask IoU rather
#: than the exact overlay (see the module docstring). 500 is about where a shapely overlay
#: of two nearly identical traces costs as much as rasterizing them
#: (``benchmarks/bench_traces.py`` prints both per vertex count).
MASK_IOU_MIN_COORDINATES = 500

_BOX_COLUMNS = ["x0", "y0", "x1", "y1"]


# --------------------------------------------------------------------------------------
# The container
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class Shapes:
    """Aligned arrays of boxes and (optional) polygons, one row per object.

    Parameters
    ----------
    boxes : array_like, shape (n, 4)
        ``x0, y0, x1, y1`` per row, converted to float64. For polygon rows these are
        the polygon's bounds (:meth:`from_frame` and :meth:`from_geometries` ensure it).
        NaN marks a missing shape.
    polygons : array_like of shapely geometries, shape (n,), optional
        The polygon of each row, ``None`` where the row is a plain box. Anything that
        is not a shapely geometry (NaN, pandas NA) is stored as ``None``. ``None``
        altogether when every row is a box.
    image_size : array_like, shape (n, 2), optional
        ``width, height`` in pixels of the image whose size normalized the row's
        coordinates (NaN where unknown or not normalized). It gives the pixel grid of the
        mask IoU of detailed polygons (see the module docstring); :meth:`from_frame` sets
        it. ``None``: unknown for every row, so every IoU is the exact overlay.

    Notes
    -----
    Convex hulls, areas, coordinate counts and masks of the shapes are computed when
    first needed and kept, shared by every :meth:`take` of the same container (a
    :class:`Shapes` is immutable, so they cannot go stale).

    Examples
    --------
    >>> import shapely
    >>> s = Shapes([[0, 0, 2, 2], [1, 1, 3, 4]])
    >>> len(s), s.is_polygon.tolist()
    (2, [False, False])
    >>> t = Shapes.from_geometries([shapely.box(0, 0, 1, 1), None])
    >>> t.boxes[0].tolist(), t.is_polygon.tolist()
    ([0.0, 0.0, 1.0, 1.0], [True, False])
    """

    boxes: np.ndarray
    polygons: np.ndarray | None = None
    image_size: np.ndarray | None = None
    _store: _Store = field(init=False, repr=False, compare=False)
    _rows: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        boxes = np.asarray(self.boxes, dtype=np.float64)
        if boxes.ndim == 1 and boxes.size == 0:
            boxes = boxes.reshape(0, 4)
        if boxes.ndim != 2 or boxes.shape[1] != 4:
            raise ParameterError(
                f"Shapes.boxes must have shape (n, 4) (x0, y0, x1, y1); got {boxes.shape}"
            )
        object.__setattr__(self, "boxes", boxes)
        polygons = self.polygons
        if polygons is not None:
            polygons = _object_array(polygons)
            if polygons.shape != (boxes.shape[0],):
                raise ParameterError(
                    f"Shapes.polygons must have shape ({boxes.shape[0]},) to match the "
                    f"boxes; got {polygons.shape}"
                )
            is_geom = shapely.is_geometry(polygons)
            if not is_geom.all():
                polygons = polygons.copy()
                polygons[~is_geom] = None
            object.__setattr__(self, "polygons", polygons)
        size = self.image_size
        if size is not None:
            size = np.asarray(size, dtype=np.float64)
            if size.shape != (boxes.shape[0], 2):
                raise ParameterError(
                    f"Shapes.image_size must have shape ({boxes.shape[0]}, 2) (width, "
                    f"height); got {size.shape}"
                )
            bad = ~(np.isfinite(size) & (size > 0)).all(axis=1)
            if bad.any():
                size = size.copy()
                size[bad] = np.nan
            object.__setattr__(self, "image_size", size)
        object.__setattr__(self, "_store", _Store(self))
        object.__setattr__(self, "_rows", None)

    # -- constructors -----------------------------------------------------------------

    @classmethod
    def from_geometries(cls, geometries) -> "Shapes":
        """Build from shapely geometries; the boxes are their bounds.

        Parameters
        ----------
        geometries : array_like of shapely geometries, shape (n,)
            ``None`` (or a non-geometry) marks a missing shape.

        Returns
        -------
        Shapes

        Examples
        --------
        >>> import shapely
        >>> Shapes.from_geometries([shapely.box(1, 2, 3, 4)]).boxes.tolist()
        [[1.0, 2.0, 3.0, 4.0]]
        """
        geoms = _object_array(geometries)
        if geoms.ndim != 1:
            raise ParameterError(f"geometries must be one-dimensional; got {geoms.shape}")
        geoms = np.where(shapely.is_geometry(geoms), geoms, None)
        return cls(shapely.bounds(geoms), geoms)

    @classmethod
    def from_frame(cls, df, *, normalize: bool = True) -> "Shapes":
        """Build from the rows of a validated tidy frame (CONTRACTS.md).

        One row of the result per row of ``df``, in order; coverage rows (NaN
        coordinates, no geometry) become missing shapes, so their distances are NaN.
        Pass only the object rows if you do not want them.

        Parameters
        ----------
        df : pandas.DataFrame
            Needs ``x0, y0, x1, y1``; uses ``geometry`` (polygons, ``None`` on boxes)
            and ``width, height`` (image size in pixels) when present.
        normalize : bool, default True
            Divide x by ``width`` and y by ``height`` on rows where both are known
            (finite and > 0), and keep the size as :attr:`image_size`. Other rows keep
            pixel coordinates (and an unknown image size).

        Returns
        -------
        Shapes
            For polygon rows ``boxes`` holds the bounds of the (scaled) polygon.

        Raises
        ------
        SchemaError
            If a box column is missing.

        Examples
        --------
        >>> import pandas as pd, shapely
        >>> df = pd.DataFrame({"x0": [10.0, 1.0], "y0": [20.0, 1.0], "x1": [50.0, 2.0],
        ...                    "y1": [60.0, 2.0], "width": [100.0, float("nan")],
        ...                    "height": [200.0, float("nan")],
        ...                    "geometry": [shapely.box(10, 20, 50, 60), None]})
        >>> s = Shapes.from_frame(df)
        >>> s.boxes.tolist()
        [[0.1, 0.1, 0.5, 0.3], [1.0, 1.0, 2.0, 2.0]]
        >>> shapely.area(s.polygons[0]).round(3)
        np.float64(0.08)
        """
        missing = [c for c in _BOX_COLUMNS if c not in df.columns]
        if missing:
            raise SchemaError(f"Shapes.from_frame needs the box columns; missing {missing}")
        n = len(df)
        boxes = np.column_stack(
            [df[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in _BOX_COLUMNS]
        ).reshape(n, 4)

        if "geometry" in df.columns:
            geoms = _object_array(df["geometry"].to_numpy(dtype=object))
            geoms = np.where(shapely.is_geometry(geoms), geoms, None)
            has_poly = shapely.is_geometry(geoms)
        else:
            geoms = None
            has_poly = np.zeros(n, dtype=bool)

        size = None
        if normalize and "width" in df.columns and "height" in df.columns:
            w = df["width"].to_numpy(dtype=np.float64, na_value=np.nan)
            h = df["height"].to_numpy(dtype=np.float64, na_value=np.nan)
            known = np.isfinite(w) & np.isfinite(h) & (w > 0) & (h > 0)
            size = np.where(known[:, None], np.column_stack([w, h]), np.nan)
            sx = np.where(known, w, 1.0)
            sy = np.where(known, h, 1.0)
            boxes = boxes / np.column_stack([sx, sy, sx, sy])
            if has_poly.any():
                rows = np.flatnonzero(has_poly & known)
                if rows.size:
                    geoms = geoms.copy()
                    geoms[rows] = _scale_geometries(geoms[rows], sx[rows], sy[rows])

        if has_poly.any():
            boxes = boxes.copy()
            boxes[has_poly] = shapely.bounds(geoms[has_poly])
        else:
            geoms = None
        return cls(boxes, geoms, size)

    # -- container protocol ---------------------------------------------------------------

    def __len__(self) -> int:
        return self.boxes.shape[0]

    def __repr__(self) -> str:
        return f"Shapes(n={len(self)}, polygons={int(self.is_polygon.sum())})"

    @cached_property
    def is_polygon(self) -> np.ndarray:
        """Boolean mask, True where the row holds a polygon rather than a plain box."""
        if self.polygons is None:
            return np.zeros(len(self), dtype=bool)
        return shapely.is_geometry(self.polygons)

    def take(self, indices) -> "Shapes":
        """Rows at ``indices`` (integer array or boolean mask), as a new :class:`Shapes`.

        Examples
        --------
        >>> Shapes([[0, 0, 1, 1], [2, 2, 3, 3]]).take([1, 1, 0]).boxes[:, 0].tolist()
        [2.0, 2.0, 0.0]
        """
        indices = np.asarray(indices)
        if indices.dtype != bool and not np.issubdtype(indices.dtype, np.integer):
            if indices.size:
                raise ParameterError("Shapes.take needs integer indices or a boolean mask")
            indices = indices.astype(np.intp)
        polygons = None if self.polygons is None else self.polygons[indices]
        size = None if self.image_size is None else self.image_size[indices]
        # rows of a validated container need no validation again
        out = object.__new__(Shapes)
        for name, value in (("boxes", self.boxes[indices]), ("polygons", polygons),
                            ("image_size", size), ("_rows", None)):
            object.__setattr__(out, name, value)
        object.__setattr__(out, "_store", _Store(out))
        if self.polygons is not None:
            # share the per-shape cache of the container this one was taken from (boxes
            # alone have nothing costly to cache: no row map for them)
            object.__setattr__(out, "_store", self._store)
            object.__setattr__(out, "_rows", self._root_rows()[indices])
        return out

    def _root_rows(self) -> np.ndarray:
        """Row of each shape in the container that owns the cache."""
        if self._rows is None:
            object.__setattr__(self, "_rows", np.arange(len(self)))
        return self._rows


class _Store:
    """Per-shape quantities of one :class:`Shapes`, computed when first needed.

    Shared (with the rows mapping of :meth:`Shapes.take`) by every container taken from
    it; a lock makes the lazy filling safe when pairs are split over threads. The values
    depend on the shape alone, so they are the same whoever computes them first.
    """

    def __init__(self, shapes: Shapes):
        self.boxes = shapes.boxes
        self.polygons = shapes.polygons
        self.lock = threading.Lock()
        self.coords = None
        self.area = None
        self.hull = None
        self.hull_area = None
        self.masks: dict = {}
        self._outline = None
        self._edges = None

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def geometry(self, rows: np.ndarray) -> np.ndarray:
        """The polygon of each row, or the polygon of its box."""
        out = np.empty(len(rows), dtype=object)
        poly = (shapely.is_geometry(self.polygons[rows]) if self.polygons is not None
                else np.zeros(len(rows), bool))
        if poly.any():
            out[poly] = self.polygons[rows[poly]]
        b = self.boxes[rows[~poly]]
        out[~poly] = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
        return out

    def n_coords(self) -> np.ndarray:
        """Coordinates of every shape (all rings, closing points included; boxes 5)."""
        with self.lock:
            if self.coords is None:
                coords = np.full(len(self.boxes), 5, np.int64)
                if self.polygons is not None:
                    poly = shapely.is_geometry(self.polygons)
                    coords[poly] = shapely.get_num_coordinates(self.polygons[poly])
                self.coords = coords
            return self.coords

    def polygon_areas(self, rows: np.ndarray) -> np.ndarray:
        """Exact area of the polygons at ``rows`` (all polygon rows)."""
        with self.lock:
            if self.area is None:
                self.area = np.full(len(self.boxes), np.nan)
            todo = np.unique(rows[np.isnan(self.area[rows])])
            if todo.size:
                self.area[todo] = shapely.area(self.polygons[todo])
            return self.area[rows]

    def outline(self):
        """Per shape: the sums of |dx| and of |dy| along every ring, and the number of
        rings (boxes: their perimeter, one ring)."""
        with self.lock:
            if self._outline is None:
                b = self.boxes
                lx, ly = 2 * (b[:, 2] - b[:, 0]), 2 * (b[:, 3] - b[:, 1])
                rings = np.ones(len(b))
                if self.polygons is not None:
                    poly = np.flatnonzero(shapely.is_geometry(self.polygons))
                    xy, ring, owner = ring_vertices(self.polygons[poly])
                    same = ring[1:] == ring[:-1]
                    step = np.abs(np.diff(xy, axis=0))[same]
                    edge_owner = owner[:-1][same]
                    lx[poly] = np.bincount(edge_owner, step[:, 0], minlength=len(poly))
                    ly[poly] = np.bincount(edge_owner, step[:, 1], minlength=len(poly))
                    first = np.concatenate([[True], ~same]) if len(ring) else np.zeros(0, bool)
                    rings[poly] = np.bincount(owner[first], minlength=len(poly))
                self._outline = (lx, ly, rings)
            return self._outline

    def ring_edges(self) -> RingEdges:
        """The oriented ring edges of every polygon (none for plain boxes)."""
        with self.lock:
            if self._edges is None:
                polygons = (self.polygons if self.polygons is not None
                            else np.full(len(self.boxes), None, dtype=object))
                self._edges = RingEdges.from_geometries(polygons)
            return self._edges

    def hulls(self, rows: np.ndarray):
        """Convex hull of the shapes at ``rows`` and its area."""
        with self.lock:
            if self.hull is None:
                self.hull = np.empty(len(self.boxes), dtype=object)
                self.hull_area = np.full(len(self.boxes), np.nan)
            todo = np.unique(rows[np.isnan(self.hull_area[rows])])
            if todo.size:
                hull = shapely.convex_hull(self.geometry(todo))
                self.hull[todo] = hull
                self.hull_area[todo] = shapely.area(hull)
            return self.hull[rows], self.hull_area[rows]

    def masks_on(self, width: int, height: int, rows: np.ndarray):
        """Masks of the shapes at ``rows`` on a ``width`` x ``height`` grid over the
        normalized image: the block holding them and their positions in it."""
        with self.lock:
            block, pos = self.masks.get((width, height), (None, None))
            if block is None:
                block, pos = Masks.empty(), np.full(len(self.boxes), -1, np.int64)
            todo = np.unique(rows[pos[rows] < 0])
            if todo.size:
                new = rasterize(self.geometry(todo), width, height, normalized=True)
                pos[todo] = len(block) + np.arange(len(todo))
                block = Masks.concat([block, new])
            self.masks[(width, height)] = (block, pos)
            return block, pos[rows]


def _object_array(values) -> np.ndarray:
    """1-d object array from any sequence, without numpy unpacking geometries."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    values = list(values) if not isinstance(values, np.ndarray) else values
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _scale_geometries(geoms: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """Divide x by ``sx[i]`` and y by ``sy[i]`` in geometry ``i``, in one shapely call."""
    _, index = shapely.get_coordinates(geoms, return_index=True)
    divisor = np.column_stack([sx, sy])[index]
    return shapely.transform(geoms, lambda coords: coords / divisor)


def as_polygons(shapes: Shapes) -> np.ndarray:
    """Shapely polygons for every row: the polygon, or ``shapely.box`` of the box.

    Parameters
    ----------
    shapes : Shapes

    Returns
    -------
    numpy.ndarray of object, shape (n,)
        ``None`` where the shape is missing (NaN box and no polygon).

    Examples
    --------
    >>> p = as_polygons(Shapes([[0, 0, 2, 3], [float("nan")] * 4]))
    >>> float(shapely.area(p[0])), p[1] is None
    (6.0, True)
    """
    if not isinstance(shapes, Shapes):
        raise ParameterError(f"as_polygons needs a Shapes; got {type(shapes).__name__}")
    return _polygons_at(shapes, np.arange(len(shapes)))


def _polygons_at(shapes: Shapes, rows: np.ndarray) -> np.ndarray:
    """Polygons of the given rows (boxes converted with one vectorized shapely.box)."""
    out = np.empty(rows.size, dtype=object)
    is_poly = shapes.is_polygon[rows]
    if is_poly.any():
        out[is_poly] = shapes.polygons[rows[is_poly]]
    box_rows = rows[~is_poly]
    if box_rows.size:
        b = shapes.boxes[box_rows]
        # shapely.box returns None for NaN coordinates
        out[~is_poly] = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
    return out


# --------------------------------------------------------------------------------------
# Elementary pairwise quantities
# --------------------------------------------------------------------------------------


def _check_pair(a, b, name: str) -> None:
    if not isinstance(a, Shapes) or not isinstance(b, Shapes):
        raise ParameterError(
            f"{name} needs two Shapes; got {type(a).__name__} and {type(b).__name__}"
        )
    if len(a) != len(b):
        raise ParameterError(
            f"{name} needs aligned Shapes of equal length; got {len(a)} and {len(b)}"
        )


def _polygon_areas(shapes: Shapes, rows: np.ndarray) -> np.ndarray:
    """Exact area of the polygon rows ``rows`` (cached per shape)."""
    return shapes._store.polygon_areas(shapes._root_rows()[rows])


def _overlap(a: Shapes, b: Shapes):
    """Intersection area and the two areas of every pair; the rows given by masks and
    their mask IoU.

    Exact for box-box pairs and for polygon pairs under the vertex threshold; the mask
    IoU rule (module docstring) for the others, whose three areas are then the pixel
    counts of the masks over the pixels of the grid.
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
        area_a[rows] = _polygon_areas(a, rows)
    if b_poly.any():
        rows = np.flatnonzero(b_poly)
        area_b[rows] = _polygon_areas(b, rows)
    # Pairs involving a polygon whose bounding boxes overlap need the intersection;
    # where the boxes do not overlap the polygons cannot either.
    rows = np.flatnonzero((a_poly | b_poly) & (inter > 0))
    masked = rows[_mask_rule(a, b, rows)]
    if masked.size:
        ipx, apx, bpx, pixels = _mask_overlap(a, b, masked)
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
        pa = _polygons_at(a, rows)
        pb = _polygons_at(b, rows)
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


def _mask_rule(a: Shapes, b: Shapes, rows: np.ndarray) -> np.ndarray:
    """Which of the pairs ``rows`` get the mask IoU (module docstring), as a bool array."""
    if a.image_size is None or b.image_size is None or not len(rows):
        return np.zeros(len(rows), bool)
    known = np.isfinite(a.image_size[rows, 0]) & np.isfinite(b.image_size[rows, 0])
    coords = (a._store.n_coords()[a._root_rows()[rows]]
              + b._store.n_coords()[b._root_rows()[rows]])
    return known & (coords > MASK_IOU_MIN_COORDINATES) & (a.is_polygon[rows] | b.is_polygon[rows])


def _mask_overlap(a: Shapes, b: Shapes, rows: np.ndarray):
    """Pixels of the intersection and of each mask for the pairs ``rows``, and the grid
    size in pixels, on the grid of each pair (the finer of the two images' in each
    direction)."""
    grid = np.ceil(np.maximum(a.image_size[rows], b.image_size[rows])).astype(np.int64)
    sizes, which = np.unique(grid, axis=0, return_inverse=True)
    which = which.ravel()
    ra, rb = a._root_rows()[rows], b._root_rows()[rows]
    inter = np.zeros(len(rows), np.int64)
    area_a = np.zeros(len(rows), np.int64)
    area_b = np.zeros(len(rows), np.int64)
    for k, (width, height) in enumerate(sizes.tolist()):  # one pass per distinct grid
        sel = np.flatnonzero(which == k)
        if a._store is b._store:
            block, pos = a._store.masks_on(width, height, np.concatenate([ra[sel], rb[sel]]))
            pa, pb = pos[:len(sel)], pos[len(sel):]
        else:
            block_a, pa = a._store.masks_on(width, height, ra[sel])
            block_b, pb = b._store.masks_on(width, height, rb[sel])
            block, pb = Masks.concat([block_a, block_b]), pb + len(block_a)
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
    if shapes.image_size is None or not len(shapes) or not shapes.is_polygon.any():
        return False
    coords = shapes._store.n_coords()[shapes._root_rows()]
    return bool(2 * coords.max() > MASK_IOU_MIN_COORDINATES)


def uses_mask_iou(a: Shapes, b: Shapes) -> np.ndarray:
    """Which pairs get the mask IoU rather than the exact overlay.

    The rule of the module docstring: a pair involving a polygon, both image sizes
    known, and more than :data:`MASK_IOU_MIN_COORDINATES` coordinates in the two shapes
    together. (:func:`iou` also falls back to the overlay where the bounding boxes are
    disjoint, IoU 0 either way, and where both masks are empty.)

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)

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
    _check_pair(a, b, "uses_mask_iou")
    return _mask_rule(a, b, np.arange(len(a)))


def iou_upper_bound(a: Shapes, b: Shapes) -> np.ndarray:
    """An upper bound of :func:`iou` for every pair, without overlay or rasterization.

    Box-box pairs: their IoU. Pairs with a polygon: ``min(I, A, B) / (A + B - min(I, A,
    B))`` with ``I`` the intersection of the bounding boxes and ``A, B`` the areas; for
    pairs given by masks (:func:`uses_mask_iou`) the largest value the mask IoU can take
    when each mask is within the band bound of the module docstring of its shape (and
    within the pixel centres of the boxes' intersection), so that the bound holds for
    whichever IoU :func:`iou` returns.

    Parameters
    ----------
    a, b : Shapes
        Aligned, of equal length.

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        In [0, 1]; 0 where a shape is missing.

    Examples
    --------
    >>> a = Shapes([[0, 0, 2, 2]])
    >>> iou_upper_bound(a, Shapes([[1, 0, 3, 2]])).round(4).tolist()
    [0.3333]
    """
    _check_pair(a, b, "iou_upper_bound")
    ba, bb = a.boxes, b.boxes
    iw = np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0])
    ih = np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1])
    inter = np.maximum(iw, 0) * np.maximum(ih, 0)
    area_a, area_b = areas(a), areas(b)
    poly_pair = a.is_polygon | b.is_polygon
    top = np.where(poly_pair, np.minimum(inter, np.minimum(area_a, area_b)), inter)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = np.nan_to_num(top / (area_a + area_b - top))
    rows = np.flatnonzero(poly_pair & (inter > 0))
    rows = rows[_mask_rule(a, b, rows)]
    if rows.size:
        bound[rows] = np.maximum(bound[rows], mask_iou_upper_bound(a.take(rows), b.take(rows)))
    return bound


def mask_iou_upper_bound(a: Shapes, b: Shapes) -> np.ndarray:
    """An upper bound of the mask IoU of every pair on its grid (module docstring).

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
    numpy.ndarray of float64, shape (n,)

    Examples
    --------
    >>> import shapely
    >>> disc = shapely.Point(0.5, 0.5).buffer(0.25, quad_segs=200)
    >>> a = Shapes([disc.bounds], [disc], [[100, 100]])
    >>> b = Shapes([(0.3, 0.3, 0.35, 0.35)], None, [[100, 100]])  # a 5 x 5 pixel box
    >>> bound = mask_iou_upper_bound(a, b)
    >>> bool(bound[0] >= iou(a, b)[0]), bool(bound[0] < 0.2)
    (True, True)
    """
    _check_pair(a, b, "mask_iou_upper_bound")
    if a.image_size is None or b.image_size is None:
        raise ParameterError("mask_iou_upper_bound needs the image size of both sides")
    grid = np.ceil(np.maximum(a.image_size, b.image_size))
    W, H = grid[:, 0], grid[:, 1]
    ba, bb = a.boxes, b.boxes

    def centres(lo, hi, n):  # pixel centres c + 0.5 in [lo * n, hi * n]
        return np.maximum(np.floor(hi * n - 0.5) - np.ceil(lo * n - 0.5) + 1, 0)

    shared = (centres(np.maximum(ba[:, 0], bb[:, 0]), np.minimum(ba[:, 2], bb[:, 2]), W)
              * centres(np.maximum(ba[:, 1], bb[:, 1]), np.minimum(ba[:, 3], bb[:, 3]), H))

    def pixels(s):  # (fewest, most) pixels the mask of each shape can have
        lx, ly, rings = (v[s._root_rows()] for v in s._store.outline())
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


def _iou_union(a: Shapes, b: Shapes):
    inter, area_a, area_b, masked, mask_value = _overlap(a, b)
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
    with known image sizes, the mask IoU on the image's pixel grid, by the rule of the
    module docstring (:func:`uses_mask_iou`). Polygons are expected to be valid
    (``validate`` repairs them); where GEOS refuses an intersection of invalid input
    the pairs are repaired with :func:`shapely.make_valid` and retried.

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
    _check_pair(a, b, "iou")
    return _iou_union(a, b)[0]


def areas_inside(shapes: Shapes, rects) -> np.ndarray:
    """Area of each shape inside the axis-aligned rectangle of its row.

    Exact up to rounding, in numpy (:mod:`iaa_frames.clip`), at a few operations per
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
        out[rows] = clipped_areas(shapes._store.ring_edges(), shapes._root_rows()[rows],
                                  rects[rows])
    return out


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
        area[rows] = _polygon_areas(shapes, rows)
    return area


def _hull_terms(a: Shapes, b: Shapes, rows: np.ndarray, union: np.ndarray):
    """Enclosing area C and the union U' of the GIoU penalty (C - U') / C for polygons.

    C is the area of the convex hull of the two shapes together (= of their union). U' is
    the area of the union of the two shapes' own convex hulls, so that the penalty
    measures the empty space *between* the shapes, not their concavities: a concave
    polygon or one with a hole then has GIoU 1 with itself. For two convex shapes U' is
    the plain union, as in Rezatofighi et al. The hulls are computed once per shape.
    """
    hull_a, area_ha = a._store.hulls(a._root_rows()[rows])
    hull_b, area_hb = b._store.hulls(b._root_rows()[rows])
    n = len(rows)
    both = shapely.geometrycollections(np.column_stack([hull_a, hull_b]).ravel(),
                                       indices=np.repeat(np.arange(n), 2))
    enclosing = shapely.area(shapely.convex_hull(both))
    convex = np.isclose(area_ha, areas(a.take(rows)), rtol=1e-12, atol=0) & np.isclose(
        area_hb, areas(b.take(rows)), rtol=1e-12, atol=0)
    hull_union = np.asarray(union, dtype=np.float64).copy()
    nc = np.flatnonzero(~convex)
    if nc.size:
        shared = shapely.area(shapely.intersection(hull_a[nc], hull_b[nc]))
        hull_union[nc] = area_ha[nc] + area_hb[nc] - shared
    return enclosing, hull_union


def giou(a: Shapes, b: Shapes, *, known_iou: np.ndarray | None = None) -> np.ndarray:
    """Generalized IoU (Rezatofighi et al., CVPR 2019) of each pair, in [-1, 1].

    ``GIoU = IoU - (C - U) / C`` with ``U`` the area of the union and ``C`` the area of
    the smallest enclosing axis-aligned box for box-box pairs, and of the convex hull
    of the union for pairs involving a polygon (as in DESIGN §3). For polygons ``U`` in
    the penalty is the union of the two shapes' convex hulls, so that concavities and
    holes are not penalized: GIoU of any shape with itself is 1 (for convex shapes this
    is the plain union). Note the two
    definitions of ``C`` differ for boxes that are not aligned on an axis, so a
    polygon that happens to be a box can get a higher GIoU than the same box.

    ``IoU`` is :func:`iou` (the mask IoU for detailed polygons, see the module
    docstring); the penalty always uses the exact areas and hulls, and for pairs given
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
    _check_pair(a, b, "giou")
    if known_iou is None:
        value, union, masked = _iou_union(a, b)
        if masked.size:
            union[masked] = ((areas(a.take(masked)) + areas(b.take(masked)))
                             / (1.0 + value[masked]))
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
    rows = np.flatnonzero((a.is_polygon | b.is_polygon) & np.isfinite(value))
    if rows.size:
        enclosing[rows], union[rows] = _hull_terms(a, b, rows, union[rows])
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = enclosing - union
        slack /= enclosing
    np.maximum(slack, 0.0, out=slack, where=~np.isnan(slack))
    value -= slack
    return value


# --------------------------------------------------------------------------------------
# Distances (0 = identical)
# --------------------------------------------------------------------------------------


def giou_distance(a: Shapes, b: Shapes, *, known_iou: np.ndarray | None = None) -> np.ndarray:
    """``(1 - GIoU) / 2``, in [0, 1]; the default distance (registry name ``"giou"``).

    Examples
    --------
    >>> a = Shapes([[0, 0, 1, 1], [0, 0, 1, 1]])
    >>> b = Shapes([[0, 0, 1, 1], [1, 0, 2, 1]])
    >>> giou_distance(a, b).tolist()  # identical; touching (GIoU 0)
    [0.0, 0.5]
    """
    _check_pair(a, b, "giou_distance")
    return (1.0 - giou(a, b, known_iou=known_iou)) / 2.0


def iou_distance(a: Shapes, b: Shapes, *, known_iou: np.ndarray | None = None) -> np.ndarray:
    """``1 - IoU``, in [0, 1], with the IoU of :func:`iou` (registry name ``"iou"``).

    Examples
    --------
    >>> iou_distance(Shapes([[0, 0, 2, 2]]), Shapes([[0, 0, 2, 1]])).tolist()
    [0.5]
    """
    _check_pair(a, b, "iou_distance")
    return 1.0 - (iou(a, b) if known_iou is None else np.asarray(known_iou, dtype=np.float64))


def l2_distance(a: Shapes, b: Shapes) -> np.ndarray:
    """Euclidean distance between the ``(x0, y0, x1, y1)`` vectors (registry ``"l2"``).

    For polygons the vector is their bounds. Coordinates are those held by the
    :class:`Shapes` (normalized by :meth:`Shapes.from_frame` where the image size is
    known).

    Examples
    --------
    >>> l2_distance(Shapes([[0, 0, 1, 1]]), Shapes([[0, 0, 4, 5]])).tolist()
    [5.0]
    """
    _check_pair(a, b, "l2_distance")
    diff = a.boxes - b.boxes
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def _centroids(shapes: Shapes) -> np.ndarray:
    b = shapes.boxes
    xy = np.column_stack([(b[:, 0] + b[:, 2]) / 2.0, (b[:, 1] + b[:, 3]) / 2.0])
    poly = shapes.is_polygon
    if poly.any():
        c = shapely.centroid(shapes.polygons[poly])
        xy[poly] = np.column_stack([shapely.get_x(c), shapely.get_y(c)])
    return xy


def centroid_distance(a: Shapes, b: Shapes) -> np.ndarray:
    """Euclidean distance between centroids (registry name ``"centroid"``).

    Box centroids are computed analytically, polygon centroids with shapely.

    Examples
    --------
    >>> centroid_distance(Shapes([[0, 0, 2, 2]]), Shapes([[3, 4, 5, 6]])).tolist()
    [5.0]
    """
    _check_pair(a, b, "centroid_distance")
    d = _centroids(a) - _centroids(b)
    return np.hypot(d[:, 0], d[:, 1])


def hausdorff_distance(a: Shapes, b: Shapes) -> np.ndarray:
    """Hausdorff distance as computed by :func:`shapely.hausdorff_distance`.

    Registry name ``"hausdorff"``. Boxes are turned into polygons first. GEOS computes
    the discrete Hausdorff distance from the vertices of each shape to the other shape.

    Examples
    --------
    >>> hausdorff_distance(Shapes([[0, 0, 1, 1]]), Shapes([[0, 0, 2, 1]])).tolist()
    [1.0]
    """
    _check_pair(a, b, "hausdorff_distance")
    return np.asarray(
        shapely.hausdorff_distance(as_polygons(a), as_polygons(b)), dtype=np.float64
    )


def _iou_similarity(a: Shapes, b: Shapes, *, known_iou=None, known_distance=None) -> np.ndarray:
    if known_distance is not None:
        return 1.0 - np.asarray(known_distance, dtype=np.float64)
    return iou(a, b) if known_iou is None else np.asarray(known_iou, dtype=np.float64)


def _giou_similarity(a: Shapes, b: Shapes, *, known_iou=None, known_distance=None) -> np.ndarray:
    # GIoU floored at 0, as in Braylan et al.'s code; np.maximum keeps NaN.
    if known_distance is not None:  # the giou distance is (1 - GIoU) / 2
        return np.maximum(1.0 - 2.0 * np.asarray(known_distance, dtype=np.float64), 0.0)
    return np.maximum(giou(a, b, known_iou=known_iou), 0.0)


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Distance:
    """A registered distance.

    Attributes
    ----------
    name : str
    func : callable
        ``func(a: Shapes, b: Shapes) -> ndarray`` of shape (n,), 0 = identical.
    similarity : callable or None
        Object-pair similarity used by the set-level ``overall`` component
        (DESIGN §5); ``None`` means the best match is the minimum distance.
    bounded : bool
        True when the distance is known to lie in [0, 1].
    reuses_iou : bool
        True when ``func`` and ``similarity`` accept ``known_iou=`` (the pairs' IoU,
        already computed by the matcher) and then skip recomputing intersections, and
        ``similarity`` also accepts ``known_distance=`` (the pairs' distance).

    Examples
    --------
    >>> d = get_distance("iou")
    >>> d(Shapes([[0, 0, 2, 2]]), Shapes([[0, 0, 2, 1]])).tolist()
    [0.5]
    """

    name: str
    func: Callable
    similarity: Callable | None = None
    bounded: bool = False
    reuses_iou: bool = False

    def __call__(self, a: Shapes, b: Shapes, *, known_iou=None) -> np.ndarray:
        """Apply ``func`` and check it returns one float per pair.

        ``known_iou`` (the pairs' IoU, when the caller has it) is passed on to functions
        registered with ``reuses_iou=True``, which then skip recomputing intersections.
        """
        _check_pair(a, b, f"distance {self.name!r}")
        kw = {"known_iou": known_iou} if self.reuses_iou and known_iou is not None else {}
        out = np.asarray(self.func(a, b, **kw), dtype=np.float64)
        if out.shape != (len(a),):
            raise ParameterError(
                f"distance {self.name!r} returned shape {out.shape}; expected ({len(a)},)"
            )
        return out

    def similar(self, a: Shapes, b: Shapes, *, known_iou=None, known_distance=None) -> np.ndarray:
        """The object-pair similarity (requires ``similarity``).

        With ``reuses_iou``, the pairs' known IoU and/or known distance (this
        distance's value for the same pairs) are passed on, and the similarity is then
        derived from them without recomputing any geometry.
        """
        known = {"known_iou": known_iou, "known_distance": known_distance}
        kw = {k: v for k, v in known.items() if v is not None} if self.reuses_iou else {}
        return np.asarray(self.similarity(a, b, **kw), dtype=np.float64)


_REGISTRY: dict[str, Distance] = {}


def register_distance(
    name: str,
    func: Callable,
    *,
    similarity: Callable | None = None,
    bounded: bool = False,
    reuses_iou: bool = False,
    overwrite: bool = False,
) -> Distance:
    """Register ``func(a: Shapes, b: Shapes) -> ndarray`` under ``name``.

    Parameters
    ----------
    name : str
        Registry name (non-empty).
    func : callable
        Vectorized distance over aligned :class:`Shapes`, 0 = identical.
    similarity : callable, optional
        Object-pair similarity for the ``overall`` component; by default the best
        match is the minimum distance.
    bounded : bool, default False
        Whether the distance lies in [0, 1].
    reuses_iou : bool, default False
        Whether ``func`` and ``similarity`` accept ``known_iou=`` (see :class:`Distance`).
    overwrite : bool, default False
        Replace an existing entry of that name instead of raising.

    Returns
    -------
    Distance

    Examples
    --------
    >>> def width_gap(a, b):
    ...     return abs((a.boxes[:, 2] - a.boxes[:, 0]) - (b.boxes[:, 2] - b.boxes[:, 0]))
    >>> d = register_distance("width_gap_example", width_gap, overwrite=True)
    >>> get_distance("width_gap_example")(Shapes([[0, 0, 3, 1]]), Shapes([[0, 0, 1, 1]])).tolist()
    [2.0]
    """
    if not isinstance(name, str) or not name:
        raise ParameterError(f"distance name must be a non-empty string; got {name!r}")
    if not callable(func):
        raise ParameterError(f"distance {name!r}: func must be callable; got {type(func).__name__}")
    if similarity is not None and not callable(similarity):
        raise ParameterError(f"distance {name!r}: similarity must be callable or None")
    if name in _REGISTRY and not overwrite:
        raise ParameterError(
            f"distance {name!r} is already registered; pass overwrite=True to replace it"
        )
    entry = Distance(name, func, similarity, bool(bounded), bool(reuses_iou))
    _REGISTRY[name] = entry
    return entry


def get_distance(name_or_callable) -> Distance:
    """Look up a distance by name, or wrap a user callable.

    Parameters
    ----------
    name_or_callable : str, Distance or callable
        A registered name, a :class:`Distance` (returned as is), or a callable
        ``f(a: Shapes, b: Shapes) -> ndarray``, wrapped with its ``__name__``, no
        similarity and ``bounded=False``.

    Returns
    -------
    Distance

    Raises
    ------
    ParameterError
        For an unknown name (the message lists the valid names) or another type.

    Examples
    --------
    >>> get_distance("giou").bounded
    True
    >>> get_distance(lambda a, b: a.boxes[:, 0] - b.boxes[:, 0]).name
    '<lambda>'
    """
    if isinstance(name_or_callable, Distance):
        return name_or_callable
    if isinstance(name_or_callable, str):
        try:
            return _REGISTRY[name_or_callable]
        except KeyError:
            raise ParameterError(
                f"unknown distance {name_or_callable!r}; valid names are "
                f"{', '.join(available_distances())}, or pass a callable f(a, b)"
            ) from None
    if callable(name_or_callable):
        name = getattr(name_or_callable, "__name__", None) or repr(name_or_callable)
        return Distance(name, name_or_callable, None, False)
    raise ParameterError(
        f"distance must be a name or a callable; got {type(name_or_callable).__name__}"
    )


def available_distances() -> list[str]:
    """Names of the registered distances, in registration order.

    Examples
    --------
    >>> available_distances()[:5]
    ['giou', 'iou', 'l2', 'centroid', 'hausdorff']
    """
    return list(_REGISTRY)


register_distance("giou", giou_distance, similarity=_giou_similarity, bounded=True,
                  reuses_iou=True)
register_distance("iou", iou_distance, similarity=_iou_similarity, bounded=True,
                  reuses_iou=True)
register_distance("l2", l2_distance)
register_distance("centroid", centroid_distance)
register_distance("hausdorff", hausdorff_distance)
