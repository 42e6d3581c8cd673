"""The chance sample: between-item pairings, drawn at random and stratified (DESIGN §5).

A chance pairing is the annotation of item i by annotator a and the annotation of item j
by annotator b, with i != j and a != b. The pairings drawn here go through the same
matching pipeline, with the same threshold, as the within-item pairings
(:func:`iaa_frames.pipeline.run`); ``match`` below is that pipeline.

Strata
------
Sampling is stratified so that every reported cell has enough chance units. ``n_chance``
(default :data:`DEFAULT_N_CHANCE` = 2000) is the target per stratum:

* ``"(all)"``: pairings drawn uniformly, until every annotator is involved in at least
  ``n_chance`` matched chance pairs (localization) and ``n_chance`` pairings were drawn;
* per class, for localization: both annotations drawn among those containing the class,
  until ``min(n_chance, max(200, 5 * w))`` matched pairs of two objects of that class are
  found, w being the number of within-item matched pairs of that class (more chance
  pairs than that would not make the class's figures more precise: the within pairs
  limit them);
* per class, for detection and overall: ``n_chance`` pairings drawn uniformly among the
  pairings in which at least one annotation contains the class (the within-item
  population is restricted the same way).

Each stratum stops after :func:`stratum_cap` ``(target)`` = ``max(100 * target, 10_000)``
drawn pairings even if its target is not met (for example at a threshold so high that
unrelated objects rarely match); the counts actually used are reported as ``n_chance``
in the result.
"""

from __future__ import annotations

import numpy as np

from .corpus import Corpus, Slices
from .matching import _starts
from .pipeline import Matched

__all__ = ["DEFAULT_N_CHANCE", "stratum_cap", "uniform_stratum", "label_localization_strata",
           "label_detection_strata"]

DEFAULT_N_CHANCE = 2000


def stratum_cap(target):
    """Most pairings drawn for a stratum of the given target (array or number)."""
    return np.maximum(100 * np.asarray(target, dtype=np.int64), 10_000)


def _draw(rng, slots: Slices, n, pool, pool_start, pool_count, other_pool=None):
    """Draw ``n[g]`` pairings per group g: side a from group g's pool, side b from the same
    pool (or from ``other_pool``), rejecting same-item and same-annotator pairings."""
    out_a, out_b, out_g = [], [], []
    need = np.asarray(n, dtype=np.int64).copy()
    need[pool_count == 0] = 0
    for _ in range(50):  # rejection rounds; almost always 1-2
        if need.sum() == 0:
            break
        m = np.ceil(need * 1.3).astype(np.int64) + (need > 0) * 8
        g = np.repeat(np.arange(len(need)), m)
        a = pool[pool_start[g] + rng.integers(0, pool_count[g])]
        if other_pool is None:
            b = pool[pool_start[g] + rng.integers(0, pool_count[g])]
        else:
            b = other_pool[rng.integers(0, len(other_pool), size=len(g))]
        ok = (slots.item[a] != slots.item[b]) & (slots.annotator[a] != slots.annotator[b])
        # keep the first need[g] accepted draws of each group
        keep = ok & (_rank_within(g, ok) < need[g])
        out_a.append(a[keep]), out_b.append(b[keep]), out_g.append(g[keep])
        need -= np.bincount(g[keep], minlength=len(need))
    cat = lambda x: np.concatenate(x) if x else np.zeros(0, np.int64)  # noqa: E731
    return cat(out_a), cat(out_b), cat(out_g)


def _rank_within(group, flag):
    """0, 1, 2, ... counting flagged entries within each (contiguous) group."""
    c = np.cumsum(flag)
    starts = np.r_[True, group[1:] != group[:-1]]
    base = np.maximum.accumulate(np.where(starts, np.arange(len(group)), 0))
    return c - c[base] + flag[base] - 1


def _annotator_counts(slots: Slices, m: Matched, a, b, n_ann):
    pa, pb = a[m.pair_pairing], b[m.pair_pairing]
    return (np.bincount(slots.annotator[pa], minlength=n_ann)
            + np.bincount(slots.annotator[pb], minlength=n_ann))


