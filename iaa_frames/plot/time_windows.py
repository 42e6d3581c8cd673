"""Every component per time window with its interval, and the re-calibration flag."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.frame.schema import ALL

from . import style

__all__ = ["over_time", "over_time_frame"]


def over_time_frame(
    result, *, label: str = ALL, annotator: str = ALL, components=COMPONENTS
) -> pd.DataFrame:
    """The numbers of :func:`over_time`: one row per (window, component).

    Parameters
    ----------
    result : xarray.Dataset
        A result of :func:`iaa_frames.agreement_over_time`.
    label, annotator : str, default "(all)"
        The cell drawn.
    components : sequence of str, default every component

    Returns
    -------
    pandas.DataFrame
        Columns ``window``, ``component``, ``agreement``, ``ci_low``, ``ci_high``,
        ``n_items``, ``baseline``, ``recalibrate`` (the flag of the latest window, on
        every row of its component).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement_over_time(iaf.simulate_drift(n_items=48, seed=0), freq="D",
    ...                               n_chance=100, n_boot=20)
    >>> over_time_frame(res, components=["detection"])[["component", "n_items"]].values.tolist()
    [['detection', 24], ['detection', 24]]
    """
    if "window" not in result.dims or "recalibrate" not in result:
        raise ParameterError("over_time draws a result of iaf.agreement_over_time(df, ...)")
    components = views.check_components(result, components)
    views.check_cell(result, label=label, annotator=annotator)
    cell = result.sel(label=label, annotator=annotator, component=components)
    frame = cell[["agreement", "ci_low", "ci_high"]].to_dataframe().reset_index()
    frame = frame.merge(cell["n_items"].to_dataframe().reset_index()[["window", "n_items"]])
    flags = cell[["baseline", "recalibrate"]].to_dataframe().reset_index()
    frame = frame.merge(flags[["component", "baseline", "recalibrate"]], on="component")
    order = {c: i for i, c in enumerate(components)}
    frame = frame.iloc[np.lexsort((frame["window"], frame["component"].map(order)))]
    cols = ["window", "component", "agreement", "ci_low", "ci_high", "n_items", "baseline"]
    return frame[[*cols, "recalibrate"]].reset_index(drop=True)


def over_time(
    result,
    *,
    label: str = ALL,
    annotator: str = ALL,
    components=COMPONENTS,
    width: float | None = None,
    ax=None,
):
    """Every component per time window, with its interval; the latest window circled in
    red where it is flagged for re-calibration.

    Reading: each point is the agreement of the items whose last annotation fell in that
    window, with its bootstrap interval; the dotted line of a component is its baseline
    (every earlier window pooled). A red ring on the latest point: that window falls
    below the baseline beyond what resampling explains (``recalibrate``; an annotator's
    cell only when its drop is also beyond the other annotators', and ``change_window``
    says from which window on), the signal to re-train or re-brief the annotators.

    Parameters
    ----------
    result : xarray.Dataset
        A result of :func:`iaa_frames.agreement_over_time`.
    label, annotator : str, default "(all)"
    components : sequence of str, default every component
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 7).

    Returns
    -------
    matplotlib.axes.Axes
        Lines have ``gid="estimate:<component>"``, flags ``gid="recalibrate:<component>"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement_over_time(iaf.simulate_drift(n_items=72, seed=0), freq="D",
    ...                               n_chance=100, n_boot=20)
    >>> ax = over_time(res)
    >>> sorted(a.get_gid() for a in ax.collections if str(a.get_gid()).startswith("recal"))
    ['recalibrate:detection', 'recalibrate:localization', 'recalibrate:overall']
    """
    ax = style.checked_ax(ax)
    frame = over_time_frame(result, label=label, annotator=annotator, components=components)
    comps = list(dict.fromkeys(frame["component"]))
    windows = list(dict.fromkeys(frame["window"]))
    x_of = {w: i for i, w in enumerate(windows)}
    w = style.figure_width(width, style.WIDTH)
    offsets = np.linspace(-0.15, 0.15, len(comps)) if len(comps) > 1 else [0.0]
    with style.theme():
        # narrow: the slanted dates, the legend's rows and the note take more of the height
        ax = style.new_axes(ax, (w, 2.8 if w >= 5 else 3.6))
        style.chance_line(ax, orientation="horizontal")
        for comp, dx in zip(comps, offsets):
            sub = frame[frame["component"] == comp]
            x = np.array([x_of[v] for v in sub["window"]], dtype=float) + dx
            y, lo, hi = (sub[v].to_numpy(dtype=float) for v in ("agreement", "ci_low", "ci_high"))
            color = style.component_color(comp)
            err = np.vstack([np.nan_to_num(y - lo), np.nan_to_num(hi - y)])
            ax.errorbar(
                x,
                y,
                yerr=err,
                color=color,
                marker=style.COMPONENT_MARKERS.get(comp, "o"),
                markersize=3.5,
                linewidth=1.2,
                capsize=2,
                label=f"{comp} {views.symbol(views.measure_of(result, comp))}",
                gid=f"estimate:{comp}",
            )
            style.off_scale(ax, x, y, color=color)  # the line runs off the axis to them
            base = float(sub["baseline"].iloc[0])
            if np.isfinite(base) and len(windows) > 1:
                ax.plot(
                    [-0.3, len(windows) - 1.7],
                    [base, base],
                    color=color,
                    linestyle=":",
                    linewidth=1,
                    gid=f"baseline:{comp}",
                )
            if bool(sub["recalibrate"].iloc[0]):
                ax.scatter(
                    [x[-1]],
                    [y[-1]],
                    s=90,
                    facecolors="none",
                    edgecolors="#d62728",
                    linewidths=1.5,
                    zorder=5,
                    gid=f"recalibrate:{comp}",
                )
        labels = [
            pd.Timestamp(v).strftime("%Y-%m-%d")
            if isinstance(v, (pd.Timestamp, np.datetime64))
            else f"{v:g}"
            for v in windows
        ]
        n = frame.drop_duplicates("window")["n_items"].tolist()
        narrow = ax.figure.get_figwidth() < 5 or len(windows) > 6
        ax.set_xticks(range(len(windows)), [f"{t}\nn={k}" for t, k in zip(labels, n)])
        if narrow:  # dates side by side do not fit: slanted
            for tick in ax.get_xticklabels():
                tick.set(rotation=30, ha="right", rotation_mode="anchor")
        bottom, top = style.value_range(frame[["agreement", "ci_low", "ci_high"]])
        ax.set_ylim(bottom - 0.05, top + 0.03)
        ax.grid(axis="y", color="0.92")
        ax.set_xlabel("window (of each item's last annotation)")
        ax.set_ylabel("agreement" if narrow else style.long_name(result["agreement"], "agreement"))
        where = [
            f"{d} {style.safe_name(v)}"
            for d, v in (("label", label), ("annotator", annotator))
            if v != ALL
        ]
        ax.set_title("agreement over time" + (f" ({', '.join(where)})" if where else ""))
        legend = style.legend_below(ax, min_width=1.15, handlelength=1.6, columnspacing=1.0)
        flagged = [c for c in comps if frame.loc[frame["component"] == c, "recalibrate"].iloc[0]]
        text = (
            "red ring: the latest window is below the earlier ones beyond the intervals "
            f"({', '.join(flagged)}): re-calibrate"
            if flagged
            else "no component of the latest window falls below the earlier ones beyond the intervals"
        )
        text += "; dotted: the earlier windows pooled"
        extreme = style.off_scale_note(frame["agreement"])
        style.note(ax, text + (f"\n{extreme}" if extreme else ""), below=legend)
    return ax
