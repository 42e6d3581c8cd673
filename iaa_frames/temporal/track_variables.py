"""The variables of :func:`~iaa_frames.temporal.tracks.track_agreement`'s Dataset: a
``long_name`` and a ``description`` each (its attrs)."""

from __future__ import annotations

import numpy as np

from iaa_frames.core.engine.result import few_note
from iaa_frames.stats.intervals import MIN_CI_ITEMS

__all__ = ["VARIABLES", "FEW_SEQUENCES_NOTE", "identity_notes", "interval_notes"]

#: Start of the note of a cell whose intervals are not reported (too few sequences).
FEW_SEQUENCES_NOTE = "intervals not reported: rest on"

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
        "object pair, no frame on which identities could be confused). A cell may also say "
        "'intervals not reported: rest on k sequences (fewer than m)': the bootstrap "
        "resamples sequences, and from fewer than m (iaa_frames.stats.intervals."
        "MIN_CI_ITEMS) its intervals would be of (near) zero width.",
    ),
}
for _name in ("identity", "idf1", "mota"):
    for _end, _word in (("low", "lower"), ("high", "upper")):
        VARIABLES[f"{_name}_ci_{_end}"] = (
            f"{VARIABLES[_name][0]}, {_word} bound",
            f"{_word.capitalize()} bound of the percentile interval of {_name} from a "
            "bootstrap over sequences (NaN with n_boot=0, and where the cell rests on "
            "fewer sequences than iaa_frames.stats.intervals.MIN_CI_ITEMS: see note).",
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


def interval_notes(note, *, sequences, min_sequences: int = MIN_CI_ITEMS) -> np.ndarray:
    """``note`` with the interval note added to the cells that rest on at least one but
    fewer than ``min_sequences`` sequences (``"; "``-joined to a note already there): the
    bootstrap of :func:`~iaa_frames.temporal.tracks.track_agreement` resamples sequences,
    and from one to three its intervals have (nearly) no width.

    Examples
    --------
    >>> out = interval_notes(np.array(["", "", "no matched object pair"], dtype=object),
    ...                      sequences=np.array([1.0, 12, 2]), min_sequences=4)
    >>> for reason in out:
    ...     print(repr(reason))
    'intervals not reported: rest on 1 sequence (fewer than 4)'
    ''
    'no matched object pair; intervals not reported: rest on 2 sequences (fewer than 4)'
    """
    note = np.asarray(note, dtype=object)
    n = np.nan_to_num(np.asarray(sequences, dtype=np.float64)).astype(np.int64)
    text = few_note(FEW_SEQUENCES_NOTE, n, "sequence", min_sequences)
    joined = np.where(note == "", text, note + "; " + text)
    return np.where((n > 0) & (n < min_sequences), joined, note).astype(object)
