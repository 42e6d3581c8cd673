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

__all__ = ["runs_voxels", "shared_voxels", "shifted_runs", "voxel_runs"]

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


def shifted_runs(runs: Ragged, di, dj) -> Ragged:
    """The voxel sets of ``runs`` moved by ``di[r]`` along the first axis and ``dj[r]``
    along the second (whole voxels; one shift of the keys per row: runs stay runs).

    Raises
    ------
    ParameterError
        Where a moved voxel would leave the index range ``[-2**20, 2**20)``.

    Examples
    --------
    >>> r = Ragged.from_arrays([voxel_runs([[0, 0, 0], [0, 0, 1]])])
    >>> runs_voxels(shifted_runs(r, [2], [-1]).to_arrays()[0]).tolist()
    [[2, -1, 0], [2, -1, 1]]
    """
    di = np.asarray(di, dtype=np.int64).reshape(-1)
    dj = np.asarray(dj, dtype=np.int64).reshape(-1)
    vals, row = runs.flat()
    i = (vals >> (2 * _BITS)) + di[row]
    j = ((vals >> _BITS) & _MASK) + dj[row]
    if vals.size and (i.min() < 0 or i.max() > _MASK or j.min() < 0 or j.max() > _MASK):
        raise ParameterError("a volume moved out of the voxel index range [-2**20, 2**20)")
    moved = vals + ((di << (2 * _BITS)) + (dj << _BITS))[row]
    return Ragged(moved, np.cumsum(runs.count) - runs.count, runs.count)


