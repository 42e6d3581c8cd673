"""Chance populations: budgets and targets, pairing keys, the uniform population U, and
the pools of annotations (per annotator, per class) that narrower strata draw from."""

from __future__ import annotations

import numpy as np

from iaa_frames.arrays import sorted_unique
from iaa_frames.core.matching.assignment import run_starts
from iaa_frames.core.matching.corpus import Corpus, Slices, box_fingerprint

#: Most chance units a stratum aims at (``n_chance``; see the package notes).
DEFAULT_N_CHANCE = 2000
#: Fewest chance units a narrower stratum aims at (see the package notes).
MIN_TARGET = 200
#: Largest number of pairings of U that is enumerated instead of sampled.
EXACT_PAIRINGS = 20_000
#: Largest number of candidate object pairs an enumerated population may cost to match.
EXACT_WORK = 500_000
#: Most pairings drawn in all the annotator-pair strata together (pairwise cells).
PAIR_BUDGET = 50_000
#: Fewest distinct chance units for which a cell's sigma is reported (a class's own
#: localization cell: :data:`iaa_frames.core.chance.pooled.MIN_OWN_CHANCE_UNITS`).
MIN_CHANCE_UNITS = 30

# kinds of strata: the random stream of each is keyed by (seed, kind, content)
SETS_UNIFORM, SETS_ANNOTATOR, SETS_PAIR, SETS_LABEL = 1, 2, 3, 4
LOC_UNIFORM, LOC_ANNOTATOR, LOC_LABEL = 5, 6, 7


def stratum_cap(target):
    """Most pairings drawn for a stratum of the given target (array or number)."""
    return np.maximum(100 * np.asarray(target, dtype=np.int64), 10_000)


def cell_target(n_chance: int, within_units) -> np.ndarray:
    """Chance units a narrower stratum aims at: ``min(n_chance, max(MIN_TARGET, 5 w))``,
    0 where the cell has fewer than two within units.

    Examples
    --------
    >>> cell_target(2000, np.array([0, 1, 2, 100, 1000])).tolist()
    [0, 0, 200, 500, 2000]
    """
    w = np.asarray(within_units, dtype=np.int64)
    return np.where(w >= 2, np.minimum(n_chance, np.maximum(MIN_TARGET, 5 * w)), 0)


def uniform_target(n_chance: int, within) -> int:
    """Pairings the uniform stratum of detection and overall aims at:
    ``min(n_chance, max(MIN_TARGET, 5 w))``, ``w`` the within-item pairings (``within``:
    :class:`~iaa_frames.core.chance.store.WithinCounts`), as :func:`cell_target` sizes the
    narrower strata: more chance pairings than that would not make the "(all)" cell more
    precise, and matching them would cost more than the within pairings do (annotations
    of many objects)."""
    return int(min(n_chance, max(MIN_TARGET, 5 * within_pairings_of(within))))


def within_pairings_of(within) -> int:
    """The within-item pairings of :class:`~iaa_frames.core.chance.store.WithinCounts` (each
    counts for its two annotators)."""
    return int(np.asarray(within.sets_annotator).sum()) // 2


