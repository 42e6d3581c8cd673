"""Whether the match threshold τ explains low detection and localization.

Two objects match when their IoU is at least τ. A drawing of an object that misses the gate
turns one object into two misses, so loose drawing lowers detection along with
localization, and "detection and localization are low" alone would send the reader to
rethink the task. :func:`gate_evidence` tells when the gate explains it; the report's
reading (:func:`iaa_frames.report.reading`) then says so (:func:`gate_text`) and points at
the threshold curve instead of the diagnosis table.

Both components must read low relative to each other (``relative_levels`` of
:mod:`iaa_frames.report.diagnosis`). Then:

* **with a sweep** holding thresholds below τ, the gate explains it when detection at one
  of them is above chance and clearly above detection at τ (its interval above the
  interval at τ; without intervals, more than ``GAP`` above), and does not when it stays
  flat;
* **at one threshold**, when detection is above chance (the annotators do find the same
  objects; random annotators do not) and the raw IoU of the matched pairs lies in the
  lowest :data:`NEAR_GATE` of [τ, 1]. A mean below ``τ + (1 - τ) / 3`` means the density
  of matched IoUs falls faster than linearly above τ (a density falling linearly from τ
  to 0 at 1 has its mean at exactly a third of the way), i.e. the gate cuts into the bulk
  of the pairs.

On simulated corpora at τ = 0.5 (``tests/report/test_diagnosis.py``): pure jitter of 0.2
to 0.45 of the object size gives a matched raw IoU of 0.59 (0.18 of the way) with detection
0.33 to 0.05, above chance, and detection rises at τ = 0.3; good annotators give 0.85 and
more, annotators who miss objects but draw well 0.83; random annotators match only by
chance, at 0.58, but their detection is at chance level and stays flat at a lower τ.
"""

from __future__ import annotations

import math

from iaa_frames.explore.views import cell_value
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.thresholds import has_threshold_dim

from .formatting import fmt
from .levels import GAP, against_chance, relative_levels

__all__ = ["NEAR_GATE", "gate_evidence", "gate_text"]

#: The raw IoU of matched pairs reads "just above the gate τ" when it lies in the lowest
#: third of [τ, 1] (module docstring: the mean of a density falling linearly from τ).
NEAR_GATE = 1 / 3

_TRIAD = ("detection", "classification", "localization")
_CURVE = (
    "the threshold curve (df.iaa.plot.threshold_curve(), or report(..., "
    "match_threshold=[0.1, 0.2, ..., 0.9]))"
)


def _finite(x) -> bool:
    return x is not None and math.isfinite(float(x))


