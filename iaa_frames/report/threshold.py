"""The report's "Match threshold" section, for a result computed at several thresholds.

``iaf.report(df, path, match_threshold=[0.3, 0.5, 0.7])`` computes every threshold (the
frame prepared once, see :func:`iaa_frames.core.tables.pairs.pair_tables_by_threshold`); the rest of
the report is at one of them (:func:`report_threshold`: 0.5, or the nearest), and this
section shows every component against τ (:func:`iaa_frames.plot.threshold_curve`), how to
read it, and the pooled figures at each τ. :func:`threshold_section` returns the HTML and
the table written beside the report (``thresholds.csv``).
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Callable

import pandas as pd

from iaa_frames.errors import IAAWarning
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.thresholds import nearest_threshold

from .formatting import cell_text
from .tables import html_table

__all__ = ["READING", "report_threshold", "threshold_section", "threshold_table"]

#: How to read the threshold figure (the section's text; plain HTML).
READING = (
    "τ is the IoU gate of the matching: two objects are a match when their IoU is at "
    "least τ, within items and in the chance pairings alike. <b>How to read the "
    "figure:</b> where a component's curve is flat, its figure does not depend on the "
    "choice of τ; where it moves, the gate shapes it, and the τ used must be reported "
    "with it. Detection falls where the annotators' drawings stop clearing the gate "
    "(a loose drawing becomes two misses); localization σ falls as τ rises because only "
    "well-aligned pairs remain, within items and by chance alike, so the little "
    "disagreement left is compared with an equally aligned chance baseline; "
    "classification compares the labels of the pairs that pass the gate; overall takes "
    "each object's best match whatever its IoU and moves only with the chance sample. "
    "Bands are the 95 % bootstrap intervals; a gap is a threshold where the figure is "
    "undefined (the note under the figure says why)."
)


def report_threshold(thresholds) -> float:
    """The threshold the rest of a report is computed at: 0.5 (the COCO convention) when
    swept, otherwise the nearest (the lower one on a tie).

    Examples
    --------
    >>> report_threshold([0.3, 0.5, 0.7]), report_threshold([0.6, 0.8])
    (0.5, 0.6)
    """
    return nearest_threshold(thresholds, 0.5)


def threshold_table(sweep) -> pd.DataFrame:
    """The pooled figures ("(all)" labels and annotators) of every component at every
    threshold, long form: ``threshold, component, measure, agreement, ci_low, ci_high,
    n_units, n_chance, note``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> sweep = iaf.agreement(iaf.simulate(n_items=8, seed=0), n_chance=50, n_boot=0,
    ...                       match_threshold=[0.4, 0.6])
    >>> threshold_table(sweep).shape
    (8, 9)
    """
    from iaa_frames.plot.threshold import threshold_frame

    return threshold_frame(sweep, label=ALL, annotator=ALL)


def threshold_section(sweep, *, svg: Callable, shown_at: float):
    """HTML of the "Match threshold" section, and the table to save beside it.

    Parameters
    ----------
    sweep : xarray.Dataset
        The agreement result with a ``threshold`` dimension.
    svg : callable
        ``svg(figure, name) -> str``: inline SVG markup of a figure (closes it).
    shown_at : float
        The threshold the rest of the report is at.

    Returns
    -------
    (str, dict)
        The section's HTML, and ``{"thresholds.csv": DataFrame}``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> sweep = iaf.agreement(iaf.simulate(n_items=8, seed=0), n_chance=50, n_boot=0,
    ...                       match_threshold=[0.4, 0.6])
    >>> body, files = threshold_section(sweep, svg=lambda fig, name: "<svg></svg>",
    ...                                 shown_at=0.4)
    >>> "How to read the figure" in body, sorted(files)
    (True, ['thresholds.csv'])
    """
    import matplotlib.pyplot as plt

    from iaa_frames.plot.threshold import threshold_curve

    table = threshold_table(sweep)
    taus = [float(t) for t in sweep["threshold"].values]
    intro = (
        f"<p>Every figure was computed at {len(taus)} thresholds (τ = "
        f"{html.escape(', '.join(f'{t:g}' for t in taus))}); the rest of this report "
        f"is at τ = {shown_at:g}. Every threshold's numbers are in agreement.nc "
        "(dimension <code>threshold</code>) and thresholds.csv.</p>"
        f"<p>{READING}</p>"
    )
    try:
        ax = threshold_curve(sweep)
        figure = svg(ax.figure, "threshold")
    except Exception as exc:  # noqa: BLE001  (a figure must not sink the report; say why)
        plt.close("all")
        warnings.warn(
            f"the threshold figure could not be drawn: {type(exc).__name__}: {exc}",
            IAAWarning,
            stacklevel=2,
        )
        figure = (
            f'<p class="warn">This figure could not be drawn: '
            f"{html.escape(type(exc).__name__)}: {html.escape(str(exc))}</p>"
        )
    caption = (
        "Each component of agreement (all classes, all annotators) against the "
        "match threshold τ, with its 95 % bootstrap band; the dashed line is chance."
    )
    wide = table.assign(
        text=[
            cell_text(*r)
            for r in table[["agreement", "ci_low", "ci_high"]].itertuples(index=False, name=None)
        ]
    )
    wide = wide.assign(why=[(n or "undefined") if t == "n/a" else "" for t, n in zip(
        wide["text"], wide["note"].fillna("").astype(str))])  # fmt: skip
    order = list(dict.fromkeys(table["component"]))
    reasons = wide.pivot(index="component", columns="threshold", values="why").loc[order]
    wide = wide.pivot(index="component", columns="threshold", values="text").loc[order]
    wide.columns = reasons.columns = [f"τ = {t:g}" for t in wide.columns]
    wide.index.name = "component"
    cells = html_table(
        wide, index_name="component", classes="thresholds", reasons=reasons, notes_id="tau-"
    )
    body = (
        intro + f'<figure id="fig-threshold"><h3>Agreement against τ</h3>{figure}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        "<h3>Agreement [95% CI] at each threshold</h3>" + cells
    )
    return body, {"thresholds.csv": table}
