"""The plain-language reading of an agreement result: the report's "Reading" section.

Sigma has no conventional cut-offs, so it is read against chance (:func:`against_chance`,
with the bootstrap interval) and against the other components (:func:`relative_levels`);
alpha is also set against Krippendorff's thresholds (:func:`level`). :func:`reading`
matches the pooled levels against the diagnosis table below, then names the classes and
annotators that stand out.

Reading the components together
-------------------------------
==========  ==============  ============  ==================================================
detection   classification  localization  likely cause
==========  ==============  ============  ==================================================
high        high            low           loose drawing guidelines (tight vs loose boxes,
                                          occluded parts)
low         any             high          unclear definition of "an object" (minimum size,
                                          groups, truncation)
high        low             high          overlapping or confusing class definitions
low         low             low           the task needs rethinking, not more annotators
any         any             < 0           two incompatible conventions in use
==========  ==============  ============  ==================================================

If σ and the KS test disagree, a minority of items concentrates the disagreement; the
per-item drilldown (:func:`iaa_frames.explore.items`) shows which.

The match threshold τ is read first (:mod:`iaa_frames.report.gate`): when detection and
localization fall together because of the gate, the reading says so and points at the
threshold curve instead of the diagnosis table.
"""

from __future__ import annotations

import math

import numpy as np

from iaa_frames.core.engine.result import COMPONENTS, MEASURES
from iaa_frames.explore.views import cell_value, top_by_support
from iaa_frames.frame.schema import ALL
from iaa_frames.plot.rows import unread as unread_of
from iaa_frames.settings.thresholds import has_threshold_dim, nearest_threshold

from .evidence import TRIAD as _TRIAD
from .evidence import annotator_sentences, gap_evidence
from .formatting import component_name, fmt, isolate, listing
from .gate import gate_evidence, gate_text
from .levels import GAP, HIGH, LOW, against_chance, level, relative_levels

__all__ = ["GAP", "HIGH", "LOW", "against_chance", "level", "reading", "relative_levels"]

_MEANING = {
    "detection": "finding the same objects",
    "classification": "giving matched objects the same class",
    "localization": "drawing matched objects in the same place",
    "overall": "the annotations as a whole",
}


def _note(result, component, label=ALL, annotator=ALL) -> str:
    if "note" not in result:
        return ""
    return str(
        result["note"].sel(component=component, label=label, annotator=annotator).values
    ).strip()


def _diagnose(d: str, c: str, loc: str) -> str | None:
    """The diagnosis table ("Reading the components together" in the module docstring), on
    levels (moderate counts as neither high nor low except where noted)."""
    hi = lambda x: x == "high"  # noqa: E731
    lo = lambda x: x in ("low", "below chance")  # noqa: E731
    if loc == "below chance":
        return (
            "localization is below chance: systematic disagreement, most likely two "
            "incompatible drawing conventions in use (e.g. tight vs loose boxes, "
            "visible vs amodal extent)."
        )
    if lo(d) and lo(c) and lo(loc):
        return "all three components are low: the task needs rethinking, not more annotators."
    if hi(d) and hi(c) and lo(loc):
        return (
            "annotators agree on what to annotate and how to label it, but not on how "
            "to draw it: most likely the drawing guidelines are too loose (tight vs loose boxes, "
            "occluded parts)."
        )
    if lo(d) and hi(loc):
        return (
            "annotators draw well what they both find, but do not find the same "
            'objects: most likely the definition of "an object" is unclear (minimum size, groups, '
            "truncation)."
        )
    if hi(d) and lo(c) and hi(loc):
        return (
            "annotators find and draw the same objects but label them differently: most "
            "likely the class definitions overlap or are confusing."
        )
    if hi(d) and hi(c) and hi(loc):
        return (
            "no component stands out as the weak point (each is within "
            f"{GAP:g} of the best, or at {HIGH:g} or above)."
        )
    return None


