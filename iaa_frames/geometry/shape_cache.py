"""Quantities of single shapes that cost time to compute, computed once and kept.

A :class:`~iaa_frames.geometry.shapes.Shapes` container owns one :class:`ShapeCache`,
shared by every container taken from it (:meth:`Shapes.take`), so a shape's convex hull,
area, coordinate count, outline lengths, ring edges, area grid and masks are computed once
however many pairs it appears in, and the area of the hull of two shapes together once per
pair. Everything here is indexed by *cache rows* (the rows of the
container that owns the cache); :class:`Shapes` maps its own rows to them, and callers use
the methods of :class:`Shapes`, never this class.

The values depend on the shape (or the pair) alone, so they are the same whoever computes
them first and in whatever batch; a lock makes the lazy filling safe when pairs are split over threads.
"""

from __future__ import annotations

import threading

import numpy as np
import shapely

from iaa_frames.arrays import sorted_unique

from .area_grid import AreaGrid
from .clip import RingEdges
from .hull_support import support_points
from .kinds.registry import get_kind
from .raster import Masks, rasterize
from .rings import ring_vertices
from .shared_area import extend_edges

__all__ = ["ShapeCache"]


class ShapeCache:
    """Per-shape quantities of the boxes and polygons of one container, filled lazily.

    Parameters
    ----------
    boxes : ndarray, shape (n, 4)
    polygons : ndarray of object, shape (n,), or None
    params : dict or None
        As held by :class:`~iaa_frames.geometry.shapes.Shapes`: the parameters of the rows
        of parametric kinds, drawn as polygons (:meth:`Kind.to_polygons`) where a
        quantity needs their outline.

    Examples
    --------
    >>> import numpy as np, shapely
    >>> cache = ShapeCache(np.array([[0.0, 0, 2, 2]]), np.array([shapely.box(0, 0, 2, 2)]))
    >>> cache.n_coords().tolist(), cache.polygon_areas(np.array([0])).tolist()
    ([5], [4.0])
    """

    def __init__(self, boxes: np.ndarray, polygons: np.ndarray | None, params=None):
        self.boxes = boxes
        self.polygons = polygons
        self.params = params or None
        self.lock = threading.Lock()
        self.grid_lock = threading.Lock()  # the ring edges and area grid: built apart
        self._coords = None
        self._area = None
        self._hull = None
        self._hull_area = None
        self._masks: dict = {}
        self._outline = None
        self._edges = None
        self._grid = None
        self._pair_keys = np.zeros(0, np.int64)  # pairs of rows whose hull of both is known
        self._pair_enclosing = np.zeros(0)
        self._support = None  # (position of each row or -1, h, xy)
        self._surface = None  # 1: a valid (multi)polygon, 0: not, -1: not known yet
        self._hull_edges = None  # (shape of each row's hull in the edges or -1, edges)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["lock"], state["grid_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()
        self.grid_lock = threading.Lock()

    def geometry(self, rows: np.ndarray) -> np.ndarray:
        """The polygon of each row, the polygons of a parametric kind's shape, or the
        polygon of its box."""
        out = np.empty(len(rows), dtype=object)
        poly = (
            shapely.is_geometry(self.polygons[rows])
            if self.polygons is not None
            else np.zeros(len(rows), bool)
        )
        if poly.any():
            out[poly] = self.polygons[rows[poly]]
        b = self.boxes[rows[~poly]]
        out[~poly] = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
        for name, p in (self.params or {}).items():
            sel = np.isfinite(p[rows]).all(axis=1)
            if sel.any():
                out[sel] = get_kind(name).to_polygons(p[rows[sel]])
        return out

    def _outlined(self) -> np.ndarray:
        """Rows whose outline is not their box's: polygons and parametric kinds."""
        out = (
            shapely.is_geometry(self.polygons)
            if self.polygons is not None
            else np.zeros(len(self.boxes), bool)
        )
        for p in (self.params or {}).values():
            out = out | np.isfinite(p).all(axis=1)
        return out

    def n_coords(self) -> np.ndarray:
        """Coordinates of every shape (all rings, closing points included; boxes 5)."""
        with self.lock:
            if self._coords is None:
                coords = np.full(len(self.boxes), 5, np.int64)
                if self.polygons is not None:
                    poly = shapely.is_geometry(self.polygons)
                    coords[poly] = shapely.get_num_coordinates(self.polygons[poly])
                self._coords = coords
            return self._coords

    def polygon_areas(self, rows: np.ndarray) -> np.ndarray:
        """Exact area of the polygons at ``rows`` (all polygon rows)."""
        with self.lock:
            if self._area is None:
                self._area = np.full(len(self.boxes), np.nan)
            todo = sorted_unique(rows[np.isnan(self._area[rows])])
            if todo.size:
                self._area[todo] = shapely.area(self.polygons[todo])
            return self._area[rows]

    def surfaces_are_valid(self) -> None:
        """Take every polygon and multipolygon as valid (the shapes of a validated frame:
        :meth:`Shapes.from_frame` with ``validated``) without checking them."""
        with self.lock:
            if self.polygons is None:
                return
            kind = shapely.get_type_id(self.polygons)
            self._surface = ((kind == 3) | (kind == 6)).astype(np.int8)

    def valid_surfaces(self, rows: np.ndarray) -> np.ndarray:
        """Whether each polygon row at ``rows`` is a valid Polygon or MultiPolygon (whose
        shared areas :mod:`iaa_frames.geometry.shared_area` computes exactly), checked
        once per shape."""
        with self.lock:
            if self._surface is None:
                self._surface = np.full(len(self.boxes), -1, np.int8)
            todo = sorted_unique(rows[self._surface[rows] < 0])
            if todo.size:
                g = self.polygons[todo]
                kind = shapely.get_type_id(g)
                ok = (kind == 3) | (kind == 6)
                ok[ok] = shapely.is_valid(g[ok])
                self._surface[todo] = ok
            return self._surface[rows] == 1

    def outline(self):
        """Per shape: the sums of ``|dx|`` and of ``|dy|`` along every ring, and the number of
        rings (boxes: their perimeter, one ring)."""
        with self.lock:
            if self._outline is None:
                b = self.boxes
                lx, ly = 2 * (b[:, 2] - b[:, 0]), 2 * (b[:, 3] - b[:, 1])
                rings = np.ones(len(b))
                if self.polygons is not None or self.params:
                    poly = np.flatnonzero(self._outlined())
                    xy, ring, owner = ring_vertices(self.geometry(poly))
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
        with self.grid_lock:  # not the lock of the other quantities: built at length
            return self._ring_edges()

    def _ring_edges(self) -> RingEdges:
        if self._edges is None:
            polygons = (
                self.polygons
                if self.polygons is not None
                else np.full(len(self.boxes), None, dtype=object)
            )
            self._edges = RingEdges.from_geometries(polygons)
        return self._edges

    def area_grid(self) -> AreaGrid:
        """The area of every polygon in the cells of a grid over its bounding box (none
        for plain boxes), for the bound of its area inside any rectangle."""
        with self.grid_lock:
            if self._grid is None:
                self._grid = AreaGrid.from_edges(self._ring_edges())
            return self._grid

    def hulls(self, rows: np.ndarray):
        """Convex hull of the shapes at ``rows`` and its area."""
        with self.lock:
            if self._hull is None:
                self._hull = np.empty(len(self.boxes), dtype=object)
                self._hull_area = np.full(len(self.boxes), np.nan)
            todo = sorted_unique(rows[np.isnan(self._hull_area[rows])])
            if todo.size:
                hull = shapely.convex_hull(self.geometry(todo))
                self._hull[todo] = hull
                self._hull_area[todo] = shapely.area(hull)
            return self._hull[rows], self._hull_area[rows]

    def hull_edges(self, rows: np.ndarray):
        """The oriented edges of the convex hulls of the shapes at ``rows``, computed once
        per shape: the edges of every hull known so far and the shape of each row's hull
        in them (for :func:`~iaa_frames.geometry.shared_area.shared_areas`).

        Returns
        -------
        edges : iaa_frames.geometry.clip.RingEdges
        index : ndarray of int64, shape (len(rows),)
        """
        rows = np.asarray(rows, np.int64)
        self.hulls(rows)  # known before the lock (hulls takes it)
        with self.lock:
            if self._hull_edges is None:
                none = RingEdges.from_geometries(np.zeros(0, dtype=object))
                self._hull_edges = (np.full(len(self.boxes), -1, np.int64), none)
            pos, edges = self._hull_edges
            todo = sorted_unique(rows[pos[rows] < 0])
            if todo.size:
                more = RingEdges.from_geometries(self._hull[todo])
                pos[todo] = len(edges.offset) - 1 + np.arange(todo.size)
                edges = extend_edges(edges, more)  # and the form shared_areas keeps
                self._hull_edges = (pos, edges)
            return edges, pos[rows]

    def enclosing(self, ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
        """Area of the convex hull of the shapes at ``ra[k]`` and ``rb[k]`` together (the
        hull of their two hulls), computed once per pair of rows."""
        ra, rb = np.asarray(ra, np.int64), np.asarray(rb, np.int64)
        keys = ra * len(self.boxes) + rb
        with self.lock:
            known_keys, known = self._pair_keys, self._pair_enclosing
        pos = np.minimum(np.searchsorted(known_keys, keys), max(len(known_keys) - 1, 0))
        found = known_keys[pos] == keys if len(known_keys) else np.zeros(len(keys), bool)
        out = np.empty(len(keys))
        out[found] = known[pos[found]]
        todo = np.flatnonzero(~found)
        if todo.size:
            new_keys, first, back = np.unique(keys[todo], return_index=True, return_inverse=True)
            hull_a, _ = self.hulls(ra[todo[first]])
            hull_b, _ = self.hulls(rb[todo[first]])
            both = shapely.geometrycollections(
                np.column_stack([hull_a, hull_b]).ravel(),
                indices=np.repeat(np.arange(first.size), 2),
            )
            new = shapely.area(shapely.convex_hull(both))
            out[todo] = new[back]
            with self.lock:
                merged = np.concatenate([self._pair_keys, new_keys])
                order = np.argsort(merged, kind="stable")  # two sorted runs: a merge
                merged = merged[order]
                keep = np.r_[True, merged[1:] != merged[:-1]]  # another thread's too
                values = np.concatenate([self._pair_enclosing, new])[order]
                self._pair_keys, self._pair_enclosing = merged[keep], values[keep]
        return out

    def support(self, rows: np.ndarray):
        """The support points of the hulls of the shapes at ``rows``
        (:func:`~iaa_frames.geometry.hull_support.support_points`), computed once per shape.

        Returns
        -------
        h, x, y : ndarray of float64, shape (len(rows), k)
        """
        rows = np.asarray(rows, np.int64)
        self.hulls(rows)  # known before the lock (hulls takes it)
        with self.lock:
            if self._support is None:
                empty = support_points(np.zeros(0, dtype=object))
                self._support = (np.full(len(self.boxes), -1, np.int64), *empty)
            pos, *data = self._support
            todo = sorted_unique(rows[pos[rows] < 0])
            if todo.size:
                new = support_points(self._hull[todo])
                pos[todo] = len(data[0]) + np.arange(todo.size)
                data = [np.concatenate([old, part]) for old, part in zip(data, new, strict=True)]
                self._support = (pos, *data)
            at = pos[rows]
            return tuple(v[at] for v in data)

    def masks_on(self, width: int, height: int, rows: np.ndarray):
        """Masks of the shapes at ``rows`` on a ``width`` x ``height`` grid over the
        normalized image: the block holding them and their positions in it."""
        with self.lock:
            block, pos = self._masks.get((width, height), (None, None))
            if block is None:
                block, pos = Masks.empty(), np.full(len(self.boxes), -1, np.int64)
            todo = sorted_unique(rows[pos[rows] < 0])
            if todo.size:
                new = rasterize(self.geometry(todo), width, height, normalized=True)
                pos[todo] = len(block) + np.arange(len(todo))
                block = Masks.concat([block, new])
            self._masks[(width, height)] = (block, pos)
            return block, pos[rows]
