"""Cells and how table rows are summed into them.

A cell is ``label_cell * n_groups + group``: label cells 0 = "(all)" and 1 + class
code; groups 0 = "(all)" and 1 + annotator code, or, pairwise, ``a * n_annotators + b``.
Each table row is a member of a few cells and rows are summed into cells with sparse
matrix products, per item (so that the bootstrap reweights items), never looped over."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL

from .result import COMPONENTS, MEASURES

#: An expected disagreement at or below this counts as none ("no variation"): identical
#: shapes in normalized coordinates differ by rounding (about 1e-16), which must not turn
#: an undefined ratio into a perfect score.
NO_VARIATION = 1e-12
#: The components whose measure is sigma (the others: alpha).
SIGMA_COMPONENTS = tuple(c for c in COMPONENTS if MEASURES[c] == "sigma")


def mean_of(total, count):
    """``sum / count``, NaN where there is nothing to average."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / count, np.nan)


def one_minus_ratio(observed, expected):
    """``agreement = 1 - observed / expected``, NaN where there is no expected
    disagreement (``expected <= NO_VARIATION``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > NO_VARIATION, 1.0 - observed / expected, np.nan)


@dataclass(frozen=True)
class CellLayout:
    """Cells ``label_cell * n_groups + group``. Label cells: 0 = "(all)", 1 + class code.
    Groups: 0 = "(all)" and 1 + annotator code; or, pairwise, ``a * n_annotators + b``
    for the annotator pair a < b."""

    n_labels: int
    n_annotators: int
    pairwise: bool = False

    @property
    def n_groups(self) -> int:
        return self.n_annotators**2 if self.pairwise else self.n_annotators + 1

    @property
    def n_cells(self) -> int:
        return (self.n_labels + 1) * self.n_groups

    def groups(self, a, b) -> np.ndarray:
        """Annotator cells of rows involving annotators ``a`` and ``b``: shape (n, j)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        if self.pairwise:
            return (np.minimum(a, b) * self.n_annotators + np.maximum(a, b))[:, None]
        out = np.empty((len(a), 3), dtype=np.int64)  # filled in place (no column copies)
        out[:, 0] = 0
        np.add(a, 1, out=out[:, 1])
        np.add(b, 1, out=out[:, 2])
        return out

    def coincidence_weight(self, m) -> np.ndarray:
        """Weight of one pair of values of a unit of ``m`` values: ``1 / (m - 1)``; a
        pairwise table keeps two values per unit, hence 1."""
        m = np.asarray(m, dtype=np.float64)
        return np.ones_like(m) if self.pairwise else 1.0 / (m - 1.0)

    def membership(self, label_cells, groups) -> sp.csr_matrix:
        """Rows x cells indicator: every combination of a row's label cells (-1 = none)
        and annotator cells."""
        label_cells, groups = np.asarray(label_cells), np.asarray(groups)
        n, slots = len(label_cells), label_cells.shape[1] * groups.shape[1]
        # the cells in the index type of the matrix, a flag (not a float 1.0) per slot:
        # the values of the matrix are 1.0 where a slot is kept (1M boxes: 0.1 GB less
        # at once than int64 cells and float64 flags)
        cell = np.empty((n, label_cells.shape[1], groups.shape[1]), dtype=_index(n * slots, self))
        np.multiply(label_cells[:, :, None], self.n_groups, out=cell, casting="unsafe")
        cell += groups[:, None, :].astype(cell.dtype, copy=False)
        valid = np.broadcast_to((label_cells >= 0)[:, :, None], cell.shape)
        return sparse_rows(cell.reshape(n, slots), None, self.n_cells, keep=valid.reshape(n, slots))


@dataclass(frozen=True, eq=False)
class GroupedPairLayout(CellLayout):
    """A pairwise layout whose groups are given by a table: the annotator pair ``(a, b)``,
    ``a != b``, counts in the group ``pair_group[code[a], code[b]]`` (``code``: each
    annotator's code, ``pair_group``: a symmetric table of codes x codes); an annotator
    with itself is the last group, never reported. Codes are kinds of raters
    (:mod:`iaa_frames.core.engine.kind_pairs`) or the annotators of a subset with one code for
    the rest (:func:`iaa_frames.core.engine.pairwise.pairwise_from_tables`); nothing here grows
    with the square of the number of annotators.

    Examples
    --------
    >>> lay = GroupedPairLayout(1, 3, pairwise=True, code=np.array([0, 1, 1]),
    ...                         pair_group=np.array([[0, 1], [1, 2]]), n_pair_groups=3)
    >>> lay.groups([0, 1, 2], [1, 2, 2])[:, 0].tolist()
    [1, 2, 2]
    """

    code: np.ndarray | None = None
    pair_group: np.ndarray | None = None
    n_pair_groups: int = 1

    @property
    def n_groups(self) -> int:
        return self.n_pair_groups

    def groups(self, a, b) -> np.ndarray:
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        group = self.pair_group[self.code[a], self.code[b]]
        return np.where(a == b, self.n_pair_groups - 1, group)[:, None]


