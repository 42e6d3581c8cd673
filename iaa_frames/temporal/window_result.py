"""The variables of :func:`iaa_frames.temporal.agreement_over_time` from the estimates
and replicates of every window (:mod:`.windows`): the windows' figures and intervals, the
other annotators' pairs in every annotator's cell, the baseline, the flags
(:mod:`.drift`) and the labelled Dataset."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.core.engine import CI_LEVEL, CellLayout
from iaa_frames.core.engine.assemble import name_order, names_in_order
from iaa_frames.core.engine.result import COMPONENTS, MEASURES, text
from iaa_frames.settings.thresholds import with_threshold
from iaa_frames.stats.intervals import bca_interval

from .drift import change_points, fall_margin

__all__ = ["VARIABLES", "dataset", "flag_notes", "flags", "window_values", "with_others"]

#: The variables of the result: name -> (long_name, description).
VARIABLES = {
    "agreement": ("chance-corrected agreement of the window", "1 - observed / expected."),
    "observed": ("observed disagreement of the window", "From the window's items only."),
    "expected": (
        "expected disagreement: the corpus's chance",
        "The chance expectation of the whole corpus (every window's, whatever its items); "
        "localization's post-stratified to the window's within pairs; classification's "
        "(an alpha) from the window's own clusters.",
    ),
    "ci_low": (
        "lower bound of the BCa interval",
        "Window items and corpus resampled; the width corrected for the window's items.",
    ),
    "ci_high": (
        "upper bound of the BCa interval",
        "Window items and corpus resampled; the width corrected for the window's items.",
    ),
    "others_agreement": (
        "agreement of the other annotators' pairs among themselves",
        "For an annotator's cell: the window's agreement of the pairs without the "
        "annotator (NaN for '(all)', and with fewer than three annotators).",
    ),
    "baseline": ("agreement of all windows before the latest, pooled", ""),
    "baseline_ci_low": ("lower bound of the baseline's interval", ""),
    "baseline_ci_high": ("upper bound of the baseline's interval", ""),
    "drop": ("baseline minus the latest window", ""),
    "drop_margin": (
        "margin of the drop",
        "drop minus the one-sided lower bound of its bootstrap replicates.",
    ),
    "contrast": (
        "drop of the annotator's cell beyond the drop of the other annotators' pairs",
        "NaN for '(all)' and where the other annotators' pairs are undefined.",
    ),
    "contrast_margin": ("margin of the contrast", ""),
    "recalibrate": (
        "the latest window falls below the baseline",
        "drop > drop_margin; for an annotator also contrast > contrast_margin (where "
        "defined): the annotator, not its partners, fell.",
    ),
    "change_window": (
        "first window of the lower run",
        "Start of the window from which the cell stays lower (for an annotator: its cell "
        "against the other annotators' pairs); NaT / NaN: no change.",
    ),
    "change_z": ("standardized fall at the change", "Its bootstrap z of the best split."),
    "flag_note": (
        "why drop, its margin or the flag cannot be computed",
        "Empty where drop and drop_margin are numbers.",
    ),
}


def with_others(est, reps, j, layout: CellLayout, without) -> dict:
    """A window's (or the baseline's) estimates and replicates, with, in every annotator's
    cell, the other annotators' pairs among themselves (``others``)."""
    own, own_reps = est[(j, None)], reps[(j, None)]
    others = np.full(own["agreement"].shape, np.nan)
    others_reps = np.full(own_reps.shape, np.nan)
    pooled = np.arange(layout.n_labels + 1) * layout.n_groups  # the cells of "(all)"
    for a in without[1:]:
        others[:, pooled + 1 + a] = est[(j, a)]["agreement"][:, pooled]
        others_reps[:, :, pooled + 1 + a] = reps[(j, a)][:, :, pooled]
    return {**own, "reps": own_reps, "others": others, "others_reps": others_reps}


def _interval(s: dict, n_boot: int):
    """BCa interval of a window's cells with :func:`iaa_frames.agreement`'s width
    correction (``jackknife`` and ``scale``: :func:`.over_time._over_time`), where defined
    on enough items."""
    if not n_boot:
        return np.full_like(s["agreement"], np.nan), np.full_like(s["agreement"], np.nan)
    with np.errstate(invalid="ignore"):
        low, high = bca_interval(
            s["agreement"], s["reps"], s["jackknife"], level=CI_LEVEL, scale=s["scale"]
        )
    high = np.minimum(high, 1.0)  # the widened interval stays in the range of agreement
    # the rare-event rules of iaf.agreement (SubsetCells.estimates: NaN where none)
    low, high = np.fmin(low, s["rare_low"]), np.fmax(high, s["rare_high"])
    shown = np.isfinite(s["agreement"]) & (s["interval_note"] == "")
    return np.where(shown, low, np.nan), np.where(shown, high, np.nan)


def window_values(series: dict, n_windows: int, n_boot: int) -> dict:
    """The variables by window, and the baseline's."""
    windows = [series[j] for j in range(n_windows)]
    out = {k: np.stack([s[k] for s in windows]) for k in ("agreement", "observed", "expected")}
    out["others_agreement"] = np.stack([s["others"] for s in windows])
    out["ci_low"], out["ci_high"] = (
        np.stack(v) for v in zip(*(_interval(s, n_boot) for s in windows))
    )
    out["note"] = np.stack(
        [np.where(s["note"] == "", s["interval_note"], s["note"]) for s in windows]
    ).astype(object)
    base = series.get("baseline")
    if base is None:
        nan = np.full_like(windows[-1]["agreement"], np.nan)
        out["baseline"] = out["baseline_ci_low"] = out["baseline_ci_high"] = nan
    else:
        out["baseline"] = base["agreement"]
        out["baseline_ci_low"], out["baseline_ci_high"] = _interval(base, n_boot)
    return out


