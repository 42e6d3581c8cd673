# Over 400 lines: the listing of the components, the proof that a pairing is large and the
# assignment by components make one argument of exactness, read together.
"""The matched pairs of two objects of one class in pairings of whole annotations, from
only the part of each pairing that can hold them (issue #44).

A class's localization stratum of chance pairings (:mod:`iaa_frames.core.chance.strata`)
needs, of each pairing it draws, only its *units*: the matched pairs of two objects of
the class. Matching the whole pairing to get them costs the whole pairing (a rare class
of 14 objects an annotation in images of 1,000 objects: 2,600 full pairings for 200
units). :func:`class_units` returns exactly the units :func:`~iaa_frames.core.matching.pipeline.run`
gives (``sets=False``), matching only the connected components of the graph of eligible
object pairs (IoU at or above the threshold) that hold an eligible pair of two objects
of the class:

* **Components.** A unit is an eligible pair of two objects of the class, so it lies in
  a component holding one. Those pairs are listed first (the class's objects on either
  side, by the pipeline's box index, :func:`~iaa_frames.core.matching.pipeline.sweep_index`),
  then the components outwards from their objects: each round lists the pairs of the
  objects reached last with the whole other side whose boxes overlap (:class:`_Boxes`:
  the pairs the pipeline's box index lists, on the same boxes,
  :func:`~iaa_frames.core.matching.pipeline.sweep_boxes`), computes their IoU as the pipeline
  does (:func:`~iaa_frames.core.matching.pipeline.candidate_iou`, pair by pair, in the
  pairing's order) and keeps the eligible ones, until no new object is reached. The
  components' pairs are thus exactly the pipeline's eligible pairs of their objects.
  The rows of one pairing (several classes) share its listing.
* **Assignment.** :func:`~iaa_frames.core.matching.assignment.assign` solves a pairing
  whose objects with an eligible pair are too many to enumerate at once ("large") one
  component at a time (:func:`~iaa_frames.core.matching.assignment._split_large`): an edge
  alone is taken, every other component is enumerated, or given to
  :func:`scipy.optimize.linear_sum_assignment` when too large, on its own matrix. Each
  component is given here to :func:`assign` as a pairing of its own, with its objects
  ranked in the same order, which takes exactly those steps on exactly that matrix:
  the same choice, ties included. A pairing that is not large is enumerated whole, and a
  tie between assignments may then be broken across components (the first of the
  lexicographic order of the whole matrix, on sums in floating point): the restriction
  is used only where the pairing is proven large, by the objects of the components
  listed, else by the eligible pairs of the first ``4 * PREFIX`` objects of its first
  side with as many of its second (about as many pairs as :data:`PREFIX` objects of
  the first side with the whole second side, from half the objects or less), then of
  a prefix of :data:`PREFIX` objects of its first side, or 4 times as many, with the
  whole second side (its objects with an eligible pair are at least those); a pairing that is not large (or small: under
  :data:`RESTRICT_MIN_PAIRS` object pairs, or at ``tau = 0``, where every pair is
  eligible) is matched whole by :func:`~iaa_frames.core.matching.pipeline.run`. Being large
  is a property of the pairing (at ``tau``): a pairing of whole annotations proven
  large is held on the corpus, and a later call (another class drawing it) does not
  prove it again.
* **Values.** IoU, tie-break and distance are computed pair by pair, as the pipeline
  computes them.

The tests (``tests/core/matching/test_units.py``) compare the units with those of the whole
matching, on dense corpora with ties, polygons and components that join classes.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from iaa_frames.arrays import sorted_unique

from .assignment import assign, run_starts, too_large
from .corpus import Corpus, Slices
from .pair_values import cached_values
from .pipeline import (
    candidate_iou,
    run,
    sweep_boxes,
    sweep_index,
    tiebreak,
)

__all__ = ["PREFIX", "RESTRICT_MIN_PAIRS", "class_units"]

#: Object pairs (``n_a * n_b``) from which a pairing is matched by its components: below,
#: proving it large costs about as much as matching it whole (300 objects a side: its
#: objects with an eligible pair are about 1 in 12, found in a prefix of most of a side;
#: 100 a side: a few, not large). Above :data:`~iaa_frames.core.matching.pipeline.SPARSE_MIN_PAIRS`,
#: so that the pipeline lists the pairing's pairs from the same boxes.
RESTRICT_MIN_PAIRS = 250_000
#: Candidate pairs :class:`_Boxes` checks at a time (bounds its temporaries).
BLOCK = 1 << 20
#: Objects of a pairing's first side whose eligible pairs are listed to prove the pairing
#: large (see the module notes): first 4 times as many with as many of the second side,
#: then these, then 4 times as many, with the whole second side.
PREFIX = 64


def class_units(corpus: Corpus, slots: Slices, a, b, label, *, tau: float, distance, cache=None):
    """The matched pairs of two objects of class ``label[p]`` of every pairing
    ``(a[p], b[p])``: those of :func:`~iaa_frames.core.matching.pipeline.run` with
    ``sets=False``, bit for bit, from the components that can hold them (module notes).

    Parameters
    ----------
    corpus : Corpus
    slots : Slices
        ``corpus.annotations``: the pairings are of whole annotations.
    a, b, label : ndarray of int
        The two slots and the class code of every pairing (a pairing may come with
        several classes).
    tau : float
        Match threshold.
    distance : Distance
    cache : IoUCache, optional

    Returns
    -------
    pairing, pair_a, pair_b, pair_iou, pair_distance : ndarray
        One entry per unit, ordered by pairing, then ``pair_a``, then ``pair_b`` (the
        order of the pipeline's matched pairs).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.geometry.distances import get_distance
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> corpus = prepare(iaf.simulate(n_items=2, seed=0))
    >>> ann = corpus.annotations
    >>> p, oa, ob, iou, d = class_units(corpus, ann, np.array([0]), np.array([1]),
    ...                                 corpus.label[[ann.start[0]]], tau=0.5,
    ...                                 distance=get_distance("iou"))
    >>> bool((corpus.label[oa] == corpus.label[ob]).all())
    True
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    label = np.asarray(label, dtype=np.int64)
    by = corpus.by_label
    ca, cb = corpus.label_slots(a, label), corpus.label_slots(b, label)
    n_a, n_b = slots.count[a], slots.count[b]
    both = (by.count[ca] > 0) & (by.count[cb] > 0)  # else no unit
    sparse = both & (n_a * n_b >= RESTRICT_MIN_PAIRS) if tau > 0 else np.zeros(len(a), bool)
    parts = []
    if sparse.any():
        s = np.flatnonzero(sparse)
        found, proven = _restricted(
            corpus, slots, (a[s], b[s], ca[s], cb[s], label[s]), tau, distance, cache
        )
        parts.append((s[found[0]], *found[1:]))
        both[s[proven]] = False  # done
    whole = np.flatnonzero(both)  # small, not proven large, or tau = 0: matched whole
    if whole.size:
        m = run(
            corpus, slots, a[whole], b[whole], tau=tau, distance=distance, sets=False, cache=cache
        )
        lab = label[whole][m.pair_pairing]
        keep = (corpus.label[m.pair_a] == lab) & (corpus.label[m.pair_b] == lab)
        parts.append(
            (
                whole[m.pair_pairing[keep]],
                m.pair_a[keep],
                m.pair_b[keep],
                m.pair_iou[keep],
                m.pair_distance[keep],
            )
        )
    if not parts:
        z = np.zeros(0, np.int64)
        return z, z, z, np.zeros(0), np.zeros(0)
    pairing, oa, ob, iou, dist = (np.concatenate(x) for x in zip(*parts, strict=True))
    order = np.lexsort((ob, oa, pairing))
    return pairing[order], oa[order], ob[order], iou[order], dist[order]


def _restricted(corpus, slots, rows, tau, distance, cache):
    """:func:`class_units` of large pairings from the components of the class's objects:
    ``rows`` holds the slots ``a``, ``b`` of each row, the class's slots in
    ``corpus.by_label`` on either side and the class. Rows of one pairing (one ``a, b``)
    share its listing: the components of the objects of all their classes.

    Returns
    -------
    (row, pair_a, pair_b, pair_iou, pair_distance), proven
        The units of the rows whose pairing is ``proven`` large (the others are to be
        matched whole).
    """
    a, b, ca, cb, label = rows
    N, n_slots = len(corpus.area), slots.empty + 1
    by = corpus.by_label
    pairs, pid = np.unique(a * n_slots + b, return_inverse=True)
    pid = pid.ravel()
    a, b = pairs // n_slots, pairs % n_slots  # one per pairing
    P = len(pairs)
    sa, na, sb, nb = slots.start[a], slots.count[a], slots.start[b], slots.count[b]
    index = _Boxes(
        sweep_boxes(corpus, tau, True), np.concatenate([sa, sb]), np.concatenate([na, nb])
    )
    side = (index.segment(sa, na), index.segment(sb, nb))
    # the components of the eligible pairs of two objects of the class (the pairs a
    # unit can be), listed outwards from those pairs' objects
    s0, s1 = by.start[ca], by.start[cb]
    # (in any order: only the objects of the eligible ones are kept, as sets)
    class_sweep = sweep_index(corpus, tau, True, s0, by.count[ca], s1, by.count[cb])
    pr, i, j = class_sweep.search().pairs(ordered=False)
    oa_, ob_ = s0[pr] + i, s1[pr] + j
    ok = candidate_iou(corpus, oa_, ob_, tau, cache)[0] >= tau
    seen_a, seen_b = np.zeros(0, np.int64), np.zeros(0, np.int64)
    fa = _distinct(pid[pr[ok]] * N + oa_[ok])  # frontiers: pairing * N + object
    fb = _distinct(pid[pr[ok]] * N + ob_[ok])
    z = np.zeros(0, np.int64)
    er, ea, eb, ei = [z], [z], [z], [np.zeros(0)]
    while fa.size or fb.size:
        old_b = seen_b
        seen_a, seen_b = _union(seen_a, fa), _union(seen_b, fb)
        # the frontier of either side against the whole other side; a pair is listed
        # once: from its first side unless its second object was reached before, from
        # its second side unless its first object has been reached
        r1, q1, o1, i1 = _eligible(corpus, index, fa // N, fa % N, side[1], tau, cache, old_b)
        r2, q2, o2, i2 = _eligible(
            corpus, index, fb // N, fb % N, side[0], tau, cache, seen_a, swap=True
        )
        er += [r1, r2]
        ea += [q1, o2]
        eb += [o1, q2]
        ei += [i1, i2]
        fa = _distinct(r2 * N + o2)
        fb = _distinct(r1 * N + o1)
        fb = fb[~_in(fb, seen_b)]
    pairing, oa, ob, iou = (np.concatenate(x) for x in (er, ea, eb, ei))
    # proof that the pairing is large: its objects with an eligible pair are at least
    # those of the components, then of the eligible pairs of prefixes of its sides:
    # 4 * PREFIX objects of each (about the pairs of PREFIX objects of the first side
    # with the whole second, swept from fewer objects), then of a prefix of its first
    # side with the whole second side (a prefix 4 times as long where that is not enough).
    # A pairing proven large by an earlier call (the corpus's, at this tau: the classes
    # that draw a pairing come in several calls) is not proven again.
    held = _held_large(corpus, slots, tau)
    proven = _large(pairing, oa, ob, N, P) | _in(pairs, held)
    for size, wide in ((4 * PREFIX, False), (PREFIX, True), (4 * PREFIX, True)):
        todo = np.flatnonzero(~proven & (na > size // 4) & (wide | (nb > size // 4)))
        n_pre = np.minimum(na[todo], size)
        n_b = nb[todo] if wide else np.minimum(nb[todo], size)
        prefix_sweep = sweep_index(corpus, tau, True, sa[todo], n_pre, sb[todo], n_b)
        pr, i, j = prefix_sweep.search().pairs(ordered=False)  # (their objects, as sets)
        pa, pb = sa[todo][pr] + i, sb[todo][pr] + j
        ok = candidate_iou(corpus, pa, pb, tau, cache)[0] >= tau
        proven |= _large(todo[pr[ok]], pa[ok], pb[ok], N, P)
    if slots is corpus.annotations:
        corpus.__dict__["_large_pairings"][float(tau)] = _union(held, pairs[proven])
    keep = proven[pairing]
    pairing, oa, ob, iou = pairing[keep], oa[keep], ob[keep], iou[keep]
    chosen = _assign_components(corpus, pairing, oa, ob, iou, N)
    pairing, oa, ob, iou = pairing[chosen], oa[chosen], ob[chosen], iou[chosen]
    same = corpus.label[oa] == corpus.label[ob]
    pairing, oa, ob, iou = pairing[same], oa[same], ob[same], iou[same]
    # each unit to the rows of its pairing and class
    sel = np.flatnonzero(proven[pid])
    L = max(len(corpus.labels), 1)
    row_key = pid[sel] * L + label[sel]
    order = np.argsort(row_key, kind="stable")
    unit_key = pairing * L + corpus.label[oa]
    lo = np.searchsorted(row_key, unit_key, side="left", sorter=order)
    hi = np.searchsorted(row_key, unit_key, side="right", sorter=order)
    unit, step = _runs(hi - lo)
    row = sel[order[lo[unit] + step]]
    oa, ob, iou = oa[unit], ob[unit], iou[unit]
    shapes = corpus.shapes
    dist = cached_values(
        corpus,
        cache,
        "distance",
        oa,
        ob,
        np.arange(len(oa)),
        lambda r: distance(shapes.take(oa[r]), shapes.take(ob[r]), known_iou=iou[r]),
    )
    return (row, oa, ob, iou, dist), proven[pid]


def _held_large(corpus, slots, tau) -> np.ndarray:
    """The keys (``a * n_slots + b``, sorted) of the pairings of whole annotations that
    :func:`_restricted` has proven large at ``tau`` on this corpus so far (held on the
    corpus: a property of the pairing; none for other slots)."""
    z = np.zeros(0, np.int64)
    if slots is not corpus.annotations:
        return z
    return corpus.__dict__.setdefault("_large_pairings", {}).get(float(tau), z)


def _large(pairing, oa, ob, N, P):
    """Whether each of the ``P`` pairings is too large to enumerate whole
    (:func:`~iaa_frames.core.matching.assignment.too_large`) by the objects of its eligible
    pairs ``(oa, ob)`` given (a lower bound of its objects with an eligible pair)."""
    n_rows = np.bincount(_distinct(pairing * N + oa) // N, minlength=P)
    n_cols = np.bincount(_distinct(pairing * N + ob) // N, minlength=P)
    return too_large(np.minimum(n_rows, n_cols), np.maximum(n_rows, n_cols))


def _assign_components(corpus, pairing, oa, ob, iou, N):
    """The pipeline's assignment of the eligible pairs ``(oa, ob)`` of the pairings
    ``pairing`` (every eligible pair of each of their objects), one component at a time:
    each component is a pairing of :func:`assign` of its own, its objects ranked in
    their order (what :func:`assign` does to a large pairing)."""
    score = iou + tiebreak(corpus, oa, ob, np.arange(len(oa)))
    return by_components(pairing, oa, ob, score, N)


def by_components(pairing, oa, ob, score, N):
    """:func:`assign` of the eligible pairs ``(oa, ob)`` (objects below ``N``) of the
    pairings ``pairing``, scored ``score``, each connected component given as a pairing
    of its own: the choice of :func:`assign` on a large pairing of these pairs.

    Examples
    --------
    >>> by_components(np.zeros(3, int), np.array([0, 0, 1]), np.array([5, 6, 5]),
    ...               np.array([0.9, 0.8, 0.8]), 10).tolist()
    [False, True, True]
    """
    if not len(oa):
        return np.zeros(0, bool)
    key_a, key_b = pairing * N + oa, pairing * N + ob
    nodes_a, node_a = np.unique(key_a, return_inverse=True)
    nodes_b, node_b = np.unique(key_b, return_inverse=True)
    n = len(nodes_a) + len(nodes_b)
    graph = coo_matrix(
        (np.ones(len(oa)), (node_a.ravel(), len(nodes_a) + node_b.ravel())), shape=(n, n)
    )
    _, comp = connected_components(graph, directed=False)
    comp = comp[node_a.ravel()].astype(np.int64)
    # objects ranked within their component, in the order of the objects
    la, ca = _rank(comp, oa)
    lb, cb = _rank(comp, ob)
    return assign(comp, la, lb, ca, cb, score, np.ones(len(oa), bool))


def _rank(group, value):
    """Rank of each ``value`` among the distinct values of its group, and the number of
    distinct values per group (groups 0 .. max)."""
    order = np.lexsort((value, group))
    g, v = group[order], value[order]
    new = np.r_[True, (g[1:] != g[:-1]) | (v[1:] != v[:-1])]
    first = np.r_[True, g[1:] != g[:-1]]
    distinct = np.cumsum(new) - 1
    base = distinct[np.flatnonzero(first)][np.cumsum(first) - 1]
    out = np.empty(len(order), np.int64)
    out[order] = distinct - base
    count = np.zeros(int(group.max()) + 1, np.int64)
    np.maximum.at(count, group, out + 1)
    return out, count


def _runs(counts):
    """(owner, position within the owner's run) of every element of runs of ``counts``."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return owner, np.arange(len(owner), dtype=np.int64) - run_starts(counts)[owner]


def _objects(rows, start, count):
    """(row, object) of the objects ``[start, start + count)`` of every row."""
    owner, step = _runs(count)
    return rows[owner], start[owner] + step


class _Boxes:
    """The boxes of some annotations, for listing the boxes of one annotation that
    overlap a few given boxes: each annotation's boxes in classes of width (powers of 2
    of the narrowest), sorted by their left side within a class. A box overlapping
    ``[x0, x1)`` in x starts in ``[x0 - w, x1)``, ``w`` the widest box of its class: one
    run of each class, checked exactly. The pairs are those of
    :func:`~iaa_frames.geometry.box_index.overlapping_pairs`: positive overlap in x and
    in y, boxes with an empty side (or a NaN) overlapping nothing.
    """

    N_CLASSES = 12

    def __init__(self, boxes, start, count):
        self.boxes = boxes
        self.sides = tuple(np.ascontiguousarray(boxes[:, k]) for k in range(4))
        ranges = np.unique(np.stack([start, count], axis=1), axis=0)
        self.ranges = ranges
        seg, obj = _objects(np.arange(len(ranges)), ranges[:, 0], ranges[:, 1])
        x0, y0, x1, y1 = (boxes[obj, k] for k in range(4))
        ok = (x0 < x1) & (y0 < y1)
        seg, obj, x0, w = seg[ok], obj[ok], x0[ok], (x1 - x0)[ok]
        K = self.N_CLASSES
        narrow = w.min() if len(w) else 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.clip(np.floor(np.log2(w / narrow)), 0, K - 1)
        k = np.nan_to_num(k, nan=K - 1).astype(np.int64)
        group = seg * K + k
        order = np.lexsort((x0, group))
        self.obj, group, x0 = obj[order], group[order], x0[order]
        # the sides the candidates are tested on, in the order of the keys: a run of
        # candidates reads them in sequence (not gathered from the whole corpus)
        self.found = tuple(np.ascontiguousarray(boxes[self.obj, k]) for k in (1, 2, 3))
        self.values = np.unique(x0)
        self.width = len(self.values) + 1
        self.key = group * self.width + np.searchsorted(self.values, x0)
        self.widest = np.zeros(len(ranges) * K)
        np.maximum.at(self.widest, group, w[order])
        self.filled = np.bincount(group, minlength=len(ranges) * K) > 0

    def segment(self, start, count):
        """The segment of each annotation ``[start, start + count)``."""
        key = start * (int(self.ranges[:, 1].max()) + 1) + count
        keys = self.ranges[:, 0] * (int(self.ranges[:, 1].max()) + 1) + self.ranges[:, 1]
        return np.searchsorted(keys, key)

    def overlapping(self, obj, seg):
        """Every (query, object) pair: ``obj[query]``'s box and a box of segment
        ``seg[query]`` overlap."""
        K = self.N_CLASSES
        q = np.repeat(np.arange(len(obj)), K)
        group = seg[q] * K + np.tile(np.arange(K), len(obj))
        live = self.filled[group]
        q, group = q[live], group[live]
        start, end = self.sides[0][obj[q]], self.sides[2][obj[q]]
        reach = self.widest[group]
        low = start - reach
        low -= 1e-9 * (np.abs(start) + reach)  # a margin: the exact test follows
        lo = np.searchsorted(
            self.key, group * self.width + np.searchsorted(self.values, low), side="left"
        )
        hi = np.searchsorted(
            self.key, group * self.width + np.searchsorted(self.values, end), side="left"
        )
        # a query with an empty side (or a NaN) overlaps nothing
        x0, y0, x1, y1 = (side[obj] for side in self.sides)
        valid = (x0 < x1) & (y0 < y1)
        q, lo, hi = q[valid[q]], lo[valid[q]], hi[valid[q]]
        count = np.maximum(hi - lo, 0)
        fy0, fx1, fy1 = self.found
        out_q, out_o = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        for a, b in _blocks(count, BLOCK):  # the candidates a block at a time (memory)
            owner = np.repeat(np.arange(b - a, dtype=np.int64), count[a:b])
            # each candidate's place in the keys: lo of its query, then the next ones
            at = np.arange(len(owner), dtype=np.int64)
            at += (lo[a:b] - run_starts(count[a:b]))[owner]
            query = q[a:b][owner]
            # x0 of a candidate is below x1 of its query (hi is the first key at or
            # above it); the other sides are tested here
            keep = x0[query] < fx1[at]
            keep &= y0[query] < fy1[at]
            keep &= fy0[at] < y1[query]
            out_q.append(query[keep])
            out_o.append(self.obj[at[keep]])
        return np.concatenate(out_q), np.concatenate(out_o)


def _blocks(count, size):
    """(lo, hi) ranges of consecutive entries holding about ``size`` of ``count`` each."""
    cum = np.cumsum(count)
    cuts = np.searchsorted(cum, np.arange(size, cum[-1] if len(cum) else 0, size), side="right")
    edges = np.r_[0, cuts, len(count)]
    return [(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True) if hi > lo]


def _eligible(corpus, index, row, obj, other, tau, cache, exclude=None, swap=False):
    """The eligible pairs (IoU >= tau) of the objects ``obj`` (of pairing ``row``)
    with the objects of the other side (segment ``other[row]`` of ``index``) among the
    pipeline's candidates (boxes overlapping), leaving out the pairs whose other
    object's key (``row * N + object``) is in ``exclude`` (sorted). The IoU is computed
    with the objects in the pairing's order: ``obj`` first, or second with ``swap`` (the
    pipeline's values, bit for bit).

    Returns
    -------
    row, object, other object, iou
    """
    z = np.zeros(0, np.int64)
    if not len(obj):
        return z, z, z, np.zeros(0)
    N = len(corpus.area)
    query, o = index.overlapping(obj, other[row])
    r, q = row[query], obj[query]
    if exclude is not None and len(exclude):
        keep = ~_in(r * N + o, exclude)
        r, q, o = r[keep], q[keep], o[keep]
    iou = candidate_iou(corpus, *((o, q) if swap else (q, o)), tau, cache)[0]
    ok = iou >= tau
    return r[ok], q[ok], o[ok], iou[ok]


def _distinct(keys):
    return sorted_unique(np.asarray(keys, dtype=np.int64))


def _union(keys, values):
    """``keys`` and ``values`` (both sorted, distinct) as one sorted, distinct array."""
    return _distinct(np.concatenate([keys, values]))


def _in(values, keys):
    """Whether each value is in ``keys`` (sorted, distinct)."""
    if not len(keys) or not len(values):
        return np.zeros(len(values), bool)
    pos = np.minimum(np.searchsorted(keys, values), len(keys) - 1)
    return keys[pos] == values
