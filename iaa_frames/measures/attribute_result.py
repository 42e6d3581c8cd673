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

from iaa_frames.engine.result import interval_notes, text
from iaa_frames.frame.schema import ALL
from iaa_frames.stats.bootstrap import block_size, jackknife_blocks, multiplicity_blocks
from iaa_frames.stats.intervals import MIN_CI_ITEMS, bca_interval, interval_scale
from iaa_frames.stats.samples import percentile_ci

__all__ = ["CI_LEVEL", "VARIABLES", "attribute_dataset", "intervals"]

#: Coverage of the bootstrap intervals.
CI_LEVEL = 0.95

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
        "(squared differences). 1 perfect, 0 chance, < 0 systematic disagreement; NaN "
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


def _replicates(parts, n_items, blocks, n_boot):
    keys = ("alpha", "percent_agreement")
    out = {k: np.empty((n_boot, len(parts), parts[0].n_cells)) for k in keys}
    start = 0
    for k in blocks:
        for a, p in enumerate(parts):
            s = p.statistics(k)
            for key in keys:
                out[key][start : start + len(k), a] = s[key]
        start += len(k)
    return out


def intervals(parts, out: dict, corpus, *, n_boot: int, seed: int, ci_method: str) -> dict:
    """``ci_low``, ``ci_high``, ``percent_ci_low``, ``percent_ci_high`` and ``note`` of
    every (attribute, cell)."""
    defined = np.isfinite(out["alpha"])
    note = np.where(out["n_pairs"] > 0, "", "no pairs of values").astype(object)
    note = np.where(
        (note == "") & ~defined, "no variation: expected disagreement is 0", note
    ).astype(object)
    result = {k: np.full(out["alpha"].shape, np.nan) for k in _CI_KEYS}
    if n_boot:
        n_items = len(corpus.items)
        clusters = corpus.group_codes()
        width = max([n_items] + [p.within.matrix.shape[1] for p in parts])
        blocks = multiplicity_blocks(
            n_items, n_boot, seed=seed, block_size=block_size(n_boot, width), clusters=clusters
        )
        reps = _replicates(parts, n_items, blocks, n_boot)
        if ci_method == "bca":
            jack_blocks = list(jackknife_blocks(n_items, clusters=clusters))
            jack = _replicates(parts, n_items, jack_blocks, sum(len(b) for b in jack_blocks))
        cell_items = np.minimum(out["n_items"], corpus.n_groups)
        for key, (low_key, high_key) in (
            ("alpha", ("ci_low", "ci_high")),
            ("percent_agreement", ("percent_ci_low", "percent_ci_high")),
        ):
            est = out[key]
            if ci_method == "bca":
                scale = interval_scale(
                    jack[key], 0.0, n_items=corpus.n_groups, level=CI_LEVEL, cell_items=cell_items
                )
                low, high = bca_interval(est, reps[key], jack[key], level=CI_LEVEL, scale=scale)
            else:
                low, high = percentile_ci(reps[key], level=CI_LEVEL)
            reported = np.isfinite(est) & (out["n_items"] >= MIN_CI_ITEMS)
            result[low_key] = np.where(reported, low, np.nan)
            result[high_key] = np.where(reported, np.minimum(high, 1.0), np.nan)
    few = interval_notes(
        np.where(defined, "", "x").astype(object), n_items=out["n_items"], min_items=MIN_CI_ITEMS
    )
    few = np.where(defined, few, "")
    result["note"] = np.where(note == "", few, note).astype(object)
    return result


_CI_KEYS = ("ci_low", "ci_high", "percent_ci_low", "percent_ci_high")


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
            description="nominal, ordinal or interval: the distance alpha uses",
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
