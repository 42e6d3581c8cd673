"""Annotators ranked by their partner-corrected quality."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.explore import views

from . import style
from .crowd import ends_note, two_ends

__all__ = ["ranking", "ranking_frame"]

_WHICH = ("ends", "worst", "best")
_REQUIRED = ("annotator", "quality", "raw_pq")


def ranking_frame(
    quality: pd.DataFrame, *, top: int | None = 20, which: str = "ends"
) -> pd.DataFrame:
    """The rows :func:`ranking` draws, in drawing order (best at the top).

    Parameters
    ----------
    quality : pandas.DataFrame
        The table of :func:`iaa_frames.measures.ranking.annotator_quality`.
    top : int or None, default 20
        Largest number of annotators kept; None keeps all.
    which : {"ends", "worst", "best"}, default "ends"
        With more than ``top`` annotators: keep both ends of the ranking (the
        ``top - top // 2`` best and the ``top // 2`` worst, as
        :func:`~iaa_frames.plot.annotators` shows a crowd), only the ``top`` worst (those
        to look at first; the default before), or only the ``top`` best.

    Returns
    -------
    pandas.DataFrame
        The kept rows, sorted by quality descending (ties by name); annotators whose
        quality is NaN are left out. Column ``block``: ``"highest"`` or ``"lowest"`` (the
        two ends) when ``which="ends"`` left annotators out, else ``"shown"``. ``attrs``
        hold ``n_hidden`` (annotators not kept, NaN ones included), ``n_undefined``,
        ``top`` and ``which``.

    Examples
    --------
    >>> import pandas as pd
    >>> q = pd.DataFrame({"annotator": ["a", "b", "c"], "quality": [0.9, 0.5, 0.7],
    ...                   "raw_pq": [0.6, 0.4, 0.5]})
    >>> ranking_frame(q, top=2)["annotator"].tolist()
    ['a', 'b']
    >>> ranking_frame(q, top=2, which="worst")["annotator"].tolist()
    ['c', 'b']
    """
    if not isinstance(quality, pd.DataFrame) or any(c not in quality for c in _REQUIRED):
        raise ParameterError(
            "expected the table of iaa_frames.measures.ranking.annotator_quality "
            f"(columns {list(_REQUIRED)} at least)"
        )
    top = views.check_top(top)
    views.check_choice("which", which, _WHICH)
    q = quality["quality"].to_numpy(dtype=float)
    defined = quality[np.isfinite(q)]
    order = np.lexsort(
        (defined["annotator"].astype(str).to_numpy(), -defined["quality"].to_numpy(dtype=float))
    )
    ranked = defined.iloc[order]
    block = "shown"
    if top is not None and len(ranked) > top:
        if which == "ends":
            high, low = two_ends(range(len(ranked)), top)
            block = np.repeat(["highest", "lowest"], [len(high), len(low)])
            ranked = ranked.iloc[high + low]
        else:
            ranked = ranked.tail(top) if which == "worst" else ranked.head(top)
    out = ranked.reset_index(drop=True).assign(block=block)
    out.attrs = {
        "n_hidden": len(quality) - len(out),
        "n_undefined": int((~np.isfinite(q)).sum()),
        "top": top,
        "which": which,
        "long_names": dict(quality.attrs.get("long_names", {})),
    }
    return out


def ranking(
    quality: pd.DataFrame,
    *,
    top: int | None = 20,
    which: str = "ends",
    width: float | None = None,
    ax=None,
):
    """Annotators ranked by partner-corrected quality, against their raw agreement.

    One row per annotator, best at the top: the filled dot is the quality of
    :func:`iaa_frames.measures.ranking.annotator_quality` (an estimate of the annotator's PQ
    against a perfect annotator) with its bootstrap interval when computed; the hollow
    dot is the raw PQ with peers, which mixes in the partners' own quality (raw PQ sits
    below quality because every partner errs too). A thin line joins the two.

    Parameters
    ----------
    quality : pandas.DataFrame
        The table of :func:`iaa_frames.measures.ranking.annotator_quality`.
    top : int or None, default 20
        Largest number of annotators drawn; a note says how many were left out.
    which : {"ends", "worst", "best"}, default "ends"
        With more than ``top`` annotators: draw both ends of the ranking, a dotted line
        between the best and the worst (see :func:`ranking_frame`), or only the worst
        ``top`` (the default before) or the best.
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 5.2; 3.5 for one column).

    Returns
    -------
    matplotlib.axes.Axes
        Artists carry ``gid`` ``"estimate"`` (quality), ``"ci"``, ``"raw"`` (raw PQ),
        ``"separator"`` (the dotted line between the two ends) and ``"note"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.measures.ranking import annotator_quality
    >>> q = annotator_quality(iaf.simulate(n_items=20, seed=0, annotators={
    ...     "ann": "good", "bob": "sloppy", "cy": "misser"}))
    >>> ax = ranking(q)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['ann', 'cy', 'bob']
    """
    ax = style.checked_ax(ax)
    frame = ranking_frame(quality, top=top, which=which)
    n = len(frame)
    ax = style.new_axes(ax, (style.figure_width(width, 5.2), 0.3 * max(n, 3) + 1.5))
    y = np.arange(n)[::-1].astype(float)  # best at the top
    est = frame["quality"].to_numpy(dtype=float)
    raw = frame["raw_pq"].to_numpy(dtype=float)
    color = style.component_color("overall")
    ax.hlines(y, np.fmin(est, raw), np.fmax(est, raw), color="0.8", linewidth=1.0, zorder=1)
    if {"ci_low", "ci_high"} <= set(frame.columns):
        lo, hi = frame["ci_low"].to_numpy(dtype=float), frame["ci_high"].to_numpy(dtype=float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        if ok.any():
            ax.hlines(
                y[ok],
                lo[ok],
                hi[ok],
                color=color,
                linewidth=2.2,
                alpha=0.55,
                zorder=2,
                gid="ci",
                label="95 % bootstrap interval",
            )
    ax.scatter(
        raw,
        y,
        s=30,
        facecolors="white",
        edgecolors="0.35",
        linewidths=1.1,
        zorder=3,
        gid="raw",
        label="raw PQ with peers",
    )
    ax.scatter(
        est, y, s=34, color=color, zorder=4, gid="estimate", label="quality (partner-corrected)"
    )
    ax.set_yticks(y, [style.safe_name(a) for a in frame["annotator"]])
    n_high = int((frame["block"] == "highest").sum())
    if 0 < n_high < n:  # the two ends of a crowd apart
        ax.axhline(y[n_high - 1] - 0.5, color="0.35", linestyle=":", linewidth=0.9, zorder=0,
                   gid="separator")  # fmt: skip
    ax.set_ylim(-0.7, max(n, 1) - 0.3)
    values = np.r_[est, raw]
    values = values[np.isfinite(values)]
    ax.set_xlim(min(0.0, float(values.min()) if values.size else 0.0) - 0.02, 1.02)
    ax.grid(axis="x", color="0.92")
    long_names = frame.attrs.get("long_names", {})
    xlabel = long_names.get("quality", "quality: estimated PQ vs a perfect annotator")
    # wrapped to the figure's width (about 12 characters of 8 pt text per inch: the label is
    # centred on the Axes, which the names push to the right)
    ax.set_xlabel(textwrap.fill(xlabel, max(24, int(ax.figure.get_figwidth() * 12))))
    # the legend takes the place of a title: one column fits a narrow figure
    handles, labels = ax.get_legend_handles_labels()
    order = [
        labels.index(x)
        for x in ("quality (partner-corrected)", "95 % bootstrap interval", "raw PQ with peers")
        if x in labels
    ]
    ax.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        loc="lower left",
        bbox_to_anchor=(0.0, 1.01),
        ncol=1,
        fontsize="small",
        frameon=False,
        borderaxespad=0.0,
        handletextpad=0.4,
    )
    hidden = frame.attrs["n_hidden"] - frame.attrs["n_undefined"]
    parts = []
    if hidden > 0 and which == "ends":
        n_low = int((frame["block"] == "lowest").sum())
        parts.append(
            ends_note(hidden, n_high, n_low, "quality", where="above and below the dotted line")
        )
    elif hidden > 0:
        parts.append(f"+ {hidden:,} more not shown ({which} {n} by quality)")
    if frame.attrs["n_undefined"]:
        parts.append(f"{frame.attrs['n_undefined']} without a quality (no pairing with a peer)")
    style.note(ax, "; ".join(parts))
    return ax
