"""The chance sample: which between-item pairings stand for chance, and why.

A *chance pairing* is the annotation of item i by annotator a and the annotation of item
j by annotator b, with i != j and a != b; it is unordered ({s, t} and {t, s} are one
pairing). The pairings chosen here go through the same matching pipeline, with the same
threshold, as the within-item pairings (:mod:`iaa_frames.pipeline`). A *chance unit* is a
pairing (detection, overall) or a matched object pair of a pairing (localization); a
matched pair belongs to one pairing, so distinct pairings give distinct units.

Populations and strata
----------------------
Every reported cell draws its chance units from its own population:

========================  ==========================================================
cell                      population (pairings)
========================  ==========================================================
"(all)" x "(all)"         every chance pairing (U)
"(all)" x annotator A     the pairings in U with one side drawn by A
annotator pair A, B       the pairings of an annotation of A with one of B
class L (detection,       the pairings in which at least one side contains L
overall)
class L (localization)    the pairings of two annotations that both contain L; the
                          units are their matched pairs of two objects of class L
========================  ==========================================================

The *uniform* stratum samples U; it is uniform over every sub-population, so its
pairings count in every cell they belong to. A cell whose population the uniform stratum
covers too thinly gets a stratum of its own, sampled uniformly over that population, and
uses the union of the two samples (still a uniform sample of its population, each
pairing once).

Exact or sampled
----------------
* When U holds at most :data:`EXACT_PAIRINGS` pairings and matching all of them costs at
  most :data:`EXACT_WORK` candidate object pairs, U is **enumerated**: every cell of
  every component uses its whole population, with no sampling noise, and the result does
  not depend on the seed or on any name.
* A class's localization population is enumerated when its objects are few enough for
  every pair of them to be bounded (at most :data:`EXACT_WORK` object pairs): the pairs
  whose IoU bound can reach the threshold (:func:`iaa_frames.pipeline.iou_upper_bound`)
  give the pairings that can produce a unit, and those are all matched when that costs
  at most :data:`EXACT_WORK` candidate pairs (otherwise sampled from that list).
* Otherwise pairings are sampled **uniformly without replacement** (independent draws in
  which a repeat is skipped), with a random stream that depends on the seed and on the
  content of the annotations, never on names or row order.

Targets
-------
``n_chance`` (default :data:`DEFAULT_N_CHANCE`) is the target number of chance units of
the uniform stratum. The stratum of a narrower cell (an annotator, a pair of annotators,
a class) aims at ``min(n_chance, max(MIN_TARGET, 5 * w))`` units, ``w`` being the
cell's within-item units (more chance units than that would not make the cell more
precise: its within units limit it); cells with fewer than two within units get none.
A stratum stops after :func:`stratum_cap` pairings even if its target is not met (at a
threshold so high that unrelated objects rarely match). ``n_chance`` in the result is
the number of distinct chance units a cell used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .corpus import Corpus, Slices
from .matching import candidate_pairs, pairs_within_runs, run_starts
from .pipeline import Matched, iou_upper_bound

__all__ = [
    "DEFAULT_N_CHANCE",
    "EXACT_PAIRINGS",
    "EXACT_WORK",
    "MIN_TARGET",
    "Draws",
    "cell_target",
    "pairing_key",
    "stratum_cap",
    "uniform_population",
    "sample_groups",
    "enumerate_uniform",
    "label_fingerprint_order",
]

#: Target number of chance units of the uniform stratum.
DEFAULT_N_CHANCE = 2000
#: Fewest chance units a narrower stratum aims at (see the module notes).
MIN_TARGET = 200
#: Largest number of pairings of U that is enumerated instead of sampled.
EXACT_PAIRINGS = 20_000
#: Largest number of candidate object pairs an enumerated population may cost to match.
EXACT_WORK = 500_000

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


def pairing_key(a, b, n_slots: int) -> np.ndarray:
    """One integer per unordered pairing {a, b} of slots."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    return np.minimum(a, b) * n_slots + np.maximum(a, b)


def _valid(slots: Slices, a, b) -> np.ndarray:
    return (slots.item[a] != slots.item[b]) & (slots.annotator[a] != slots.annotator[b])


def uniform_population(slots: Slices) -> tuple[int, int]:
    """(pairings, candidate object pairs) of U, the population of the uniform stratum.

    Ordered pairs of slots on different items and of different annotators, by inclusion
    and exclusion, halved (every pairing is two ordered pairs).

    Examples
    --------
    >>> s = Slices(start=np.array([0, 1, 2, 3, 0]), count=np.array([1, 1, 1, 1, 0]),
    ...            item=np.array([0, 0, 1, 1, -1]), annotator=np.array([0, 1, 0, 1, -1]))
    >>> uniform_population(s)
    (2, 2)
    """
    n = slots.empty
    item, ann = slots.item[:n], slots.annotator[:n]
    k = slots.count[:n].astype(np.float64)

    def ordered(weight):
        total = weight.sum() ** 2
        by_item = np.bincount(item, weights=weight)
        by_ann = np.bincount(ann, weights=weight)
        return total - (by_item ** 2).sum() - (by_ann ** 2).sum() + (weight ** 2).sum()

    return int(round(ordered(np.ones(n)) / 2)), int(round(ordered(k) / 2))


