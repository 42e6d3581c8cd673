"""The evidence behind the report's reading: the intervals a conclusion rests on.

:func:`gap_evidence` says what the weak point of the diagnosis rests on (each weak
component against the best one, with both intervals, and whether they overlap);
:func:`annotator_sentences` names the annotators below everybody with their intervals and
the criterion (:func:`below_everybody`). Used by :func:`iaa_frames.report.diagnosis.reading`.
"""

from __future__ import annotations

import math

from iaa_frames.explore.views import cell_value
from iaa_frames.frame.schema import ALL

from .formatting import fmt, isolate, listing

__all__ = [
    "ANNOTATOR_GAP",
    "TRIAD",
    "annotator_sentences",
    "below_everybody",
    "gap_evidence",
    "with_interval",
]

#: The components the diagnosis reads together.
TRIAD = ("detection", "classification", "localization")
ANNOTATOR_GAP = {  # verb phrases in the base form ("they find", "this annotator finds")
    "detection": "find different objects than the others (miss objects or add extra ones)",
    "classification": "label the objects everybody found differently (class confusion)",
    "localization": "draw the objects everybody found less precisely (loose or shifted shapes)",
    "overall": "differ from the others on the annotation as a whole",
}


def with_interval(result, component, **cell) -> str:
    """'0.55 [0.45, 0.61]', or '0.55' without an interval."""
    v = cell_value(result, component, **cell)
    lo = cell_value(result, component, var="ci_low", **cell)
    hi = cell_value(result, component, var="ci_high", **cell)
    return f"{fmt(v)} [{fmt(lo)}, {fmt(hi)}]" if math.isfinite(lo) and math.isfinite(hi) else fmt(v)


def gap_evidence(result, lv: dict, cis: dict, *, gap: float) -> list[str]:
    """What the weak point of the diagnosis rests on: each weak component against the best
    one, with both intervals, and whether the intervals overlap (a gap inside overlapping
    intervals may be sampling noise)."""
    weak = [c for c in TRIAD if lv.get(c) == "low"]
    strong = [c for c in TRIAD if lv.get(c) == "high"]
    if not weak or not strong:
        return []
    best = max(strong, key=lambda c: cell_value(result, c))
    parts, separated = [], []
    for c in weak:
        parts.append(f"{c} {with_interval(result, c)}")
        lo_best, hi_weak = cis[best][0], cis[c][1]
        if math.isfinite(lo_best) and math.isfinite(hi_weak):
            separated.append(hi_weak < lo_best)
    text = f"It rests on {' and '.join(parts)} against {best} {with_interval(result, best)}"
    if not separated:
        text += f": no intervals (n_boot=0 or too few items), a gap of more than {gap:g} between the estimates."
    elif all(separated):
        text += ": the intervals do not overlap."
    else:
        text += ": the intervals overlap, so the gap may be sampling noise."
    return [text]


def below_everybody(result, component, annotator, pooled):
    """An annotator's cell is below the pooled one beyond its noise: its CI lies below the
    pooled value (with CIs), or it is more than 0.1 lower (without)."""
    v = cell_value(result, component, annotator=annotator)
    if not math.isfinite(v) or v >= pooled:
        return False
    high = cell_value(result, component, annotator=annotator, var="ci_high")
    if math.isfinite(high):
        return high < pooled
    return v < pooled - 0.1


def annotator_sentences(result, limit):
    names = [str(v) for v in result["annotator"].values if str(v) != ALL]
    out = []
    if len(names) < 3:  # with two annotators, an annotator's cell is the pooled one
        return out
    for c in TRIAD:
        pooled = cell_value(result, c)
        if not math.isfinite(pooled):
            continue
        worse = sorted(
            (cell_value(result, c, annotator=a), a)
            for a in names
            if below_everybody(result, c, a, pooled)
        )
        if worse:
            who = listing(
                [f"{isolate(a)} ({with_interval(result, c, annotator=a)})" for _, a in worse], limit
            )
            has_ci = [
                math.isfinite(cell_value(result, c, annotator=a, var="ci_high")) for _, a in worse
            ]
            whose = "the annotator's interval" if len(worse) == 1 else "each one's interval"
            if all(has_ci):
                evidence = f"above the upper end of {whose}"
            elif not any(has_ci):
                evidence = "more than 0.1 higher; no intervals"
            else:
                evidence = (
                    f"above the upper end of {whose}, or more than 0.1 higher where there is none"
                )
            phrase = ANNOTATOR_GAP[c]
            if len(worse) == 1:
                verb, rest = phrase.split(" ", 1)
                subject, phrase = "this annotator", f"{verb}s {rest}"
            else:
                subject = "they"
            out.append(
                f"On {c}, {who} {'is' if len(worse) == 1 else 'are'} below everybody "
                f"({fmt(pooled)}, {evidence}): {subject} {phrase}."
            )
    return out
