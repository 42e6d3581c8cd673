"""Voxel sets as runs of voxel keys, and the voxels many pairs of them share.

The key of voxel ``(i, j, k)`` is ``(i' << 42) | (j' << 21) | k'`` with ``v' = v + 2**20``
(indices in ``[-2**20, 2**20)``), so that the voxels of one line along the third axis have
consecutive keys; a voxel set is the sorted half-open runs ``[s0, e0, s1, e1, ...]`` of
its keys (:func:`voxel_runs`), the payload of the volume kind
(:mod:`iaa_frames.geometry.kinds.volume`).

Examples
--------
>>> runs = voxel_runs([[0, 0, 0], [0, 0, 1], [2, 3, 4]])
>>> runs_voxels(runs).tolist()
[[0, 0, 0], [0, 0, 1], [2, 3, 4]]
"""

from __future__ import annotations

import numpy as np

from iaa_frames.errors import ParameterError

from .ragged import Ragged, positions

__all__ = ["runs_voxels", "shared_voxels", "voxel_runs"]

_BITS = 21
_OFF = 1 << (_BITS - 1)
_MASK = (1 << _BITS) - 1
#: Runs measured at once by :func:`shared_voxels` (about 100 MB of work arrays).
_CHUNK = 1 << 21


def _keys(ijk: np.ndarray) -> np.ndarray:
    ijk = np.asarray(ijk, dtype=np.int64).reshape(-1, 3)
    if ijk.size and (ijk.min() < -_OFF or ijk.max() >= _OFF):
        raise ParameterError(
            f"voxel indices must lie in [{-_OFF}, {_OFF}); got {ijk.min()}..{ijk.max()}"
        )
    ijk = ijk + _OFF
    return (ijk[:, 0] << (2 * _BITS)) | (ijk[:, 1] << _BITS) | ijk[:, 2]


def voxel_runs(ijk) -> np.ndarray:
    """The runs ``[s0, e0, s1, e1, ...]`` (the ``vol_runs`` of a row) of a voxel set given
    as ``(n, 3)`` integer indices ``i, j, k`` (repeats allowed).

    Examples
    --------
    >>> runs = voxel_runs([[0, 0, 2], [0, 0, 1], [0, 0, 3], [1, 0, 0]])
    >>> len(runs), int(runs[1] - runs[0]), int(runs[3] - runs[2])   # 2 runs, 3 + 1 voxels
    (4, 3, 1)
    """
    keys = np.unique(_keys(ijk))
    if not keys.size:
        return np.zeros(0, np.int64)
    brk = np.flatnonzero(np.diff(keys) != 1) + 1
    starts = keys[np.concatenate([[0], brk])]
    ends = keys[np.concatenate([brk - 1, [keys.size - 1]])] + 1
    return np.column_stack([starts, ends]).reshape(-1)


def runs_voxels(runs) -> np.ndarray:
    """The ``(n, 3)`` voxel indices ``i, j, k`` of runs (:func:`voxel_runs`), sorted.

    Examples
    --------
    >>> runs_voxels(voxel_runs([[1, 0, 0], [0, 0, 0]])).tolist()
    [[0, 0, 0], [1, 0, 0]]
    """
    runs = np.asarray(runs, dtype=np.int64).reshape(-1, 2)
    pos, _ = positions(runs[:, 0], runs[:, 1] - runs[:, 0])
    ijk = np.column_stack([pos >> (2 * _BITS), (pos >> _BITS) & _MASK, pos & _MASK])
    return ijk - _OFF


