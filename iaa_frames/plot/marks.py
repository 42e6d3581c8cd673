"""Marks shared by the plots: "n/a" where a value would be drawn and the note saying why,
the span of an agreement axis, and values below its floor drawn at its edge. Re-exported by
:mod:`iaa_frames.plot.style`."""

from __future__ import annotations

import re

import numpy as np

__all__ = ["FLOOR", "GREY", "na_marks", "na_note", "off_scale", "off_scale_note", "value_range"]

#: The grey of chance lines, notes and undefined values (:func:`iaa_frames.plot.style.grey`).
GREY = "0.45"

#: The lowest agreement an axis spans. σ below −1 (within-item distances more than twice
#: the chance distances) is never clipped from the figure: it is drawn at this edge, a
#: triangle pointing off the axis with its value written (:func:`off_scale`), so that one
#: lazy annotator at σ = −47 does not squeeze every other value into the top of the axis.
FLOOR = -1.0


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


def value_range(
    values, *, low: float = 0.0, high: float = 1.0, floor: float = FLOOR
) -> tuple[float, float]:
    """The span of an agreement axis: from chance (``low``) or the lowest finite value,
    whichever is lower but not below ``floor``, to ``high`` or the highest, whichever is
    higher. Values below ``floor`` are drawn at it by :func:`off_scale`.

    Examples
    --------
    >>> value_range([0.2, float("nan"), -0.3])
    (-0.3, 1.0)
    >>> value_range([0.8, -47.0])
    (-1.0, 1.0)
    >>> value_range([])
    (0.0, 1.0)
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if not v.size:
        return low, high
    return max(min(low, float(v.min())), floor), max(high, float(v.max()))


def off_scale(ax, positions, values, *, floor: float = FLOOR, along: str = "x", color=GREY) -> list:
    """Values below ``floor`` drawn at it: a triangle pointing off the axis, and the value
    written beside it (gid "off-scale"). Their whiskers run off the axis, clipped by it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    positions, values : sequence of float
        Where each value would be drawn across the agreement axis, and the value.
    floor : float, default :data:`FLOOR`
        The lowest value the agreement axis spans (see :func:`value_range`).
    along : {"x", "y"}, default "x"
        The axis of the positions: "x" when agreement is on the y axis (a profile), "y"
        when it is on the x axis (a forest).
    color : color, default grey

    Returns
    -------
    list
        The triangles' Line2D (if any) followed by the value texts.

    Examples
    --------
    >>> from iaa_frames.plot.figure import subplots
    >>> fig, ax = subplots()
    >>> marks = off_scale(ax, [0, 1, 2], [0.5, -47.0, float("nan")])
    >>> [t.get_text() for t in marks[1:]]
    ['−47']
    """
    p = np.asarray(positions, dtype=float).ravel()
    v = np.asarray(values, dtype=float).ravel()
    below = np.isfinite(v) & (v < floor)
    if not below.any():
        return []
    edge = np.full(int(below.sum()), float(floor))
    text = {"fontsize": 6, "color": color, "gid": "off-scale", "textcoords": "offset points",
            "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 0.4, "alpha": 0.85}}  # fmt: skip
    if along == "x":  # agreement up the y axis: pointing down, the value above
        xy, marker, offset = np.column_stack([p[below], edge]), "v", (0, 4)
        text.update(ha="center", va="bottom", rotation=90)
    else:  # agreement along the x axis: pointing left, the value to its right
        xy, marker, offset = np.column_stack([edge, p[below]]), "<", (4, 0)
        text.update(ha="left", va="center")
    (line,) = ax.plot(xy[:, 0], xy[:, 1], linestyle="none", marker=marker, color=color,
                      markersize=4.5, clip_on=False, zorder=6, gid="off-scale")  # fmt: skip
    labels = [
        ax.annotate(f"{x:.3g}".replace("-", "−"), (a, b), xytext=offset, **text)
        for (a, b), x in zip(xy, v[below])
    ]
    return [line, *labels]


def off_scale_note(values, *, floor: float = FLOOR) -> str:
    """The note that explains :func:`off_scale` marks, or ``""`` when there are none.

    Examples
    --------
    >>> off_scale_note([0.4, -47.0, -3.2])
    '2 values below −1: drawn at the edge of the axis (a triangle), their value written'
    >>> off_scale_note([0.4, -0.7])
    ''
    """
    v = np.asarray(values, dtype=float).ravel()
    n = int((np.isfinite(v) & (v < floor)).sum())
    if not n:
        return ""
    at = f"{floor:g}".replace("-", "−")
    what = "value" if n == 1 else "values"
    return (
        f"{n:,} {what} below {at}: drawn at the edge of the axis (a triangle), their value written"
    )


#: The number of a reason, which the reasons of one kind differ by: a count ("(n=27: the
#: whole chance population)") or an expected number ("(1.5): unrelated matched objects");
#: the reasons that differ only by it are one line of the note.
_COUNT = re.compile(r"\((n=)?(\d+(?:\.\d+)?)([^)]*)\)")


def na_note(entries, *, limit: int = 6) -> str:
    """Why values are missing, grouped by reason: one line per reason, naming where.

    Parameters
    ----------
    entries : iterable of (str, str)
        ``(where, reason)`` of each missing value (e.g. ``("localization, ben", "too few
        chance units (n=27: ...)")``); empty reasons and "not applicable" are left out.
    limit : int, default 6
        Places named per reason; the others are counted.

    Returns
    -------
    str
        ``"n/a: too few chance units (n=27, 29: the whole chance population): ben, chloe"``
        (one line per reason), or ``""``.

    Examples
    --------
    >>> na_note([("ben", "too few chance units (n=27: the whole chance population)"),
    ...          ("chloe", "too few chance units (n=29: the whole chance population)")])
    'n/a: too few chance units (n=27, 29: the whole chance population): ben, chloe'
    >>> print(na_note([("ann", "too few disagreements expected by chance (1.5): rare"),
    ...                ("ben", "too few disagreements expected by chance (0.9): rare")]))
    n/a: too few disagreements expected by chance (0.9, 1.5): rare: ann, ben
    """
    groups: dict = {}
    for where, reason in entries:
        reason = "" if reason is None else str(reason)
        if not reason or reason == "not applicable":
            continue
        m = _COUNT.search(reason)
        key = _COUNT.sub("(\\1#\\3)", reason, count=1) if m else reason
        ns, places = groups.setdefault(key, ([], []))
        if m and float(m.group(2)) not in ns:
            ns.append(float(m.group(2)))
        places.append(str(where))
    lines = []
    for key, (ns, places) in groups.items():
        ns = sorted(ns)
        counts = ", ".join(f"{int(n):,}" if n.is_integer() else f"{n:g}" for n in ns[:4])
        counts += "…" if len(ns) > 4 else ""
        text = key.replace("#", counts) if ns else key
        named = ", ".join(places[:limit])
        if len(places) > limit:
            named += f" and {len(places) - limit:,} more"
        lines.append(f"n/a: {text}: {named}")
    return "\n".join(lines)
