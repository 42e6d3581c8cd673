"""Every component against the match threshold τ, with its confidence band."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.thresholds import has_threshold_dim

from . import style

__all__ = ["threshold_curve", "threshold_frame"]


def threshold_frame(
    result, *, label: str = ALL, annotator: str = ALL, components=COMPONENTS
) -> pd.DataFrame:
    """The numbers of :func:`threshold_curve`: one row per (threshold, component).

    Parameters
    ----------
    result : xarray.Dataset
        An agreement result with a ``threshold`` dimension
        (``iaf.agreement(df, match_threshold=[...])``).
    label, annotator : str, default "(all)"
        The cell drawn.
    components : sequence of str, default every component

    Returns
    -------
    pandas.DataFrame
        Columns ``threshold``, ``component``, ``measure``, ``agreement``, ``ci_low``,
        ``ci_high``, ``n_units``, ``n_chance``, ``note``; thresholds increasing within
        each component, components in the order given.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0,
    ...                     match_threshold=[0.3, 0.5, 0.7])
    >>> f = threshold_frame(res, components=["localization"])
    >>> f["threshold"].tolist(), f["measure"].iloc[0]
    ([0.3, 0.5, 0.7], 'sigma')
    """
    views.check_dataset(result, ("agreement",), sweep=True)
    if not has_threshold_dim(result):
        raise ParameterError(
            "the threshold curve needs a result with a threshold dimension: compute it "
            "with several thresholds, e.g. iaf.agreement(df, match_threshold=[0.3, 0.5, "
            "0.7]) or df.iaa.plot.threshold_curve()"
        )
    components = views.check_components(result, components)
    views.check_cell(result, label=label, annotator=annotator)
    cell = result.sel(label=label, annotator=annotator, component=components)
    cols = [
        v
        for v in ("agreement", "ci_low", "ci_high", "n_units", "n_chance", "note")
        if v in cell.data_vars
    ]
    frame = cell[cols].to_dataframe().reset_index()
    for v in ("ci_low", "ci_high", "n_units", "n_chance"):
        if v not in frame:
            frame[v] = np.nan
    if "note" not in frame:
        frame["note"] = ""
    frame["measure"] = [views.measure_of(result, c) for c in frame["component"]]
    order = {c: i for i, c in enumerate(components)}
    frame = frame.iloc[
        np.lexsort((frame["threshold"].to_numpy(), frame["component"].map(order).to_numpy()))
    ]
    frame = frame[
        [
            "threshold",
            "component",
            "measure",
            "agreement",
            "ci_low",
            "ci_high",
            "n_units",
            "n_chance",
            "note",
        ]
    ].reset_index(drop=True)
    frame.attrs = {"label": label, "annotator": annotator}
    return frame


def _undefined_note(frame: pd.DataFrame) -> str:
    """'not defined: localization at τ = 0.8, 0.9 (too few chance units)', or ''."""
    bad = frame[~np.isfinite(frame["agreement"].to_numpy(dtype=float))]
    parts = []
    for comp, sub in bad.groupby("component", sort=False):
        taus = ", ".join(f"{t:g}" for t in sub["threshold"])
        reasons = sorted(
            {
                re.sub(r"\(n=\d+: ", "(", re.sub(r"\s*\(n=\d+\)", "", str(n)))
                for n in sub["note"]
                if str(n)
            }
        )
        why = f" ({'; '.join(reasons)})" if reasons else ""
        parts.append(f"{comp} at τ = {taus}{why}")
    if not parts:
        return ""
    return "not defined: " + "; ".join(parts)


def threshold_curve(
    result,
    *,
    label: str = ALL,
    annotator: str = ALL,
    components=COMPONENTS,
    width: float | None = None,
    ax=None,
):
    """Every component against the match threshold τ, with its confidence band.

    τ is the IoU gate of the matching (an assigned pair is a match when IoU >= τ, within
    items and for the chance pairings alike). Reading: where a component's curve is flat,
    its figure does not depend on the choice of τ; where it moves, the gate shapes it and
    the τ used must be reported with it. Detection falls when loosely drawn objects stop
    clearing the gate (they become misses); localization σ shrinks at high τ because only
    well-aligned pairs remain, within items and by chance alike; classification compares
    the labels of the pairs that pass the gate; overall does not use the gate except
    through the chance sample. Bands are the bootstrap intervals of the result (none when
    it was computed with ``n_boot=0``); a gap is a threshold where the figure is
    undefined, and the note under the plot says why.

    Parameters
    ----------
    result : xarray.Dataset
        An agreement result with a ``threshold`` dimension
        (``iaf.agreement(df, match_threshold=[0.1, 0.2, ..., 0.9])``).
    label, annotator : str, default "(all)"
        The cell drawn (a class, an annotator).
    components : sequence of str, default every component
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 7; 3.5 for one column).

    Returns
    -------
    matplotlib.axes.Axes
        Lines have ``gid="estimate:<component>"``, bands ``gid="ci:<component>"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=20,
    ...                     match_threshold=[0.3, 0.5, 0.7])
    >>> ax = threshold_curve(res)
    >>> ax.get_xlabel()
    'match threshold τ (IoU)'
    >>> sorted(line.get_gid() for line in ax.lines if line.get_gid().startswith("estimate"))
    ['estimate:classification', 'estimate:detection', 'estimate:localization', 'estimate:overall']
    """
    ax = style.checked_ax(ax)
    frame = threshold_frame(result, label=label, annotator=annotator, components=components)
    comps = list(dict.fromkeys(frame["component"]))
    taus = np.unique(frame["threshold"].to_numpy(dtype=float))
    w = style.figure_width(width, style.WIDTH)
    note = "\n".join(
        n for n in (_undefined_note(frame), style.off_scale_note(frame["agreement"])) if n
    )
    with style.theme():
        # room for the note under the legend: about 0.13 in per line after the first
        lines = style.note_lines(note, width=w if ax is None else ax.figure.get_figwidth())
        ax = style.new_axes(ax, (w, (2.6 if w >= 5 else 2.9) + 0.13 * max(lines - 1, 0)))
        style.chance_line(ax, orientation="horizontal")
        for comp in comps:
            sub = frame[frame["component"] == comp]
            x = sub["threshold"].to_numpy(dtype=float)
            y, lo, hi = (sub[v].to_numpy(dtype=float) for v in ("agreement", "ci_low", "ci_high"))
            color = style.component_color(comp)
            name = f"{comp} {views.symbol(views.measure_of(result, comp))}"
            band = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(y)
            if band.any():
                ax.fill_between(
                    x,
                    np.where(band, lo, np.nan),
                    np.where(band, hi, np.nan),
                    color=color,
                    alpha=0.18,
                    linewidth=0,
                    gid=f"ci:{comp}",
                )
            ax.plot(
                x,
                y,
                color=color,
                marker=style.COMPONENT_MARKERS.get(comp, "o"),
                markersize=3.5,
                linewidth=1.3,
                label=name,
                gid=f"estimate:{comp}",
            )
            style.off_scale(ax, x, y, color=color)  # the line runs off the axis to them
        if len(taus) <= 11:
            ax.set_xticks(taus, [f"{t:g}" for t in taus])
        pad = 0.03 if len(taus) > 1 else 0.1
        ax.set_xlim(float(taus.min()) - pad, float(taus.max()) + pad)
        bottom, top = style.value_range(frame[["agreement", "ci_low", "ci_high"]])
        ax.set_ylim(bottom - 0.05, top + 0.03)
        ax.grid(axis="both", color="0.92")
        ax.set_xlabel(style.long_name(result["threshold"], "match threshold τ"))
        ax.set_ylabel(style.long_name(result["agreement"], "agreement"))
        where = [
            f"{d} {style.safe_name(v)}"
            for d, v in (("label", label), ("annotator", annotator))
            if v != ALL
        ]
        ax.set_title(
            "agreement against the match threshold" + (f" ({', '.join(where)})" if where else "")
        )
        legend = style.legend_below(ax, min_width=1.15, handlelength=1.6, columnspacing=1.0)
        style.note(ax, note, below=legend)
    return ax
