"""Post-stratified chance expectations of localization: a cell's chance mean taken over
the same mix of strata as its within-item units.

Why
---
The chance mean of a cell is an average over unrelated pairs of objects. Two things that
are not agreement change how close a matched pair is by coincidence:

* **which classes the two objects have.** A large class overlaps more by chance than a
  small one. When annotators agree on *which* images hold a large class but not *where*
  it is, a pooled cell ("(all)", an annotator, a pair of annotators) holds more large-large
  pairs within items than the chance sample does, and its sigma is positive for
  annotators who place objects at random.
* **how many objects the two annotations hold.** The assignment of two annotations of
  ``n`` and ``m`` objects keeps ``min(n, m)`` pairs chosen from ``n x m``: with unequal
  counts it picks closer pairs than with equal ones. Annotators who agree on the count
  of an item (but not on positions) pair equal counts within items, while chance pairs
  mix counts, which makes sigma negative for random drawers who know the count.

The rule
--------
Every matched pair has a **stratum**: the ratio of its two annotations' object counts,
``min / max``, binned by :func:`ratio_bin` (equal counts, then below 1, 0.75, 0.5), and,
in the cells that pool classes, the unordered pair of its objects' classes. The chance mean of
a cell is the Mantel-Haenszel style mean over strata,

    E_c = sum_s p_cs * mean_cs

with ``p_cs`` the share of the cell's within units in stratum ``s`` and ``mean_cs`` the
mean chance distance of the cell's chance units in ``s``. A stratum with fewer than
:data:`MIN_STRATUM_UNITS` chance units in the cell falls back to its coarse stratum (the
class pair, all counts); one where that has too few as well falls back to the cell's
plain chance mean. This is done by weighting each
chance unit of the cell,

    w_r = m_r * B_c * (P_cs / B_cs + Q_cg / B_cg + R_c / B_c)

(``m_r`` the unit's weight before: 1, or a pooled class's weight; ``B`` the chance units'
weight in the cell, its fine stratum ``s`` and its coarse stratum ``g``; ``P``, ``Q``,
``R`` the shares of within units that use the fine stratum, the coarse one and the whole
cell), so that the weighted mean equals ``E_c`` and the weights still sum to ``B_c``.

The weights are fixed by the whole corpus; bootstrap replicates reweight items, not
strata. A class's own cells have one class pair, so they are stratified by counts only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.arrays import unique_inverse
from iaa_frames.errors import IAAError

__all__ = [
    "MIN_STRATUM_UNITS",
    "RATIO_EDGES",
    "poststratify",
    "ratio_bin",
    "stratum_keys",
    "within_groups",
]

#: Fewest chance units of a cell in a stratum for the stratum's own mean to be used
#: (below it, the stratum's within units fall back to the coarse stratum, then the cell).
MIN_STRATUM_UNITS = 10


#: Edges of the bins of the count ratio min(n, m) / max(n, m) of two annotations.
RATIO_EDGES = (0.5, 0.75, 1.0)


def ratio_bin(count_a, count_b) -> np.ndarray:
    """Bin of the ratio of two annotations' object counts, ``min / max``: 0 below 0.5,
    1 below 0.75, 2 below 1, 3 at 1 (equal counts).

    Examples
    --------
    >>> ratio_bin(np.array([1, 3, 2, 4, 0]), np.array([1, 4, 3, 9, 0])).tolist()
    [3, 2, 1, 0, 3]
    """
    a, b = np.asarray(count_a, np.float64), np.asarray(count_b, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(np.maximum(a, b) > 0, np.minimum(a, b) / np.maximum(a, b), 1.0)
    return np.searchsorted(np.asarray(RATIO_EDGES), r, side="right")


def stratum_keys(count_a, count_b, label_a, label_b, n_labels: int):
    """(fine, coarse) stratum keys of matched pairs, for the cells that pool classes.

    ``fine`` is (class pair, count-ratio bin), ``coarse`` the unordered class pair. The
    count-ratio bin alone (the fine key of a class's own cells) is ``fine % 4096``.

    Examples
    --------
    >>> fine, coarse = stratum_keys([2, 3], [2, 6], [0, 1], [1, 0], n_labels=2)
    >>> (fine % 4096).tolist(), coarse.tolist()
    ([3, 1], [1, 1])
    """
    cpair = ratio_bin(count_a, count_b)
    la, lb = np.asarray(label_a, np.int64), np.asarray(label_b, np.int64)
    lpair = np.minimum(la, lb) * max(int(n_labels), 1) + np.maximum(la, lb)
    return lpair * 4096 + cpair, lpair


def _lookup(keys, table_keys, table_values):
    """``table_values`` at ``keys`` (0 where a key is absent)."""
    if not len(table_keys):
        return np.zeros(len(keys))
    at = np.minimum(np.searchsorted(table_keys, keys), len(table_keys) - 1)
    return np.where(table_keys[at] == keys, table_values[at], 0.0)


def _sums(cell, key, weight, n_keys):
    """Sorted unique (cell, key) codes and the weight summed over each."""
    code, inverse = unique_inverse(cell * n_keys + key)
    return code, np.bincount(inverse, weights=weight, minlength=len(code))


#: Stored entries of the within membership whose strata are looked up at once (the
#: within units are many: their strata are reduced to counts chunk by chunk).
CHUNK_ENTRIES = 1 << 20


def within_groups(within: sp.csr_matrix, within_fine, within_coarse):
    """(cell, fine, coarse, count) of every distinct (cell, fine, coarse) of the within
    membership's stored entries, the strata looked up :data:`CHUNK_ENTRIES` at a time
    (int64, shape (4, groups)); a (cell, fine, coarse) may repeat over chunks, and the
    groups of several sets of rows side by side stand for their union (what
    :func:`poststratify` reads of them are sums of counts).

    Examples
    --------
    >>> w = sp.csr_matrix(np.array([[1, 0], [1, 1], [1, 0]]))
    >>> fine = lambda r, c: np.array([5, 6, 5])[r]
    >>> within_groups(w, fine, lambda r, c: np.zeros(len(r), np.int64)).tolist()
    [[0, 0, 1], [5, 6, 6], [0, 0, 0], [2, 1, 1]]
    """
    indptr, n_rows = within.indptr, within.shape[0]
    starts = np.searchsorted(indptr, np.arange(CHUNK_ENTRIES, within.nnz, CHUNK_ENTRIES))
    edges = np.unique(np.r_[0, starts, n_rows])
    parts = [np.zeros((4, 0), np.int64)]
    for r0, r1 in zip(edges[:-1], edges[1:]):
        rows = np.repeat(np.arange(r0, r1, dtype=np.int32), np.diff(indptr[r0 : r1 + 1]))
        cells = within.indices[indptr[r0] : indptr[r1]]
        fine, fine_code = unique_inverse(within_fine(rows, cells))
        coarse, coarse_code = unique_inverse(within_coarse(rows, cells))
        del rows
        both, both_code = unique_inverse(fine_code * len(coarse) + coarse_code)
        del fine_code, coarse_code
        group, group_code = unique_inverse(cells.astype(np.int64) * len(both) + both_code)
        del both_code
        which = both[group % len(both)]
        parts.append(
            np.stack(
                [
                    group // len(both),
                    fine[which // len(coarse)],
                    coarse[which % len(coarse)],
                    np.bincount(group_code, minlength=len(group)),
                ]
            )
        )
    return np.concatenate(parts, axis=1)


def poststratify(
    between: sp.csr_matrix,
    between_fine,
    between_coarse,
    within: sp.csr_matrix | None,
    within_fine,
    within_coarse,
    *,
    groups=None,
) -> sp.csr_matrix:
    """Chance membership (rows x cells) reweighted so that each cell's chance mean is
    taken over its within units' mix of strata (module notes).

    Parameters
    ----------
    between : scipy.sparse.csr_matrix
        Chance rows x cells, the weight of each unit in each cell.
    between_fine, between_coarse : ndarray of int, shape (n_chance_rows, n_cells) or callable
        Per stored entry's (row, cell): the fine and coarse stratum; given as functions
        ``(rows, cells) -> keys`` so that a cell can use a stratum of its own kind.
    within : scipy.sparse.csr_matrix
        Within rows x cells, 1 where a within unit counts in a cell.
    within_fine, within_coarse : callable
        As for the chance rows.
    groups : ndarray of int, shape (4, n), optional
        The :func:`within_groups` of the within units, when already counted (the
        partitions of :mod:`iaa_frames.dask` count theirs): ``within``, ``within_fine``
        and ``within_coarse`` are then not read.

    Returns
    -------
    scipy.sparse.csr_matrix
        The reweighted chance membership (same pattern; weight 0 kept as no entry).

    Examples
    --------
    Ten chance units in stratum 0 and ten in stratum 1; the within units all in stratum
    1: the cell's chance mean is stratum 1's alone (its units weigh 2, the others 0).

    >>> import scipy.sparse as sp
    >>> b = sp.csr_matrix(np.ones((20, 1)))
    >>> w = sp.csr_matrix(np.ones((3, 1)))
    >>> fine_b = lambda r, c: (r >= 10).astype(np.int64)
    >>> fine_w = lambda r, c: np.ones(len(r), np.int64)
    >>> coarse = lambda r, c: np.zeros(len(r), np.int64)
    >>> out = poststratify(b, fine_b, coarse, w, fine_w, coarse).toarray().ravel()
    >>> out[:10].tolist() == [0.0] * 10, out[10:].tolist() == [2.0] * 10
    (True, True)

    With fewer than :data:`MIN_STRATUM_UNITS` units in stratum 1, its within units fall
    back to the plain chance mean: every weight stays 1.

    >>> fine_b = lambda r, c: (r >= 15).astype(np.int64)
    >>> set(poststratify(b, fine_b, coarse, w, fine_w, coarse).toarray().ravel())
    {np.float64(1.0)}
    """
    b = between.tocoo()
    br, bc, bm = b.row.astype(np.int64), b.col.astype(np.int64), b.data.astype(np.float64)
    bf, bg = between_fine(br, bc), between_coarse(br, bc)
    wc, wf, wg, wn = (
        within_groups(sp.csr_matrix(within), within_fine, within_coarse)
        if groups is None
        else np.asarray(groups, dtype=np.int64)
    )
    # dense codes of the strata, so that (cell, stratum) codes fit in int64
    fine, fine_code = unique_inverse(np.concatenate([bf, wf]))
    coarse, coarse_code = unique_inverse(np.concatenate([bg, wg]))
    nf, ng = max(len(fine), 1), max(len(coarse), 1)
    bf, wf = fine_code[: len(br)], fine_code[len(br) :]
    bg, wg = coarse_code[: len(br)], coarse_code[len(br) :]
    n_cells = between.shape[1]

    # chance weight per cell, (cell, fine), (cell, coarse); the chance units' groups are
    # kept (``*_inv``) so that what is looked up per group is gathered, not searched
    b_cell = np.bincount(bc, weights=bm, minlength=n_cells)
    bf_code, bf_inv = unique_inverse(bc * nf + bf)
    bf_sum = np.bincount(bf_inv, weights=bm, minlength=len(bf_code))
    bf_n = np.bincount(bf_inv, minlength=len(bf_code))
    bg_code, bg_inv = unique_inverse(bc * ng + bg)
    bg_sum = np.bincount(bg_inv, weights=bm, minlength=len(bg_code))
    bg_n = np.bincount(bg_inv, minlength=len(bg_code))
    # within units per cell and (cell, fine); which level each (cell, fine) group uses
    w_cell = np.bincount(wc, weights=wn, minlength=n_cells)
    wf_code, wf_sum = _sums(wc, wf, wn, nf)
    wf_cell = wf_code // nf
    # the coarse stratum of each (cell, fine) within group (fine determines coarse)
    key = wc * nf + wf
    order = np.lexsort((wg, key))
    key, wg = key[order], wg[order]
    same = key[1:] == key[:-1]
    if np.any(same & (wg[1:] != wg[:-1])):
        raise IAAError("poststratify: a fine stratum of the within units has several coarse ones")
    wf_coarse = wg[np.r_[True, ~same]] if len(wg) else wg
    fine_ok = _lookup(wf_code, bf_code, bf_n) >= MIN_STRATUM_UNITS
    coarse_ok = ~fine_ok & (_lookup(wf_cell * ng + wf_coarse, bg_code, bg_n) >= MIN_STRATUM_UNITS)
    rest = ~fine_ok & ~coarse_ok
    with np.errstate(invalid="ignore", divide="ignore"):
        share = wf_sum / w_cell[wf_cell]
    p_code, p_val = wf_code[fine_ok], share[fine_ok]
    q_code, q_inv = np.unique(wf_cell[coarse_ok] * ng + wf_coarse[coarse_ok], return_inverse=True)
    q_val = np.bincount(q_inv.ravel(), weights=share[coarse_ok], minlength=len(q_code))
    r_val = np.bincount(wf_cell[rest], weights=share[rest], minlength=n_cells)

    # each term per group of chance units, then gathered: the same operands, the same
    # rounding as term by term
    with np.errstate(invalid="ignore", divide="ignore"):
        fine_term = _lookup(bf_code, p_code, p_val) / bf_sum
        coarse_term = np.nan_to_num(_lookup(bg_code, q_code, q_val) / bg_sum)
        cell_term = r_val / b_cell
        factor = (fine_term[bf_inv] + coarse_term[bg_inv] + cell_term[bc]) * b_cell[bc]
    factor = np.nan_to_num(factor)
    # cells without within units keep their weights (their agreement is undefined anyway)
    factor = np.where(w_cell[bc] > 0, factor, 1.0)
    return _with_weights(between, br, bc, bm * factor)


def _with_weights(between, row, col, weight: np.ndarray) -> sp.csr_matrix:
    """The CSR matrix of ``weight`` at the entries ``(row, col)`` of ``between`` (its COO
    order), without the zeros: on ``between``'s own pattern where ``between`` is a
    canonical CSR matrix (its COO entries are then in CSR order already), else assembled
    from the coordinates.

    Examples
    --------
    >>> m = sp.csr_matrix(np.array([[0.0, 2.0], [3.0, 4.0]]))
    >>> c = m.tocoo()
    >>> _with_weights(m, c.row, c.col, np.array([1.0, 0.0, 5.0])).toarray().tolist()
    [[0.0, 1.0], [0.0, 5.0]]
    """
    if between.format == "csr" and between.has_canonical_format:
        out = sp.csr_matrix(
            (weight, between.indices.copy(), between.indptr.copy()), shape=between.shape
        )
    else:
        out = sp.csr_matrix((weight, (row, col)), shape=between.shape)
    out.eliminate_zeros()
    return out
