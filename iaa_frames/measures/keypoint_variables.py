"""The variables of the per-keypoint result (:func:`iaa_frames.keypoint_agreement`):
name -> (long_name, description), in Dataset order."""

from __future__ import annotations

from iaa_frames.stats.intervals import MIN_CI_ITEMS

__all__ = ["MIRRORED", "NOTE_DESCRIPTION", "VARIABLES"]

_CELL = (
    "An annotator's cell keeps the matched pairs that involve it (within and chance); "
    "'(all)' pools every pair."
)
_INTERVAL = (
    "cluster-bootstrap interval over items (groups of items with a group column), BCa "
    "with the engine's corrected width by default (ci_method, ci_level and n_boot in the "
    "Dataset attrs). NaN when n_boot is 0, the estimate is NaN or the cell rests on "
    f"fewer than {MIN_CI_ITEMS} items."
)


def _bounds(name: str, what: str, items: str) -> dict:
    return {
        f"{name}_ci_low": (f"lower confidence bound of {what}", "Lower bound of the " + _INTERVAL),
        f"{name}_ci_high": (
            f"upper confidence bound of {what}",
            f"Upper bound of the {_INTERVAL} Items: {items}",
        ),
    }


VARIABLES = {
    "localization": (
        "chance-corrected localization (σ)",
        "Sigma of the joint: 1 - within / chance, the mean of 1 - k_j (k_j = exp(-e_j), the "
        "joint's term of OKS) over the matched object pairs that label the joint on both "
        "sides, against the same over the between-item (chance) matched pairs. 1 perfect, "
        "0 chance, < 0 systematic disagreement. NaN when undefined (`note` says why). " + _CELL,
    ),
    **_bounds("localization", "localization", "those of `n_items`."),
    "within": (
        "observed disagreement",
        "Mean 1 - k_j over the cell's within-item matched pairs labelling the joint on both sides.",
    ),
    "chance": (
        "expected disagreement",
        "Mean 1 - k_j over the cell's between-item (chance) matched pairs labelling the "
        "joint on both sides (the uniform stratum for '(all)', the uniform and the "
        "annotator's own stratum for an annotator, as the localization component).",
    ),
    "oks_term": (
        "mean OKS term (raw)",
        "Mean k_j over the cell's within-item matched pairs labelling the joint on both "
        "sides: the joint's raw similarity, not chance-corrected.",
    ),
    "swapped": (
        "share of left/right swaps",
        "Of the cell's within-item matched pairs labelling the joint and its left/right "
        "mirror on both sides, the share where the joint lies nearer the other's mirror "
        "joint than the other's same joint. NaN for a joint without a mirror. " + _CELL,
    ),
    **_bounds("swapped", "swapped", "those with such a pair."),
    "visibility_alpha": (
        "visibility agreement (nominal α)",
        "Nominal alpha over the joint's visibility (absent 0, occluded 1, visible 2) on "
        "every within-item matched pair of the cell, a pair being a unit of two values "
        "(an annotator's cell: the coincidences of its pairs). NaN when every value is "
        "the same (no expected disagreement) or there is no pair. " + _CELL,
    ),
    **_bounds("visibility_alpha", "visibility alpha", "those with a matched pair."),
    "visibility_agreement": (
        "raw visibility agreement",
        "Share of the cell's within-item matched pairs giving the joint the same "
        "visibility; not chance-corrected.",
    ),
    "labelled_by_both": (
        "share labelled by both",
        "Share of the cell's within-item matched pairs that label the joint on both sides.",
    ),
    "n_pairs": (
        "within units",
        "Within-item matched pairs of the cell labelling the joint on both sides.",
    ),
    "n_chance": (
        "chance units",
        "Distinct between-item (chance) matched pairs of the cell labelling the joint on "
        "both sides.",
    ),
    "n_items": (
        "items",
        "Items whose within units enter the cell (the items the cluster bootstrap "
        f"resamples); below {MIN_CI_ITEMS} the interval of localization is not reported.",
    ),
}

NOTE_DESCRIPTION = (
    "Why `localization` is NaN in this cell: '' when it is defined; 'too few within "
    "units (n=k)', 'too few chance units (n=k)' or 'no variation: expected disagreement "
    "is 0' (Dataset attrs min_within_units, min_chance_units), as in the main result. A "
    "defined cell on fewer than min_ci_items items says that its interval is not "
    "reported."
)

#: The per-annotator figure of whole-skeleton mirrors (dims ``annotator`` only).
MIRRORED = (
    "share of mirrored skeletons",
    "Of the matched object pairs (within items; an annotator's cell those involving it), "
    "the share that are mirror images of each other: a higher OKS with one skeleton's "
    "left and right joints exchanged than as labelled (the whole skeleton drawn "
    "left/right mirrored). A mirror-aware kind matches them (they are not counted as "
    "misses); their left/right joints show as swapped. NaN without matched pairs.",
)
