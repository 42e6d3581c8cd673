"""A cheap test that rules out most chance pairings of boxes before the IoU bound of
their object pairs is computed (:func:`iaa_frames.core.matching.pipeline.can_match`).

Two boxes whose IoU reaches ``tau`` have close centers: the IoU of two boxes is at most
that of their x (and of their y) intervals, and two intervals of lengths ``w_a``, ``w_b``
whose IoU reaches ``tau`` have centers at most ``k (w_a + w_b)`` apart, ``k = (1 - tau) /
(2 (1 + tau))`` (their intersection is at least ``tau (w_a + w_b) / (1 + tau)`` and at
most ``(w_a + w_b) / 2`` less that distance). So each box's *reach box*, its center
grown by ``k`` times its width and height, overlaps the other's. A pairing can match
only where a reach box of one side overlaps one of the other: :class:`ReachGrid` keeps,
per annotation, the cells of a 16 x 16 grid its reach boxes touch, and a pairing whose
two annotations share no cell cannot match. The others are tested as before, so the
result is the same (1M boxes: about one pairing in five is left to test).

The IoU the pipeline computes from the corners is that of the corners within a few
units of rounding (every difference is of two corners, every other operation a product,
a quotient or a sum of positive terms), so the reach boxes are grown by a relative
margin far above rounding. Boxes too small, too large or not finite to be sure of it
(and corpora with other shapes) are not ruled out.

The same reach boxes list, per class, the chance pairings that can match two objects of
the class (:func:`reach_pairings`): an R-tree of the reach boxes gives the object pairs
whose reach boxes overlap, far fewer than those whose boxes overlap (88k boxes, 10 per
image, 20 classes: 1.6M of the classes' 446M object pairs at ``tau = 0.5``, against 13M
whose boxes overlap), and the IoU bound keeps those that reach ``tau``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from iaa_frames.arrays import sorted_unique, stable_argsort
from iaa_frames.core.matching.corpus import Corpus, Slices

from .gating import class_pairing_keys

#: Cells along each axis of the grid (16 x 16 cells: four 64-bit words per annotation).
GRID = 16
#: Relative margin of the reach boxes, far above the rounding of the pipeline's IoU.
MARGIN = 1e-9
#: Pairings tested at once (bounded temporaries).
BLOCK = 262_144
#: Below this threshold the prefilter is not used (a bound so close to 0 says little).
MIN_TAU = 1e-3


@dataclass(frozen=True, eq=False)
class ReachGrid:
    """Per slot, the cells of a :data:`GRID` x :data:`GRID` grid its objects' reach boxes
    touch, as ``GRID * GRID / 64`` 64-bit words (all bits set for a slot holding a box
    that cannot be ruled out, none for an empty slot).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> c = prepare(iaf.simulate(n_items=4, seed=0))
    >>> grid = ReachGrid.of(c, c.annotations, 0.5)
    >>> bool(grid.may_match(np.array([0]), np.array([0]))[0])
    True
    """

    cells: np.ndarray  # (n_slots, words) uint64

    @classmethod
    def of(cls, corpus: Corpus, slots: Slices, tau: float, objects=None) -> ReachGrid | None:
        """The grid of ``slots`` (slices of ``corpus``'s objects) at ``tau``; None where the
        test does not apply (:func:`object_cells` None). ``objects``: the
        :func:`object_cells` of the corpus at ``tau``, when known."""
        cells = object_cells(corpus, tau) if objects is None else objects
        if cells is None:
            return None
        start, count = np.asarray(slots.start), np.asarray(slots.count)
        out = np.zeros((len(count), cells.shape[1]), dtype=np.uint64)
        full = np.flatnonzero(count > 0)
        if not full.size:
            return cls(out)
        first, stop = start[full], start[full] + count[full]
        if first[0] == 0 and (first[1:] == stop[:-1]).all():
            # slots that tile the objects in order (annotations, class slots): one
            # reduction over each slot's run
            out[full] = np.bitwise_or.reduceat(cells[: stop[-1]], first, axis=0)
        else:
            owner = np.repeat(full, count[full])
            at = (
                np.repeat(first, count[full])
                + np.arange(len(owner))
                - np.repeat(np.cumsum(count[full]) - count[full], count[full])
            )
            for w in range(cells.shape[1]):
                np.bitwise_or.at(out[:, w], owner, cells[at, w])
        return cls(out)

    def may_match(self, a, b) -> np.ndarray:
        """False for the pairings (a[i], b[i]) of slots that cannot produce a matched pair:
        their slots share no cell."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        out = np.empty(len(a), dtype=bool)
        for lo in range(0, len(a), BLOCK):
            hi = lo + BLOCK
            both = np.take(self.cells, a[lo:hi], axis=0)
            both &= np.take(self.cells, b[lo:hi], axis=0)
            any_bit = both[:, 0].copy()  # the words OR-ed in turn: faster than any(axis=1)
            for w in range(1, both.shape[1]):
                any_bit |= both[:, w]
            np.not_equal(any_bit, 0, out=out[lo:hi])
        return out


def object_cells(corpus: Corpus, tau: float) -> np.ndarray | None:
    """Per object of ``corpus``, the cells of the grid its reach box at ``tau`` touches
    (every cell for a box that cannot be placed, :func:`reach_boxes`), as
    ``GRID * GRID / 64`` 64-bit words of ``64 / GRID`` rows each; None where the test
    does not apply: shapes other than plain boxes, ``tau`` under :data:`MIN_TAU`, or no
    box that can be placed.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> c = prepare(iaf.simulate(n_items=4, seed=0))
    >>> cells = object_cells(c, 0.5)
    >>> cells.shape == (len(c.objects), 4), bool((cells != 0).any(axis=1).all())
    (True, True)
    """
    shapes = corpus.shapes
    if not (tau >= MIN_TAU) or not corpus.boxes_only or shapes.params:
        return None
    lo_x, hi_x, lo_y, hi_y, sure = reach_boxes(shapes.boxes, tau)
    if not sure.any():
        return None
    origin = min(lo_x[sure].min(), lo_y[sure].min())
    extent = max(hi_x[sure].max(), hi_y[sure].max()) - origin
    if not (np.isfinite(extent) and extent > 0):
        return None
    scale = GRID / extent

    def cell(v):  # monotone in v: overlapping intervals share a cell
        with np.errstate(invalid="ignore"):
            c = v - origin
            c *= scale
            np.floor(c, out=c)
            np.clip(c, 0, GRID - 1, out=c)
            if not sure.all():  # boxes not sure: every cell, set below
                c[~sure] = 0
            return c.astype(np.int64)

    x0, x1, y0, y1 = cell(lo_x), cell(hi_x), cell(lo_y), cell(hi_y)
    x_bits = (np.uint64(2) << x1.astype(np.uint64)) - (np.uint64(1) << x0.astype(np.uint64))
    per_word = 64 // GRID
    # copies of a row's bits in rows lo..hi of a word: x_bits times the sum of 2^(GRID k)
    # over those rows (no carry: x_bits < 2^GRID); 0 where lo > hi
    spread = np.zeros((per_word + 1, per_word + 1), dtype=np.uint64)
    for lo in range(per_word):
        for hi in range(lo, per_word):
            spread[lo, hi + 1] = sum(1 << (GRID * k) for k in range(lo, hi + 1))
    out = np.empty((len(x0), GRID // per_word), dtype=np.uint64)
    for w in range(GRID // per_word):  # the rows of cells of each box, word by word
        lo = np.clip(y0 - w * per_word, 0, per_word)
        hi = np.clip(y1 - w * per_word + 1, 0, per_word)
        np.multiply(x_bits, spread[lo, hi], out=out[:, w])
    out[~sure] = ~np.uint64(0)
    return out


def reach_boxes(boxes: np.ndarray, tau: float):
    """The reach boxes of ``boxes`` (rows ``x0, y0, x1, y1``) at ``tau`` (see the module
    notes), as ``lo_x, hi_x, lo_y, hi_y``, and ``sure``: whether the box's IoU as the
    pipeline computes it is sure to be within rounding of its true IoU (finite corners,
    sides between 1e-150 and 1e150; elsewhere the reach box is not to be used).

    Examples
    --------
    >>> lo_x, hi_x, lo_y, hi_y, sure = reach_boxes(np.array([[0.0, 0.0, 6.0, 3.0]]), 0.5)
    >>> [round(float(v), 6) for v in (lo_x[0], hi_x[0], lo_y[0], hi_y[0])], bool(sure[0])
    ([2.0, 4.0, 1.0, 2.0], True)
    """
    tau = float(tau) * (1 - MARGIN)
    k = max((1 - tau) / (2 * (1 + tau)), 0.0)
    x0, y0, x1, y1 = (np.ascontiguousarray(boxes[:, i]) for i in range(4))
    with np.errstate(invalid="ignore", over="ignore"):
        w, h = x1 - x0, y1 - y0
        # NaN fails every comparison; a side within (1e-150, 1e150) of corners under
        # 1e150 keeps every product of the IoU normal
        sure = (w > 1e-150) & (h > 1e-150) & (w < 1e150) & (h < 1e150)
        for v in (x0, y0, x1, y1):
            sure &= np.abs(v) < 1e150
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        rx = k * w * (1 + MARGIN) + MARGIN * (np.abs(cx) + w)
        ry = k * h * (1 + MARGIN) + MARGIN * (np.abs(cy) + h)
        return cx - rx, cx + rx, cy - ry, cy + ry, sure


#: Objects queried at once in :func:`reach_pairings` (bounded temporaries).
QUERY_BLOCK = 4096
#: Boxes of each class sampled to estimate its pairs (:func:`_overlaps_estimate`), and
#: at most how many of each one's overlaps in x are looked at.
ESTIMATE_SAMPLE = 128
ESTIMATE_PARTNERS = 1000
#: Most boxes of a class among which its pairs are estimated (the sort of them all costs
#: more than the estimate needs).
ESTIMATE_OBJECTS = 20_000
#: A class is abandoned when its object pairs pass this many times its budget (the
#: estimate is from a sample of its boxes: overlaps gathered in a few boxes escape it).
OVERRUN = 4


def reach_pairings(corpus: Corpus, labels, tau: float, budget):
    """Per class of ``labels``: every chance pairing that can produce a matched pair of
    two objects of the class, listed from the objects' reach boxes (see the module
    notes) where their pairs are few enough.

    The same pairings as :func:`~iaa_frames.core.chance.gating.reachable_label_pairings` (its
    pairs of objects of one class, items of different groups, annotators different, IoU
    bound at least ``tau``), found among the object pairs whose reach boxes overlap
    instead of all pairs. A class is listed when its objects are all boxes sure of
    their reach box (:func:`reach_boxes`) and its object pairs with overlapping reach
    boxes, estimated from a sample of its boxes, are at most ``budget[class]``;
    while listing, a class whose pairs pass :data:`OVERRUN` times that is left out.

    Parameters
    ----------
    corpus : Corpus
    labels : ndarray of int
        Class codes.
    tau : float
    budget : ndarray
        Most object pairs to look at, per class code.

    Returns
    -------
    label, a, b : ndarray of int64
        The pairings (a < b) of each listed class, ordered by class then pairing key
        (:func:`~iaa_frames.core.chance.population.pairing_key`), each once.
    listed : ndarray of bool
        Per class code, whether it was listed.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> c = prepare(iaf.simulate(n_items=30, seed=0))
    >>> lab, a, b, listed = reach_pairings(c, np.arange(len(c.labels)), 0.5,
    ...                                    np.full(len(c.labels), 10**6))
    >>> bool(listed.all()), bool((a < b).all())
    (True, True)
    """
    n_labels = len(corpus.labels)
    listed = np.zeros(n_labels, dtype=bool)
    z = np.zeros(0, dtype=np.int64)
    labels = np.asarray(labels, dtype=np.int64)
    if not (tau >= MIN_TAU) or not corpus.boxes_only or corpus.shapes.params or not len(labels):
        return z, z, z, listed
    lo_x, hi_x, lo_y, hi_y, sure = reach_boxes(corpus.shapes.boxes, tau)
    wanted = np.zeros(n_labels, dtype=bool)
    wanted[labels] = True
    unsure = np.bincount(corpus.label[~sure], minlength=n_labels) > 0
    objects = np.flatnonzero(wanted[corpus.label] & ~unsure[corpus.label])
    if not len(objects):
        return z, z, z, listed
    objects = objects[stable_argsort(corpus.label[objects])]
    label = corpus.label[objects]
    lx, hx, ly, hy = lo_x[objects], hi_x[objects], lo_y[objects], hi_y[objects]
    # for the estimate, the classes side by side (apart by more than every reach box's
    # extent: the boxes of two classes never meet)
    span = float(max(hx.max() - lx.min(), hy.max() - ly.min())) * 2.0 + 1.0
    estimate = _overlaps_estimate(label, (lx, hx), (ly, hy), span, n_labels)
    budget = np.broadcast_to(np.asarray(budget, dtype=np.float64), (n_labels,))
    n_slots = corpus.annotations.empty + 1
    first = np.searchsorted(label, np.arange(n_labels + 1))
    parts = []
    for c in np.flatnonzero(wanted & (estimate <= budget) & (first[1:] > first[:-1])):
        # a loop over the classes listed (the strata ask for those of more than about a
        # thousand objects: the others are compared in full), a tree of each one's reach
        # boxes
        lo, hi = first[c], first[c + 1]
        geoms = shapely.box(lx[lo:hi], ly[lo:hi], hx[lo:hi], hy[lo:hi])  # the class's alone
        pairs = _class_pairs(geoms, OVERRUN * budget[c])
        if pairs is None:
            continue  # more pairs than the estimate said: drawn instead
        listed[c] = True
        oi, oj = objects[lo + pairs[0]], objects[lo + pairs[1]]
        parts.append(sorted_unique(class_pairing_keys(corpus, oi, oj, tau, n_slots)))
    key = np.concatenate(parts) if parts else z  # classes in order, each sorted
    pair = key % n_slots**2
    return key // n_slots**2, pair // n_slots, pair % n_slots, listed


def _class_pairs(geoms, most: float):
    """The pairs ``(i, j)``, ``i < j``, of the boxes ``geoms`` that meet, from an R-tree
    of them queried :data:`QUERY_BLOCK` at a time; None once more than ``most`` are
    found."""
    tree = shapely.STRtree(geoms)
    out_i, out_j, found = [], [], 0
    for start in range(0, len(geoms), QUERY_BLOCK):
        q, t = tree.query(geoms[start : start + QUERY_BLOCK])
        q += start
        ok = q < t  # each pair once: the tree gives both ways round, and each box itself
        found += int(ok.sum())
        if found > most:
            return None
        out_i.append(q[ok])
        out_j.append(t[ok])
    return np.concatenate(out_i), np.concatenate(out_j)


def _overlaps_estimate(label, x, y, span: float, n_labels: int) -> np.ndarray:
    """Per class code, the pairs of its boxes that meet, estimated from a sample of
    :data:`ESTIMATE_SAMPLE` boxes of each class spread along x: the boxes after each in
    order of x that start before it ends (counted exactly, by binary search), and the
    share of them that meet it in y (of at most :data:`ESTIMATE_PARTNERS` evenly spaced).
    A class of more than :data:`ESTIMATE_OBJECTS` boxes is estimated among that many of
    them (evenly spaced in its run), its count scaled by the ratio of their pairs.
    ``label``: ascending; ``x``, ``y``: the boxes' (low, high) sides; ``span``: more than
    any box's extent (the classes are set apart along x by it, so that each is a run of
    the order)."""
    n = np.bincount(label, minlength=n_labels)
    m = np.minimum(n, ESTIMATE_OBJECTS)
    scale = np.ones(n_labels)
    if (m < n).any():  # a subsample of the large classes (1M boxes: 0.15 -> 0.07 s)
        first = np.searchsorted(label, np.arange(n_labels))
        cls = np.repeat(np.arange(n_labels), m)
        k = np.arange(len(cls)) - np.repeat(np.cumsum(m) - m, m)
        kept = first[cls] + (k * n[cls]) // np.maximum(m[cls], 1)
        label, x, y = label[kept], (x[0][kept], x[1][kept]), (y[0][kept], y[1][kept])
        scale = np.where(m > 1, n * (n - 1.0) / np.maximum(m * (m - 1.0), 1.0), 1.0)
    return _sample_estimate(label, x, y, span, n_labels) * scale


def _sample_estimate(label, x, y, span: float, n_labels: int) -> np.ndarray:
    """:func:`_overlaps_estimate` of every box given."""
    lo, hi = x[0] + label * span, x[1] + label * span
    order = np.argsort(lo, kind="stable")
    start, stop = lo[order], hi[order]
    y_lo, y_hi, lab = y[0][order], y[1][order], label[order]
    first = np.searchsorted(lab, np.arange(n_labels + 1))
    n = np.diff(first)
    take = np.minimum(n, ESTIMATE_SAMPLE)
    # the sampled positions: evenly spaced in each class's run
    cls = np.repeat(np.arange(n_labels), take)
    k = np.arange(len(cls)) - np.repeat(np.cumsum(take) - take, take)
    pos = first[cls] + (k * n[cls]) // np.maximum(take[cls], 1)
    later = np.searchsorted(start, stop[pos], side="right") - pos - 1
    later = np.maximum(later, 0)
    look = np.minimum(later, ESTIMATE_PARTNERS)
    owner = np.repeat(np.arange(len(pos)), look)
    j = np.arange(len(owner)) - np.repeat(np.cumsum(look) - look, look)
    j = pos[owner] + 1 + (j * later[owner]) // np.maximum(look[owner], 1)
    meet = np.minimum(y_hi[pos[owner]], y_hi[j]) >= np.maximum(y_lo[pos[owner]], y_lo[j])
    share = np.bincount(owner, weights=meet, minlength=len(pos)) / np.maximum(look, 1)
    per_box = np.bincount(cls, weights=share * later, minlength=n_labels)
    return per_box / np.maximum(take, 1) * n