def _index(n_entries: int, layout: CellLayout):
    """The index type of a membership matrix of ``n_entries`` slots (as :func:`sparse_rows`
    chooses it)."""
    return np.int32 if max(n_entries, layout.n_cells) < 2**31 else np.int64


def sparse_rows(columns, values, n_columns, *, keep=None) -> sp.csr_matrix:
    """Rows x columns matrix holding ``values[r, s]`` at ``columns[r, s]`` for every slot
    ``s`` of row ``r`` whose value is not 0 (a row has no repeated column); ``values``
    None: 1.0 at every slot where ``keep`` (booleans, the shape of ``columns``) holds.

    Examples
    --------
    >>> m = sparse_rows(np.array([[0, 2], [1, 2]]), None, 3,
    ...                 keep=np.array([[True, False], [True, True]]))
    >>> m.toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    """
    n, slots = np.shape(columns if values is None else values)
    index = np.int32 if max(n * slots, n_columns) < 2**31 else np.int64
    if values is not None:
        keep = values != 0
    if keep.all():  # every slot stored (one cell per slot): the arrays as they are
        indptr = np.arange(0, n * slots + 1, slots, dtype=index)
        data = np.ones(n * slots) if values is None else values.ravel()
        indices = columns.astype(index, copy=False).ravel()
    else:
        indptr = np.zeros(n + 1, dtype=index)
        per_row = keep[:, 0].astype(index)
        for s in range(1, slots):  # a few slots, each over all rows
            per_row += keep[:, s]
        np.cumsum(per_row, out=indptr[1:])
        del per_row
        # the stored slots gathered by their positions (faster than a 2-D boolean mask),
        # rows a block at a time
        if values is None:
            data = np.ones(int(indptr[-1]))
        else:
            data = np.empty(int(indptr[-1]), dtype=values.dtype)
        indices = np.empty(int(indptr[-1]), dtype=index)
        step = max(1, (1 << 21) // max(slots, 1))
        for r0 in range(0, n, step):  # a loop over blocks of rows
            r1 = min(r0 + step, n)
            at = np.flatnonzero(keep[r0:r1])
            if values is not None:
                data[indptr[r0] : indptr[r1]] = values[r0:r1].ravel()[at]
            indices[indptr[r0] : indptr[r1]] = columns[r0:r1].ravel()[at]
            del at
    return sp.csr_matrix((data, indices, indptr), shape=(n, n_columns))


def by_item(item, n_items) -> sp.csr_matrix:
    """Items x rows indicator (row r belongs to item ``item[r]``)."""
    item = np.asarray(item, dtype=np.int64)
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(item, minlength=n_items), out=indptr[1:])
    rows = np.argsort(item, kind="stable")
    return sp.csr_matrix((np.ones(len(item)), rows, indptr), shape=(n_items, len(item)))


def per_item(item, n_items, quantities, membership) -> sp.csr_matrix:
    """``S[i, q * n_cells + cell]`` = sum of quantity ``q`` over the rows of item ``i`` in
    the cell (rows x cells ``membership``)."""
    items_by_rows = by_item(item, n_items)
    per_row = np.diff(membership.indptr)
    parts = []
    for q in quantities:  # a few quantities, each a sparse product over all rows
        # the membership's pattern with the quantity's values: its index arrays shared
        q = np.asarray(q, dtype=np.float64)
        data = membership.data
        if not (q == 1.0).all():  # a count (all ones) keeps the values: x * 1.0 is x
            # the rows' quantities repeated over their entries, times the values in place
            # (one array of the entries, not two; the same products)
            scaled_data = np.repeat(q, per_row)
            scaled_data *= data
            data = scaled_data
            del scaled_data
        scaled = sp.csr_matrix(
            (data, membership.indices, membership.indptr), shape=membership.shape
        )
        del data
        parts.append(items_by_rows @ scaled)
        del scaled
    return sp.hstack(parts).tocsr()


def items_per_column(matrix, columns) -> np.ndarray:
    """Number of items (rows of a per-item sums matrix) with a nonzero entry in each of
    the given columns (an item "enters" a cell when one of its rows counts in it).

    Examples
    --------
    >>> m = sp.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]))
    >>> items_per_column(m, slice(0, 3)).tolist()
    [1.0, 0.0, 2.0]
    """
    block = sp.csc_matrix(matrix[:, columns])
    block.eliminate_zeros()
    return np.diff(block.indptr).astype(np.float64)


def check_tables(tables):
    if not isinstance(tables, PairTables):
        raise ParameterError(
            f"tables must be the PairTables of iaa_frames.core.tables.pairs.pair_tables; "
            f"got {type(tables).__name__}"
        )


def check_component(component, allowed=COMPONENTS):
    if not isinstance(component, str) or component not in allowed:
        raise ParameterError(f"component must be one of {allowed}; got {component!r}")


def label_cell(tables: PairTables, label) -> int:
    labels = [str(x) for x in tables.corpus.labels]
    if label == ALL:
        return 0
    if isinstance(label, str) and label in labels:
        return 1 + labels.index(label)
    raise ParameterError(f"label must be {ALL!r} or one of the classes {labels}; got {label!r}")
