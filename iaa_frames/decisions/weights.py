"""The weight of each annotator in a consensus: its estimated quality, equal weights, or
weights given by the user."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.measures.ranking import annotator_quality_from_tables

__all__ = ["WEIGHTS", "annotator_weights"]

#: The named weightings of :func:`annotator_weights`.
WEIGHTS = ("quality", "equal")


def annotator_weights(tables: PairTables, weights) -> np.ndarray:
    """One weight per annotator code of ``tables.corpus.annotators``.

    Parameters
    ----------
    tables : PairTables
    weights : {"quality", "equal"} or dict {annotator: float}
        ``"quality"``: the annotator's ``quality`` of
        :func:`iaa_frames.measures.ranking.annotator_quality_from_tables` (its estimated
        panoptic quality against a perfect annotator, in [0, 1], shrunk towards the crowd
        where its evidence is thin; an annotator without any pairing takes the crowd
        mean). ``"equal"``: 1 for everyone (an unweighted vote). A dict gives every
        annotator's weight (finite, >= 0; at least one > 0).

    Returns
    -------
    numpy.ndarray of float64

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=20)
    >>> w = annotator_weights(t, {"A": 1, "B": 0.5, "C": 0})
    >>> sorted(zip(t.corpus.annotators.tolist(), w.tolist()))
    [('A', 1.0), ('B', 0.5), ('C', 0.0)]
    """
    names = [str(a) for a in tables.corpus.annotators]
    if isinstance(weights, str):
        if weights == "equal":
            return np.ones(len(names))
        if weights == "quality":
            q = annotator_quality_from_tables(tables, n_boot=0)
            by_name = dict(zip(q["annotator"].astype(str), q["quality"].to_numpy(float)))
            w = np.array([by_name.get(n, np.nan) for n in names], dtype=float)
            fill = q.attrs.get("crowd_mean", np.nan)
            if not np.isfinite(fill):
                fill = np.nanmean(w) if np.isfinite(w).any() else 1.0
            return np.where(np.isfinite(w), w, fill)
        raise ParameterError(
            f"weights must be one of {WEIGHTS} or a dict {{annotator: weight}}; got {weights!r}"
        )
    if not isinstance(weights, Mapping):
        raise ParameterError(
            f"weights must be one of {WEIGHTS} or a dict {{annotator: weight}}; "
            f"got {type(weights).__name__}"
        )
    given = {str(k): v for k, v in weights.items()}
    missing = sorted(set(names) - set(given))
    if missing:
        raise ParameterError(f"weights: no weight for the annotators {missing[:10]}")
    for name in names:
        v = given[name]
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v < 0:
            raise ParameterError(f"weights[{name!r}] must be a finite number >= 0, got {v!r}")
    out = np.array([float(given[n]) for n in names])
    if len(out) and not (out > 0).any():  # every vote 0 / 0: no decision, NaN throughout
        raise ParameterError(
            "weights: every annotator's weight is 0, so no vote can be cast; give at least "
            "one annotator a weight > 0"
        )
    return out
