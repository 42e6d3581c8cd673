"""The records of a chance sample: which strata drew which pairings (:class:`Draws`), the
pairings matched so far, each once (:class:`Store`), and the finished
:class:`ChanceSample`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iaa_frames.core.matching import units as matching_units
from iaa_frames.core.matching.assignment import run_starts
from iaa_frames.core.matching.corpus import Slices
from iaa_frames.core.matching.pipeline import Matched

from .population import pairing_key
from .sampling import first_occurrence, in_sorted, sorted_unique, union_sorted
from .sizing import WithinNoise

#: Most pairings one call of the matching pipeline receives from :meth:`Store.run`.
RUN_PAIRINGS = 250_000


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Within-item pairings of each pair of annotators ``a < b`` that has any, sparse:
    memory grows with the pairs that annotate a common item, not with annotators².

    ``key = a * n_annotators + b`` (sorted, distinct) and ``count`` per key. Shares of
    several partitions add up with ``+`` (and ``sum``).

    Examples
    --------
    >>> c = PairCounts.of(np.array([0, 2, 0]), np.array([1, 3, 1]), 4)
    >>> c.pairs(1)
    (array([0, 2]), array([1, 3]), array([2, 1]))
    >>> (c + c).pairs(3)
    (array([0]), array([1]), array([4]))
    """

    key: np.ndarray
    count: np.ndarray
    n_annotators: int

    @classmethod
    def of(cls, lo, hi, n_annotators: int, weight=None) -> PairCounts:
        """Counts of the pairs (lo[i], hi[i]), lo < hi (each weighted by ``weight``)."""
        key = np.asarray(lo, dtype=np.int64) * n_annotators + np.asarray(hi, dtype=np.int64)
        w = np.ones(len(key), np.int64) if weight is None else np.asarray(weight, np.int64)
        order = np.argsort(key, kind="stable")
        key, w = key[order], w[order]
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else order[:0]
        return cls(key[first], np.add.reduceat(w, first) if len(first) else w[:0], n_annotators)

    def pairs(self, min_count: int = 1):
        """(a, b, count) of the pairs with at least ``min_count`` pairings, a < b, by key."""
        a, b = self._codes()
        sel = (self.count >= min_count) & (a < b)
        return a[sel], b[sel], self.count[sel]

    def __add__(self, other):
        if isinstance(other, int) and other == 0:  # sum() starts from 0
            return self
        n = max(self.n_annotators, other.n_annotators)
        a, b = (np.concatenate(x) for x in zip(self._codes(), other._codes(), strict=True))
        return PairCounts.of(a, b, n, np.concatenate([self.count, other.count]))

    def _codes(self):
        n = max(self.n_annotators, 1)
        return self.key // n, self.key % n

    __radd__ = __add__


@dataclass(frozen=True)
class WithinCounts:
    """Within-item units per narrower cell, which set the targets of their strata."""

    sets_annotator: np.ndarray  # (A,) pairings involving each annotator
    sets_pair: PairCounts  # pairings of each pair of annotators (a < b), sparse
    sets_label: np.ndarray  # (L,) (pairing, class) rows of each class
    loc_annotator: np.ndarray  # (A,) matched pairs involving each annotator
    loc_label: np.ndarray  # (L,) matched pairs of two objects of each class
    # the within distances of the detection and overall cells, which size their strata
    # by their noise (:mod:`iaa_frames.core.chance.sizing`); None: every stratum at its target
    noise: WithinNoise | None = None


