"""Values of object pairs computed once per corpus: exact IoU, distances, similarities.

The matching meets the same pair of polygons several times: the whole annotations and
the same annotations split by class, chance runs over overlapping pairings, runs at
several thresholds. An :class:`IoUCache` keeps what one run computed for pairs involving
a polygon (boxes are cheaper to recompute than to look up), keyed by object pair.
"""

from __future__ import annotations

import numpy as np

__all__ = ["IoUCache", "cached_values"]


class _KeyedValues:
    """Float values keyed by int64, sorted for lookup."""

    def __init__(self):
        self.keys = np.zeros(0, np.int64)
        self.values = np.zeros(0)

    def lookup(self, keys):
        pos = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        found = (self.keys[pos] == keys) if len(self.keys) else np.zeros(len(keys), bool)
        return found, self.values[pos[found]]

    def add(self, keys, values):
        if not len(keys):
            return
        keys = np.concatenate([self.keys, keys])
        order = np.argsort(keys, kind="stable")
        self.keys, self.values = keys[order], np.concatenate([self.values, values])[order]


class IoUCache:
    """Exact IoU, distance and similarity of the object pairs involving a polygon that
    were already computed, by kind and object pair. One cache serves one corpus and one
    distance (a pair's IoU and distance do not depend on the threshold)."""

    def __init__(self):
        self._stores: dict[str, _KeyedValues] = {}

    def store(self, kind: str) -> _KeyedValues:
        """The values of one kind (``"iou"``, ``"distance"``, ``"similarity"``)."""
        return self._stores.setdefault(kind, _KeyedValues())


def cached_values(corpus, cache, kind: str, oa, ob, rows, compute) -> np.ndarray:
    """``compute(rows)`` for the object pairs ``rows`` (objects ``oa[rows]``,
    ``ob[rows]`` of ``corpus``), taking the values of pairs that involve a polygon from
    ``cache`` when known there, and adding the new ones. Pairs of two boxes, cheap to
    compute, are never cached. ``cache=None`` computes everything.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> corpus = prepare(iaf.simulate(n_items=2, kind="polygon", seed=0))
    >>> oa, ob, cache = np.array([0, 1]), np.array([1, 0]), IoUCache()
    >>> calls = []
    >>> def compute(rows):
    ...     calls.append(len(rows))
    ...     return rows * 1.0
    >>> _ = cached_values(corpus, cache, "iou", oa, ob, np.arange(2), compute)
    >>> _ = cached_values(corpus, cache, "iou", oa, ob, np.arange(2), compute)
    >>> calls  # the second call found both pairs in the cache
    [2]
    """
    if cache is None or not len(rows) or corpus.boxes_only:  # boxes: nothing to cache
        return compute(rows)
    store = cache.store(kind)
    keys = oa[rows] * len(corpus.area) + ob[rows]
    found, known = store.lookup(keys)
    out = np.empty(len(rows))
    out[found] = known
    todo = np.flatnonzero(~found)
    if todo.size:
        out[todo] = compute(rows[todo])
        shape = ~corpus.shapes.is_box
        new = todo[shape[oa[rows[todo]]] | shape[ob[rows[todo]]]]
        store.add(keys[new], out[new])
    return out
