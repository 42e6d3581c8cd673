# Over 400 lines: the exact assignment (enumeration, the split into components, the fallback
# to linear_sum_assignment) is one argument of optimality with its tie-break, read together.
"""Object matching between two annotations and clusters of matched objects.

Everything here works on many *pairings* at once. A pairing is two annotations (an
annotator's objects on an item), given as slices ``[start, start + count)`` into one
array of objects. The functions never loop in Python per object or per pairing, except
for the rare pairings whose assignment is both ambiguous and too large to enumerate.

Examples
--------
Two annotations of two objects each, where the greedy choice (take the best pair first)
is not optimal:

>>> import numpy as np
>>> pairing, la, lb, oa, ob = candidate_pairs(np.array([0]), np.array([2]),
...                                           np.array([2]), np.array([2]))
>>> score = np.array([0.9, 0.8, 0.8, 0.0])    # a0-b0, a0-b1, a1-b0, a1-b1
>>> chosen = assign(pairing, la, lb, np.array([2]), np.array([2]), score, score >= 0.5)
>>> [(int(a), int(b)) for a, b in zip(oa[chosen], ob[chosen])]
[(0, 3), (1, 2)]
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from iaa_frames.arrays import unique_inverse

__all__ = ["candidate_pairs", "assign", "clusters", "pairs_within_runs", "run_starts"]

#: Largest number of injective row-to-column maps enumerated at once for one matrix
#: shape; bigger ambiguous matrices go to :func:`scipy.optimize.linear_sum_assignment`.
_MAX_PERMUTATIONS = 5040
_CHUNK = 4_000_000  # elements of a (matrices x permutations x rows) block


def run_starts(counts: np.ndarray) -> np.ndarray:
    """Where each run starts when runs of ``counts[i]`` elements are laid end to end.

    The exclusive cumulative sum of ``counts``: run ``i`` occupies
    ``[start[i], start[i] + counts[i])``. Pairings, slots and groups laid out in one array
    are indexed with it throughout the package.

    Parameters
    ----------
    counts : ndarray of int, shape (n,)

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> run_starts(np.array([2, 0, 3, 1])).tolist()
    [0, 2, 2, 5]
    """
    out = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=out[1:])
    return out


def pairs_within_runs(key):
    """Positions (i, j), i < j, of every unordered pair of equal entries of a sorted key.

    Examples
    --------
    >>> i, j = pairs_within_runs(np.array([0, 0, 0, 1, 2, 2]))
    >>> list(zip(i.tolist(), j.tolist()))
    [(0, 1), (0, 2), (1, 2), (4, 5)]
    """
    n = len(key)
    new = np.r_[True, key[1:] != key[:-1]] if n else np.zeros(0, bool)
    run = np.cumsum(new) - 1
    size = np.bincount(run) if n else np.zeros(0, np.int64)
    start = np.flatnonzero(new)
    later = start[run] + size[run] - np.arange(n) - 1  # entries after this one in its run
    i = np.repeat(np.arange(n), later)
    first = np.zeros(n, dtype=np.int64)
    np.cumsum(later[:-1], out=first[1:])
    j = i + 1 + np.arange(len(i)) - first[i]
    return i, j


def candidate_pairs(start_a, count_a, start_b, count_b):
    """Every object pair of every pairing, as flat arrays.

    Parameters
    ----------
    start_a, count_a, start_b, count_b : ndarray of int, shape (P,)
        Pairing ``p`` pairs objects ``start_a[p] + i`` (``i < count_a[p]``) with objects
        ``start_b[p] + j`` (``j < count_b[p]``).

    Returns
    -------
    pairing, local_a, local_b, object_a, object_b : ndarray of int64
        One entry per candidate pair, ordered by pairing, then ``i``, then ``j``.

    Examples
    --------
    >>> p, i, j, a, b = candidate_pairs(np.array([0]), np.array([2]), np.array([5]),
    ...                                 np.array([1]))
    >>> a.tolist(), b.tolist()
    ([0, 1], [5, 5])
    """
    count_a = np.asarray(count_a, dtype=np.int64)
    count_b = np.asarray(count_b, dtype=np.int64)
    pairing = np.repeat(np.arange(len(count_a), dtype=np.int64), count_a * count_b)
    row_pairing = np.repeat(np.arange(len(count_a), dtype=np.int64), count_a)  # a's objects
    row_len = count_b[row_pairing]  # each a run of count_b[p] edges: repeats, no division
    row_local = np.arange(row_pairing.size, dtype=np.int64) - run_starts(count_a)[row_pairing]
    local_a = np.repeat(row_local, row_len)
    local_b = np.arange(pairing.size, dtype=np.int64) - np.repeat(run_starts(row_len), row_len)
    object_a = np.repeat(np.asarray(start_a, dtype=np.int64)[row_pairing] + row_local, row_len)
    object_b = np.asarray(start_b, dtype=np.int64)[pairing] + local_b
    return pairing, local_a, local_b, object_a, object_b


@lru_cache(maxsize=64)
def _injections(n_rows: int, n_cols: int) -> np.ndarray:
    """All injective maps rows -> columns as (n_maps, n_rows), in the order of
    :func:`itertools.permutations` (lexicographic): each map extended by its free columns
    in increasing order, a row at a time in numpy (a loop of tuples cost a fresh process
    up to 0.1 s on LVIS).

    Examples
    --------
    >>> _injections(2, 3).tolist()
    [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
    """
    if n_rows > n_cols:
        return np.zeros((0, n_rows), dtype=np.int64)
    maps = np.zeros((1, 0), dtype=np.int64)
    for _ in range(n_rows):
        free = np.ones((len(maps), n_cols), dtype=bool)
        free[np.arange(len(maps))[:, None], maps] = False
        prefix, column = np.nonzero(free)  # row-major: each map's free columns, ascending
        maps = np.concatenate([maps[prefix], column[:, None]], axis=1)
    return maps


def _best_injection(values: np.ndarray) -> np.ndarray:
    """Column assigned to each row maximizing the total, for a stack of r x c matrices."""
    g, r, c = values.shape
    maps = _injections(r, c)
    rows = np.arange(r)
    out = np.empty((g, r), dtype=np.int64)
    step = max(1, _CHUNK // max(1, maps.shape[0] * r))
    for lo in range(0, g, step):  # blocks of matrices, to bound memory
        block = values[lo : lo + step]
        totals = block[:, rows, maps].sum(axis=2)  # (block, n_maps)
        out[lo : lo + step] = maps[np.argmax(totals, axis=1)]
    return out


def assign(pairing, local_a, local_b, count_a, count_b, score, eligible):
    """Maximum-score one-to-one assignment within each pairing, over eligible edges.

    Edges whose two objects have no other eligible edge are taken directly. Pairings
    with a real choice are solved exactly: by enumerating every assignment, vectorized
    over all matrices of the same shape. A pairing too large for that is split into the
    connected components of its eligible edges (each solved on its own, by enumeration
    when small, else with :func:`scipy.optimize.linear_sum_assignment`), so that a dense
    item costs its many small conflicts, not one matrix of all its objects.

    Parameters
    ----------
    pairing, local_a, local_b : ndarray of int
        Candidate edges, as returned by :func:`candidate_pairs`.
    count_a, count_b : ndarray of int, shape (P,)
        Objects per side of each pairing.
    score : ndarray of float
        Edge scores to maximize (IoU, with a tiny tie-breaker); read at eligible edges
        only.
    eligible : ndarray of bool
        Edges allowed in the assignment (IoU at or above the match threshold).

    Returns
    -------
    ndarray of bool
        True on the chosen edges: within a pairing no object is chosen twice, and the
        total score of the chosen edges is maximal.
    """
    count_a = np.asarray(count_a, dtype=np.int64)
    count_b = np.asarray(count_b, dtype=np.int64)
    starts_a, starts_b = run_starts(count_a), run_starts(count_b)
    e = np.flatnonzero(eligible)  # only eligible edges count: the keys of those alone
    pe = pairing[e]
    key_a, key_b = starts_a[pe] + local_a[e], starts_b[pe] + local_b[e]
    deg_a = np.bincount(key_a, minlength=int(count_a.sum()))
    deg_b = np.bincount(key_b, minlength=int(count_b.sum()))
    hot = (deg_a[key_a] > 1) | (deg_b[key_b] > 1)
    chosen = np.array(eligible, dtype=bool)
    if not hot.any():
        return chosen
    contested = np.zeros(len(chosen), dtype=bool)
    contested[e[hot]] = True
    ambiguous = np.zeros(len(count_a), dtype=bool)
    ambiguous[pe[hot]] = True
    # Solve ambiguous pairings on their objects that have an eligible edge.
    edges = e[ambiguous[pe]]
    chosen[edges] = False
    rows = _dense_rank(pairing[edges], local_a[edges])
    cols = _dense_rank(pairing[edges], local_b[edges])
    p = pairing[edges]
    n_rows = np.zeros(len(count_a), dtype=np.int64)
    n_cols = np.zeros(len(count_a), dtype=np.int64)
    np.maximum.at(n_rows, p, rows + 1)
    np.maximum.at(n_cols, p, cols + 1)
    large = too_large(np.minimum(n_rows, n_cols), np.maximum(n_rows, n_cols))
    if large.any():
        edges, p, rows, cols, n_rows, n_cols = _split_large(
            edges, p, large, contested, chosen, (starts_a, starts_b), local_a, local_b
        )
    flip = n_rows[p] > n_cols[p]  # put the smaller side on the rows
    rows, cols = np.where(flip, cols, rows), np.where(flip, rows, cols)
    r = np.minimum(n_rows, n_cols)[p]
    c = np.maximum(n_rows, n_cols)[p]
    # one group per matrix shape, each matrix's edges together, in pairing order
    shape = r * (int(c.max()) + 1) + c
    order = np.lexsort((p, shape))
    bounds = np.flatnonzero(np.r_[True, shape[order][1:] != shape[order][:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        sel = order[lo:hi]
        ri, ci = int(r[sel[0]]), int(c[sel[0]])
        ps = p[sel]
        slot = np.cumsum(np.r_[True, ps[1:] != ps[:-1]]) - 1
        n_mats = int(slot[-1]) + 1
        values = np.zeros((n_mats, ri, ci))
        index = np.full((n_mats, ri, ci), -1, dtype=np.int64)
        values[slot, rows[sel], cols[sel]] = score[edges[sel]]
        index[slot, rows[sel], cols[sel]] = edges[sel]
        if _n_injections(ri, ci) <= _MAX_PERMUTATIONS:
            best = _best_injection(values)
            picked = np.take_along_axis(index, best[:, :, None], axis=2).ravel()
        else:  # rare: a large matrix with a real choice
            picked = np.concatenate(
                [index[g][linear_sum_assignment(values[g], maximize=True)] for g in range(n_mats)]
            )
        chosen[picked[picked >= 0]] = True
    return chosen


def _n_injections(r: int, c: int) -> int:
    return math.perm(c, r)  # exact: a float product overflows for large matrices


def too_large(r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Whether an r x c matrix (r <= c) has too many assignments to enumerate.

    ``perm(c, r)`` grows with ``c`` at fixed ``r`` and is at least ``r!``, so a matrix is
    too large exactly when ``c`` exceeds the widest enumerable width of its ``r``
    (:func:`_widest`): a lookup per matrix, no sort of the shapes.

    Examples
    --------
    >>> too_large(np.array([0, 1, 1, 2, 2, 7, 7, 8]),
    ...            np.array([9, 5040, 5041, 71, 72, 7, 8, 8])).tolist()
    [False, False, True, False, True, False, True, True]
    """
    widest = _widest()
    return np.asarray(c) > widest[np.minimum(r, len(widest) - 1)]


@lru_cache(maxsize=1)
def _widest() -> np.ndarray:
    """Per r, the largest c with ``perm(c, r) <= _MAX_PERMUTATIONS`` (any for r = 0); the
    last entry, -1, stands for every r with ``r! > _MAX_PERMUTATIONS`` (none is)."""
    out, r = [np.iinfo(np.int64).max], 1
    while _n_injections(r, r) <= _MAX_PERMUTATIONS:
        c = r
        while _n_injections(r, c + 1) <= _MAX_PERMUTATIONS:
            c += 1
        out, r = [*out, c], r + 1
    return np.array([*out, -1], dtype=np.int64)


def _split_large(edges, p, large, contested, chosen, starts, local_a, local_b):
    """Split the matrices of the ``large`` pairings into the connected components of
    their contested edges.

    An optimal assignment of a pairing is the union of optimal assignments of the
    components of its graph of eligible edges (no edge joins two components), and an
    uncontested edge (a component of its own) is in every optimal assignment: it is
    taken here. A dense pairing of thousands of objects thus becomes many small
    matrices, solved by enumeration, instead of one matrix of all its objects.

    Returns the edges left to solve with their matrix (``P`` + component for the split
    pairings), rows, columns and the matrices' row and column counts.
    """
    P = len(large)
    split = large[p]
    alone = edges[split & ~contested[edges]]
    chosen[alone] = True
    keep = ~split | contested[edges]
    edges, p, split = edges[keep], p[keep], split[keep]
    s = np.flatnonzero(split)
    unit = p.copy()
    if s.size:
        key_a = starts[0][p[s]] + local_a[edges[s]]  # objects of either side, numbered
        key_b = starts[1][p[s]] + local_b[edges[s]]
        n_a, n_b = int(key_a.max()) + 1, int(key_b.max()) + 1
        graph = coo_matrix(
            (np.ones(s.size), (key_a, n_a + key_b)),
            shape=(n_a + n_b, n_a + n_b),
        )
        _, comp = connected_components(graph, directed=False)
        unit[s] = P + comp[key_a]
    rows = _dense_rank(unit, local_a[edges])
    cols = _dense_rank(unit, local_b[edges])
    n_units = int(unit.max()) + 1 if len(unit) else P
    n_rows = np.zeros(n_units, dtype=np.int64)
    n_cols = np.zeros(n_units, dtype=np.int64)
    np.maximum.at(n_rows, unit, rows + 1)
    np.maximum.at(n_cols, unit, cols + 1)
    return edges, unit, rows, cols, n_rows, n_cols


def _dense_rank(group: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Rank of ``value`` among the distinct values of its group (0, 1, ...)."""
    order = np.lexsort((value, group))
    g, v = group[order], value[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (v[1:] != v[:-1])
    first_of_group = np.ones(len(order), dtype=bool)
    first_of_group[1:] = g[1:] != g[:-1]
    distinct = np.cumsum(new) - 1
    rank_sorted = (
        distinct
        - distinct[np.maximum.accumulate(np.where(first_of_group, np.arange(len(order)), 0))]
    )
    out = np.empty(len(order), dtype=np.int64)
    out[order] = rank_sorted
    return out


def clusters(n_objects, object_a, object_b, strength, annotator):
    """Merge matched pairs into clusters holding at most one object per annotator.

    Matched pairs are merged strongest first; a merge that would put two objects of the
    same annotator into one cluster is skipped. Connected components that cannot hold
    such a conflict are taken as they are (vectorized); only components with a conflict
    are merged pair by pair.

    Parameters
    ----------
    n_objects : int
        Number of objects; every object ends in exactly one cluster.
    object_a, object_b : ndarray of int
        The matched pairs (object indices).
    strength : ndarray of float
        Merge priority of each pair (IoU); ties go to the lower object indices.
    annotator : ndarray of int, shape (n_objects,)
        Annotator code of each object.

    Returns
    -------
    ndarray of int64, shape (n_objects,)
        Cluster id of each object, numbered in order of each cluster's first object.

    Examples
    --------
    >>> clusters(4, np.array([0, 1]), np.array([2, 2]), np.array([0.9, 0.8]),
    ...          np.array([0, 0, 1, 2])).tolist()
    [0, 1, 0, 2]
    """
    object_a = np.asarray(object_a, dtype=np.int64)
    object_b = np.asarray(object_b, dtype=np.int64)
    annotator = np.asarray(annotator, dtype=np.int64)
    graph = coo_matrix((np.ones(len(object_a)), (object_a, object_b)), shape=(n_objects, n_objects))
    _, comp = connected_components(graph, directed=False)
    n_ann = int(annotator.max()) + 1 if n_objects else 1
    key = np.sort(comp.astype(np.int64) * n_ann + annotator)  # sorted, not hashed
    conflicted = np.zeros(comp.max() + 1 if n_objects else 0, dtype=bool)
    # a component is in conflict when an annotator appears in it twice (a repeated key)
    conflicted[key[1:][key[1:] == key[:-1]] // n_ann] = True
    root = comp.astype(np.int64)
    if conflicted.any():
        root = _constrained_merge(root, conflicted, object_a, object_b, strength, annotator)
    # number clusters by their first object, so ids do not depend on graph internals
    first = np.full(root.max() + 1 if n_objects else 0, n_objects, dtype=np.int64)
    np.minimum.at(first, root, np.arange(n_objects))
    _, ids = unique_inverse(first[root])
    return ids.astype(np.int64)


def _constrained_merge(root, conflicted, object_a, object_b, strength, annotator):
    """Greedy union-find, strongest pair first, on the conflicted components only."""
    root = root.copy()
    offset = root.max() + 1
    involved = conflicted[root]
    objects = np.flatnonzero(involved)
    root[objects] = offset + objects  # each object of a conflicted component starts alone
    edges = np.flatnonzero(involved[object_a])
    order = np.lexsort((object_b[edges], object_a[edges], -strength[edges]))
    parent = {int(o): int(o) for o in objects}
    members = {int(o): {int(annotator[o])} for o in objects}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in edges[order]:
        ra, rb = find(int(object_a[e])), find(int(object_b[e]))
        if ra != rb and members[ra].isdisjoint(members[rb]):
            lo, hi = min(ra, rb), max(ra, rb)
            parent[hi] = lo
            members[lo] |= members.pop(hi)
    root[objects] = offset + np.array([find(int(o)) for o in objects], dtype=np.int64)
    return root
