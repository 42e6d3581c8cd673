"""What the kinds scored by a distance share: lines and points (no area to overlap).

Polylines (:mod:`~iaa_frames.geometry.kinds.polyline`) and points
(:mod:`~iaa_frames.geometry.kinds.point`) have no area, so IoU says nothing of them. They
are scored by a distance ``D`` between two shapes, in units of the image diagonal, turned
into a similarity in [0, 1] by a Gaussian kernel of width ``δ`` (:attr:`DistanceKind.tolerance`)::

    similarity = exp(-D² / (2 δ²))

1 for equal shapes, ``exp(-1/2) = 0.61`` at ``D = δ``, 0.5 at ``D = 1.18 δ``; the matcher
gates it at τ as it gates IoU (``D ≤ δ sqrt(2 ln(1/τ))``), and localization is σ over
``1 - similarity`` of matched objects. The default ``δ = 0.01`` is 1 % of the image
diagonal (22 px on a 1920 x 1080 image).

Normalization: :meth:`~iaa_frames.geometry.shapes.Shapes.from_frame` divides x *and* y by
the diagonal ``sqrt(width² + height²)`` of the image, so that a distance means the same in
every direction (a per-axis division would bend the lines of images that are not square);
without an image size the coordinates stay pixels and ``δ`` is in pixels. The boxes of
these rows are in those units too.

Reach (the chance index and the sweeps): each of the kinds' distances is a mean of
distances from points of one shape to the other shape, so ``D`` is at least the gap
between the two shapes' boxes (each shape lies in its box). A similarity ≥ τ needs
``D ≤ δ sqrt(2 ln(1/τ))``, so boxes grown each by half that meet
(:meth:`DistanceKind.reach`): no pair that reaches τ is lost, and the chance index is
exact.

This module also holds the vectorized pieces: :func:`resample_lines` (points at equal arc
length along many lines at once) and :func:`point_line_distances` (from many points to
many lines).

Examples
--------
>>> import numpy as np
>>> float(np.exp(-0.5))  # the similarity of two shapes at the distance δ
0.6065306597126334
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

from .registry import Kind

__all__ = [
    "DEFAULT_TOLERANCE",
    "DistanceKind",
    "point_line_distances",
    "resample_lines",
]

#: The default width δ of the kernel, in units of the image diagonal.
DEFAULT_TOLERANCE = 0.01

#: Pairs measured at once (bounds the memory of the ``(pairs, samples, vertices)`` arrays).
_CHUNK = 512


def resample_lines(xy: np.ndarray, n: int) -> np.ndarray:
    """``n`` points at equal arc length along each of ``m`` lines, both ends included.

    Parameters
    ----------
    xy : ndarray, shape (m, v, 2)
        The vertices of each line, in order; repeated vertices (zero-length segments,
        the padding of shorter lines) change nothing.
    n : int
        Points per line (at least 2).

    Returns
    -------
    ndarray of float64, shape (m, n, 2)
        A line of zero length gives its first vertex ``n`` times.

    Examples
    --------
    >>> resample_lines(np.array([[[0.0, 0], [2, 0], [2, 2]]]), 5)[0].tolist()
    [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 1.0], [2.0, 2.0]]
    """
    xy = np.asarray(xy, dtype=np.float64)
    m, v = xy.shape[:2]
    if v == 1:
        return np.repeat(xy, n, axis=1)
    seg = np.hypot(*np.moveaxis(np.diff(xy, axis=1), -1, 0))  # (m, v - 1)
    cum = np.concatenate([np.zeros((m, 1)), np.cumsum(seg, axis=1)], axis=1)  # (m, v)
    length = cum[:, -1:]
    frac = np.linspace(0.0, 1.0, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        at = np.where(length > 0, cum / length, 0.0)  # arc fraction of each vertex
    # the segment of every target: one searchsorted over all lines (rows kept apart by
    # an offset of 2 per row, arc fractions being in [0, 1])
    rows = np.arange(m)[:, None] * 2.0
    j = np.searchsorted((at + rows).ravel(), (frac[None, :] + rows).ravel(), side="right")
    j = j.reshape(m, n) - 1 - np.arange(m)[:, None] * v
    j = np.clip(j, 0, v - 2)
    a0 = np.take_along_axis(at, j, axis=1)
    a1 = np.take_along_axis(at, j + 1, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(a1 > a0, (frac[None, :] - a0) / (a1 - a0), 0.0)
    t = np.clip(t, 0.0, 1.0)[..., None]
    p0 = np.take_along_axis(xy, j[..., None], axis=1)
    p1 = np.take_along_axis(xy, (j + 1)[..., None], axis=1)
    return p0 + t * (p1 - p0)


def point_line_distances(points: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Distance from each point to the line of its row (the nearest of its segments).

    Parameters
    ----------
    points : ndarray, shape (m, k, 2)
    lines : ndarray, shape (m, v, 2)
        Vertices; ``v = 1`` is a point (the distances are then between points).

    Returns
    -------
    ndarray of float64, shape (m, k)

    Examples
    --------
    >>> point_line_distances(np.array([[[1.0, 1], [3, 0]]]), np.array([[[0.0, 0], [2, 0]]])).tolist()
    [[1.0, 1.0]]
    """
    px, py = points[..., 0][:, :, None], points[..., 1][:, :, None]
    if lines.shape[1] == 1:
        return np.hypot(px[..., 0] - lines[:, None, 0, 0], py[..., 0] - lines[:, None, 0, 1])
    x0, y0 = lines[:, None, :-1, 0], lines[:, None, :-1, 1]
    dx, dy = lines[:, None, 1:, 0] - x0, lines[:, None, 1:, 1] - y0
    dd = dx * dx + dy * dy
    inv = np.divide(1.0, dd, out=np.zeros_like(dd), where=dd > 0)  # zero-length: t = 0
    wx, wy = px - x0, py - y0
    t = wx * dx
    t += wy * dy
    t *= inv
    np.clip(t, 0.0, 1.0, out=t)
    wx -= t * dx
    wy -= t * dy
    wx *= wx
    wy *= wy
    wx += wy
    return np.sqrt(wx.min(axis=2))