def enumerate_uniform(slots: Slices) -> tuple[np.ndarray, np.ndarray]:
    """Every chance pairing (a < b), for a U small enough to enumerate."""
    n = slots.empty
    a, b = np.triu_indices(n, k=1)
    ok = _valid(slots, a, b)
    return a[ok].astype(np.int64), b[ok].astype(np.int64)


def sample_groups(rng, slots: Slices, need, pool, start, count, *, other=None,
                  taken=None, cap=None):
    """Distinct pairings per group, uniform without replacement over each group's
    population.

    Group g's population: the valid pairings {s, t} with s from its pool
    (``pool[start[g]:start[g] + count[g]]``) and t from the same pool (``other=None``),
    from every slot (``other="all"``), or from a second pool per group (``other`` a
    ``(pool, start, count)`` triple disjoint from the first). Both sides are drawn
    uniformly; with ``"all"``, a pairing that could have been drawn either way round (t
    in the pool too) is kept with probability 1/2, so that every pairing of the
    population is equally likely. Draws repeat until ``need[g]`` new
    distinct pairings are found that are not already in ``taken[g]`` (a set of keys per
    group, given as a sorted array of ``group * n_keys + key``), or ``cap[g]`` draws
    were made.

    Returns
    -------
    a, b, group : ndarray of int64
        The new pairings, in order of draw (so a prefix of them is itself a uniform
        sample), grouped by group.
    """
    n_slots = slots.empty + 1
    n_keys = n_slots * n_slots
    need = np.asarray(need, dtype=np.int64).copy()
    need[count == 0] = 0
    cap = stratum_cap(need) if cap is None else np.asarray(cap, dtype=np.int64)
    drawn = np.zeros(len(need), dtype=np.int64)
    seen = np.zeros(0, np.int64) if taken is None else np.asarray(taken, dtype=np.int64)
    out = []
    # a population hardly larger than what is needed: enumerate it, take a random prefix
    pool2 = (pool, start, count) if other is None else \
        (np.arange(slots.empty), np.zeros(len(need), np.int64),
         np.full(len(need), slots.empty)) if isinstance(other, str) else other
    small = (need > 0) & (count * pool2[2] <= 4 * need + 256)
    if small.any():
        out.append(_enumerate_groups(rng, slots, np.where(small, need, 0), (pool, start, count),
                                     pool2, seen))
        need[small] = 0
    stalled = 0
    for _ in range(200):  # rounds of independent draws; most strata finish in 1-3
        active = (need > 0) & (drawn < cap)
        if not active.any() or stalled >= 3:
            break
        m = np.where(active, np.minimum(np.ceil(need * 1.5).astype(np.int64) + 16,
                                        cap - drawn), 0)
        g = np.repeat(np.arange(len(need)), m)
        drawn += m
        a = pool[start[g] + rng.integers(0, count[g])]
        if other is None:
            b = pool[start[g] + rng.integers(0, count[g])]
            keep = _valid(slots, a, b)
        elif isinstance(other, str):
            b = rng.integers(0, slots.empty, size=len(g))
            keep = _valid(slots, a, b)
            # b in g's pool too: this pairing can be drawn both ways round
            flip = rng.random(len(g)) < 0.5
            keep &= ~_in_group_pool(b, g, pool, start, count, n_slots) | flip
        else:
            pool2, start2, count2 = other
            b = pool2[start2[g] + rng.integers(0, np.maximum(count2[g], 1))]
            keep = _valid(slots, a, b) & (count2[g] > 0)
        a, b, g = a[keep], b[keep], g[keep]
        key = g * n_keys + pairing_key(a, b, n_slots)
        first = _first_occurrence(key)
        new = first & ~np.isin(key, seen)
        a, b, g, key = a[new], b[new], g[new], key[new]
        # keep the first need[g] new pairings of each group, in order of draw
        order = np.argsort(g, kind="stable")
        a, b, g, key = a[order], b[order], g[order], key[order]
        rank = np.arange(len(g)) - np.searchsorted(g, g)
        take = rank < need[g]
        out.append((a[take], b[take], g[take]))
        need -= np.bincount(g[take], minlength=len(need))
        seen = np.union1d(seen, key[take])
        stalled = 0 if take.any() else stalled + 1
    if not out:
        z = np.zeros(0, np.int64)
        return z, z, z
    a, b, g = (np.concatenate(x) for x in zip(*out))
    order = np.argsort(g, kind="stable")
    return a[order], b[order], g[order]


