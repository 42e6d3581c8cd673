"""Chance units a thin cell borrows from its parent population.

Why
---
Localization's chance units are the *matched* between-item object pairs. Where objects
are small or spread over the scene, two unrelated objects rarely pass the gate, so the
population of a narrow cell (an annotator, a pair of annotators, a class and an
annotator) holds a handful of units even when the corpus as a whole holds hundreds:
on the bundled sample (40 images, 4 annotators) every annotator pair had 5 to 19, and
their localization was NaN.

The rule
--------
A cell with at least :data:`~iaa_frames.core.engine.assemble.MIN_WITHIN_UNITS` within units
and fewer than :data:`~iaa_frames.core.chance.MIN_CHANCE_UNITS` chance units of its own takes
the chance units of its **parent** population, when the parent has more:

============================  ==========================================================
cell                          parent
============================  ==========================================================
annotator A (a class or all)  the same class's "(all)" cell (every annotator)
annotator pair A, B           the same class's "(all)" cell (its uniform units)
============================  ==========================================================

The parent's units then go through the cell's own post-stratification
(:mod:`iaa_frames.core.chance.poststrata`): their mean is taken over the *cell's* mix of class
pairs and count ratios, so a pair of annotators who draw mostly one class is compared
with chance pairs of that class. What borrowing assumes, written in the cell's ``note``:
within a stratum, the annotators' unrelated objects meet as everybody's do. It cannot
catch an annotator who is lazy alone (the same spot on every image): such an annotator's
own chance units are not thin (every one of them passes the gate), so that cell never
borrows.

The chance units' uncertainty is in the interval: the bootstrap resamples items, and
with them the borrowed units (they belong to pairs of items like any chance unit).

A cell that borrows reports the parent's ``n_chance`` and ``chance_source`` "borrowed";
where even the parent is thin, the cell stays NaN with the parent's count.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from iaa_frames.core.chance import MIN_CHANCE_UNITS

__all__ = ["BORROW_ENTRIES", "MIN_BORROWER_UNITS", "borrow_thin_cells"]

#: Most entries the borrowing cells may add to a chance membership in all: above, each
#: borrowing cell takes an evenly spaced subset of its parent's units (bounded memory
#: for crowds with many thin pairs of annotators).
BORROW_ENTRIES = 1 << 24
#: Fewest within units for a cell to borrow (a cell with fewer is NaN anyway).
MIN_BORROWER_UNITS = 2


def borrow_thin_cells(
    membership: sp.csr_matrix,
    parent_columns: sp.csc_matrix,
    parent_of: np.ndarray,
    within_count: np.ndarray,
    *,
    min_units: int = MIN_CHANCE_UNITS,
    budget: int = BORROW_ENTRIES,
    thin=None,
):
    """The chance membership with every thin cell's column replaced by its parent's.

    Parameters
    ----------
    membership : scipy.sparse.csr_matrix
        Chance rows x cells: each unit's weight in each cell (before post-stratification).
    parent_columns : scipy.sparse.csc_matrix
        Chance rows x parents: the units of each parent population and their weights.
    parent_of : ndarray of int, per cell
        The column of ``parent_columns`` of the cell's parent (-1: none).
    within_count : ndarray, per cell
        The cell's within units.
    min_units : int
        Fewest own chance units for a cell to keep its own.
    budget : int
        Most entries added in all (:data:`BORROW_ENTRIES`).
    thin : ndarray of bool, per cell, optional
        Which cells borrow, when decided by the caller (classification decides on the
        "(all)" label cell of each annotator group, :mod:`iaa_frames.core.engine.labels`);
        by default the cells with at least :data:`MIN_BORROWER_UNITS` within units, fewer
        than ``min_units`` chance units of their own and a parent with more.

    Returns
    -------
    membership : scipy.sparse.csr_matrix
    borrowed : ndarray of int, per cell
        The parent column a cell borrowed from, -1 where it kept its own units.

    Examples
    --------
    Cell 1 has one chance unit of its own and two within units: it takes its parent's
    (column 0 of the parents) three units.

    >>> m = sp.csr_matrix(np.array([[1.0, 0], [1, 1], [1, 0]]))
    >>> out, borrowed = borrow_thin_cells(m, m[:, :1].tocsc(), np.array([-1, 0]),
    ...                                   np.array([5, 2]), min_units=2)
    >>> out.toarray().tolist(), borrowed.tolist()
    ([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], [-1, 0])
    """
    n_rows, n_cells = membership.shape
    own = np.diff(membership.tocsc().indptr)
    parent_of = np.asarray(parent_of, dtype=np.int64)
    parent_count = np.diff(parent_columns.indptr)
    has_parent = parent_of >= 0
    parent_n = np.where(has_parent, parent_count[np.maximum(parent_of, 0)], 0)
    if thin is None:
        thin = (
            has_parent
            & (np.asarray(within_count) >= MIN_BORROWER_UNITS)
            & (own < min_units)
            & (parent_n > own)
        )
    thin = np.asarray(thin, dtype=bool) & has_parent
    borrowed = np.where(thin, parent_of, -1)
    cells = np.flatnonzero(thin)
    if not len(cells):
        return membership, borrowed
    # every borrowing cell's entries: its parent's, an evenly spaced subset of them when
    # all of them would exceed the budget
    count = parent_n[cells]
    step = max(1, -(-int(count.sum()) // max(int(budget), 1)))
    take = -(-count // step)
    if not (_distinct(membership) and _distinct(parent_columns)):  # sums to form
        return _assembled(membership, parent_columns, parent_of, thin, cells, take, step), borrowed
    # the new matrix column by column (the cells' own entries, or the parent's), then
    # turned by row: the canonical matrix that sorting the entries would give, in time
    # linear in them (a crowd's thin cells copy millions of entries)
    by_cell = membership.tocsc()
    n_own = len(by_cell.indices)
    size = np.diff(by_cell.indptr).astype(np.int64)
    size[cells] = take
    indptr = np.zeros(n_cells + 1, dtype=np.int64)
    np.cumsum(size, out=indptr[1:])
    # where each cell's entries start in the own and parents' entries, one after the other
    start = by_cell.indptr[:-1].astype(np.int64)
    start[cells] = n_own + parent_columns.indptr[parent_of[cells]]
    # the k-th entry of a cell: its start + k, or + k * step for a borrowed subset
    src = np.arange(indptr[-1], dtype=np.int64)
    if step > 1:  # a subset: entries step apart in the borrowed cells
        stride = np.ones(n_cells, dtype=np.int64)
        stride[cells] = step
        src -= np.repeat(indptr[:-1], size)
        src *= np.repeat(stride, size)
        src += np.repeat(start, size)
    else:
        src += np.repeat(start - indptr[:-1], size)
    rows = np.concatenate([by_cell.indices, parent_columns.indices]).take(src)
    lent = parent_columns.data * step if step > 1 else parent_columns.data
    values = np.concatenate([by_cell.data, lent]).take(src)
    del src, lent
    out = sp.csc_matrix((values, rows, indptr), shape=(n_rows, n_cells)).tocsr()
    return out, borrowed


def _distinct(m) -> bool:
    """Whether no (row, column) is stored twice in the CSR or CSC matrix ``m`` (its entries
    may be in any order): converted to the other format, repeats stand side by side.

    Examples
    --------
    >>> _distinct(sp.csr_matrix((np.ones(2), np.array([1, 0]), np.array([0, 2])), shape=(1, 2)))
    True
    >>> _distinct(sp.csr_matrix((np.ones(2), np.array([1, 1]), np.array([0, 2])), shape=(1, 2)))
    False
    """
    if m.has_canonical_format:
        return True
    t = m.tocsc() if m.format == "csr" else m.tocsr()  # sorted within each line
    same = t.indices[1:] == t.indices[:-1]
    first = t.indptr[1:-1]
    same[first[(first > 0) & (first < len(t.indices))] - 1] = False  # a line's first
    return not same.any()


def _assembled(membership, parent_columns, parent_of, thin, cells, take, step):
    """:func:`borrow_thin_cells`' matrix from its entries, summed and sorted by scipy (for
    inputs with an entry stored twice, whose sum the column-wise copy would not form)."""
    n_rows, n_cells = membership.shape
    cell = np.repeat(cells, take)
    first = parent_columns.indptr[parent_of[cells]]
    offset = np.arange(len(cell)) - np.repeat(np.cumsum(take) - take, take)
    at = np.repeat(first, take) + offset * step
    rows = parent_columns.indices[at]
    values = parent_columns.data[at] * step
    kept = membership.tocoo()
    keep = ~thin[kept.col]
    return sp.csr_matrix(
        (
            np.concatenate([kept.data[keep], values]),
            (np.concatenate([kept.row[keep], rows]), np.concatenate([kept.col[keep], cell])),
        ),
        shape=(n_rows, n_cells),
    )
