"""The items that concentrate the disagreement."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..items import ITEM_COLUMNS
from ..items import items as _items
from ..pairs import PairTables
from . import _style

__all__ = ["items"]


def _is_items_table(data) -> bool:
    return isinstance(data, pd.DataFrame) and {"item", "sigma", "n_unmatched",
                                               "n_mislabeled"} <= set(data.columns)


def items(data, *, component: str = "localization", top: int | None = 20, ax=None,
          **kwargs):
    """Bar chart of the worst items: each item's own agreement and its counts.

    Each bar is the item's agreement ``sigma`` (its mean within-item distance against the
    chance mean; 0 = no better than unrelated annotations, negative = worse), worst at
    the top; beside it, how many objects nobody else matched and how many clusters carry
    conflicting labels.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        The table of :func:`iaa_frames.items.items`, or pair tables / a tidy annotation
        frame from which it is computed (with ``component`` and ``**kwargs``).
    component : str, default "localization"
        Used when the table is computed here.
    top : int or None, default 20
        The ``top`` worst items; a note says how many were left out.
    ax : matplotlib.axes.Axes, optional
    **kwargs
        Passed to :func:`iaa_frames.items.items` (``distance``, ``n_chance``, ...).

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid="item_bar"``, the count labels ``gid="counts"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.items import items as item_table
    >>> table = item_table(iaf.simulate(n_items=8, seed=0), n_chance=100)
    >>> ax = items(table, top=5)
    >>> len(ax.get_yticklabels())
    5
    """
    top = _style.check_top(top)
    if _is_items_table(data):
        if kwargs:
            raise ParameterError(f"unexpected keyword(s) {sorted(kwargs)}: they only apply "
                                 "when the item table is computed here")
        table = data
    elif isinstance(data, (pd.DataFrame, PairTables)):
        table = _items(data, component=component, **kwargs)
    else:
        raise ParameterError("data must be an item table, PairTables or an annotation "
                             f"frame; got {type(data).__name__}")
    n_total = len(table)
    shown = table if top is None else table.head(top)
    hidden = n_total - len(shown)
    comp = table.attrs.get("component", component)
    n = max(len(shown), 1)
    ax = _style.new_axes(ax, (7.0, 1.2 + 0.32 * n))
    y = np.arange(len(shown))
    sig = shown["sigma"].to_numpy(dtype=float)
    palette = _style.colors(4)
    colors = [palette[3] if (np.isfinite(s) and s < 0) else _style.component_color(comp)
              for s in sig]
    ax.barh(y, np.nan_to_num(sig), color=colors, height=0.7, gid="item_bar")
    _style.chance_line(ax)
    for yy, row in zip(y, shown.itertuples(index=False)):
        text = (f"{row.n_unmatched} unmatched · {row.n_mislabeled} mislabeled · "
                f"{row.n_pairs} units")
        if not np.isfinite(row.sigma):
            text = "n/a (no units) · " + text
        ax.annotate(text, xy=(1.0, yy), xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize="x-small",
                    gid="counts", annotation_clip=False)
    ax.set_yticks(y, [str(i) for i in shown["item"]])
    ax.set_ylim(len(shown) - 0.5, -0.5)
    finite = sig[np.isfinite(sig)]
    left = min(0.0, float(finite.min())) if finite.size else 0.0
    ax.set_xlim(left - 0.05, max(1.0, float(finite.max()) if finite.size else 1.0) + 0.02)
    names = table.attrs.get("long_names", ITEM_COLUMNS)
    ax.set_xlabel(names.get("sigma", "item agreement"))
    ax.set_ylabel("item")
    ax.set_title(f"items that concentrate the disagreement ({comp})")
    ax.grid(axis="x", color="0.92")
    ax.set_axisbelow(True)
    if hidden:
        _style.note(ax, f"worst {len(shown)} of {n_total:,} items shown")
    return ax
