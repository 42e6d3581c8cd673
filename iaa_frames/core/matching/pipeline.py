# Over 400 lines: the one matching pipeline: bounds, exact IoU and the chunked run are its steps.
"""The one matching pipeline, applied to within-item and between-item pairings alike.


:func:`run` takes *pairings* — two annotations each, given as slots of a
:class:`~iaa_frames.core.matching.corpus.Slices` — and returns the matched object pairs (for
localization) and one row per pairing with the detection and set-level distances. The
chance baseline rule holds by construction: between-item pairings (the annotation of item
i by annotator a against that of item j by annotator b) go through exactly this code,
with the same threshold, as within-item pairings. (Filtering the within-item pairs by the
matcher but not the chance pairs would make annotators who draw at random score σ near
0.7 rather than 0.)

Dense items: at ``tau > 0`` a pair of objects whose boxes do not overlap has IoU 0, is
never eligible, and (for IoU-based similarities) is never anyone's best match, so large
pairings list only the overlapping pairs (:mod:`iaa_frames.geometry.box_index`) and the
assignment splits them into connected components
(:func:`~iaa_frames.core.matching.assignment.assign`):
the result is exactly that of listing every pair, at a cost that grows with the
overlaps. At ``tau = 0`` every pair is eligible and every pair is listed. Shapes of a
kind with its own similarity (keypoints' OKS, :mod:`iaa_frames.geometry.kind_similarity`)
take it in place of the IoU, computed exactly for every listed pair, and are listed by
their boxes grown by the kind's reach at ``tau``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_frames.geometry.bounds import threshold_boxes
from iaa_frames.geometry.box_index import Sweep, coordinate_ranks
from iaa_frames.geometry.distances import (
    Distance,
    areas_inside_bound,
    kind_shared_bound,
    mask_iou_upper_bound,
    may_use_masks,
)
from iaa_frames.geometry.distances import iou as pair_iou
from iaa_frames.geometry.kind_similarity import (
    has_own_similarity,
    own_similarity_of,
    reach_boxes,
)
from iaa_frames.geometry.mask_rule import masked_pairs

from .assignment import assign, candidate_pairs, run_starts
from .corpus import Corpus, Slices
from .pair_values import IoUCache, cached_values

__all__ = [
    "IoUCache",
    "Matched",
    "NearPairs",
    "can_match",
    "candidate_count",
    "iou_upper_bound",
    "run",
]

#: Candidate object pairs handled per chunk (bounds memory; one progress step each).
CHUNK_PAIRS = 2_000_000
#: Objects of swept pairings whose searches are made and held at once (:func:`_chunked`:
#: some tens of bytes each, per replica of a box in the bands of the sweep).
SEARCH_OBJECTS = 1 << 18
#: Candidate pairs per chunk of :func:`can_match`: few enough for its temporaries to stay
#: in the processor's cache (a few numpy operations each, on arrays that fit there).
REACH_CHUNK_PAIRS = 32_768
#: Pairs over which :func:`can_match` sweeps a pairing (it needs only the pairs that can
#: reach tau: few, in boxes shrunk to where the IoU bound can).
REACH_SPARSE_MIN_PAIRS = 256
#: Objects of side a that :func:`can_match` looks at first in a pairing of over twice as
#: many (most large pairings that can match are found on them).
REACH_HEAD = 64
_TIEBREAK = 1e-6
_BLOCK = 32_768  # candidate pairs per block of the box terms of the IoU bound
#: Pairings with more candidate pairs than this list only the object pairs whose boxes
#: overlap (:mod:`iaa_frames.geometry.box_index`) when the others cannot change the result.
SPARSE_MIN_PAIRS = 1024
#: Rounds of :func:`_raise_best` that advance only each object's most promising pair
#: before the pairs still live are computed at once.
BEST_ROUNDS = 12


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

    @classmethod
    def empty(cls) -> Matched:
        """The result of matching no pairing at all."""
        i, f = np.zeros(0, np.int64), np.zeros(0)
        return cls(i, i, i, f, f, i, i, i, f, f)


@dataclass(frozen=True, eq=False)
class NearPairs:
    """Every candidate object pair within the threshold (IoU >= tau), matched or not, of
    :func:`run` with ``near=True``: its pairing (input order), objects and IoU, as the
    run computed them (what CLEAR MOT and IDF1 need besides the assignment)."""

    pairing: np.ndarray
    a: np.ndarray
    b: np.ndarray
    iou: np.ndarray


def _best(values, group, n_groups, higher, unlisted=None):
    """Best value per group; groups flagged ``unlisted`` also have pairs left out of the
    candidates (boxes apart), whose similarity is 0."""
    out = np.full(n_groups, -np.inf if higher else np.inf)
    (np.maximum if higher else np.minimum).at(out, group, values)
    if unlisted is not None and unlisted.any():
        out[unlisted] = np.maximum(out[unlisted], 0.0)
    return out


def _sparse_ok(tau: float, distance: Distance, sets: bool) -> bool:
    """Whether object pairs whose boxes do not overlap can be left out of a run.

    Such a pair has IoU 0: at ``tau > 0`` it is never eligible, and an IoU-based
    similarity (``reuses_iou``) is 0 there, so leaving it out changes neither the
    assignment nor a best match (:func:`_best` restores the 0). At ``tau = 0`` every
    pair is eligible, and other similarities need every pair: all pairs are listed.
    """
    return tau > 0 and (not sets or distance.reuses_iou)


def sweep_boxes(corpus: Corpus, tau: float, eligible: bool) -> np.ndarray:
    """The boxes the sweep of :func:`_candidates` lists overlapping pairs of: grown by
    their kind's reach at ``tau`` (:func:`~iaa_frames.geometry.kind_similarity.reach_boxes`),
    or with ``eligible`` (only pairs that can be matched are needed) shrunk to those that
    overlap wherever the IoU bound can reach ``tau``
    (:func:`~iaa_frames.geometry.bounds.threshold_boxes`)."""
    if eligible:
        return threshold_boxes(corpus.shapes, corpus.area, tau)
    return reach_boxes(corpus.shapes, tau)


def sweep_index(corpus: Corpus, tau: float, eligible: bool, start_a, count_a, start_b, count_b):
    """The :class:`~iaa_frames.geometry.box_index.Sweep` of the pairings ``(start_a,
    count_a)`` x ``(start_b, count_b)`` on :func:`sweep_boxes`. Once the sweeps of a corpus
    have ranked the coordinates of twice its objects, those of every object are ranked
    once (:func:`~iaa_frames.geometry.box_index.coordinate_ranks`, held on the shapes)
    and each later sweep takes them instead of ranking its own."""
    boxes = sweep_boxes(corpus, tau, eligible)
    cache = corpus.shapes.__dict__.setdefault("_sweep_ranks", {})
    key = (float(tau), bool(eligible))
    held = cache.get(key)
    if held is None or held[0] is not boxes:
        held = cache[key] = [boxes, 0, None]
    if held[2] is None:
        held[1] += int(np.sum(count_a)) + int(np.sum(count_b))
        if held[1] >= 2 * len(boxes):
            held[2] = coordinate_ranks(boxes)
    return Sweep(boxes, start_a, count_a, start_b, count_b, ranks=held[2])


def _candidates(
    corpus: Corpus,
    slots: Slices,
    a,
    b,
    sparse: bool,
    tau: float = 0.0,
    eligible: bool = False,
    searched=None,
    min_pairs: int | None = None,
    ordered: bool = True,
):
    """The candidate pairs of the pairings (a, b), in the order of
    :func:`~iaa_frames.core.matching.assignment.candidate_pairs`: all of them, or with ``sparse``
    only the pairs whose boxes overlap in the pairings with over :data:`SPARSE_MIN_PAIRS` (the
    boxes of :func:`sweep_boxes`: with ``eligible``, at least every pair whose IoU bound
    reaches ``tau``). ``searched``: the :class:`~iaa_frames.geometry.box_index.Searched`
    of those pairings, in order, from :func:`_chunked` (searched here when None).
    ``min_pairs``: the pairs over which a pairing is swept (:data:`SPARSE_MIN_PAIRS` when
    None), as :func:`_chunked` was given it. Without ``ordered``, the same pairs in any
    order (the swept ones are not sorted)."""
    sa, na, sb, nb = slots.start[a], slots.count[a], slots.start[b], slots.count[b]
    min_pairs = SPARSE_MIN_PAIRS if min_pairs is None else min_pairs
    big = (na * nb > min_pairs) if sparse else np.zeros(len(a), dtype=bool)
    if not big.any():
        return candidate_pairs(sa, na, sb, nb)
    small = np.flatnonzero(~big)
    large = np.flatnonzero(big)
    p1, la1, lb1, _, _ = candidate_pairs(sa[small], na[small], sb[small], nb[small])
    if searched is None:
        index = sweep_index(corpus, tau, eligible, sa[large], na[large], sb[large], nb[large])
        searched = index.search()
    p2, la2, lb2 = searched.pairs(ordered=ordered)
    if not ordered:  # the enumerated pairs, then the swept ones
        pairing = np.concatenate([small[p1], large[p2]])
        la, lb = np.concatenate([la1, la2]), np.concatenate([lb1, lb2])
        return pairing, la, lb, sa.take(pairing) + la, sb.take(pairing) + lb
    # each part is ordered within a pairing, and holds the whole of its pairings: each
    # pair goes to its pairing's run of the whole, at its place in the run
    per = np.zeros(len(a), dtype=np.int64)
    per[small], per[large] = na[small] * nb[small], per_pairing(p2, len(large))
    if small.size:
        start = run_starts(per)
        la, lb = np.empty(len(p1) + len(p2), np.int64), np.empty(len(p1) + len(p2), np.int64)
        for rows, part_a, part_b in ((small, la1, lb1), (large, la2, lb2)):
            n = per[rows]
            at = np.repeat(start[rows] - run_starts(n), n)
            at += np.arange(len(at), dtype=np.int64)
            la[at], lb[at] = part_a, part_b
    else:  # the swept pairs alone, in order already
        la, lb = la2, lb2
    pairing = np.repeat(np.arange(len(a), dtype=np.int64), per)
    return pairing, la, lb, np.repeat(sa, per) + la, np.repeat(sb, per) + lb


def per_pairing(pairing, n: int) -> np.ndarray:
    """The pairs of each of the pairings ``0 .. n - 1`` in ``pairing`` (sorted): the
    length of its run.

    Examples
    --------
    >>> per_pairing(np.array([0, 0, 2]), 4).tolist()
    [2, 0, 1, 0]
    """
    if 16 * n < len(pairing):  # few pairings, many pairs: where their runs start
        return np.diff(np.searchsorted(pairing, np.arange(n + 1)))
    return np.bincount(pairing, minlength=n)


def _chunked(
    corpus: Corpus,
    slots: Slices,
    a,
    b,
    sparse: bool,
    tau: float = 0.0,
    eligible: bool = False,
    min_pairs: int | None = None,
    size: int | None = None,
):
    """Consecutive ranges of the pairings holding about ``size`` candidate pairs each, as
    ``(lo, hi, searched, cost)`` (``size``: :data:`CHUNK_PAIRS` when None): ``searched``
    the :class:`~iaa_frames.geometry.box_index.Searched` of the range's pairings that are
    swept (``sparse``, over ``min_pairs`` object pairs; ``eligible`` as in
    :func:`_candidates`), in order, or None where none is, for :func:`_candidates`;
    ``cost`` the candidate pairs of the range.

    A pairing enumerated costs its object pairs; a swept one the pairs its sweep looks
    at, known from its searches before any pair is listed. The swept pairings are
    searched a block of about :data:`SEARCH_OBJECTS` of their objects at a time (the
    searches of a block are held while its chunks are listed), each block cut into
    chunks of its own: the matching of a pairing does not depend on the chunks.
    """
    size = CHUNK_PAIRS if size is None else size
    cost = slots.count[a] * slots.count[b]
    big = None
    if sparse:
        big = cost > (SPARSE_MIN_PAIRS if min_pairs is None else min_pairs)
    if big is None or not big.any():
        for lo, hi in _chunks(cost, size):
            yield lo, hi, None, int(cost[lo:hi].sum())
        return
    sweep = sweep_index(
        corpus,
        tau,
        eligible,
        slots.start[a[big]],
        slots.count[a[big]],
        slots.start[b[big]],
        slots.count[b[big]],
    )
    before = np.zeros(len(a) + 1, dtype=np.int64)  # swept pairings before each
    np.cumsum(big, out=before[1:])
    objects = np.where(big, slots.count[a] + slots.count[b], 0)
    for b_lo, b_hi in _chunks(objects, SEARCH_OBJECTS):
        first = before[b_lo]
        searched = sweep.search(np.arange(first, before[b_hi]))
        part = cost[b_lo:b_hi].copy()
        part[big[b_lo:b_hi]] = searched.cost
        for lo, hi in _chunks(part, size):
            i, j = before[lo + b_lo] - first, before[hi + b_lo] - first
            yield (
                lo + b_lo,
                hi + b_lo,
                searched.part(i, j) if j > i else None,
                int(part[lo:hi].sum()),
            )


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


def _iou_bound(corpus: Corpus, oa, ob):
    """IoU of box-box candidate pairs, and an upper bound of it for pairs with a polygon.

    Polygon IoU is at most min(I, A, B) / (A + B - min(I, A, B)), with I the
    intersection of the bounding boxes (turned into a bound of the shared volume for
    cuboids, :func:`~iaa_frames.geometry.bounds.kind_shared_bound`) and A, B the polygon
    areas; pairs whose IoU is a
    mask IoU get the bound of :func:`~iaa_frames.geometry.bounds.iou_upper_bound` instead.
    The box terms are computed in blocks of :data:`_BLOCK` pairs, whose temporaries stay
    in the processor's cache.

    Returns
    -------
    bound, has_polygon, boxes_overlap
    """
    shapes = corpus.shapes
    n = len(oa)
    boxes, area = shapes.boxes, corpus.area
    box_only = bool(shapes.is_box.all())  # then the bound is the IoU: no polygon terms
    bound, overlap = np.empty(n), np.empty(n, dtype=bool)
    inter = bound if box_only else np.empty(n)
    for lo in range(0, n, _BLOCK):
        ia, ib = oa[lo : lo + _BLOCK], ob[lo : lo + _BLOCK]
        # ``take`` gathers rows several times faster than fancy indexing of a 2-D array
        ba, bb = boxes.take(ia, axis=0), boxes.take(ib, axis=0)
        part = _box_intersection(ba, bb, out=inter[lo : lo + _BLOCK])
        np.greater(part, 0, out=overlap[lo : lo + _BLOCK])
        if box_only:
            _box_iou(part, area.take(ia), area.take(ib))
    if not box_only:
        area_a, area_b = area.take(oa), area.take(ob)
        shape = ~shapes.is_box  # rows whose IoU needs more than their boxes
        poly_pair = shape[oa] | shape[ob]
        top = inter.copy()
        rows = np.flatnonzero(poly_pair)
        shared = kind_shared_bound(shapes, shapes, inter[rows], oa[rows], ob[rows])  # cuboids
        top[rows] = np.minimum(shared, np.minimum(area_a[rows], area_b[rows]))
        with np.errstate(invalid="ignore", divide="ignore"):
            bound = np.nan_to_num(top / (area_a + area_b - top))
    else:
        poly_pair = np.zeros(n, dtype=bool)
    if has_own_similarity(shapes):  # e.g. OKS: exact, cheap, and not from boxes
        own, value, foreign = own_similarity_of(shapes, oa, ob)
        bound[own] = value
        bound[foreign] = 0.0
        poly_pair[own] = poly_pair[foreign] = False
    _bound_masks(corpus, oa, ob, bound, poly_pair & overlap)
    return bound, poly_pair, overlap


def _box_intersection(ba: np.ndarray, bb: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Area of the intersection of the boxes ``ba[k]`` and ``bb[k]`` (0 when apart), in
    ``out``."""
    iw = np.minimum(ba[:, 2], bb[:, 2])  # one coordinate at a time: long inner loops
    iw -= np.maximum(ba[:, 0], bb[:, 0])
    ih = np.minimum(ba[:, 3], bb[:, 3])
    ih -= np.maximum(ba[:, 1], bb[:, 1])
    np.maximum(iw, 0, out=iw)
    np.maximum(ih, 0, out=ih)
    return np.multiply(iw, ih, out=out)


