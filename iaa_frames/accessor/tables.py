"""``df.iaa.tables()``, ``.within()``, ``.between()``, ``.items()``: the pair tables of a
frame and the per-item drilldown, cached (:mod:`iaa_frames.api.results`).

Each method is written out with the keywords of the function it equals:
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
from iaa_frames.api.methods import doc_from
from iaa_frames.core.tables.pairs import between, named, pair_tables, within
from iaa_frames.explore.items import items as _items
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import checked_settings

__all__ = ["TableMethods"]


def _within(df, settings):
    t = cached.tables(df, settings)
    return named(t, t.localization_within)


def _between(df, settings):
    t = cached.tables(df, settings)
    return named(t, t.localization_between)


class TableMethods:
    """The table methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    @doc_from(pair_tables)
    def tables(
        self,
        *,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        ).single()
        return cached.tables(self._df, settings)

    @doc_from(within)
    def within(
        self,
        *,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        ).single()
        return _within(self._df, settings)

    @doc_from(between)
    def between(
        self,
        *,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        ).single()
        return _between(self._df, settings)

    @doc_from(_items)
    def items(
        self,
        *,
        component="localization",
        label: str = ALL,
        top=None,
        sort="excess",
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        settings = checked_settings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        ).single()
        return cached.items(
            self._df, settings, component=component, label=label, top=top, sort=sort
        )
