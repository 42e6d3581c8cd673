"""Each annotator's profile across the components."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..frame import ALL
from . import _style

__all__ = ["annotators", "profile_frame"]

_DEFAULT = ("detection", "classification", "localization")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


def profile_frame(result, *, components=_DEFAULT, label: str = ALL,
                  top: int | None = 10) -> pd.DataFrame:
    """The numbers of :func:`annotators`: one row per (annotator, component).

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result (DESIGN §6).
    components : sequence of str, default ("detection", "classification", "localization")
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
    return _style.component_frame(result, components=components, along="annotator",
                                  fixed_dim="label", fixed=label, top=top)


def annotators(result, *, components=_DEFAULT, label: str = ALL, top: int | None = 10,
               ax=None):
    """Each annotator's agreement profile across the components.

    One line per annotator over the components (x axis), with bootstrap CI whiskers;
    the dashed black line is everybody ("(all)"), the grey dashed line chance. A misser
    dips on detection, a mislabeler on classification, a sloppy drawer on localization.
    The per-annotator figures are those of the result (pairs and units involving the
    annotator; see :func:`iaa_frames.engine.agreement`).

    Parameters
    ----------
    result : xarray.Dataset
    components : sequence of str, default ("detection", "classification", "localization")
    label : str, default "(all)"
    top : int or None, default 10
        Largest number of annotators drawn (by support); a note says how many were left
        out.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Lines have ``gid="profile:<annotator>"`` (``"profile:(all)"`` for everybody),
        whiskers ``gid="ci:<annotator>"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement as compute
    >>> res = compute(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> ax = annotators(res)
    >>> ax.get_ylabel()
    'chance-corrected agreement'
    """
    frame = profile_frame(result, components=components, label=label, top=top)
    comps = list(dict.fromkeys(frame["component"]))
    names = list(dict.fromkeys(frame["annotator"]))
    others = [a for a in names if a != ALL]
    ax = _style.new_axes(ax, (2.2 * len(comps) + 2.6, 4.2))
    _style.chance_line(ax, orientation="horizontal")
    palette = _style.colors(len(others))
    width = min(0.5, 0.08 * (len(others) + 1))
    for k, name in enumerate(names):
        sub = frame[frame["annotator"] == name]
        x = np.arange(len(comps), dtype=float)
        if name == ALL:
            style = dict(color="black", linestyle="--", marker="_", markersize=14,
                         linewidth=1.2, zorder=3, label="all annotators")
        else:
            j = others.index(name)
            x = x + (j - (len(others) - 1) / 2) * (width / max(len(others), 1))
            style = dict(color=palette[j], marker=_MARKERS[j % len(_MARKERS)],
                         linewidth=1.4, markersize=6, label=name)
        y = sub["agreement"].to_numpy(dtype=float)
        ax.plot(x, y, gid=f"profile:{name}", **style)
        lo, hi = sub["ci_low"].to_numpy(dtype=float), sub["ci_high"].to_numpy(dtype=float)
        ci = np.isfinite(lo) & np.isfinite(hi)
        if ci.any():
            ax.vlines(x[ci], lo[ci], hi[ci], color=style["color"], linewidth=1.0,
                      alpha=0.8, gid=f"ci:{name}")
    ticks = [f"{c} ({_style.symbol(_style.measure_of(result, c))})" for c in comps]
    ax.set_xticks(range(len(comps)), ticks)
    ax.set_xlim(-0.5, len(comps) - 0.5)
    values = frame[["agreement", "ci_low", "ci_high"]].to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    bottom = min(0.0, float(values.min())) if values.size else 0.0
    ax.set_ylim(bottom - 0.05, max(1.0, float(values.max()) if values.size else 1.0) + 0.03)
    ax.grid(axis="y", color="0.92")
    ax.set_ylabel(_style.long_name(result["agreement"], "agreement"))
    ax.set_xlabel("component")
    title = "annotator profiles"
    if label != ALL:
        title += f" (label {label})"
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False,
              title="annotator")
    _style.note(ax, _style.hidden_note(frame.attrs["n_hidden"], "annotators", top))
    return ax
