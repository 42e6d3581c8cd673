"""The report's "Where they disagree" section: conflict counts, the worst items drawn, the
label confusion matrix.

Built from the same pair tables as the rest of the report (nothing is matched again).
:func:`disagreement_section` returns the HTML of the section and the tables to write
beside the report (``conflicts.csv``, ``conflict_counts.csv``).
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Callable

import pandas as pd

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import IAAWarning
from iaa_frames.explore.conflicts import DEFAULT_LOW_OVERLAP, KINDS, conflict_counts, conflicts
from iaa_frames.frame.schema import ALL

from .tables import html_table

__all__ = ["disagreement_section"]

_KIND_TEXT = {
    "unmatched": "an object another annotator who saw the item has no match for (IoU ≥ τ)",
    "label": "a matched pair with different labels",
    "low_overlap": "a matched pair with IoU below the low-overlap cut-off",
}


def _table(frame: pd.DataFrame, index_name: str) -> str:
    frame = frame.copy()
    frame.index.name = index_name
    frame.columns.name = None
    frame.columns = [str(c).replace("_", " ") for c in frame.columns]  # "low overlap"
    # the report's tables: counts right-aligned under right-aligned headers
    return html_table(frame, index_name=index_name, classes="conflicts")


def _pivot(counts: pd.DataFrame, dim: str, limit: int) -> tuple[pd.DataFrame, int]:
    other = "annotator" if dim == "label" else "label"
    sub = counts[counts[other] == ALL]
    wide = sub.pivot_table(index=dim, columns="kind", values="count", fill_value=0, aggfunc="sum")
    kinds = [k for k in KINDS if k in wide.columns]
    wide = wide[kinds].astype(int)
    rest = [i for i in wide.index if i != ALL]
    rest.sort(key=lambda i: (-int(wide.loc[i].sum()), str(i)))
    hidden = max(0, len(rest) - limit)
    order = ([ALL] if ALL in wide.index else []) + rest[:limit]
    return wide.loc[order], hidden


def disagreement_section(
    tables: PairTables,
    *,
    svg: Callable,
    top: int = 20,
    n_items: int = 6,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    item_table=None,
):
    """HTML of the "Where they disagree" section, and the tables to save beside it.

    Parameters
    ----------
    tables : PairTables
        The report's pair tables.
    svg : callable
        ``svg(figure, name) -> str``: inline SVG markup of a figure (closes it).
    top : int, default 20
        Classes and annotators listed in the count tables.
    n_items : int, default 6
        Most items drawn in the grid of the worst items (those carrying more disagreement
        than the corpus mean only).
    low_overlap : float or None, default 0.8
        Cut-off of the ``low_overlap`` conflicts.
    item_table : pandas.DataFrame, optional
        The localization table of :func:`iaa_frames.explore.items.items` of ``tables``,
        when the caller has it (else computed).

    Returns
    -------
    (str, dict)
        The section's HTML, and ``{"conflicts.csv": ..., "conflict_counts.csv": ...}``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=6, seed=0), n_chance=50)
    >>> body, files = disagreement_section(t, svg=lambda fig, name: "<svg></svg>")
    >>> sorted(files)
    ['conflict_counts.csv', 'conflicts.csv']
    """
    import matplotlib.pyplot as plt

    from iaa_frames import plot

    table = conflicts(tables, low_overlap=low_overlap)
    counts = conflict_counts(table)
    tau = tables.params.get("match_threshold", 0.5)
    parts = [
        "<p>Every disagreement of the matching behind the figures above (two annotators' "
        f"objects on an item, paired optimally, a pair kept when IoU ≥ τ = {tau:g}): "
        + "; ".join(
            f"<em>{k.replace('_', ' ')}</em>: {html.escape(v)}" for k, v in _KIND_TEXT.items()
        )
        + (f" (cut-off {low_overlap:g})." if low_overlap is not None else ".")
        + " An unmatched object counts once per annotator without a match for it, a "
        "conflict under every annotator and class it involves; the (all) rows count "
        f"each conflict once. All {len(table):,} conflicts: conflicts.csv.</p>"
    ]
    if len(table):
        by_ann, hidden_a = _pivot(counts, "annotator", top)
        by_lab, hidden_l = _pivot(counts, "label", top)
        parts.append("<h3>Conflicts by annotator</h3>" + _table(by_ann, "annotator"))
        if hidden_a:
            parts.append(f"<p class=note>{hidden_a:,} more annotators in conflict_counts.csv.</p>")
        parts.append("<h3>Conflicts by class</h3>" + _table(by_lab, "class"))
        if hidden_l:
            parts.append(f"<p class=note>{hidden_l:,} more classes in conflict_counts.csv.</p>")
    else:
        parts.append(
            "<p>No conflicts: every object was matched, with the same label, "
            "above the low-overlap cut-off.</p>"
        )

    def figure(key, title, caption, make):
        try:
            fig = make()
        except Exception as exc:  # noqa: BLE001 (a figure must not sink the report: warn)
            plt.close("all")
            warnings.warn(
                f"the figure {title!r} could not be drawn: {type(exc).__name__}: {exc}",
                IAAWarning,
                stacklevel=3,
            )
            body = (
                f'<p class="warn">This figure could not be drawn: '
                f"{html.escape(type(exc).__name__)}: {html.escape(str(exc))}</p>"
            )
        else:
            body = svg(getattr(fig, "figure", fig), key)
        parts.append(
            f'<figure id="fig-{key}"><h3>{html.escape(title)}</h3>{body}'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )

    # the hard items only (more disagreement than the corpus mean), as the tables list
    from iaa_frames.explore.items import items as items_of

    if item_table is None:
        item_table = items_of(tables, component="localization")
    hard = int((item_table["excess"] > 0).sum())
    figure(
        "worst-items",
        "The items that carry the most disagreement, as drawn",
        "Each annotator's objects in its colour; thin lines link matched pairs. Dashed "
        "outline: an object another annotator has no match for, with a ✕ in the colour "
        "of each such annotator. Red link and diamond: the pair's labels differ; orange "
        "dotted link and triangle: matched with low overlap. Tags give each group's "
        "label(s). Ranked as the hardest items are (excess disagreement); each title "
        "gives the item's excess, its σ and its conflicts.",
        lambda: plot.worst_items(tables, n=max(1, min(n_items, hard)), low_overlap=low_overlap),
    )
    figure(
        "confusion",
        "Label confusion of matched pairs",
        "How often one annotator's label meets another's on a matched pair (each pair "
        "counted in both directions). The classes in the most label conflicts are drawn "
        "(then those of the most pairs), in the order of their names; off the diagonal, "
        "the shade is the share of the row's pairs whose labels differ; the diagonal (same "
        "label) is grey, its count written. Right: Krippendorff's α of these pairs' labels, "
        "per class (binary, class vs other) and of all labels, its chance from the labels' "
        "own frequencies: not the classification α of the tables above, whose chance is "
        "the labels of unrelated matched objects (it can be n/a where this one is not).",
        lambda: plot.confusion(tables, top=top),
    )
    return "".join(parts), {"conflicts.csv": table, "conflict_counts.csv": counts}
