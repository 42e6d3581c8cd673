# Over 400 lines: every stratum of the chance sample is drawn here, in order, so the draw reads top
# to bottom.
"""Drawing the strata: :func:`draw` forms every stratum of the chance sample (uniform, per
annotator, per pair of annotators, per class; for detection and overall, then for
localization) and matches each pairing once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_frames.core.matching.corpus import Corpus
from iaa_frames.progress import QUIET, Bars

from .gating import gated_pairings, reachable_label_pairings
from .population import (
    EXACT_PAIRINGS,
    EXACT_WORK,
    LOC_ANNOTATOR,
    LOC_LABEL,
    LOC_UNIFORM,
    MIN_CHANCE_UNITS,
    MIN_TARGET,
    PAIR_BUDGET,
    SETS_ANNOTATOR,
    SETS_LABEL,
    SETS_PAIR,
    SETS_UNIFORM,
    annotator_pools,
    cell_target,
    classes_in_both,
    enumerate_uniform,
    label_fingerprint_order,
    label_pools,
    labels_of_pairings,
    pairing_key,
    stratum_cap,
    uniform_population,
    uniform_target,
    within_pairings_of,
)
from .reach_grid import reach_pairings
from .sampling import (
    in_sorted,
    rank_in_group,
    rank_of,
    sample_groups,
    sorted_unique,
    union_sorted,
)
from .sizing import (
    MIN_SIZED,
    MIN_SIZED_UNIFORM,
    group_prefix,
    noise_ratio,
    noise_sums,
    sized_target,
    subcell_least,
)
from .store import ChanceSample, Draws, Store, WithinCounts

#: The steps of the "chance pairings" progress bar of a sampled chance population.
STEPS = (
    "detection: uniform",
    "detection: per annotator",
    "detection: per annotator pair",
    "detection: per class",
    "localization: uniform",
    "localization: per annotator",
    "localization: per class",
)


def draw(
    corpus: Corpus,
    run,
    within: WithinCounts,
    *,
    n_chance: int,
    seed: int,
    tau: float,
    reachable,
    label_reachable,
    bars: Bars = QUIET,
    run_units=None,
    class_distances=None,
) -> ChanceSample:
    """Draw (or enumerate) the chance pairings of every stratum and match them.

    Parameters
    ----------
    corpus : Corpus
    run : callable ``(a, b, sets) -> Matched``
        The matching pipeline on whole annotations (:func:`iaa_frames.core.matching.pipeline.run`).
    within : WithinCounts
    n_chance, seed, tau
        See :func:`iaa_frames.core.tables.pairs.pair_tables`.
    reachable : callable ``(a, b) -> bool array``
        Pairings of whole annotations that can produce a matched pair.
    label_reachable : callable ``(a, b, label) -> bool array``
        Pairings that can produce a matched pair of two objects of ``label``.
    bars : Bars, optional
        Progress bars (:mod:`iaa_frames.progress`): "chance index" while the pairings
        that can match are listed, then "chance pairings" over the strata (:data:`STEPS`;
        one step when the population is enumerated).
    run_units : callable, optional
        ``(a, b, label) -> (pairing, pair_a, pair_b, pair_iou, pair_distance)``: the
        matched pairs of two objects of class ``label[i]`` of each pairing, those of
        ``run`` (:func:`iaa_frames.core.matching.units.class_units`): the per-class
        localization strata match only those (:meth:`Store.run_units`). None: they
        match their pairings whole.
    class_distances : callable, optional
        ``(a, b, matched, rows, label) -> (detection, overall)``: the distances of the
        chance rows (pairing ``rows[i]`` of the pairings ``(a, b)``, whose whole
        matching is ``matched``; class ``label[i]``). With ``within.noise``, the
        classes' detection strata are sized by their noise too
        (:mod:`iaa_frames.core.chance.sizing`); None: they keep their targets.

    Returns
    -------
    ChanceSample
    """
    slots = corpus.annotations
    n_slots = slots.empty + 1
    A, L = len(corpus.annotators), len(corpus.labels)
    store, draws = Store(slots, run, run_units=run_units, n_labels=L), Draws(n_slots)
    label_source = np.full(L, "", dtype=object)
    state = _Strata(corpus, store, draws, within, n_chance, label_source, class_distances)

    def rng(kind):
        return np.random.default_rng([seed, kind])

    n_pairings, work = uniform_population(slots)
    if n_pairings <= EXACT_PAIRINGS and work <= EXACT_WORK:
        with bars.steps(["every pairing (enumerated)"], desc="chance pairings") as steps:
            steps.start("every pairing (enumerated)")
            a, b = enumerate_uniform(slots)
            store.run(a, b, sets=True)
            draws.add(SETS_UNIFORM, 0, a, b)
        label_source[:] = "enumerated"
        return store.finish(draws, True, label_source)

    gated = gated_pairings(corpus, tau, bars=bars) if tau > 0 else None
    steps = bars.steps(STEPS, desc="chance pairings")  # closed at its total on return
    if gated is not None:
        store.reachable = gated[0]
    everyone = np.arange(slots.empty)
    ann_pool = annotator_pools(slots, A)
    # -- detection and overall: uniform, per annotator, per pair of annotators
    steps.start("detection: uniform")
    a, b, _ = sample_groups(
        rng(SETS_UNIFORM),
        slots,
        [uniform_target(n_chance, within)],
        everyone,
        np.array([0]),
        np.array([slots.empty]),
    )
    a, b = _uniform_sized(state, a, b)
    draws.add(SETS_UNIFORM, 0, a, b)
    uni_a, uni_b, uni_key = a, b, pairing_key(a, b, n_slots)
    aa, ab = slots.annotator[a], slots.annotator[b]
    have = np.bincount(aa, minlength=A) + np.bincount(ab, minlength=A)
    taken = np.concatenate([aa * n_slots**2 + uni_key, ab * n_slots**2 + uni_key])
    steps.start("detection: per annotator")
    a2, b2, g2 = sample_groups(
        rng(SETS_ANNOTATOR),
        slots,
        np.maximum(cell_target(n_chance, within.sets_annotator) - have, 0),
        *ann_pool,
        other="all",
        taken=sorted_unique(taken),
    )
    if within.noise is None:
        store.run(a2, b2, sets=True)
    else:  # each annotator's cell: the uniform pairings involving it, then its own
        det, ov = _set_distances(store, a, b)
        keep = _sized(
            state,
            (a2, b2, g2),
            have,
            noise_sums(np.r_[det, det], np.r_[ov, ov], np.r_[aa, ab], A),
            within.sets_annotator,
            within.noise.annotator,
            lambda x, y, g: _set_sums(store, x, y, g, A),
            sets=True,
        )
        a2, b2, g2 = a2[keep], b2[keep], g2[keep]
    draws.add(SETS_ANNOTATOR, g2, a2, b2)
    steps.start("detection: per annotator pair")
    _pair_strata(state, rng(SETS_PAIR), ann_pool, np.concatenate([a, a2]), np.concatenate([b, b2]))

    # -- per-class detection and overall: pairings where one side contains the class; the
    # uniform stratum's pairings count in the cells of the classes they contain
    steps.start("detection: per class")
    l_pool, l_start, l_count = label_pools(corpus)
    order = label_fingerprint_order(corpus)
    rank = rank_of(order, L)
    u, u_label = labels_of_pairings(corpus, uni_a, uni_b)
    have = np.bincount(u_label, minlength=L)
    a, b, g = sample_groups(
        rng(SETS_LABEL),
        slots,
        np.maximum(cell_target(n_chance, within.sets_label) - have, 0)[order],
        l_pool,
        l_start[order],
        l_count[order],
        other="all",
        taken=sorted_unique(rank[u_label] * n_slots**2 + uni_key[u]),
    )
    if within.noise is None or class_distances is None:
        store.run(a, b, sets=False)
    else:  # each class's cell: the uniform pairings either side of which holds it, then
        # its own (by rank in ``order``, as they were drawn)
        sums = _class_sums(state, uni_a, uni_b, u, u_label, L)
        keep = _sized(
            state,
            (a, b, g),
            have[order],
            sums[order],
            within.sets_label[order],
            within.noise.label_sums()[order],
            lambda x, y, k: _class_sums(state, x, y, np.arange(len(x)), order[k], L)[order],
            sets=False,
            least=_class_annotator_least(slots, (uni_a[u], uni_b[u], rank[u_label]), (a, b, g), L),
        )
        a, b, g = a[keep], b[keep], g[keep]
    draws.add(SETS_LABEL, order[g], a, b)

    # -- localization: matched pairs, uniform then per annotator then per class
    steps.start("localization: uniform")
    if gated is not None:
        _localization_from_index(state, rng(LOC_UNIFORM), order, gated, steps)
        steps.close()
        return store.finish(draws, False, label_source)
    rate = _localization_uniform(state, rng(LOC_UNIFORM), reachable)
    steps.start("localization: per annotator")
    _localization_annotators(state, rng(LOC_ANNOTATOR), ann_pool, reachable, rate)
    steps.start("localization: per class")
    _localization_labels(
        state, rng(LOC_LABEL), tau, order, (l_pool, l_start, l_count), label_reachable
    )
    steps.close()
    return store.finish(draws, False, label_source)


@dataclass(frozen=True)
class _Strata:
    """What every stratum of one draw reads and adds to: the corpus, the store of matched
    pairings, the record of which stratum drew which, the within counts that set the
    targets, ``n_chance`` and the per-class source of the localization baseline."""

    corpus: Corpus
    store: Store
    draws: Draws
    within: WithinCounts
    n_chance: int
    label_source: np.ndarray
    class_distances: object = None

    @property
    def slots(self):
        return self.corpus.annotations


def _units_per(values, flags, n):
    """Count of ``values`` (codes) over the entries where ``flags``."""
    return np.bincount(values[flags], minlength=n)


def _pair_strata(s: _Strata, rng, ann_pool, a, b):
    """Top up the annotator pairs whose pairwise cells the earlier strata cover thinly."""
    slots, store, draws, within, n_chance = s.slots, s.store, s.draws, s.within, s.n_chance
    A = within.sets_pair.n_annotators
    n_slots = slots.empty + 1
    pa, pb, w = within.sets_pair.pairs(2)  # sparse: only pairs that share items
    if not len(pa):
        return
    lo, hi = (
        np.minimum(slots.annotator[a], slots.annotator[b]),
        np.maximum(slots.annotator[a], slots.annotator[b]),
    )
    cell = pa * A + pb  # sorted
    drawn = lo * A + hi
    pos = np.minimum(np.searchsorted(cell, drawn), len(cell) - 1)
    g_have = np.where(cell[pos] == drawn, pos, -1)  # the pair's group, -1 if none
    have = np.bincount(g_have[g_have >= 0], minlength=len(pa))
    need = np.maximum(cell_target(n_chance, w) - have, 0)
    if need.sum() > PAIR_BUDGET:  # documented budget: shrink every deficit alike
        need = np.floor(need * PAIR_BUDGET / need.sum()).astype(np.int64)
    pool, start, count = ann_pool
    key = pairing_key(a, b, n_slots)
    taken = sorted_unique((g_have * n_slots**2 + key)[g_have >= 0])
    a2, b2, g2 = sample_groups(
        rng,
        slots,
        need,
        pool,
        start[pa],
        count[pa],
        other=(pool, start[pb], count[pb]),
        taken=taken,
    )
    if within.noise is None:
        store.run(a2, b2, sets=True)
    else:  # each pair's cell: the earlier strata's pairings of the pair, then its own
        keep = _sized(
            s,
            (a2, b2, g2),
            have,
            _set_sums(store, a, b, g_have, len(pa)),
            w,
            within.noise.pair_sums(cell),
            lambda x, y, g: _set_sums(store, x, y, g, len(pa)),
            sets=True,
        )
        a2, b2, g2 = a2[keep], b2[keep], g2[keep]
    draws.add(SETS_PAIR, pa[g2] * A + pb[g2], a2, b2)


def _uniform_sized(s: _Strata, a, b):
    """The uniform stratum of detection and overall, matched: its first
    :data:`~iaa_frames.core.chance.sizing.MIN_SIZED_UNIFORM` pairings, then as many more of
    its draws (a uniform sample: any prefix is one) as its noise asks for
    (:mod:`iaa_frames.core.chance.sizing`; all of them without ``within.noise``)."""
    store, noise = s.store, s.within.noise
    first = len(a) if noise is None else min(len(a), MIN_SIZED_UNIFORM)
    store.run(a[:first], b[:first], sets=True)
    if first == len(a):
        return a, b
    det, ov = _set_distances(store, a[:first], b[:first])
    f = noise_ratio(noise.whole, noise_sums(det, ov, np.zeros(first, np.int64), 1)[0])
    n = int(sized_target(len(a), within_pairings_of(s.within), f, MIN_SIZED_UNIFORM))
    store.run(a[first:n], b[first:n], sets=True)
    return a[:n], b[:n]


def _sized(
    s: _Strata, drawn, have, have_sums, within_units, within_sums, sums_of, *, sets, least=None
):
    """Of a stratum's draws ``drawn = (a, b, group)`` (each group's a prefix of a uniform
    sample of its cell's population, grouped by group), those kept, all matched: first a
    pilot that brings each cell to :data:`~iaa_frames.core.chance.sizing.MIN_SIZED` chance
    units (``have`` it holds already, whose noise sums are ``have_sums``), then as many
    more as its noise asks for (:func:`~iaa_frames.core.chance.sizing.sized_target`, the
    target being what the cell would hold with every draw). ``sums_of(a, b, group)``:
    the noise sums per group of pairings drawn; ``least``: the fewest draws each group
    keeps whatever its noise (:func:`_class_annotator_least`)."""
    a, b, g = drawn
    need = np.bincount(g, minlength=len(have))
    pilot = np.clip(MIN_SIZED - have, 0, need)
    first = group_prefix(g, pilot)
    s.store.run(a[first], b[first], sets=sets)
    f = noise_ratio(within_sums, have_sums + sums_of(a[first], b[first], g[first]))
    total = sized_target(have + need, within_units, f, MIN_SIZED) - have
    if least is not None:
        total = np.maximum(total, least)
    keep = group_prefix(g, np.clip(total, pilot, need))
    rest = keep & ~first
    s.store.run(a[rest], b[rest], sets=sets)
    return keep


def _class_annotator_least(slots, held, drawn, n_groups: int) -> np.ndarray:
    """The fewest draws of each class's detection stratum that keep each of the class's
    annotator cells (the chance rows of the class that involve the annotator, which no
    stratum of their own tops up) at ``min(MIN_CHANCE_UNITS, what every draw gives it)``
    units (:func:`~iaa_frames.core.chance.sizing.subcell_least`): sizing a class by its own
    noise must not leave those cells under the guard of the engine. Their noise is the
    class's (``f`` far below 1 where the class was sized down), so the guard is what
    binds.
    ``held = (a, b, group)``: the chance rows the classes hold already (the uniform
    pairings that contain them); ``drawn = (a, b, group)``: the stratum's draws."""
    ann = slots.annotator

    def entries(a, b, group):
        aa, ab = ann[a], ann[b]
        two = ab != aa  # a pairing of one annotator's two annotations counts once
        at = np.arange(len(a))
        return np.r_[at, at[two]], np.r_[group, group[two]], np.r_[aa, ab[two]]

    _, held_group, held_sub = entries(*held)
    entry, _, sub = entries(*drawn)
    return subcell_least(
        drawn[2], entry, sub, held_group, held_sub, n_groups=n_groups, floor=MIN_CHANCE_UNITS
    )


