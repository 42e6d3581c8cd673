# Over 400 lines: most of it is the long_name and description of every variable of the
# result (the attrs users read), kept beside the code that builds the Dataset.
"""The labeled agreement result: an ``xarray.Dataset`` with attrs and reasons.

:func:`build_dataset` turns the cell arrays computed by :mod:`iaa_frames.core.engine` into the
Dataset of the public contract: dims ``(component, label, annotator)``, the coord
``measure(component)``, the data variables of :data:`VARIABLES` (each with ``long_name``
and ``description``), a string variable ``note`` that says why a cell's agreement is NaN,
and the parameters as plain Dataset attrs so that ``to_netcdf`` works.
:func:`build_pairwise` does the same for an annotator x annotator table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.frame.schema import ALL

__all__ = [
    "COMPONENTS",
    "MEASURES",
    "VARIABLES",
    "NOTE_DESCRIPTION",
    "NO_MATCH_NOTE",
    "FEW_ITEMS_NOTE",
    "few_note",
    "interval_notes",
    "build_dataset",
    "build_pairwise",
    "notes",
    "text",
]

COMPONENTS = ("detection", "classification", "localization", "overall")
MEASURES = {
    "detection": "sigma",
    "classification": "alpha",
    "localization": "sigma",
    "overall": "sigma",
}


def text(dims, values, long_name: str, *, description: str | None = None) -> tuple:
    """The ``(dims, values, attrs)`` of a labelled xarray variable of strings (object
    dtype, as names and notes are kept), its ``long_name`` and ``description`` in attrs.

    Examples
    --------
    >>> text("label", ["car", "(all)"], "class")
    ('label', array(['car', '(all)'], dtype=object), {'long_name': 'class'})
    """
    attrs = {"long_name": long_name} | ({"description": description} if description else {})
    return dims, np.asarray(values, dtype=object), attrs


_SIGMA_ONLY = "NaN for classification, which is an alpha."

#: name -> (long_name, description) of every data variable, in Dataset order.
VARIABLES = {
    "agreement": (
        "chance-corrected agreement",
        "1 - observed / expected. Sigma for detection, localization and overall, where "
        "expected is the mean distance of between-item (chance) pairings sent through the "
        "same pipeline; for classification, observed and expected are the shares of "
        "matched object pairs whose labels differ, within items and among the matched "
        "chance pairs of unrelated items (for a class, after recoding the labels to "
        "{class, other}; iaa_frames.core.engine.labels). Never clipped: a negative "
        "value means systematic disagreement. NaN when undefined; `note` says why.",
    ),
    "observed": (
        "observed disagreement",
        "Sigma components: mean within-item distance (1 - F1 of the matching for "
        "detection, the distance of matched object pairs for localization, the set "
        "distance for overall). Classification: the share of matched within-item pairs "
        "whose labels differ (a class: with the class on exactly one side).",
    ),
    "expected": (
        "expected disagreement",
        "Mean between-item (chance) distance from the same pipeline; classification: the "
        "share of matched chance pairs whose labels differ (a class: with the class on "
        "exactly one side).",
    ),
    "ks": (
        "Kolmogorov-Smirnov statistic",
        "Two-sided statistic of scipy.stats.ks_2samp(within, between) on the cell's "
        "within-item and chance distances. " + _SIGMA_ONLY,
    ),
    "ks_sign": (
        "Kolmogorov-Smirnov sign",
        "+1 when within-item distances are stochastically smaller than chance "
        "(agreement), -1 when larger, 0 when the statistic is 0. " + _SIGMA_ONLY,
    ),
    "ks_pvalue": (
        "Kolmogorov-Smirnov p-value (one-sided, cluster bootstrap)",
        "One-sided p-value of 'no agreement' against within-item distances stochastically "
        "smaller than chance, from the KS statistic max(F_within - F_between) and a "
        "recentred cluster bootstrap over items (iaa_frames.stats.kstest), valid although "
        "pairs share annotations and chance pairings share items. NaN when the cell's "
        "within rows come from fewer than 3 items. " + _SIGMA_ONLY,
    ),
    "n_units": (
        "within units",
        "Within-item units of the cell: pairings of two annotations of an item "
        "(detection, overall), matched object pairs (localization, classification; for "
        "a class's classification cell, the matched pairs with the class on one side at "
        "least; for an annotator, the pairs with one of its objects).",
    ),
    "n_items": (
        "items",
        "Number of items whose within units enter the cell (the items it rests on, "
        "which the cluster bootstrap resamples): items with a pairing, a matched object "
        "pair or a pairable cluster counted in `n_units`. Below min_ci_items (Dataset "
        "attrs) the interval is not reported (`ci_low`, `ci_high` NaN, and `note` says "
        "so).",
    ),
    "n_chance": (
        "chance units",
        "Distinct between-item (chance) units used, each counted once: pairings of "
        "annotations of two different items by two different annotators (detection, "
        "overall) or their matched object pairs (localization, classification; a class's "
        "classification cell counts those of its annotators' '(all)' cell, over which "
        "its expected disagreement is taken). `chance_source` says whether they are the "
        "cell's whole chance population, a sample of it, or borrowed.",
    ),
    "ci_low": (
        "lower confidence bound",
        "Lower bound of the cluster-bootstrap interval of `agreement` (items resampled "
        "with replacement; BCa with a corrected width by default, see "
        "iaa_frames.stats.intervals; level, method and n_boot in the Dataset attrs). NaN "
        "when n_boot is 0, `agreement` is NaN or the cell rests on fewer than "
        "min_ci_items items (`n_items`).",
    ),
    "ci_high": (
        "upper confidence bound",
        "Upper bound of the cluster-bootstrap interval of `agreement` (items resampled "
        "with replacement; BCa with a corrected width by default, see "
        "iaa_frames.stats.intervals; level, method and n_boot in the Dataset attrs); at most "
        "1. NaN when n_boot is 0, `agreement` is NaN or the cell rests on fewer than "
        "min_ci_items items (`n_items`).",
    ),
    "raw_iou": (
        "raw IoU",
        "Mean IoU of the matched within-item object pairs: the uncorrected figure that "
        "CVAT and V7 show, reported beside sigma to show the difference chance makes. "
        "Localization only (NaN elsewhere).",
    ),
    "frac_below_chance": (
        "fraction below chance",
        "Share of within-item distances below the 5 % quantile of the chance distances "
        "(the figure Braylan et al.'s code calls sigma; not ours). " + _SIGMA_ONLY,
    ),
    "presence_alpha": (
        "presence alpha",
        "Nominal alpha over presence, on the detection rows only (NaN elsewhere), for "
        "comparison with tools that report it: units are the clusters of an item "
        "(singletons included; for a class, the members of that class), raters the "
        "annotators who covered the item, value present/absent. It is not the headline "
        "because it is structurally broken: a cluster exists only because somebody "
        "found it, so no unit is ever absent/absent; with two annotators and u "
        "unmatched clusters out of n it equals 1 - (2n - 1) / (2n - u) <= 0, and it is "
        "about 0 under independent misses whatever the miss rate. Detection agreement "
        "uses the chance-baseline sigma instead. NaN when every "
        "value is 'present' (no expected disagreement).",
    ),
    "label_alpha": (
        "Krippendorff's alpha of the labels",
        "Krippendorff's nominal alpha over the labels of the matched clusters (binary "
        "alpha of {class, other} for a class), on the classification rows only (NaN "
        "elsewhere), for comparison with tools that report it. Its expected "
        "disagreement comes from the label marginals, so it counts as agreement what "
        "unrelated objects share by their position and size alone (classes in their "
        "own regions or sizes: annotators who never saw the image score near 1); the "
        "headline `agreement` takes it from matched chance pairs instead.",
    ),
    "matched_share": (
        "matched share",
        "Share of the cell's objects that found a partner at the match threshold: the "
        "mean over its within-item pairings of F1 = 2 matched / (n_a + n_b), i.e. 1 - "
        "detection's `observed`, shown on the localization rows (NaN elsewhere). "
        "Localization and classification describe the matched pairs only: an annotator "
        "whose objects leave the gate keeps only its lucky ones, which can raise them; "
        "read them beside this share.",
    ),
}

NO_VARIATION_NOTE = "no variation: expected disagreement is 0"
NO_MATCH_NOTE = "no object pair matches at the threshold, within items or by chance"
#: Start of the note of a cell whose interval is not reported (too few items).
FEW_ITEMS_NOTE = "interval not reported: rests on"

CHANCE_SOURCE_DESCRIPTION = (
    "How the cell's chance units were formed: 'enumerated' (every chance pairing of the "
    "cell's population: no sampling noise), 'sampled' (a uniform sample without "
    "replacement of that population), 'pooled' (a class whose own chance population is "
    "too small, typically small objects at a high threshold: the uniform sample's matched "
    "chance pairs of every class, weighted towards the shapes of the class's within "
    "pairs; for classification, a class carried by fewer than 10 chance pairs: its "
    "annotators' chance label disagreement, scaled by the class's share of the labels), "
    "'aligned' (the corpus's matched chance pairs are fewer than min_chance_units: "
    "objects of other items placed in this object's frame complete them, "
    "iaa_frames.core.chance.aligned), 'borrowed' (an annotator's or a pair of annotators' localization cell with "
    "fewer than min_chance_units chance units of its own: the units of its class's '(all)' "
    "cell, every annotator's, averaged over this cell's own mix of class pairs and count "
    "ratios (classification: not by class); n_chance counts them)."
)

NOTE_DESCRIPTION = (
    "Why `agreement` is NaN in this cell: '' when it is defined; 'too few within units "
    "(n=k)' when the cell has fewer within units than the minimum (Dataset attrs "
    "min_within_units, min_alpha_units); 'too few chance units (n=k)' when it has fewer "
    "chance units than min_chance_units; 'no variation: expected disagreement is 0' when "
    "the expected disagreement is 0 (every chance distance is 0, or a single label is "
    "used); 'no object pair matches at the threshold, within items or by chance' "
    "(detection: nothing to compare); 'not applicable' where the cell has no meaning "
    "(e.g. an annotator paired with itself). A cell whose `agreement` is defined may "
    "still carry a note about its interval: 'interval not reported: rests on k items "
    "(fewer than m)' when its within units come from fewer than min_ci_items items "
    "(`n_items`; Dataset attrs), where a bootstrap interval would be of (near) zero "
    "width and cover far less than its level."
)


def notes(
    *, n_units, n_chance_units, expected, min_units, min_chance, min_expected: float = 0.0
) -> np.ndarray:
    """The reason each cell's agreement is NaN ('' where it is defined).

    Parameters
    ----------
    n_units, n_chance_units, expected : numpy.ndarray
        Per cell (the variables ``n_units``, ``n_chance`` and ``expected`` of the result);
        ``n_chance_units`` is NaN where no chance units are needed (alpha).
    min_units, min_chance : int or numpy.ndarray
        Minimum counts (broadcast against the cells).
    min_expected : float, default 0
        An expected disagreement at or below this counts as none.

    Returns
    -------
    numpy.ndarray of object (str)

    Examples
    --------
    >>> out = notes(n_units=np.array([1.0, 5, 5, 5]),
    ...             n_chance_units=np.array([100.0, 3, 100, np.nan]),
    ...             expected=np.array([0.5, 0.5, 0.0, 0.2]), min_units=2, min_chance=30)
    >>> for reason in out:
    ...     print(repr(reason))
    'too few within units (n=1)'
    'too few chance units (n=3)'
    'no variation: expected disagreement is 0'
    ''
    """
    n_units = np.nan_to_num(np.asarray(n_units, dtype=np.float64)).astype(np.int64)
    chance = np.asarray(n_chance_units, dtype=np.float64)
    count_chance = np.nan_to_num(chance).astype(np.int64)
    out = np.full(n_units.shape, "", dtype=object)
    out = np.where(~(np.asarray(expected) > min_expected), NO_VARIATION_NOTE, out)
    out = np.where(
        ~np.isnan(chance) & (count_chance < min_chance),
        _counted("too few chance units", count_chance),
        out,
    )
    out = np.where(n_units < min_units, _counted("too few within units", n_units), out)
    return out.astype(object)


def interval_notes(note, *, n_items, min_items: int) -> np.ndarray:
    """``note`` with the interval note added to the cells whose agreement is defined
    (empty note) but which rest on fewer than ``min_items`` items.

    Parameters
    ----------
    note : numpy.ndarray of object (str)
        The notes of :func:`notes` ('' where agreement is defined).
    n_items : numpy.ndarray
        Items per cell (NaN counts as 0).
    min_items : int
        Fewest items for which the interval is reported.

    Returns
    -------
    numpy.ndarray of object (str)

    Examples
    --------
    >>> out = interval_notes(np.array(["", "", "too few within units (n=1)"], dtype=object),
    ...                      n_items=np.array([1.0, 12, 1]), min_items=4)
    >>> for reason in out:
    ...     print(repr(reason))
    'interval not reported: rests on 1 item (fewer than 4)'
    ''
    'too few within units (n=1)'
    """
    n = np.nan_to_num(np.asarray(n_items, dtype=np.float64)).astype(np.int64)
    text = few_note(FEW_ITEMS_NOTE, n, "item", min_items)
    few = (np.asarray(note, dtype=object) == "") & (n < min_items)
    return np.where(few, text, note).astype(object)


def few_note(prefix: str, n: np.ndarray, noun: str, minimum: int) -> np.ndarray:
    """``"{prefix} {n} {noun}(s) (fewer than {minimum})"`` for every cell, vectorized.

    >>> few_note("rests on", np.array([1, 3]), "item", 4).tolist()
    ['rests on 1 item (fewer than 4)', 'rests on 3 items (fewer than 4)']
    """
    text = np.strings.add(
        np.strings.add(f"{prefix} ", n.astype(str)),
        np.where(n == 1, f" {noun}", f" {noun}s"),
    )
    return np.strings.add(text, f" (fewer than {int(minimum)})").astype(object)


def _counted(text: str, n: np.ndarray) -> np.ndarray:
    """``"{text} (n={n})"`` for every cell, vectorized."""
    return np.strings.add(np.strings.add(f"{text} (n=", n.astype(str)), ")").astype(object)


def _attrs(name: str) -> dict:
    long_name, description = VARIABLES[name]
    return {"long_name": long_name, "description": description}


def build_dataset(values: dict, *, labels, annotators, attrs: dict) -> xr.Dataset:
    """The agreement Dataset from cell arrays.

    Parameters
    ----------
    values : dict
        One ``(component, label, annotator)`` array per name of :data:`VARIABLES`, plus
        ``note``; components in :data:`COMPONENTS` order.
    labels, annotators : sequence of str
        Coordinate values, ``"(all)"`` first.
    attrs : dict
        Dataset attrs (plain strings and numbers).

    Returns
    -------
    xarray.Dataset

    Examples
    --------
    >>> shape = (4, 1, 1)
    >>> vals = {k: np.full(shape, 0.5) for k in VARIABLES}
    >>> vals["note"] = np.full(shape, "", dtype=object)
    >>> ds = build_dataset(vals, labels=["(all)"], annotators=["(all)"], attrs={"seed": 0})
    >>> ds["measure"].values.tolist()
    ['sigma', 'alpha', 'sigma', 'sigma']
    """
    dims = ("component", "label", "annotator")
    data = {
        name: (dims, np.asarray(values[name], dtype=np.float64), _attrs(name)) for name in VARIABLES
    }
    data["note"] = text(
        dims, values["note"], "reason agreement is NaN", description=NOTE_DESCRIPTION
    )
    if "chance_source" in values:
        data["chance_source"] = text(
            dims,
            values["chance_source"],
            "source of the chance units",
            description=CHANCE_SOURCE_DESCRIPTION,
        )
    coords = {
        "component": text("component", COMPONENTS, "component of agreement"),
        "label": text("label", labels, "class", description=f"{ALL!r} pools every class"),
        "annotator": text(
            "annotator",
            annotators,
            "annotator",
            description=f"{ALL!r} pools every annotator; an annotator's cell "
            "keeps only the pairs or pairable values that "
            "involve it",
        ),
        "measure": text(
            "component",
            [MEASURES[c] for c in COMPONENTS],
            "statistic of the component",
            description="sigma: 1 - mean within / mean chance distance; "
            "alpha: Krippendorff's alpha",
        ),
    }
    return xr.Dataset(_variables(data), coords=_variables(coords, index=dims), attrs=dict(attrs))


def _variables(spec: dict, *, index=()) -> dict:
    """Variables of ``(dims, array, attrs)`` tuples (those named in ``index`` indexed) on
    xarray's fast path: its slow path imports dask (0.3 s) wherever dask is installed."""
    return {
        name: xr.IndexVariable(dims, pd.Index(values, dtype=object), attrs, fastpath=True)
        if name in index
        else xr.Variable(dims, values, attrs, fastpath=True)
        for name, (dims, values, attrs) in spec.items()
    }