def _enumerate_groups(rng, slots, need, first, second, taken):
    """Up to ``need[g]`` pairings per group, a uniformly random subset of every valid
    pairing of the group's two pools not in ``taken`` (each pool a CSR triple)."""
    pool, start, count = first
    pool2, start2, count2 = second
    n_slots = slots.empty + 1
    groups = np.flatnonzero(need > 0)
    g, i, j, _, _ = candidate_pairs(start[groups], count[groups], start2[groups],
                                    count2[groups])
    a, b, g = pool[start[groups][g] + i], pool2[start2[groups][g] + j], groups[g]
    ok = _valid(slots, a, b)
    a, b, g = a[ok], b[ok], g[ok]
    key = g * n_slots ** 2 + pairing_key(a, b, n_slots)
    keep = _first_occurrence(key) & ~np.isin(key, taken)
    a, b, g = a[keep], b[keep], g[keep]
    order = np.lexsort((rng.random(len(g)), g))
    a, b, g = a[order], b[order], g[order]
    take = np.arange(len(g)) - np.searchsorted(g, g) < need[g]
    return a[take], b[take], g[take]


def _first_occurrence(key) -> np.ndarray:
    """True at the first occurrence of every value of ``key``."""
    _, first = np.unique(key, return_index=True)
    out = np.zeros(len(key), dtype=bool)
    out[first] = True
    return out


def _in_group_pool(b, g, pool, start, count, n_slots) -> np.ndarray:
    """Whether slot ``b[r]`` is in the pool of group ``g[r]``."""
    if not len(b) or not count.sum():
        return np.zeros(len(b), dtype=bool)
    group = np.repeat(np.arange(len(count)), count)
    members = pool[start[group] + np.arange(len(group)) - run_starts(count)[group]]
    key_pool = np.sort(group * n_slots + members)
    key = g * n_slots + b
    pos = np.minimum(np.searchsorted(key_pool, key), len(key_pool) - 1)
    return key_pool[pos] == key


def label_fingerprint_order(corpus: Corpus) -> np.ndarray:
    """Class codes in an order fixed by the content of each class's objects (names only
    break exact ties), so that the per-class strata draw the same pairings whatever the
    class names."""
    fp = np.nan_to_num(corpus.shapes.boxes) @ np.array([1.1, 1.3, 1.7, 1.9]) + 0.37
    n = len(corpus.labels)
    by_label = np.round(np.bincount(corpus.label, weights=fp, minlength=n), 6)
    names = np.argsort(np.argsort(np.asarray([str(x) for x in corpus.labels], dtype=object),
                                  kind="stable"))
    return np.lexsort((names, by_label))


@dataclass
class Draws:
    """Which strata drew which pairings: ``(kind, group, key)`` records.

    ``group`` is the annotator code (annotator strata), ``a * n_annotators + b`` (pair
    strata), the class code (class strata) or 0 (uniform strata).
    """

    n_slots: int
    kind: list = field(default_factory=list)
    group: list = field(default_factory=list)
    key: list = field(default_factory=list)

    def add(self, kind: int, group, a, b) -> None:
        a = np.asarray(a, dtype=np.int64)
        self.kind.append(np.full(len(a), kind, dtype=np.int64))
        self.group.append(np.broadcast_to(np.asarray(group, dtype=np.int64), a.shape).copy())
        self.key.append(pairing_key(a, b, self.n_slots))

    def keys(self, *kinds) -> tuple[np.ndarray, np.ndarray]:
        """(group, key) of the records of the given kinds."""
        if not self.kind:
            z = np.zeros(0, np.int64)
            return z, z
        kind = np.concatenate(self.kind)
        sel = np.isin(kind, kinds)
        return np.concatenate(self.group)[sel], np.concatenate(self.key)[sel]

    def contains(self, kinds, group, key, n_groups: int) -> np.ndarray:
        """Whether each (group, key) was drawn by a stratum of one of ``kinds``."""
        g, k = self.keys(*kinds)
        return np.isin(np.asarray(key) * n_groups + np.asarray(group), k * n_groups + g)


def label_pools(corpus: Corpus):
    """Annotation slots containing each class, sorted, grouped by class (CSR)."""
    bl = corpus.by_label
    owner = corpus.annotation_of(bl.item[:-1], bl.annotator[:-1])
    order = np.lexsort((owner, bl.label[:-1]))
    count = np.bincount(bl.label[:-1], minlength=len(corpus.labels))
    return owner[order], run_starts(count), count


def annotator_pools(slots: Slices, n_annotators: int):
    """Annotation slots of each annotator, sorted, grouped by annotator (CSR)."""
    ann = slots.annotator[:-1]
    order = np.lexsort((np.arange(len(ann)), ann))
    count = np.bincount(ann, minlength=n_annotators)
    return order.astype(np.int64), run_starts(count), count


# ------------------------------------------------------------------------ the sample

