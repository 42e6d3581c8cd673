"""The borrowed chance baseline of per-class localization, for a class whose own chance
population is too small.

The rule
--------
A class's localization cell uses its **own** chance units (matched pairs of two of its
objects on unrelated items) wherever it has at least :data:`MIN_OWN_CHANCE_UNITS` of
them, however few items they come from: a class can have its own position and size prior
(a logo always top-left, a sky always on top), and only its own units know it. Their
interval says how few items they rest on.

A class with fewer own units (and at least two within pairs) **borrows** matched chance
pairs of other classes from the uniform stratum, matched to its within pairs on what
makes two unrelated objects overlap by coincidence: where the pair is (centre x, centre
y of the two objects' mean) and what the two objects are like (mean log size, log
aspect, fill), standardized. Each within pair takes its :data:`POOL_NEIGHBOURS` nearest
borrowed pairs (with every pair tied with the last, sharing the within pair's unit
weight); a borrowed pair weighs the share of the class's within pairs that took it. The
relative position of the two objects, what agreement is about, is not matched on. The
assumption is written in the cell's ``note``: the class is drawn like other objects of
its size and shape at its position. A borrowed baseline cannot catch a class-specific
lazy annotator (one who puts the class on the same spot in every image), because the
other classes' objects at that spot are not lazy.

A within pair whose position (standardized) is farther from every borrowed pair's than
:data:`POOL_CALIPER` spacings, ``1 / sqrt(n)`` for ``n`` distinct borrowed positions, is
outside their support and has nothing comparable (size and shape are matched on but not
required to be close: under the match threshold, an IoU-based distance of two unrelated
objects depends little on their absolute size); a class where fewer than half of its
within pairs (or fewer than 2) have comparable pairs, or whose weighted units are too few (effective sample size
``(sum w)^2 / sum w^2`` below :data:`MIN_POOLED_ESS`), borrows nothing, and its cell is
NaN with a note. So is a class whose few own chance units (at least
:data:`OWN_CHECK_UNITS`) are closer than the borrowed baseline allows (their mean below
the borrowed mean by more than :data:`OWN_CHECK_Z` standard errors): the class is drawn
in a place or a way of its own, the assumption fails, and its own units are all the
evidence there is.

"""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.matching.corpus import Corpus

from . import MIN_CHANCE_UNITS, ChanceSample

__all__ = [
    "MIN_OWN_CHANCE_UNITS",
    "MIN_POOLED_ESS",
    "OWN_CHECK_UNITS",
    "OWN_CHECK_Z",
    "POOL_CALIPER",
    "POOL_NEIGHBOURS",
    "min_chance_units",
    "needs_pooling",
    "object_features",
    "pooled_baseline",
]

#: Fewest own chance units with which a class's localization cell uses its own baseline.
MIN_OWN_CHANCE_UNITS = 10
#: Fewest effective borrowed units (``(sum w)^2 / sum w^2``) a borrowed baseline needs.
MIN_POOLED_ESS = MIN_CHANCE_UNITS
#: Fewest distinct pairs of items among a borrowing class's own chance units for them to
#: be checked against the borrowed baseline.
OWN_CHECK_UNITS = 2
#: One-sided z above which the own units are too close for the borrowed baseline.
OWN_CHECK_Z = 2.0
#: Nearest borrowed chance pairs each within pair of a borrowing class takes.
POOL_NEIGHBOURS = 50
#: Largest distance of a within pair's position from the nearest borrowed pair's, in
#: spacings ``1 / sqrt(n)`` of ``n`` distinct borrowed positions on the standardized plane.
POOL_CALIPER = 20.0


def object_features(corpus: Corpus, objects) -> np.ndarray:
    """Features of objects: centre x, centre y, log size, log aspect ratio, fill of the
    box (in the corpus's coordinates: normalized where image sizes are known)."""
    box = corpus.shapes.boxes[objects]
    w, h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    area = corpus.area[objects]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.column_stack(
            [
                (box[:, 0] + box[:, 2]) / 2,
                (box[:, 1] + box[:, 3]) / 2,
                0.5 * np.log(np.maximum(area, 1e-12)),
                np.log(np.maximum(w, 1e-12) / np.maximum(h, 1e-12)),
                np.clip(area / np.maximum(w * h, 1e-24), 0, 1),
            ]
        )