def uniform_stratum(rng, corpus, target, match, reachable):
    """Uniform chance pairings until every annotator has ``target`` matched pairs.

    The first batch (``target`` pairings) also serves detection and overall, so all of it
    is matched; later batches only add localization pairs, so only their pairings that
    ``reachable`` says can produce a match are sent through ``match``.
    """
    slots = corpus.annotations
    pool = np.arange(slots.empty)
    n_ann = len(corpus.annotators)
    counts = np.zeros(n_ann, dtype=np.int64)
    parts, drawn, batch, cap = [], 0, target, int(stratum_cap(target))
    while batch > 0:
        a, b, _ = _draw(rng, slots, [batch], pool, np.array([0]), np.array([len(pool)]))
        if len(a) == 0:
            break
        drawn += len(a)
        if parts:
            ok = reachable(slots, a, b)
            a, b = a[ok], b[ok]
        m = match(slots, a, b, sets=not parts)
        parts.append((a, b, m))
        counts += _annotator_counts(slots, m, a, b, n_ann)
        deficit = target - counts.min()
        if deficit <= 0 or drawn >= cap:
            break
        rate = max(counts.min(), 1) / drawn
        batch = int(min(cap - drawn, max(target, np.ceil(deficit / rate * 1.2))))
    return parts


def _label_pools(corpus: Corpus):
    """Annotation slots containing each class, grouped by class (CSR)."""
    bl = corpus.by_label
    owner = corpus.annotation_of(bl.item[:-1], bl.annotator[:-1])
    order = np.argsort(bl.label[:-1], kind="stable")
    count = np.bincount(bl.label[:-1], minlength=len(corpus.labels))
    return owner[order], _starts(count), count


def label_localization_strata(rng, corpus, target, match, reachable):
    """Per class: pairings of two annotations containing it, until ``target[class]`` pairs
    of two objects of that class are matched.

    Only the pairings whose objects of the class can reach the threshold (``reachable``
    on the class-restricted slots) go through ``match``: the others cannot give a matched
    pair of that class.
    """
    slots = corpus.annotations
    pool, start, count = _label_pools(corpus)
    n_lab = len(corpus.labels)
    have = np.zeros(n_lab, dtype=np.int64)
    drawn = np.zeros(n_lab, dtype=np.int64)
    parts = []
    target = np.broadcast_to(np.asarray(target, dtype=np.int64), (n_lab,))
    cap = stratum_cap(target)
    need = np.where(count > 0, target, 0)
    while need.sum() > 0:
        a, b, g = _draw(rng, slots, need, pool, start, count)
        if len(a) == 0:
            break
        drawn += np.bincount(g, minlength=n_lab)
        ok = reachable(corpus.by_label,
                       corpus.by_label_of(slots.item[a], slots.annotator[a], g),
                       corpus.by_label_of(slots.item[b], slots.annotator[b], g))
        a, b, g = a[ok], b[ok], g[ok]
        m = match(slots, a, b, sets=False)
        la, lb = corpus.label[m.pair_a], corpus.label[m.pair_b]
        keep = (la == lb) & (la == g[m.pair_pairing])
        parts.append((a, b, g, m, keep))
        have += np.bincount(la[keep], minlength=n_lab)
        deficit = np.maximum(target - have, 0)
        rate = np.maximum(have, 1) / np.maximum(drawn, 1)
        need = np.where((deficit > 0) & (drawn < cap),
                        np.minimum(cap - drawn, np.maximum(target, np.ceil(deficit / rate * 1.2))),
                        0).astype(np.int64)
    return parts


def label_detection_strata(rng, corpus, target):
    """Per class: pairings uniform over those where at least one side contains the class.

    Side a is drawn among annotations containing the class and side b among all; when b
    contains the class too the pairing is kept with probability 1/2, which makes the kept
    pairings uniform over the union (such a pairing could have been drawn either way).
    """
    slots = corpus.annotations
    pool, start, count = _label_pools(corpus)
    out_a, out_b, out_g = [], [], []
    need = np.where(count > 0, target, 0).astype(np.int64)
    for _ in range(50):
        if need.sum() == 0:
            break
        a, b, g = _draw(rng, slots, need, pool, start, count, other_pool=np.arange(slots.empty))
        both = corpus.by_label_of(slots.item[b], slots.annotator[b], g) != corpus.by_label.empty
        keep = ~both | (rng.random(len(a)) < 0.5)
        a, b, g = a[keep], b[keep], g[keep]
        keep = _rank_within(g, np.ones(len(g), bool)) < need[g]
        out_a.append(a[keep]), out_b.append(b[keep]), out_g.append(g[keep])
        need -= np.bincount(g[keep], minlength=len(need))
    cat = lambda x: np.concatenate(x) if x else np.zeros(0, np.int64)  # noqa: E731
    return cat(out_a), cat(out_b), cat(out_g)