def _box_iou(inter: np.ndarray, area_a: np.ndarray, area_b: np.ndarray) -> None:
    """Turn the intersections ``inter`` of box pairs into their IoU, in place (0 for
    two empty boxes)."""
    area_a += area_b
    area_a -= inter  # the union
    with np.errstate(invalid="ignore", divide="ignore"):
        np.divide(inter, area_a, out=inter)
    np.nan_to_num(inter, copy=False)


def tiebreak(corpus: Corpus, oa, ob, rows) -> np.ndarray:
    """The tie-break of the matching for the candidate pairs ``rows``: ``_TIEBREAK / (1 +
    d)``, ``d`` the distance between the centres of the two boxes (in blocks)."""
    boxes = corpus.shapes.boxes
    out = np.empty(len(rows))
    for lo in range(0, len(rows), _BLOCK):
        r = rows[lo : lo + _BLOCK]
        _nearness(boxes.take(oa[r], axis=0), boxes.take(ob[r], axis=0), out[lo : lo + _BLOCK])
    return out


def _nearness(ba: np.ndarray, bb: np.ndarray, out: np.ndarray) -> None:
    """:func:`tiebreak` of the boxes ``ba[k]`` and ``bb[k]``, in ``out``."""
    d = ba[:, 0] + ba[:, 2]
    d -= bb[:, 0]
    d -= bb[:, 2]
    d /= 2
    dy = ba[:, 1] + ba[:, 3]
    dy -= bb[:, 1]
    dy -= bb[:, 3]
    dy /= 2
    np.hypot(d, dy, out=d)
    d += 1
    np.divide(_TIEBREAK, d, out=out)


