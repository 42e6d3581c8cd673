"""Ellipses as polygons whose IoU is the ellipses' own to 1e-4.

An ellipse (centre ``cx, cy``, radii ``rx, ry``, rotated by ``angle`` degrees) becomes
a polygon of :data:`ELLIPSE_VERTICES` vertices on the ellipse scaled by
``sqrt(t / sin t)``, ``t = 2 pi / n``: a regular n-gon inscribed in a circle has the
area ``n/2 sin t`` of the circle's ``pi``, and the scale gives it the ellipse's area
exactly. With 64 vertices the IoU of two overlapping ellipses differs from theirs by at
most 1.8e-5 (mean 2.8e-6; 200 random pairs against 20,000-vertex polygons); without the
scale, the area alone is 0.16 % short.

The angle turns the x axis towards the y axis: on an image, whose y axis points down,
a positive angle is clockwise, as CVAT's ``rotation``, Label Studio's ``rotation`` and
Potato's ``angle`` are.

Examples
--------
>>> import math
>>> ring = ellipse_ring(0.0, 0.0, 2.0, 1.0, 0.0)
>>> ring.shape
(64, 2)
>>> import shapely
>>> round(shapely.Polygon(ring).area / (math.pi * 2.0), 12)
1.0
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ELLIPSE_VERTICES", "ellipse_ring"]

#: Vertices of the polygon an ellipse becomes.
ELLIPSE_VERTICES = 64


def ellipse_ring(cx, cy, rx, ry, angle, *, n: int = ELLIPSE_VERTICES) -> np.ndarray:
    """The ``(n, 2)`` vertices of the polygon of an ellipse (see the module), in order,
    the ring not closed.

    Examples
    --------
    A quarter turn puts the long radius on the y axis:

    >>> ring = ellipse_ring(10.0, 5.0, 4.0, 2.0, 90.0)
    >>> bool(np.ptp(ring[:, 1]) > np.ptp(ring[:, 0]))
    True
    """
    t = 2.0 * math.pi / n
    scale = math.sqrt(t / math.sin(t))
    phi = np.arange(n) * t
    ex, ey = scale * rx * np.cos(phi), scale * ry * np.sin(phi)
    a = math.radians(angle)
    return np.column_stack(
        [cx + ex * math.cos(a) - ey * math.sin(a), cy + ex * math.sin(a) + ey * math.cos(a)]
    )