def reading(result, *, max_labels: int = 8, sweep=None) -> list[str]:
    """A short plain-language reading of an agreement result (the diagnosis table of
    :mod:`iaa_frames.report.diagnosis`).

    Sigma has no conventional cut-offs, so the components are read against chance (with
    their bootstrap intervals) and against each other (:func:`relative_levels`: a
    component more than :data:`GAP` below the best one is the weak point); alpha is also
    set against Krippendorff's thresholds (:func:`level`). The pooled figures are matched
    against the diagnosis table; then the classes and annotators that stand out are named, σ and
    KS are compared (a high KS with a lower σ means a minority of items concentrates the
    disagreement), raw IoU is set beside localization σ, and undefined figures are
    explained with their ``note``. When detection and localization fall together because
    of the match threshold τ (:func:`iaa_frames.report.gate.gate_evidence`), the reading says so and points at
    the threshold curve instead of the diagnosis table.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result; with a ``threshold`` dimension, it is read at the report's
        threshold (0.5, or the nearest) and serves as ``sweep``.
    max_labels : int, default 8
        Largest number of class / annotator names listed per sentence.
    sweep : xarray.Dataset, optional
        The same corpus at several thresholds (a ``threshold`` dimension): detection at
        lower thresholds tells whether τ explains low detection.

    Returns
    -------
    list of str
        Sentences, most important first.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import agreement
    >>> res = agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> reading(res)[0].startswith("Detection")
    True
    """
    if has_threshold_dim(result):
        sweep = result if sweep is None else sweep
        # the report's threshold (report.threshold.report_threshold): 0.5 or the nearest
        result = result.sel(threshold=nearest_threshold(result["threshold"].values, 0.5))
    out = []
    comps = [c for c in _TRIAD if c in result["component"].values]
    cis = _intervals(result)
    lv = _corpus_levels(result)
    parts = []
    for c in comps:
        v = cell_value(result, c)
        extra = against_chance(v, *cis[c])
        if MEASURES.get(c) == "alpha" and math.isfinite(v):
            extra = f"{level(v)} by Krippendorff's thresholds"
        parts.append(f"{component_name(result, c)} = {fmt(v)} ({_MEANING[c]}; {extra})")
    first = "; ".join(parts) + "."
    out.append(first[:1].upper() + first[1:])
    gate = gate_evidence(result, sweep=sweep) if lv["localization"] != "below chance" else None
    diagnosis = (
        gate_text(gate)
        if gate
        else _diagnose(lv["detection"], lv["classification"], lv["localization"])
    )
    if diagnosis:
        out.append("Overall reading: " + diagnosis)
        if not gate:
            out.extend(gap_evidence(result, lv, cis, gap=GAP))
    else:
        weak = [c for c in _TRIAD if lv[c] in ("low", "below chance")]
        if weak:
            out.append(
                "Overall reading: the weak point is "
                + " and ".join(f"{c} ({_MEANING[c]}, {lv[c]})" for c in weak)
                + "."
            )
    below = [c for c in COMPONENTS if lv[c] == "below chance" and c != "localization"]
    for c in below:
        out.append(
            f"{c.capitalize()} is below chance ({fmt(cell_value(result, c))}): "
            "systematic disagreement, not noise."
        )
    for c in _TRIAD:
        lo, hi = cell_value(result, c, var="ci_low"), cell_value(result, c, var="ci_high")
        if math.isfinite(lo) and math.isfinite(hi) and lo <= 0 <= hi:
            out.append(
                f"The confidence interval of {c} [{fmt(lo)}, {fmt(hi)}] includes "
                "0: it cannot be told apart from chance."
            )
    for c in _TRIAD:
        if lv[c] == "undefined":
            why = _note(result, c)
            out.append(
                f"{c.capitalize()} is undefined (NaN, not 0 or 1 by fiat)"
                + (f": {why}." if why else ".")
            )
    raw = cell_value(result, "localization", var="raw_iou")
    if math.isfinite(raw) and math.isfinite(cell_value(result, "localization")):
        out.append(
            f"The raw mean IoU of matched pairs is {fmt(raw)}, the figure annotation "
            f"tools show; corrected for chance, localization σ is "
            f"{fmt(cell_value(result, 'localization'))}."
        )
    share = (
        cell_value(result, "localization", var="matched_share")
        if ("matched_share" in result)
        else math.nan
    )
    if math.isfinite(share) and math.isfinite(cell_value(result, "localization")):
        out.append(
            f"Localization and classification describe the matched pairs only: "
            f"{share:.0%} of the objects found a partner at the match threshold "
            "(matched_share; an annotator whose objects leave the gate keeps only its "
            "lucky ones)."
        )
    for c in ("localization", "detection"):
        k = cell_value(result, c, var="ks") * cell_value(result, c, var="ks_sign")
        s = cell_value(result, c)
        p = cell_value(result, c, var="ks_pvalue")
        if math.isfinite(k) and math.isfinite(s) and k - s > 0.25 and p < 0.05:
            out.append(
                f"For {c}, KS ({fmt(k)}) is well above σ ({fmt(s)}): most pairs "
                "agree and a minority of items concentrates the disagreement; the "
                "hardest items below show which."
            )
    out.extend(_label_sentences(result, max_labels, sweep))
    out.extend(annotator_sentences(result, max_labels))
    return out


