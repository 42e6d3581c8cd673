"""What an item that disagrees brings: the credit of the rule of rare disagreements.

A cell whose within units hold a disagreement in fewer than
:data:`~iaa_frames.stats.intervals.MIN_EVENT_ITEMS` items has an interval no narrower than
the exact binomial interval of those items
(:func:`iaa_frames.stats.intervals.widen_rare_disagreements`): ``k`` items with no
disagreement cannot show that none would disagree. How much an item that did would
disagree is, for detection, localization and overall, what the corpus's own items that
disagree do per unit (:func:`unit_credits`), not what a pair of unrelated items does (a
chance pairing's detection distance is near 1, a missed object of five costs 0.1 to 0.2).
It is a property of the corpus and its tables, so every view of them (``agreement``,
``pairwise`` of any subset of annotators, the time windows) credits alike.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.core.tables.pairs import PairTables

__all__ = ["unit_credits", "unit_credits_of_cells"]

#: The components credited (distances; classification's rule credits its own).
DISTANCE_COMPONENTS = ("detection", "overall", "localization")


def unit_credits(tables: PairTables) -> dict:
    """Per distance component, the mean within distance of a unit in the items that hold
    a disagreement (a unit of distance above 0); NaN where no item does.

    Parameters
    ----------
    tables : PairTables

    Returns
    -------
    dict
        ``{"detection": float, "overall": float, "localization": float}``: over the
        pairings of whole annotations of every item for detection and overall, over the
        matched object pairs for localization.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> c = unit_credits(pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100))
    >>> sorted(c), all(0 < v <= 1 for v in c.values())
    (['detection', 'localization', 'overall'], True)
    """
    sets, loc = tables.sets_within, tables.localization_within
    whole = sets[sets["label"].to_numpy() < 0]  # the pairings of whole annotations
    return {
        "detection": _credit(whole["item"], whole["detection"]),
        "overall": _credit(whole["item"], whole["overall"]),
        "localization": _credit(loc["item"], loc["distance"]),
    }


def unit_credits_of_cells(parts: dict) -> dict:
    """:func:`unit_credits` from the components' cells (their ``"(all)"`` cell, column 0
    of the layout: every pairing of whole annotations, every matched pair): what
    :func:`iaa_frames.core.engine.agreement_from_cells` reads, for cells summed
    elsewhere (:mod:`iaa_frames.dask`) as for the tables' own.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine import CellLayout, component_cells
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators))
    >>> parts = {c: component_cells(t, layout, c) for c in DISTANCE_COMPONENTS}
    >>> a, b = unit_credits_of_cells(parts), unit_credits(t)
    >>> all(abs(a[c] - b[c]) < 1e-12 for c in DISTANCE_COMPONENTS)
    True
    """
    out = {}
    for name in DISTANCE_COMPONENTS:
        part = parts.get(name)
        within = getattr(part, "within", None)
        if within is None:
            out[name] = float("nan")
            continue
        m = sp.csc_matrix(within.matrix)
        count = m[:, 0].toarray().ravel()
        distance = m[:, part.n_cells].toarray().ravel()
        event = distance > 1e-9
        units = float(count[event].sum())
        out[name] = float(distance[event].sum()) / units if units > 0 else float("nan")
    return out


def _credit(item, distance) -> float:
    """Mean ``distance`` of the rows of the items with a row above 0."""
    item = np.asarray(item)
    d = np.asarray(distance, dtype=np.float64)
    keep = np.isfinite(d)
    item, d = item[keep], d[keep]
    event = np.isin(item, np.unique(item[d > 1e-9]))
    return float(d[event].mean()) if event.any() else float("nan")