def flags(series: dict, n_windows: int, n_boot: int) -> dict:
    """drop, contrast and their margins, recalibrate, and the change points."""
    last = series[n_windows - 1]
    base = series.get("baseline") or {
        k: np.full(np.shape(last[k]), np.nan)
        for k in ("agreement", "reps", "others", "others_reps")
    }
    drop = base["agreement"] - last["agreement"]
    drop_reps = base["reps"] - last["reps"]
    others_drop = base["others"] - last["others"]
    contrast = drop - others_drop
    contrast_reps = drop_reps - (base["others_reps"] - last["others_reps"])
    out = {"drop": drop, "contrast": contrast}
    with np.errstate(invalid="ignore"):
        if n_boot:
            out["drop_margin"] = fall_margin(drop, drop_reps, level=CI_LEVEL)
            out["contrast_margin"] = fall_margin(contrast, contrast_reps, level=CI_LEVEL)
        else:
            out["drop_margin"] = out["contrast_margin"] = np.full_like(drop, np.nan)
        singled = ~np.isfinite(contrast) | (contrast > out["contrast_margin"])
        out["recalibrate"] = (drop > out["drop_margin"]) & singled
    # when: per cell, its series over the windows; an annotator's against the others'
    windows = [series[j] for j in range(n_windows)]
    own = np.stack([s["agreement"] for s in windows])
    others = np.stack([s["others"] for s in windows])
    own_reps = np.stack([s["reps"] for s in windows], axis=1)
    others_reps = np.stack([s["others_reps"] for s in windows], axis=1)
    contrasted = np.isfinite(others).any(axis=0)
    y = np.where(contrasted, own - others, own)
    y_reps = np.where(contrasted, own_reps - others_reps, own_reps)
    out["change_at"], out["change_z"] = change_points(y, y_reps, level=CI_LEVEL)
    out["flag_note"] = flag_notes(base["agreement"], last["agreement"], n_windows, n_boot)
    return out


def flag_notes(baseline, latest, n_windows: int, n_boot: int) -> np.ndarray:
    """Why a cell's ``drop`` (and so its margins, contrast and flag) is NaN, or why its
    margins are: one window, an undefined baseline or latest window, no replicates; ""
    where the drop and its margin are numbers."""
    if n_windows < 2:
        why = "one window: no earlier windows to compare the latest with"
        return np.full(np.shape(latest), why, dtype=object)
    no_base, no_last = ~np.isfinite(baseline), ~np.isfinite(latest)
    out = np.where(
        no_base & no_last,
        "agreement undefined in the baseline and the latest window (see note)",
        np.where(
            no_base,
            "agreement undefined in the windows before the latest (see note)",
            np.where(no_last, "agreement undefined in the latest window (see note)", ""),
        ),
    ).astype(object)
    if not n_boot:
        out[out == ""] = "n_boot=0: no replicates, so no margins"
    return out


def dataset(values: dict, tables, layout: CellLayout, kept: pd.Index, n_boot: int, seed: int):
    """The labelled result of one threshold."""
    corpus = tables.corpus
    labels, annotators = name_order(corpus.labels), name_order(corpus.annotators)

    def cells(v):  # (..., component, n_cells) -> (..., component, label, annotator)
        v = np.asarray(v)
        v = v.reshape(v.shape[:-1] + (layout.n_labels + 1, layout.n_groups))
        return v[..., labels, :][..., annotators]

    dims = ("component", "label", "annotator")
    data = {}
    for name, v in values.items():
        v = cells(v)
        if name == "change_at":
            start = np.asarray(kept)
            none = np.datetime64("NaT") if start.dtype.kind == "M" else np.nan
            name, v = "change_window", np.where(v >= 0, start[np.maximum(v, 0)], none)
        long_name, description = VARIABLES.get(name, ("reason agreement is NaN", ""))
        attrs = {"long_name": long_name} | ({"description": description} if description else {})
        data[name] = (("window", *dims) if v.ndim == 4 else dims, v, attrs)
    coords = {
        "window": kept,
        "component": text("component", COMPONENTS, "component of agreement"),
        "label": names_in_order(corpus.labels, labels),
        "annotator": names_in_order(corpus.annotators, annotators),
        "measure": text("component", [MEASURES[c] for c in COMPONENTS], "statistic"),
    }
    attrs = {
        "title": "iaa_frames agreement over time",
        **tables.params,
        "chance": (
            f"the whole corpus ({len(corpus.items)} items), the same for every window: "
            "a window's expected disagreement is the corpus's chance expectation "
            "(localization post-stratified to the window's within pairs); only the within "
            "side is the window's"
        ),
        "n_boot": int(n_boot),
        "seed": int(seed),
        "ci_level": CI_LEVEL,
        "ci_method": "bca",
    }
    ds = xr.Dataset(data, coords=coords, attrs=attrs)
    ds["note"] = ds["note"].astype(object)
    ds["flag_note"] = ds["flag_note"].astype(object)
    return with_threshold(ds, tables.params["match_threshold"])
