"""Forest plot of agreement per label, one panel per component."""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.explore.compact import natural_key
from iaa_frames.frame.schema import ALL

from . import style
from .forest_size import figure as _figure
from .forest_size import name_columns as _name_columns
from .forest_size import rows_that_fit as _rows_that_fit
from .rows import by_note, ranked

__all__ = ["agreement", "forest", "forest_frame"]


def forest_frame(
    result,
    *,
    components=None,
    label: str | None = None,
    annotator: str | None = None,
    top: int | None = 20,
) -> pd.DataFrame:
    """The numbers of the forest plot, in long form.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    components : sequence of str, optional
        Default: every component of the result.
    label, annotator : str, optional
        Neither (default): one row per label, for "(all)" annotators. ``annotator=A``:
        one row per label, for annotator A. ``label=L``: one row per annotator, on
        label L. Not both.
    top : int or None, default 20
        Keep "(all)" and the ``top`` rows by support (localization ``n_units``: matched
        object pairs), those with an interval first when the corpus has intervals (the
        others rest on too few items to be read: :func:`iaa_frames.plot.rows.unread`);
        ``attrs["n_hidden"]`` counts the others, ``attrs["n_unread"]`` the rows not read.

    Returns
    -------
    pandas.DataFrame
        One row per (component, row): ``component``, ``measure``, ``row`` (a label or an
        annotator), ``agreement``, ``ci_low``, ``ci_high``, ``raw_iou``, ``n_units``,
        ``note``; rows in display order. ``attrs``: ``rows`` ("label" or "annotator"),
        ``fixed`` (the other coordinate), ``n_hidden``, ``top``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=0)
    >>> forest_frame(res, top=2)["row"].unique().tolist()
    ['(all)', 'bicycle', 'car']
    >>> forest_frame(res, label="car")["row"].unique().tolist()
    ['(all)', 'A', 'B', 'C']
    """
    views.check_dataset(result, ("agreement", "n_units"))
    comps = _components(result, components)
    if label is not None and annotator is not None:
        raise ParameterError(
            "give label= (rows are annotators) or annotator= (rows are labels), not both"
        )
    if label is not None:
        along, fixed_dim, fixed = "annotator", "label", label
    else:
        along, fixed_dim, fixed = "label", "annotator", ALL if annotator is None else annotator
    if fixed not in [str(v) for v in result[fixed_dim].values]:
        raise ParameterError(
            f"unknown {fixed_dim} {fixed!r}; the result has "
            f"{[str(v) for v in result[fixed_dim].values]}"
        )
    # the rows by support at the fixed coordinate, those that are read first
    rows, hidden, n_unread = ranked(result, along, top, fixed_dim=fixed_dim, fixed=fixed)
    if along == "annotator":  # annotators in name order (their colors' order)
        rows = [ALL] + sorted((r for r in rows if r != ALL), key=natural_key)
    sub = result.sel({"component": comps, along: rows, fixed_dim: fixed})
    variables = [
        v
        for v in ("agreement", "ci_low", "ci_high", "raw_iou", "n_units", "note")
        if v in sub.data_vars
    ]
    frame = sub[variables].to_dataframe().reset_index().rename(columns={along: "row"})
    for v in ("ci_low", "ci_high", "raw_iou"):
        if v not in frame:
            frame[v] = np.nan
    if "note" not in frame:
        frame["note"] = ""
    frame["measure"] = [views.measure_of(result, c) for c in frame["component"]]
    frame = frame[
        [
            "component",
            "measure",
            "row",
            "agreement",
            "ci_low",
            "ci_high",
            "raw_iou",
            "n_units",
            "note",
        ]
    ]
    frame.attrs = {
        "rows": along,
        "fixed": fixed,
        "fixed_dim": fixed_dim,
        "n_hidden": hidden,
        "n_unread": n_unread,
        "top": top,
    }
    return frame


def _components(result, components):
    available = [str(c) for c in result["component"].values]
    if components is None:
        return [c for c in COMPONENTS if c in available] + [
            c for c in available if c not in COMPONENTS
        ]
    return views.check_components(result, components)


_RAW = "raw IoU"  # the extra panel


