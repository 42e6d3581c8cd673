"""The variables of :func:`~iaa_frames.temporal.tracks.track_agreement`'s Dataset: a
``long_name`` and a ``description`` each (its attrs)."""

from __future__ import annotations

import numpy as np

__all__ = ["VARIABLES", "identity_notes"]

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
    "note": (
        "why the identity agreement is undefined",
        "Empty where it is defined; else the reason it is NaN (no sequence pair, no matched "
        "object pair, no frame on which identities could be confused).",
    ),
}
for _name in ("identity", "idf1", "mota"):
    for _end, _word in (("low", "lower"), ("high", "upper")):
        VARIABLES[f"{_name}_ci_{_end}"] = (
            f"{VARIABLES[_name][0]}, {_word} bound",
            f"{_word.capitalize()} bound of the percentile interval of {_name} from a "
            "bootstrap over sequences (NaN with n_boot=0).",
        )


def identity_notes(sums: dict) -> np.ndarray:
    """Per cell, why the identity agreement is NaN ("" where it is defined), from the sums
    of :func:`~iaa_frames.temporal.tracks.track_agreement` (``pairs``: matched pairs of
    the frames; ``chance_kept``: those kept under chance).

    Examples
    --------
    >>> sums = {"n_ref": np.array([0.0, 5, 5, 5]), "n_other": np.array([0.0, 5, 5, 5]),
    ...         "pairs": np.array([0.0, 0, 4, 4]), "chance_kept": np.array([0.0, 0, 4, 2])}
    >>> [n[:30] for n in identity_notes(sums)]
    ['no sequence pair: the annotato', 'no matched object pair on any ', 'no identity to confuse: every ', '']
    """
    pairs, kept = np.asarray(sums["pairs"], float), np.asarray(sums["chance_kept"], float)
    objects = np.asarray(sums["n_ref"], float) + np.asarray(sums["n_other"], float)
    note = np.full(pairs.shape, "", dtype=object)
    note[pairs - kept <= 0] = (
        "no identity to confuse: every frame's matched pairs keep their correspondence under "
        "chance too (one matched pair a frame), so the chance distance is 0"
    )
    note[pairs <= 0] = (
        "no matched object pair on any frame (IoU >= the match threshold): the two never "
        "followed the same object, so there is no identity to compare"
    )
    note[objects <= 0] = "no sequence pair: the annotator and the partner share no sequence"
    return note
