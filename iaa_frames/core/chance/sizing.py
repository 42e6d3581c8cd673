"""The detection and overall strata sized by the noise of their chance mean.

A cell's agreement is ``1 - D_w / D_c``: ``D_w`` the mean distance of its within units,
``D_c`` that of its chance units. Of the variance of that ratio, the chance mean adds
``R = f * n_w / n_c`` times what the within mean adds, with

``f = (D_w / D_c)^2 (S_c / S_w)^2``

(``S`` the standard deviations of the two kinds of distances, ``n`` their counts). The
rule ``n_c = 5 n_w`` (:func:`~iaa_frames.core.chance.population.cell_target`) keeps
``R <= 1/5`` when ``f <= 1``; ``f`` is about 1 for image-blind annotators, and far below
it wherever annotators agree better than chance (chance pairings of unrelated pictures
disagree almost always and almost alike: 0.004 on the real LVIS double annotations, 0.03
at 1,000 objects per picture). A stratum of detection and overall therefore aims at
``min(target, max(floor, ceil(5 MARGIN n_w f)))`` chance units, ``f`` the larger of the
two components' and estimated from the cell's within units and the chance units it
holds (a pilot drawn first where it holds too few), :data:`MARGIN` times what the
estimate asks for; where ``f`` cannot be estimated it keeps its target. A cell keeps a
prefix of its stratum's draws (a uniform sample), so where every cell keeps its target
the sample is the one the targets alone give. A class's cells of one annotator (the
class's rows that involve the annotator) have no stratum of their own: the class keeps
at least the draws that bring each to ``min(MIN_CHANCE_UNITS, what every draw gives
it)`` units (:func:`subcell_least`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sampling import rank_in_group

#: Fewest chance units a narrower cell of detection and overall is sized down to, and the
#: pilot its noise is estimated from.
MIN_SIZED = 50
#: Fewest chance pairings of the uniform stratum of detection and overall sized by its
#: noise (the "(all)" cell: the pilot its noise is estimated from).
MIN_SIZED_UNIFORM = 200
#: Times the chance units the estimate of ``f`` asks for that a cell aims at: ``f``
#: rests on the spread of distances that are mostly near 1, so its estimate is noisy
#: (0.43-1.39 over three image-blind annotators whose true ``f`` is about 1).
MARGIN = 2.0


@dataclass(frozen=True)
class WithinNoise:
    """Sums of the within distances of the cells that size the detection and overall
    strata: per cell and component (detection, overall), the count of units, their sum
    and their sum of squares (:func:`noise_sums`).

    ``whole`` is the "(all)" cell (shape (2, 3)); ``annotator`` (A, 2, 3), ``label``
    (L, 2, 3) or a future of it (the within job computes the classes' distances beside
    the first strata: :meth:`label_sums`); ``pair`` (P, 2, 3) per key of ``pair_key``
    (``a * n_annotators + b``, a < b, sorted).
    """

    whole: np.ndarray
    annotator: np.ndarray
    pair_key: np.ndarray
    pair: np.ndarray
    label: np.ndarray

    def __add__(self, other):
        """The sums of two shares of the within units (partitions of a corpus)."""
        if isinstance(other, int) and other == 0:  # sum() starts from 0
            return self
        key, at = np.unique(np.r_[self.pair_key, other.pair_key], return_inverse=True)
        pair = np.zeros((len(key), 2, 3))
        np.add.at(pair, at.ravel(), np.concatenate([self.pair, other.pair]))
        return WithinNoise(
            self.whole + other.whole,
            self.annotator + other.annotator,
            key,
            pair,
            self.label_sums() + other.label_sums(),
        )

    __radd__ = __add__

    def label_sums(self) -> np.ndarray:
        """The classes' sums (waiting for them where they are a future)."""
        return self.label.result() if hasattr(self.label, "result") else self.label

    def pair_sums(self, key) -> np.ndarray:
        """The sums of the pairs of annotators ``key`` (zeros for a pair without any)."""
        key = np.asarray(key, dtype=np.int64)
        out = np.zeros((len(key), 2, 3))
        if len(self.pair_key) and len(key):
            pos = np.minimum(np.searchsorted(self.pair_key, key), len(self.pair_key) - 1)
            hit = self.pair_key[pos] == key
            out[hit] = self.pair[pos[hit]]
        return out


