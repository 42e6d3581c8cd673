"""The variables of :func:`~iaa_frames.temporal.tracks.track_agreement`'s Dataset: a
``long_name`` and a ``description`` each (its attrs)."""

from __future__ import annotations

__all__ = ["VARIABLES"]

#: Variable -> (long_name, description) of the Dataset of track agreement.
VARIABLES = {
    "identity": (
        "chance-corrected identity agreement",
        "1 - observed / expected identity distance: 1 for consistent identities, about 0 "
        "for ids assigned at random on every frame.",
    ),
    "observed": (
        "identity distance",
        "Share of the per-frame matched pairs outside the one-to-one assignment of their tracks.",
    ),
    "expected": (
        "identity distance under chance",
        "The identity distance with the partner's ids shuffled among the matched pairs of "
        "every frame.",
    ),
    "idf1": (
        "IDF1",
        "2 IDTP / (objects of the annotator + of the partner); IDTP: the frames within the "
        "threshold (IoU >= τ) kept by the one-to-one track assignment that keeps the most "
        "(Ristani et al. 2016, as motmetrics).",
    ),
    "idr": ("IDR", "IDTP / objects of the annotator (the reference)."),
    "idp": ("IDP", "IDTP / objects of the partner."),
    "mota": (
        "MOTA",
        "1 - (misses + false positives + ID switches) / objects of the annotator, the "
        "annotator as the ground truth and the partner as the tracker (CLEAR MOT, as "
        "motmetrics).",
    ),
    "motp": (
        "MOTP",
        "Mean distance 1 - IoU of the CLEAR MOT matched pairs (motmetrics' MOTP with IoU "
        "distances: 0 is perfect placement).",
    ),
    "id_switches": (
        "ID switches",
        "Times a track of the annotator is matched to another partner track than on its "
        "last matched frame; a correspondence is kept from frame to frame while its IoU "
        "stays >= τ (CLEAR MOT, as motmetrics). NaN: no sequence pair.",
    ),
    "fragmentations": (
        "fragmentations",
        "Times a track of the annotator goes from matched to unmatched between its first "
        "and last matched frame (as motmetrics). NaN: no sequence pair.",
    ),
    "matched": (
        "matched objects",
        "Object pairs matched by the CLEAR MOT correspondence (motmetrics' detections: "
        "matches and switches). NaN: no sequence pair.",
    ),
    "sequences": ("sequence pairs", "Sequence pairs pooled in the cell."),
}
for _name in ("identity", "idf1", "mota"):
    for _end, _word in (("low", "lower"), ("high", "upper")):
        VARIABLES[f"{_name}_ci_{_end}"] = (
            f"{VARIABLES[_name][0]}, {_word} bound",
            f"{_word.capitalize()} bound of the percentile interval of {_name} from a "
            "bootstrap over sequences (NaN with n_boot=0).",
        )