def _set_distances(store: Store, a, b):
    """The detection and overall distances of the pairings (a, b), matched whole with
    their set distances (repeats allowed)."""
    key, at = np.unique(pairing_key(a, b, store.n_slots), return_inverse=True)
    m = store.matched_of(key)
    return m.set_detection[at.ravel()], m.set_overall[at.ravel()]


def _set_sums(store: Store, a, b, group, n_groups: int):
    """Noise sums per group of the set distances of the pairings (a, b) of ``group``
    (-1: none)."""
    det, ov = _set_distances(store, a, b)
    return noise_sums(det, ov, group, n_groups)


def _class_sums(s: _Strata, a, b, rows, label, n_labels: int):
    """Noise sums per class of the chance rows (pairing ``rows[i]`` of the pairings (a,
    b), class ``label[i]``): their distances as the chance tables will hold them."""
    key, first, at = np.unique(
        pairing_key(a, b, s.store.n_slots), return_index=True, return_inverse=True
    )
    m = s.store.matched_of(key)
    det, ov = s.class_distances(a[first], b[first], m, at.ravel()[rows], label)
    return noise_sums(det, ov, label, n_labels)


def _fill_from_lists(rng, store, draws, kind, group, key, target, units, n_slots, codes=None):
    """Per group, matched pairings taken in random order from the group's list of
    pairings that can match (a uniform sample without replacement of that list) until
    ``units()`` reaches ``target`` per group; the whole list when it is short. Groups
    are recorded as ``codes[group]`` when ``codes`` is given."""
    if not len(key):
        return
    order = np.lexsort((rng.random(len(key)), group))
    group, key = group[order], key[order]
    pos = rank_in_group(group)
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


