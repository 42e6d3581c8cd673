"""Polygons of shapes that exports write as parameters: a box turned by an angle.

CVAT (``<box rotation="...">``) and Label Studio (``value.rotation``) both write rotated
rectangles as a box and an angle; the readers turn them into the polygon of their corners
with :func:`rotated_rectangle`.
"""

from __future__ import annotations

import math

__all__ = ["rotated_rectangle"]


def rotated_rectangle(x0, y0, x1, y1, degrees, *, about="center"):
    """Corners of the box (x0, y0, x1, y1) rotated by ``degrees`` clockwise on screen (the
    y axis points down), about its center or its top-left corner, as a flat list.

    CVAT rotates a ``<box>`` about its center, Label Studio a rectangle about its
    top-left corner; both turn clockwise in image coordinates.

    Parameters
    ----------
    x0, y0, x1, y1 : float
        The box before rotation.
    degrees : float
        The rotation, clockwise on screen.
    about : {"center", "top-left"}, default "center"
        The fixed point of the rotation.

    Returns
    -------
    list of float
        ``[x1, y1, x2, y2, x3, y3, x4, y4]``: the corners that were top-left, top-right,
        bottom-right and bottom-left.

    Examples
    --------
    >>> [round(v, 9) + 0.0 for v in rotated_rectangle(0, 0, 4, 2, 90)]
    [3.0, -1.0, 3.0, 3.0, 1.0, 3.0, 1.0, -1.0]
    >>> [round(v, 9) + 0.0 for v in rotated_rectangle(0, 0, 4, 2, 90, about="top-left")]
    [0.0, 0.0, 0.0, 4.0, -2.0, 4.0, -2.0, 0.0]
    """
    if about == "center":
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    else:
        cx, cy = x0, y0
    t = math.radians(degrees)
    c, s = math.cos(t), math.sin(t)
    out = []
    for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        dx, dy = x - cx, y - cy
        out += [cx + dx * c - dy * s, cy + dx * s + dy * c]
    return out