def within_noise(annotator_a, annotator_b, distances, label_sums, *, n_annotators) -> WithinNoise:
    """The :class:`WithinNoise` of the within pairings (their annotators and their
    detection and overall distances, ``distances = (detection, overall)``) and of their
    (pairing, class) rows (``label_sums``, their :func:`noise_sums` by class, or a
    future of them: see :meth:`WithinNoise.label_sums`)."""
    aa = np.asarray(annotator_a, dtype=np.int64)
    ab = np.asarray(annotator_b, dtype=np.int64)
    det, ov = (np.asarray(x, dtype=np.float64) for x in distances)
    key = np.minimum(aa, ab) * n_annotators + np.maximum(aa, ab)
    pair_key, pair = np.unique(key, return_inverse=True)
    both = np.concatenate([aa, ab])
    return WithinNoise(
        whole=noise_sums(det, ov, np.zeros(len(det), np.int64), 1)[0],
        annotator=noise_sums(np.r_[det, det], np.r_[ov, ov], both, n_annotators),
        pair_key=pair_key,
        pair=noise_sums(det, ov, pair.ravel(), len(pair_key)),
        label=label_sums,
    )


def noise_sums(detection, overall, group, n_groups: int) -> np.ndarray:
    """Per group, the (count, sum, sum of squares) of each component's distances, shape
    (n_groups, 2, 3); rows with a negative group are left out.

    Examples
    --------
    >>> s = noise_sums([0.0, 1.0, 0.5], [1.0, 1.0, 1.0], [0, 0, 1], 2)
    >>> s[0].tolist(), s[1, 0].tolist()
    ([[2.0, 1.0, 1.0], [2.0, 2.0, 2.0]], [1.0, 0.5, 0.25])
    """
    group = np.asarray(group, dtype=np.int64)
    keep = group >= 0
    out = np.zeros((n_groups, 2, 3))
    for c, values in enumerate((detection, overall)):
        v = np.asarray(values, dtype=np.float64)[keep]
        g = group[keep]
        out[:, c, 0] = np.bincount(g, minlength=n_groups)
        out[:, c, 1] = np.bincount(g, weights=v, minlength=n_groups)
        out[:, c, 2] = np.bincount(g, weights=v * v, minlength=n_groups)
    return out


