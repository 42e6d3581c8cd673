"""The chance pairings that can produce a matched pair at a threshold, found from an
index of normalized boxes and the IoU upper bound, without matching anything."""

from __future__ import annotations

import numpy as np
import shapely

from iaa_frames.arrays import sorted_unique, stable_argsort
from iaa_frames.core.matching.assignment import pairs_within_runs, run_starts
from iaa_frames.core.matching.corpus import Corpus
from iaa_frames.core.matching.pipeline import iou_upper_bound
from iaa_frames.geometry.kind_similarity import has_own_similarity, reach_boxes
from iaa_frames.geometry.mask_rule import MASK_IOU_MIN_COORDINATES
from iaa_frames.progress import QUIET, Bars

from .population import pairing_key

#: Most object pairs overlapping in x that the sweep of the chance index looks at; past
#: it, an R-tree lists the pairs that overlap in x and y (the same pairs, found faster
#: where boxes share x ranges: 10,000 boxes of a crowd overlap 7.2M times in x and about
#: 1.0M times in both, 1.3 s in the sweep and 0.14 s in the tree).
OBJECT_PAIR_BUDGET = 1_000_000
#: Most object pairs the sweep looks at when the R-tree cannot hold the boxes (one is
#: not finite); past it, pairings are drawn and tested instead.
SWEEP_LIMIT = 20_000_000
#: Most object pairs overlapping in x and y that the R-tree index looks at (they cost a
#: few numpy operations each, in blocks of bounded memory; drawing pairings instead
#: costs far more in a crowd, where per-annotator strata need many draws per unit) ...
TREE_PAIR_BUDGET = 200_000_000
#: ... and at most :data:`TREE_PAIRS_PER_OBJECT` per object or
#: :data:`TREE_PAIRS_PER_ANNOTATOR` per annotator (:data:`TREE_PAIR_FLOOR` at least),
#: whichever is more. Boxes normalized by their images overlap those of every other
#: image: with a few annotators drawing pairings is cheaper (20,000 boxes of 5
#: annotators: 12 s in the tree, 3.7 s drawing; 1M boxes: over 16 GB in the tree). In a
#: crowd, every annotator's stratum needs draws of its own, and drawing them costs the
#: square of the objects (20,000 workers: 3 GB at once), while the tree lists 420
#: overlaps per object.
TREE_PAIRS_PER_OBJECT = 200
TREE_PAIRS_PER_ANNOTATOR = 20_000
TREE_PAIR_FLOOR = 2_000_000
#: Objects whose overlaps are counted, before the tree is built, to estimate them all
#: (at most TREE_SAMPLE_PAIRS of each one's x overlaps are looked at).
TREE_SAMPLE = 256
TREE_SAMPLE_PAIRS = 2_000
#: Object pairs listed at once (the memory of one block of queries).
TREE_BLOCK_PAIRS = 4_000_000
#: Every how many sorted boxes the sweep first counts the x overlaps of, to see whether
#: their sum is past :data:`OBJECT_PAIR_BUDGET` without counting them all.
_PROBE_STEP = 64


def _reachable_keys(corpus, oi, oj, tau, n_slots):
    """Of candidate object pairs, those whose IoU bound reaches ``tau``: the keys of their
    pairings, and (class * n_slots**2 + key) of the pairs of two objects of one class."""
    reach = iou_upper_bound(corpus, oi, oj) >= tau
    oi, oj = oi[reach], oj[reach]
    key = pairing_key(
        corpus.annotation_of(corpus.item[oi], corpus.annotator[oi]),
        corpus.annotation_of(corpus.item[oj], corpus.annotator[oj]),
        n_slots,
    )
    same = corpus.label[oi] == corpus.label[oj]
    return key, corpus.label[oi][same] * n_slots**2 + key[same]


