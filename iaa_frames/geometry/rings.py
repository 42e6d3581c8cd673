"""The vertices of every ring of many polygons, in one array.

Rasterization (:func:`iaa_frames.geometry.raster.rasterize`) and the outline lengths behind
the bound of the mask IoU (:meth:`iaa_frames.geometry.shapes.Shapes.outline`) both walk the
rings of many polygons at once; :func:`ring_vertices` reads them in as few shapely calls as
possible.
"""

from __future__ import annotations

import numpy as np
import shapely

__all__ = ["ring_vertices"]


def ring_vertices(geometries):
    """Vertices of every ring of every polygon: coordinates, ring id, shape index.

    Polygons without holes (the common case) are read in one ``get_coordinates`` call;
    only the others are split into parts and rings (which copies them). Lines and points
    have no ring.

    Parameters
    ----------
    geometries : array_like of shapely geometries (or None), shape (n,)

    Returns
    -------
    xy : ndarray of float, shape (m, 2)
        The vertices, ring after ring (each ring closed: its last vertex is its first).
    ring : ndarray of int, shape (m,)
        A distinct id per ring; the vertices of a ring are consecutive.
    owner : ndarray of int, shape (m,)
        Index of the geometry of each vertex.

    Examples
    --------
    >>> import shapely
    >>> donut = shapely.box(0, 0, 4, 4).difference(shapely.box(1, 1, 2, 2))
    >>> xy, ring, owner = ring_vertices([shapely.box(0, 0, 1, 1), None, donut])
    >>> len(xy), np.unique(ring).size, np.bincount(owner).tolist()
    (15, 3, [5, 0, 10])
    """
    geoms = np.empty(len(geometries), dtype=object)
    geoms[:] = list(geometries) if not isinstance(geometries, np.ndarray) else geometries
    geoms = np.where(shapely.is_geometry(geoms), geoms, None)
    simple = (shapely.get_type_id(geoms) == 3) & (shapely.get_num_interior_rings(geoms) == 0)
    rows = np.flatnonzero(simple)
    xy, idx = shapely.get_coordinates(geoms[rows], return_index=True)
    ring, owner = idx, rows[idx]
    other = np.flatnonzero(~simple & shapely.is_geometry(geoms))
    if other.size:
        parts, part_of = shapely.get_parts(geoms[other], return_index=True)
        # a collection may hold multipolygons: split once more (parts of a polygon are itself)
        parts, sub_of = shapely.get_parts(parts, return_index=True)
        part_of = part_of[sub_of]
        polys = shapely.get_type_id(parts) == 3  # lines and points have no inside
        parts, part_of = parts[polys], part_of[polys]
        rings, ring_of = shapely.get_rings(parts, return_index=True)
        xy2, idx2 = shapely.get_coordinates(rings, return_index=True)
        xy = np.concatenate([xy, xy2])
        ring = np.concatenate([ring, idx2 + len(rows)])
        owner = np.concatenate([owner, other[part_of[ring_of[idx2]]]])
    return xy, ring, owner