def _bound_masks(corpus: Corpus, oa, ob, bound, candidates) -> None:
    """Raise ``bound`` where the IoU is a mask IoU, which can exceed the bound of the
    exact IoU by the rasterization error (:func:`~iaa_frames.geometry.bounds.iou_upper_bound`)."""
    shapes = corpus.shapes
    if not may_use_masks(shapes):
        return
    rows = np.flatnonzero(candidates)
    rows = rows[masked_pairs(shapes, oa[rows], ob[rows])]
    if rows.size:
        a, b = shapes.take(oa[rows]), shapes.take(ob[rows])
        bound[rows] = np.maximum(bound[rows], mask_iou_upper_bound(a, b))


def _tighter_bound(corpus: Corpus, oa, ob, rows, bound) -> np.ndarray:
    """A tighter IoU bound of the polygon pairs ``rows``, whose bound so far is ``bound``
    (aligned with ``rows``; pairs that get the mask IoU keep it).

    The shared area is at most the area of either shape inside the other's bounding box,
    itself bounded from the areas of the shape in the cells of a grid over its own box,
    computed once per shape (:func:`~iaa_frames.geometry.overlap.areas_inside_bound`, a few
    numpy operations per pair whatever the vertex count, no overlay): the bound of
    :func:`_iou_bound` with that area in place of the boxes' intersection.
    """
    out = np.array(bound, dtype=np.float64)
    shapes = corpus.shapes
    e = np.arange(len(rows))
    if may_use_masks(shapes):
        e = np.flatnonzero(~masked_pairs(shapes, oa[rows], ob[rows]))
    if not e.size:
        return out
    a, b = shapes.take(oa[rows[e]]), shapes.take(ob[rows[e]])
    top = np.minimum(areas_inside_bound(a, b.boxes), areas_inside_bound(b, a.boxes))
    top = kind_shared_bound(a, b, top)
    area_a, area_b = corpus.area[oa[rows[e]]], corpus.area[ob[rows[e]]]
    top = np.minimum(top, np.minimum(area_a, area_b))
    with np.errstate(invalid="ignore", divide="ignore"):
        out[e] = np.minimum(out[e], np.nan_to_num(top / (area_a + area_b - top)))
    return out