def shared_voxels(runs_a: Ragged, runs_b: Ragged, boxes=None, *, search: str = "sorted"):
    """The number of voxels each pair of voxel sets ``(runs_a[i], runs_b[i])`` shares.

    Each run of the set with fewer runs is measured against the other set's runs: the
    last run of the other set starting at or before each end of it is found (one
    :func:`numpy.searchsorted` over the runs of every pair, on keys made compact: indices
    counted from the smallest in use, the row in the high digits), and prefix sums of run
    lengths give how many of the other's voxels lie before that end. No Python loop per
    pair; chunks of bounded memory.

    Parameters
    ----------
    runs_a, runs_b : Ragged
        The runs of each pair's two sets (:func:`voxel_runs`), one row per pair.
    boxes : (ndarray, ndarray), optional
        The voxel-index boxes ``x0, y0, z0, x1, y1, z1`` (``(m, 6)``, ends exclusive) of
        the sets of ``runs_a`` and ``runs_b``: runs outside the other set's box are left
        out before the search (most of them, for pairs that barely overlap). Each box must
        hold its set (the volume kind's rows do).
    search : {"sorted", "bisect"}, default "sorted"
        ``"bisect"``: a vectorised binary search within each row instead (the way
        ``"sorted"`` takes where its compact keys would not fit in 62 bits), for tests.

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
    box_t, meet = None, np.ones(n, dtype=bool)
    if boxes is not None:  # pairs of disjoint boxes share nothing: left out
        box_a, box_b = (np.asarray(b, dtype=np.float64).reshape(n, 6) for b in boxes)
        meet = (
            np.minimum(box_a[:, 3:], box_b[:, 3:]) > np.maximum(box_a[:, :3], box_b[:, :3])
        ).all(1)
        box_t = np.where(swap[:, None], box_a, box_b).astype(np.int64) + _OFF
    for side in (False, True):  # the two value arrays (often one)
        sel = np.flatnonzero((swap == side) & meet)
        if not sel.size:
            continue
        q, t = (runs_b, runs_a) if side else (runs_a, runs_b)
        done = np.cumsum(q.count[sel] // 2)
        lo = 0
        while lo < sel.size:  # chunks of about _CHUNK runs
            upto = done[lo] - q.count[sel[lo]] // 2 + _CHUNK
            hi = max(int(np.searchsorted(done, upto, side="right")), lo + 1)
            p = sel[lo:hi]
            qs, qe, pair = _query_runs(q.take(p), None if box_t is None else box_t[p])
            args = (qs, qe, pair, t.values, t.start[p], t.count[p])
            out[p] = _shared(*args) if search == "sorted" else _shared_bisect(*args)
            lo = hi
    return out


def _query_runs(q: Ragged, box):
    """The runs of the rows of ``q`` (starts, ends, row of each), without those outside
    ``box`` (the other set's box per row, in offset indices) when it is given."""
    count = q.count // 2
    pos, pair = positions(q.start // 2, count)
    qs, qe = _pairs_of(q.values)[pos].T
    if box is not None and qs.size:
        i, j = qs >> (2 * _BITS), (qs >> _BITS) & _MASK
        k_lo, k_hi = qs & _MASK, (qe - 1) & _MASK
        keep = (i >= np.repeat(box[:, 0], count)) & (i < np.repeat(box[:, 3], count))
        keep &= (j >= np.repeat(box[:, 1], count)) & (j < np.repeat(box[:, 4], count))
        keep &= (k_hi >= np.repeat(box[:, 2], count)) & (k_lo < np.repeat(box[:, 5], count))
        qs, qe, pair = qs[keep], qe[keep], pair[keep]
    return qs, qe, pair


def _pairs_of(values: np.ndarray) -> np.ndarray:
    """Run values ``[s0, e0, s1, e1, ...]`` as an ``(n, 2)`` view (rows of runs start at
    even positions: every row holds whole runs)."""
    return values.reshape(-1, 2)


def _shared(qs, qe, pair, t_vals, t_start, t_count) -> np.ndarray:
    """Shared voxels of the query runs ``qs, qe`` of each pair with its target row (the
    rows ``t_start, t_count`` of ``t_vals``), by one search on compact keys."""
    m = len(t_start)
    if not qs.size:
        return np.zeros(m)
    rows, u_of = np.unique(np.where(t_count > 0, t_start, -1), return_inverse=True)
    n_runs = np.zeros(len(rows), np.int64)
    n_runs[u_of] = t_count // 2
    pos, u = positions(np.maximum(rows, 0) // 2, n_runs)
    ts, te = _pairs_of(t_vals)[pos].T
    if not ts.size:
        return np.zeros(m)
    ends = np.concatenate([ts, qs])
    i, j = ends >> (2 * _BITS), (ends >> _BITS) & _MASK
    k_lo, k_hi = ends & _MASK, (np.concatenate([te, qe]) - 1) & _MASK
    i0, j0, k0 = int(i.min()), int(j.min()), int(k_lo.min())
    sj, sk = int(j.max()) - j0 + 1, int(k_hi.max()) - k0 + 2  # room for the ends
    width = (int(i.max()) - i0 + 1) * sj * sk
    if width * len(rows) >= 2**62:
        return _shared_bisect(qs, qe, pair, t_vals, t_start, t_count)
    dtype = np.int32 if width * len(rows) < 2**31 else np.int64  # faster searches
    compact = (((i - i0) * sj + (j - j0)) * sk + (k_lo - k0)).astype(dtype)
    n_t = len(ts)
    cts = u.astype(dtype) * dtype(width) + compact[:n_t]
    cte = cts + (te - ts).astype(dtype)
    row = u_of[pair]
    cqs = row.astype(dtype) * dtype(width) + compact[n_t:]
    x = np.concatenate([cqs, cqs + (qe - qs).astype(dtype)])
    # voxels of the target runs before each run's end, and before each row's first run
    through = np.cumsum(te - ts)
    first_u = np.cumsum(n_runs) - n_runs
    before_u = np.concatenate([[0], through])[first_u]
    first, before = np.tile(first_u[row], 2), np.tile(before_u[row], 2)
    last = np.searchsorted(cts, x, side="right") - 1  # the last run starting at or before x
    has = last >= first
    safe = np.where(has, last, 0)
    # the row's voxels before x: those through its last run starting at or before x,
    # less the part of that run at or after x, less those of the rows before
    cover = np.where(has, through[safe] - np.maximum(cte[safe] - x, 0) - before, 0)
    k = len(qs)
    return np.bincount(pair, weights=cover[k:] - cover[:k], minlength=m)


def _shared_bisect(qs, qe, pair, t_vals, t_start, t_count) -> np.ndarray:
    """:func:`_shared` by a binary search within each target row (any key width)."""
    m = len(t_start)
    ts, te = t_vals[0::2], t_vals[1::2]  # the target runs, by global run index
    if not ts.size or not qs.size:
        return np.zeros(m)
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
    return np.bincount(pair, weights=cover[k:] - cover[:k], minlength=m)
