"""The records of a chance sample: which strata drew which pairings (:class:`Draws`), the
pairings matched so far, each once (:class:`Store`), and the finished
:class:`ChanceSample`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..corpus import Slices
from ..matching import run_starts
from ..pipeline import Matched
from .population import pairing_key
from .sampling import first_occurrence


@dataclass(frozen=True)
class WithinCounts:
    """Within-item units per narrower cell, which set the targets of their strata."""

    sets_annotator: np.ndarray  # (A,) pairings involving each annotator
    sets_pair: np.ndarray  # (A, A) pairings of each pair of annotators (a < b)
    sets_label: np.ndarray  # (L,) (pairing, class) rows of each class
    loc_annotator: np.ndarray  # (A,) matched pairs involving each annotator
    loc_label: np.ndarray  # (L,) matched pairs of two objects of each class


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


class Store:
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
        new = first_occurrence(key) & ~np.isin(key, self.keys)
        if not new.any():
            return
        a, b, key = a[new], b[new], key[new]
        self.keys = np.union1d(self.keys, key)
        if not sets and self.reachable is not None:
            can = np.isin(key, self.reachable)
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
        if len(a):
            self.parts.append((a, b, key, np.full(len(a), sets), self._run(a, b, sets)))

    def pairs(self):
        """Every matched pair so far: (pairing key, object a, object b)."""
        if not self.parts:
            z = np.zeros(0, np.int64)
            return z, z, z
        return tuple(
            np.concatenate(x)
            for x in zip(
                *[(key[m.pair_pairing], m.pair_a, m.pair_b) for _, _, key, _, m in self.parts]
            )
        )

    def finish(self, draws, exact, label_source) -> ChanceSample:
        if not self.parts:
            z = np.zeros(0, np.int64)
            return ChanceSample(
                z, z, z, np.zeros(0, bool), Matched.empty(), draws, exact, label_source
            )
        offset = run_starts(np.array([len(p[0]) for p in self.parts]))
        fields = {}
        for name in Matched.__dataclass_fields__:
            values = [getattr(m, name) for *_, m in self.parts]
            if name == "pair_pairing":
                values = [v + o for v, o in zip(values, offset)]
            fields[name] = np.concatenate(values)
        a, b, key, has_sets = (np.concatenate([p[i] for p in self.parts]) for i in range(4))
        return ChanceSample(a, b, key, has_sets, Matched(**fields), draws, exact, label_source)


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