#: Most pairings drawn in all the annotator-pair strata together (pairwise cells).
PAIR_BUDGET = 50_000
#: A class's localization cell with fewer own chance units than this uses pooled units.
MIN_CHANCE_UNITS = 30
#: Nearest pooled chance pairs per within pair in the pooled baseline of a class.
POOL_NEIGHBOURS = 50


@dataclass(frozen=True)
class WithinCounts:
    """Within-item units per narrower cell, which set the targets of their strata."""

    sets_annotator: np.ndarray  # (A,) pairings involving each annotator
    sets_pair: np.ndarray  # (A, A) pairings of each pair of annotators (a < b)
    sets_label: np.ndarray  # (L,) (pairing, class) rows of each class
    loc_annotator: np.ndarray  # (A,) matched pairs involving each annotator
    loc_label: np.ndarray  # (L,) matched pairs of two objects of each class


@dataclass(frozen=True, eq=False)
class ChanceSample:
    """The distinct chance pairings, matched once each, and the strata that drew them.

    ``a``, ``b``, ``key`` and ``has_sets`` have one entry per pairing; ``matched`` holds
    their matching (whole annotations; set distances where ``has_sets``).
    ``label_source`` says, per class, how its localization population was formed:
    "enumerated", "sampled" (the class's own units) or "" (decided later: own units or
    pooled).
    """

    a: np.ndarray
    b: np.ndarray
    key: np.ndarray
    has_sets: np.ndarray
    matched: object  # pipeline.Matched
    draws: Draws
    exact: bool
    label_source: np.ndarray


class _Store:
    """Chance pairings matched so far, each matched once.

    With ``reachable`` (the sorted keys of the pairings that can produce a matched pair,
    :func:`gated_pairings`), a pairing outside it that needs no set distance is not sent
    through the pipeline: its matching is known to be empty.
    """

    def __init__(self, slots: Slices, run, reachable=None):
        self.slots, self._run, self.reachable = slots, run, reachable
        self.n_slots = slots.empty + 1
        self.keys = np.zeros(0, np.int64)
        self.parts = []

    def run(self, a, b, *, sets: bool) -> None:
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        key = pairing_key(a, b, self.n_slots)
        new = _first_occurrence(key) & ~np.isin(key, self.keys)
        if not new.any():
            return
        a, b, key = a[new], b[new], key[new]
        self.keys = np.union1d(self.keys, key)
        if not sets and self.reachable is not None:
            can = np.isin(key, self.reachable)
            if (~can).any():
                self.parts.append((a[~can], b[~can], key[~can], np.zeros((~can).sum(), bool),
                                   _unmatched(self.slots, a[~can], b[~can])))
            a, b, key = a[can], b[can], key[can]
        if len(a):
            self.parts.append((a, b, key, np.full(len(a), sets), self._run(a, b, sets)))

    def pairs(self):
        """Every matched pair so far: (pairing key, object a, object b)."""
        if not self.parts:
            z = np.zeros(0, np.int64)
            return z, z, z
        return tuple(np.concatenate(x) for x in zip(*[
            (key[m.pair_pairing], m.pair_a, m.pair_b) for _, _, key, _, m in self.parts]))

    def finish(self, draws, exact, label_source) -> ChanceSample:
        if not self.parts:
            z = np.zeros(0, np.int64)
            return ChanceSample(z, z, z, np.zeros(0, bool), Matched.empty(), draws, exact,
                                label_source)
        offset = run_starts(np.array([len(p[0]) for p in self.parts]))
        fields = {}
        for name in Matched.__dataclass_fields__:
            values = [getattr(m, name) for *_, m in self.parts]
            if name == "pair_pairing":
                values = [v + o for v, o in zip(values, offset)]
            fields[name] = np.concatenate(values)
        a, b, key, has_sets = (np.concatenate([p[i] for p in self.parts]) for i in range(4))
        return ChanceSample(a, b, key, has_sets, Matched(**fields), draws, exact, label_source)


def _unmatched(slots: Slices, a, b) -> Matched:
    """The matching of pairings that cannot produce a matched pair (no set distances)."""
    n_a, n_b = slots.count[a], slots.count[b]
    z = np.zeros(0, np.int64)
    return Matched(z, z, z, np.zeros(0), np.zeros(0), n_a, n_b, np.zeros(len(a), np.int64),
                   np.where(n_a + n_b == 0, 0.0, 1.0), np.full(len(a), np.nan))


def _units_per(values, flags, n):
    """Count of ``values`` (codes) over the entries where ``flags``."""
    return np.bincount(values[flags], minlength=n)


