"""``df.iaa.tables()``, ``.within()``, ``.between()``, ``.items()``: the pair tables of a
frame and the per-item drilldown, cached (:mod:`iaa_frames.api.results`).

Each method is built from the function it equals (:mod:`iaa_frames.api.methods`):
:func:`iaa_frames.pair_tables`, :func:`iaa_frames.within`, :func:`iaa_frames.between` and
:func:`iaa_frames.items`, with the six engine parameters as keywords. These take one
threshold: a sequence of ``match_threshold`` values raises the error of
:meth:`~iaa_frames.settings.parameters.MatchSettings.single`.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=10, seed=0)
>>> df.iaa.tables(n_chance=50).params["distance"]
'giou'
>>> bool((df.iaa.within(n_chance=50)["iou"] >= 0.5).all())
True
>>> b = df.iaa.between(n_chance=50)
>>> bool((b["item_a"] != b["item_b"]).all())
True
>>> len(df.iaa.items(n_chance=50, top=2, label="car"))
2
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api.methods import engine_method, method_signature, with_engine
from iaa_frames.explore.items import items as _items
from iaa_frames.settings.validation import SINGLE_THRESHOLD
from iaa_frames.tables.pairs import between, named, pair_tables, within

__all__ = ["TableMethods"]


def _within(df, settings):
    t = cached.tables(df, settings)
    return named(t, t.localization_within)


def _between(df, settings):
    t = cached.tables(df, settings)
    return named(t, t.localization_between)


def _table_method(run, name, doc):
    return engine_method(with_engine(run), run, name=name, doc=doc, constraints=SINGLE_THRESHOLD)


class TableMethods:
    """The table methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    tables = _table_method(cached.tables, "tables", pair_tables.__doc__)
    within = _table_method(_within, "within", within.__doc__)
    between = _table_method(_between, "between", between.__doc__)
    items = engine_method(
        method_signature(_items),
        cached.items,
        name="items",
        doc=_items.__doc__,
        constraints=SINGLE_THRESHOLD,
    )