def gated_pairings(corpus: Corpus, tau: float, *, bars: Bars = QUIET):
    """Every chance pairing that can produce a matched pair at ``tau`` > 0, from an index
    of the objects' normalized boxes: a sweep along x lists the object pairs whose boxes
    overlap in x (groups of items and annotators different), and the IoU bound of
    :func:`iaa_frames.core.matching.pipeline.iou_upper_bound` keeps those that can reach ``tau``.
    The cost grows with the pairs that overlap, not with the pairings. Past
    :data:`OBJECT_PAIR_BUDGET` overlaps in x, the pairs that overlap in x and y come
    from an R-tree (the same pairs, found faster), unless their estimate
    (:func:`_overlaps_estimate`) passes the tree's budget (:func:`_tree_budget`): then
    None, and pairings are drawn and tested instead.
    ``bars``: the "chance index" progress bar (over the object pairs the sweep looks
    at, or the objects queried in the tree).

    Returns
    -------
    key : ndarray
        Distinct pairing keys (:func:`pairing_key`) that can produce a matched pair.
    label, label_key : ndarray
        (class, pairing key) for the pairings that can produce a matched pair of two
        objects of that class.
    """
    slots = corpus.annotations
    n_slots = slots.empty + 1
    box = reach_boxes(corpus.shapes, tau)
    order = stable_argsort(box[:, 0])
    x0, x1 = box[:, 0][order], box[:, 2][order]  # a column's gather: faster than box[order, 0]

    def later_at(pos):  # boxes after each sorted position that start before it ends
        return np.maximum(np.searchsorted(x0, x1[pos], side="left") - pos - 1, 0)

    # a part of the sum over the boxes is a lower bound of it: past the budget already,
    # the rest is never computed (boxes normalized by their images overlap by the billion)
    over = int(later_at(np.arange(0, len(order), _PROBE_STEP)).sum()) > OBJECT_PAIR_BUDGET
    later = None if over else later_at(np.arange(len(order)))
    if (over or later.sum() > OBJECT_PAIR_BUDGET) and np.isfinite(box).all():
        # many boxes share x ranges (a crowd of thousands of annotations, or boxes
        # normalized by their images): list the pairs whose boxes overlap in x and y
        # from an R-tree instead, the same pairs
        overlaps = _overlaps_estimate(box, order, later_at if later is None else later)
        if overlaps > _tree_budget(corpus, len(box)):  # pairings are drawn instead
            return _give_up(bars.bar(total=len(box), desc="chance index", unit="objects"))
        return _gated_by_tree(corpus, tau, bars, overlaps=overlaps)
    if later is None:
        later = later_at(np.arange(len(order)))
    if later.sum() > SWEEP_LIMIT:  # a box the tree cannot hold, and too many pairs
        return None
    keys, label_keys = [], []
    bar = bars.bar(total=later.sum(), desc="chance index", unit="pairs", unit_scale=True)
    first = run_starts(later)
    step = 4_000_000
    bounds = np.searchsorted(np.cumsum(later), np.arange(step, later.sum() + step, step))
    lo = 0
    for hi in np.unique(np.r_[bounds + 1, len(order)]).clip(max=len(order)):
        if hi <= lo:
            continue
        n = later[lo:hi]
        i = np.repeat(np.arange(lo, hi), n)
        j = i + 1 + np.arange(len(i)) - (first[lo:hi] - first[lo])[i - lo]
        oi, oj = order[i], order[j]
        ok = (
            (corpus.group_of_item(corpus.item[oi]) != corpus.group_of_item(corpus.item[oj]))
            & (corpus.annotator[oi] != corpus.annotator[oj])
            & (np.minimum(box[oi, 3], box[oj, 3]) > np.maximum(box[oi, 1], box[oj, 1]))
        )
        key, label_key = _reachable_keys(corpus, oi[ok], oj[ok], tau, n_slots)
        keys.append(key)
        label_keys.append(label_key)
        bar.update(int(n.sum()))
        lo = hi
    bar.close()
    key = sorted_unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    lk = sorted_unique(np.concatenate(label_keys)) if label_keys else np.zeros(0, np.int64)
    return key, lk // n_slots**2, lk % n_slots**2


def _tree_budget(corpus: Corpus, n: int) -> int:
    """The most object pairs the R-tree index looks at (:data:`TREE_PAIR_BUDGET`)."""
    per_corpus = TREE_PAIRS_PER_OBJECT * n, TREE_PAIRS_PER_ANNOTATOR * len(corpus.annotators)
    return min(TREE_PAIR_BUDGET, max(TREE_PAIR_FLOOR, *per_corpus))


