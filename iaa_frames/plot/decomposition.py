"""Per-label detection, classification and localization side by side."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.explore import views
from iaa_frames.frame.schema import ALL

from . import style
from .rows import by_note, ranked

__all__ = ["decomposition", "decomposition_frame"]

_DEFAULT = ("detection", "classification", "localization")


def decomposition_frame(
    result, *, components=_DEFAULT, annotator: str = ALL, top: int | None = 15
) -> pd.DataFrame:
    """The numbers of :func:`decomposition`: one row per (label, component).

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    components : sequence of str, default ("detection", "classification", "localization")
    annotator : str, default "(all)"
    top : int or None, default 15
        "(all)" plus the ``top`` labels by support (localization ``n_units``: matched
        pairs of the class), those with an interval first (as in :func:`forest_frame`);
        ``attrs["n_hidden"]`` counts the rest.

    Returns
    -------
    pandas.DataFrame
        Columns ``label``, ``component``, ``measure``, ``agreement``, ``ci_low``,
        ``ci_high``, ``n_units``; labels in display order.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> decomposition_frame(res)["component"].unique().tolist()
    ['detection', 'classification', 'localization']
    """
    frame = views.component_frame(
        result,
        components=components,
        along="label",
        fixed_dim="annotator",
        fixed=annotator,
        top=None,
    )
    # the classes by support, those that are read first (the rows of the forest plot)
    shown, hidden, n_unread = ranked(result, "label", top, fixed_dim="annotator", fixed=annotator)
    at = {lab: i for i, lab in enumerate(shown)}
    frame = frame[frame["label"].isin(at)]
    frame = frame.iloc[np.argsort(frame["label"].map(at).to_numpy(), kind="stable")]
    frame = frame.reset_index(drop=True)
    frame.attrs = {"n_hidden": hidden, "n_unread": n_unread, "top": top, "annotator": annotator}
    return frame


def decomposition(
    result,
    *,
    components=_DEFAULT,
    annotator: str = ALL,
    top: int | None = 15,
    width: float | None = None,
    ax=None,
):
    """Detection, classification and localization of each label, side by side.

    One row per label ("(all)" first, then the ``top`` labels by support), one dot per
    component (dodged, colored by component, the same colors as every other figure),
    with bootstrap CI whiskers and the chance line at 0. A label low only on
    classification has confusable classes, low only on localization has loose drawing
    guidelines, low only on detection has an unclear object definition.

    Parameters
    ----------
    result : xarray.Dataset
    components : sequence of str, default ("detection", "classification", "localization")
    annotator : str, default "(all)"
    top : int or None, default 15
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 7; 3.5 for one column).

    Returns
    -------
    matplotlib.axes.Axes
        Dots have ``gid="estimate:<component>"`` (those without an interval are drawn
        over hollow, ``gid="no_ci"``, "no interval" in the legend), whiskers
        ``gid="ci:<component>"``; an undefined value is "n/a" at its place
        (``gid="undefined"``) and the note says why.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> ax = decomposition(res)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['(all)', 'bicycle', 'car', 'person']
    """
    ax = style.checked_ax(ax)
    frame = decomposition_frame(result, components=components, annotator=annotator, top=top)
    labels = list(dict.fromkeys(frame["label"]))
    comps = list(dict.fromkeys(frame["component"]))
    missing = frame[~np.isfinite(frame["agreement"].to_numpy(dtype=float))]
    notes = [
        style.hidden_note(frame.attrs["n_hidden"], "labels", top, by_note(frame.attrs["n_unread"])),
        style.na_note(
            zip(
                missing["component"] + " of " + missing["label"].map(style.short_name),
                missing["note"],
            )
        ),
        style.off_scale_note(frame["agreement"]),
    ]
    note_text = "\n".join(n for n in notes if n)
    with style.theme():
        w = style.figure_width(width, style.WIDTH)
        # on the user's Axes (ax=): the room of its cell in the grid, not the figure's
        fig_in = style.cell_width(ax) if ax is not None else w
        # names cut to what an Axes of 2 in leaves (about 0.06 in a column of 7.5 pt, and
        # the ticks): at 3.5 in, 32-character names left it 1.4 in
        limit = max(12, min(style.NAME_CHARS, int((fig_in - 2.0 - 0.3) / 0.06)))
        names = [style.short_name(x, limit) for x in labels]
        # the note starts at the Axes' left edge, right of the names: wrapped to the room
        # they leave (wrapped to 0.75 of the width, it ran past the right edge at 3.5 in)
        names_in = 0.06 * max(map(style.columns, names), default=1) + 0.3
        note_in = max(2.0, fig_in - names_in - 0.1)
        # the rows, and the x label, legend and note under them
        ax = style.new_axes(ax, (w, 1.0 + 0.3 * len(labels) + style.note_room(note_in, note_text)))
        step = min(0.8 / max(len(comps), 1), 0.22)
        y_of = {lab: i for i, lab in enumerate(labels)}
        style.chance_line(ax)
        for k, comp in enumerate(comps):
            sub = frame[frame["component"] == comp]
            y = sub["label"].map(y_of).to_numpy(dtype=float) + (k - (len(comps) - 1) / 2) * step
            x = sub["agreement"].to_numpy(dtype=float)
            lo = sub["ci_low"].to_numpy(dtype=float)
            hi = sub["ci_high"].to_numpy(dtype=float)
            color = style.component_color(comp)
            ci = np.isfinite(lo) & np.isfinite(hi)
            if ci.any():
                ax.hlines(y[ci], lo[ci], hi[ci], color=color, linewidth=1.2, gid=f"ci:{comp}")
            shown = np.isfinite(x) & (x >= style.FLOOR)  # below: at the edge, value written
            what = f"{comp} {views.symbol(sub['measure'].iloc[0])}"
            style.off_scale(ax, y, x, along="y", color=color)
            ax.plot(
                x[shown],
                y[shown],
                "o",
                color=color,
                markersize=4,
                gid=f"estimate:{comp}",
                label=what,
            )
            bare = shown & ~ci  # a value without an interval: hollow, not a precise dot
            if bare.any():
                ax.plot(x[bare], y[bare], "o", markerfacecolor="white", markeredgecolor=color,
                        markeredgewidth=1.0, markersize=4, gid="no_ci", zorder=3)  # fmt: skip
            # an undefined value: "n/a" at its place, in the component's color
            style.na_marks(ax, y[~np.isfinite(x)], at=0.01, color=style.text_color(color),
                           fontsize=5.5, ha="left")  # fmt: skip
        ax.set_yticks(range(len(labels)), names)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        if len(labels) > 1:
            ax.axhline(0.5, color="0.8", linewidth=0.6, zorder=0)
        left, right = style.value_range(frame[["agreement", "ci_low", "ci_high"]])
        ax.set_xlim(left - 0.08, right + 0.05)
        ax.grid(axis="x", color="0.92")
        narrow = ax.get_position().width * ax.figure.get_figwidth() < 3.2  # inches
        ax.set_xlabel(
            style.long_name(result["agreement"], "agreement")
            + ("\n" if narrow else " ")
            + "(0 = chance, 1 = perfect)"
        )
        title = "agreement by component and label"
        if annotator != ALL:
            title += f" (annotator {annotator})"
        ax.set_title(title, wrap=True)  # over an Axes narrowed by long names: two lines
        fin = np.isfinite(frame["agreement"].to_numpy(dtype=float))
        ci = (np.isfinite(frame["ci_low"]) & np.isfinite(frame["ci_high"])).to_numpy()
        if (fin & ~ci).any():  # the hollow dots in the legend
            ax.plot([], [], "o", markerfacecolor="white", markeredgecolor="0.25",
                    markeredgewidth=1.0, markersize=4, label="no interval")  # fmt: skip
        legend = style.legend_below(ax, min_width=1.25, handlelength=1.6, columnspacing=1.0)
        style.note(ax, note_text, below=legend, width=note_in)
    return ax