def build_pairwise(values: dict, *, annotators, attrs: dict) -> xr.DataArray:
    """An annotator x annotator DataArray of agreement from square arrays.

    Parameters
    ----------
    values : dict
        Square arrays ``agreement``, ``n_units``, ``n_chance`` and ``note`` (rows
        ``annotator_a``, columns ``annotator_b``), and optionally ``chance_source``.
    annotators : sequence of str
    attrs : dict

    Returns
    -------
    xarray.DataArray
        Dims ``(annotator_a, annotator_b)``, with ``n_units``, ``n_chance`` and ``note``
        as coordinates.

    Examples
    --------
    >>> vals = {"agreement": np.array([[np.nan, 0.8], [0.8, np.nan]]),
    ...         "n_units": np.full((2, 2), 10.0), "n_chance": np.full((2, 2), 50.0),
    ...         "note": np.array([["not applicable", ""], ["", "not applicable"]], dtype=object)}
    >>> da = build_pairwise(vals, annotators=["ann", "bob"], attrs={"component": "localization"})
    >>> float(da.sel(annotator_a="ann", annotator_b="bob"))
    0.8
    """
    dims = ("annotator_a", "annotator_b")
    names = np.asarray(annotators, dtype=object)
    coords = {
        "annotator_a": ("annotator_a", names),
        "annotator_b": ("annotator_b", names),
        "n_units": (dims, np.asarray(values["n_units"], dtype=np.float64), _attrs("n_units")),
        "n_chance": (dims, np.asarray(values["n_chance"], dtype=np.float64), _attrs("n_chance")),
        "note": text(dims, values["note"], "reason agreement is NaN", description=NOTE_DESCRIPTION),
    }
    for name in ("ci_low", "ci_high"):
        if name in values:
            coords[name] = (dims, np.asarray(values[name], dtype=np.float64), _attrs(name))
    if "chance_source" in values:
        coords["chance_source"] = text(
            dims,
            values["chance_source"],
            "source of the chance units",
            description=CHANCE_SOURCE_DESCRIPTION,
        )
    long_name, description = VARIABLES["agreement"]
    return xr.DataArray(
        np.asarray(values["agreement"], dtype=np.float64),
        dims=dims,
        coords=coords,
        name="agreement",
        attrs={"long_name": long_name, "description": description, **attrs},
    )