def _intervals(result) -> dict:
    """component -> (ci_low, ci_high) of the pooled cell."""
    return {
        c: (cell_value(result, c, var="ci_low"), cell_value(result, c, var="ci_high"))
        for c in COMPONENTS
    }


def _corpus_levels(result) -> dict:
    """:func:`relative_levels` of the pooled cells, and overall against chance."""
    cis = _intervals(result)
    lv = relative_levels({c: cell_value(result, c) for c in _TRIAD}, cis)
    lv["overall"] = against_chance(cell_value(result, "overall"), *cis["overall"])
    return lv


def _label_sentences(result, limit, sweep=None):
    """Classes grouped by diagnosis, most supported first."""
    labels, _ = top_by_support(result, "label", None, keep_all=False)
    if not labels:
        return []
    comps = [c for c in _TRIAD if c in result["component"].values]
    values = result["agreement"].sel(component=comps, label=labels, annotator=ALL).values
    sub = result.sel(component=comps, label=labels, annotator=ALL)
    low = sub["ci_low"].values if "ci_low" in sub else np.full(values.shape, np.nan)
    high = sub["ci_high"].values if "ci_high" in sub else np.full(values.shape, np.nan)
    notes = sub["note"].values if "note" in sub else np.full(values.shape, "", dtype=object)
    groups: dict[str, list] = {}
    undefined = []
    reasons: dict[str, None] = {}  # the notes of the undefined figures, in order
    # with intervals in the corpus, a class whose figures have none (fewer than 4 items)
    # is not read: its levels would rest on point estimates of a handful of units (the
    # rule of the figures and their captions, iaa_frames.plot.rows.unread)
    not_read = set(unread_of(result, "label"))
    unread = [lab for lab in labels if lab in not_read]
    for k, lab in enumerate(labels):
        if lab in not_read:
            continue
        lv = relative_levels(
            dict(zip(comps, values[:, k])),
            {c: (low[i, k], high[i, k]) for i, c in enumerate(comps)},
        )
        if "undefined" in lv.values():
            undefined.append(lab)
            for i, c in enumerate(comps):
                if lv.get(c) == "undefined" and str(notes[i, k]):
                    reasons.setdefault(str(notes[i, k]).split(":")[0].split(" (")[0], None)
        gate = None
        if lv.get("localization") != "below chance" and set(comps) == set(_TRIAD):
            gate = gate_evidence(result, sweep=sweep, label=lab)
        text = (
            gate_text(gate, short=True)
            if gate
            else _diagnose(lv.get("detection"), lv.get("classification"), lv.get("localization"))
        )
        if text and not text.startswith("no component stands out"):
            groups.setdefault(text, []).append(lab)
    out = []
    corpus = _diagnose(*(_corpus_levels(result)[c] for c in _TRIAD))
    for text, labs in groups.items():
        if text == corpus:
            text = "the same pattern as the corpus as a whole (above)."
        out.append(
            f"Classes {listing(labs, limit)}: {text}"
            if len(labs) > 1
            else f"Class {isolate(labs[0])}: {text}"
        )
    if unread:
        out.append(
            f"{len(unread)} class(es) ({listing(unread, limit)}) are not read: their "
            "figures rest on fewer than 4 items and have no interval."
        )
    if undefined:
        why = "; ".join(list(reasons)[:3]) or "too few units or no variation"
        out.append(
            f"Some figures of {len(undefined)} class(es) ({listing(undefined, limit)}) "
            f"are undefined ({why}; see the note column)."
        )
    return out