def pairing_key(a, b, n_slots: int) -> np.ndarray:
    """One integer per unordered pairing {a, b} of slots."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    key = np.minimum(a, b)
    key *= n_slots
    key += np.maximum(a, b)
    return key


#: Pairings whose validity is told at once (bounded temporaries).
_BLOCK = 262_144


def valid_pairings(slots: Slices, a, b, repeat=None) -> np.ndarray:
    """Whether each pairing {a, b} of slots is a chance pairing: items of different
    groups (different items when there are no groups), different annotators.

    ``repeat``: ``a[k]`` stands for ``repeat[k]`` pairings in a row (``a`` is then
    ``numpy.repeat(a, repeat)``, gathered once per run).

    Examples
    --------
    >>> s = Slices(start=np.arange(4), count=np.ones(4, np.int64),
    ...            item=np.array([0, 0, 1, -1]), annotator=np.array([0, 1, 0, -1]))
    >>> valid_pairings(s, np.array([0, 0, 1]), np.array([1, 2, 2])).tolist()
    [False, False, True]
    >>> valid_pairings(s, np.array([0, 1]), np.array([1, 2, 2]), repeat=[2, 1]).tolist()
    [False, False, True]
    """
    code = slots.group_annotator if np.size(b) >= 4096 else None
    if code is None:
        if repeat is not None:
            a = np.repeat(a, repeat)
        return (slots.group_of(a) != slots.group_of(b)) & (slots.annotator[a] != slots.annotator[b])
    # one gather per side: the halves of the XOR of the codes are the differences, a
    # block at a time (millions of pairings: no temporaries of them all)
    a, b = np.asarray(a), np.asarray(b)
    whole = None if repeat is None else np.repeat(code[a], repeat)
    out = np.empty(len(b), dtype=bool)
    for lo in range(0, len(b), _BLOCK):
        hi = lo + _BLOCK
        x = code[a[lo:hi]] if whole is None else whole[lo:hi]
        x ^= code[b[lo:hi]]
        half = x.view(np.uint32)  # the two halves of each, in either order: both differ
        np.not_equal(half[::2], 0, out=out[lo:hi])
        out[lo:hi] &= half[1::2] != 0
    return out


def uniform_population(slots: Slices) -> tuple[int, int]:
    """(pairings, candidate object pairs) of U, the population of the uniform stratum.

    Ordered pairs of slots on items of different groups (different items without
    groups) and of different annotators, by inclusion and exclusion, halved (every
    pairing is two ordered pairs): all pairs, less those of one group, less those of one
    annotator, plus those of one group and one annotator.

    Examples
    --------
    >>> s = Slices(start=np.array([0, 1, 2, 3, 0]), count=np.array([1, 1, 1, 1, 0]),
    ...            item=np.array([0, 0, 1, 1, -1]), annotator=np.array([0, 1, 0, 1, -1]))
    >>> uniform_population(s)
    (2, 2)
    >>> from dataclasses import replace
    >>> uniform_population(replace(s, group=np.array([0, 0, 0, 0, -1])))  # one group
    (0, 0)
    """
    n = slots.empty
    item, ann = slots.group_of(np.arange(n)), slots.annotator[:n]
    k = slots.count[:n].astype(np.float64)
    # (group, annotator) of each slot; without groups every slot is its own
    both = None if slots.group is None else item * (ann.max(initial=0) + 1) + ann

    def ordered(weight):
        total = weight.sum() ** 2
        by_item = np.bincount(item, weights=weight)
        by_ann = np.bincount(ann, weights=weight)
        same = weight if both is None else np.bincount(both, weights=weight)
        return total - (by_item**2).sum() - (by_ann**2).sum() + (same**2).sum()

    return int(round(ordered(np.ones(n)) / 2)), int(round(ordered(k) / 2))


def enumerate_uniform(slots: Slices) -> tuple[np.ndarray, np.ndarray]:
    """Every chance pairing (a < b), for a U small enough to enumerate."""
    n = slots.empty
    a, b = np.triu_indices(n, k=1)
    ok = valid_pairings(slots, a, b)
    return a[ok].astype(np.int64), b[ok].astype(np.int64)


def label_fingerprint_order(corpus: Corpus) -> np.ndarray:
    """Class codes in an order fixed by the content of each class's objects (names only
    break exact ties), so that the per-class strata draw the same pairings whatever the
    class names."""
    fp = box_fingerprint(corpus.shapes.boxes)
    n = len(corpus.labels)
    by_label = np.round(np.bincount(corpus.label, weights=fp, minlength=n), 6)
    names = np.argsort(
        np.argsort(np.asarray([str(x) for x in corpus.labels], dtype=object), kind="stable")
    )
    return np.lexsort((names, by_label))


def label_pools(corpus: Corpus):
    """Annotation slots containing each class, sorted, grouped by class (CSR)."""
    bl, starts = corpus.by_label, corpus.class_starts
    owner = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    label = bl.label[:-1]
    if len(corpus.labels) < 2**15:  # the owners in order already: a stable sort by class,
        order = np.argsort(label.astype(np.int16), kind="stable")  # a radix sort of int16
    else:
        order = np.lexsort((owner, label))
    count = np.bincount(bl.label[:-1], minlength=len(corpus.labels))
    return owner[order], run_starts(count), count


def annotator_pools(slots: Slices, n_annotators: int):
    """Annotation slots of each annotator, sorted, grouped by annotator (CSR)."""
    ann = slots.annotator[:-1]
    order = np.lexsort((np.arange(len(ann)), ann))
    count = np.bincount(ann, minlength=n_annotators)
    return order.astype(np.int64), run_starts(count), count


def labels_of_pairings(corpus: Corpus, a, b):
    """(pairing, class) for every class present in either annotation of each pairing
    (slots ``a``, ``b``), by pairing then class."""
    L = max(len(corpus.labels), 1)
    either = union_of_increasing(*_pairing_classes(corpus, a, b))
    return either // L, either % L


def classes_in_both(corpus: Corpus, a, b):
    """(pairing, class) for every class present in both annotations of each pairing
    (slots ``a``, ``b``), by pairing then class: the pairings of a class's own
    localization population.

    Examples
    --------
    >>> import pandas as pd
    >>> from iaa_frames.core.matching.corpus import prepare
    >>> c = prepare(pd.DataFrame({
    ...     "item": ["i", "i", "j", "j"], "annotator": ["x", "x", "y", "y"],
    ...     "label": ["cat", "dog", "dog", "owl"],
    ...     "x0": [0.0, 5, 0, 5], "y0": [0.0, 5, 0, 5],
    ...     "x1": [4.0, 9, 4, 9], "y1": [4.0, 9, 4, 9]}))
    >>> p, lab = classes_in_both(c, [0], [1])  # the two annotations' slots
    >>> p.tolist(), [str(c.labels[k]) for k in lab]
    ([0], ['dog'])
    """
    L = max(len(corpus.labels), 1)
    rows_a, rows_b = _pairing_classes(corpus, a, b)
    if not (len(rows_a) and len(rows_b)):
        return rows_a[:0], rows_a[:0]
    pos = np.minimum(np.searchsorted(rows_b, rows_a), len(rows_b) - 1)
    both = rows_a[rows_b[pos] == rows_a]
    return both // L, both % L


def _pairing_classes(corpus: Corpus, a, b) -> list:
    """Per side, ``pairing * n_labels + class`` for the classes of that side's annotation,
    increasing (pairings in order, an annotation's classes in order)."""
    first, L = corpus.class_starts, len(corpus.labels)
    rows = []
    for side in (np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)):
        n_lab = first[side + 1] - first[side]
        pairing = np.repeat(np.arange(len(side)), n_lab)
        k = np.arange(len(pairing)) - run_starts(n_lab)[pairing]
        rows.append(pairing * L + corpus.by_label.label[first[side][pairing] + k])
    return rows


def union_of_increasing(x, y) -> np.ndarray:
    """The sorted distinct values of ``x`` and ``y``: :func:`sorted_unique` of both, by
    inserting the values of ``y`` into ``x`` where each is strictly increasing (the
    classes of a pairing's two sides: pairings in order, an annotation's classes in
    order), no sort.

    Examples
    --------
    >>> union_of_increasing(np.array([1, 4, 6]), np.array([0, 4, 9])).tolist()
    [0, 1, 4, 6, 9]
    >>> union_of_increasing(np.array([3, 1]), np.array([1])).tolist()  # not increasing
    [1, 3]
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    if not (len(x) and len(y)) or (x[1:] <= x[:-1]).any() or (y[1:] <= y[:-1]).any():
        return sorted_unique(np.concatenate([x, y]))
    pos = np.searchsorted(x, y)
    new = x[np.minimum(pos, len(x) - 1)] != y
    return np.insert(x, pos[new], y[new])
