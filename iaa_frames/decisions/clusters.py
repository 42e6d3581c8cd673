"""The clusters a consensus is drawn from: objects that the matching put together.

A cluster is the ``cluster`` of :func:`iaa_frames.core.tables.pairs.pair_tables`' ``units``
(:func:`iaa_frames.core.matching.assignment.clusters`): the within-item matching pairs
objects of every two annotators of an item (one-to-one, IoU >= τ, label-agnostic); the
matched pairs are the edges of a graph over the item's objects, and a cluster is a
connected component of it. A component that would hold two objects of one annotator
(A matched B, B matched A', A and A' both A's) is split by merging its pairs strongest
first and skipping every merge that would put two objects of one annotator together. So a
cluster has at most one object per annotator, and every object is in exactly one cluster
(an object nobody matched is a cluster of one). No reference annotator is chosen: the
result does not depend on the order of the annotators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_frames.core.tables.pairs import PairTables

__all__ = ["Members", "members_of"]


@dataclass(frozen=True)
class Members:
    """The objects of the corpus (canonical order) with their clusters.

    Attributes
    ----------
    cluster : ndarray of int64
        Cluster of each object, ``0 .. n_clusters - 1``, numbered so that the clusters of
        one item are contiguous and items come in code order.
    item, annotator, label : ndarray of int64
        Codes of each object.
    cluster_item : ndarray of int64
        Item code of each cluster.
    agreement : ndarray of float64
        Per cluster, the mean IoU of its matched pairs (NaN for a cluster of one).
    n_clusters : int
    """

    cluster: np.ndarray
    item: np.ndarray
    annotator: np.ndarray
    label: np.ndarray
    cluster_item: np.ndarray
    agreement: np.ndarray
    n_clusters: int


def members_of(tables: PairTables) -> Members:
    """The clusters of ``tables`` (see the module docstring).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=3, annotators={"a": "perfect",
    ...                                                         "b": "perfect"}, seed=0),
    ...                     n_chance=20)
    >>> m = members_of(t)
    >>> bool((np.bincount(m.cluster) == 2).all()), float(np.nanmin(m.agreement))
    (True, 1.0)
    """
    u = tables.units
    item = u["item"].to_numpy(np.int64)
    raw = u["cluster"].to_numpy(np.int64)
    # renumber: clusters sorted by item, then by first object
    n_raw = int(raw.max()) + 1 if len(raw) else 0
    first = np.full(n_raw, len(raw), np.int64)
    np.minimum.at(first, raw, np.arange(len(raw)))
    order = np.lexsort((first, item[np.minimum(first, max(len(raw) - 1, 0))]))
    new = np.empty(n_raw, np.int64)
    new[order] = np.arange(n_raw)
    cluster = new[raw] if len(raw) else raw
    cluster_item = np.zeros(n_raw, np.int64)
    cluster_item[cluster] = item
    w = tables.localization_within
    a, b = w["object_a"].to_numpy(np.int64), w["object_b"].to_numpy(np.int64)
    same = cluster[a] == cluster[b]
    c = cluster[a[same]]
    total = np.bincount(c, w["iou"].to_numpy(float)[same], n_raw)
    count = np.bincount(c, minlength=n_raw)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(count > 0, total / count, np.nan)
    return Members(
        cluster,
        item,
        u["annotator"].to_numpy(np.int64),
        u["label"].to_numpy(np.int64),
        cluster_item,
        agreement,
        n_raw,
    )
