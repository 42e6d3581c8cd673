"""How many items: the interval's half-width against the number of items, from a plan."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogFormatter, LogLocator, NullFormatter

from iaa_frames.errors import ParameterError

from . import style

#: Each component's plan interval sits in its own lane, this factor below the previous.
_LANE = 0.93

__all__ = ["plan"]


def plan(result, *, width: float | None = None, ax=None):
    """The half-width of the 95 % interval against the number of items, per component.

    Points: the half-widths of the pilot's m-out-of-n resamples
    (:func:`iaa_frames.plan`); lines: the fitted ``sqrt(c^2 / m + c_chance^2 / m^2)``, extended to the
    plan;
    the dashed line is the target and each component's plan is marked on it (a triangle),
    with the plan's own 95 % interval as a bar just under it (one lane per component, so
    that coinciding intervals stay apart). Both axes are logarithmic, so the fitted
    rate is a straight line of slope -1/2.

    Parameters
    ----------
    result : Plan
        From :func:`iaa_frames.plan`.
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 7).

    Returns
    -------
    matplotlib.axes.Axes
        Fitted lines have ``gid="fit:<component>"``, points ``gid="resampled:<component>"``.
        A component without a plan (not drawn) or without an interval on the pilot
        (``halfwidth_pilot`` n/a) is named in the note under the Axes (``gid="note"``) with
        the table's note, why.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> pilot = iaf.simulate(n_items=40, seed=0, annotators={"a": "good", "b": "sloppy"})
    >>> p = iaf.plan(pilot, target_halfwidth=0.02, component="localization", n_outer=5)
    >>> ax = plan(p)
    >>> sorted(line.get_gid() for line in ax.lines if str(line.get_gid()).startswith("fit"))
    ['fit:localization']
    """
    ax = style.checked_ax(ax)
    table, curve = getattr(result, "table", None), getattr(result, "curve", None)
    if table is None or curve is None:
        raise ParameterError(f"plan() draws the Plan of iaf.plan; got {type(result).__name__}")
    w = style.figure_width(width, style.WIDTH)
    target = float(result.params["target_halfwidth"])
    rows = table[np.isfinite(table["c"].to_numpy(dtype=float))]
    note = _undefined_note(table, set(rows["component"]))
    with style.theme():
        # a figure of its own grows by its note (else the note took the panel's room)
        ax = style.new_axes(ax, (w, 2.8 + style.note_height(note, w)))
        top = max([float(rows["n_items"].max()) if len(rows) else 1.0] + [float(curve["m"].max())])
        m = np.geomspace(max(2.0, float(curve["m"].min()) / 2), top * 1.5, 200)
        for k, (_, row) in enumerate(rows.iterrows()):
            comp = row["component"]
            color = style.component_color(comp)
            pts = curve[curve["component"] == comp]
            ax.plot(pts["m"], pts["halfwidth"], "o", color=color, ms=4, gid=f"resampled:{comp}")
            fitted = np.sqrt(
                row["c"] ** 2 / m + np.nan_to_num(row.get("c_chance", 0.0)) ** 2 / m**2
            )
            ax.plot(m, fitted, color=color, lw=1.2, label=comp, gid=f"fit:{comp}")
            n = float(row["n_items"])
            ax.plot([n], [target], marker="v", color=color, ms=6, gid=f"plan:{comp}")
            if not (pd.isna(row["n_low"]) or pd.isna(row["n_high"])):
                # one lane per component under the target line: the intervals of two
                # components overlap along x (detection and overall often coincide)
                lane = target * _LANE ** (k + 1)
                ax.plot(
                    [float(row["n_low"]), float(row["n_high"])],
                    [lane] * 2,
                    color=color,
                    lw=2,
                    alpha=0.7,
                    marker="|",
                    ms=5,
                    gid=f"plan_ci:{comp}",
                )
        ax.axhline(target, color=style.grey(), ls="--", lw=0.8, label=f"target ±{target:g}")
        grey = style.grey()
        ax.plot([], [], "o", color=grey, ms=4, label="pilot resamples")
        ax.plot([], [], "v", color=grey, ms=6, label="plan")
        ax.plot([], [], color=grey, lw=2, marker="|", label="plan 95 % CI")
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain = FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
        ax.xaxis.set_major_formatter(plain)
        # less than a decade of items labels the minor ticks: plain numbers there too
        # (matplotlib's default writes 2 x 10^0), on the ticks its formatter picks
        ax.xaxis.set_minor_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(1, 0.5)))
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("items annotated")
        ax.set_ylabel("half-width of the 95 % interval")
        style.legend_below(ax, min_width=1.4, handlelength=1.6, columnspacing=1.0)
        style.note(ax, note)
    return ax


def _undefined_note(table: pd.DataFrame, drawn: set) -> str:
    """The figure's note: each component without a plan (not drawn), or without an
    interval on the pilot (its ``halfwidth_pilot`` n/a), with the table's note (why)."""
    lines = []
    for row in table.itertuples(index=False):
        na = not np.isfinite(float(row.halfwidth_pilot))
        if row.component in drawn and not na:
            continue
        head = "no plan" if row.component not in drawn else "pilot half-width n/a"
        lines.append(f"{row.component}: {head}" + (f": {row.note}" if row.note else ""))
    return "\n".join(lines)
