"""The 2D cuboid kind: a cuboid drawn on an image as its front and back faces.

CVAT's ``<cuboid>`` (``xtl1, ytl1, xbl1, ybl1, xtr1, ytr1, xbr1, ybr1`` for the first
face, the same ending in ``2`` for the second) and Potato's ``cuboid_2d`` (``{front: 4
points, back: 4 points}``) draw a 3D box in perspective: two quadrilaterals joined at
their corners. A shape of this kind is those two faces, four corners each in ring order
(top-left, top-right, bottom-right, bottom-left of the face as the tools name them), in
the 16 columns :data:`CUBOID_2D_COLUMNS` (``c2d_fx1, c2d_fy1, ..., c2d_fx4, c2d_fy4`` for
the front face, ``c2d_bx1, ..., c2d_by4`` for the back), pixels in the frame.

**Compared by their faces.** Two cuboids are compared face by face, front with front and
back with back, and the two faces are pooled: the "area" of a cuboid
(:meth:`Cuboid2DKind.areas`) is the mean area of its faces and the area two cuboids share
(:meth:`Cuboid2DKind.intersection`) is the mean of what their fronts share and what their
backs share, so that their IoU is

``IoU = (I_front + I_back) / (U_front + U_back)``,

the mean of the two faces' IoUs weighted by their unions. Why both faces and not the front
face alone (what Potato's own agreement compares, and what this package read before): the
back face is what a 2D cuboid says beyond a box, the depth and the direction of the object;
two annotators who draw the same front face but opposite depths did not draw the same
cuboid, and a front-face IoU would call them identical. Why pooled and not the mean of the
two IoUs: the kind's IoU must be ``shared / (area_a + area_b - shared)`` of one area
(the matcher bounds it by the shapes' boxes, :class:`~iaa_frames.geometry.kinds.Kind`), and
pooling weighs the larger face more, as one IoU of a polygon weighs its larger parts.
Identical cuboids have IoU 1; cuboids whose faces are apart 0. The bounds of a cuboid are
the box of its eight corners, which holds both faces: the shared area is at most the
boxes' intersection and either cuboid's "area" (the kind's contract).

A face must be a simple quadrilateral of positive area (not a bow tie): other rows are
invalid (:meth:`Cuboid2DKind.invalid`, dropped or reported by :func:`iaa_frames.validate`).
Drawn as polygons (:meth:`Cuboid2DKind.to_polygons`, for GIoU's hulls, rasterization and
pairs with other kinds), a cuboid is the union of its two faces.

Examples
--------
>>> import numpy as np
>>> a = np.array([[0.0, 0, 2, 0, 2, 2, 0, 2,  1, 1, 3, 1, 3, 3, 1, 3]])
>>> CUBOID_2D.areas(a).tolist(), CUBOID_2D.intersection(a, a).tolist()
([4.0], [4.0])
>>> b = a.copy(); b[:, 8::2] += 1.0  # the same front face, the back face moved right
>>> round(float(CUBOID_2D.similarity(a, b)[0]), 4)  # (4 + 2) / (4 + 6)
0.6
"""

from __future__ import annotations

import numpy as np

from .registry import Kind, register_kind

__all__ = ["CUBOID_2D", "CUBOID_2D_COLUMNS", "Cuboid2DKind", "cuboid_2d_params"]

#: The frame columns of a 2D cuboid: the front face's four corners, then the back face's.
CUBOID_2D_COLUMNS = tuple(
    f"c2d_{face}{axis}{k}" for face in ("f", "b") for k in range(1, 5) for axis in ("x", "y")
)


def cuboid_2d_params(front, back) -> list[float]:
    """The 16 parameters of a cuboid from its faces' corners (``4 x 2`` each, in ring
    order).

    Examples
    --------
    >>> cuboid_2d_params([[0, 0], [2, 0], [2, 2], [0, 2]], [[1, 1], [3, 1], [3, 3], [1, 3]])[:4]
    [0.0, 0.0, 2.0, 0.0]
    """
    f = np.asarray(front, dtype=np.float64).reshape(4, 2)
    b = np.asarray(back, dtype=np.float64).reshape(4, 2)
    return np.concatenate([f.ravel(), b.ravel()]).tolist()


