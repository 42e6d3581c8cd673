"""The polyline kind: open line strings (lanes, edges, vessels), scored by a line distance.

Frame representation
--------------------
A polyline kind (:class:`PolylineKind`) holds up to ``V`` vertices per line (32 for the
built-in kind ``polyline``, :data:`POLYLINE`), in the columns ``{prefix}{i}_x``,
``{prefix}{i}_y`` for ``i = 0 .. V-1`` (pixels; ``pl_0_x, pl_0_y, ..., pl_31_y``). A line
of fewer vertices repeats its last vertex up to ``V`` (zero-length segments: the line is
unchanged, :func:`polyline_params`); a line of more vertices is resampled to ``V`` points
at equal arc length (the readers do it, and say so in their docstrings). The object's
``x0, y0, x1, y1`` are the bounds of its vertices.

Distance
--------
Both lines ``A, B`` are resampled at ``n`` points at equal arc length, ends included
(``a_0 .. a_{n-1}``, :attr:`PolylineKind.n_samples`, 32 by default), and::

    D(A, B) = ( d(A → B) + d(B → A) ) / 2,     d(A → B) = Σ_i w_i · dist(a_i, B)

with ``dist(a_i, B)`` the distance from the point to the nearest segment of ``B`` (its
vertices, not its samples) and ``w = (1/2, 1, ..., 1, 1/2) / (n - 1)`` the trapezoid
weights: ``d(A → B)`` is the mean over the length of ``A`` of its distance to ``B``
(exact where that distance is linear between samples). ``D`` is symmetric, 0 only for
lines that cover each other, does not depend on the direction in which a line was drawn,
and counts a missing stretch of a line (a lane drawn half as long) by its distance to the
other. The similarity is ``exp(-D² / (2 δ²))`` with ``D`` in units of the image diagonal
(:mod:`~iaa_frames.geometry.kinds.distance_kind`), and the reach follows from
``D ≥`` the gap between the two boxes. Every pair is computed at once with numpy
(``(pairs, n, V - 1)`` arrays, in chunks): no loop per pair.

Examples
--------
>>> import numpy as np
>>> kind = PolylineKind("polyline_example", n_vertices=2, tolerance=1.0)
>>> kind.columns
('polyline_example_0_x', 'polyline_example_0_y', 'polyline_example_1_x', 'polyline_example_1_y')
>>> a = np.array([[0.0, 0.0, 10.0, 0.0]])
>>> b = np.array([[10.0, 1.0, 0.0, 1.0]])  # one unit away, drawn the other way
>>> kind.distance(a, b).tolist(), kind.similarity(a, b).round(4).tolist()
([1.0], [0.6065])
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

from .distance_kind import DEFAULT_TOLERANCE, DistanceKind, point_line_distances, resample_lines
from .registry import register_kind

__all__ = ["POLYLINE", "PolylineKind", "polyline_params", "polyline_vertices"]


class PolylineKind(DistanceKind):
    """Open polylines of up to ``n_vertices`` vertices, scored by the symmetric mean
    distance of the module docstring.

    Parameters
    ----------
    name : str
        The registry name (and, by default, the column prefix ``{name}_``).
    n_vertices : int, default 32
        Vertices per row (``V``).
    n_samples : int, default 32
        Points at equal arc length along each line for the distance (``n``).
    tolerance : float, default 0.01
        δ of the similarity, in units of the image diagonal.
    prefix : str, optional
        Column prefix; ``{name}_`` by default.
    geometry_types : tuple of str, default ()
        Shapely types :func:`iaa_frames.validate` reads as lines of this kind from the
        ``geometry`` column (``("LineString",)`` for the built-in kind).

    Raises
    ------
    ParameterError
        On fewer than 2 vertices or samples, or a tolerance that is not positive.
    """

    def __init__(
        self,
        name,
        *,
        n_vertices=32,
        n_samples=32,
        tolerance=DEFAULT_TOLERANCE,
        prefix=None,
        geometry_types=(),
    ):
        self.name = name
        self.geometry_types = tuple(geometry_types)
        if int(n_vertices) < 2 or int(n_samples) < 2:
            raise ParameterError(
                f"polyline kind {name!r} needs at least 2 vertices and 2 samples; got "
                f"{n_vertices} and {n_samples}"
            )
        super().__init__(tolerance=tolerance)
        self.n_vertices = int(n_vertices)
        self.n_samples = int(n_samples)
        self.prefix = f"{name}_" if prefix is None else prefix
        self.columns = tuple(
            f"{self.prefix}{i}_{c}" for i in range(self.n_vertices) for c in ("x", "y")
        )
        self.description = (
            f"open polylines of up to {self.n_vertices} vertices, symmetric mean line "
            f"distance ({self.prefix}*)"
        )
        w = np.ones(self.n_samples)
        w[[0, -1]] = 0.5
        self._weights = w / w.sum()

    def from_geometries(self, geometries):
        """The parameters of shapely ``LineString``\\ s (:func:`polyline_params` of each,
        vectorized); NaN for lines of fewer than 2 points."""
        import shapely

        xy, owner = shapely.get_coordinates(geometries, return_index=True)
        m, v = len(geometries), self.n_vertices
        counts = np.bincount(owner, minlength=m)
        out = np.full((m, 2 * v), np.nan)
        good = counts >= 2
        if not good.any():
            return out
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        width = max(int(counts.max()), v)
        padded = np.repeat(xy[start[good] + counts[good] - 1][:, None, :], width, axis=1)
        slot = np.cumsum(good) - 1  # row of each good line in padded
        keep = good[owner]
        padded[slot[owner[keep]], (np.arange(len(xy)) - start[owner])[keep]] = xy[keep]
        lines = padded[:, :v].copy()
        long = counts[good] > v  # resampled to v points at equal arc length
        if long.any():
            lines[long] = resample_lines(padded[long], v)
        out[good] = lines.reshape(len(lines), 2 * v)
        return out

    def coordinate_columns(self):
        """x at the even positions, y at the odd ones."""
        i = np.arange(self.n_vertices)
        return 2 * i, 2 * i + 1

    def vertices(self, data) -> np.ndarray:
        """``(m, V, 2)`` the vertices of rows of parameters."""
        return np.asarray(data, dtype=np.float64).reshape(len(data), self.n_vertices, 2)

    def bounds(self, data):
        """The box of the vertices."""
        xy = self.vertices(data)
        return np.column_stack(
            [xy[..., 0].min(1), xy[..., 1].min(1), xy[..., 0].max(1), xy[..., 1].max(1)]
        )

    def lengths(self, data) -> np.ndarray:
        """``(m,)`` the length of each line."""
        return np.hypot(*np.moveaxis(np.diff(self.vertices(data), axis=1), -1, 0)).sum(axis=1)

    def areas(self, data):
        """The squared length: a line has no area; this is its scale (the size feature of
        pooled chance baselines)."""
        return self.lengths(data) ** 2

    def centroids(self, data):
        """The mean of the points at equal arc length (the centre of the line's length)."""
        s = resample_lines(self.vertices(data), self.n_samples)
        return np.einsum("mkc,k->mc", s, self._weights)

    def directed(self, data_a, data_b) -> np.ndarray:
        """``(m,)`` ``d(A → B)``: the mean distance of ``A``'s length to ``B``."""
        va, vb = _trimmed(self.vertices(data_a)), _trimmed(self.vertices(data_b))
        return point_line_distances(resample_lines(va, self.n_samples), vb) @ self._weights

    def distance(self, data_a, data_b):
        """``(d(A → B) + d(B → A)) / 2`` (module docstring); each line trimmed of its
        padding and resampled once."""
        va, vb = _trimmed(self.vertices(data_a)), _trimmed(self.vertices(data_b))
        sa, sb = resample_lines(va, self.n_samples), resample_lines(vb, self.n_samples)
        ab = point_line_distances(sa, vb) @ self._weights
        ba = point_line_distances(sb, va) @ self._weights
        return 0.5 * (ab + ba)


def _trimmed(xy: np.ndarray) -> np.ndarray:
    """The vertices without the trailing repeats of the last one that every row has (the
    padding of lines of fewer vertices): the same lines, fewer segments to measure."""
    if len(xy) == 0:
        return xy
    moves = (xy[:, :-1] != xy[:, -1:]).any(axis=2)  # (m, V - 1): differs from the last
    last = np.where(moves.any(axis=0))[0]
    keep = int(last[-1]) + 2 if last.size else 1
    return xy[:, :keep]


def polyline_params(kind: PolylineKind, xy) -> list:
    """The parameters of one line (``(v, 2)`` vertices, pixels) for ``kind``: its
    vertices, the last one repeated up to ``kind.n_vertices``; a line of more vertices is
    resampled to that many points at equal arc length.

    Raises
    ------
    ParameterError
        For fewer than 2 vertices.

    Examples
    --------
    >>> polyline_params(PolylineKind("params_example", n_vertices=3), [(0, 0), (4, 0)])
    [0.0, 0.0, 4.0, 0.0, 4.0, 0.0]
    """
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    if len(xy) < 2:
        raise ParameterError(f"a polyline needs at least 2 points; got {len(xy)}")
    v = kind.n_vertices
    if len(xy) > v:
        xy = resample_lines(xy[None], v)[0]
    else:
        xy = np.concatenate([xy, np.repeat(xy[-1:], v - len(xy), axis=0)])
    return xy.ravel().tolist()


def polyline_vertices(kind: PolylineKind, params) -> np.ndarray:
    """The vertices of one line from its parameters, without the repeats of the last
    vertex (the inverse of :func:`polyline_params` for lines of at most
    ``kind.n_vertices`` vertices).

    Examples
    --------
    >>> polyline_vertices(PolylineKind("vertices_example", n_vertices=3), [0, 0, 4, 0, 4, 0]).tolist()
    [[0.0, 0.0], [4.0, 0.0]]
    """
    xy = np.asarray(params, dtype=np.float64).reshape(1, kind.n_vertices, 2)
    out = _trimmed(xy)[0]
    return out if len(out) >= 2 else xy[0, :2]  # a line of no length: two equal vertices


#: Polylines of up to 32 vertices, columns ``pl_{i}_x``, ``pl_{i}_y``, δ = 1 % of the diagonal.
POLYLINE = register_kind(PolylineKind("polyline", prefix="pl_", geometry_types=("LineString",)))
