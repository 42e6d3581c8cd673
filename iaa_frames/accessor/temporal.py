"""``df.iaa.tracks()``, ``.over_time()``, ``.intra()``: agreement over sequences and time.

Track identity agreement (:func:`iaa_frames.temporal.tracks.track_agreement`), the
agreement per time window with its re-calibration flag
(:func:`iaa_frames.temporal.over_time.agreement_over_time`) and the agreement of annotators
with their own earlier passes (:func:`iaa_frames.temporal.intra.intra_agreement`), each
the function applied to the frame (:mod:`iaa_frames.api.methods`).

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate_tracks(n_sequences=3, seed=0)
>>> float(df.iaa.tracks(n_chance=50, n_boot=0)["idf1"].sel(
...     label="(all)", annotator="(all)", partner="(all)")) > 0.9
True
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api.methods import method
from iaa_frames.temporal.intra import intra_agreement
from iaa_frames.temporal.over_time import agreement_over_time
from iaa_frames.temporal.tracks import track_agreement

__all__ = ["TemporalMethods"]


class TemporalMethods:
    """Sequences and time of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    tracks = method(track_agreement, name="tracks")
    over_time = method(agreement_over_time, name="over_time")
    intra = method(intra_agreement, name="intra")