def gate_evidence(result, *, sweep=None, label=ALL, annotator=ALL) -> dict | None:
    """Whether the match threshold τ explains low detection and localization of a cell.

    Detection and localization must both read low relative to each other and to
    classification (:func:`relative_levels`; localization below chance is another
    diagnosis). Then, with a ``sweep`` (a result with a ``threshold`` dimension) holding
    thresholds below τ, the gate explains it when detection at one of them is above chance
    and clearly above detection at τ (its interval above τ's interval; without intervals,
    more than :data:`GAP` above), and does not when it stays flat.
    Without lower thresholds, it explains it when detection is above chance (the
    annotators find the same objects; random annotators do not) and the raw IoU of the
    matched pairs lies within :data:`NEAR_GATE` of the way from τ to 1 (module
    docstring).

    Parameters
    ----------
    result : xarray.Dataset
        An agreement result at one threshold (scalar ``threshold`` coordinate).
    sweep : xarray.Dataset, optional
        The same corpus at several thresholds.
    label, annotator : str, default "(all)"
        The cell.

    Returns
    -------
    dict or None
        None when the gate does not explain it (or τ is unknown); otherwise ``tau``,
        ``raw_iou``, ``detection`` and, from the sweep, ``lower_tau`` and
        ``lower_detection`` (NaN without one).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=40, seed=1, annotators={k: {"jitter": 0.25} for k in "ABC"})
    >>> ev = gate_evidence(iaf.agreement(df, n_chance=200, n_boot=30, progress=False))
    >>> ev["tau"], ev["raw_iou"] < ev["tau"] + (1 - ev["tau"]) * NEAR_GATE
    (0.5, True)
    """
    if "threshold" not in result.coords or has_threshold_dim(result):
        return None
    tau = float(result["threshold"])
    if not (0.0 < tau < 1.0):
        return None
    cell = dict(label=label, annotator=annotator)
    values = {c: cell_value(result, c, **cell) for c in _TRIAD}
    cis = {
        c: (
            cell_value(result, c, var="ci_low", **cell),
            cell_value(result, c, var="ci_high", **cell),
        )
        for c in _TRIAD
    }
    lv = relative_levels(values, cis)
    d = values["detection"]
    if lv["detection"] != "low" or lv["localization"] != "low":
        return None
    raw = (
        cell_value(result, "localization", var="raw_iou", **cell)
        if "raw_iou" in result
        else float("nan")
    )
    out = {
        "tau": tau,
        "raw_iou": raw,
        "detection": d,
        "lower_tau": float("nan"),
        "lower_detection": float("nan"),
    }
    if sweep is not None and has_threshold_dim(sweep):
        lower = [float(t) for t in sweep["threshold"].values if float(t) < tau - 1e-9]
        if lower:
            d_high = cis["detection"][1]
            rises = {}
            for t in lower:
                at = sweep.sel(threshold=t)
                v = cell_value(at, "detection", **cell)
                v_low = cell_value(at, "detection", var="ci_low", **cell)
                v_high = cell_value(at, "detection", var="ci_high", **cell)
                if against_chance(v, v_low, v_high) != "above chance" or not _finite(d):
                    continue
                clearly = v_low > d_high if _finite(v_low) and _finite(d_high) else v - d > GAP
                if clearly:
                    rises[t] = v
            if rises:
                best = max(rises, key=lambda t: (rises[t], -t))
                out.update(lower_tau=best, lower_detection=rises[best])
                return out
            return None  # lower thresholds do not bring detection back: not the gate
    # one threshold: the annotators find the same objects (detection above chance) and
    # their matched pairs crowd at the gate
    if against_chance(d, *cis["detection"]) != "above chance":
        return None
    if _finite(raw) and raw < tau + NEAR_GATE * (1.0 - tau):
        return out
    return None


def gate_text(ev, *, short: bool = False) -> str:
    """The reading of :func:`gate_evidence` (``short``: one sentence for a class, without
    numbers).

    Examples
    --------
    >>> gate_text({"tau": 0.5, "raw_iou": 0.59, "detection": 0.3,
    ...            "lower_tau": float("nan"), "lower_detection": float("nan")})[:72]
    'detection and localization fall together because of the match threshold:'
    """
    if short:
        return (
            "detection and localization fall together because of the match threshold τ "
            "(loose drawing rather than disagreement on what to annotate; see the "
            "threshold curve)."
        )
    tau = ev["tau"]
    if _finite(ev["lower_tau"]):
        evidence = (
            f"detection rises from {fmt(ev['detection'])} at τ = {tau:g} to "
            f"{fmt(ev['lower_detection'])} at τ = {ev['lower_tau']:g}"
        )
        advice = (
            "the annotators find the same objects but draw them loosely. Read the "
            "threshold curve (res.iaa.plot.threshold_curve()) and the figures at a lower "
            "τ; the drawing guidelines are what needs tightening, not the task"
        )
    else:
        evidence = (
            f"the raw IoU of the matched pairs ({fmt(ev['raw_iou'])}) sits just above "
            f"the gate τ = {tau:g}"
        )
        advice = (
            "many drawings of the same object probably miss the gate and count as two "
            "misses: loose drawing rather than disagreement on what to annotate. Look at "
            + _CURVE
            + " or at the figures at a lower τ before rethinking the task"
        )
    return (
        "detection and localization fall together because of the match threshold: "
        f"{evidence}; {advice}."
    )
