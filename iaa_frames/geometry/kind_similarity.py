"""Pairs of shapes scored by a kind's own similarity instead of IoU (keypoints: OKS).

A geometry kind may define its own :meth:`~iaa_frames.geometry.kinds.Kind.similarity`
(:attr:`~iaa_frames.geometry.kinds.Kind.own_similarity`). Then:

* two shapes of that kind score that similarity wherever an IoU would be used (the
  matcher's gate, :func:`~iaa_frames.geometry.overlap.iou`,
  :func:`~iaa_frames.geometry.giou.giou`, which equals it: there is no enclosing hull);
* a shape of that kind and a shape of another kind score 0 (*foreign* pairs);
* the sweeps of overlapping pairs and the chance index look at the boxes grown by the
  kind's :meth:`~iaa_frames.geometry.kinds.Kind.reach` at the threshold
  (:func:`reach_boxes`), since such shapes can reach the threshold with boxes apart.

Corpora without such kinds never enter this module's code paths (their results are
bitwise those of IoU alone).

Examples
--------
>>> from iaa_frames.geometry.shapes import Shapes
>>> s = Shapes([[0, 0, 1, 1]])
>>> reach_boxes(s, 0.5) is s.boxes
True
"""

from __future__ import annotations

import numpy as np

from .kinds.registry import get_kind

__all__ = [
    "has_own_similarity",
    "involves_own_similarity",
    "own_similarity_of",
    "own_similarity_pairs",
    "reach_boxes",
]

#: Added to every reach (normalized image units, far below a pixel) so that grown boxes
#: meeting at one edge, or degenerate boxes (one labelled point), overlap strictly.
_MARGIN = 1e-9


def _own_kinds(shapes) -> dict:
    """Rows (bool masks) of the kinds with their own similarity, by name."""
    return {n: r for n, r in shapes.kind_rows().items() if get_kind(n).own_similarity}


def has_own_similarity(shapes) -> bool:
    """Whether any row of ``shapes`` is of a kind with its own similarity.

    Examples
    --------
    >>> from iaa_frames.geometry.shapes import Shapes
    >>> has_own_similarity(Shapes([[0, 0, 1, 1]]))
    False
    """
    return bool(shapes.params) and any(r.any() for r in _own_kinds(shapes).values())


def involves_own_similarity(a, b):
    """``(n,)`` bool: the pairs with a shape of a kind with its own similarity on either
    side, or None when there is none (no cost for other corpora)."""
    kinds = (
        list(_own_kinds(a).values()) + list(_own_kinds(b).values())
        if (a.params or b.params)
        else []
    )
    if not kinds:
        return None
    return np.logical_or.reduce(kinds)


def own_similarity_pairs(a, b, rows=None):
    """The pairs ``rows`` (all by default) involving a kind with its own similarity.

    Parameters
    ----------
    a, b : Shapes
        Aligned.
    rows : ndarray of int, optional

    Returns
    -------
    own : ndarray of int
        Pairs of two shapes of one such kind (a subset of ``rows``).
    value : ndarray of float64
        Their similarity (:meth:`Kind.similarity`), aligned with ``own``.
    foreign : ndarray of int
        Pairs of a shape of such a kind and a shape of another kind (similarity 0).
    """
    rows = np.arange(len(a)) if rows is None else np.asarray(rows, dtype=np.int64)
    kinds_a, kinds_b = _own_kinds(a), _own_kinds(b)
    empty = np.zeros(0, np.int64)
    if not kinds_a and not kinds_b:
        return empty, np.zeros(0), empty
    any_a = np.zeros(len(rows), bool)
    any_b = np.zeros(len(rows), bool)
    own, value = [empty], [np.zeros(0)]
    same = np.zeros(len(rows), bool)
    for name, in_a in kinds_a.items():
        any_a |= in_a[rows]
        in_b = kinds_b.get(name)
        if in_b is None:
            continue
        sel = in_a[rows] & in_b[rows]
        if sel.any():
            r = rows[sel]
            same |= sel
            own.append(r)
            value.append(
                np.asarray(
                    get_kind(name).similarity(a.params[name][r], b.params[name][r]),
                    dtype=np.float64,
                )
            )
    for in_b in kinds_b.values():
        any_b |= in_b[rows]
    foreign = rows[(any_a | any_b) & ~same]
    return np.concatenate(own), np.concatenate(value), foreign


def own_similarity_of(shapes, oa, ob):
    """:func:`own_similarity_pairs` of the object pairs ``(shapes[oa[i]], shapes[ob[i]])``
    of one container, without taking them (the matcher's hot path: every candidate pair).

    Returns
    -------
    own : ndarray of int
        Positions in ``oa`` of pairs of two shapes of one kind with its own similarity.
    value : ndarray of float64
        Their similarity.
    foreign : ndarray of int
        Positions of pairs of such a shape and a shape of another kind (similarity 0).
    """
    kinds = _own_kinds(shapes)
    anyone = np.logical_or.reduce(list(kinds.values()))
    involved = np.flatnonzero(anyone[oa] | anyone[ob])
    own, value = [np.zeros(0, np.int64)], [np.zeros(0)]
    same = np.zeros(len(involved), bool)
    for name, rows in kinds.items():
        sel = rows[oa[involved]] & rows[ob[involved]]
        if sel.any():
            r = involved[sel]
            p = shapes.params[name]
            same |= sel
            own.append(r)
            value.append(np.asarray(get_kind(name).similarity(p[oa[r]], p[ob[r]]), np.float64))
    return np.concatenate(own), np.concatenate(value), involved[~same]


def reach_boxes(shapes, tau: float) -> np.ndarray:
    """The boxes of ``shapes``, those of kinds with their own similarity grown by the
    kind's :meth:`~iaa_frames.geometry.kinds.Kind.reach` at ``tau`` (plus a margin far
    below a pixel): two such shapes can reach ``tau`` only where these boxes overlap.

    ``shapes.boxes`` itself (the same array) when no row is of such a kind.

    Examples
    --------
    >>> from iaa_frames.geometry.shapes import Shapes
    >>> reach_boxes(Shapes([[0, 0, 1, 1]]), 0.5).tolist()
    [[0.0, 0.0, 1.0, 1.0]]
    """
    if not has_own_similarity(shapes):
        return shapes.boxes
    cache = shapes.__dict__.setdefault("_reach_boxes", {})
    key = float(tau)
    if key not in cache:
        boxes = shapes.boxes.copy()
        for name, rows in _own_kinds(shapes).items():
            r = np.flatnonzero(rows)
            grow = np.asarray(get_kind(name).reach(shapes.params[name][r], key), np.float64)
            grow = grow * (1 + 1e-9) + _MARGIN
            boxes[r] += np.column_stack([-grow, -grow, grow, grow])
        cache[key] = boxes
    return cache[key]
