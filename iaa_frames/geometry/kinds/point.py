"""The point kinds: single landmarks (``point``) and sets of points (``point_set``).

Frame representation
--------------------
* ``point`` (:data:`POINT`, :class:`PointKind`): one landmark per row, in the columns
  ``pt_x, pt_y`` (pixels);
* ``point_set`` (:data:`POINT_SET`, :class:`PointSetKind`): up to ``P`` points per row
  (32 for the built-in kind), as CVAT's ``<points>`` shape holds them: the count in
  ``ps_n`` and the points in ``ps_{i}_x, ps_{i}_y`` for ``i = 0 .. P-1``; slots past the
  count repeat the last point (they are never read; :func:`point_set_params`).

The object's ``x0, y0, x1, y1`` are the bounds of its points (a single point: a box of no
size, which :func:`iaa_frames.validate` keeps for these kinds).

Distance
--------
Two points: their Euclidean distance. Two point sets ``A`` (``n_a`` points) and ``B``::

    D(A, B) = ( mean_i min_j |a_i - b_j| + mean_j min_i |b_j - a_i| ) / 2

the symmetric mean nearest distance (for one point each, their distance): symmetric, 0
only for equal sets, and a point one annotator left out counts by its distance to the
other's nearest point. The similarity is ``exp(-D² / (2 δ²))`` with ``D`` in units of
the image diagonal (:mod:`~iaa_frames.geometry.kinds.distance_kind`); every distance is
a mean of distances from points of one shape to the other, so ``D`` is at least the gap
between the boxes and the reach is exact. A ``point`` and a ``point_set`` are two kinds:
their pairs score 0 (readers write one kind per format: CVAT ``<points>`` are always
point sets, even of one point).

Examples
--------
>>> import numpy as np
>>> POINT.distance(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]])).tolist()
[5.0]
>>> kind = PointSetKind("set_example", max_points=2)
>>> a = np.array([[2.0, 0, 0, 4, 0]])      # {(0, 0), (4, 0)}
>>> b = np.array([[1.0, 0, 1, 0, 1]])      # {(0, 1)}
>>> kind.distance(a, b).tolist()            # ((1 + 17 ** 0.5) / 2 + 1) / 2
[1.7807764064044151]
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

from .distance_kind import DEFAULT_TOLERANCE, DistanceKind
from .registry import register_kind

__all__ = ["POINT", "POINT_SET", "PointKind", "PointSetKind", "point_set_params"]


class PointKind(DistanceKind):
    """Single points (landmarks), scored by their distance.

    Parameters
    ----------
    name : str
    tolerance : float, default 0.01
        δ of the similarity, in units of the image diagonal.
    prefix : str, optional
        Column prefix (``{prefix}x``, ``{prefix}y``); ``{name}_`` by default.
    geometry_types : tuple of str, default ()
        Shapely types :func:`iaa_frames.validate` reads as shapes of this kind from the
        ``geometry`` column (``("Point",)`` for the built-in kind).
    """

    def __init__(self, name, *, tolerance=DEFAULT_TOLERANCE, prefix=None, geometry_types=()):
        self.name = name
        self.geometry_types = tuple(geometry_types)
        super().__init__(tolerance=tolerance)
        self.prefix = f"{name}_" if prefix is None else prefix
        self.columns = (f"{self.prefix}x", f"{self.prefix}y")
        self.description = f"single points, their distance ({self.prefix}x, {self.prefix}y)"

    def from_geometries(self, geometries):
        """The coordinates of shapely ``Point``\\ s (NaN for empty ones)."""
        import shapely

        return np.column_stack([shapely.get_x(geometries), shapely.get_y(geometries)])

    def coordinate_columns(self):
        """x first, y second."""
        return np.array([0]), np.array([1])

    def bounds(self, data):
        """The point as a box of no size."""
        data = np.asarray(data, dtype=np.float64)
        return np.column_stack([data[:, 0], data[:, 1], data[:, 0], data[:, 1]])

    def areas(self, data):
        """0: a point has no area (nor a scale)."""
        return np.zeros(len(data))

    def centroids(self, data):
        """The points."""
        return np.asarray(data, dtype=np.float64)[:, :2].copy()

    def distance(self, data_a, data_b):
        """The Euclidean distance."""
        a, b = np.asarray(data_a, np.float64), np.asarray(data_b, np.float64)
        return np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1])


class PointSetKind(DistanceKind):
    """Sets of up to ``max_points`` points, scored by the symmetric mean nearest distance.

    Parameters
    ----------
    name : str
    max_points : int, default 32
        Slots per row (``P``).
    tolerance, prefix, geometry_types
        As in :class:`~iaa_frames.geometry.kinds.polyline.PolylineKind`; the built-in
        kind reads ``MultiPoint`` geometries.
    """

    def __init__(
        self, name, *, max_points=32, tolerance=DEFAULT_TOLERANCE, prefix=None, geometry_types=()
    ):
        self.name = name
        self.geometry_types = tuple(geometry_types)
        if int(max_points) < 1:
            raise ParameterError(f"point set kind {name!r} needs max_points >= 1; got {max_points}")
        super().__init__(tolerance=tolerance)
        self.max_points = int(max_points)
        self.prefix = f"{name}_" if prefix is None else prefix
        self.columns = (f"{self.prefix}n",) + tuple(
            f"{self.prefix}{i}_{c}" for i in range(self.max_points) for c in ("x", "y")
        )
        self.description = (
            f"sets of up to {self.max_points} points, symmetric mean nearest distance "
            f"({self.prefix}*)"
        )

    def from_geometries(self, geometries):
        """The parameters of shapely ``MultiPoint``\\ s (:func:`point_set_params` of
        each, vectorized); NaN for empty ones and those of more than ``max_points``."""
        import shapely

        xy, owner = shapely.get_coordinates(geometries, return_index=True)
        m, p = len(geometries), self.max_points
        counts = np.bincount(owner, minlength=m)
        out = np.full((m, 1 + 2 * p), np.nan)
        good = (counts >= 1) & (counts <= p)
        if not good.any():
            return out
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pts = np.repeat(xy[start[good] + counts[good] - 1][:, None, :], p, axis=1)
        slot = np.cumsum(good) - 1
        keep = good[owner]
        pts[slot[owner[keep]], (np.arange(len(xy)) - start[owner])[keep]] = xy[keep]
        out[good] = np.column_stack([counts[good], pts.reshape(len(pts), 2 * p)])
        return out

    def coordinate_columns(self):
        """After the count: x at odd positions, y at even ones."""
        i = np.arange(self.max_points)
        return 1 + 2 * i, 2 + 2 * i

    def split(self, data):
        """The points ``(m, P, 2)`` and which slots hold one ``(m, P)``."""
        data = np.asarray(data, dtype=np.float64)
        xy = data[:, 1:].reshape(len(data), self.max_points, 2)
        return xy, np.arange(self.max_points)[None, :] < data[:, :1]

    def invalid(self, data):
        """Rows with a non-finite value or a count not a whole number in ``1 .. P``."""
        data = np.asarray(data, dtype=np.float64)
        n = data[:, 0]
        with np.errstate(invalid="ignore"):
            ok = (n >= 1) & (n <= self.max_points) & (n == np.round(n))
        return super().invalid(data) | ~ok

    def bounds(self, data):
        """The box of the points."""
        xy, on = self.split(data)
        x = np.where(on, xy[..., 0], np.inf), np.where(on, xy[..., 0], -np.inf)
        y = np.where(on, xy[..., 1], np.inf), np.where(on, xy[..., 1], -np.inf)
        return np.column_stack([x[0].min(1), y[0].min(1), x[1].max(1), y[1].max(1)])

    def areas(self, data):
        """The squared diagonal of the box of the points: its scale (the size feature of
        pooled chance baselines); points have no area."""
        b = self.bounds(data)
        return (b[:, 2] - b[:, 0]) ** 2 + (b[:, 3] - b[:, 1]) ** 2

    def centroids(self, data):
        """The mean of the points."""
        xy, on = self.split(data)
        return (xy * on[..., None]).sum(axis=1) / np.maximum(on.sum(axis=1), 1)[:, None]

    def distance(self, data_a, data_b):
        """The symmetric mean nearest distance (module docstring)."""
        xa, on_a = self.split(data_a)
        xb, on_b = self.split(data_b)
        if len(xa):  # the slots past the largest count are padding: not measured
            ka, kb = int(on_a.sum(axis=1).max()), int(on_b.sum(axis=1).max())
            xa, on_a, xb, on_b = xa[:, :ka], on_a[:, :ka], xb[:, :kb], on_b[:, :kb]
        d = np.hypot(xa[:, :, None, 0] - xb[:, None, :, 0], xa[:, :, None, 1] - xb[:, None, :, 1])
        d = np.where(on_a[:, :, None] & on_b[:, None, :], d, np.inf)
        ab = np.where(on_a, d.min(axis=2), 0.0).sum(axis=1) / on_a.sum(axis=1)
        ba = np.where(on_b, d.min(axis=1), 0.0).sum(axis=1) / on_b.sum(axis=1)
        return 0.5 * (ab + ba)


def point_set_params(kind: PointSetKind, xy) -> list:
    """The parameters of one set of points (``(n, 2)``, pixels) for ``kind``: the count,
    then the points, the last one repeated up to ``kind.max_points``.

    Raises
    ------
    ParameterError
        For no point, or more than the kind holds.

    Examples
    --------
    >>> point_set_params(PointSetKind("params_example", max_points=3), [(1, 2), (3, 4)])
    [2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]
    """
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    if not 1 <= len(xy) <= kind.max_points:
        raise ParameterError(
            f"a set of {len(xy)} points; the point set kind {kind.name!r} holds 1 to "
            f"{kind.max_points} (register a PointSetKind with more)"
        )
    n = len(xy)
    xy = np.concatenate([xy, np.repeat(xy[-1:], kind.max_points - n, axis=0)])
    return [float(n)] + xy.ravel().tolist()


#: Single points, columns ``pt_x``, ``pt_y``, δ = 1 % of the image diagonal.
POINT = register_kind(PointKind("point", prefix="pt_", geometry_types=("Point",)))
#: Sets of up to 32 points, columns ``ps_n`` and ``ps_{i}_x``, ``ps_{i}_y``.
POINT_SET = register_kind(PointSetKind("point_set", prefix="ps_", geometry_types=("MultiPoint",)))