def noise_ratio(within, chance) -> np.ndarray:
    """``f`` per cell (the larger of the two components'), from the sums of
    :func:`noise_sums` of the within and the chance units (``(..., 2, 3)`` each); 0 where
    every within distance is 0 (the agreement is 1 whatever the chance mean); infinite
    where it cannot be estimated: fewer than two units of either kind, within distances
    all equal but not 0, or no chance disagreement.

    Examples
    --------
    >>> w = noise_sums([0.1, 0.3], [0.2, 0.4], [0, 0], 1)
    >>> c = noise_sums([0.9, 1.0, 0.8], [0.9, 1.0, 0.8], [0, 0, 0], 1)
    >>> round(float(noise_ratio(w, c)[0]), 4)  # overall's: (0.3 / 0.9)^2 (0.01 / 0.02)
    0.0556
    >>> float(noise_ratio(w, noise_sums([1.0], [1.0], [0], 1))[0])  # one chance unit
    inf
    >>> float(noise_ratio(noise_sums([0, 0], [0, 0], [0, 0], 1), c)[0])  # identical
    0.0
    """
    within, chance = np.asarray(within, dtype=np.float64), np.asarray(chance, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_w, var_w = _moments(within)
        mean_c, var_c = _moments(chance)
        f = (mean_w / mean_c) ** 2 * (var_c / var_w)
    exact = mean_w == 0  # no within disagreement: the chance mean does not matter
    f = np.where(exact, 0.0, f)
    ok = (within[..., 0] >= 2) & (chance[..., 0] >= 2) & (mean_c > 0) & ((var_w > 0) | exact)
    f = np.where(ok & np.isfinite(f), f, np.inf)
    return f.max(axis=-1)


def _moments(sums):
    """Mean and sample variance from (count, sum, sum of squares)."""
    n, s, ss = sums[..., 0], sums[..., 1], sums[..., 2]
    mean = s / n
    var = np.maximum(ss - n * mean * mean, 0.0) / (n - 1)
    return mean, var


def sized_target(target, within_units, f, floor: int) -> np.ndarray:
    """``min(target, max(floor, ceil(5 MARGIN w f)))`` per cell (:data:`MARGIN`); the
    target where ``f`` is infinite (the stratum as
    :func:`~iaa_frames.core.chance.population.cell_target` sizes it).

    Examples
    --------
    >>> sized_target([2000, 2000, 2000, 100], [400, 400, 400, 400], [0.01, 0.25, np.inf, 0.0],
    ...              50).tolist()
    [50, 1000, 2000, 50]
    """
    target = np.asarray(target, dtype=np.int64)
    f = np.asarray(f, dtype=np.float64)
    w = np.asarray(within_units, dtype=np.float64)
    finite = np.isfinite(f)
    want = np.ceil(5.0 * MARGIN * w * np.where(finite, f, 0.0))
    sized = np.minimum(target, np.maximum(floor, want).astype(np.int64))
    return np.where(finite, np.minimum(sized, target), target)


def group_prefix(group, keep) -> np.ndarray:
    """Whether each entry is among the first ``keep[g]`` of its group ``g`` (entries
    grouped by group, in order: :func:`~iaa_frames.core.chance.sampling.sample_groups`).

    Examples
    --------
    >>> group_prefix(np.array([0, 0, 0, 2, 2]), np.array([2, 5, 1])).tolist()
    [True, True, False, True, False]
    """
    group = np.asarray(group, dtype=np.int64)
    return rank_in_group(group) < np.asarray(keep, dtype=np.int64)[group]


def subcell_least(group, entry, sub, held, held_sub, *, n_groups: int, floor: int) -> np.ndarray:
    """Per group of a stratum's draws, how many of its first draws to keep at least so
    that each of its subcells (a class's cell of one annotator) holds ``min(floor, what
    it holds with every draw)`` units.

    Parameters
    ----------
    group : ndarray of int
        The group of each draw (draws grouped by group, in order:
        :func:`~iaa_frames.core.chance.sampling.sample_groups`).
    entry, sub : ndarray of int
        The subcells the draws count in: draw ``entry[i]`` counts in subcell ``sub[i]``
        of its group (a draw that counts in two subcells is listed twice).
    held, held_sub : ndarray of int
        The units the cells hold already: one per (group ``held[j]``, subcell
        ``held_sub[j]``).
    n_groups, floor : int

    Returns
    -------
    ndarray of int, shape (n_groups,)

    Examples
    --------
    Group 0 draws four pairings, of subcells 1, 2, 1, 2; subcell 1 holds one unit
    already. A floor of 2 asks for the first draw of subcell 1 and the second of
    subcell 2:

    >>> subcell_least(np.array([0, 0, 0, 0]), np.arange(4), np.array([1, 2, 1, 2]),
    ...               np.array([0]), np.array([1]), n_groups=1, floor=2).tolist()
    [4]
    """
    group = np.asarray(group, dtype=np.int64)
    entry, sub = np.asarray(entry, dtype=np.int64), np.asarray(sub, dtype=np.int64)
    out = np.zeros(n_groups, dtype=np.int64)
    if not len(entry):
        return out
    n_sub = int(max(sub.max(), np.max(held_sub, initial=0))) + 1
    key = group[entry] * n_sub + sub
    order = np.lexsort((entry, key))  # each subcell's draws in the order drawn
    key, entry = key[order], entry[order]
    cells, count = np.unique(key, return_counts=True)
    rank = rank_in_group(key)  # 0 for a subcell's first draw
    held_key = np.sort(np.asarray(held, dtype=np.int64) * n_sub + np.asarray(held_sub, np.int64))
    have = np.searchsorted(held_key, cells, side="right") - np.searchsorted(held_key, cells)
    need = np.clip(floor - have, 0, count)  # draws each subcell takes (all, if fewer)
    last = rank == np.repeat(need, count) - 1  # the draw that brings it to its floor
    if last.any():  # the group's draws up to that one
        np.maximum.at(out, group[entry[last]], rank_in_group(group)[entry[last]] + 1)
    return out
