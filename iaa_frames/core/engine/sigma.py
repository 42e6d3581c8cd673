"""Sigma cells: within and chance distances of detection, localization and overall,
summed per cell and item, with each cell's sorted distances for the KS test."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.stats.bootstrap import ItemSums, PairSums
from iaa_frames.stats.kstest import ks_agreement_entries
from iaa_frames.stats.samples import cell_tests

from .cells import CellLayout, items_per_column, mean_of, one_minus_ratio, per_item
from .rows import Chance, Rows, localization_rows, sets_rows


def within_sums(layout: CellLayout, n_items: int, within: Rows):
    """Per-item sums [count | distance | iou] of the within rows in every cell, their
    matched pairs per cell (sets; else None) and their rows x cells membership (the
    rows' own, ``within.membership``, when they carry it)."""
    mw = within.membership
    if mw is None:
        mw = layout.membership(
            within.label_cells, layout.groups(within.annotator_a, within.annotator_b)
        )
    quantities = [np.ones(len(within.distance)), within.distance]
    if within.iou is not None:
        quantities.append(within.iou)
    matched = None
    if within.n_matched is not None:
        matched = np.asarray(mw.T @ within.n_matched).ravel()
    return ItemSums(per_item(within.item_a, n_items, quantities, mw)), matched, mw


def within_item_sums(tables: PairTables, layout: CellLayout, component: str):
    """The within-item half of a sigma component's cells, without its KS lists.

    For :mod:`iaa_frames.dask`, which builds it on every partition of a dask DataFrame
    and stacks the partitions' rows.

    Returns
    -------
    sums : ItemSums
        Per item, the within rows' [count | distance | iou] of every cell (what
        :class:`SigmaCells` ``.within`` holds).
    matched : ndarray or None
        Matched object pairs of the within rows per cell (detection, overall).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> from iaa_frames.core.engine import component_cells
    >>> tables = pair_tables(simulate(n_items=10, seed=0), n_chance=100)
    >>> layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    >>> sums, _ = within_item_sums(tables, layout, "localization")
    >>> cells = component_cells(tables, layout, "localization")
    >>> bool((sums.matrix != cells.within.matrix).nnz == 0)
    True
    """
    rows = (
        localization_rows(tables, layout)
        if component == "localization"
        else sets_rows(tables, component, layout)
    )
    sums, matched, _ = within_sums(layout, len(tables.corpus.items), rows[0])
    return sums, matched


@dataclass(frozen=True, eq=False)
class SigmaCells:
    """Within and chance distances of a sigma component, summed per cell.

    ``within`` columns: [count | distance | iou] per cell; ``between``: [count | distance].
    ``*_members`` (CSC of rows x cells, rows in order of distance) list each cell's
    distances, sorted, for KS; ``within_members`` holds True (a within row weighs 1),
    ``between_members`` the chance units' weights. Cells built without their KS lists
    (``build(..., ks=False)``: classification, which has no KS test) hold None in
    ``within_distance``, ``between_distance``, ``*_members``, ``within_item`` and
    ``between_items``.
    """

    n_cells: int
    within: ItemSums
    between: PairSums
    within_distance: np.ndarray
    between_distance: np.ndarray
    within_members: sp.csc_matrix
    between_members: sp.csc_matrix
    n_chance: np.ndarray
    matched: np.ndarray | None  # matched object pairs within + chance per cell (sets)
    within_item: np.ndarray | None = None  # item of each within row, in distance order
    between_items: tuple | None = None  # (item_a, item_b) of each chance row, same order
    n_items: int = 0
    borrowed: np.ndarray | None = None  # per cell, the label cell borrowed from (-1: none)
    aligned: np.ndarray | None = None  # per cell, whether aligned units enter it

    @classmethod
    def build(
        cls, layout: CellLayout, n_items: int, within: Rows, between: Chance, *, ks: bool = True
    ):
        """The cells of the within rows and chance units; ``ks=False``: without the
        sorted lists of the KS tests (:meth:`tests` then refuses)."""
        sums, matched, mw = within_sums(layout, n_items, within)
        mb = between.membership
        if matched is not None:
            matched = matched + np.asarray((mb != 0).T @ between.n_matched).ravel()
        pair_sums = PairSums(
            # [count | distance] per cell: rows [mb | diag(distance) @ mb], never stacked
            between.item_a,
            between.item_b,
            mb,
            scales=(None, between.distance),
        )
        n_chance = np.asarray((mb != 0).sum(axis=0), dtype=np.float64).ravel()
        lists = _ks_lists(within, between, mw, mb, n_items) if ks else (None,) * 6
        del mw
        *members, within_item, between_items = lists
        return cls(
            layout.n_cells,
            sums,
            pair_sums,
            *members,
            n_chance,
            matched,
            within_item,
            between_items,
            n_items,
            between.borrowed,
            between.aligned,
        )

    def without_ks_lists(self) -> SigmaCells:
        """These cells without their KS lists (the same sums, shared, not copied): what the
        statistics read once the tests hold the lists, which are then freed with the
        tests (:func:`iaa_frames.core.engine.assemble.agreement_from_tables`)."""
        return replace(
            self,
            within_distance=None,
            between_distance=None,
            within_members=None,
            between_members=None,
            within_item=None,
            between_items=None,
        )

    def statistics(self, multiplicities=None):
        """(observed, expected, agreement) per cell; a leading replicate axis for a block
        of multiplicities."""
        if multiplicities is None:
            w = self.within.total()
        else:
            w = self.replicate_within.total(multiplicities)
        return self.statistics_of(w, self.between.total(multiplicities))

    def statistics_of(self, w, b):
        """:meth:`statistics` of the totals ``w`` of the within sums (their first
        ``2 * n_cells`` columns: [count | distance]) and ``b`` of the chance sums."""
        n = self.n_cells
        observed = mean_of(w[..., n : 2 * n], w[..., :n])
        expected = mean_of(b[..., n:], b[..., :n])
        return observed, expected, one_minus_ratio(observed, expected)

    @cached_property
    def replicate_within(self) -> ItemSums:
        """The within sums a replicate's statistics read: [count | distance], without
        localization's iou columns (read by :meth:`raw_iou` alone, on the whole corpus:
        a third fewer products per replicate). Each column's totals are those of the
        whole matrix, bit for bit (a product sums every column alone, item after
        item)."""
        if type(self.within) is not ItemSums:  # sums of another kind read as they are
            return self.within
        m = self.within.matrix
        if m.shape[1] <= 2 * self.n_cells:
            return self.within
        return ItemSums(sp.csr_matrix(m[:, : 2 * self.n_cells]))

    def pair_variance(self):
        """Per cell, the pair-level part of the bootstrap variance of the agreement.

        With ``c_d`` and ``s_d`` the chance count and distance sum of the pair of items
        ``d``, ``E`` the chance mean and ``O`` the within mean, the chance rows' residual
        ``r_d = s_d - E c_d`` enters the agreement ``1 - O / E`` with slope ``O / E^2``:
        ``P = (O / E^2)^2 * sum_d r_d^2 / (sum_d c_d)^2``
        (:func:`iaa_frames.stats.intervals.pair_level_shrink`).
        """
        n = self.n_cells
        m = self.between.matrix
        count, total = self._chance_counts(m), m[:, n:]
        c = np.asarray(count.sum(axis=0)).ravel()
        observed, expected, _ = self.statistics()
        resid = sp.csr_matrix(total - count @ sp.diags(np.nan_to_num(expected)))
        ss = np.asarray(resid.multiply(resid).sum(axis=0)).ravel()
        with np.errstate(invalid="ignore", divide="ignore"):
            return (observed / expected**2) ** 2 * ss / c**2

    def _chance_counts(self, m):
        """The chance count of every cell in the pairs-of-items rows ``m`` of
        ``between.matrix`` (its first ``n_cells`` columns)."""
        return m[:, : self.n_cells]

    def counts(self):
        """(n_units, n_chance) per cell: within units, and distinct chance units."""
        return self.within.total()[: self.n_cells], self.n_chance

    def item_counts(self):
        """Per cell, the number of items with a within unit in it (``n_items``; the
        :func:`~iaa_frames.core.engine.cells.items_per_column` of the count columns), counted
        once for the sums that cells with and without their KS lists share
        (:meth:`iaa_frames.stats.bootstrap.ItemSums.column_items`)."""
        if type(self.within) is not ItemSums:  # sums of another kind: counted here
            return items_per_column(self.within.matrix, slice(0, self.n_cells))
        return self.within.column_items(self.n_cells)

    def raw_iou(self):
        """Mean IoU of the within rows of every cell (localization)."""
        n = self.n_cells
        w = self.within.total()
        return mean_of(w[2 * n : 3 * n], w[:n]) if w.size >= 3 * n else np.full(n, np.nan)

    def tests(self, cells, seed: int = 0, multiplicities=None):
        """KS statistic, sign, p-value and fraction below chance of the given cells, all
        at once (:func:`iaa_frames.stats.samples.cell_tests`). The p-value is the one-sided
        cluster-bootstrap test of :func:`iaa_frames.stats.kstest.ks_agreement_entries`, with the
        chance units' weights; ``multiplicities``: its replicates, if already drawn
        (:func:`iaa_frames.stats.kstest.ks_multiplicities` of ``n_items`` and ``seed``)."""
        if self.within_members is None:
            raise ValueError("these cells were built without their KS lists (ks=False)")
        out = np.full((4, self.n_cells), np.nan)
        cells = np.asarray(cells, dtype=np.int64)
        if not len(cells):
            return out
        # the entries of the tested cells, all cells at once (no loop over cells)
        wi, w_cell, _ = _entries(self.within_members, cells)
        bi, b_cell, bw = _entries(self.between_members, cells)
        out[:, cells] = cell_tests(
            self.within_distance,
            w_cell,
            self.between_distance[bi],
            b_cell,
            bw,
            len(cells),
            within_rows=wi,
            pvalue=False,  # the asymptotic p-value is not the one reported (below)
            presorted=True,  # every cell's rows in order of distance (_ks_lists)
        )
        # the p-value: the one-sided cluster-bootstrap test, with the chance units'
        # weights (post-stratified, pooled)
        out[2, cells] = ks_agreement_entries(
            self.within_distance,
            self.between_distance,
            within_item=self.within_item,
            between_item_a=self.between_items[0],
            between_item_b=self.between_items[1],
            within_rows=wi,
            within_cell=w_cell,
            between_rows=bi,
            between_cell=b_cell,
            between_weight=bw,
            n_cells=len(cells),
            n_items=self.n_items,
            seed=seed,
            multiplicities=multiplicities,
            # the distinct items of every cell's within rows: the items with a within
            # unit in it, read from the per-item sums (not counted again from the entries)
            within_items=self.item_counts()[cells],
        )[1]
        return out


def _ks_lists(within: Rows, between: Chance, mw, mb, n_items: int) -> tuple:
    """The KS lists of :class:`SigmaCells`: within and chance distances, members, the
    within rows' items and the chance rows' items, every cell's rows in order of distance
    (which makes the sorting inside the KS test and the chance quantile of every cell
    cheap)."""
    rank_w, rank_b = distance_order(within.distance), np.argsort(between.distance)
    return (
        np.asarray(within.distance, dtype=np.float64)[rank_w],
        np.asarray(between.distance, dtype=np.float64)[rank_b],
        _flags(mw)[rank_w].tocsc(),
        mb[rank_b].tocsc(),
        _codes(within.item_a, n_items)[rank_w],
        (_codes(between.item_a, n_items)[rank_b], _codes(between.item_b, n_items)[rank_b]),
    )


#: Within distances :func:`distance_order` looks at first for how many distinct values
#: they take.
_ORDER_SAMPLE = 1 << 13
#: Most distinct within distances :func:`distance_order` counts (ranks in uint16).
_ORDER_VALUES = 1 << 16


def distance_order(distance) -> np.ndarray:
    """A permutation that sorts the within distances ascending (the order of the KS
    lists, :func:`_ks_lists`). Distances of few distinct values (detection's ``1 - F1``
    of small counts: 24 values over 2.4M rows at 1M boxes) are sorted by their ranks, a
    stable radix sort of uint16 (0.03 s instead of numpy's argsort, 0.12 s, which the
    many ties slow down); others by :func:`numpy.argsort`.

    Rows of equal distance may come in any order: within a cell they weigh alike (one
    step of ``1 / n`` of the within ECDF, in :func:`iaa_frames.stats.samples.cell_tests`)
    and the cluster-bootstrap test counts them (their bins and items,
    :func:`iaa_frames.stats.kstest.ks_agreement_entries`), so every result is the same
    bit for bit whatever their order among themselves. (The chance rows, each of its own
    weight, keep numpy's order.)

    Examples
    --------
    >>> d = np.array([0.5, 0.0, 0.5, 0.25])
    >>> d[distance_order(d)].tolist()
    [0.0, 0.25, 0.5, 0.5]
    """
    d = np.asarray(distance, dtype=np.float64)
    few = d.size > _ORDER_SAMPLE and len(pd.unique(d[:_ORDER_SAMPLE])) < _ORDER_SAMPLE // 32
    if few:
        codes, values = pd.factorize(d)
        if len(values) <= _ORDER_VALUES and (codes >= 0).all():
            rank = np.empty(len(values), dtype=np.uint16)
            rank[np.argsort(values)] = np.arange(len(values), dtype=np.uint16)
            return np.argsort(rank[codes], kind="stable")
    return np.argsort(d)


def _entries(members: sp.csc_matrix, cells: np.ndarray):
    """The entries of the columns ``cells`` of a rows x cells CSC matrix, column after
    column: their rows, the position of their cell in ``cells`` and their stored values.
    Every column in order: the stored arrays themselves, no copy."""
    indptr = members.indptr
    count = indptr[cells + 1] - indptr[cells]
    cell = np.repeat(np.arange(len(cells), dtype=_index(len(cells))), count)
    if np.array_equal(cells, np.arange(members.shape[1])):
        return members.indices, cell, members.data
    if (np.diff(cells) > 0).all():  # ascending columns: a mask keeps their entries' order
        chosen = np.zeros(members.shape[1], dtype=bool)
        chosen[cells] = True
        at = np.repeat(chosen, np.diff(indptr))
    else:
        at = indptr[cells][cell] + np.arange(len(cell)) - np.repeat(np.cumsum(count) - count, count)
    return members.indices[at], cell, members.data[at]


def _flags(members: sp.csr_matrix) -> sp.csr_matrix:
    """The pattern of a rows x cells matrix (no stored zero) with True for every value:
    one byte an entry instead of eight."""
    return sp.csr_matrix(
        (np.ones(members.nnz, dtype=bool), members.indices, members.indptr), shape=members.shape
    )


def _codes(item, n_items: int) -> np.ndarray:
    """Item codes in the narrowest of int32 and int64 that holds ``n_items``."""
    return np.asarray(item, dtype=_index(n_items))


def _index(n: int):
    """int32 for codes below ``n`` when they fit, else int64."""
    return np.int32 if n < 2**31 else np.int64
