"""``df.iaa.conflicts()``, ``.conflict_counts()``, ``.confusion()``,
``.item_agreement()``: where the annotators of a frame disagree.

Each method is the function of the same name (:mod:`iaa_frames.explore.conflicts`,
:mod:`iaa_frames.explore.confusion`, :mod:`iaa_frames.explore.item_agreement`), with
its keywords written out, then the six engine parameters, and applied to the frame's cached pair tables (:func:`iaa_frames.api.results.tables`): after
``df.iaa.agreement()`` with the same parameters nothing is matched again.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "misser"}, seed=0)
>>> set(df.iaa.conflicts(reference="g", n_chance=20)["kind"]) <= {"missed"}
True
>>> list(df.iaa.conflict_counts(reference="g", n_chance=20).columns)
['kind', 'label', 'annotator', 'count']
>>> df.iaa.confusion(reference="g", n_chance=20).index.name
'g'
>>> df.iaa.item_agreement(n_chance=20).index.name
'item'
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api.methods import doc_from
from iaa_frames.explore.conflicts import conflict_counts, conflicts
from iaa_frames.explore.confusion import confusion
from iaa_frames.explore.item_agreement import item_agreement
from iaa_frames.settings.parameters import checked_settings

__all__ = ["DisagreementMethods"]


class DisagreementMethods:
    """The disagreement methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    @doc_from(conflicts)
    def conflicts(
        self,
        *,
        reference=None,
        low_overlap=0.8,
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
        return conflicts(
            cached.tables(self._df, settings), reference=reference, low_overlap=low_overlap
        )

    @doc_from(conflict_counts)
    def conflict_counts(
        self,
        *,
        reference=None,
        low_overlap=0.8,
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
        return conflict_counts(
            cached.tables(self._df, settings), reference=reference, low_overlap=low_overlap
        )

    @doc_from(confusion)
    def confusion(
        self,
        *,
        reference=None,
        annotator=None,
        normalize=False,
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
        return confusion(
            cached.tables(self._df, settings),
            reference=reference,
            annotator=annotator,
            normalize=normalize,
        )

    @doc_from(item_agreement)
    def item_agreement(
        self,
        *,
        components=("detection", "classification", "localization"),
        low_overlap=0.8,
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
        return item_agreement(
            cached.tables(self._df, settings), components=components, low_overlap=low_overlap
        )
