"""The attribute agreement Dataset: bootstrap intervals of its cells and its variables.

:func:`intervals` resamples items (groups of items when the frame has a ``group``
column) with :func:`iaa_frames.stats.bootstrap.multiplicity_blocks`, reweighting the
per-item sums of :class:`~iaa_frames.measures.attribute_cells.AttributeCells`, and
takes the interval of the engine (BCa with the corrected width of
:func:`iaa_frames.stats.intervals.interval_scale`, or the percentile interval).
:func:`attribute_dataset` labels the arrays (:data:`VARIABLES`).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from iaa_frames.core.engine.result import interval_notes, text
from iaa_frames.frame.schema import ALL
from iaa_frames.stats.cell_intervals import CI_LEVEL, cell_intervals
from iaa_frames.stats.intervals import MIN_CI_ITEMS

__all__ = ["CI_LEVEL", "VARIABLES", "attribute_dataset", "intervals"]

_INTERVAL = (
    "cluster-bootstrap interval over items (groups of items with a group column), BCa "
    "with the engine's corrected width by default (ci_method and n_boot in the Dataset "
    f"attrs), level {CI_LEVEL}. NaN when n_boot is 0, the estimate is NaN or the cell "
    f"rests on fewer than {MIN_CI_ITEMS} items."
)

#: name -> (long_name, description) of every data variable, in Dataset order.
VARIABLES = {
    "alpha": (
        "Krippendorff's alpha of the attribute",
        "1 - D_o / D_e over the clusters of matched objects (units; an object's missing "
        "value left out), at the attribute's level of measurement (coordinate `level`): "
        "nominal (equal or not), ordinal (squared distances of midranks), interval "
        "(squared differences), masi (the MASI distance of sets of choices, Passonneau "
        "2006). 1 perfect, 0 chance, < 0 systematic disagreement; NaN "
        "when undefined (`note`).",
    ),
    "ci_low": ("lower confidence bound of alpha", "Lower bound of the " + _INTERVAL),
    "ci_high": ("upper confidence bound of alpha", "Upper bound (at most 1) of the " + _INTERVAL),
    "percent_agreement": (
        "raw percent agreement",
        "Share of the pairs of values within units (pairs of matched objects) whose two "
        "values are equal; not chance-corrected.",
    ),
    "percent_ci_low": (
        "lower confidence bound of percent agreement",
        "Lower bound of the " + _INTERVAL,
    ),
    "percent_ci_high": (
        "upper confidence bound of percent agreement",
        "Upper bound (at most 1) of the " + _INTERVAL,
    ),
    "observed": ("observed disagreement", "Alpha's D_o at the attribute's level."),
    "expected": (
        "expected disagreement",
        "Alpha's D_e at the attribute's level, from the cell's pairable values (interval "
        "values centred and divided by their largest absolute deviation first: alpha "
        "does not change).",
    ),
    "n_pairs": (
        "pairs of values",
        "Pairs of matched objects of the cell (within a unit) with both values present.",
    ),
    "n_values": (
        "pairable values",
        "Krippendorff's n: the cell's values in pairs, each value weighing its share of "
        "its unit's pairs (for '(all)' annotators and classes, the present values of "
        "units of at least two).",
    ),
    "n_units": ("units", "Clusters of matched objects with a pair of values in the cell."),
    "n_items": (
        "items",
        "Items whose pairs of values enter the cell (the items the bootstrap resamples); "
        f"below {MIN_CI_ITEMS} no interval is reported.",
    ),
}

NOTE_DESCRIPTION = (
    "'' where alpha is defined; else why not: no pairs of values (no matched objects with "
    "the attribute in the cell), or no variation (every pairable value is the same: "
    "expected disagreement 0). A defined cell on few items says that its interval is not "
    "reported."
)


def intervals(parts, out: dict, corpus, *, n_boot: int, seed: int, ci_method: str) -> dict:
    """``ci_low``, ``ci_high``, ``percent_ci_low``, ``percent_ci_high`` and ``note`` of
    every (attribute, cell)."""
    defined = np.isfinite(out["alpha"])
    note = np.where(out["n_pairs"] > 0, "", "no pairs of values").astype(object)
    note = np.where(
        (note == "") & ~defined, "no variation: expected disagreement is 0", note
    ).astype(object)
    keys = ("alpha", "percent_agreement")

    def statistics(k):
        stats = [p.statistics(k) for p in parts]
        return {key: np.stack([s[key] for s in stats], axis=1) for key in keys}

    bounds = cell_intervals(
        statistics,
        {key: out[key] for key in keys},
        n_items=len(corpus.items),
        cell_items={key: out["n_items"] for key in keys},
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        clusters=corpus.group_codes(),
        n_clusters=corpus.n_groups,
        width=max(p.within.matrix.shape[1] for p in parts),
    )
    result = {}
    result["ci_low"], result["ci_high"] = bounds["alpha"]
    result["percent_ci_low"], result["percent_ci_high"] = bounds["percent_agreement"]
    few = interval_notes(
        np.where(defined, "", "x").astype(object), n_items=out["n_items"], min_items=MIN_CI_ITEMS
    )
    few = np.where(defined, few, "")
    result["note"] = np.where(note == "", few, note).astype(object)
    return result


def attribute_dataset(
    values: dict, *, attributes, levels, level_sources, labels, annotators, attrs
) -> xr.Dataset:
    """The Dataset of (attribute, label, annotator) arrays, every variable described.

    Examples
    --------
    >>> shape = (1, 1, 1)
    >>> vals = {k: np.full(shape, 0.5) for k in VARIABLES}
    >>> vals["note"] = np.full(shape, "", dtype=object)
    >>> ds = attribute_dataset(vals, attributes=["occluded"], levels=["nominal"],
    ...                        level_sources=["given"], labels=["(all)"],
    ...                        annotators=["(all)"], attrs={})
    >>> ds["alpha"].attrs["long_name"]
    "Krippendorff's alpha of the attribute"
    """
    dims = ("attribute", "label", "annotator")
    data = {}
    for name, (long_name, description) in VARIABLES.items():
        v = np.asarray(values[name], dtype=np.float64)
        if name.startswith("n_"):
            v = np.rint(np.nan_to_num(v)).astype(np.int64) if name != "n_values" else v
        data[name] = (dims, v, {"long_name": long_name, "description": description})
    data["note"] = text(dims, values["note"], "reason alpha is NaN", description=NOTE_DESCRIPTION)
    coords = {
        "attribute": text(
            "attribute", attributes, "attribute", description="a column of per-object values"
        ),
        "level": text(
            "attribute",
            levels,
            "level of measurement",
            description="nominal, ordinal, interval or masi: the distance alpha uses",
        ),
        "level_source": text(
            "attribute",
            level_sources,
            "why this level",
            description="'given' (levels=) or inferred from the column's dtype",
        ),
        "label": text(
            "label",
            labels,
            "class",
            description=f"{ALL!r} pools every class; a class keeps the pairs of "
            "matched objects that both carry it",
        ),
        "annotator": text(
            "annotator",
            annotators,
            "annotator",
            description=f"{ALL!r} pools every annotator; an annotator's cell keeps "
            "the pairs of values that involve it",
        ),
    }
    description = (
        "Krippendorff's alpha of per-object attributes over the matched objects (the "
        "clusters of the pair tables' matching), at each attribute's level of "
        "measurement, with raw percent agreement and cluster-bootstrap intervals."
    )
    return xr.Dataset(data, coords=coords, attrs={"description": description, **attrs})