def forest(
    result,
    *,
    components=None,
    label: str | None = None,
    annotator: str | None = None,
    top: int | None = 20,
    raw_iou: bool = True,
    width: float | None = None,
    height: float | None = None,
    axes=None,
):
    """Forest plot: agreement with bootstrap CIs, one panel per component.

    Each row (a label, or with ``label=`` an annotator) is a dot at its agreement (σ or
    α) with whiskers from ``ci_low`` to ``ci_high``; the dashed line at 0 is chance.
    Undefined values (NaN) are written "n/a". With ``raw_iou`` the uncorrected mean IoU
    of matched pairs, the figure annotation tools show, gets a panel of its own (its axis
    is IoU, not agreement), beside localization σ. Panels wrap into rows when ``width``
    is narrow (two per row at 3.5 in).

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    components : sequence of str, optional
        Panels, in order; default every component.
    label, annotator : str, optional
        See :func:`forest_frame`.
    top : int or None, default 20
        "(all)" plus the ``top`` rows by support; a note says how many were left out.
    raw_iou : bool, default True
        Add the raw IoU panel (when localization is drawn).
    width : float, optional
        Figure width in inches (default 7; 3.5 for one column).
    height : float, optional
        Figure height in inches. By default it grows with the number of rows and the
        note, up to 8 in (and twice the width): beyond, fewer than ``top`` rows are drawn
        (those of most support) and the note says how many were left out.
    axes : sequence of matplotlib Axes, optional
        One Axes per panel to draw into; by default a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        Points have ``gid="estimate"`` (those without an interval are drawn over hollow,
        ``gid="no_ci"``, and the legend says "no interval"), whiskers ``gid="ci"``, raw
        IoU ``gid="raw_iou"``, the chance line ``gid="chance"``, the truncation note
        ``gid="note"``. With ``label=`` (or ``annotator=``) the legend's title names it.

    See Also
    --------
    forest_frame : the numbers drawn.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=10, seed=0), n_chance=100, n_boot=20)
    >>> fig = forest(res, components=["detection", "localization"])
    >>> [ax.get_title() for ax in fig.axes]
    ['detection σ', 'localization σ', 'raw IoU']
    """
    frame = forest_frame(result, components=components, label=label, annotator=annotator, top=top)
    comps = list(dict.fromkeys(frame["component"]))
    rows = list(dict.fromkeys(frame["row"]))
    panels = list(comps)
    has_raw = (
        raw_iou
        and "localization" in comps
        and bool(np.isfinite(frame.loc[frame["component"] == "localization", "raw_iou"]).any())
    )
    if has_raw:
        panels.insert(panels.index("localization") + 1, _RAW)
    what = frame.attrs["rows"]
    with style.theme():
        if axes is None:
            note_text = _note_text(frame, top)
            if height is None and top is not None:
                # no taller than the page allows: fewer rows, the note says how many
                fit = _rows_that_fit(len(panels), width, note_text)
                if fit < len(rows) - 1:
                    top = max(fit, 1)
                    frame = forest_frame(
                        result, components=components, label=label, annotator=annotator, top=top
                    )
                    rows = list(dict.fromkeys(frame["row"]))
                    note_text = _note_text(frame, top)
            fig, axes = _figure(len(panels), len(rows), width, height, note_text)
        else:
            axes = list(np.ravel(axes))
            if len(axes) != len(panels):
                raise ParameterError(
                    f"axes must hold {len(panels)} Axes (one per panel: {panels}); got {len(axes)}"
                )
            fig = axes[0].figure
            note_text = _note_text(frame, top)
        y_of = {r: i for i, r in enumerate(rows)}
        limit = _name_columns(len(panels), fig.get_figwidth())  # room for panel titles
        colors = style.annotator_colors(result) if frame.attrs["rows"] == "annotator" else None
        for k, (ax, comp) in enumerate(zip(axes, panels)):
            if comp == _RAW:
                _raw_panel(ax, frame[frame["component"] == "localization"], y_of)
            else:
                sub = frame[frame["component"] == comp]
                _panel(ax, sub, comp, y_of, colors)
                ax.set_title(f"{comp} {views.symbol(sub['measure'].iloc[0])}")
            ax.set_yticks(range(len(rows)), [style.short_name(r, limit) for r in rows])
            ax.set_ylim(len(rows) - 0.5, -0.5)
            first_in_row = k % _ncols(fig, axes) == 0 if axes is not None else k == 0
            ax.tick_params(axis="y", labelleft=first_in_row, length=0 if not first_in_row else 3)
            if colors is not None and first_in_row:
                for r, t in zip(rows, ax.get_yticklabels()):
                    t.set_color(style.text_color(colors.get(r, "black")))
        # the x label sits above the note (placed by hand: the layout would put it at the
        # very bottom, on the note)
        xlabel = fig.supxlabel(
            style.long_name(result["agreement"], "agreement") + " (0 = chance, 1 = perfect)",
            fontsize="medium",
        )
        if note_text:  # the label out of the layout, in a strip kept free above the note
            xlabel.set_in_layout(False)
            xlabel.set_y((style.note_room(fig, note_text) + 0.02) / fig.get_figheight())
            xlabel.set_verticalalignment("bottom")
        # the fixed label (or annotator) titles the legend: one artist at the top that
        # the layout makes room for (a suptitle and a legend there overlapped)
        fixed, title = style.safe_name(frame.attrs["fixed"]), None
        if frame.attrs["fixed"] != ALL:
            title = f"{frame.attrs['fixed_dim']} {fixed}: agreement by {what}"
        fin = np.isfinite(frame["agreement"].to_numpy(dtype=float))
        has_ci = (np.isfinite(frame["ci_low"]) & np.isfinite(frame["ci_high"])).to_numpy()
        _legend(fig, bool(has_ci.any()), bool((fin & ~has_ci).any()), title=title)
        style.note(fig, note_text, reserve=0.2)
    return fig


