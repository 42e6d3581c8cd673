"""How the item viewer (:func:`iaa_frames.plot.item`) draws the shapes that have no area:
polylines as open paths, points and point sets as markers.

The kinds scored by a distance (:class:`~iaa_frames.geometry.kinds.DistanceKind`:
``polyline``, ``point``, ``point_set`` and any registered like them) have no polygon form,
so the viewer's outline-and-fill does not apply. Each object is drawn as one
:class:`~matplotlib.lines.Line2D` in its annotator's colour, with the viewer's gid
``shape:<annotator>``:

* a polyline: its vertices joined in order (the padding repeats of the last vertex left
  out), a dot at each end (where a line stops shows); dashed and thicker when the object
  is unmatched, as the viewer draws the outline of an unmatched box (:func:`outline_style`);
* a point: one filled disc; a point set: one disc per point (no line between them: a set
  has no order); an unmatched point or point set is hollow (a marker has no dashed
  outline), with a thicker edge, and its Line2D is labelled :data:`HOLLOW` (the
  viewer's legend then says what hollow means).

Annotators that share a colour (beyond the palette) have their own line style and marker
(:func:`~iaa_frames.plot.style.annotator_styles`): a square, a triangle ... instead of the
disc, a dotted, dash-dot ... line.

Links between matched objects start at :func:`shape_anchor` (a point on the line, at half
its length; the point; the mean of a set's points), not at the centre of the box, which
for a curved line can lie off it.

Examples
--------
>>> import numpy as np
>>> from iaa_frames.geometry.kinds import POINT
>>> from iaa_frames.plot.figure import subplots
>>> fig, ax = subplots()
>>> line = draw_shape(ax, POINT, np.array([3.0, 4.0]), "C0", unmatched=False, gid="shape:a")
>>> line.get_xydata().tolist(), line.get_gid()
([[3.0, 4.0]], 'shape:a')
"""

from __future__ import annotations

import numpy as np

from iaa_frames.geometry.kinds import (
    DistanceKind,
    PointKind,
    PointSetKind,
    PolylineKind,
    parametric_kinds,
    polyline_vertices,
)
from iaa_frames.geometry.kinds.distance_kind import resample_lines

__all__ = [
    "HOLLOW",
    "UNMATCHED_DASHES",
    "distance_kinds",
    "draw_shape",
    "outline_style",
    "shape_anchor",
    "shape_points",
]

#: The label of the markers of an unmatched point or point set (hollow discs).
HOLLOW = "point_unmatched"

#: The dashes of an unmatched object's outline (of an annotator drawn solid).
UNMATCHED_DASHES = (0, (3, 2))


def outline_style(linestyle, unmatched: bool):
    """The line style of an object's outline: the annotator's ``linestyle``
    (:func:`~iaa_frames.plot.style.annotator_styles`), dashed when the object is unmatched
    and the annotator is drawn solid (an annotator of another style keeps it: its
    unmatched objects are told by their thicker line and their marks).

    Examples
    --------
    >>> outline_style("-", True), outline_style("-", False), outline_style(":", True)
    ((0, (3, 2)), '-', ':')
    """
    return UNMATCHED_DASHES if unmatched and linestyle in ("-", "solid") else linestyle


def distance_kinds(columns) -> list[DistanceKind]:
    """The registered kinds scored by a distance whose columns are all in ``columns``.

    Examples
    --------
    >>> [k.name for k in distance_kinds(["pt_x", "pt_y", "x0"])]
    ['point']
    """
    return [k for k in parametric_kinds(columns) if isinstance(k, DistanceKind)]


def shape_points(kind: DistanceKind, params) -> np.ndarray:
    """``(n, 2)`` what is drawn of one object (pixels): a line's vertices without the
    padding, a point, a set's points.

    Raises
    ------
    TypeError
        For a distance kind the viewer does not know how to draw (neither a polyline,
        a point nor a point set kind).

    Examples
    --------
    >>> from iaa_frames.geometry.kinds import POINT_SET, point_set_params
    >>> shape_points(POINT_SET, np.array(point_set_params(POINT_SET, [(1, 2), (3, 4)]))).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    params = np.asarray(params, dtype=np.float64)
    if isinstance(kind, PolylineKind):
        return polyline_vertices(kind, params)
    if isinstance(kind, PointKind):
        return params[None, :2].copy()
    if isinstance(kind, PointSetKind):
        xy, on = kind.split(params[None, :])
        return xy[0][on[0]]
    raise TypeError(f"the item viewer cannot draw shapes of the kind {kind.name!r}")


def shape_anchor(kind: DistanceKind, params) -> tuple[float, float]:
    """Where links to the object start: a line's point at half its length, a point, the
    mean of a set's points.

    Examples
    --------
    >>> from iaa_frames.geometry.kinds import POLYLINE, polyline_params
    >>> shape_anchor(POLYLINE, polyline_params(POLYLINE, [(0, 0), (4, 0), (4, 2)]))
    (3.0, 0.0)
    """
    xy = shape_points(kind, params)
    if isinstance(kind, PolylineKind):
        x, y = resample_lines(xy[None], 3)[0, 1]
    else:
        x, y = xy.mean(axis=0)
    return float(x), float(y)


def draw_shape(
    ax,
    kind: DistanceKind,
    params,
    color,
    *,
    unmatched: bool,
    gid: str,
    linestyle="-",
    marker: str = "o",
):
    """Draw one object of a distance kind (module docstring); the
    :class:`~matplotlib.lines.Line2D` drawn.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    kind : DistanceKind
    params : array of float
        The object's values of ``kind.columns`` (pixels).
    color
        The annotator's colour.
    unmatched : bool
        The object has an unmatched/missed/extra conflict: dashed line, hollow markers.
    gid : str
        The artist's gid (``shape:<annotator>``).
    linestyle, marker : optional
        The annotator's line style and marker (:func:`~iaa_frames.plot.style.annotator_styles`):
        a line's style (:func:`outline_style`), the marker of a point, a set's points and
        a line's ends.

    Returns
    -------
    matplotlib.lines.Line2D
    """
    xy = shape_points(kind, params)
    if isinstance(kind, PolylineKind):
        (line,) = ax.plot(
            xy[:, 0],
            xy[:, 1],
            color=color,
            lw=2.2 if unmatched else 1.6,
            linestyle=outline_style(linestyle, unmatched),
            solid_capstyle="round",
            marker=marker,
            markevery=[0, len(xy) - 1],
            markersize=3.5,
            markerfacecolor=color,
            markeredgewidth=0,
            zorder=2,
            gid=gid,
        )
        return line
    (line,) = ax.plot(
        xy[:, 0],
        xy[:, 1],
        linestyle="",
        marker=marker,
        markersize=6.5 if unmatched else 5.5,
        markerfacecolor="white" if unmatched else color,
        markeredgecolor=color,
        markeredgewidth=1.8 if unmatched else 0.8,
        zorder=3,
        gid=gid,
        label=HOLLOW if unmatched else "_point",
    )
    return line
