"""The items that concentrate the disagreement."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from iaa_frames.api import results
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.explore.items import items as item_table
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params

from . import style

__all__ = ["items"]


def _is_items_table(data) -> bool:
    return isinstance(data, pd.DataFrame) and {
        "item",
        "sigma",
        "n_unmatched",
        "n_mislabeled",
    } <= set(data.columns)


def _items(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = 15,
    sort: str = "excess",
    width: float | None = None,
    ax=None,
    settings: MatchSettings = DEFAULTS,
):
    """:func:`items` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    ax = style.checked_ax(ax)
    top = views.check_top(top)
    if _is_items_table(data):
        table = data
    elif isinstance(data, PairTables):
        table = item_table(data, component=component, label=label, sort=sort)
    elif isinstance(data, pd.DataFrame):
        table = results.items(data, settings, component=component, label=label, sort=sort)
    else:
        raise ParameterError(
            "data must be an item table, PairTables or an annotation "
            f"frame; got {type(data).__name__}"
        )
    n_total = len(table)
    shown = table if top is None else table.head(top)
    hidden = n_total - len(shown)
    comp = table.attrs.get("component", component)
    lab = table.attrs.get("label", ALL)
    n = max(len(shown), 1)
    with style.theme():
        w = style.figure_width(width, style.WIDTH)
        own_figure = ax is None
        if own_figure:
            _, (ax, tab) = style.subplots(
                1,
                2,
                figsize=(w, 1.1 + 0.19 * n),
                sharey=True,
                layout="constrained",
                gridspec_kw={"width_ratios": [3.0, 1.8 if w >= 5 else 2.4]},
            )
        else:
            tab = ax.inset_axes([1.02, 0, 0.5, 1], sharey=ax)
        y = np.arange(len(shown))
        sig = shown["sigma"].to_numpy(dtype=float)
        below = style.colors(4)[3]
        colors = [below if (np.isfinite(v) and v < 0) else style.component_color(comp) for v in sig]
        ax.barh(y, np.nan_to_num(sig), color=colors, height=0.7, gid="item_bar")
        style.chance_line(ax)
        style.na_marks(ax, y[~np.isfinite(sig)], at=0.02)
        ax.set_yticks(y, [style.safe_name(i) for i in shown["item"]])
        ax.set_ylim(len(shown) - 0.5, -0.5)
        finite = sig[np.isfinite(sig)]
        left = min(0.0, float(finite.min())) if finite.size else 0.0
        ax.set_xlim(left - 0.05, max(1.0, float(finite.max()) if finite.size else 1.0) + 0.02)
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))
        _count_table(tab, shown, y)
        ax.set_xlabel("item agreement σ (0 = chance)")
        what = comp if lab == ALL else f"{comp}, {lab}"
        order = "excess disagreement" if table.attrs.get("sort", "excess") == "excess" else "item σ"
        title = f"items that carry the most disagreement ({what}), ranked by {order}"
        if order == "excess disagreement":
            title += "; bars: item σ"
        if own_figure:  # over the bars and the table
            ax.figure.suptitle(
                title if w >= 5 else title.replace(", ranked", "\nranked"), fontsize="medium"
            )
        else:
            ax.set_title(title.replace(", ranked", "\nranked"), fontsize="medium")
        ax.grid(axis="x", color="0.92")
        ax.set_axisbelow(True)
        notes = [_undefined_note(shown)]
        if hidden:
            notes.append(f"first {len(shown)} of {n_total:,} items shown")
        style.note(ax, "\n".join(n for n in notes if n))
    return ax


def _undefined_note(shown) -> str:
    """Why the items written "n/a" have no σ (and no excess): no within-item unit on the
    item (fewer than two annotators, or no matched pair), else no chance distance to
    compare with; "" when every item has one."""
    sig = shown["sigma"].to_numpy(dtype=float)
    undefined = ~np.isfinite(sig)
    if not undefined.any():
        return ""
    units = shown["n_pairs"].to_numpy() if "n_pairs" in shown else np.zeros(len(shown))
    parts = []
    for empty, why in (
        (True, "no within-item unit on the item (units 0)"),
        (False, "no chance distance to compare the item with"),
    ):
        names = [str(i) for i in shown["item"].to_numpy()[undefined & ((units == 0) == empty)]]
        if names:
            more = f" and {len(names) - 3} more" if len(names) > 3 else ""
            parts.append(f"n/a: {why}: {', '.join(names[:3])}{more}")
    return "\n".join(parts)


@validate_params(engine=False)
def items(
    data,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = 15,
    sort: str = "excess",
    width: float | None = None,
    ax=None,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """The items that carry the most disagreement: each item's agreement and its counts.

    Each bar is the item's own agreement ``sigma`` (its mean within-item distance against
    the chance mean; 0 = no better than unrelated annotations, negative = worse; red when
    negative). Items are ranked by ``sort`` (default: the disagreement an item carries
    beyond the corpus's mean, which weighs in its number of units, so that 2-pair items
    do not come first by noise). A table on the right gives the ranking value
    (``excess``), each item's units, its objects matched by nobody (no other annotator has
    a match for them) and its clusters with conflicting labels.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        The table of :func:`iaa_frames.explore.items.items`, or pair tables / a tidy annotation
        frame from which it is computed (:func:`iaa_frames.api.results.items`, cached).
    component, label, sort
        As in :func:`iaa_frames.explore.items.items`, when the table is computed here.
    top : int or None, default 15
        The first ``top`` items; a note says how many were left out.
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 7; 3.5 for one column).
    distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`, when ``data`` is a frame.

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid="item_bar"``, the count cells ``gid="counts"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.explore.items import items as item_table
    >>> table = item_table(iaf.simulate(n_items=8, seed=0), n_chance=100)
    >>> ax = items(table, top=5)
    >>> len(ax.get_yticklabels())
    5
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _items(
        data,
        component=component,
        label=label,
        top=top,
        sort=sort,
        width=width,
        ax=ax,
        settings=settings,
    )


_COUNTS = (
    ("excess", "excess\n(rank)"),
    ("n_pairs", "units"),
    ("n_unmatched", "matched\nby\nnobody"),
    ("n_mislabeled", "label\ncon-\nflicts"),
)


def _count_table(tab, shown, y):
    """Columns of counts beside the bars, with a header (gid "counts"): the ranking value
    first (``excess``, when the table has it), then units, objects no other annotator
    matched and clusters with conflicting labels."""
    cols = [(c, h) for c, h in _COUNTS if c in shown.columns]
    tab.set_xlim(0, len(cols))
    tab.tick_params(left=False, labelleft=False, bottom=False, labelbottom=False)
    for side in tab.spines.values():
        side.set_visible(False)
    for k, (col, head) in enumerate(cols):
        tab.annotate(
            head,
            xy=(k + 0.5, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize="x-small",
            color=style.grey(),
            gid="counts",
            linespacing=1.0,
        )
        for yy, v in zip(y, shown[col].to_numpy()):
            tab.text(
                k + 0.5,
                yy,
                _count_text(col, v),
                ha="center",
                va="center",
                fontsize="small",
                gid="counts",
                color="black" if v or col in ("n_pairs", "excess") else style.grey(),
            )


def _count_text(col: str, v) -> str:
    """A cell of the count table: the excess with two decimals ("n/a" when the item has
    none), a count with thousands separators."""
    if col == "excess":
        return f"{float(v):.2f}" if np.isfinite(float(v)) else "n/a"
    return f"{int(v):,}"
