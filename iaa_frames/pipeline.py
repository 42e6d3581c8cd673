"""The one matching pipeline, applied to within-item and between-item pairings alike.

:func:`run` takes *pairings* — two annotations each, given as slots of a
:class:`~iaa_frames.corpus.Slices` — and returns the matched object pairs (for
localization) and one row per pairing with the detection and set-level distances. The
chance baseline rule of DESIGN §5 holds by construction: between-item pairings go through
exactly this code, with the same threshold, as within-item pairings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .corpus import Corpus, Slices
from .distances import Distance
from .distances import iou as pair_iou
from .matching import _starts, assign, candidate_pairs

__all__ = ["Matched", "run"]

#: Candidate object pairs handled per chunk (bounds memory; one progress step each).
CHUNK_PAIRS = 2_000_000
_TIEBREAK = 1e-6


@dataclass(frozen=True, eq=False)
class Matched:
    """Output of :func:`run`.

    ``pair_*`` arrays have one entry per matched object pair; ``set_*`` arrays one entry
    per input pairing, in input order.
    """

    pair_pairing: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_iou: np.ndarray
    pair_distance: np.ndarray
    set_n_a: np.ndarray
    set_n_b: np.ndarray
    set_matched: np.ndarray
    set_detection: np.ndarray
    set_overall: np.ndarray


def _overall_similarity(distance: Distance, sa, sb, iou):
    """Best-match score of each candidate pair and whether higher is better."""
    if distance.similarity is None:
        return distance(sa, sb), False
    sim = np.zeros(len(iou))
    if distance.name in ("iou", "giou"):
        # both similarities are 0 where IoU is 0 (GIoU <= IoU, floored at 0): skip those
        rows = np.flatnonzero(iou > 0)
        sim[rows] = distance.similarity(sa.take(rows), sb.take(rows))
    else:
        sim = np.asarray(distance.similarity(sa, sb), dtype=float)
    return sim, True


def _best(values, group, n_groups, higher):
    out = np.full(n_groups, -np.inf if higher else np.inf)
    (np.maximum if higher else np.minimum).at(out, group, values)
    return out


def _set_distance(best_a, best_b, owner_a, owner_b, n_a, n_b, higher, overall):
    """Braylan et al.'s set distance from the best-match scores of both sides."""
    P = len(n_a)
    sum_a = np.bincount(owner_a, weights=best_a, minlength=P)
    sum_b = np.bincount(owner_b, weights=best_b, minlength=P)
    with np.errstate(invalid="ignore", divide="ignore"):
        if overall == "pooled":
            score = (sum_a + sum_b) / (n_a + n_b)
        else:
            score = (sum_a / n_a + sum_b / n_b) / 2
    dist = 1 - score if higher else score
    one_empty = (n_a == 0) != (n_b == 0)
    dist = np.where(one_empty, 1.0, dist)
    return np.where((n_a == 0) & (n_b == 0), 0.0, dist)


def _run_chunk(corpus, slots, a, b, tau, distance, overall):
    n_a, n_b = slots.count[a], slots.count[b]
    P = len(a)
    pairing, la, lb, oa, ob = candidate_pairs(slots.start[a], n_a, slots.start[b], n_b)
    sa, sb = corpus.shapes.take(oa), corpus.shapes.take(ob)
    iou = np.nan_to_num(pair_iou(sa, sb))
    # tie-break among equal IoU (e.g. disjoint shapes at tau = 0): prefer the nearer box
    ca, cb = sa.boxes.reshape(-1, 2, 2).mean(axis=1), sb.boxes.reshape(-1, 2, 2).mean(axis=1)
    near = _TIEBREAK / (1 + np.hypot(*(ca - cb).T))
    chosen = assign(pairing, la, lb, n_a, n_b, iou + near, iou >= tau)
    rows = np.flatnonzero(chosen)
    matched = np.bincount(pairing[rows], minlength=P)
    dist = distance(sa.take(rows), sb.take(rows))

    sim, higher = _overall_similarity(distance, sa, sb, iou)
    # best match of every object of either side (one group per object)
    best_a = _best(sim, _starts(n_a)[pairing] + la, int(n_a.sum()), higher)
    best_b = _best(sim, _starts(n_b)[pairing] + lb, int(n_b.sum()), higher)
    owner_a = np.repeat(np.arange(P), n_a)
    owner_b = np.repeat(np.arange(P), n_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        detection = np.where(n_a + n_b == 0, 0.0, 1 - 2 * matched / (n_a + n_b))
    return dict(
        pair_pairing=pairing[rows], pair_a=oa[rows], pair_b=ob[rows],
        pair_iou=iou[rows], pair_distance=dist,
        set_n_a=n_a, set_n_b=n_b, set_matched=matched, set_detection=detection,
        set_overall=_set_distance(best_a, best_b, owner_a, owner_b, n_a, n_b, higher, overall),
    )


def run(corpus: Corpus, slots: Slices, a: np.ndarray, b: np.ndarray, *, tau: float,
        distance: Distance, overall: str = "pooled", progress=None) -> Matched:
    """Match the two annotations of every pairing and measure them.

    Parameters
    ----------
    corpus : Corpus
    slots : Slices
        ``corpus.annotations`` (whole annotations) or ``corpus.by_label`` (annotations
        restricted to one class).
    a, b : ndarray of int
        The two slots of each pairing.
    tau : float
        Match threshold: an assigned pair is kept when IoU >= tau.
    distance : Distance
        Distance of matched pairs, and the similarity of the set-level distance.
    overall : {"pooled", "per_direction"}
    progress : callable, optional
        Called with the number of candidate pairs done after each chunk.

    Returns
    -------
    Matched
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    cost = np.cumsum(slots.count[a] * slots.count[b])
    bounds = np.searchsorted(cost, np.arange(CHUNK_PAIRS, cost[-1] if len(cost) else 0,
                                             CHUNK_PAIRS), side="right")
    parts = []
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(a)]):
        if hi <= lo:
            continue
        part = _run_chunk(corpus, slots, a[lo:hi], b[lo:hi], tau, distance, overall)
        part["pair_pairing"] = part["pair_pairing"] + lo
        parts.append(part)
        if progress is not None:
            progress(int(cost[hi - 1] - (cost[lo - 1] if lo else 0)))
    if not parts:
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0)
        return Matched(empty_i, empty_i, empty_i, empty_f, empty_f,
                       empty_i, empty_i, empty_i, empty_f, empty_f)
    return Matched(**{k: np.concatenate([p[k] for p in parts]) for k in parts[0]})