def iou_upper_bound(corpus: Corpus, oa, ob) -> np.ndarray:
    """IoU of box pairs, and an upper bound of it for pairs with a polygon (no shapely).

    Parameters
    ----------
    corpus : Corpus
    oa, ob : ndarray of int
        Object indices of the two sides.

    Returns
    -------
    ndarray of float
    """
    return _iou_bound(corpus, np.asarray(oa, dtype=np.int64), np.asarray(ob, dtype=np.int64))[0]


def candidate_iou(corpus: Corpus, oa, ob, tau, cache=None):
    """IoU of every candidate pair, exact wherever the matching needs it.

    Box-box pairs are computed with numpy. Pairs involving a polygon go to shapely only
    where the bounding boxes overlap and the IoU could reach ``tau``: by the boxes'
    bound (:func:`_iou_bound`), then by the tighter clipped-area bound
    (:func:`_tighter_bound`). The other overlapping polygon pairs are returned as
    *pending* (IoU left at 0, with their bound): they cannot be matched, so the matching
    is exactly the one full IoU would give. Exact values are looked up in and added to
    ``cache`` when given.

    Returns
    -------
    iou, pending, pending_bound
    """
    bound, poly_pair, overlap = _iou_bound(corpus, oa, ob)
    iou = np.where(poly_pair, 0.0, bound) if poly_pair.any() else bound  # bound: unchanged
    involved = np.flatnonzero(poly_pair & overlap)
    maybe = involved[bound[involved] >= tau]
    bound[maybe] = _tighter_bound(corpus, oa, ob, maybe, bound[maybe])
    reachable = bound[involved] >= tau
    _exact_iou(corpus, oa, ob, involved[reachable], iou, cache)
    return iou, involved[~reachable], bound[involved[~reachable]]