def _overlaps_estimate(box, order, later) -> float:
    """The number of object pairs whose boxes overlap in x and y, estimated from the
    sweep's x overlaps of :data:`TREE_SAMPLE` objects spread along x (at most
    :data:`TREE_SAMPLE_PAIRS` of each object's, evenly spaced): no tree is built for a
    corpus the index gives up on. ``later``: the x overlaps of every sorted position, or
    a function giving those of some positions."""
    n = len(order)
    pos = sorted_unique(np.linspace(0, n - 1, min(n, TREE_SAMPLE)).astype(np.int64))
    count = later(pos) if callable(later) else later[pos]
    take = np.minimum(count, TREE_SAMPLE_PAIRS)
    owner = np.repeat(np.arange(len(pos)), take)
    k = np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take)
    j = pos[owner] + 1 + (k * count[owner] // np.maximum(take[owner], 1))
    oi, oj = order[pos[owner]], order[j]
    meet = np.minimum(box[oi, 3], box[oj, 3]) > np.maximum(box[oi, 1], box[oj, 1])
    share = np.bincount(owner, weights=meet, minlength=len(pos)) / np.maximum(take, 1)
    return float((share * count).mean() * n) if len(pos) else 0.0


def _gated_by_tree(corpus: Corpus, tau: float, bars: Bars = QUIET, *, overlaps=None):
    """:func:`gated_pairings` from R-trees of the boxes (:class:`shapely.STRtree`),
    queried in blocks: the object pairs whose boxes overlap in x and y and whose areas
    allow the IoU bound to reach ``tau`` (:func:`_area_classes`), then the same tests as
    the sweep. None when more of these pairs overlap than the budget
    (:data:`TREE_PAIR_BUDGET`; per object and per annotator), or when a box is not
    finite (the tree cannot hold it). ``overlaps``: the estimate of the pairs whose boxes
    overlap (:func:`_overlaps_estimate`), which sizes the blocks of queries."""
    slots = corpus.annotations
    n_slots = slots.empty + 1
    box = reach_boxes(corpus.shapes, tau)
    if not len(box) or not np.isfinite(box).all():
        return None
    n = len(box)
    geoms = shapely.box(box[:, 0], box[:, 1], box[:, 2], box[:, 3])
    budget = _tree_budget(corpus, n)
    members = _area_classes(corpus, tau)
    bar = bars.bar(total=n, desc="chance index", unit="objects", unit_scale=True)
    keys, label_keys, seen = [], [], 0
    per_object = 1.0 + 2.0 * (overlaps or 0.0) / n  # queries return both ways and itself
    step = int(np.clip(TREE_BLOCK_PAIRS // per_object, 1, 4096))
    # per object, once: its annotator, its group and its box's sides as contiguous
    # columns (``take`` of a column is several times faster than ``box[oi, c]``)
    annotator, group = corpus.annotator, corpus.group_of_item(corpus.item)
    x0, y0, x1, y1 = (np.ascontiguousarray(box[:, c]) for c in range(4))
    for oi, oj, queried in _tree_pairs(geoms, members, step):
        seen += len(oi)
        if seen > budget:  # the estimate was low: pairings are drawn instead
            return _give_up(bar)
        # the cheapest test first (the pairs of one annotator go, half of them with two),
        # then on the pairs left the others; the pairs kept are the same in any order
        ok = annotator.take(oi) != annotator.take(oj)
        oi, oj = oi[ok], oj[ok]
        ok = group.take(oi) != group.take(oj)
        ok &= np.minimum(x1.take(oi), x1.take(oj)) > np.maximum(x0.take(oi), x0.take(oj))
        ok &= np.minimum(y1.take(oi), y1.take(oj)) > np.maximum(y0.take(oi), y0.take(oj))
        key, label_key = _reachable_keys(corpus, oi[ok], oj[ok], tau, n_slots)
        keys.append(key)
        label_keys.append(label_key)
        bar.update(queried)
    bar.close()
    key = sorted_unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    lk = sorted_unique(np.concatenate(label_keys)) if label_keys else np.zeros(0, np.int64)
    return key, lk // n_slots**2, lk % n_slots**2


def _area_classes(corpus: Corpus, tau: float) -> list:
    """The objects in classes of area, and for each class the classes its objects are
    compared with: ``[(objects, [objects of each class compared with]), ...]``, each
    pair of classes once (a class with itself, with the next class of area, and with the
    open class; the open class with itself).

    The IoU bound of a pair (:func:`~iaa_frames.core.matching.pipeline.iou_upper_bound`) is
    ``min(I, A, B) / (A + B - min(I, A, B)) <= min(A, B) / max(A, B)`` (``A``, ``B`` the
    objects' areas): it reaches ``tau`` only where the areas' logarithms are at most
    ``log(1 / tau)`` apart, hence in the same class of width above that, or in two
    consecutive ones. Open (compared with every object): objects of no finite positive
    area, and those with more than half of
    :data:`~iaa_frames.geometry.mask_rule.MASK_IOU_MIN_COORDINATES` coordinates, whose
    pairs may get the mask IoU's bound, which rasterization can put above the areas'
    ratio (a pair gets it only when its two shapes together have more than that many
    coordinates, so one of them has more than half). Kinds with a similarity of their
    own (keypoints' OKS) are not bounded by their areas: one open class then.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from iaa_frames.geometry.distances import Shapes
    >>> boxes = [[0, 0, 1, 1], [0, 0, 1.2, 1], [0, 0, 9, 9]]  # areas 1, 1.2 and 81
    >>> c = SimpleNamespace(shapes=Shapes(boxes, None), area=np.array([1.0, 1.2, 81.0]))
    >>> [(m.tolist(), [t.tolist() for t in ts]) for m, ts in _area_classes(c, 0.5)]
    [([0, 1], [[0, 1]]), ([2], [[2]])]
    """
    n = len(corpus.area)
    everyone = np.arange(n)
    if has_own_similarity(corpus.shapes):
        return [(everyone, [everyone])]
    area = np.asarray(corpus.area, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        sized = np.isfinite(area) & (area > 0)
    sized &= 2 * corpus.shapes.n_coords() <= MASK_IOU_MIN_COORDINATES
    # classes a little wider than log(1 / tau) (the rounding of the bound and of the
    # logarithms is far below the margin), and no narrower than a factor of 2
    width = max(np.log(1.0 / tau) * (1.0 + 1e-6), np.log(2.0))
    cls = np.full(n, np.iinfo(np.int64).min)
    cls[sized] = np.floor(np.log(area[sized]) / width).astype(np.int64)
    order = stable_argsort(cls)
    values, start = np.unique(cls[order], return_index=True)
    groups = np.split(order, start[1:])
    opened = groups.pop(0) if not sized.all() else None
    values = values[1:] if opened is not None else values
    out = []
    for k, members in enumerate(groups):
        others = [members]
        if k + 1 < len(groups) and values[k + 1] == values[k] + 1:
            others.append(groups[k + 1])
        if opened is not None:
            others.append(opened)
        out.append((members, others))
    if opened is not None:
        out.append((opened, [opened]))
    return out


def _tree_pairs(geoms, members, step: int):
    """The pairs ``(oi, oj)``, ``oi < oj``, of objects whose boxes ``geoms`` meet, from
    the classes of :func:`_area_classes`: an R-tree per class, each class's objects
    queried ``step`` at a time in the trees of the classes it is compared with, every
    pair once; with the number of objects each block queried in their own class's tree
    (each object counted once, for the progress bar)."""
    trees: dict = {}
    for members_q, targets in members:
        for target in targets:
            key = id(target)
            if key not in trees:
                trees[key] = shapely.STRtree(geoms[target])
            same = target is members_q  # a class with itself: both ways round, and itself
            for lo in range(0, len(members_q), step):
                queries = members_q[lo : lo + step]
                q, t = trees[key].query(geoms[queries])  # bounding boxes that meet
                q, t = queries[q], target[t]
                if same:
                    ok = q < t
                    q, t = q[ok], t[ok]
                yield np.minimum(q, t), np.maximum(q, t), len(queries) if same else 0


def _give_up(bar) -> None:
    """End the chance index's bar at its total, saying why: pairings are drawn instead."""
    bar.set_postfix_str("too many overlaps: pairings are drawn instead", refresh=False)
    bar.update(bar.total - bar.n)
    bar.close()


def reachable_label_pairings(corpus, labels, tau):
    """Every pairing that can produce a matched pair of two objects of class ``l``, for
    each class in ``labels``, from all pairs of the class's objects and their IoU bound.

    Returns (class, a, b) with a < b, distinct per class.
    """
    slots = corpus.annotations
    n_slots = slots.empty + 1
    objects = np.flatnonzero(np.isin(corpus.label, labels))
    objects = objects[np.argsort(corpus.label[objects], kind="stable")]
    parts = []
    i, j = pairs_within_runs(corpus.label[objects])
    for lo in range(0, len(i), 4_000_000):  # bounded memory
        oi, oj = objects[i[lo : lo + 4_000_000]], objects[j[lo : lo + 4_000_000]]
        parts.append(class_pairing_keys(corpus, oi, oj, tau, n_slots))
    key = sorted_unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
    label, pair = key // n_slots**2, key % n_slots**2
    return label, pair // n_slots, pair % n_slots


def class_pairing_keys(corpus, oi, oj, tau, n_slots: int) -> np.ndarray:
    """Of the pairs ``(oi, oj)`` of two objects of one class, those of a chance pairing
    (items of different groups, annotators different) whose IoU bound reaches ``tau``:
    ``class * n_slots**2 + key``, ``key`` that of their pairing (:func:`pairing_key`),
    with repeats."""
    ok = (corpus.group_of_item(corpus.item[oi]) != corpus.group_of_item(corpus.item[oj])) & (
        corpus.annotator[oi] != corpus.annotator[oj]
    )
    oi, oj = oi[ok], oj[ok]
    keep = iou_upper_bound(corpus, oi, oj) >= tau
    oi, oj = oi[keep], oj[keep]
    sa = corpus.annotation_of(corpus.item[oi], corpus.annotator[oi])
    sb = corpus.annotation_of(corpus.item[oj], corpus.annotator[oj])
    return corpus.label[oi] * n_slots**2 + pairing_key(sa, sb, n_slots)