def shared_voxels(runs_a: Ragged, runs_b: Ragged, *, search: str = "sorted") -> np.ndarray:
    """The number of voxels each pair of voxel sets ``(runs_a[i], runs_b[i])`` shares.

    ``search="bisect"`` uses the binary search within each row for every pair (the way
    ``"sorted"`` takes where its compact keys would not fit in 62 bits), for tests.

    Each run of the set with fewer runs is measured against the other set's runs: a
    binary search (vectorised over every run of every pair, as many steps as the longest
    run list has bits) finds the last run of the other set starting at or before each end
    of it, and prefix sums of run lengths give how many of the other's voxels lie before
    that end. Work ``O(R log R)`` for ``R`` runs of the smaller sides, in chunks of
    bounded memory.

    Examples
    --------
    >>> a = Ragged.from_arrays([voxel_runs([[0, 0, k] for k in range(5)])])
    >>> b = Ragged.from_arrays([voxel_runs([[0, 0, 1], [0, 0, 3], [0, 0, 9]])])
    >>> shared_voxels(a, b).tolist()
    [2.0]
    """
    if search not in ("sorted", "bisect"):
        raise ParameterError(f"search must be 'sorted' or 'bisect'; got {search!r}")
    n = len(runs_a)
    out = np.zeros(n)
    if not n:
        return out
    swap = runs_a.count > runs_b.count  # measure the set with fewer runs
    q_start = np.where(swap, runs_b.start, runs_a.start)
    q_count = np.where(swap, runs_b.count, runs_a.count)
    t_start = np.where(swap, runs_a.start, runs_b.start)
    t_count = np.where(swap, runs_a.count, runs_b.count)
    for side in (False, True):  # the two value arrays (often one)
        sel = np.flatnonzero(swap == side)
        if not sel.size:
            continue
        q_vals = (runs_b if side else runs_a).values
        t_vals = (runs_a if side else runs_b).values
        done = np.cumsum(q_count[sel] // 2)
        lo = 0
        while lo < sel.size:  # chunks of about _CHUNK runs
            upto = done[lo] - q_count[sel[lo]] // 2 + _CHUNK
            hi = max(int(np.searchsorted(done, upto, side="right")), lo + 1)
            p = sel[lo:hi]
            args = (q_vals, q_start[p], q_count[p], t_vals, t_start[p], t_count[p])
            out[p] = _shared(*args) if search == "sorted" else _shared_bisect(*args)
            lo = hi
    return out


def _shared(q_vals, q_start, q_count, t_vals, t_start, t_count) -> np.ndarray:
    """Shared voxels of the pairs ``(q row p, t row p)`` (:func:`shared_voxels`): every
    query run's ends looked up among the target rows' runs by one
    :func:`numpy.searchsorted`, on keys made compact (the indices counted from the
    smallest in use, the target row in the high digits); by a vectorised binary search
    within each row where the compact keys would not fit in 62 bits."""
    out = np.zeros(len(q_start))
    ok = np.flatnonzero((q_count > 0) & (t_count > 0))
    if not ok.size:
        return out
    rows, first, u_of = np.unique(t_start[ok], return_index=True, return_inverse=True)
    n_runs = t_count[ok][first] // 2
    pos, u = positions(rows, 2 * n_runs)
    ts, te, u = t_vals[pos[0::2]], t_vals[pos[1::2]], u[0::2]
    pos, pair = positions(q_start[ok], q_count[ok])
    qs, qe, pair = q_vals[pos[0::2]], q_vals[pos[1::2]], pair[0::2]
    ends = np.concatenate([ts, qs])
    i, j = ends >> (2 * _BITS), (ends >> _BITS) & _MASK
    k_lo, k_hi = ends & _MASK, (np.concatenate([te, qe]) - 1) & _MASK
    i0, j0, k0 = int(i.min()), int(j.min()), int(k_lo.min())
    sj, sk = int(j.max()) - j0 + 1, int(k_hi.max()) - k0 + 2  # room for the ends
    width = (int(i.max()) - i0 + 1) * sj * sk
    if width * len(rows) >= 2**62:
        out[ok] = _shared_bisect(q_vals, q_start[ok], q_count[ok], t_vals, t_start[ok], t_count[ok])
        return out
    compact = ((i - i0) * sj + (j - j0)) * sk + (k_lo - k0)
    n_t = len(ts)
    cts = u * width + compact[:n_t]
    cqs = u_of[pair] * width + compact[n_t:]
    x = np.concatenate([cqs, cqs + (qe - qs)])
    length = te - ts
    before = np.concatenate([[0], np.cumsum(length)])
    first_run = (np.cumsum(n_runs) - n_runs)[np.concatenate([u_of[pair], u_of[pair]])]
    last = np.searchsorted(cts, x, side="right") - 1  # the last run starting at or before x
    has = last >= first_run
    safe = np.where(has, last, 0)
    cover = np.where(
        has, before[safe] - before[first_run] + np.minimum(x - cts[safe], length[safe]), 0
    )
    k = len(qs)
    out[ok] = np.bincount(pair, weights=cover[k:] - cover[:k], minlength=ok.size)
    return out


def _shared_bisect(q_vals, q_start, q_count, t_vals, t_start, t_count) -> np.ndarray:
    """:func:`_shared` by a binary search within each target row (any key width)."""
    ts, te = t_vals[0::2], t_vals[1::2]  # the target runs, by global run index
    if not ts.size:
        return np.zeros(len(q_start))
    pos, pair = positions(q_start, q_count)
    qs, qe, pair = q_vals[pos[0::2]], q_vals[pos[1::2]], pair[0::2]
    length = te - ts
    before = np.concatenate([[0], np.cumsum(length)])
    base = (t_start // 2)[pair]
    n_t = (t_count // 2)[pair]
    x = np.concatenate([qs, qe])
    lo = np.concatenate([base, base])
    hi = lo + np.concatenate([n_t, n_t])
    first = lo.copy()
    top = len(ts) - 1
    active = np.flatnonzero(lo < hi)
    while active.size:  # lo: the first target run of the row starting after x
        mid = (lo[active] + hi[active]) >> 1
        right = ts[np.minimum(mid, top)] <= x[active]
        lo[active[right]] = mid[right] + 1
        hi[active[~right]] = mid[~right]
        active = active[lo[active] < hi[active]]
    last = lo - 1  # the last run starting at or before x (none: last < first)
    has = last >= first
    safe = np.where(has, last, 0)
    cover = np.where(has, before[safe] - before[first] + np.minimum(x - ts[safe], length[safe]), 0)
    k = len(qs)
    return np.bincount(pair, weights=cover[k:] - cover[:k], minlength=len(q_start))