def draw(corpus: Corpus, run, within: WithinCounts, *, n_chance: int, seed: int, tau: float,
         reachable, label_reachable) -> ChanceSample:
    """Draw (or enumerate) the chance pairings of every stratum and match them.

    Parameters
    ----------
    corpus : Corpus
    run : callable ``(a, b, sets) -> Matched``
        The matching pipeline on whole annotations (:func:`iaa_frames.pipeline.run`).
    within : WithinCounts
    n_chance, seed, tau
        See :func:`iaa_frames.pairs.pair_tables`.
    reachable : callable ``(a, b) -> bool array``
        Pairings of whole annotations that can produce a matched pair.
    label_reachable : callable ``(a, b, label) -> bool array``
        Pairings that can produce a matched pair of two objects of ``label``.

    Returns
    -------
    ChanceSample
    """
    slots = corpus.annotations
    n_slots = slots.empty + 1
    A, L = len(corpus.annotators), len(corpus.labels)
    store, draws = _Store(slots, run), Draws(n_slots)
    label_source = np.full(L, "", dtype=object)

    def rng(kind):
        return np.random.default_rng([seed, kind])

    n_pairings, work = uniform_population(slots)
    if n_pairings <= EXACT_PAIRINGS and work <= EXACT_WORK:
        a, b = enumerate_uniform(slots)
        store.run(a, b, sets=True)
        draws.add(SETS_UNIFORM, 0, a, b)
        label_source[:] = "enumerated"
        return store.finish(draws, True, label_source)

    gated = gated_pairings(corpus, tau) if tau > 0 else None
    if gated is not None:
        store.reachable = gated[0]
    everyone = np.arange(slots.empty)
    ann_pool = annotator_pools(slots, A)
    # -- detection and overall: uniform, per annotator, per pair of annotators
    a, b, _ = sample_groups(rng(SETS_UNIFORM), slots, [n_chance], everyone, np.array([0]),
                            np.array([slots.empty]))
    store.run(a, b, sets=True)
    draws.add(SETS_UNIFORM, 0, a, b)
    uni_key = pairing_key(a, b, n_slots)
    aa, ab = slots.annotator[a], slots.annotator[b]
    have = np.bincount(aa, minlength=A) + np.bincount(ab, minlength=A)
    taken = np.concatenate([aa * n_slots ** 2 + uni_key, ab * n_slots ** 2 + uni_key])
    a2, b2, g2 = sample_groups(rng(SETS_ANNOTATOR), slots,
                               np.maximum(cell_target(n_chance, within.sets_annotator) - have, 0),
                               *ann_pool, other="all", taken=np.unique(taken))
    store.run(a2, b2, sets=True)
    draws.add(SETS_ANNOTATOR, g2, a2, b2)
    _pair_strata(rng(SETS_PAIR), slots, store, draws, within, n_chance, ann_pool,
                 np.concatenate([a, a2]), np.concatenate([b, b2]))

    # -- per-class detection and overall: pairings where one side contains the class
    l_pool, l_start, l_count = label_pools(corpus)
    order = label_fingerprint_order(corpus)
    target = cell_target(n_chance, within.sets_label)
    a, b, g = sample_groups(rng(SETS_LABEL), slots, target[order], l_pool, l_start[order],
                            l_count[order], other="all")
    store.run(a, b, sets=False)
    draws.add(SETS_LABEL, order[g], a, b)

    # -- localization: matched pairs, uniform then per annotator then per class
    if gated is not None:
        _localization_from_index(rng(LOC_UNIFORM), corpus, store, draws, within, n_chance,
                                 order, gated, label_source)
        return store.finish(draws, False, label_source)
    rate = _localization_uniform(rng(LOC_UNIFORM), slots, store, draws, n_chance, reachable)
    _localization_annotators(rng(LOC_ANNOTATOR), corpus, store, draws, within, n_chance,
                             ann_pool, reachable, rate)
    _localization_labels(rng(LOC_LABEL), corpus, store, draws, within, n_chance, tau,
                         order, (l_pool, l_start, l_count), label_reachable, label_source)
    return store.finish(draws, False, label_source)


#: Most object pairs looked at by the index of chance pairs that can match.
OBJECT_PAIR_BUDGET = 20_000_000


