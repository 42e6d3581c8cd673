"""``df.iaa.accuracy()``, ``.annotators()``, ``.kalpha()``: other measures of a frame than
the chance-corrected agreement.

Accuracy against a reference annotator (:func:`iaa_frames.measures.reference.accuracy`, from the
frame's cached pair tables), partner-corrected annotator quality
(:func:`iaa_frames.measures.ranking.annotator_quality`) and kalphacv's Krippendorff α with IoU
matching (:func:`iaa_frames.measures.kalpha.kalpha`, for comparison with the literature).
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from iaa_frames.api import results as cached
from iaa_frames.measures.kalpha import kalpha
from iaa_frames.measures.ranking import DEFAULT_N_BOOT as DEFAULT_QUALITY_N_BOOT
from iaa_frames.measures.ranking import annotator_quality
from iaa_frames.measures.reference import accuracy
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings

__all__ = ["MeasureMethods"]


class MeasureMethods:
    """The other measures of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    def accuracy(
        self,
        *,
        reference: str,
        n_boot: int = 0,
        seed: int = DEFAULTS.seed,
        distance=DEFAULTS.distance,
        match_threshold: float = DEFAULTS.match_threshold,
        n_chance: int = DEFAULTS.n_chance,
        overall: str = DEFAULTS.overall,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.Dataset:
        """Accuracy of every annotator against a reference annotator (not agreement):
        :func:`iaa_frames.measures.reference.accuracy`.

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "good"}, seed=0)
        >>> df.iaa.accuracy(reference="g", n_chance=20)["score"].dims
        ('metric', 'label', 'annotator')
        """
        settings = MatchSettings(
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
        return accuracy(
            cached.tables(self._df, settings),
            reference=reference,
            n_boot=n_boot,
            seed=settings.seed,
        )

    def annotators(
        self,
        *,
        match_threshold: float = DEFAULTS.match_threshold,
        n_boot: int = DEFAULT_QUALITY_N_BOOT,
        seed: int = DEFAULTS.seed,
        max_iter: int = 2000,
        progress: bool | None = DEFAULTS.progress,
    ) -> pd.DataFrame:
        """Per-annotator quality corrected for the partners' quality, one row per
        annotator: :func:`iaa_frames.measures.ranking.annotator_quality`.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> q = simulate(n_items=20, seed=0, annotators={"a": "good", "b": "good",
        ...                                              "c": "random"}).iaa.annotators()
        >>> q.loc[q["rank"].idxmax(), "annotator"]
        'c'
        """
        return annotator_quality(
            self._df,
            match_threshold=match_threshold,
            n_boot=n_boot,
            seed=seed,
            max_iter=max_iter,
            progress=progress,
        )

    def kalpha(
        self,
        *,
        match_threshold: float = 0.5,
        kind: str = "bbox",
        average: str = "images",
        decimals: int | None = 4,
        progress: bool | None = None,
    ) -> float:
        """Krippendorff's α with IoU matching as kalphacv computes it:
        :func:`iaa_frames.measures.kalpha.kalpha`.

        Returns
        -------
        float

        Examples
        --------
        >>> from iaa_frames.simulate import simulate
        >>> simulate(n_items=5, annotators={"a": "perfect", "b": "perfect"}, seed=0).iaa.kalpha()
        1.0
        """
        return kalpha(
            self._df,
            match_threshold=match_threshold,
            kind=kind,
            average=average,
            decimals=decimals,
            progress=progress,
        )