class DistanceKind(Kind):
    """A kind scored by ``exp(-D² / (2 δ²))`` of a distance ``D`` (module docstring).

    Subclasses set :attr:`name` and :attr:`columns`, say which columns are x and y
    (:meth:`coordinate_columns`) and implement :meth:`distance`, :meth:`bounds` and
    :meth:`areas` (a scale for the features of pooled baselines: these shapes have no
    area).

    Parameters
    ----------
    tolerance : float
        δ, in units of the image diagonal (pixels without an image size).
    """

    def __init__(self, *, tolerance: float = DEFAULT_TOLERANCE):
        tolerance = float(tolerance)
        if not (np.isfinite(tolerance) and tolerance > 0):
            raise ParameterError(
                f"geometry kind {self.name!r}: tolerance must be a positive number; got {tolerance!r}"
            )
        self.tolerance = tolerance

    def coordinate_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """Positions in :attr:`columns` of the x and of the y coordinates."""
        raise NotImplementedError

    def normalize(self, data, sx, sy):
        """x and y divided by the image diagonal ``sqrt(sx² + sy²)`` (distances then mean
        the same in every direction)."""
        data = np.array(data, dtype=np.float64)
        d = np.hypot(np.asarray(sx, np.float64), np.asarray(sy, np.float64))
        ix, iy = self.coordinate_columns()
        data[:, ix] /= d[:, None]
        data[:, iy] /= d[:, None]
        return data

    chance_alignment = "translate"

    def translate(self, data, dx, dy):
        """Every x coordinate (:meth:`coordinate_columns`) moved by ``dx``, every y by
        ``dy``; other parameters (a point set's count) kept."""
        data = np.array(data, dtype=np.float64)
        ix, iy = self.coordinate_columns()
        data[:, ix] += np.asarray(dx, np.float64)[:, None]
        data[:, iy] += np.asarray(dy, np.float64)[:, None]
        return data

    def invalid(self, data):
        """Rows with a non-finite coordinate."""
        return ~np.isfinite(np.asarray(data, dtype=np.float64)).all(axis=1)

    def distance(self, data_a, data_b) -> np.ndarray:
        """``(m,)`` the distance ``D`` of each pair (in the data's units)."""
        raise NotImplementedError

    def similarity(self, data_a, data_b):
        """``exp(-D² / (2 δ²))`` of each pair, in [0, 1] (module docstring)."""
        data_a = np.asarray(data_a, dtype=np.float64)
        data_b = np.asarray(data_b, dtype=np.float64)
        out = np.empty(len(data_a))
        for s in range(0, len(data_a), _CHUNK):
            d = self.distance(data_a[s : s + _CHUNK], data_b[s : s + _CHUNK])
            out[s : s + _CHUNK] = np.exp(-0.5 * (d / self.tolerance) ** 2)
        return out

    def reach(self, data, tau):
        """``δ sqrt(2 ln(1/τ)) / 2``: a similarity ≥ τ needs ``D ≤ δ sqrt(2 ln(1/τ))``,
        and ``D`` is at least the gap between the two boxes (module docstring)."""
        if tau <= 0:
            return np.full(len(data), np.inf)
        log = max(-np.log(min(float(tau), 1.0)), 0.0)
        return np.full(len(data), self.tolerance * np.sqrt(2.0 * log) / 2.0)