def gated_pairings(corpus: Corpus, tau: float):
    """Every chance pairing that can produce a matched pair at ``tau`` > 0, from an index
    of the objects' normalized boxes: a sweep along x lists the object pairs whose boxes
    overlap in x (items and annotators different), and the IoU bound of
    :func:`iaa_frames.pipeline.iou_upper_bound` keeps those that can reach ``tau``. The
    cost grows with the pairs that overlap, not with the pairings. Returns None when
    more than :data:`OBJECT_PAIR_BUDGET` object pairs overlap in x (then pairings are
    drawn and tested instead).

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
    box = corpus.shapes.boxes
    order = np.argsort(box[:, 0], kind="stable")
    x0 = box[order, 0]
    later = np.searchsorted(x0, box[order, 2], side="left") - np.arange(len(order)) - 1
    later = np.maximum(later, 0)
    if later.sum() > OBJECT_PAIR_BUDGET:
        return None
    keys, label_keys = [], []
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
        ok = ((corpus.item[oi] != corpus.item[oj])
              & (corpus.annotator[oi] != corpus.annotator[oj])
              & (np.minimum(box[oi, 3], box[oj, 3]) > np.maximum(box[oi, 1], box[oj, 1])))
        oi, oj = oi[ok], oj[ok]
        reach = iou_upper_bound(corpus, oi, oj) >= tau
        oi, oj = oi[reach], oj[reach]
        key = pairing_key(corpus.annotation_of(corpus.item[oi], corpus.annotator[oi]),
                          corpus.annotation_of(corpus.item[oj], corpus.annotator[oj]), n_slots)
        keys.append(key)
        same = corpus.label[oi] == corpus.label[oj]
        label_keys.append(corpus.label[oi][same] * n_slots ** 2 + key[same])
        lo = hi
    key = np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    lk = np.unique(np.concatenate(label_keys)) if label_keys else np.zeros(0, np.int64)
    return key, lk // n_slots ** 2, lk % n_slots ** 2


def _fill_from_lists(rng, store, draws, kind, group, key, target, units, n_slots,
                     codes=None):
    """Per group, matched pairings taken in random order from the group's list of
    pairings that can match (a uniform sample without replacement of that list) until
    ``units()`` reaches ``target`` per group; the whole list when it is short. Groups
    are recorded as ``codes[group]`` when ``codes`` is given."""
    if not len(key):
        return
    order = np.lexsort((rng.random(len(key)), group))
    group, key = group[order], key[order]
    pos = _rank_in_group(group)
    size = np.bincount(group, minlength=len(target))
    done = np.zeros(len(target), dtype=np.int64)
    for _ in range(30):
        left = np.maximum(target - units(), 0)
        active = (left > 0) & (done < size)
        if not active.any():
            return
        step = np.maximum(2 * left, MIN_TARGET)
        pick = active[group] & (pos >= done[group]) & (pos < (done + step)[group])
        a, b = key[pick] // n_slots, key[pick] % n_slots
        store.run(a, b, sets=False)
        draws.add(kind, group[pick] if codes is None else codes[group[pick]], a, b)
        done = np.where(active, done + step, done)


def _localization_from_index(rng, corpus, store, draws, within, n_chance, order, gated,
                             label_source):
    """Localization strata drawn from the pairings that can match (:func:`gated_pairings`):
    all of them when matching them all costs at most :data:`EXACT_WORK`."""
    slots = corpus.annotations
    A, L, n_slots = len(corpus.annotators), len(corpus.labels), slots.empty + 1
    key, lab, lab_key = gated
    lo, hi = key // n_slots, key % n_slots
    if (slots.count[lo] * slots.count[hi]).sum() <= EXACT_WORK:
        store.run(lo, hi, sets=False)
        draws.add(LOC_UNIFORM, 0, lo, hi)
        label_source[:] = "enumerated"
        return
    uni = (SETS_UNIFORM, LOC_UNIFORM)

    def uniform_units():
        k = store.pairs()[0]
        return np.array([np.isin(k, draws.keys(*uni)[1]).sum()])

    _fill_from_lists(rng, store, draws, LOC_UNIFORM, np.zeros(len(key), np.int64), key,
                     np.array([n_chance]), uniform_units, n_slots)

    def annotator_units():
        k, aa, ab, _, _ = _matched_codes(corpus, store)
        u = draws.contains(uni, 0, k, max(A, 1))
        own = (SETS_ANNOTATOR, LOC_ANNOTATOR)
        return (_units_per(aa, u | draws.contains(own, aa, k, max(A, 1)), A)
                + _units_per(ab, u | draws.contains(own, ab, k, max(A, 1)), A))

    _fill_from_lists(rng, store, draws, LOC_ANNOTATOR,
                     np.concatenate([slots.annotator[lo], slots.annotator[hi]]),
                     np.concatenate([key, key]), cell_target(n_chance, within.loc_annotator),
                     annotator_units, n_slots)
    # classes, in an order fixed by content (class names do not change the draw)
    rank = _rank_of(order, L)
    work = np.bincount(lab, weights=slots.count[lab_key // n_slots]
                       * slots.count[lab_key % n_slots], minlength=L)
    target = cell_target(n_chance, within.loc_label)
    exact = (work <= EXACT_WORK) & (target > 0)
    e = exact[lab]
    store.run(lab_key[e] // n_slots, lab_key[e] % n_slots, sets=False)
    draws.add(LOC_LABEL, lab[e], lab_key[e] // n_slots, lab_key[e] % n_slots)
    label_source[exact] = "enumerated"
    label_source[~exact & (target > 0)] = "sampled"
    _fill_from_lists(rng, store, draws, LOC_LABEL, rank[lab[~e]], lab_key[~e],
                     target[order],
                     lambda: _class_units(corpus, store, draws, L)[order], n_slots,
                     codes=order)


def _pair_strata(rng, slots, store, draws, within, n_chance, ann_pool, a, b):
    """Top up the annotator pairs whose pairwise cells the earlier strata cover thinly."""
    A = within.sets_pair.shape[0]
    n_slots = slots.empty + 1
    pa, pb = np.nonzero(np.triu(within.sets_pair >= 2, k=1))
    if not len(pa):
        return
    lo, hi = (np.minimum(slots.annotator[a], slots.annotator[b]),
              np.maximum(slots.annotator[a], slots.annotator[b]))
    have = np.bincount(lo * A + hi, minlength=A * A)[pa * A + pb]
    need = np.maximum(cell_target(n_chance, within.sets_pair[pa, pb]) - have, 0)
    if need.sum() > PAIR_BUDGET:  # documented budget: shrink every deficit alike
        need = np.floor(need * PAIR_BUDGET / need.sum()).astype(np.int64)
    pool, start, count = ann_pool
    key = pairing_key(a, b, n_slots)
    group = np.full(A * A, -1)
    group[pa * A + pb] = np.arange(len(pa))
    g_have = group[lo * A + hi]
    taken = np.unique((g_have * n_slots ** 2 + key)[g_have >= 0])
    a2, b2, g2 = sample_groups(rng, slots, need, pool, start[pa], count[pa],
                               other=(pool, start[pb], count[pb]), taken=taken)
    store.run(a2, b2, sets=True)
    draws.add(SETS_PAIR, pa[g2] * A + pb[g2], a2, b2)


def _localization_uniform(rng, slots, store, draws, n_chance, reachable):
    """Uniform pairings until the uniform sample holds ``n_chance`` matched pairs."""
    n_slots = slots.empty + 1
    g, key = draws.keys(SETS_UNIFORM)
    taken = np.sort(key)
    units = int(np.isin(store.pairs()[0], taken).sum())
    drawn, cap = len(taken), int(stratum_cap(n_chance))
    everyone = np.arange(slots.empty)
    while units < n_chance and drawn < cap:
        rate = max(units, 1) / max(drawn, 1)
        batch = int(min(cap - drawn, max(n_chance, np.ceil((n_chance - units) / rate * 1.2))))
        a, b, _ = sample_groups(rng, slots, [batch], everyone, np.array([0]),
                                np.array([slots.empty]), taken=taken)
        if not len(a):
            break
        drawn += len(a)
        taken = np.union1d(taken, pairing_key(a, b, n_slots))
        ok = reachable(a, b)
        store.run(a[ok], b[ok], sets=False)
        draws.add(LOC_UNIFORM, 0, a[ok], b[ok])
        key_ok = pairing_key(a[ok], b[ok], n_slots)
        units += int(np.isin(store.pairs()[0], key_ok).sum())
    return max(units, 1) / max(drawn, 1)


def _matched_codes(corpus, store):
    """Matched chance pairs so far: (pairing key, annotators a/b, labels a/b)."""
    key, oa, ob = store.pairs()
    return key, corpus.annotator[oa], corpus.annotator[ob], corpus.label[oa], corpus.label[ob]


def _localization_annotators(rng, corpus, store, draws, within, n_chance, ann_pool, reachable,
                             rate0):
    """Per annotator: uniform pairings involving it until its cell has its target
    (``rate0``: matched pairs per pairing in the uniform stratum, the first guess of how
    many pairings that takes)."""
    slots = corpus.annotations
    A = len(corpus.annotators)
    target = cell_target(n_chance, within.loc_annotator)
    cap = stratum_cap(target)
    drawn = np.zeros(A, dtype=np.int64)
    n_groups = max(A, 1)
    for _ in range(20):
        key, aa, ab, _, _ = _matched_codes(corpus, store)
        uni = draws.contains((SETS_UNIFORM, LOC_UNIFORM), 0, key, n_groups)
        own_a = uni | draws.contains((SETS_ANNOTATOR, LOC_ANNOTATOR), aa, key, n_groups)
        own_b = uni | draws.contains((SETS_ANNOTATOR, LOC_ANNOTATOR), ab, key, n_groups)
        have = _units_per(aa, own_a, A) + _units_per(ab, own_b, A)
        if not drawn.any():
            start = have
        deficit = np.maximum(target - have, 0)
        active = (deficit > 0) & (drawn < cap)
        if not active.any():
            return
        rate = np.where(drawn > 0, np.maximum(have - start, 1) / np.maximum(drawn, 1), rate0)
        need = np.where(active, np.minimum(cap - drawn, np.maximum(
            MIN_TARGET, np.ceil(deficit / np.maximum(rate, 1e-3) * 1.2))), 0).astype(np.int64)
        # a pairing the cell already holds adds no unit (the store matches it once): the
        # loop counts units, not draws, so repeats need no bookkeeping here
        a, b, g = sample_groups(rng, slots, need, *ann_pool, other="all")
        drawn += np.bincount(g, minlength=A)
        ok = reachable(a, b)
        store.run(a[ok], b[ok], sets=False)
        draws.add(LOC_ANNOTATOR, g[ok], a[ok], b[ok])



def _class_units(corpus, store, draws, L):
    """Matched chance pairs of two objects of one class that count in its cell, per class."""
    key, _, _, la, lb = _matched_codes(corpus, store)
    n_groups = max(L, 1)
    same = la == lb
    uni = draws.contains((SETS_UNIFORM, LOC_UNIFORM), 0, key, n_groups)
    own = draws.contains((SETS_LABEL, LOC_LABEL), la, key, n_groups)
    return _units_per(la, same & (uni | own), L)


def _reachable_label_pairings(corpus, labels, tau):
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
        oi, oj = objects[i[lo:lo + 4_000_000]], objects[j[lo:lo + 4_000_000]]
        ok = (corpus.item[oi] != corpus.item[oj]) & (corpus.annotator[oi] != corpus.annotator[oj])
        oi, oj = oi[ok], oj[ok]
        keep = iou_upper_bound(corpus, oi, oj) >= tau
        oi, oj = oi[keep], oj[keep]
        sa = corpus.annotation_of(corpus.item[oi], corpus.annotator[oi])
        sb = corpus.annotation_of(corpus.item[oj], corpus.annotator[oj])
        parts.append(corpus.label[oi] * n_slots ** 2 + pairing_key(sa, sb, n_slots))
    key = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
    label, pair = key // n_slots ** 2, key % n_slots ** 2
    return label, pair // n_slots, pair % n_slots


def _localization_labels(rng, corpus, store, draws, within, n_chance, tau, order, l_pools,
                         label_reachable, label_source):
    """Per class: pairings of two annotations containing it until its localization cell
    has its target; enumerated where the class's objects are few (see module notes)."""
    slots = corpus.annotations
    L = len(corpus.labels)
    target = cell_target(n_chance, within.loc_label)
    deficit = np.maximum(target - _class_units(corpus, store, draws, L), 0)
    n_obj = np.bincount(corpus.label, minlength=L)
    cost = n_obj * (n_obj - 1) // 2
    small = (deficit > 0) & (cost <= EXACT_WORK)
    small &= np.cumsum(np.where(small, cost, 0)) <= 10 * EXACT_WORK
    if small.any():
        lab, a, b = _reachable_label_pairings(corpus, np.flatnonzero(small), tau)
        work = np.bincount(lab, weights=slots.count[a] * slots.count[b], minlength=L)
        exact = small & (work <= EXACT_WORK)
        e = exact[lab]
        store.run(a[e], b[e], sets=False)
        draws.add(LOC_LABEL, lab[e], a[e], b[e])
        label_source[exact] = "enumerated"
        # the other small classes: a uniform prefix of their reachable pairings
        s = ~e
        lab, a, b = lab[s], a[s], b[s]
        shuffled = np.lexsort((rng.random(len(lab)), _rank_of(order, L)[lab]))
        lab, a, b = lab[shuffled], a[shuffled], b[shuffled]
        pos = _rank_in_group(lab)
        done = np.zeros(L, dtype=np.int64)
        for _ in range(20):
            left = np.maximum(target - _class_units(corpus, store, draws, L), 0)
            active = ~exact & small & (left > 0)
            if not active.any():
                break
            step = np.maximum(2 * left, MIN_TARGET)
            pick = active[lab] & (pos >= done[lab]) & (pos < done[lab] + step[lab])
            if not pick.any():
                break
            store.run(a[pick], b[pick], sets=False)
            draws.add(LOC_LABEL, lab[pick], a[pick], b[pick])
            done = np.where(active, done + step, done)
        label_source[small & ~exact] = "sampled"
    big = (deficit > 0) & ~small
    if not big.any():
        return
    label_source[big] = "sampled"
    pool, start, count = l_pools
    cap = stratum_cap(target)
    drawn = np.zeros(L, dtype=np.int64)
    for _ in range(20):
        have = _class_units(corpus, store, draws, L)
        left = np.maximum(target - have, 0)
        active = big & (left > 0) & (drawn < cap)
        if not active.any():
            break
        rate = np.maximum(have, 1) / np.maximum(drawn, 1)
        need = np.where(active, np.minimum(cap - drawn, np.maximum(
            target, np.ceil(left / rate * 1.2))), 0).astype(np.int64)
        a, b, g = sample_groups(rng, slots, need[order], pool, start[order], count[order])
        g = order[g]
        drawn += np.bincount(g, minlength=L)
        ok = label_reachable(a, b, g)
        store.run(a[ok], b[ok], sets=False)
        draws.add(LOC_LABEL, g[ok], a[ok], b[ok])


def _rank_of(order, n):
    """Position of each code in ``order``."""
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def _rank_in_group(group) -> np.ndarray:
    """0, 1, 2, ... within each run of equal (contiguous) values of ``group``."""
    n = len(group)
    if not n:
        return np.zeros(0, np.int64)
    new = np.r_[True, group[1:] != group[:-1]]
    start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    return np.arange(n) - start