def min_chance_units(source) -> np.ndarray:
    """Fewest chance units a class's localization cell needs, by its chance source:
    :data:`MIN_OWN_CHANCE_UNITS` on its own units ("enumerated", "sampled"),
    :data:`MIN_CHANCE_UNITS` otherwise.

    Examples
    --------
    >>> min_chance_units(["sampled", "pooled"]).tolist()
    [10, 30]
    """
    own = np.isin(np.asarray(source, dtype=object), ("enumerated", "sampled"))
    return np.where(own, MIN_OWN_CHANCE_UNITS, MIN_CHANCE_UNITS)


def needs_pooling(within_n, own_n) -> np.ndarray:
    """Classes whose localization cell borrows: at least two within pairs, fewer than
    :data:`MIN_OWN_CHANCE_UNITS` own chance units."""
    return (np.asarray(within_n) >= 2) & (np.asarray(own_n) < MIN_OWN_CHANCE_UNITS)


def _own_units_disagree(loc_between, own, pool_rows, label, row, weight, total, L):
    """Per class: its few own chance units are closer than the borrowed baseline allows
    (a one-sided z-test at :data:`OWN_CHECK_Z`, on at least :data:`OWN_CHECK_UNITS`
    distinct pairs of items): the class has a position or a drawing of its own (an annotator lazy on
    this class), which a borrowed baseline would read as agreement."""
    d = loc_between["distance"].to_numpy()
    la = loc_between["label_a"].to_numpy()
    own_sum = np.bincount(la[own], weights=d[own], minlength=L)
    own_rows = np.bincount(la[own], minlength=L)
    # units that share a pair of items are not independent: count the pairs of items
    ia, ib = (loc_between[c].to_numpy()[own].astype(np.int64) for c in ("item_a", "item_b"))
    n_items = int(max(ia.max(initial=0), ib.max(initial=0))) + 1
    pair = sorted_unique((la[own] * n_items + np.minimum(ia, ib)) * n_items + np.maximum(ia, ib))
    own_n = np.bincount(pair // (n_items * n_items), minlength=L)
    pd_ = d[pool_rows[row]]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(label, weights=weight * pd_, minlength=L) / total
        var = np.bincount(label, weights=weight * pd_**2, minlength=L) / total - mean**2
        own_mean = own_sum / own_rows
        z = (mean - own_mean) / np.sqrt(np.maximum(var, 0) / own_n)
    return (own_n >= OWN_CHECK_UNITS) & (z > OWN_CHECK_Z)


def pooled_baseline(corpus: Corpus, loc_within, loc_between, sample: ChanceSample):
    """Chance units of classes whose own localization population is too small.

    Parameters
    ----------
    corpus : Corpus
    loc_within : pandas.DataFrame
        The within-item matched pairs (``label_a``, ``label_b``): their classes' counts.
    loc_between : pandas.DataFrame
        The chance matched pairs, with their strata flags.
    sample : ChanceSample
        Gives each class's own source ("enumerated", "sampled").

    Returns
    -------
    pooled : DataFrame (label, row, weight)
        The uniform chance rows each borrowing class uses and their weights (summing to
        1 per class).
    source : ndarray of str, per class
        "enumerated" or "sampled" (its own units), "pooled" (borrowed), "none" (too few
        own units and nothing comparable to borrow) or "" (no within pairs).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(simulate(n_items=30, seed=0), n_chance=300)
    >>> sorted(set(t.label_source.tolist()) - {"enumerated", "sampled", "pooled", "none", ""})
    []
    """
    L = len(corpus.labels)
    source = sample.label_source.copy()
    wa, wb = loc_within["label_a"].to_numpy(), loc_within["label_b"].to_numpy()
    within_n = np.bincount(wa[wa == wb], minlength=L)
    ba, bb = loc_between["label_a"].to_numpy(), loc_between["label_b"].to_numpy()
    own = (ba == bb) & (loc_between["in_uniform"].to_numpy() | loc_between["in_label"].to_numpy())
    own_n = np.bincount(ba[own], minlength=L)
    source = np.where((own_n > 0) & (source == ""), "sampled", source)
    need = needs_pooling(within_n, own_n)
    empty = pd.DataFrame(
        {"label": np.zeros(0, np.int64), "row": np.zeros(0, np.int64), "weight": np.zeros(0)}
    )
    pool_rows = np.flatnonzero(loc_between["in_uniform"].to_numpy())
    if not need.any():
        return empty, source
    source[need] = "none"
    if not len(pool_rows):
        return empty, source
    from scipy.spatial import cKDTree

    def features(frame, rows):
        return (
            object_features(corpus, frame["object_a"].to_numpy()[rows])
            + object_features(corpus, frame["object_b"].to_numpy()[rows])
        ) / 2

    pool_x = features(loc_between, pool_rows)
    scale = pool_x.std(axis=0)
    scale[~(scale > 0)] = 1.0
    queries = np.flatnonzero((wa == wb) & need[wa])
    q_label = wa[queries]
    k = min(POOL_NEIGHBOURS, len(pool_rows))
    tree, x = cKDTree(pool_x / scale), features(loc_within, queries) / scale
    reach, _ = tree.query(x, k=k)
    reach = np.asarray(reach).reshape(len(queries), k)
    # support, on position (what a class prior of its own is about): a within pair farther
    # from every borrowed pair's position than POOL_CALIPER spacings has nothing comparable
    where = np.unique(pool_x[:, :2] / scale[:2], axis=0)
    # the typical distance between neighbours of that many positions spread over the
    # standardized plane (near-copies, as identical annotators draw, would make the
    # measured distance to the nearest one no scale at all)
    spacing = 1.0 / np.sqrt(len(where))
    near = cKDTree(where).query(x[:, :2], k=1)[0] <= POOL_CALIPER * spacing
    comparable = np.bincount(q_label[near], minlength=L)
    ok = need & (comparable >= np.maximum(2, within_n / 2))
    use = near & ok[q_label]
    queries, q_label, x, reach = queries[use], q_label[use], x[use], reach[use, -1]
    # every pooled pair as near as the k-th nearest: ties are all taken (shared weight),
    # so the weights never depend on the order of the rows
    found = tree.query_ball_point(x, r=reach * (1 + 1e-9) + 1e-12)
    size = np.array([len(f) for f in found], dtype=np.int64)
    nearest = (
        np.concatenate([np.asarray(f, dtype=np.int64) for f in found])
        if len(found)
        else np.zeros(0, np.int64)
    )
    query = np.repeat(np.arange(len(queries)), size)
    share = 1.0 / size[query]
    lab = q_label[query]
    key, inverse = np.unique(lab * len(pool_rows) + nearest, return_inverse=True)
    weight = np.bincount(inverse, weights=share)
    label, row = key // len(pool_rows), key % len(pool_rows)
    total = np.bincount(label, weights=weight, minlength=L)
    squares = np.bincount(label, weights=weight**2, minlength=L)
    with np.errstate(invalid="ignore", divide="ignore"):
        ess = np.where(squares > 0, total**2 / squares, 0.0)
    ok &= ess >= MIN_POOLED_ESS
    ok &= ~_own_units_disagree(loc_between, own, pool_rows, label, row, weight, total, L)
    keep = ok[label]
    source[ok] = "pooled"
    if not keep.any():
        return empty, source
    label, row, weight = label[keep], row[keep], weight[keep]
    order = np.lexsort((row, label))
    return (
        pd.DataFrame(
            {
                "label": label[order],
                "row": pool_rows[row[order]],
                "weight": (weight / total[label])[order],
            }
        ),
        source,
    )
