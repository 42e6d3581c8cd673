"""The container of annotated objects that every geometric function takes: :class:`Shapes`.

(Over 400 lines as one class: most are the docstrings and examples of its methods.)

A :class:`Shapes` holds an ``(n, 4)`` array of boxes and, optionally, an ``(n,)`` object
array of shapely polygons (``None`` where the row is a plain box), the ``(n, 2)`` image
size of each row and the parameters of the rows of other geometry kinds
(:mod:`iaa_frames.geometry.kinds`; their boxes are their bounds). Functions of pairs take two aligned containers ``a`` and ``b`` of equal
length and return one value per pair ``(a[i], b[i])`` (:func:`check_aligned`). Missing
input (NaN box, no geometry) gives NaN, in the style of shapely.

The quantities of single shapes that cost time (areas, convex hulls, coordinate counts,
outline lengths, ring edges, masks) are public methods of the container, computed once per
shape and shared by every :meth:`Shapes.take` of it
(:mod:`iaa_frames.geometry.shape_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely

from iaa_frames.errors import ParameterError, SchemaError

from .hull_support import enclosing_lower_bound
from .kinds.box import BOX_COLUMNS, box_intersection
from .kinds.polygon import scale_geometries
from .kinds.registry import get_kind, parametric_kinds
from .raster import Masks
from .shape_cache import ShapeCache

__all__ = ["Shapes", "as_polygons", "check_aligned"]

_BOX_COLUMNS = list(BOX_COLUMNS)


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
        mask IoU of detailed polygons (:mod:`iaa_frames.geometry.mask_rule`); :meth:`from_frame` sets
        it. ``None``: unknown for every row, so every IoU is the exact overlay.
    params : dict {str: array_like of shape (n, k)}, optional
        The parameters of the rows of parametric geometry kinds
        (:mod:`iaa_frames.geometry.kinds`), by kind name: one row per shape, NaN on the rows
        of other kinds. The boxes of those rows must be their bounds
        (:meth:`from_frame` ensures it). ``None``: no such row.
    payloads : dict {str: Ragged}, optional
        The variable-length data of the rows of kinds that keep one
        (:attr:`~iaa_frames.geometry.kinds.Kind.payload`: a volume's voxel runs), by kind
        name, one row per shape (empty on other rows). ``None``: no such kind.

    Notes
    -----
    Convex hulls, areas, coordinate counts, outlines, ring edges and masks of the shapes
    are computed when first needed and kept, shared by every :meth:`take` of the same
    container (a :class:`Shapes` is immutable, so they cannot go stale).

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
    params: dict | None = None
    payloads: dict | None = None
    _cache: ShapeCache = field(init=False, repr=False, compare=False)
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
        if self.params is not None:
            object.__setattr__(self, "params", _check_params(self.params, boxes.shape[0]))
        if self.payloads is not None:
            object.__setattr__(self, "payloads", _check_payloads(self.payloads, boxes.shape[0]))
        object.__setattr__(self, "_cache", ShapeCache(self.boxes, self.polygons, self.params))
        object.__setattr__(self, "_rows", None)

    # -- constructors -----------------------------------------------------------------

    @classmethod
    def from_geometries(cls, geometries) -> Shapes:
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
    def from_frame(cls, df, *, normalize: bool = True, validated: bool = False) -> Shapes:
        """Build from the rows of a validated tidy frame (:func:`iaa_frames.frame.schema.validate`).

        One row of the result per row of ``df``, in order; coverage rows (NaN
        coordinates, no geometry) become missing shapes, so their distances are NaN.
        Pass only the object rows if you do not want them.

        Parameters
        ----------
        df : pandas.DataFrame
            Needs ``x0, y0, x1, y1``; uses ``geometry`` (polygons, ``None`` on boxes),
            ``width, height`` (image size in pixels) and the columns of registered
            parametric kinds (:func:`iaa_frames.geometry.kinds.parametric_kinds`) when
            present.
        normalize : bool, default True
            Divide x by ``width`` and y by ``height`` on rows where both are known
            (finite and > 0), and keep the size as :attr:`image_size`. Other rows keep
            pixel coordinates (and an unknown image size).
        validated : bool, default False
            ``df`` is :func:`~iaa_frames.frame.schema.validate`'s output, every polygon
            of it valid: the polygons and their scaled copies are then taken as valid
            surfaces for the exact shared area (:meth:`surface_index`) without checking
            them again. Scaling keeps a valid polygon valid but for the rounding of its
            coordinates, which can at most make a vertex touch or cross an edge by an
            ulp, and move the shared area by as little (the polygons of the real LVIS
            subset, of the samples and of 200 simulated images were all valid after
            scaling).

        Returns
        -------
        Shapes
            For polygon rows (and rows of other kinds) ``boxes`` holds the bounds of the
            (scaled) shape.

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

        params, payloads = {}, {}
        for kind in parametric_kinds(df.columns):  # rows of other kinds (a polygon): NaN
            p = np.array(kind.read(df), dtype=np.float64)
            p[has_poly | ~np.isfinite(p).all(axis=1)] = np.nan
            if not np.isnan(p).all():
                params[kind.name] = p
                if kind.payload is not None:
                    payloads[kind.name] = kind.read_payload(df)
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
                    geoms[rows] = scale_geometries(geoms[rows], sx[rows], sy[rows])
            for name, p in params.items():
                rows = np.flatnonzero(np.isfinite(p).all(axis=1) & known)
                if rows.size:
                    p = p.copy()
                    p[rows] = get_kind(name).normalize(p[rows], sx[rows], sy[rows])
                    params[name] = p

        if has_poly.any():
            boxes = boxes.copy()
            boxes[has_poly] = shapely.bounds(geoms[has_poly])
        else:
            geoms = None
        for name, p in params.items():
            rows = np.flatnonzero(np.isfinite(p).all(axis=1))
            boxes = boxes.copy()
            boxes[rows] = get_kind(name).bounds(p[rows])
        out = cls(boxes, geoms, size, params or None, payloads or None)
        if validated:
            out._cache.surfaces_are_valid()
        return out

    # -- container protocol ---------------------------------------------------------------

    def __len__(self) -> int:
        return self.boxes.shape[0]

    def __repr__(self) -> str:
        kinds = "".join(f", {k}={int(v.sum())}" for k, v in self.kind_rows().items())
        return f"Shapes(n={len(self)}, polygons={int(self.is_polygon.sum())}{kinds})"

    @cached_property
    def is_polygon(self) -> np.ndarray:
        """Boolean mask, True where the row holds a polygon rather than a plain box."""
        if self.polygons is None:
            return np.zeros(len(self), dtype=bool)
        return shapely.is_geometry(self.polygons)

    @cached_property
    def is_box(self) -> np.ndarray:
        """Boolean mask, True where the row is a plain box (nor polygon nor another kind):
        the rows whose IoU with another box is the closed form of their boxes.

        Examples
        --------
        >>> import shapely
        >>> Shapes.from_geometries([shapely.box(0, 0, 1, 1), None]).is_box.tolist()
        [False, True]
        """
        out = ~self.is_polygon
        for rows in self.kind_rows().values():
            out &= ~rows
        return out

    def kind_rows(self) -> dict:
        """Per parametric kind present (by name), the boolean mask of its rows.

        Examples
        --------
        >>> Shapes([[0, 0, 1, 1]]).kind_rows()
        {}
        """
        if not self.params:
            return {}
        rows = self.__dict__.get("_kind_rows")
        if rows is None:
            rows = {name: np.isfinite(p).all(axis=1) for name, p in self.params.items()}
            self.__dict__["_kind_rows"] = rows
        return rows

    def take(self, indices) -> Shapes:
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
        if indices.dtype == bool:
            rows = lambda v: v[indices]  # noqa: E731
        else:  # ``take`` gathers rows of a 2-D array several times faster than indexing
            rows = lambda v: v.take(indices, axis=0)  # noqa: E731
        polygons = None if self.polygons is None else rows(self.polygons)
        size = None if self.image_size is None else rows(self.image_size)
        params = None if self.params is None else {k: rows(v) for k, v in self.params.items()}
        payloads = (
            None
            if self.payloads is None
            else {k: v.take(indices) for k, v in self.payloads.items()}
        )
        # rows of a validated container need no validation again
        out = object.__new__(Shapes)
        for name, value in (
            ("boxes", rows(self.boxes)),
            ("polygons", polygons),
            ("image_size", size),
            ("params", params),
            ("payloads", payloads),
            ("_rows", None),
        ):
            object.__setattr__(out, name, value)
        object.__setattr__(out, "_cache", ShapeCache(out.boxes, out.polygons, out.params))
        if self.polygons is not None or self.params is not None:
            # share the per-shape cache of the container this one was taken from (boxes
            # alone have nothing costly to cache: no row map for them)
            object.__setattr__(out, "_cache", self._cache)
            object.__setattr__(out, "_rows", self._cache_rows()[indices])
        return out

    def _cache_rows(self) -> np.ndarray:
        """Row of each shape in the container that owns the cache."""
        if self._rows is None:
            object.__setattr__(self, "_rows", np.arange(len(self)))
        return self._rows

    # -- moved copies (aligned chance units, iaa_frames.core.chance.aligned) ---------------------

    def translated(self, dx, dy) -> Shapes:
        """Every shape moved by ``(dx[i], dy[i])`` by its kind's
        :meth:`~iaa_frames.geometry.kinds.Kind.translate` (boxes, polygons and the
        parametric kinds that implement it); a row of a kind that cannot be translated
        becomes a missing shape (NaN box). Boxes of polygons and of parametric kinds are
        the bounds of the moved shapes.

        Parameters
        ----------
        dx, dy : array_like of float, shape (n,)

        Returns
        -------
        Shapes

        Examples
        --------
        >>> import shapely
        >>> s = Shapes([[0, 0, 1, 1], [0, 0, 2, 2]], [None, shapely.box(0, 0, 2, 2)])
        >>> t = s.translated([1.0, 0.5], [2.0, 0.0])
        >>> t.boxes.tolist(), float(t.polygons[1].area)
        ([[1.0, 2.0, 2.0, 3.0], [0.5, 0.0, 2.5, 2.0]], 4.0)
        """
        n = len(self)
        dx = np.broadcast_to(np.asarray(dx, dtype=np.float64), (n,))
        dy = np.broadcast_to(np.asarray(dy, dtype=np.float64), (n,))
        boxes = get_kind("box").translate(self.boxes, dx, dy)
        polygons = None
        if self.polygons is not None:
            polygons = self.polygons.copy()
            rows = np.flatnonzero(self.is_polygon)
            if rows.size:
                polygons[rows] = get_kind("polygon").translate(polygons[rows], dx[rows], dy[rows])
                boxes[rows] = shapely.bounds(polygons[rows])
        return self._with_kinds(
            boxes,
            polygons,
            lambda kind, p, r: kind.translate(p, dx[r], dy[r]),
            lambda kind, y, r: kind.translate_payload(y, dx[r], dy[r]),
        )

    def fitted(self, boxes) -> Shapes:
        """The shapes of kinds that are aligned by their box
        (:attr:`~iaa_frames.geometry.kinds.Kind.chance_alignment` ``"box"``: keypoints)
        mapped into ``boxes[i]`` by :meth:`~iaa_frames.geometry.kinds.Kind.fit_to_boxes`;
        every other row a missing shape (NaN box).

        Parameters
        ----------
        boxes : array_like of float, shape (n, 4)

        Returns
        -------
        Shapes

        Examples
        --------
        >>> Shapes([[0, 0, 1, 1]]).fitted([[2, 2, 3, 3]]).boxes.tolist()  # a box: no
        [[nan, nan, nan, nan]]
        """
        target = np.asarray(boxes, dtype=np.float64).reshape(len(self), 4)
        out = np.full((len(self), 4), np.nan)

        def fit(kind, p, r):
            return kind.fit_to_boxes(p, target[r]) if kind.chance_alignment == "box" else None

        return self._with_kinds(out, None, fit)

    def _with_kinds(self, boxes, polygons, move, move_payload=None) -> Shapes:
        """A container of ``boxes``, ``polygons`` and the parameters of every parametric
        kind's rows replaced by ``move(kind, params, rows)`` (None: missing shapes), their
        boxes the bounds of the result; the payloads of those rows replaced by
        ``move_payload(kind, payload, rows)`` (kept when it is None)."""
        params, payloads = None, None
        if self.payloads:
            payloads = dict(self.payloads)
            if move_payload is not None:
                for name, y in self.payloads.items():
                    r = np.flatnonzero(self.kind_rows().get(name, np.zeros(len(self), bool)))
                    if r.size:
                        moved = move_payload(get_kind(name), y.take(r), r)
                        payloads[name] = y.replaced(r, moved)
        if self.params:
            params = {}
            for name, p in self.params.items():
                p = p.copy()
                rows = self.kind_rows()[name]
                r = np.flatnonzero(rows)
                kind = get_kind(name)
                moved = move(kind, p[r], r) if r.size else p[r]
                if moved is None:
                    p[r] = np.nan
                    boxes[r] = np.nan
                else:
                    p[r] = moved
                    boxes[r] = kind.bounds(moved) if r.size else boxes[r]
                params[name] = p
        return Shapes(boxes, polygons, self.image_size, params, payloads)

    # -- shapely geometries ---------------------------------------------------------------

    def polygons_at(self, rows: np.ndarray) -> np.ndarray:
        """The shapely polygon of each row at ``rows``: its polygon, or the box as one.

        Parameters
        ----------
        rows : ndarray of int

        Returns
        -------
        numpy.ndarray of object, shape (len(rows),)
            ``None`` where the shape is missing (NaN box and no polygon).

        Examples
        --------
        >>> s = Shapes([[0, 0, 2, 3], [1, 1, 2, 2]])
        >>> [p.bounds for p in s.polygons_at(np.array([1]))]
        [(1.0, 1.0, 2.0, 2.0)]
        """
        out = np.empty(rows.size, dtype=object)
        is_poly = self.is_polygon[rows]
        if is_poly.any():
            out[is_poly] = self.polygons[rows[is_poly]]
        is_box = self.is_box[rows]
        box_rows = rows[is_box]
        if box_rows.size:
            b = self.boxes[box_rows]
            # shapely.box returns None for NaN coordinates
            out[is_box] = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
        for name, kind_rows in self.kind_rows().items():
            sel = kind_rows[rows]
            if sel.any():
                out[sel] = get_kind(name).to_polygons(self.params[name][rows[sel]])
        return out

    def surface_index(self, rows: np.ndarray):
        """Where the shape of each row at ``rows`` is in :meth:`ring_edges`, for
        :func:`~iaa_frames.geometry.shared_area.shared_areas`: its shape there for valid
        polygons and multipolygons, ``-1`` for plain boxes (their box is their shape), and
        whether the row is either (the others: missing shapes, shapes of parametric
        kinds, invalid polygons and other geometries need a GEOS overlay).

        Returns
        -------
        index : ndarray of int64, shape (len(rows),)
        ok : ndarray of bool, shape (len(rows),)

        Examples
        --------
        >>> import shapely
        >>> bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
        >>> s = Shapes([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 2, 2]],
        ...            [None, shapely.box(0, 0, 1, 1), bowtie])
        >>> index, ok = s.take([2, 1, 0]).surface_index(np.array([0, 1, 2]))
        >>> index.tolist(), ok.tolist()
        ([2, 1, -1], [False, True, True])
        """
        rows = np.asarray(rows, dtype=np.int64)
        index = self._cache_rows()[rows]
        ok = self.is_box[rows] & np.isfinite(self.boxes[rows]).all(axis=1)
        poly = np.flatnonzero(self.is_polygon[rows])
        if poly.size:
            ok[poly] = self._cache.valid_surfaces(index[poly])
        return np.where(self.is_box[rows], -1, index), ok

    def kind_areas(self, rows: np.ndarray, area: np.ndarray) -> None:
        """Write into ``area`` (aligned with ``rows``) the exact area of the rows of
        parametric kinds among ``rows`` (nothing without such rows)."""
        for name, kind_rows in self.kind_rows().items():
            sel = kind_rows[rows]
            if sel.any():
                area[sel] = get_kind(name).areas(self.params[name][rows[sel]])

    # -- per-shape quantities, computed once (see iaa_frames.geometry.shape_cache) -------

    def n_coords(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Coordinates of each shape: every ring, closing points included; a box counts 5.

        Parameters
        ----------
        rows : ndarray of int, optional
            The rows wanted; all by default.

        Examples
        --------
        >>> import shapely
        >>> Shapes.from_geometries([shapely.Point(0, 0).buffer(1, quad_segs=2), None]).n_coords()
        array([9, 5])
        """
        rows = self._cache_rows() if rows is None else self._cache_rows()[rows]
        return self._cache.n_coords()[rows]

    def polygon_areas(self, rows: np.ndarray) -> np.ndarray:
        """Exact area of the polygons at ``rows`` (which must all be polygon rows).

        Examples
        --------
        >>> import shapely
        >>> Shapes.from_geometries([shapely.box(0, 0, 2, 3)]).polygon_areas(np.array([0]))
        array([6.])
        """
        return self._cache.polygon_areas(self._cache_rows()[rows])

    def hulls(self, rows: np.ndarray):
        """Convex hull of each shape at ``rows`` (boxes too) and its area.

        Returns
        -------
        hulls : ndarray of object
        area : ndarray of float64

        Examples
        --------
        >>> import shapely
        >>> L = shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
        >>> hull, area = Shapes.from_geometries([L]).hulls(np.array([0]))
        >>> area.tolist()
        [3.5]
        """
        return self._cache.hulls(self._cache_rows()[rows])

    def hull_edges(self, rows: np.ndarray):
        """The oriented edges of the convex hulls of the shapes at ``rows`` (boxes too),
        computed once per shape, and the shape of each row's hull in them, as
        :func:`~iaa_frames.geometry.shared_area.shared_areas` takes them.

        Returns
        -------
        edges : iaa_frames.geometry.clip.RingEdges
        index : ndarray of int64, shape (len(rows),)

        Examples
        --------
        >>> import shapely
        >>> L = shapely.Polygon([(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)])
        >>> edges, index = Shapes.from_geometries([L]).hull_edges(np.array([0, 0]))
        >>> index.tolist(), int(edges.offset[1])  # the hull has five edges
        ([0, 0], 5)
        """
        return self._cache.hull_edges(self._cache_rows()[np.asarray(rows, np.int64)])

    def enclosing(self, other: Shapes, rows: np.ndarray) -> np.ndarray:
        """Area of the convex hull of ``self[k]`` and ``other[k]`` together, for each ``k``
        in ``rows`` (GIoU's enclosing area), computed once per pair of shapes when both
        containers come from the same one.

        Examples
        --------
        >>> import shapely
        >>> s = Shapes.from_geometries([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)])
        >>> s.take([0]).enclosing(s.take([1]), np.array([0])).tolist()
        [3.0]
        """
        rows = np.asarray(rows, dtype=np.int64)
        if self._cache is other._cache:
            return self._cache.enclosing(self._cache_rows()[rows], other._cache_rows()[rows])
        hull_a, _ = self.hulls(rows)
        hull_b, _ = other.hulls(rows)
        both = shapely.geometrycollections(
            np.column_stack([hull_a, hull_b]).ravel(), indices=np.repeat(np.arange(len(rows)), 2)
        )
        return shapely.area(shapely.convex_hull(both))

    def enclosing_lower_bound(self, other: Shapes, rows: np.ndarray) -> np.ndarray:
        """A lower bound of :meth:`enclosing` for each ``k`` in ``rows``, in numpy from the
        support points of the two hulls and their areas, computed once per shape
        (:mod:`iaa_frames.geometry.hull_support`): no shapely call per pair.

        Examples
        --------
        >>> import shapely
        >>> s = Shapes.from_geometries([shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)])
        >>> low = s.take([0]).enclosing_lower_bound(s.take([1]), np.array([0]))
        >>> bool(low[0] <= 3.0), round(float(low[0]), 6)
        (True, 3.0)
        """
        rows = np.asarray(rows, dtype=np.int64)
        ba, bb = self.boxes[rows], other.boxes[rows]
        lo, hi = np.minimum(ba[:, :2], bb[:, :2]), np.maximum(ba[:, 2:], bb[:, 2:])
        return enclosing_lower_bound(
            self._cache.support(self._cache_rows()[rows]),
            other._cache.support(other._cache_rows()[rows]),
            (lo + hi) / 2,
            (hi - lo).max(axis=1) / 2,
            (self.hulls(rows)[1], other.hulls(rows)[1], box_intersection(ba, bb)),
        )

    def outline(self):
        """Per row: the sums of ``|dx|`` and of ``|dy|`` along every ring of the shape, and
        its number of rings (a box: its perimeter, one ring).

        Returns
        -------
        lx, ly, rings : ndarray of float64, shape (n,)

        Examples
        --------
        >>> import shapely
        >>> donut = shapely.box(0, 0, 4, 2).difference(shapely.box(1, 0.5, 2, 1.5))
        >>> lx, ly, rings = Shapes.from_geometries([donut]).outline()
        >>> lx.tolist(), ly.tolist(), rings.tolist()
        ([10.0], [6.0], [2.0])
        """
        rows = self._cache_rows()
        return tuple(v[rows] for v in self._cache.outline())

    def ring_edges(self):
        """The oriented ring edges of the polygons, and where each row's shape is in them.

        Returns
        -------
        edges : iaa_frames.geometry.clip.RingEdges
            Shared by every container taken from the same one (plain boxes have none).
        index : ndarray of int, shape (n,)
            The shape of ``edges`` holding the rings of each row, as
            :func:`iaa_frames.geometry.clip.clipped_areas` takes it.

        Examples
        --------
        >>> import shapely
        >>> edges, index = Shapes.from_geometries([shapely.box(0, 0, 1, 1)]).ring_edges()
        >>> edges.offset.tolist(), index.tolist()
        ([0, 4], [0])
        """
        return self._cache.ring_edges(), self._cache_rows()

    def area_grid(self):
        """The area of each polygon in the cells of a grid over its bounding box, and where
        each row's shape is in it.

        Returns
        -------
        grid : iaa_frames.geometry.area_grid.AreaGrid
            Shared by every container taken from the same one (plain boxes have none).
        index : ndarray of int, shape (n,)
            The shape of ``grid`` of each row (its grid is ``grid.row[index]``), as
            :func:`iaa_frames.geometry.area_grid.grid_bound` takes it.

        Examples
        --------
        >>> import shapely
        >>> grid, index = Shapes.from_geometries([shapely.box(0, 0, 1, 1)]).area_grid()
        >>> float(grid.cells[grid.row[index[0]]].sum().round(9))
        1.0
        """
        return self._cache.area_grid(), self._cache_rows()

    def pair_masks(self, other: Shapes, rows: np.ndarray, width: int, height: int):
        """Masks of ``self[rows]`` and ``other[rows]`` on one ``width`` x ``height`` grid
        over the normalized image, rasterized once per shape and grid.

        Returns
        -------
        block : iaa_frames.geometry.raster.Masks
            Holds the masks of both sides.
        pos_self, pos_other : ndarray of int64, shape (len(rows),)
            Position in ``block`` of the mask of each pair's two shapes.

        Examples
        --------
        >>> s = Shapes([[0, 0, 0.5, 0.5], [0.25, 0.25, 1, 1]])
        >>> block, i, j = s.pair_masks(s.take([1]), np.array([0]), 4, 4)
        >>> block.area[i].tolist(), block.area[j].tolist()
        ([4], [9])
        """
        ra, rb = self._cache_rows()[rows], other._cache_rows()[rows]
        if self._cache is other._cache:
            block, pos = self._cache.masks_on(width, height, np.concatenate([ra, rb]))
            return block, pos[: len(rows)], pos[len(rows) :]
        block_a, pa = self._cache.masks_on(width, height, ra)
        block_b, pb = other._cache.masks_on(width, height, rb)
        return Masks.concat([block_a, block_b]), pa, pb + len(block_a)


def _object_array(values) -> np.ndarray:
    """1-d object array from any sequence, without numpy unpacking geometries."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    values = list(values) if not isinstance(values, np.ndarray) else values
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _check_payloads(payloads, n: int) -> dict:
    """``Shapes.payloads`` checked: a dict of :class:`Ragged` of ``n`` rows by kind name."""
    from .kinds.ragged import Ragged

    if not isinstance(payloads, dict):
        raise ParameterError(f"Shapes.payloads must be a dict {{kind: Ragged}}; got {payloads!r}")
    for name, y in payloads.items():
        if not isinstance(y, Ragged) or len(y) != n:
            raise ParameterError(
                f"Shapes.payloads[{name!r}] must be a Ragged of {n} rows; got {y!r}"
            )
    return payloads


