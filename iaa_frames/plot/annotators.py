"""Each annotator's profile across the components."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.engine.result import COMPONENTS
from iaa_frames.explore import views
from iaa_frames.explore.compact import natural_key
from iaa_frames.frame.schema import ALL

from . import style

__all__ = ["annotators", "profile_frame"]

_DEFAULT = COMPONENTS
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


def profile_frame(
    result, *, components=_DEFAULT, label: str = ALL, top: int | None = 10
) -> pd.DataFrame:
    """The numbers of :func:`annotators`: one row per (annotator, component).

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    components : sequence of str, default every component
    label : str, default "(all)"
    top : int or None, default 10
        "(all)" plus the ``top`` annotators by support (localization ``n_units``: matched
        pairs involving the annotator); ``attrs["n_hidden"]`` counts the others.

    Returns
    -------
    pandas.DataFrame
        Columns ``annotator``, ``component``, ``measure``, ``agreement``, ``ci_low``,
        ``ci_high``, ``n_units``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> profile_frame(res)["annotator"].iloc[0]
    '(all)'
    """
    return views.component_frame(
        result, components=components, along="annotator", fixed_dim="label", fixed=label, top=top
    )


def annotators(
    result,
    *,
    components=_DEFAULT,
    label: str = ALL,
    top: int | None = 10,
    width: float | None = None,
    ax=None,
):
    """Each annotator's agreement profile across the components.

    One group per component (x axis), one dot per annotator with its bootstrap CI
    whisker, in the annotator's color of :func:`~iaa_frames.plot.annotator_colors` (the
    same in every figure of the result); the black bar is everybody ("(all)"), with its
    interval as a grey band, the grey dashed line chance. No line joins the components:
    σ and α are different scales. A missing value is written "n/a" at its place, and the
    note under the legend says why. An annotator below the black line on one component is the one to look
    at there. The per-annotator figures are those of the result (pairs and units
    involving the annotator; see :func:`iaa_frames.agreement`).

    Parameters
    ----------
    result : xarray.Dataset
    components : sequence of str, default every component
    label : str, default "(all)"
    top : int or None, default 10
        Largest number of annotators drawn (by support); a note says how many were left
        out.
    width : float, optional
        Figure width in inches when ``ax`` is not given (default 7; 3.5 for one column).
    ax : matplotlib.axes.Axes, optional

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
    frame = profile_frame(result, components=components, label=label, top=top)
    comps = list(dict.fromkeys(frame["component"]))
    names = list(dict.fromkeys(frame["annotator"]))
    others = sorted((a for a in names if a != ALL), key=natural_key)
    names = ([ALL] if ALL in names else []) + others
    colors = style.annotator_colors(result)
    markers = {
        a: _MARKERS[i % len(_MARKERS)]
        for i, a in enumerate(a for a in colors if a != ALL)  # colors: natural order
    }
    with style.theme():
        w = float(width) if width is not None else style.WIDTH
        ax = style.new_axes(ax, (w, 2.4 + 0.12 * len(others) / max(1, w / 3.5)))
        style.chance_line(ax, orientation="horizontal")
        span = min(0.7, 0.09 * (len(others) + 1))
        x0 = np.arange(len(comps), dtype=float)
        missing = []
        for name in names:
            sub = frame[frame["annotator"] == name]
            y = sub["agreement"].to_numpy(dtype=float)
            lo = sub["ci_low"].to_numpy(dtype=float)
            hi = sub["ci_high"].to_numpy(dtype=float)
            ci = np.isfinite(lo) & np.isfinite(hi)
            ok = np.isfinite(y)
            if "note" in sub:
                missing += [
                    (f"{c} of {name}", n)
                    for c, n, fine in zip(sub["component"], sub["note"], ok)
                    if not fine
                ]
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
                ax.hlines(
                    y[ok],
                    x0[ok] - half,
                    x0[ok] + half,
                    color=colors[ALL],
                    linewidth=1.4,
                    zorder=3,
                    gid="profile:(all)",
                    label="all annotators",
                )
                continue
            j = others.index(name)
            x = x0 + (j - (len(others) - 1) / 2) * (span / max(len(others), 1))
            color = colors[name]
            if ci.any():
                ax.vlines(
                    x[ci],
                    lo[ci],
                    hi[ci],
                    color=color,
                    linewidth=1.0,
                    alpha=0.9,
                    zorder=4,
                    gid=f"ci:{name}",
                )
            ax.plot(
                x[ok],
                y[ok],
                linestyle="none",
                marker=markers.get(name, "o"),
                color=color,
                markersize=4.5,
                markeredgecolor="white",
                markeredgewidth=0.4,
                zorder=5,
                label=name,
                gid=f"profile:{name}",
            )
            for xx in x[~ok]:
                ax.text(
                    xx,
                    0.1,
                    "n/a",
                    transform=ax.get_xaxis_transform(),
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    color=color,
                    gid="undefined",
                )
        ticks = [f"{c}\n{views.symbol(views.measure_of(result, c))}" for c in comps]
        ax.set_xticks(range(len(comps)), ticks)
        ax.set_xlim(-0.5, len(comps) - 0.5)
        values = frame[["agreement", "ci_low", "ci_high"]].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        bottom = min(0.0, float(values.min())) if values.size else 0.0
        ax.set_ylim(bottom - 0.05, max(1.0, float(values.max()) if values.size else 1.0) + 0.03)
        ax.grid(axis="y", color="0.92")
        ax.set_ylabel(style.long_name(result["agreement"], "agreement"))
        title = "annotator profiles"
        if label != ALL:
            title += f" (label {label})"
        ax.set_title(title)
        legend = style.legend_below(ax, min_width=0.95, handlelength=1.6, columnspacing=1.0)
        notes = [style.hidden_note(frame.attrs["n_hidden"], "annotators", top)]
        notes.append(style.na_note(missing))
        style.note(ax, "\n".join(n for n in notes if n), below=legend)
    return ax
