"""``df.iaa.track_agreement()``, ``.agreement_over_time()``, ``.intra_agreement()``:
agreement over sequences and time (``.tracks()``, ``.over_time()`` and ``.intra()`` are
their deprecated former names).

Track identity agreement (:func:`iaa_frames.temporal.tracks.track_agreement`), the
agreement per time window with its re-calibration flag
(:func:`iaa_frames.temporal.over_time.agreement_over_time`) and the agreement of annotators
with their own earlier passes (:func:`iaa_frames.temporal.intra.intra_agreement`), each
the function applied to the frame, its keywords written out.

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate_tracks(n_sequences=3, seed=0)
>>> float(df.iaa.track_agreement(n_chance=50, n_boot=0)["idf1"].sel(
...     label="(all)", annotator="(all)", partner="(all)")) > 0.9
True
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api.methods import doc_from
from iaa_frames.settings.parameters import DEFAULT_N_BOOT
from iaa_frames.temporal.intra import intra_agreement
from iaa_frames.temporal.over_time import agreement_over_time
from iaa_frames.temporal.tracks import track_agreement

__all__ = ["TemporalMethods"]


class TemporalMethods:
    """Sequences and time of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    @doc_from(track_agreement)
    def track_agreement(
        self,
        *,
        track="track_id",
        frame=None,
        n_boot: int = DEFAULT_N_BOOT,
        level=0.95,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
    ):
        return track_agreement(
            self._df,
            track=track,
            frame=frame,
            n_boot=n_boot,
            level=level,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
        )

    @doc_from(agreement_over_time)
    def agreement_over_time(
        self,
        *,
        time="time",
        freq="W",
        n_boot: int = DEFAULT_N_BOOT,
        min_items=4,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        return agreement_over_time(
            self._df,
            time=time,
            freq=freq,
            n_boot=n_boot,
            min_items=min_items,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )

    @doc_from(intra_agreement)
    def intra_agreement(
        self,
        *,
        repeat="round",
        n_boot: int = DEFAULT_N_BOOT,
        distance="giou",
        match_threshold=0.5,
        n_chance: int = 2000,
        seed: int = 0,
        overall: str = "pooled",
        progress: bool | None = None,
    ):
        return intra_agreement(
            self._df,
            repeat=repeat,
            n_boot=n_boot,
            distance=distance,
            match_threshold=match_threshold,
            n_chance=n_chance,
            seed=seed,
            overall=overall,
            progress=progress,
        )