def _faces(data):
    """``(m,)`` shapely polygons of the front faces and of the back faces."""
    import shapely

    data = np.asarray(data, dtype=np.float64).reshape(-1, 2, 4, 2)
    return shapely.polygons(data[:, 0]), shapely.polygons(data[:, 1])


def _shoelace(ring) -> np.ndarray:
    """``(m,)`` absolute areas of ``(m, 4, 2)`` rings."""
    x, y = ring[..., 0], ring[..., 1]
    return 0.5 * np.abs((x * np.roll(y, -1, axis=-1) - np.roll(x, -1, axis=-1) * y).sum(-1))


class Cuboid2DKind(Kind):
    """2D cuboids: front and back faces of 4 corners each; the data of ``m`` cuboids is an
    ``(m, 16)`` float64 array (:data:`CUBOID_2D_COLUMNS`)."""

    name = "cuboid_2d"
    columns = CUBOID_2D_COLUMNS
    description = "2D cuboids (front and back faces), IoU of the faces pooled"

    def normalize(self, data, sx, sy):
        """x divided by ``sx``, y by ``sy`` (every corner)."""
        sx, sy = np.asarray(sx, dtype=np.float64), np.asarray(sy, dtype=np.float64)
        return data / np.tile(np.column_stack([sx, sy]), 8)

    def invalid(self, data):
        """Rows with a non-finite corner, or a face that is not a simple quadrilateral of
        positive area."""
        import shapely

        data = np.asarray(data, dtype=np.float64)
        bad = ~np.isfinite(data).all(axis=1)
        ok = np.flatnonzero(~bad)
        if len(ok):
            front, back = _faces(data[ok])
            simple = shapely.is_valid(front) & shapely.is_valid(back)
            with np.errstate(invalid="ignore"):
                simple &= (shapely.area(front) > 0) & (shapely.area(back) > 0)
            bad[ok] = ~simple
        return bad

    def bounds(self, data):
        """The box of the eight corners."""
        data = np.asarray(data, dtype=np.float64)
        x, y = data[:, 0::2], data[:, 1::2]
        return np.column_stack([x.min(1), y.min(1), x.max(1), y.max(1)])

    def areas(self, data):
        """The mean area of the two faces."""
        faces = np.asarray(data, dtype=np.float64).reshape(-1, 2, 4, 2)
        return 0.5 * (_shoelace(faces[:, 0]) + _shoelace(faces[:, 1]))

    def intersection(self, data_a, data_b):
        """The mean of the areas the fronts share and the backs share (exact, shapely)."""
        import shapely

        fa, ba = _faces(data_a)
        fb, bb = _faces(data_b)
        shared = shapely.area(shapely.intersection(fa, fb))
        shared += shapely.area(shapely.intersection(ba, bb))
        return 0.5 * np.asarray(shared, dtype=np.float64)

    def to_polygons(self, data):
        """The union of the two faces of every cuboid."""
        import shapely

        front, back = _faces(data)
        return shapely.union(front, back)

    chance_alignment = "translate"

    def translate(self, data, dx, dy):
        """The cuboids moved by ``(dx, dy)``: every corner."""
        dx, dy = np.asarray(dx, np.float64), np.asarray(dy, np.float64)
        return np.asarray(data, dtype=np.float64) + np.tile(np.column_stack([dx, dy]), 8)

    def centroids(self, data):
        """The mean of the eight corners."""
        data = np.asarray(data, dtype=np.float64)
        return np.column_stack([data[:, 0::2].mean(1), data[:, 1::2].mean(1)])


CUBOID_2D = register_kind(Cuboid2DKind())