@dataclass
class Draws:
    """Which strata drew which pairings: ``(kind, group, key)`` records.

    ``group`` is the annotator code (annotator strata), ``a * n_annotators + b`` (pair
    strata), the class code (class strata) or 0 (uniform strata). Records come in calls
    of :meth:`add`: ``kind`` holds the kind of each call, ``group`` and ``key`` its
    arrays.
    """

    n_slots: int
    kind: list = field(default_factory=list)
    group: list = field(default_factory=list)
    key: list = field(default_factory=list)
    _index: dict = field(default_factory=dict, repr=False)

    def add(self, kind: int, group, a, b) -> None:
        self._index.clear()
        a = np.asarray(a, dtype=np.int64)
        self.kind.append(int(kind))  # one kind per call: the records of a call share it
        self.group.append(np.broadcast_to(np.asarray(group, dtype=np.int64), a.shape).copy())
        self.key.append(pairing_key(a, b, self.n_slots))

    def keys(self, *kinds) -> tuple[np.ndarray, np.ndarray]:
        """(group, key) of the records of the given kinds, in order of record."""
        parts = [i for i, kind in enumerate(self.kind) if kind in kinds]
        if not parts:
            z = np.zeros(0, np.int64)
            return z, z
        return (
            np.concatenate([self.group[i] for i in parts]),
            np.concatenate([self.key[i] for i in parts]),
        )

    def contains(self, kinds, group, key) -> np.ndarray:
        """Whether each (group, key) was drawn by a stratum of one of ``kinds``.

        Groups are renumbered among those drawn, so that no product of a key and a group
        code can overflow (pair groups run to annotators²).
        """
        kinds = tuple(sorted(set(kinds)))
        if kinds not in self._index:  # built once per kinds until the next add()
            g, k = self.keys(*kinds)
            codes = sorted_unique(g)
            self._index[kinds] = codes, sorted_unique(k * len(codes) + _positions(codes, g))
        codes, drawn = self._index[kinds]
        key = np.asarray(key, dtype=np.int64)
        group = np.broadcast_to(np.asarray(group, dtype=np.int64), key.shape)
        if not len(codes):
            return np.zeros(key.shape, dtype=bool)
        pos = _positions(codes, group)
        return (pos >= 0) & in_sorted(key * len(codes) + pos, drawn)


def _positions(codes, group) -> np.ndarray:
    """Position of each ``group`` in ``codes`` (sorted, distinct), -1 where
    absent: a table lookup when the codes are small (annotator and class codes), else a
    binary search (pairs of annotators).

    Examples
    --------
    >>> _positions(np.array([2, 5]), np.array([5, 3, 2, 9])).tolist()
    [1, -1, 0, -1]
    """
    if not len(codes):
        return np.full(np.shape(group), -1, dtype=np.int64)
    top = int(codes[-1])
    if codes[0] >= 0 and top < 4 * (group.size + len(codes)) + 1024:
        table = np.full(top + 1, -1, dtype=np.int64)
        table[codes] = np.arange(len(codes))
        inside = (group >= 0) & (group <= top)
        return np.where(inside, table[np.clip(group, 0, top)], -1)
    pos = np.minimum(np.searchsorted(codes, group), len(codes) - 1)
    return np.where(codes[pos] == group, pos, -1)