def can_match(corpus: Corpus, slots: Slices, a, b, *, tau: float) -> np.ndarray:
    """Pairings with at least one candidate pair whose IoU can reach ``tau``.

    The other pairings cannot produce a matched pair, so leaving them out of a
    localization-only :func:`run` changes nothing; this test costs a few numpy
    operations per candidate pair (no shapely).

    Returns
    -------
    ndarray of bool, one per pairing
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    sparse = tau > 0  # a bound above 0 needs overlapping (reach) boxes
    if not sparse:
        return _can_match(corpus, slots, a, b, tau, sparse)
    # a pairing with a pair that can reach tau among its first REACH_HEAD objects of side
    # a can match: decided on those (a fraction of the overlapping pairs of a large
    # pairing); the others are tested whole
    out = np.zeros(len(a), dtype=bool)
    head = np.flatnonzero(slots.count[a] > 2 * REACH_HEAD)
    if head.size:
        m = np.arange(len(head), dtype=np.int64)
        start = np.concatenate([slots.start[a[head]], slots.start[b[head]], [0]])
        count = np.concatenate([np.full(len(head), REACH_HEAD), slots.count[b[head]], [0]])
        no = np.zeros(len(start), dtype=np.int64)
        heads = Slices(start=start, count=count, item=no, annotator=no)
        out[head] = _can_match(corpus, heads, m, m + len(head), tau, sparse)
    rest = np.flatnonzero(~out)
    out[rest] = _can_match(corpus, slots, a[rest], b[rest], tau, sparse)
    return out


def _can_match(corpus: Corpus, slots: Slices, a, b, tau: float, sparse: bool) -> np.ndarray:
    """:func:`can_match`, every candidate pair of each pairing looked at."""
    out = np.zeros(len(a), dtype=bool)
    min_pairs = REACH_SPARSE_MIN_PAIRS
    for lo, hi, searched, _ in _chunked(
        corpus, slots, a, b, sparse, tau, sparse, min_pairs, REACH_CHUNK_PAIRS
    ):
        pairing, _, _, oa, ob = _candidates(  # in any order: whether any pair can match
            corpus, slots, a[lo:hi], b[lo:hi], sparse, tau, sparse, searched, min_pairs, False
        )
        bound = _iou_bound(corpus, oa, ob)[0]
        out[lo + pairing[bound >= tau]] = True
    return out


def _chunks(cost, size: int = CHUNK_PAIRS):
    """(lo, hi) ranges of pairings holding about ``size`` candidate pairs each."""
    cum = np.cumsum(cost)
    bounds = np.searchsorted(cum, np.arange(size, cum[-1] if len(cum) else 0, size), side="right")
    return [
        (lo, hi)
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(cost)], strict=True)
        if hi > lo
    ]


def _exact_iou(corpus: Corpus, oa, ob, rows, iou, cache=None) -> None:
    """Fill ``iou[rows]`` with the exact IoU of polygon pairs (shapely), via ``cache``."""
    shapes = corpus.shapes
    iou[rows] = cached_values(
        corpus,
        cache,
        "iou",
        oa,
        ob,
        rows,
        lambda r: np.nan_to_num(pair_iou(shapes.take(oa[r]), shapes.take(ob[r]))),
    )


def _iou_similarity(corpus, distance, oa, ob, iou, rows):
    """Similarity of the candidate pairs ``rows`` (all when None) with IoU > 0."""
    rows = np.arange(len(iou)) if rows is None else rows
    out = np.zeros(len(rows))
    r = np.flatnonzero(iou[rows] > 0)
    shapes = corpus.shapes
    out[r] = distance.similar(
        shapes.take(oa[rows[r]]), shapes.take(ob[rows[r]]), known_iou=iou[rows[r]]
    )
    return out


def _similarity_bound(corpus, distance, oa, ob, iou_bound, exact=False, floor=None):
    """An upper bound of the similarity of the object pairs (oa, ob) from one of their
    IoU: the distance's own (:attr:`~iaa_frames.geometry.distances.Distance.similarity_bound`,
    GIoU's penalty) where it has one, and never above the IoU bound. ``exact``: the
    bounds are the pairs' exact IoU; ``floor``: the value at or below which a pair's bound
    need not be tighter (both passed on where the distance's bound takes them,
    :attr:`~iaa_frames.geometry.distances.Distance.bound_hints`)."""
    if distance.similarity_bound is None or not len(oa):
        return iou_bound
    shapes = corpus.shapes
    kw = {}
    if distance.bound_hints:
        kw = {"exact": bool(exact)} if floor is None else {"exact": bool(exact), "floor": floor}
    own = distance.similarity_bound(shapes.take(oa), shapes.take(ob), iou_bound=iou_bound, **kw)
    return np.minimum(iou_bound, own)


def _raise_best(corpus, distance, pairs, overlapping, pending, keys, sizes, unlisted) -> None:
    """Set the similarity ``sim`` of every candidate pair that can raise the best
    similarity of one of its two objects (``sim`` holds those of the matched pairs, 0
    elsewhere), computing only what the bounds cannot rule out.

    ``pairs``: ``(oa, ob, iou, sim, cache)`` of the candidate pairs; ``overlapping``: the
    rows whose IoU is known and above 0 (not matched); ``pending``: rows whose IoU is not
    computed, and an upper bound of it. IoU-based similarities never exceed the IoU, and a
    pair can change a best match only if its bound beats the best similarity one of its
    objects already has. The pending pairs' bound is first tightened
    (:func:`_tighter_bound`, all at once), and every pair's bound turned into a bound of
    its similarity (:func:`_similarity_bound`; for a distance with
    :attr:`~iaa_frames.geometry.distances.Distance.bound_hints`, the cheapest one, GIoU's
    from a lower bound of the enclosing hull). Then each round takes, for every object, its
    live pair of highest bound and advances it one step: a pair with the cheapest bound
    gets the distance's own (GIoU's from the enclosing hull itself, and from the exact IoU
    where it is known), a pending pair its exact IoU (and the similarity bound from it),
    the others their similarity, which raises the bests and retires the pairs that can no
    longer beat them. After :data:`BEST_ROUNDS` rounds the pairs still live advance all
    at once. The bests are those that computing every pair would give.
    """
    oa, ob, iou, sim, cache = pairs
    key_a, key_b = keys
    cand = np.concatenate([overlapping, pending[0]])
    top = np.concatenate([iou[overlapping], pending[1]])  # the IoU, or a bound of it
    bound = top.copy()  # the bound of the similarity
    known = np.arange(len(cand)) < len(overlapping)  # the IoU is exact
    refined = np.full(len(cand), not distance.bound_hints)  # not the cheapest bound
    best_a = _best(sim, key_a, sizes[0], True, unlisted[0])
    best_b = _best(sim, key_b, sizes[1], True, unlisted[1])

    def floor_of(r):  # the bound at or below which a pair is retired
        return np.minimum(best_a[key_a[r]], best_b[key_b[r]])

    step = 0
    while True:
        live = (bound > best_a[key_a[cand]]) | (bound > best_b[key_b[cand]])
        cand, top, bound = cand[live], top[live], bound[live]
        known, refined = known[live], refined[live]
        if not cand.size:
            return
        if step == 0:
            rows = np.flatnonzero(~known)
            top[rows] = _tighter_bound(corpus, oa, ob, cand[rows], top[rows])
            cheapest = None if refined.all() else np.full(len(cand), np.inf)  # any will do
            bound = _similarity_bound(corpus, distance, oa[cand], ob[cand], top, floor=cheapest)
            step += 1
            continue
        pick = np.ones(len(cand), bool)
        if step <= BEST_ROUNDS:
            ka, kb = key_a[cand], key_b[cand]
            top_a, top_b = np.full(sizes[0], -np.inf), np.full(sizes[1], -np.inf)
            np.maximum.at(top_a, ka, bound)
            np.maximum.at(top_b, kb, bound)
            pick = (bound >= top_a[ka]) | (bound >= top_b[kb])
        step += 1
        advance = pick & refined
        for exact in (False, True):
            rows = np.flatnonzero(pick & ~refined & (known == exact))
            if rows.size:
                r = cand[rows]
                bound[rows] = np.minimum(
                    bound[rows],
                    _similarity_bound(corpus, distance, oa[r], ob[r], top[rows], exact=exact),
                )
                refined[rows] = True
        exact = np.flatnonzero(advance & ~known)
        if exact.size:
            _exact_iou(corpus, oa, ob, cand[exact], iou, cache)
            r = cand[exact]
            top[exact] = iou[r]
            bound[exact] = _similarity_bound(
                corpus, distance, oa[r], ob[r], iou[r], exact=True, floor=floor_of(r)
            )
            known[exact] = True
        done = advance & known
        done[exact] = False
        if done.any():
            rows = cand[done]
            sim[rows] = cached_values(
                corpus,
                cache,
                "similarity",
                oa,
                ob,
                rows,
                lambda r: _iou_similarity(corpus, distance, oa, ob, iou, r),
            )
            np.maximum.at(best_a, key_a[rows], sim[rows])
            np.maximum.at(best_b, key_b[rows], sim[rows])
            keep = ~done
            cand, top, bound, known, refined = (v[keep] for v in (cand, top, bound, known, refined))


def _run_chunk(
    corpus,
    slots,
    a,
    b,
    tau,
    distance,
    overall,
    sets,
    cache,
    sparse=False,
    near=False,
    searched=None,
):
    n_a, n_b = slots.count[a], slots.count[b]
    P = len(a)
    # without the set-level distance only pairs that can be matched are needed
    pairing, la, lb, oa, ob = _candidates(
        corpus, slots, a, b, sparse, tau, eligible=not sets, searched=searched
    )
    iou, pending, pending_bound = candidate_iou(corpus, oa, ob, tau, cache)
    # tie-break among equal IoU (e.g. disjoint shapes at tau = 0): prefer the nearer box;
    # the assignment reads the scores of eligible pairs only
    eligible = iou >= tau
    score = iou.copy()
    e = np.flatnonzero(eligible)
    score[e] += tiebreak(corpus, oa, ob, e)
    chosen = assign(pairing, la, lb, n_a, n_b, score, eligible)
    del score, e, eligible
    rows = np.flatnonzero(chosen)
    matched = np.bincount(pairing[rows], minlength=P)
    shapes = corpus.shapes
    out = dict(
        pair_pairing=pairing[rows],
        pair_a=oa[rows],
        pair_b=ob[rows],
        pair_iou=iou[rows],
        pair_distance=cached_values(
            corpus,
            cache,
            "distance",
            oa,
            ob,
            rows,
            lambda r: distance(shapes.take(oa[r]), shapes.take(ob[r]), known_iou=iou[r]),
        ),
        set_n_a=n_a,
        set_n_b=n_b,
        set_matched=matched,
    )
    if near:  # every candidate pair within the threshold, with the IoU computed above
        within = np.flatnonzero(iou >= tau)
        out["near"] = NearPairs(pairing[within], oa[within], ob[within], iou[within])
    with np.errstate(invalid="ignore", divide="ignore"):
        out["set_detection"] = np.where(n_a + n_b == 0, 0.0, 1 - 2 * matched / (n_a + n_b))
    if not sets:
        out["set_overall"] = np.full(P, np.nan)
        return out
    per = per_pairing(pairing, P)  # the candidates come by pairing: runs repeated
    key_a = np.repeat(run_starts(n_a), per) + la
    key_b = np.repeat(run_starts(n_b), per) + lb
    sizes = int(n_a.sum()), int(n_b.sum())

    def unlisted(ka, kb):
        # the objects with pairs left out of the keys ``ka``, ``kb`` of the pairs whose
        # similarity is known (the others' is 0: boxes apart, or not computed)
        return (
            np.bincount(ka, minlength=sizes[0]) < np.repeat(n_b, n_a),
            np.bincount(kb, minlength=sizes[1]) < np.repeat(n_a, n_b),
        )

    unlisted_a = unlisted_b = None
    boxes = corpus.boxes_only and not len(pending)  # (the unlisted objects: below)
    if not (distance.similarity is not None and distance.reuses_iou and boxes):
        unlisted_a, unlisted_b = unlisted(key_a, key_b)
    if distance.similarity is None:
        sim, higher = distance(shapes.take(oa), shapes.take(ob)), False
    elif distance.reuses_iou:
        # IoU-based similarities (IoU, GIoU floored at 0) never exceed IoU, and are 0
        # where it is 0. Matched pairs get theirs from their distance; another pair can
        # only change a best match if its IoU (or, pending, its IoU bound) beats the best
        # similarity one of its objects already has.
        sim, higher = np.zeros(len(iou)), True
        sim[rows] = distance.similar(
            shapes.take(oa[rows]),
            shapes.take(ob[rows]),
            known_iou=iou[rows],
            known_distance=out["pair_distance"],
        )
        live = iou > 0
        live &= ~chosen
        if boxes:
            # boxes: the similarity of each object's pair of largest IoU is a floor of its
            # best; a pair whose IoU is at most the floors of both its objects cannot
            # raise either best, the others are computed at once. The live pairs are
            # taken apart where they are few; where they are most, every pair is looked
            # at (those not live with -1 in place of their IoU) and the picks kept to the
            # live ones: no copy of them.
            over = np.flatnonzero(live) if 2 * np.count_nonzero(live) < len(live) else None
            if over is None:
                ka, kb, v = key_a, key_b, np.where(live, iou, -1.0)
            else:
                ka, kb, v = key_a[over], key_b[over], iou[over]
            top_a = _best(v, ka, sizes[0], True)
            top_b = _best(v, kb, sizes[1], True)
            first = v == top_a.take(ka)
            first |= v == top_b.take(kb)
            if over is None:
                first &= live
            top = np.flatnonzero(first) if over is None else over[first]
            sim[top] = distance.similar(
                shapes.take(oa[top]), shapes.take(ob[top]), known_iou=iou[top]
            )
            done = np.concatenate([rows, top])
            low_a = _best(sim[done], key_a[done], len(top_a), True)
            low_b = _best(sim[done], key_b[done], len(top_b), True)
            can = v > low_a.take(ka)
            can |= v > low_b.take(kb)
            if over is None:
                can &= live
            can &= ~first
            rest = np.flatnonzero(can) if over is None else over[can]
            del v, first, can, ka, kb
            sim[rest] = distance.similar(
                shapes.take(oa[rest]), shapes.take(ob[rest]), known_iou=iou[rest]
            )
            # the best of each object from the pairs computed, every other pair's
            # similarity being 0
            done = np.concatenate([done, rest])
            sim, key_a, key_b = sim[done], key_a[done], key_b[done]
            unlisted_a, unlisted_b = unlisted(key_a, key_b)
        else:
            _raise_best(
                corpus,
                distance,
                (oa, ob, iou, sim, cache),
                np.flatnonzero(live),
                (pending, pending_bound),
                (key_a, key_b),
                sizes,
                (unlisted_a, unlisted_b),
            )
    else:
        sim, higher = distance.similar(shapes.take(oa), shapes.take(ob)), True
    # best match of every object of either side (one group per object)
    best_a = _best(sim, key_a, sizes[0], higher, unlisted_a)
    best_b = _best(sim, key_b, sizes[1], higher, unlisted_b)
    out["set_overall"] = _set_distance(
        best_a,
        best_b,
        np.repeat(np.arange(P), n_a),
        np.repeat(np.arange(P), n_b),
        n_a,
        n_b,
        higher,
        overall,
    )
    return out


def candidate_count(
    corpus: Corpus, slots: Slices, a, b, *, tau: float, distance: Distance, sets: bool = True
) -> int:
    """Candidate object pairs :func:`run` lists for the pairings ``(a, b)``: every pair, or
    where boxes apart can be left out, about the pairs whose boxes overlap (the box index's
    count, :func:`~iaa_frames.geometry.box_index.sweep_cost`)."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    sparse = _sparse_ok(tau, distance, sets) and not (sets and has_own_similarity(corpus.shapes))
    return sum(cost for *_, cost in _chunked(corpus, slots, a, b, sparse, tau, not sets))


