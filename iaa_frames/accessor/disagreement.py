"""``df.iaa.conflicts()``, ``.conflict_counts()``, ``.confusion()``,
``.item_agreement()``: where the annotators of a frame disagree.

Each method is the function of the same name (:mod:`iaa_frames.explore.conflicts`,
:mod:`iaa_frames.explore.confusion`, :mod:`iaa_frames.explore.item_agreement`) applied to the frame's
cached pair tables (:func:`iaa_frames.api.results.tables`): after ``df.iaa.agreement()`` with
the same parameters nothing is matched again.
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.explore.conflicts import DEFAULT_LOW_OVERLAP, conflict_counts, conflicts
from iaa_frames.explore.confusion import confusion
from iaa_frames.explore.item_agreement import item_agreement
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings

__all__ = ["DisagreementMethods"]


class DisagreementMethods:
    """The disagreement methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    def conflicts(
        self,
        *,
        reference: str | None = None,
        low_overlap: float | None = DEFAULT_LOW_OVERLAP,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """One row per disagreement of the within-item matching:
        :func:`iaa_frames.explore.conflicts.conflicts`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "misser"}, seed=0)
        >>> set(df.iaa.conflicts(reference="g", n_chance=20)["kind"]) <= {"missed"}
        True
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return conflicts(
            cached.tables(self._df, settings), reference=reference, low_overlap=low_overlap
        )

    def conflict_counts(
        self,
        *,
        reference: str | None = None,
        low_overlap: float | None = DEFAULT_LOW_OVERLAP,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Conflicts per kind, class and annotator (long form, "(all)" margins):
        :func:`iaa_frames.explore.conflicts.conflict_counts`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "misser"}, seed=0)
        >>> list(df.iaa.conflict_counts(reference="g", n_chance=20).columns)
        ['kind', 'label', 'annotator', 'count']
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return conflict_counts(
            cached.tables(self._df, settings), reference=reference, low_overlap=low_overlap
        )

    def confusion(
        self,
        *,
        reference: str | None = None,
        annotator: str | None = None,
        normalize: bool = False,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Label confusion matrix of matched pairs: :func:`iaa_frames.explore.confusion.confusion`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "good"}, seed=0)
        >>> df.iaa.confusion(reference="g", n_chance=20).index.name
        'g'
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return confusion(
            cached.tables(self._df, settings),
            reference=reference,
            annotator=annotator,
            normalize=normalize,
        )

    def item_agreement(
        self,
        *,
        components=("detection", "classification", "localization"),
        low_overlap: float | None = DEFAULT_LOW_OVERLAP,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        seed: int = DEFAULTS.seed,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Per-item agreement columns indexed by ``item`` (the join key):
        :func:`iaa_frames.explore.item_agreement.item_agreement`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, seed=0)
        >>> df.iaa.item_agreement(n_chance=20).index.name
        'item'
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return item_agreement(
            cached.tables(self._df, settings), components=components, low_overlap=low_overlap
        )
