"""CLEAR MOT between two annotators' tracks, with one of them as the reference: the
correspondence of every frame, ID switches, fragmentations, MOTA's errors and MOTP.

The correspondence is that of Bernardin and Stiefelhagen (2008, "Evaluating Multiple
Object Tracking Performance: The CLEAR MOT Metrics") as ``motmetrics`` computes it, frame
after frame of every unit (:mod:`iaa_frames.temporal.frames`), from the object pairs within
the threshold (IoU >= τ, ``near`` of :class:`~iaa_frames.temporal.frames.FrameMatches`):

1. a reference track keeps the partner track it was last matched to (on any earlier
   frame) while their objects are still within τ; where two reference tracks were last
   matched to the same partner track, the one with the smaller id keeps it (``motmetrics``
   takes the first of the ids it is given, and MOT files list them in increasing order);
2. the other objects of the frame are assigned one to one: the most pairs within τ, and
   among those the least total distance ``1 - IoU`` (``motmetrics``' Hungarian step);
3. an **ID switch** is a reference track matched in step 2 to another partner track
   than on its last matched frame.

A **fragmentation** is a reference track going from matched to unmatched between its
first and last matched frame. MOTA = 1 - (misses + false positives + switches) / objects
of the reference, MOTP = the mean distance ``1 - IoU`` of the matched pairs (both as
``motmetrics`` with :func:`motmetrics.distances.iou_matrix` distances).

Only frames with a real choice (an object within τ of two objects of the other side)
depend on earlier frames: the others' pairs are matched whatever came before. Those
frames are solved in rounds, the k-th such frame of every unit in round k, each round a
few array operations over all units and one call of
:func:`~iaa_frames.core.matching.assignment.assign` (a loop per frame with a choice, as the
Hungarian step of ``motmetrics``; no loop per object or pair).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.core.matching.assignment import assign

from .frames import FrameMatches

__all__ = ["ClearMot", "clear_mot", "fragmentations"]


@dataclass(frozen=True, eq=False)
class ClearMot:
    """CLEAR MOT figures per unit, with one side as the reference.

    Attributes
    ----------
    matched : ndarray of float
        Matched object pairs (``motmetrics``' detections: matches and switches).
    switches, fragmentations : ndarray of float
        ID switches and fragmentations of the reference's tracks.
    distance : ndarray of float
        Sum of ``1 - IoU`` over the matched pairs (MOTP = distance / matched).
    pairs : ndarray of int
        Rows of ``FrameMatches.near`` that the correspondence matched.
    """

    matched: np.ndarray
    switches: np.ndarray
    fragmentations: np.ndarray
    distance: np.ndarray
    pairs: np.ndarray


def track_order(tracks: np.ndarray) -> np.ndarray:
    """Rank of every track code by its id: numeric order when every id is a number, else
    string order (the tie rule of step 1).

    Examples
    --------
    >>> track_order(np.array([["A", "10"], ["A", "9"], ["B", "1"]], dtype=object)).tolist()
    [2, 1, 0]
    """
    ids = pd.Series(np.asarray(tracks)[:, 1], dtype=object) if len(tracks) else pd.Series([])
    num = pd.to_numeric(ids, errors="coerce")
    key = num.to_numpy(dtype=float) if not num.isna().any() else ids.astype(str).to_numpy()
    rank = np.empty(len(ids), dtype=np.int64)
    rank[np.argsort(key, kind="stable")] = np.arange(len(ids))
    return rank


def _dense(*keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense codes of the rows' key tuples (lexicographic), and their number."""
    if not len(keys[0]):
        return np.zeros(0, dtype=np.int64), 0
    order = np.lexsort(keys[::-1])
    new = np.zeros(len(order), dtype=bool)
    new[0] = True
    for k in keys:
        ks = k[order]
        new[1:] |= ks[1:] != ks[:-1]
    code = np.empty(len(order), dtype=np.int64)
    code[order] = np.cumsum(new) - 1
    return code, int(new.sum())


def clear_mot(fm: FrameMatches, side: int) -> ClearMot:
    """The CLEAR MOT correspondence of every unit with ``side`` (0: the unit's annotator,
    1: its partner) as the reference, and its figures.

    Examples
    --------
    >>> from iaa_frames.simulate.tracks import simulate_tracks
    >>> from iaa_frames.temporal.frames import match_frames
    >>> df = simulate_tracks(n_sequences=2, seed=0, annotators={"A": {}, "B": {"swaps": 1}})
    >>> fm = match_frames(df, track="track_id", frame="frame", tau=0.5, distance="iou",
    ...                   classes=False)
    >>> c = clear_mot(fm, 0)  # A as the ground truth: one unit per sequence
    >>> c.switches.tolist(), c.matched.tolist(), len(fm.near)
    ([1.0, 2.0], [126.0, 139.0], 265)
    """
    near, n_units = fm.near, len(fm.units)
    r_col, o_col = ("a", "b") if side == 0 else ("b", "a")
    unit = near["unit"].to_numpy()
    obj_r, obj_o = near[f"object_{r_col}"].to_numpy(), near[f"object_{o_col}"].to_numpy()
    trk_r, trk_o = near[f"track_{r_col}"].to_numpy(), near[f"track_{o_col}"].to_numpy()
    iou = near["iou"].to_numpy()
    frame = np.unique(near["frame"].to_numpy(), return_inverse=True)[1].ravel().astype(np.int64)
    n_f = int(frame.max(initial=-1)) + 1
    key_r, n_kr = _dense(unit, obj_r)  # an object of a unit (objects recur across units)
    key_o, n_ko = _dense(unit, obj_o)
    state, n_state = _dense(unit, trk_r)  # a reference track of a unit
    contested = (np.bincount(key_r, minlength=n_kr)[key_r] > 1) | (
        np.bincount(key_o, minlength=n_ko)[key_o] > 1
    )
    chosen = ~contested  # alone within τ on both sides: matched whatever came before
    free = np.flatnonzero(chosen)
    free = free[np.argsort(state[free] * n_f + frame[free], kind="stable")]
    free_code = state[free] * n_f + frame[free]
    rank_of_track = track_order(fm.tracks)

    # the frames with a choice, in rounds: the k-th such frame of every unit in round k
    c = np.flatnonzero(contested)
    if c.size:
        uf, _ = _dense(unit[c], frame[c])
        first = np.zeros(int(uf.max()) + 1, dtype=np.int64)
        np.maximum.at(first, uf, np.arange(len(c)))  # any row of each unit-frame
        frame_unit = unit[c][first]
        order_uf = np.lexsort((frame[c][first], frame_unit))
        rank_uf = np.empty(len(first), dtype=np.int64)
        start = np.searchsorted(frame_unit[order_uf], frame_unit[order_uf])
        rank_uf[order_uf] = np.arange(len(first)) - start
        rnd = rank_uf[uf]
        c = c[np.argsort(rnd, kind="stable")]
        bounds = np.searchsorted(np.sort(rnd), np.arange(int(rnd.max()) + 2))
    else:
        bounds = np.zeros(1, dtype=np.int64)
    last_f = np.full(n_state, -1, dtype=np.int64)  # latest matched frame in earlier rounds
    last_o = np.full(n_state, -1, dtype=np.int64)
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        rows = c[lo:hi]
        s, f = state[rows], frame[rows]
        # the partner track each reference track was last matched to, before this frame
        prev_o = last_o[s].copy()
        pos = np.searchsorted(free_code, s * n_f + f) - 1
        ok = pos >= 0
        ok[ok] = free_code[pos[ok]] // n_f == s[ok]
        later = ok.copy()
        later[ok] = frame[free[pos[ok]]] > last_f[s[ok]]
        prev_o[later] = trk_o[free[pos[later]]]
        # step 1: keep last frame's correspondence where it is still within τ
        keep = np.flatnonzero(prev_o == trk_o[rows])
        keep = keep[np.lexsort((rank_of_track[trk_r[rows[keep]]], key_o[rows[keep]]))]
        ko = key_o[rows[keep]]
        keep = keep[np.r_[True, ko[1:] != ko[:-1]]] if keep.size else keep
        taken_r = np.zeros(n_kr, dtype=bool)
        taken_o = np.zeros(n_ko, dtype=bool)
        taken_r[key_r[rows[keep]]] = True
        taken_o[key_o[rows[keep]]] = True
        chosen[rows[keep]] = True
        # step 2: the rest, most pairs first, then least total distance
        rest = rows[~taken_r[key_r[rows]] & ~taken_o[key_o[rows]]]
        if rest.size:
            p, n_p = _dense(unit[rest], frame[rest])
            la, lb = _local(p, key_r[rest], n_p), _local(p, key_o[rest], n_p)
            n_a = np.zeros(n_p, dtype=np.int64)
            n_b = np.zeros(n_p, dtype=np.int64)
            np.maximum.at(n_a, p, la + 1)
            np.maximum.at(n_b, p, lb + 1)
            order = np.lexsort((lb, la, p))
            bonus = float(min(n_a.max(), n_b.max()) + 1)  # a pair more beats any IoU sum
            pick = assign(
                p[order],
                la[order],
                lb[order],
                n_a,
                n_b,
                bonus + iou[rest[order]],
                np.ones(len(order), dtype=bool),
            )
            chosen[rest[order[pick]]] = True
        done = rows[chosen[rows]]
        last_f[state[done]] = frame[done]
        last_o[state[done]] = trk_o[done]

    pairs = np.flatnonzero(chosen)
    u = unit[pairs]
    order = np.lexsort((frame[pairs], state[pairs]))
    ps, po = state[pairs][order], trk_o[pairs][order]
    # no matched pair at all (annotators who never meet): no switch, not one of length 1
    switch = np.zeros(len(ps), dtype=bool)
    switch[1:] = (ps[1:] == ps[:-1]) & (po[1:] != po[:-1])
    n_obj = len(fm.corpus.objects)
    return ClearMot(
        matched=np.bincount(u, minlength=n_units).astype(float),
        switches=np.bincount(u[order][switch], minlength=n_units).astype(float),
        fragmentations=fragmentations(fm.present, u * n_obj + obj_r[pairs], side, n_units, n_obj),
        distance=np.bincount(u, weights=1 - iou[pairs], minlength=n_units),
        pairs=pairs,
    )


def _local(group: np.ndarray, key: np.ndarray, n_groups: int) -> np.ndarray:
    """Rank of ``key`` among the distinct keys of its group (0, 1, ...)."""
    code, n = _dense(group, key)
    first = np.full(n_groups, np.iinfo(np.int64).max)
    np.minimum.at(first, group, code)
    return code - first[group]


def fragmentations(present, matched_keys, side: int, n_units: int, n_obj: int) -> np.ndarray:
    """Per unit, the times a track of ``side`` goes from matched to unmatched between its
    first and last matched frame (``matched_keys``: ``unit * n_obj + object`` of its
    matched objects)."""
    p = present.loc[present["side"].to_numpy() == side]
    unit, track = p["unit"].to_numpy(), p["track"].to_numpy()
    order = np.lexsort((p["frame"].to_numpy(), track, unit))
    unit, track, obj = unit[order], track[order], p["object"].to_numpy()[order]
    hit = _member(unit * n_obj + obj, matched_keys)
    group = np.r_[0, np.cumsum((unit[1:] != unit[:-1]) | (track[1:] != track[:-1]))]
    # whether a matched frame of the same track follows (reverse running maximum)
    later = np.zeros(len(hit), dtype=bool)
    if len(hit):
        rev = pd.Series(hit[::-1].astype(int)).groupby(group[::-1]).cummax().to_numpy()[::-1]
        later[:-1] = (rev[1:] == 1) & (group[1:] == group[:-1])
    prev = np.r_[False, hit[:-1] & (group[1:] == group[:-1])]
    frag = prev & ~hit & later
    return np.bincount(unit[frag], minlength=n_units).astype(float)


def _member(keys: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Whether each key is in ``pool`` (by a sorted search: the keys are large)."""
    pool = np.sort(pool)
    pos = np.minimum(np.searchsorted(pool, keys), max(len(pool) - 1, 0))
    return (pool[pos] == keys) if len(pool) else np.zeros(len(keys), dtype=bool)