def _check_params(params, n: int) -> dict:
    """The parameters of parametric kinds as float64 ``(n, k)`` arrays, by kind name."""
    if not isinstance(params, dict):
        raise ParameterError(f"Shapes.params must be a dict {{kind: array}}; got {params!r}")
    out = {}
    for name, p in params.items():
        kind = get_kind(name)
        p = np.asarray(p, dtype=np.float64)
        if p.shape != (n, len(kind.columns)):
            raise ParameterError(
                f"Shapes.params[{name!r}] must have shape ({n}, {len(kind.columns)}) "
                f"({', '.join(kind.columns)}); got {p.shape}"
            )
        out[name] = p
    return out


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
    return shapes.polygons_at(np.arange(len(shapes)))


def check_aligned(a, b, name: str) -> None:
    """Raise unless ``a`` and ``b`` are two :class:`Shapes` of equal length.

    Every function of pairs calls it first, with its own ``name`` for the message.

    Raises
    ------
    ParameterError

    Examples
    --------
    >>> check_aligned(Shapes([[0, 0, 1, 1]]), Shapes([[0, 0, 1, 1]]), "iou")
    >>> check_aligned(Shapes([[0, 0, 1, 1]]), Shapes(np.zeros((0, 4))), "iou")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: iou needs aligned Shapes of equal length; got 1 and 0
    """
    if not isinstance(a, Shapes) or not isinstance(b, Shapes):
        raise ParameterError(
            f"{name} needs two Shapes; got {type(a).__name__} and {type(b).__name__}"
        )
    if len(a) != len(b):
        raise ParameterError(
            f"{name} needs aligned Shapes of equal length; got {len(a)} and {len(b)}"
        )
