"""The pooled chance baseline of per-class localization: a class with too few chance
units of its own borrows the uniform chance pairs nearest to its within pairs in shape
(log size, log aspect, fill), weighted so that each within pair takes its
``POOL_NEIGHBOURS`` nearest, ties sharing the weight."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .chance import MIN_CHANCE_UNITS, POOL_NEIGHBOURS, ChanceSample
from .corpus import Corpus

__all__ = ["object_features", "pooled_baseline"]


def object_features(corpus: Corpus, objects) -> np.ndarray:
    """Shape features of objects: log size, log aspect ratio, fill of the box."""
    box = corpus.shapes.boxes[objects]
    w, h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
    area = corpus.area[objects]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.column_stack(
            [
                0.5 * np.log(np.maximum(area, 1e-12)),
                np.log(np.maximum(w, 1e-12) / np.maximum(h, 1e-12)),
                np.clip(area / np.maximum(w * h, 1e-24), 0, 1),
            ]
        )


def pooled_baseline(corpus: Corpus, loc_within, loc_between, sample: ChanceSample):
    """Chance units of classes whose own localization population is too small.

    A class with at least two within pairs but fewer than ``MIN_CHANCE_UNITS`` chance
    pairs of its own borrows the uniform stratum's chance pairs (any classes), weighted
    by shape: each of the class's within pairs takes its ``POOL_NEIGHBOURS`` nearest
    uniform chance pairs in (log size, log aspect ratio, fill) of the pair's two objects,
    standardized (with every pair tied with the last one, sharing the within pair's unit
    weight), and a chance pair's weight is the share of the class's within pairs that
    took it. Under the match threshold, the overlap two unrelated shapes reach by
    coincidence depends on their relative shapes and sizes, not on their class.

    Returns
    -------
    pooled : DataFrame (label, row, weight)
    source : ndarray of str, per class: "enumerated", "sampled", "pooled" or ""
    """
    L = len(corpus.labels)
    source = sample.label_source.copy()
    wa, wb = loc_within["label_a"].to_numpy(), loc_within["label_b"].to_numpy()
    within_n = np.bincount(wa[wa == wb], minlength=L)
    ba, bb = loc_between["label_a"].to_numpy(), loc_between["label_b"].to_numpy()
    own = (ba == bb) & (loc_between["in_uniform"].to_numpy() | loc_between["in_label"].to_numpy())
    own_n = np.bincount(ba[own], minlength=L)
    source = np.where((own_n > 0) & (source == ""), "sampled", source)
    need = (within_n >= 2) & (own_n < MIN_CHANCE_UNITS)
    empty = pd.DataFrame(
        {"label": np.zeros(0, np.int64), "row": np.zeros(0, np.int64), "weight": np.zeros(0)}
    )
    pool_rows = np.flatnonzero(loc_between["in_uniform"].to_numpy())
    if not need.any() or not len(pool_rows):
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
    reach = np.asarray(reach).reshape(len(queries), k)[:, -1]
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
    total = np.bincount(inverse, weights=share)
    label, row = key // len(pool_rows), pool_rows[key % len(pool_rows)]
    weight = total / within_n[label].astype(np.float64)
    source[need] = "pooled"
    return pd.DataFrame({"label": label, "row": row, "weight": weight}), source
