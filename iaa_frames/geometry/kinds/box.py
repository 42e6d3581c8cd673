"""The box kind: axis-aligned rectangles ``x0, y0, x1, y1``, the base of every kind.

A box is stored as its four corners (``Shapes.boxes``) and
measured in numpy alone: its area, the area it shares with another box and its IoU are
closed forms. Every other kind has a bounding box too, held in the same array, which is
what the chance index (:mod:`iaa_frames.core.chance.gating`), the sweep of overlapping pairs
(:mod:`iaa_frames.geometry.box_index`) and the IoU upper bounds
(:mod:`iaa_frames.geometry.bounds`, :mod:`iaa_frames.core.matching.pipeline`) work on.

Readers express a box as its pixel corners in the ``x0, y0, x1, y1`` columns
(:mod:`iaa_frames.io.builder` converts COCO's ``x, y, w, h`` and YOLO's normalized centres);
:meth:`~iaa_frames.geometry.shapes.Shapes.from_frame` divides x by the image width and y by
its height.

Examples
--------
>>> import numpy as np
>>> a, b = np.array([[0.0, 0, 2, 2]]), np.array([[1.0, 0, 3, 2]])
>>> BOX.intersection(a, b).tolist(), BOX.areas(a).tolist()
([2.0], [4.0])
"""

from __future__ import annotations

import numpy as np

from .registry import Kind, register_kind

__all__ = ["BOX", "BOX_COLUMNS", "BoxKind", "box_intersection"]

BOX_COLUMNS = ("x0", "y0", "x1", "y1")


def box_intersection(ba: np.ndarray, bb: np.ndarray) -> np.ndarray:
    """Area shared by every pair of boxes (``(n, 4)`` each); NaN propagates.

    Examples
    --------
    >>> box_intersection(np.array([[0.0, 0, 2, 2]]), np.array([[5.0, 5, 6, 6]])).tolist()
    [0.0]
    """
    ax0, ay0, ax1, ay1 = ba.T
    bx0, by0, bx1, by1 = bb.T
    # NaN propagates through np.minimum / np.maximum
    iw = np.minimum(ax1, bx1)
    iw -= np.maximum(ax0, bx0)
    np.maximum(iw, 0.0, out=iw)
    ih = np.minimum(ay1, by1)
    ih -= np.maximum(ay0, by0)
    np.maximum(ih, 0.0, out=ih)
    inter = iw
    inter *= ih
    return inter


class BoxKind(Kind):
    """Axis-aligned boxes; the data of ``m`` boxes is an ``(m, 4)`` float64 array.

    Examples
    --------
    >>> BOX.to_polygons(np.array([[0.0, 0, 2, 3]]))[0].area
    6.0
    """

    name = "box"
    columns = BOX_COLUMNS
    native = True
    description = "axis-aligned boxes x0, y0, x1, y1 (numpy)"

    def rows(self, frame) -> np.ndarray:
        """Rows with box coordinates (every object row has them: they are the bounds of
        the other kinds)."""
        if "x0" not in frame.columns:
            return np.zeros(len(frame), dtype=bool)
        return frame["x0"].notna().to_numpy()

    def normalize(self, data, sx, sy):
        """Corners divided by the image size, x by ``sx`` and y by ``sy``."""
        return data / np.column_stack([sx, sy, sx, sy])

    def invalid(self, data):
        """Boxes with a non-finite corner or no area."""
        with np.errstate(invalid="ignore"):
            return ~np.isfinite(data).all(axis=1) | ~(self.areas(data) > 0)

    def bounds(self, data):
        """The boxes themselves."""
        return np.asarray(data, dtype=np.float64)

    def areas(self, data):
        """Width times height."""
        return (data[:, 2] - data[:, 0]) * (data[:, 3] - data[:, 1])

    def intersection(self, data_a, data_b):
        """:func:`box_intersection`."""
        return box_intersection(data_a, data_b)

    def to_polygons(self, data):
        """``shapely.box`` of every row (``None`` where a corner is NaN)."""
        import shapely

        return shapely.box(data[:, 0], data[:, 1], data[:, 2], data[:, 3])

    chance_alignment = "translate"

    def translate(self, data, dx, dy):
        """The boxes moved by ``(dx, dy)``: every corner.

        Examples
        --------
        >>> BOX.translate(np.array([[0.0, 0, 2, 1]]), np.array([1.0]), np.array([-1.0])).tolist()
        [[1.0, -1.0, 3.0, 0.0]]
        """
        dx, dy = np.asarray(dx, np.float64), np.asarray(dy, np.float64)
        return np.asarray(data, dtype=np.float64) + np.column_stack([dx, dy, dx, dy])

    def centroids(self, data):
        """Centres of the boxes."""
        return np.column_stack([(data[:, 0] + data[:, 2]) / 2.0, (data[:, 1] + data[:, 3]) / 2.0])


BOX = register_kind(BoxKind())
