"""``df.iaa.accuracy()``, ``.annotators()``, ``.kalpha()``, ``.attributes()``: other measures
of a frame than the chance-corrected agreement of its objects.

Accuracy against a reference annotator (:func:`iaa_frames.measures.reference.accuracy`, from the
frame's cached pair tables), partner-corrected annotator quality
(:func:`iaa_frames.measures.ranking.annotator_quality`) and kalphacv's Krippendorff α with IoU
matching (:func:`iaa_frames.measures.kalpha.kalpha`, for comparison with the literature) and
Krippendorff's α of per-object attributes over the matched objects
(:func:`iaa_frames.measures.attributes.attribute_agreement`, from the cached pair tables).
Each method is built from the function (:mod:`iaa_frames.api.methods`).

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=5, annotators={"g": "perfect", "m": "good"}, seed=0)
>>> df.iaa.accuracy(reference="g", n_chance=20)["score"].dims
('metric', 'label', 'annotator')
>>> q = simulate(n_items=20, seed=0, annotators={"a": "good", "b": "good",
...                                              "c": "random"}).iaa.annotators()
>>> q.loc[q["rank"].idxmax(), "annotator"]
'c'
>>> simulate(n_items=5, annotators={"a": "perfect", "b": "perfect"}, seed=0).iaa.kalpha()
1.0
>>> df = simulate(n_items=10, attributes={"occluded": [False, True]}, seed=0)
>>> float(df.iaa.attributes(n_chance=20, n_boot=0)["alpha"].sel(label="(all)",
...                                                             annotator="(all)").item())
1.0
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api.methods import engine_method, method, method_signature
from iaa_frames.measures.attributes import attribute_agreement
from iaa_frames.measures.kalpha import kalpha
from iaa_frames.measures.ranking import annotator_quality
from iaa_frames.measures.reference import accuracy
from iaa_frames.settings.validation import SINGLE_THRESHOLD

__all__ = ["MeasureMethods"]


def _accuracy(df, settings, **own):
    return accuracy(cached.tables(df, settings), seed=settings.seed, **own)


class MeasureMethods:
    """The other measures of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    accuracy = engine_method(
        method_signature(accuracy),
        _accuracy,
        name="accuracy",
        doc=accuracy.__doc__,
        constraints=SINGLE_THRESHOLD,
    )
    attributes = method(attribute_agreement, name="attributes")
    annotators = method(annotator_quality, name="annotators")
    kalpha = method(kalpha)
