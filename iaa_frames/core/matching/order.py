"""The canonical order of objects: by item, annotator and class codes, then by rounded box
coordinates (:func:`canonical_order`), as :func:`iaa_frames.core.matching.corpus.prepare` lays
them out."""

from __future__ import annotations

import numpy as np

__all__ = ["canonical_order"]


def canonical_order(item, annotator, label, boxes, n_annotators: int, n_labels: int):
    """``np.lexsort((*np.round(boxes, 9).T[::-1], label, annotator, item))``: objects by
    item, annotator, class, then rounded box coordinates, ties in row order.

    The three codes are one key, sorted with the positions packed in (a sort of integers,
    no argsort); only the objects sharing a key with another are ordered by their boxes:
    by the first coordinate within the key (a stable sort of complex numbers, key + i x0,
    over runs already in order), then by every coordinate where that ties (or where
    NaN or inf make it undecided).

    Parameters
    ----------
    item, annotator, label : ndarray of int
        Codes of each object, below ``len(items)``, ``n_annotators``, ``n_labels``.
    boxes : ndarray of float, shape (n, 4)
    n_annotators, n_labels : int

    Returns
    -------
    ndarray of int
        The permutation putting the objects in canonical order.

    Examples
    --------
    >>> boxes = np.array([[0.5, 0, 1, 1], [0.2, 0, 1, 1], [0.9, 0, 1, 1]])
    >>> canonical_order(np.array([1, 0, 0]), np.zeros(3, int), np.zeros(3, int), boxes, 1, 1)
    array([1, 2, 0])
    """
    n = len(item)
    if (n_labels * n_annotators * (int(item.max(initial=0)) + 1) + 1) * max(n, 1) >= 2**62:
        return np.lexsort((*np.round(boxes, 9).T[::-1], label, annotator, item))
    key = (item.astype(np.int64) * n_annotators + annotator) * n_labels + label
    key *= n
    key += np.arange(n)
    key.sort()
    order = key % n
    key //= n
    shared = np.zeros(n, dtype=bool)
    shared[1:] = key[1:] == key[:-1]
    shared[:-1] |= shared[1:]
    pos = np.flatnonzero(shared)
    if not pos.size:
        return order
    sub = order[pos]
    box = np.round(boxes.take(sub, axis=0), 9)
    run = np.cumsum(np.r_[True, key[pos][1:] != key[pos][:-1]])  # consecutive: exact floats
    # numpy sorts a complex number with a NaN after all others: NaN as inf, tied with it
    x = np.where(np.isnan(box[:, 0]), np.inf, box[:, 0])
    z = np.empty(len(sub), dtype=np.complex128)
    z.real, z.imag = run, x
    within = np.argsort(z, kind="stable")
    x, r = x[within], run[within]
    tie = (r[1:] == r[:-1]) & (x[1:] == x[:-1])
    tied = np.zeros(len(sub), dtype=bool)
    tied[1:] = tie
    tied[:-1] |= tie
    t = np.flatnonzero(tied)
    if t.size:
        rows = within[t]
        within[t] = rows[np.lexsort((*box[rows].T[::-1], run[rows]))]
    order[pos] = sub[within]
    return order
