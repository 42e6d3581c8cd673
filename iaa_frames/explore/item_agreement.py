"""Per-item agreement columns to join back to the user's own item table.

:func:`iaa_frames.explore.items.items` ranks items for a drilldown; :func:`item_agreement` gives
the same per-item figures as plain columns keyed by item, one row per item of the corpus
(items nobody drew on included), so that they can be joined to a table of image
metadata, filtered on, or exported next to a dataset, like the per-task agreement column
of annotation tools.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.errors import ParameterError
from iaa_frames.settings.parameters import engine_kwargs
from iaa_frames.settings.validation import validate_params

from .conflicts import DEFAULT_LOW_OVERLAP, conflicts, tables_of
from .items import ITEM_COLUMNS, items

__all__ = ["ITEM_AGREEMENT_COLUMNS", "item_agreement"]

#: Columns of :func:`item_agreement` (besides one agreement column per component).
ITEM_AGREEMENT_COLUMNS = {
    **{name: ITEM_COLUMNS[name] for name in ("n_annotators", "n_objects")},
    "n_conflicts": "rows of conflicts() on the item (unmatched, label, low_overlap)",
    "rank": "1 = lowest item agreement of the first component (items() order)",
}


@validate_params()
def item_agreement(
    data,
    *,
    components=("detection", "classification", "localization"),
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """Each item's own agreement, as columns to join on the item.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame or its pair tables (reused).
    components : sequence of str, default ("detection", "classification", "localization")
        One column per component, named after it: the item's agreement on the scale of
        the corpus figure (``sigma`` of :func:`iaa_frames.explore.items.items`: 1 - the item's
        mean within-item distance / the corpus's mean chance distance; for
        classification, 1 - the item's share of disagreeing label pairs / the corpus's
        expected share). 1 = perfect, 0 = no better than chance, negative = worse; NaN
        when the item has no unit of the component (e.g. fewer than two annotators, or
        no matched pair).
    low_overlap : float or None, default 0.8
        Cut-off of the ``low_overlap`` conflicts counted in ``n_conflicts``.
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    pandas.DataFrame
        **Indexed by** ``item`` (the join key: the values of the annotation frame's
        ``item`` column, one row per item, every item of the corpus), columns: one per
        component, then ``n_annotators``, ``n_objects``, ``n_conflicts`` and ``rank``
        (see :data:`ITEM_AGREEMENT_COLUMNS`). Sorted by item (by value; by name when
        items mix types). ``attrs["long_names"]``
        maps every column to its meaning.

    Examples
    --------
    >>> import pandas as pd, iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, annotators={"a": "good", "b": "sloppy"}, seed=0)
    >>> scores = item_agreement(df, n_chance=100)
    >>> list(scores.columns)
    ['detection', 'classification', 'localization', 'n_annotators', 'n_objects', 'n_conflicts', 'rank']
    >>> mine = pd.DataFrame({"file": ["img_00000", "img_00003"], "camera": ["A", "B"]})
    >>> joined = mine.join(scores, on="file")  # the user's table keeps its rows
    >>> joined[["file", "camera", "n_objects"]].shape
    (2, 3)
    """
    if isinstance(components, str):
        components = [components]
    if not isinstance(components, Iterable):  # 0, None, True: not a raw "not iterable"
        raise ParameterError(
            f"components must be a non-empty subset of {COMPONENTS}; got {components!r}"
        )
    components = list(components)
    bad = [c for c in components if c not in COMPONENTS]
    if bad or not components:
        raise ParameterError(
            f"components must be a non-empty subset of {COMPONENTS}; got {components!r}"
        )
    t = tables_of(data, **engine_kwargs(locals()))
    names = pd.Index(t.corpus.items, name="item")
    try:  # by value (numbers numerically); by name when the items mix types
        order = np.argsort(names.to_numpy(), kind="stable")
    except TypeError:
        order = np.argsort([str(x) for x in names], kind="stable")
    out = pd.DataFrame(index=names[order])
    first = None
    for comp in components:
        table = items(t, component=comp)
        if first is None:
            first = table
        out[comp] = table.set_index("item")["sigma"].reindex(out.index).to_numpy(float)
    base = first.set_index("item").reindex(out.index)
    out["n_annotators"] = base["n_annotators"].to_numpy(np.int64)
    out["n_objects"] = base["n_objects"].to_numpy(np.int64)
    conf = conflicts(t, low_overlap=low_overlap)
    n_conf = conf.groupby("item", sort=False).size()
    out["n_conflicts"] = n_conf.reindex(out.index, fill_value=0).to_numpy(np.int64)
    rank = pd.Series(np.arange(1, len(first) + 1), index=first["item"].to_numpy())
    out["rank"] = rank.reindex(out.index).to_numpy(np.int64)
    long_names = {c: f"item agreement: {c}" for c in components}
    long_names.update(ITEM_AGREEMENT_COLUMNS)
    out.attrs = {
        "long_names": long_names,
        "components": components,
        "distance": str(t.params.get("distance", "")),
    }
    return out
