"""``df.iaa.accuracy()``, ``.annotator_quality()``, ``.kalpha()``,
``.attribute_agreement()``: other measures of a frame than the chance-corrected agreement
of its objects (``.annotators()`` and ``.attributes()`` are deprecated former names).

Accuracy against a reference annotator (:func:`iaa_frames.measures.reference.accuracy`, from the
frame's cached pair tables), partner-corrected annotator quality
(:func:`iaa_frames.measures.ranking.annotator_quality`) and kalphacv's Krippendorff α with IoU
matching (:func:`iaa_frames.measures.kalpha.kalpha`, for comparison with the literature) and
Krippendorff's α of per-object attributes over the matched objects
(:func:`iaa_frames.measures.attributes.attribute_agreement`, from the cached pair tables).
Each method writes out the keywords of its function and calls it.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "good"}, seed=0)
>>> df.iaa.accuracy(reference="g", n_chance=20)["score"].dims
('metric', 'label', 'annotator')
>>> q = simulate(n_items=20, seed=0, annotators={"a": "good", "b": "good",
...                                              "c": "random"}).iaa.annotator_quality()
>>> q.loc[q["rank"].idxmax(), "annotator"]
'c'
>>> simulate(n_items=5, annotators={"a": "perfect", "b": "perfect"}, seed=0).iaa.kalpha()
1.0
>>> df = simulate(n_items=10, attributes={"occluded": [False, True]}, seed=0)
>>> float(df.iaa.attribute_agreement(n_chance=20, n_boot=0)["alpha"].sel(label="(all)",
...                                                             annotator="(all)").item())
1.0
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api.methods import doc_from
from iaa_frames.measures.attributes import attribute_agreement
from iaa_frames.measures.kalpha import kalpha
from iaa_frames.measures.ranking import annotator_quality
from iaa_frames.measures.reference import accuracy
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, check_int, checked_settings

__all__ = ["MeasureMethods"]


def _accuracy(df, settings, **own):
    return accuracy(cached.tables(df, settings), seed=settings.seed, **own)


class MeasureMethods:
    """The other measures of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    @doc_from(accuracy)
    def accuracy(
        self,
        *,
        reference,
        n_boot=0,
        seed: int = 0,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        check_int(n_boot, "n_boot")
        settings = checked_settings(
            seed=seed,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            overall=overall,
            progress=progress,
        ).single()
        return accuracy(
            cached.tables(self._df, settings),
            seed=settings.seed,
            reference=reference,
            n_boot=n_boot,
        )

    @doc_from(attribute_agreement)
    def attribute_agreement(
        self,
        *,
        attributes=None,
        levels=None,
        n_boot: int = DEFAULT_N_BOOT,
        ci_method="bca",
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        return attribute_agreement(
            self._df,
            attributes=attributes,
            levels=levels,
            n_boot=n_boot,
            ci_method=ci_method,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    @doc_from(annotator_quality)
    def annotator_quality(
        self,
        *,
        match_threshold=0.5,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = 0,
        max_iter=2000,
        progress: bool | None = None,
    ):
        return annotator_quality(
            self._df,
            match_threshold=match_threshold,
            n_boot=n_boot,
            seed=seed,
            max_iter=max_iter,
            progress=progress,
        )

    @doc_from(kalpha)
    def kalpha(
        self,
        *,
        match_threshold=0.5,
        kind="bbox",
        average="images",
        decimals=4,
        progress: bool | None = None,
    ):
        return kalpha(
            self._df,
            match_threshold=match_threshold,
            kind=kind,
            average=average,
            decimals=decimals,
            progress=progress,
        )
