"""The polygon kind: shapely Polygons and MultiPolygons in the ``geometry`` column.

A polygon row keeps its shapely geometry (holes and several parts allowed) in
``Shapes.polygons`` and its bounds in ``x0, y0, x1, y1``.
Its area is shapely's; the area it shares with another shape is exact, from the edges
of both for valid shapes (:mod:`iaa_frames.geometry.shared_area`, the matcher's path) and
a shapely overlay otherwise (:meth:`PolygonKind.intersection`); the bound the matcher uses before an overlay is the
area of each shape inside the other's box, in numpy (:mod:`iaa_frames.geometry.clip`);
detailed polygons of known image size get the COCO mask IoU instead of the overlay
(:mod:`iaa_frames.geometry.kinds.mask`, :mod:`iaa_frames.geometry.mask_rule`); convex hulls
give the GIoU penalty (:mod:`iaa_frames.geometry.giou`). Rasterization is
:func:`iaa_frames.geometry.raster.rasterize`.

Readers express a polygon as rings of pixel vertices, turned into shapely polygons in one
call per file (:mod:`iaa_frames.io.builder`); rotated rectangles become the polygon of
their corners (:mod:`iaa_frames.io.shapes`). :func:`iaa_frames.validate` repairs invalid
polygons with :func:`shapely.make_valid`.

Examples
--------
>>> import shapely
>>> a = np.array([shapely.box(0, 0, 2, 2)]); b = np.array([shapely.box(1, 0, 3, 2)])
>>> POLYGON.intersection(a, b).tolist(), POLYGON.bounds(a).tolist()
([2.0], [[0.0, 0.0, 2.0, 2.0]])
"""

from __future__ import annotations

import numpy as np
import shapely

from .registry import Kind, register_kind

__all__ = ["POLYGON", "PolygonKind", "overlay_areas", "scale_geometries"]


def scale_geometries(geoms: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """Divide x by ``sx[i]`` and y by ``sy[i]`` in geometry ``i``, in one shapely call.

    Examples
    --------
    >>> scale_geometries(np.array([shapely.box(0, 0, 10, 20)]), np.array([10.0]),
    ...                  np.array([20.0]))[0].bounds
    (0.0, 0.0, 1.0, 1.0)
    """
    _, index = shapely.get_coordinates(geoms, return_index=True)
    divisor = np.column_stack([sx, sy])[index]
    return shapely.transform(geoms, lambda coords: coords / divisor)


def overlay_areas(pa: np.ndarray, pb: np.ndarray):
    """The area shared by every pair of geometries, by the shapely overlay.

    Polygons are expected to be valid (:func:`iaa_frames.validate` repairs them); where
    GEOS refuses an intersection of invalid input, the pairs are repaired with
    :func:`shapely.make_valid` and retried once.

    Returns
    -------
    shared : ndarray of float64
    repaired : tuple of two arrays or None
        The repaired geometries (whose areas then replace the areas of the pairs), or
        None when the overlay needed no repair.

    Examples
    --------
    >>> shared, repaired = overlay_areas(np.array([shapely.box(0, 0, 2, 2)]),
    ...                                  np.array([shapely.box(1, 1, 3, 3)]))
    >>> shared.tolist(), repaired
    ([1.0], None)
    """
    try:
        return shapely.area(shapely.intersection(pa, pb)), None
    except shapely.errors.GEOSException:
        pa, pb = shapely.make_valid(pa), shapely.make_valid(pb)
        return shapely.area(shapely.intersection(pa, pb)), (pa, pb)


class PolygonKind(Kind):
    """Shapely polygons; the data of ``m`` polygons is an ``(m,)`` object array.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"geometry": [shapely.box(0, 0, 1, 1), None]})
    >>> POLYGON.rows(df).tolist()
    [True, False]
    """

    name = "polygon"
    columns = ("geometry",)
    native = True
    description = "shapely (Multi)Polygons in the geometry column (exact overlay, or mask IoU)"

    def rows(self, frame) -> np.ndarray:
        """Rows whose ``geometry`` is a shapely geometry."""
        if "geometry" not in frame.columns:
            return np.zeros(len(frame), dtype=bool)
        return shapely.is_geometry(frame["geometry"].to_numpy(dtype=object))

    def read(self, frame) -> np.ndarray:
        """The ``geometry`` column as an object array, ``None`` where it is no geometry."""
        geoms = frame["geometry"].to_numpy(dtype=object)
        return np.where(shapely.is_geometry(geoms), geoms, None)

    def normalize(self, data, sx, sy):
        """:func:`scale_geometries`."""
        return scale_geometries(data, sx, sy)

    def invalid(self, data):
        """Geometries with no area (validation checks the rest: type, finiteness)."""
        return ~(shapely.area(data) > 0)

    def bounds(self, data):
        """:func:`shapely.bounds`."""
        return shapely.bounds(data)

    def areas(self, data):
        """:func:`shapely.area`."""
        return shapely.area(data)

    def intersection(self, data_a, data_b):
        """The shared area of the overlay (:func:`overlay_areas`)."""
        return overlay_areas(data_a, data_b)[0]

    def to_polygons(self, data):
        """The polygons themselves."""
        return data

    chance_alignment = "translate"

    def translate(self, data, dx, dy):
        """Every vertex of geometry ``i`` moved by ``(dx[i], dy[i])``, in one shapely call
        (holes and parts alike; masks are polygons, so they move by whole pixels only
        where the offset is a whole number of pixels).

        Examples
        --------
        >>> moved = POLYGON.translate(np.array([shapely.box(0, 0, 2, 1)]), [1.0], [2.0])
        >>> moved[0].bounds, moved[0].area
        ((1.0, 2.0, 3.0, 3.0), 2.0)
        """
        data = np.asarray(data, dtype=object)
        _, index = shapely.get_coordinates(data, return_index=True)
        shift = np.column_stack([np.asarray(dx, np.float64), np.asarray(dy, np.float64)])[index]
        return shapely.transform(data, lambda coords: coords + shift)

    def centroids(self, data):
        """:func:`shapely.centroid`."""
        c = shapely.centroid(data)
        return np.column_stack([shapely.get_x(c), shapely.get_y(c)])


POLYGON = register_kind(PolygonKind())
