"""Marks shared by the plots: "n/a" where a value would be drawn, and the span of an
agreement axis. Re-exported by :mod:`iaa_frames.plot.style`."""

from __future__ import annotations

import numpy as np

__all__ = ["GREY", "na_marks", "value_range"]

#: The grey of chance lines, notes and undefined values (:func:`iaa_frames.plot.style.grey`).
GREY = "0.45"


def na_marks(ax, positions, *, along: str = "y", at: float = 0.04, **kwargs) -> list:
    """ "n/a" written at each of ``positions`` (data coordinates along the axis ``along``),
    ``at`` the Axes fraction across it, where a value would be drawn (gid "undefined").

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    positions : sequence of float
    along : {"y", "x"}, default "y"
        The axis of the positions (rows of a forest: "y"; groups of a profile: "x").
    at : float, default 0.04
    **kwargs
        Text properties, over small grey text centred on its row.

    Examples
    --------
    >>> from iaa_frames.plot.figure import subplots
    >>> fig, ax = subplots()
    >>> [t.get_text() for t in na_marks(ax, [0, 2])]
    ['n/a', 'n/a']
    """
    kw = {"va": "center", "fontsize": "small", "color": GREY, "gid": "undefined", **kwargs}
    if along == "y":
        transform = ax.get_yaxis_transform()
        return [ax.text(at, p, "n/a", transform=transform, **kw) for p in positions]
    transform = ax.get_xaxis_transform()
    return [ax.text(p, at, "n/a", transform=transform, **kw) for p in positions]


def value_range(values, *, low: float = 0.0, high: float = 1.0) -> tuple[float, float]:
    """The span of an agreement axis: from chance (``low``) or the lowest finite value,
    whichever is lower, to ``high`` or the highest, whichever is higher.

    Examples
    --------
    >>> value_range([0.2, float("nan"), -0.3])
    (-0.3, 1.0)
    >>> value_range([])
    (0.0, 1.0)
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if not v.size:
        return low, high
    return min(low, float(v.min())), max(high, float(v.max()))