def _localization_from_index(s: _Strata, rng, order, gated, steps):
    """Localization strata drawn from the pairings that can match (:func:`gated_pairings`):
    all of them when matching them all costs at most :data:`EXACT_WORK`."""
    corpus, store, draws, within, n_chance = s.corpus, s.store, s.draws, s.within, s.n_chance
    label_source = s.label_source
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
        return np.array([in_sorted(k, sorted_unique(draws.keys(*uni)[1])).sum()])

    _fill_from_lists(
        rng,
        store,
        draws,
        LOC_UNIFORM,
        np.zeros(len(key), np.int64),
        key,
        np.array([n_chance]),
        uniform_units,
        n_slots,
    )

    def annotator_units():
        k, aa, ab, _, _ = _matched_codes(corpus, store)
        u = draws.contains(uni, 0, k)
        own = (SETS_ANNOTATOR, LOC_ANNOTATOR)
        return _units_per(aa, u | draws.contains(own, aa, k), A) + _units_per(
            ab, u | draws.contains(own, ab, k), A
        )

    steps.start("localization: per annotator")
    _fill_from_lists(
        rng,
        store,
        draws,
        LOC_ANNOTATOR,
        np.concatenate([slots.annotator[lo], slots.annotator[hi]]),
        np.concatenate([key, key]),
        cell_target(n_chance, within.loc_annotator),
        annotator_units,
        n_slots,
    )
    # classes, in an order fixed by content (class names do not change the draw)
    steps.start("localization: per class")
    rank = rank_of(order, L)
    work = np.bincount(
        lab, weights=slots.count[lab_key // n_slots] * slots.count[lab_key % n_slots], minlength=L
    )
    target = cell_target(n_chance, within.loc_label)
    exact = (work <= EXACT_WORK) & (target > 0)
    e = exact[lab]
    store.run(lab_key[e] // n_slots, lab_key[e] % n_slots, sets=False)
    draws.add(LOC_LABEL, lab[e], lab_key[e] // n_slots, lab_key[e] % n_slots)
    label_source[exact] = "enumerated"
    label_source[~exact & (target > 0)] = "sampled"
    _fill_from_lists(
        rng,
        store,
        draws,
        LOC_LABEL,
        rank[lab[~e]],
        lab_key[~e],
        target[order],
        lambda: _class_units(corpus, store, draws, L)[order],
        n_slots,
        codes=order,
    )


def _localization_uniform(s: _Strata, rng, reachable):
    """Uniform pairings until the uniform sample holds ``n_chance`` matched pairs."""
    slots, store, draws, n_chance = s.slots, s.store, s.draws, s.n_chance
    n_slots = slots.empty + 1
    g, key = draws.keys(SETS_UNIFORM)
    taken = sorted_unique(key)
    units = int(in_sorted(store.pairs()[0], taken).sum())
    drawn, cap = len(taken), int(stratum_cap(n_chance))
    everyone = np.arange(slots.empty)
    while units < n_chance and drawn < cap:
        rate = max(units, 1) / max(drawn, 1)
        batch = int(min(cap - drawn, max(n_chance, np.ceil((n_chance - units) / rate * 1.2))))
        a, b, _ = sample_groups(
            rng, slots, [batch], everyone, np.array([0]), np.array([slots.empty]), taken=taken
        )
        if not len(a):
            break
        drawn += len(a)
        taken = union_sorted(taken, pairing_key(a, b, n_slots))
        ok = reachable(a, b)
        store.run(a[ok], b[ok], sets=False)
        draws.add(LOC_UNIFORM, 0, a[ok], b[ok])
        key_ok = pairing_key(a[ok], b[ok], n_slots)
        units += int(in_sorted(store.pairs()[0], sorted_unique(key_ok)).sum())
    return max(units, 1) / max(drawn, 1)


def _matched_codes(corpus, store):
    """Matched chance pairs so far: (pairing key, annotators a/b, labels a/b)."""
    key, oa, ob = store.pairs()
    return key, corpus.annotator[oa], corpus.annotator[ob], corpus.label[oa], corpus.label[ob]


def _localization_annotators(s: _Strata, rng, ann_pool, reachable, rate0):
    """Per annotator: uniform pairings involving it until its cell has its target
    (``rate0``: matched pairs per pairing in the uniform stratum, the first guess of how
    many pairings that takes)."""
    corpus, store, draws, within, n_chance = s.corpus, s.store, s.draws, s.within, s.n_chance
    slots = corpus.annotations
    A = len(corpus.annotators)
    target = cell_target(n_chance, within.loc_annotator)
    cap = stratum_cap(target)
    drawn = np.zeros(A, dtype=np.int64)
    for _ in range(20):
        key, aa, ab, _, _ = _matched_codes(corpus, store)
        uni = draws.contains((SETS_UNIFORM, LOC_UNIFORM), 0, key)
        own_a = uni | draws.contains((SETS_ANNOTATOR, LOC_ANNOTATOR), aa, key)
        own_b = uni | draws.contains((SETS_ANNOTATOR, LOC_ANNOTATOR), ab, key)
        have = _units_per(aa, own_a, A) + _units_per(ab, own_b, A)
        if not drawn.any():
            start = have
        deficit = np.maximum(target - have, 0)
        active = (deficit > 0) & (drawn < cap)
        if not active.any():
            return
        rate = np.where(drawn > 0, np.maximum(have - start, 1) / np.maximum(drawn, 1), rate0)
        need = np.where(
            active,
            np.minimum(
                cap - drawn, np.maximum(MIN_TARGET, np.ceil(deficit / np.maximum(rate, 1e-3) * 1.2))
            ),
            0,
        ).astype(np.int64)
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
    same = la == lb
    uni = draws.contains((SETS_UNIFORM, LOC_UNIFORM), 0, key)
    own = draws.contains((SETS_LABEL, LOC_LABEL), la, key)
    return _units_per(la, same & (uni | own), L)


def _class_yield(corpus, store, draws, L):
    """Per class, (units, pairings) of the pairings the detection strata drew (uniform,
    and the class's own) that join two annotations holding the class: a uniform sample of
    the population its localization stratum draws from, and so the units a pairing of
    that stratum gives (what the per-annotator strata take from the uniform one)."""
    key, _, _, la, lb = _matched_codes(corpus, store)
    drawn = draws.contains((SETS_UNIFORM,), 0, key) | draws.contains((SETS_LABEL,), la, key)
    units = _units_per(la, (la == lb) & drawn, L)
    pairings = np.zeros(L, dtype=np.int64)
    n_slots = corpus.annotations.empty + 1
    for kind in (SETS_UNIFORM, SETS_LABEL):
        group, k = draws.keys(kind)
        p, lab = classes_in_both(corpus, k // n_slots, k % n_slots)
        own = lab == group[p] if kind == SETS_LABEL else slice(None)
        pairings += np.bincount(lab[own], minlength=L)
    return units, pairings


def _localization_labels(s: _Strata, rng, tau, order, l_pools, label_reachable):
    """Per class: pairings of two annotations containing it until its localization cell
    has its target; enumerated where the class's objects are few (see the package notes).
    Each pairing is matched for the class's units only (:meth:`Store.run_units`): the
    components of its eligible object pairs that hold an object of the class."""
    corpus, store, draws, within, n_chance = s.corpus, s.store, s.draws, s.within, s.n_chance
    label_source = s.label_source
    slots = corpus.annotations
    L = len(corpus.labels)
    target = cell_target(n_chance, within.loc_label)
    deficit = np.maximum(target - _class_units(corpus, store, draws, L), 0)
    n_obj = np.bincount(corpus.label, minlength=L)
    cost = n_obj * (n_obj - 1) // 2
    small = (deficit > 0) & (cost <= EXACT_WORK)
    small &= np.cumsum(np.where(small, cost, 0)) <= 10 * EXACT_WORK
    # the larger classes of boxes: every pairing that can match listed from the reach
    # boxes, where the object pairs to look at are at most the pairings the stratum may
    # draw (a pair looked at costs about a pairing drawn: the list never costs more, and
    # is complete where the draws find few; 10 boxes per image, small against it: 1 drawn
    # pairing in 3,600 can match, and 200,000 draws of a class found 50 of its 2,000 units)
    lab, a, b, listed = reach_pairings(
        corpus, np.flatnonzero((deficit > 0) & ~small), tau, stratum_cap(target)
    )
    if small.any():
        lab, a, b = _merged(
            reachable_label_pairings(corpus, np.flatnonzero(small), tau), (lab, a, b)
        )
    small |= listed
    if small.any():
        work = np.bincount(lab, weights=slots.count[a] * slots.count[b], minlength=L)
        # a listed class is matched a uniform prefix at a time (its list may hold many
        # times its target), "enumerated" below if that took its whole list
        exact = small & ~listed & (work <= EXACT_WORK)
        e = exact[lab]
        store.run_units(a[e], b[e], lab[e])
        draws.add(LOC_LABEL, lab[e], a[e], b[e])
        label_source[exact] = "enumerated"
        # the other small classes: a uniform prefix of their reachable pairings
        s = ~e
        lab, a, b = lab[s], a[s], b[s]
        shuffled = np.lexsort((rng.random(len(lab)), rank_of(order, L)[lab]))
        lab, a, b = lab[shuffled], a[shuffled], b[shuffled]
        pos = rank_in_group(lab)
        done = np.zeros(L, dtype=np.int64)
        for _ in range(20):
            left = np.maximum(target - _class_units(corpus, store, draws, L), 0)
            active = ~exact & small & (left > 0)
            if not active.any():
                break
            # a listed pairing can match (almost every one adds a unit): its class takes
            # what it lacks, not twice that (10/img: two classes got 2,190 units each,
            # not 3,800)
            step = np.maximum(np.where(listed, left, 2 * left), MIN_TARGET)
            pick = active[lab] & (pos >= done[lab]) & (pos < done[lab] + step[lab])
            if not pick.any():
                break
            store.run_units(a[pick], b[pick], lab[pick])
            draws.add(LOC_LABEL, lab[pick], a[pick], b[pick])
            done = np.where(active, done + step, done)
        label_source[small & ~exact] = "sampled"
        label_source[listed & (done >= np.bincount(lab, minlength=L))] = "enumerated"
    big = (deficit > 0) & ~small
    if not big.any():
        return
    label_source[big] = "sampled"
    pool, start, count = l_pools
    cap = stratum_cap(target)
    drawn = np.zeros(L, dtype=np.int64)
    # each round draws pairings no earlier round drew (``taken``: position in ``order``
    # and key), so that a class whose pairings run out stops; kept for the classes whose
    # pairings the stratum can exhaust (elsewhere a repeat is rare and adds no unit)
    taken, n_slots = np.zeros(0, np.int64), slots.empty + 1
    finite = (count * count <= 8 * cap)[order]
    # units a pairing gives, from the detection strata's pairings of the class and then
    # its own draws too: fewer draws than the target where pairings hold many units
    # (1,000 boxes per image: 2.6 units a pairing, 380 pairings instead of 2,000)
    units0, pairings0 = _class_yield(corpus, store, draws, L)
    have0 = _class_units(corpus, store, draws, L)
    for _ in range(20):
        have = _class_units(corpus, store, draws, L)
        left = np.maximum(target - have, 0)
        active = big & (left > 0) & (drawn < cap)
        if not active.any():
            break
        rate = np.maximum(have, 1) / np.maximum(drawn, 1)
        need = np.where(
            active, np.minimum(cap - drawn, np.maximum(target, np.ceil(left / rate * 1.2))), 0
        ).astype(np.int64)
        pooled = (units0 + have - have0) / np.maximum(pairings0 + drawn, 1)
        guess = np.maximum(MIN_TARGET, np.ceil(left / np.maximum(pooled, 1e-9) * 1.2))
        need = np.where(pooled > 0, np.minimum(need, guess), need).astype(np.int64)
        a, b, g = sample_groups(
            rng, slots, need[order], pool, start[order], count[order], taken=taken
        )
        key = pairing_key(a, b, n_slots)
        key += g * n_slots**2
        taken = union_sorted(taken, key if finite.all() else key[finite[g]])
        del key
        g = order[g]
        got = np.bincount(g, minlength=L)
        drawn = np.where(got < need, cap, drawn + got)  # fewer than asked: none left
        ok = label_reachable(a, b, g)
        store.run_units(a[ok], b[ok], g[ok])
        draws.add(LOC_LABEL, g[ok], a[ok], b[ok])


def _merged(first, second):
    """Two lists ``(class, a, b)`` of pairings of distinct classes, each ordered by class,
    as one ordered by class (each class's pairings in their order)."""
    if not len(second[0]):
        return first
    lab, a, b = (np.concatenate(x) for x in zip(first, second, strict=True))
    order = np.argsort(lab, kind="stable")
    return lab[order], a[order], b[order]