@dataclass(frozen=True, eq=False)
class ChanceSample:
    """The distinct chance pairings, matched once each, and the strata that drew them.

    ``a``, ``b``, ``key`` and ``has_sets`` have one entry per pairing; ``matched`` holds
    their matching (whole annotations; set distances where ``has_sets``), except for a
    pairing drawn by the per-class localization strata only, which holds the units of
    the classes that drew it (:meth:`Store.run_units`).
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


class Store:
    """Chance pairings matched so far, each matched once.

    With ``reachable`` (the sorted keys of the pairings that can produce a matched pair,
    :func:`gated_pairings`), a pairing outside it that needs no set distance is not sent
    through the pipeline: its matching is known to be empty.
    """

    def __init__(self, slots: Slices, run, reachable=None, run_units=None, n_labels: int = 1):
        self.slots, self._run, self.reachable = slots, run, reachable
        self._run_units, self.n_labels = run_units, max(int(n_labels), 1)
        self.n_slots = slots.empty + 1
        self.keys = np.zeros(0, np.int64)
        self.parts = []
        # pairings held by their class units only (:meth:`run_units`): sorted keys, the
        # slots of their entry, and the (key, class) pairs matched; the units themselves
        self.unit_keys, self.unit_a, self.unit_b = (np.zeros(0, np.int64) for _ in range(3))
        self.unit_done = np.zeros(0, np.int64)
        self.units = []

    def run(self, a, b, *, sets: bool) -> None:
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        key = pairing_key(a, b, self.n_slots)
        if in_sorted(key, self.unit_keys).any():  # never: the class strata come last
            raise RuntimeError("a pairing held by its class units only is matched whole")
        new = first_occurrence(key) & ~in_sorted(key, self.keys)
        if not new.any():
            return
        a, b, key = a[new], b[new], key[new]
        self.keys = union_sorted(self.keys, key)
        if not sets and self.reachable is not None:
            can = in_sorted(key, self.reachable)
            if (~can).any():
                self.parts.append(
                    (
                        a[~can],
                        b[~can],
                        key[~can],
                        np.zeros((~can).sum(), bool),
                        unmatched(self.slots, a[~can], b[~can]),
                    )
                )
            a, b, key = a[can], b[can], key[can]
        # a few hundred thousand pairings at a time: the pipeline's temporaries grow with
        # the pairings of a call (a big crowd's annotator strata draw millions at once),
        # and a pairing's matching does not depend on the others of its call
        for lo in range(0, len(a), RUN_PAIRINGS):
            hi = lo + RUN_PAIRINGS
            self.parts.append(
                (
                    a[lo:hi],
                    b[lo:hi],
                    key[lo:hi],
                    np.full(len(a[lo:hi]), sets),
                    self._run(a[lo:hi], b[lo:hi], sets),
                )
            )

    def run_units(self, a, b, label) -> None:
        """Match the pairings ``(a[i], b[i])`` for the localization cell of class
        ``label[i]`` only: of a pairing not yet held, only its *units* of the class (its
        matched pairs of two objects of the class, what the class's cell takes of it:
        :func:`iaa_frames.core.matching.units.class_units`), the units of each further class
        that draws it added later. A pairing already held whole is left as it is.

        Such a pairing takes its place among the pairings in the order they came, as
        :meth:`run` would give it, with the units of every class that drew it, in the
        order of its whole matching (:meth:`finish`): the localization rows of the class
        cells are those of matching it whole. Its detection fields are not measured
        (``set_detection`` NaN, ``set_matched`` the units held): no cell reads them (the
        class strata draw last; a pairing of a detection stratum is matched whole
        before). Without ``run_units`` (or when keys would overflow) every pairing is
        matched whole (:meth:`run`), and so is a call whose pairings are all too small for
        their components to pay (under
        :data:`~iaa_frames.core.matching.units.RESTRICT_MIN_PAIRS` object pairs, none held by
        its units): matched once whatever the classes that draw them, as before the
        units.
        """
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        label = np.asarray(label, dtype=np.int64)
        if self._run_units is None or int(self.n_slots) ** 2 * self.n_labels >= 2**62:
            self.run(a, b, sets=False)
            return
        key = pairing_key(a, b, self.n_slots)
        count = self.slots.count
        small = count[a] * count[b] < matching_units.RESTRICT_MIN_PAIRS
        if (small & ~in_sorted(key, self.unit_keys)).all():
            self.run(a, b, sets=False)
            return
        whole = in_sorted(key, self.keys) & ~in_sorted(key, self.unit_keys)
        unit = key * self.n_labels + label
        todo = ~whole & first_occurrence(unit) & ~in_sorted(unit, self.unit_done)
        if not todo.any():
            return
        fresh = todo & first_occurrence(np.where(todo, key, -1)) & ~in_sorted(key, self.keys)
        if fresh.any():  # their entries, in the order of the call, as run() adds them
            fa, fb, fk = a[fresh], b[fresh], key[fresh]
            n_a, n_b, z = self.slots.count[fa], self.slots.count[fb], np.zeros(0, np.int64)
            nan = np.full(len(fa), np.nan)
            held = Matched(z, z, z, nan[:0], nan[:0], n_a, n_b, np.zeros_like(n_a), nan, nan)
            self.parts.append((fa, fb, fk, np.zeros(len(fa), bool), held))
            self.keys = union_sorted(self.keys, fk)
            order = np.argsort(np.concatenate([self.unit_keys, fk]), kind="stable")
            self.unit_keys = np.concatenate([self.unit_keys, fk])[order]
            self.unit_a = np.concatenate([self.unit_a, fa])[order]
            self.unit_b = np.concatenate([self.unit_b, fb])[order]
        key, label = key[todo], label[todo]
        self.unit_done = union_sorted(self.unit_done, unit[todo])
        pos = np.searchsorted(self.unit_keys, key)  # each pairing in its entry's order
        p, oa, ob, iou, dist = self._run_units(self.unit_a[pos], self.unit_b[pos], label)
        self.units.append((key[p], oa, ob, iou, dist))

    def pairs(self):
        """Every matched pair so far: (pairing key, object a, object b)."""
        parts = [(key[m.pair_pairing], m.pair_a, m.pair_b) for _, _, key, _, m in self.parts]
        parts += [u[:3] for u in self.units]
        if not parts:
            z = np.zeros(0, np.int64)
            return z, z, z
        return tuple(np.concatenate(x) for x in zip(*parts))

    def matched_of(self, key) -> Matched:
        """The matching of the pairings ``key`` (distinct, each held whole), in that order,
        read before the sample is done (the strata sized by their noise)."""
        key = np.asarray(key, dtype=np.int64)
        if not len(key):
            return Matched.empty()
        whole = {n: np.concatenate([getattr(p[4], n) for p in self.parts]) for n in _FIELDS}
        offset = run_starts(np.array([len(p[0]) for p in self.parts]))
        at = _entry_of(np.concatenate([p[2] for p in self.parts]), key)
        where = np.full(len(whole["set_n_a"]), -1, dtype=np.int64)
        where[at] = np.arange(len(key))
        owner = where[np.concatenate([p[4].pair_pairing + o for p, o in zip(self.parts, offset)])]
        take = np.flatnonzero(owner >= 0)
        take = take[np.argsort(owner[take], kind="stable")]
        pairs = [whole[n][take] for n in _FIELDS[:4]]
        return Matched(owner[take], *pairs, *(whole[n][at] for n in _FIELDS[4:]))

    def finish(self, draws, exact, label_source) -> ChanceSample:
        """The sample of every pairing matched; the store is emptied (its parts are
        concatenated one field at a time and released as they are, so that the sample
        and the parts are never both held whole)."""
        if not self.parts:
            z = np.zeros(0, np.int64)
            return ChanceSample(
                z, z, z, np.zeros(0, bool), Matched.empty(), draws, exact, label_source
            )
        offset = run_starts(np.array([len(p[0]) for p in self.parts]))
        # one dict of fields per part, emptied field by field
        parts = [
            {"a": a, "b": b, "key": key, "has_sets": s}
            | {name: getattr(m, name) for name in Matched.__dataclass_fields__}
            for a, b, key, s, m in self.parts
        ]
        units = self._held_units()
        self.parts, self.keys = [], np.zeros(0, np.int64)
        fields = {}
        for name in ("a", "b", "key", "has_sets", *Matched.__dataclass_fields__):
            values = [p.pop(name) for p in parts]
            if name == "pair_pairing":
                values = [v + o for v, o in zip(values, offset)]
            fields[name] = np.concatenate(values)
            del values
            if units is not None and name == "pair_pairing":  # where each unit goes
                entry = _entry_of(fields["key"], units.pop("unit_key"))
                order = np.lexsort((units["pair_b"], units["pair_a"], entry))
                at = np.searchsorted(fields["pair_pairing"], entry[order])
                units["pair_pairing"] = entry
            if units is not None and name in units:
                fields[name] = np.insert(fields[name], at, units.pop(name)[order])
            if units is not None and name == "set_matched":
                fields[name] = fields[name] + np.bincount(entry, minlength=len(fields[name]))
        a, b, key, has_sets = (fields.pop(name) for name in ("a", "b", "key", "has_sets"))
        return ChanceSample(a, b, key, has_sets, Matched(**fields), draws, exact, label_source)

    def _held_units(self):
        """The units of :meth:`run_units` as the fields of their matched pairs (their
        pairing's key in place of ``pair_pairing``), None when there are none; emptied."""
        if not self.units:
            return None
        names = ("unit_key", "pair_a", "pair_b", "pair_iou", "pair_distance")
        out = {n: np.concatenate(x) for n, x in zip(names, zip(*self.units), strict=True)}
        self.units = []
        return out


#: The fields of a matching after ``pair_pairing``: of its pairs, then of its pairings.
_FIELDS = tuple(Matched.__dataclass_fields__)[1:]


def _entry_of(keys, key) -> np.ndarray:
    """Position of each ``key`` among the pairings' ``keys`` (distinct, each present)."""
    order = np.argsort(keys, kind="stable")
    return order[np.searchsorted(keys, key, sorter=order)]


def unmatched(slots: Slices, a, b) -> Matched:
    """The matching of pairings that cannot produce a matched pair (no set distances)."""
    n_a, n_b = slots.count[a], slots.count[b]
    z = np.zeros(0, np.int64)
    return Matched(
        z,
        z,
        z,
        np.zeros(0),
        np.zeros(0),
        n_a,
        n_b,
        np.zeros(len(a), np.int64),
        np.where(n_a + n_b == 0, 0.0, 1.0),
        np.full(len(a), np.nan),
    )
