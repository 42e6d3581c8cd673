"""The levels a number is read at: alpha against Krippendorff's thresholds (:func:`level`),
sigma against chance with its interval (:func:`against_chance`) and the components against
each other (:func:`relative_levels`). The reading (:mod:`iaa_frames.report.diagnosis`) and
the threshold gate (:mod:`iaa_frames.report.gate`) both read them.
"""

from __future__ import annotations

import math

__all__ = ["GAP", "HIGH", "LOW", "against_chance", "level", "relative_levels"]

#: Alpha at or above this reads "high": Krippendorff's (2004, *Content Analysis*, §11.4)
#: conventional threshold for relying on data. It applies to alpha only: sigma has no
#: calibrated cut-offs, so sigma is read against chance and against the other components.
HIGH = 0.8
#: Alpha below this reads "low" (Krippendorff's lowest threshold, for tentative
#: conclusions); between LOW and HIGH reads "moderate".
LOW = 2 / 3
#: In the diagnosis, a component reads as a weak point when it is more than this below the
#: best of detection, classification and localization (or not above chance). A rule of
#: thumb for comparing the components with each other, not a quality threshold.
GAP = 0.15


def level(value) -> str:
    """'high', 'moderate', 'low', 'below chance' or 'undefined' for an **alpha** value
    (Krippendorff's thresholds :data:`HIGH` and :data:`LOW`; not meant for sigma).

    Examples
    --------
    >>> [level(v) for v in (0.9, 0.7, 0.3, -0.1, float("nan"))]
    ['high', 'moderate', 'low', 'below chance', 'undefined']
    """
    if value is None or not math.isfinite(float(value)):
        return "undefined"
    v = float(value)
    if v < 0:
        return "below chance"
    if v < LOW:
        return "low"
    if v < HIGH:
        return "moderate"
    return "high"


def against_chance(value, ci_low=float("nan"), ci_high=float("nan")) -> str:
    """'above chance', 'chance level', 'below chance' or 'undefined': a sigma read against
    chance (0), with its bootstrap interval when there is one.

    Examples
    --------
    >>> against_chance(0.4, 0.3, 0.5), against_chance(0.1, -0.1, 0.3), against_chance(-0.2)
    ('above chance', 'chance level', 'below chance')
    """
    if value is None or not math.isfinite(float(value)):
        return "undefined"
    lo, hi = float(ci_low), float(ci_high)
    if math.isfinite(lo) and math.isfinite(hi):
        return "above chance" if lo > 0 else ("below chance" if hi < 0 else "chance level")
    v = float(value)
    return "above chance" if v > 0 else ("below chance" if v < 0 else "chance level")


def relative_levels(values: dict, cis: dict | None = None) -> dict:
    """Levels of the components for the diagnosis, relative to each other: 'low' when more
    than :data:`GAP` below the best component and below :data:`HIGH`, or not above chance;
    'below chance' when below it, 'undefined' for NaN, 'high' otherwise. A component at
    :data:`HIGH` or above (80 % of the chance disagreement gone) is never called a weak
    point, however much better the others are: localization 0.84 beside detection 1.00 is
    not a sign of loose drawing guidelines.

    Examples
    --------
    >>> relative_levels({"detection": 0.9, "classification": 0.85, "localization": 0.5})
    {'detection': 'high', 'classification': 'high', 'localization': 'low'}
    >>> relative_levels({"detection": 1.0, "classification": 0.99, "localization": 0.84})
    {'detection': 'high', 'classification': 'high', 'localization': 'high'}
    """
    cis = cis or {}
    finite = [float(v) for v in values.values() if v is not None and math.isfinite(float(v))]
    best = max(finite) if finite else float("nan")
    out = {}
    for c, v in values.items():
        vs_chance = against_chance(v, *cis.get(c, (float("nan"), float("nan"))))
        if vs_chance in ("undefined", "below chance"):
            out[c] = vs_chance
        elif vs_chance == "chance level" or (float(v) < best - GAP and float(v) < HIGH):
            out[c] = "low"
        else:
            out[c] = "high"
    return out