def run(
    corpus: Corpus,
    slots: Slices,
    a: np.ndarray,
    b: np.ndarray,
    *,
    tau: float,
    distance: Distance,
    overall: str = "pooled",
    sets: bool = True,
    cache: IoUCache | None = None,
    advance=None,
    near: bool = False,
) -> Matched:
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
    sets : bool, default True
        Compute the set-level distance (``set_overall``, NaN otherwise).
    cache : IoUCache, optional
        Exact polygon IoU shared with other runs over the same object pairs.
    advance : callable, optional
        Called with the number of candidate pairs done after each chunk.
    near : bool, default False
        Also return every candidate pair within the threshold.

    Returns
    -------
    Matched, or (Matched, NearPairs) with ``near``
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    sparse = _sparse_ok(tau, distance, sets)
    if sets and has_own_similarity(corpus.shapes):
        sparse = False  # their similarity is above 0 apart: best matches need every pair
    parts, nears = [], []
    for lo, hi, searched, _ in _chunked(corpus, slots, a, b, sparse, tau, not sets):
        part = _run_chunk(
            corpus,
            slots,
            a[lo:hi],
            b[lo:hi],
            tau,
            distance,
            overall,
            sets,
            cache,
            sparse,
            near,
            searched,
        )
        part["pair_pairing"] = part["pair_pairing"] + lo
        if near:
            n = part.pop("near")
            nears.append(NearPairs(n.pairing + lo, n.a, n.b, n.iou))
        parts.append(part)
        if advance is not None:
            advance(int((slots.count[a[lo:hi]] * slots.count[b[lo:hi]]).sum()))
    out = (
        Matched(**{k: np.concatenate([p[k] for p in parts]) for k in parts[0]})
        if parts
        else Matched.empty()
    )
    if not near:
        return out
    i, f = np.zeros(0, np.int64), np.zeros(0)
    cat = {
        k: np.concatenate([i if k != "iou" else f] + [getattr(n, k) for n in nears])
        for k in ("pairing", "a", "b", "iou")
    }
    return out, NearPairs(**cat)
