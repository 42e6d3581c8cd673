"""Agreement over sequences and over time: track identity, time windows, repeated passes.

:mod:`.frames` matches the frames of two annotators' tracks with the one matching
pipeline; :mod:`.identity` measures the identity figures of every sequence pair (IDF1,
ID switches, fragmentations, the identity distance and its chance value);
:mod:`.tracks` assembles them into :func:`track_agreement` with intervals by resampling
sequences; :mod:`.over_time` gives the agreement per time window
(:func:`agreement_over_time`): each window's items against the whole corpus's chance
(:mod:`.windows`), with flags that name the annotator who fell and the window it fell
from (:mod:`.drift`, assembled by :mod:`.window_result`); :mod:`.intra` gives the
agreement of annotators with themselves (:func:`intra_agreement`).
"""

from .intra import intra_agreement
from .over_time import agreement_over_time
from .tracks import track_agreement, track_figures

__all__ = ["agreement_over_time", "intra_agreement", "track_agreement", "track_figures"]