def _note_text(frame, top) -> str:
    """The note under the forest: rows left out, why values are missing, values off scale."""
    what = frame.attrs["rows"]
    missing = frame[~np.isfinite(frame["agreement"].to_numpy(dtype=float))]
    reasons = style.na_note(
        zip(missing["component"] + " of " + missing["row"].map(style.short_name), missing["note"])
    )
    notes = [
        style.hidden_note(
            frame.attrs["n_hidden"],
            f"{what}s",
            top,
            by_note(frame.attrs.get("n_unread", 0), "classes" if what == "label" else "annotators"),
        ),
        reasons,
        style.off_scale_note(frame["agreement"]),
    ]
    return "\n".join(n for n in notes if n)


def _ncols(fig, axes) -> int:
    spec = axes[0].get_subplotspec() if hasattr(axes[0], "get_subplotspec") else None
    return spec.get_gridspec().ncols if spec is not None else len(axes)


def _panel(ax, sub, comp, y_of, colors=None):
    color = style.component_color(comp)
    y = np.array([y_of[r] for r in sub["row"]], dtype=float)
    x = sub["agreement"].to_numpy(dtype=float)
    lo, hi = sub["ci_low"].to_numpy(dtype=float), sub["ci_high"].to_numpy(dtype=float)
    has_ci = np.isfinite(lo) & np.isfinite(hi)
    style.chance_line(ax)
    if has_ci.any():
        ax.hlines(y[has_ci], lo[has_ci], hi[has_ci], color=color, linewidth=1.4, gid="ci")
    ok = np.isfinite(x)
    shown = ok & (x >= style.FLOOR)  # below the floor: at the edge, value written
    style.off_scale(ax, y, x, along="y", color=color)
    ax.plot(
        x[shown],
        y[shown],
        "o",
        color=color,
        markersize=4.5,
        gid="estimate",
        markeredgecolor="white",
        markeredgewidth=0.5,
    )
    bare = shown & ~has_ci  # a value without an interval: hollow, not a precise dot
    if bare.any():
        ax.plot(x[bare], y[bare], "o", markerfacecolor="white", markeredgecolor=color,
                markeredgewidth=1.1, markersize=4.5, gid="no_ci", zorder=3)  # fmt: skip
    style.na_marks(ax, y[~ok])
    if 0 in y:  # separate "(all)" from the rest
        ax.axhline(0.5, color="0.8", linewidth=0.6, zorder=0)
    left, right = style.value_range(np.concatenate([x[ok], lo[has_ci], hi[has_ci]]))
    ax.set_xlim(left - 0.08, right + 0.06)
    ax.xaxis.set_major_locator(plt.MaxNLocator(3))
    ax.grid(axis="x", color="0.92")


def _raw_panel(ax, sub, y_of):
    y = np.array([y_of[r] for r in sub["row"]], dtype=float)
    r = sub["raw_iou"].to_numpy(dtype=float)
    fin = np.isfinite(r)
    ax.plot(
        r[fin],
        y[fin],
        "D",
        markerfacecolor="none",
        markeredgecolor=style.grey(),
        markersize=4,
        gid="raw_iou",
    )
    style.na_marks(ax, y[~fin])
    if 0 in y:
        ax.axhline(0.5, color="0.8", linewidth=0.6, zorder=0)
    ax.set_xlim(-0.02, 1.04)
    ax.xaxis.set_major_locator(plt.MaxNLocator(3))
    ax.set_title(_RAW)
    # wrapped by matplotlib where it would pass the figure's edge (right panel at 3.5 in)
    ax.set_xlabel("uncorrected mean IoU", fontsize="small", color=style.grey(), wrap=True)
    ax.grid(axis="x", color="0.92")


def _legend(fig, with_ci, without_ci, *, title=None):
    from matplotlib.lines import Line2D

    dot = {"marker": "o", "linestyle": "none", "color": "0.25", "markersize": 4.5}
    handles = []
    if with_ci or not without_ci:
        handles.append(Line2D([], [], **dot, label="agreement"))
    if with_ci:
        handles.append(Line2D([], [], color="0.25", linewidth=1.4, label="95% bootstrap CI"))
    if without_ci:
        hollow = {"markerfacecolor": "white", "markeredgewidth": 1.1}
        handles.append(Line2D([], [], **dot, **hollow, label="no interval"))
    handles.append(Line2D([], [], color=style.grey(), linestyle="--", label="chance (0)"))
    return fig.legend(
        handles=handles,
        loc="outside upper center",
        ncols=len(handles),
        frameon=False,
        handlelength=1.6,
        columnspacing=1.0,
        title=title,
        title_fontproperties={"size": "medium"},
    )


def agreement(result, **kwargs):
    """Deprecated: the former name of :func:`forest` (a :class:`FutureWarning`).

    Examples
    --------
    >>> import warnings
    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=6, seed=0), n_chance=50, n_boot=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fig = agreement(res, components=["localization"])
    >>> str(caught[0].message)
    'iaa_frames.plot.agreement is deprecated and will be removed; use iaa_frames.plot.forest'
    """
    warnings.warn(
        "iaa_frames.plot.agreement is deprecated and will be removed; use iaa_frames.plot.forest",
        FutureWarning,
        stacklevel=2,
    )
    return forest(result, **kwargs)
