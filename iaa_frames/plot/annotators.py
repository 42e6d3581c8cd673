"""Each annotator's profile across the components."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.explore.compact import natural_key
from iaa_frames.frame.schema import ALL

from . import style
from .crowd import ends_note, two_ends

__all__ = ["annotators", "profile_frame"]

_DEFAULT = COMPONENTS
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


def profile_frame(
    result, *, components=_DEFAULT, label: str = ALL, top: int | None = 10, rank_by=None
) -> pd.DataFrame:
    """The numbers of :func:`annotators`: one row per (annotator, component).

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    components : sequence of str, default every component
    label : str, default "(all)"
    top : int or None, default 10
        Most annotators shown besides "(all)". A bigger crowd is shown by its two ends: the
        ``top - top // 2`` annotators of highest ``rank_by`` agreement, then the
        ``top // 2`` of lowest (an annotator whose ``rank_by`` value is n/a is not
        ranked); ``attrs["n_hidden"]`` counts the others.
    rank_by : str, optional
        The component that ranks a crowd (default "overall" when it is among
        ``components``, else the first of them).

    Returns
    -------
    pandas.DataFrame
        Columns ``annotator``, ``component``, ``measure``, ``agreement``, ``ci_low``,
        ``ci_high``, ``n_units``, ``note``, and ``block``: ``"all"``, ``"shown"`` (every
        annotator drawn), or ``"highest"`` / ``"lowest"`` for the two ends of a crowd.
        ``attrs`` hold ``n_hidden``, ``top``, ``rank_by`` and ``n_unranked`` (annotators
        left out because their ``rank_by`` value is n/a).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> profile_frame(res)["annotator"].iloc[0]
    '(all)'
    >>> ends = profile_frame(res, top=2, rank_by="detection")
    >>> ends.drop_duplicates("annotator")["block"].tolist(), ends.attrs["n_hidden"]
    (['all', 'highest', 'lowest'], 1)
    """
    components = [components] if isinstance(components, str) else list(components)
    frame = views.component_frame(
        result, components=components, along="annotator", fixed_dim="label", fixed=label, top=None
    )
    if rank_by is None:
        rank_by = "overall" if "overall" in components else components[0]
    if rank_by not in components:
        raise ParameterError(f"rank_by must be one of the components {components}; got {rank_by!r}")
    top = views.check_top(top)
    others = [a for a in dict.fromkeys(frame["annotator"]) if a != ALL]
    block = pd.Series("shown", index=frame.index, dtype=object)
    block[frame["annotator"] == ALL] = "all"
    attrs = {"n_hidden": 0, "top": top, "rank_by": rank_by, "n_unranked": 0, "label": label}
    if top is not None and len(others) > top:
        at = frame[(frame["component"] == rank_by) & (frame["annotator"] != ALL)]
        ranked = at[np.isfinite(at["agreement"].to_numpy(dtype=float))]
        # highest first; ties by name, so that the ends do not depend on the row order
        ranked = ranked.iloc[
            np.lexsort(
                (ranked["annotator"].map(natural_key).rank(method="first").to_numpy(),
                 -ranked["agreement"].to_numpy(dtype=float))
            )
        ]  # fmt: skip
        order = list(ranked["annotator"])
        high, low = two_ends(order, top)
        ends = {**{a: "highest" for a in high}, **{a: "lowest" for a in low}}
        keep = (frame["annotator"] == ALL) | frame["annotator"].isin(list(ends))
        rank = {a: i for i, a in enumerate([ALL, *high, *low])}
        frame = frame[keep].copy()
        block = frame["annotator"].map(ends).fillna("all")
        frame = frame.iloc[np.argsort(frame["annotator"].map(rank).to_numpy(), kind="stable")]
        block = block.loc[frame.index]
        attrs.update(n_hidden=len(others) - len(ends), n_unranked=len(others) - len(order))
    frame = frame.assign(block=block.to_numpy()).reset_index(drop=True)
    frame.attrs = attrs
    return frame


def crowd_note(frame, result) -> str:
    """The footnote of a crowd shown by its ends: how many are hidden and how ranked
    (``""`` when every annotator is drawn)."""
    a = frame.attrs
    if not a["n_hidden"]:
        return ""
    blocks = frame.drop_duplicates("annotator")["block"]
    n_high, n_low = int((blocks == "highest").sum()), int((blocks == "lowest").sum())
    what = f"{a['rank_by']} {views.symbol(views.measure_of(result, a['rank_by']))}"
    text = ends_note(a["n_hidden"], n_high, n_low, what, where="left and right of the dotted lines")
    if a["n_unranked"]:
        text += f"; {a['n_unranked']:,} with {a['rank_by']} n/a are not ranked"
    return text


def annotators(
    result,
    *,
    components=_DEFAULT,
    label: str = ALL,
    top: int | None = 10,
    rank_by: str | None = None,
    width: float | None = None,
    ax=None,
):
    """Each annotator's agreement profile across the components.

    One group per component (x axis), one dot per annotator with its bootstrap CI
    whisker, in the annotator's color of :func:`~iaa_frames.plot.annotator_colors` (the
    same in every figure of the result); the black bar is everybody ("(all)"), with its
    interval as a grey band, the grey dashed line chance. No line joins the components:
    σ and α are different scales. A missing value is written "n/a" in a shaded band of its
    own under the axis (apart from every value, chance included), and the note under the
    legend says why. An annotator below the black line on one component is the one to look
    at there. The per-annotator figures are those of the result (pairs and units
    involving the annotator; see :func:`iaa_frames.agreement`).

    Parameters
    ----------
    result : xarray.Dataset
    components : sequence of str, default every component
    label : str, default "(all)"
    top : int or None, default 10
        Most annotators drawn. A bigger crowd is drawn by its two ends, the highest and
        the lowest by ``rank_by`` agreement (see :func:`profile_frame`), a dotted line
        between them in every group; one note says how many were left out and how they
        are ranked.
    rank_by : str, optional
        The component that ranks a crowd (default "overall").
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 7; 3.5 for one column).

    Returns
    -------
    matplotlib.axes.Axes
        Dots have ``gid="profile:<annotator>"`` (``"profile:(all)"``: the bars of
        everybody), whiskers ``gid="ci:<annotator>"``, "n/a" marks ``gid="undefined"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> ax = annotators(res)
    >>> ax.get_xticklabels()[-1].get_text().split()
    ['overall', 'σ']
    """
    ax = style.checked_ax(ax)
    frame = profile_frame(result, components=components, label=label, top=top, rank_by=rank_by)
    comps = list(dict.fromkeys(frame["component"]))
    names = list(dict.fromkeys(frame["annotator"]))
    ends = bool(frame.attrs["n_hidden"])  # a crowd by its ends: in rank order
    others = [a for a in names if a != ALL]
    if not ends:
        others = sorted(others, key=natural_key)
    names = ([ALL] if ALL in names else []) + others
    n_high = int((frame.drop_duplicates("annotator")["block"] == "highest").sum())
    colors = style.annotator_colors(result)
    markers = {
        a: _MARKERS[i % len(_MARKERS)]
        for i, a in enumerate(a for a in colors if a != ALL)  # colors: natural order
    }
    values = frame["agreement"].to_numpy(dtype=float)
    gone = frame[~np.isfinite(values)]
    missing = list(zip(gone["component"] + " of " + gone["annotator"], gone["note"]))
    notes = [crowd_note(frame, result), style.na_note(missing), style.off_scale_note(values)]
    low = frame["ci_low"].to_numpy(dtype=float)
    n_cut = int((np.isfinite(low) & (low < style.FLOOR)).sum())
    if n_cut:  # drawn to the edge of the axis: its lower end is not where it stops
        floor = f"{style.FLOOR:g}".replace("-", "−")
        plural = "intervals" if n_cut > 1 else "interval"
        notes.append(f"{n_cut:,} {plural} reaching below {floor}: cut at the edge of the axis")
    note_text = "\n".join(n for n in notes if n)
    bottom, top_ = style.value_range(frame[["agreement", "ci_low", "ci_high"]])
    # undefined values in a band of their own under the axis, apart from every value
    band = 0.18 * (top_ - bottom) if len(gone) else 0.0
    na_at = bottom - 0.05 - band / 2
    with style.theme():
        w = style.figure_width(width, style.WIDTH)
        # the panel (at least 1.3 in: its y label's length), the legend's rows, the note
        legend_rows = 1 + (len(others) + 2 + bool(len(gone))) // max(1, int(w / 0.95))
        h = 2.3 + 0.16 * legend_rows + style.note_height(note_text, w)
        own = ax is None
        ax = style.new_axes(ax, (w, h))
        style.chance_line(ax, orientation="horizontal")
        span = min(0.7, 0.09 * (len(others) + 1))
        x0 = np.arange(len(comps), dtype=float)
        # the intervals stop at the axis' floor: under it lies the band of undefined values,
        # which an interval below -1 ran into (a crowd's classification band filled it)
        edge = bottom - 0.05 if band else -np.inf
        # an upright "n/a" (6 pt) per annotator needs about 7 pt between neighbours; closer
        # (10 annotators at 3.5 in), the band holds each annotator's marker instead, the
        # band itself named "n/a"
        panel_w = ax.get_position().width * ax.figure.get_figwidth()
        crowded = panel_w / len(comps) * span / max(len(others), 1) * 72 < 7
        for name in names:
            sub = frame[frame["annotator"] == name]
            y = sub["agreement"].to_numpy(dtype=float)
            lo = np.maximum(sub["ci_low"].to_numpy(dtype=float), edge)
            hi = sub["ci_high"].to_numpy(dtype=float)
            ci = np.isfinite(lo) & np.isfinite(hi)
            ok = np.isfinite(y)
            shown = ok & (y >= style.FLOOR)  # below the floor: at the edge, value written
            if name == ALL:
                # everybody: a black bar across the component's group, its interval a band
                half = span / 2 + 0.06
                for xx, lo_, hi_ in zip(x0[ci], lo[ci], hi[ci]):
                    ax.fill_between(
                        [xx - half, xx + half],
                        lo_,
                        hi_,
                        color="0.85",
                        linewidth=0,
                        zorder=1,
                        gid="ci:(all)",
                    )
                style.off_scale(ax, x0, y, color=colors[ALL])
                ax.hlines(
                    y[shown],
                    x0[shown] - half,
                    x0[shown] + half,
                    color=colors[ALL],
                    linewidth=1.4,
                    zorder=3,
                    gid="profile:(all)",
                    label="all annotators",
                )
                # everybody undefined: no bar (one in the band read as a value just below
                # chance); the note names the cell and says why
                continue
            j = others.index(name)
            x = x0 + (j - (len(others) - 1) / 2) * (span / max(len(others), 1))
            color = colors[name]
            if ci.any():
                ax.vlines(x[ci], lo[ci], hi[ci], color=color, linewidth=1.0, alpha=0.9, zorder=4,
                          gid=f"ci:{name}")  # fmt: skip
            style.off_scale(ax, x, y, color=color)
            ax.plot(
                x[shown],
                y[shown],
                linestyle="none",
                marker=markers.get(name, "o"),
                color=color,
                markersize=4.5,
                markeredgecolor="white",
                markeredgewidth=0.4,
                zorder=5,
                label=style.safe_name(name),
                gid=f"profile:{name}",
            )
            bare = shown & ~ci  # a value without an interval: hollow, not a precise dot
            if bare.any():
                ax.plot(x[bare], y[bare], linestyle="none", marker=markers.get(name, "o"),
                        markerfacecolor="white", markeredgecolor=color, markeredgewidth=1.0,
                        markersize=4.5, zorder=6, gid="no_ci")  # fmt: skip
            if crowded and (~ok).any():  # the annotator's marker in the band named "n/a"
                ax.plot(x[~ok], np.full(int((~ok).sum()), na_at), linestyle="none",
                        marker=markers.get(name, "o"), color=color, markersize=3.5,
                        markeredgewidth=0.4, zorder=5, gid="undefined")  # fmt: skip
                continue
            for xx in x[~ok]:  # "n/a" in the band under the axis, in the annotator's color
                ax.text(xx, na_at - 0.1 * band, "n/a", rotation=90, ha="center", va="center", fontsize=6,
                        color=style.text_color(color), gid="undefined")  # fmt: skip
        if ends and 0 < n_high < len(others):
            # the two ends of the crowd apart: a dotted line in every group between them
            step = span / max(len(others), 1)
            at = x0 + (n_high - 0.5 - (len(others) - 1) / 2) * step
            ax.vlines(at, 0, 1, transform=ax.get_xaxis_transform(), color="0.35",
                      linestyle=":", linewidth=0.9, zorder=2, gid="separator")  # fmt: skip
        ticks = [f"{c}\n{views.symbol(views.measure_of(result, c))}" for c in comps]
        ax.set_xticks(range(len(comps)), ticks)
        ax.set_xlim(-0.5, len(comps) - 0.5)
        ax.set_ylim(bottom - 0.05 - band, top_ + 0.03)
        if band:  # the band of undefined values: shaded, named at the left like a tick
            ax.axhspan(bottom - 0.05 - band, bottom - 0.05, color="0.95", linewidth=0,
                       zorder=0, gid="na_band")  # fmt: skip
            ax.axhline(bottom - 0.05, color="0.6", linewidth=0.6, zorder=1)
            ax.annotate("n/a", (0, na_at), xycoords=ax.get_yaxis_transform(), xytext=(-3, 0),
                        textcoords="offset points", ha="right", va="center",
                        fontsize="small", color=style.grey())  # fmt: skip
        ax.grid(axis="y", color="0.92")
        ylabel = style.long_name(result["agreement"], "agreement")
        # on two lines where the panel is short (its one line ran off the figure's top): the
        # panel is what the title, ticks, legend and note leave (about 0.055 in a character)
        panel = (
            h - 0.85 - 0.16 * legend_rows - style.note_height(note_text, w)
            if own
            else ax.get_position().height * ax.figure.get_figheight()
        )
        short = panel < 0.055 * len(ylabel)
        ax.set_ylabel(textwrap.fill(ylabel, 18) if short else ylabel)
        title = "annotator profiles"
        if label != ALL:
            title += f" (label {style.safe_name(label)})"
        ax.set_title(title)
        others_ = frame[frame["annotator"] != ALL]
        fin = np.isfinite(others_["agreement"].to_numpy(dtype=float))
        ci_ = (np.isfinite(others_["ci_low"]) & np.isfinite(others_["ci_high"])).to_numpy()
        if (fin & ~ci_).any():  # the hollow dots in the legend
            ax.plot([], [], "o", markerfacecolor="white", markeredgecolor="0.25",
                    markeredgewidth=1.0, markersize=4.5, label="no interval")  # fmt: skip
        legend = style.legend_below(ax, min_width=0.95, handlelength=1.6, columnspacing=1.0)
        style.note(ax, note_text, below=legend)
    return ax
