"""Agreement of every cell (component x label x annotator) from the pair tables.

Every component is an agreement ``1 - observed / expected`` (definitions: docs/ARCHITECTURE.md, "The components"):

* ``detection``, ``localization``, ``overall``: **sigma**, the mean within-item distance
  over the mean between-item (chance) distance, with the KS test of the two samples;
* ``classification``: **Krippendorff's alpha** of the labels of clusters with at least two
  members (nominal for ``"(all)"``, binary {class, other} for a class).

How a cell is computed
----------------------
Each table row is a member of a few cells: its label cells ("(all)", and its class where
one applies) times its annotator cells ("(all)", and each annotator the row involves).
Rows are summed into cells with sparse matrix products, never looped over. Alpha is
computed from *pairs of values*: every unordered pair of values of a unit of ``m`` values,
weighted ``1 / (m - 1)``, which reproduces Krippendorff's coincidence matrix exactly
(``o_ck = sum_u (number of c-k pairs in u) / (m_u - 1)``), so that an annotator's cell can
keep only the pairs that involve it.

Per annotator A
~~~~~~~~~~~~~~~
Only pairs or pairable values involving A count:

* detection, overall: the pairings (within and chance alike) in which one of the two
  annotations is A's;
* localization: the matched object pairs (within and chance) with one object drawn by A;
* classification: alpha over the coincidences of the pairs of values that involve A: for
  every cluster with ``m >= 2`` members one of which is A's, the pairs (A's label, another
  member's label), each weighted ``1 / (m - 1)`` as in the full coincidence matrix (so each
  of A's pairable labels counts once, against the mean of the others). ``n_units`` counts
  those clusters;
* presence alpha (detection rows): the same, with the rater pairs (A, another annotator
  who covered the item) of every cluster of the items A covered.

Per class L
~~~~~~~~~~~
Localization: pairs whose two objects both carry L (within and chance). Detection and
overall: both annotations restricted to L, for the pairings where one of them contains L.
Classification: binary alpha after recoding every label to {L, other}, over all pairable
clusters. Presence alpha: every cluster's members labelled L (units where at least one
member is L).

Pairwise
~~~~~~~~
:func:`pairwise` restricts each figure to one pair of annotators: the pairings or object
pairs of exactly those two; for classification, alpha of the two annotators' labels on
the clusters where both drew a member (two values per unit, the usual two-coder alpha).

Undefined values
~~~~~~~~~~~~~~~~
A cell's agreement is NaN, with the reason in ``note``, when it has fewer within units
than :data:`MIN_WITHIN_UNITS` (sigma) or :data:`MIN_ALPHA_UNITS` (alpha), fewer chance units
than :data:`MIN_CHANCE_UNITS` (sigma), or an expected disagreement of 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from .progress import DELAY, tqdm

from .bootstrap import (CI_METHODS, ItemSums, PairSums, bca_interval, block_size,
                        jackknife_blocks, multiplicity_blocks)
from .errors import ParameterError
from .frame import ALL
from .chance import MIN_CHANCE_UNITS
from .krippendorff_alpha import binary_disagreements, nominal_disagreements
from .kstest import ks_agreement_tests
from .matching import pairs_within_runs
from .pairs import PairTables, iter_pair_tables, pair_tables
from .result import (
    COMPONENTS,
    MEASURES,
    NO_MATCH_NOTE,
    VARIABLES,
    build_dataset,
    build_pairwise,
    notes,
)
from .stats import cell_tests, percentile_ci
from .thresholds import check_thresholds, concat_thresholds, with_threshold
from .settings import DEFAULTS, check_int, check_progress

__all__ = [
    "CI_LEVEL",
    "DEFAULT_N_BOOT",
    "MIN_ALPHA_UNITS",
    "MIN_CHANCE_UNITS",
    "MIN_WITHIN_UNITS",
    "NO_VARIATION",
    "agreement",
    "agreement_from_tables",
    "component_alpha",
    "component_ks",
    "component_sigma",
    "pairwise",
    "pairwise_from_tables",
    "cell_distances",
]

#: Fewest within units (pairings or matched pairs) for which sigma and KS are reported.
MIN_WITHIN_UNITS = 2
#: Fewest pairable units (clusters with at least two members) for which alpha is reported.
MIN_ALPHA_UNITS = 2
#: An expected disagreement at or below this counts as none ("no variation"): identical
#: shapes in normalized coordinates differ by rounding (about 1e-16), which must not turn
#: an undefined ratio into a perfect score.
NO_VARIATION = 1e-12
#: Coverage of the bootstrap percentile interval.
CI_LEVEL = 0.95
#: Default number of bootstrap replicates (library, accessor and command line alike).
DEFAULT_N_BOOT = 200

_SIGMA = tuple(c for c in COMPONENTS if MEASURES[c] == "sigma")
_PROGRESS_MIN_WORK = 10_000_000_000  # (replicate x stored entry) products: about 5 s or more


# ------------------------------------------------------------------------- formulas


def _mean(total, count):
    """``sum / count``, NaN where there is nothing to average."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / count, np.nan)


def _one_minus_ratio(observed, expected):
    """``agreement = 1 - observed / expected``, NaN where there is no expected
    disagreement (``expected <= NO_VARIATION``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > NO_VARIATION, 1.0 - observed / expected, np.nan)


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class _Layout:
    """Cells ``label_cell * n_groups + group``. Label cells: 0 = "(all)", 1 + class code.
    Groups: 0 = "(all)" and 1 + annotator code; or, pairwise, ``a * n_annotators + b``
    for the annotator pair a < b."""

    n_labels: int
    n_annotators: int
    pairwise: bool = False

    @property
    def n_groups(self) -> int:
        return self.n_annotators ** 2 if self.pairwise else self.n_annotators + 1

    @property
    def n_cells(self) -> int:
        return (self.n_labels + 1) * self.n_groups

    def groups(self, a, b) -> np.ndarray:
        """Annotator cells of rows involving annotators ``a`` and ``b``: shape (n, j)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        if self.pairwise:
            return (np.minimum(a, b) * self.n_annotators + np.maximum(a, b))[:, None]
        return np.column_stack([np.zeros_like(a), 1 + a, 1 + b])

    def coincidence_weight(self, m) -> np.ndarray:
        """Weight of one pair of values of a unit of ``m`` values: ``1 / (m - 1)``; a
        pairwise table keeps two values per unit, hence 1."""
        m = np.asarray(m, dtype=np.float64)
        return np.ones_like(m) if self.pairwise else 1.0 / (m - 1.0)

    def membership(self, label_cells, groups) -> sp.csr_matrix:
        """Rows x cells indicator: every combination of a row's label cells (-1 = none)
        and annotator cells."""
        n = len(label_cells)
        cell = label_cells[:, :, None] * self.n_groups + groups[:, None, :]
        valid = np.broadcast_to((label_cells >= 0)[:, :, None], cell.shape)
        slots = cell.shape[1] * cell.shape[2]
        return _sparse_rows(cell.reshape(n, slots),
                            valid.reshape(n, slots).astype(np.float64), self.n_cells)


def _sparse_rows(columns, values, n_columns) -> sp.csr_matrix:
    """Rows x columns matrix holding ``values[r, s]`` at ``columns[r, s]`` for every slot
    ``s`` of row ``r`` whose value is not 0 (a row has no repeated column)."""
    keep = values != 0
    indptr = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=indptr[1:])
    return sp.csr_matrix((values[keep], columns[keep], indptr),
                         shape=(len(values), n_columns))


class _Rows(NamedTuple):
    """Rows of a distance table: items, annotators, label cells (n, k), distances."""

    item_a: np.ndarray
    item_b: np.ndarray | None  # None for within-item rows
    annotator_a: np.ndarray
    annotator_b: np.ndarray
    label_cells: np.ndarray
    distance: np.ndarray
    iou: np.ndarray | None = None
    n_matched: np.ndarray | None = None


def _col(frame, name):
    return frame[name].to_numpy()


class _Chance(NamedTuple):
    """Distinct chance units of a sigma component: items, distances, matched pairs, and
    the rows x cells membership (weights: 1, or a pooled unit's weight)."""

    item_a: np.ndarray
    item_b: np.ndarray
    distance: np.ndarray
    membership: sp.csr_matrix
    n_matched: np.ndarray | None = None


def _chance_membership(layout: _Layout, frame: pd.DataFrame, whole, own_class,
                       pooled: pd.DataFrame | None = None) -> sp.csr_matrix:
    """Rows x cells of the chance rows: the cells each distinct chance unit counts in.

    A unit counts in a cell when the stratum that drew it samples the cell's population
    uniformly (see :mod:`iaa_frames.chance`): the uniform stratum for every cell it
    belongs to, an annotator's stratum for that annotator's cells (and its pairs), a pair
    stratum for that pair, a class's stratum for that class. ``whole`` marks the rows of
    the "(all)" label cell, ``own_class`` the class (or -1) of the class cells; ``pooled``
    rows (label, row, weight) give the classes that borrow the uniform units.
    """
    aa, ab = _col(frame, "annotator_a"), _col(frame, "annotator_b")
    uni, own_a, own_b = (_col(frame, f) for f in ("in_uniform", "in_annotator_a",
                                                 "in_annotator_b"))
    rows, cells, weights = [], [], []

    def add(select, label_cell, group):
        r = np.flatnonzero(select)
        rows.append(r)
        cells.append(np.broadcast_to(label_cell, len(aa))[r] * layout.n_groups
                     + np.broadcast_to(group, len(aa))[r])
        weights.append(np.ones(len(r)))

    cls = np.asarray(own_class)
    if layout.pairwise:
        pair = layout.groups(aa, ab)[:, 0]
        add(whole & (uni | own_a | own_b | _col(frame, "in_pair")), 0, pair)
        add(cls >= 0, 1 + cls, pair)
    else:
        add(whole & uni, 0, 0)
        add(whole & (uni | own_a), 0, 1 + aa)
        add(whole & (uni | own_b), 0, 1 + ab)
        for group in (0, 1 + aa, 1 + ab):
            add(cls >= 0, 1 + cls, group)
    if pooled is not None and len(pooled):
        r, lab, w = (pooled[c].to_numpy() for c in ("row", "label", "weight"))
        for group in ((layout.groups(aa, ab)[:, 0],) if layout.pairwise
                      else (0, 1 + aa, 1 + ab)):
            g = np.broadcast_to(group, len(aa))[r]
            rows.append(r)
            cells.append((1 + lab) * layout.n_groups + g)
            weights.append(w)
    return sp.csr_matrix((np.concatenate(weights), (np.concatenate(rows),
                                                     np.concatenate(cells))),
                         shape=(len(frame), layout.n_cells))


def _localization_rows(tables: PairTables, layout: _Layout):
    w, b = tables.localization_within, tables.localization_between
    la, lb = _col(w, "label_a"), _col(w, "label_b")
    own_class = np.where(la == lb, 1 + la, -1)
    within = _Rows(_col(w, "item"), None, _col(w, "annotator_a"), _col(w, "annotator_b"),
                   np.column_stack([np.zeros_like(la), own_class]), _col(w, "distance"),
                   _col(w, "iou"))
    pooled = tables.localization_pooled
    borrowed = np.zeros(len(tables.corpus.labels) + 1, dtype=bool)
    borrowed[pooled["label"].to_numpy()] = True
    ba, bb = _col(b, "label_a"), _col(b, "label_b")
    own = (ba == bb) & (_col(b, "in_uniform") | _col(b, "in_label")) & ~borrowed[ba]
    membership = _chance_membership(layout, b, np.ones(len(b), dtype=bool),
                                    np.where(own, ba, -1), pooled)
    between = _Chance(_col(b, "item_a"), _col(b, "item_b"), _col(b, "distance"), membership)
    return within, between


def _sets_rows(tables: PairTables, component: str, layout: _Layout):
    w, b = tables.sets_within, tables.sets_between
    within = _Rows(_col(w, "item"), None, _col(w, "annotator_a"), _col(w, "annotator_b"),
                   (1 + _col(w, "label"))[:, None], _col(w, component),
                   n_matched=_col(w, "n_matched"))
    label = _col(b, "label")
    membership = _chance_membership(layout, b, label == -1, label)
    between = _Chance(_col(b, "item_a"), _col(b, "item_b"), _col(b, component), membership,
                      _col(b, "n_matched"))
    return within, between


def _by_item(item, n_items) -> sp.csr_matrix:
    """Items x rows indicator (row r belongs to item ``item[r]``)."""
    item = np.asarray(item, dtype=np.int64)
    indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(item, minlength=n_items), out=indptr[1:])
    rows = np.argsort(item, kind="stable")
    return sp.csr_matrix((np.ones(len(item)), rows, indptr), shape=(n_items, len(item)))


def _per_item(item, n_items, quantities, membership) -> sp.csr_matrix:
    """``S[i, q * n_cells + cell]`` = sum of quantity ``q`` over the rows of item ``i`` in
    the cell (rows x cells ``membership``)."""
    by_item = _by_item(item, n_items)
    per_row = np.diff(membership.indptr)
    parts = []
    for q in quantities:  # a few quantities, each a sparse product over all rows
        scaled = membership.copy()
        scaled.data = scaled.data * np.repeat(q, per_row)
        parts.append(by_item @ scaled)
    return sp.hstack(parts).tocsr()


# ---------------------------------------------------------------------- sigma cells


def _within_sums(layout: _Layout, n_items: int, within: _Rows):
    """Per-item sums [count | distance | iou] of the within rows in every cell, their
    matched pairs per cell (sets; else None) and their rows x cells membership."""
    mw = layout.membership(within.label_cells,
                           layout.groups(within.annotator_a, within.annotator_b))
    quantities = [np.ones(len(within.distance)), within.distance]
    if within.iou is not None:
        quantities.append(within.iou)
    matched = None
    if within.n_matched is not None:
        matched = np.asarray(mw.T @ within.n_matched).ravel()
    return ItemSums(_per_item(within.item_a, n_items, quantities, mw)), matched, mw


def within_item_sums(tables: PairTables, layout: _Layout, component: str):
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
    >>> from iaa_frames.pairs import pair_tables
    >>> tables = pair_tables(simulate(n_items=10, seed=0), n_chance=100)
    >>> layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    >>> sums, _ = within_item_sums(tables, layout, "localization")
    >>> cells = component_cells(tables, layout, "localization")
    >>> bool((sums.matrix != cells.within.matrix).nnz == 0)
    True
    """
    rows = (_localization_rows(tables, layout) if component == "localization"
            else _sets_rows(tables, component, layout))
    sums, matched, _ = _within_sums(layout, len(tables.corpus.items), rows[0])
    return sums, matched


@dataclass(frozen=True, eq=False)
class _SigmaCells:
    """Within and chance distances of a sigma component, summed per cell.

    ``within`` columns: [count | distance | iou] per cell; ``between``: [count | distance].
    ``*_members`` (CSC of rows x cells, rows in order of distance) list each cell's
    distances, sorted, for KS.
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

    @classmethod
    def build(cls, layout: _Layout, n_items: int, within: _Rows, between: _Chance):
        sums, matched, mw = _within_sums(layout, n_items, within)
        mb = between.membership
        per_row = sp.hstack([mb, sp.diags(between.distance) @ mb]).tocsr()
        if matched is not None:
            matched = matched + np.asarray((mb != 0).T @ between.n_matched).ravel()
        # each cell's rows in order of distance, which makes the sorting inside the KS
        # test and the chance quantile of every cell cheap
        rank_w, rank_b = np.argsort(within.distance), np.argsort(between.distance)
        return cls(layout.n_cells, sums,
                   PairSums(between.item_a.astype(np.int64), between.item_b.astype(np.int64),
                            per_row),
                   np.asarray(within.distance, dtype=np.float64)[rank_w],
                   np.asarray(between.distance, dtype=np.float64)[rank_b],
                   mw[rank_w].tocsc(), mb[rank_b].tocsc(),
                   np.asarray((mb != 0).sum(axis=0), dtype=np.float64).ravel(), matched,
                   np.asarray(within.item_a, dtype=np.int64)[rank_w],
                   (np.asarray(between.item_a, dtype=np.int64)[rank_b],
                    np.asarray(between.item_b, dtype=np.int64)[rank_b]), n_items)

    def statistics(self, multiplicities=None):
        """(observed, expected, agreement) per cell; a leading replicate axis for a block
        of multiplicities."""
        n = self.n_cells
        w = self.within.total(multiplicities)
        b = self.between.total(multiplicities)
        observed = _mean(w[..., n:2 * n], w[..., :n])
        expected = _mean(b[..., n:], b[..., :n])
        return observed, expected, _one_minus_ratio(observed, expected)

    def counts(self):
        """(n_units, n_chance) per cell: within units, and distinct chance units."""
        return self.within.total()[:self.n_cells], self.n_chance

    def raw_iou(self):
        """Mean IoU of the within rows of every cell (localization)."""
        n = self.n_cells
        w = self.within.total()
        return _mean(w[2 * n:3 * n], w[:n]) if w.size >= 3 * n else np.full(n, np.nan)

    def tests(self, cells, seed: int = 0):
        """KS statistic, sign, p-value and fraction below chance of the given cells, all
        at once (:func:`iaa_frames.stats.cell_tests`). The p-value is the one-sided
        cluster-bootstrap test of :func:`iaa_frames.kstest.ks_agreement_tests`; a pooled
        class (weighted chance units) keeps the asymptotic p-value of its weighted KS."""
        out = np.full((4, self.n_cells), np.nan)
        cells = np.asarray(cells, dtype=np.int64)
        if not len(cells):
            return out
        wp, wi = self.within_members.indptr, self.within_members.indices
        bp, bi = self.between_members.indptr, self.between_members.indices
        bw = self.between_members.data
        # the entries of the tested cells, all cells at once (no loop over cells)
        w_n, b_n = wp[cells + 1] - wp[cells], bp[cells + 1] - bp[cells]
        w_cell = np.repeat(np.arange(len(cells)), w_n)
        b_cell = np.repeat(np.arange(len(cells)), b_n)
        w_at = wp[cells][w_cell] + np.arange(len(w_cell)) - np.repeat(np.cumsum(w_n) - w_n, w_n)
        b_at = bp[cells][b_cell] + np.arange(len(b_cell)) - np.repeat(np.cumsum(b_n) - b_n, b_n)
        out[:, cells] = cell_tests(self.within_distance[wi[w_at]], w_cell,
                                   self.between_distance[bi[b_at]], b_cell, bw[b_at],
                                   len(cells))
        # the p-value: the one-sided cluster-bootstrap test, for the cells whose chance
        # units are unweighted (a pooled class keeps the weighted asymptotic p-value)
        plain = [c for c in cells if np.all(bw[bp[c]:bp[c + 1]] == 1)]
        if plain:
            out[2, plain] = ks_agreement_tests(
                self.within_distance, self.between_distance, within_item=self.within_item,
                between_item_a=self.between_items[0], between_item_b=self.between_items[1],
                within_cells=[wi[wp[c]:wp[c + 1]] for c in plain],
                between_cells=[bi[bp[c]:bp[c + 1]] for c in plain], n_items=self.n_items,
                seed=seed)[1]
        return out

    @property
    def work(self) -> int:
        return self.within.matrix.nnz + self.between.matrix.nnz


# ------------------------------------------------------------------ alpha pair units


@dataclass(frozen=True, eq=False)
class _ClassificationCells:
    """Coincidences of the labels of clusters with >= 2 members, summed per item.

    Columns: ``N`` (groups x categories: the margins n_c) then ``O`` (groups x categories:
    the mass of disagreeing coincidences on each category's side).
    """

    layout: _Layout
    within: ItemSums
    units_per_group: np.ndarray

    @classmethod
    def build(cls, layout: _Layout, n_items: int, units: pd.DataFrame):
        cluster, item = _col(units, "cluster"), _col(units, "item")
        annotator, label = _col(units, "annotator"), _col(units, "label")
        size = np.bincount(cluster) if len(cluster) else np.zeros(0, np.int64)
        pairable = np.flatnonzero(size[cluster] >= 2)
        pairable = pairable[np.lexsort((annotator[pairable], cluster[pairable]))]
        i, j = pairs_within_runs(cluster[pairable])
        i, j = pairable[i], pairable[j]
        groups = layout.groups(annotator[i], annotator[j])
        weight = layout.coincidence_weight(size[cluster[i]])
        G, C = layout.n_groups, layout.n_labels
        x, y = label[i][:, None], label[j][:, None]
        same = x == y
        k = groups.shape[1]
        # margins, per pair and group: the weight on both values' categories (one slot of
        # twice the weight when they are equal)
        margin = np.concatenate([groups * C + x, groups * C + y], axis=1)
        share = np.concatenate([np.broadcast_to(1.0 + same, (len(i), k)),
                                np.broadcast_to(~same, (len(i), k))], axis=1)
        # off-diagonal mass, for the pairs whose values differ: the weight on both sides
        differ = np.flatnonzero(~same[:, 0])
        rows = sp.vstack([
            _sparse_rows(margin, share * weight[:, None], 2 * G * C),
            _sparse_rows(G * C + margin[differ],
                         np.broadcast_to(weight[differ, None], (len(differ), 2 * k)),
                         2 * G * C),
        ]).tocsr()
        within = ItemSums(_per_item(np.concatenate([item[i], item[i][differ]]), n_items,
                                    [np.ones(rows.shape[0])], rows))
        if layout.pairwise:
            units_per_group = np.bincount(groups[:, 0], minlength=G).astype(np.float64)
        else:
            # every member of a pairable cluster: one unit for its annotator
            units_per_group = np.bincount(1 + annotator[pairable], minlength=G).astype(float)
            units_per_group[0] = np.count_nonzero(size >= 2)
        return cls(layout, within, units_per_group)

    def statistics(self, multiplicities=None):
        """(D_o, D_e, alpha) per cell: nominal for "(all)", binary for each class."""
        G, C = self.layout.n_groups, self.layout.n_labels
        t = self.within.total(multiplicities)
        lead = t.shape[:-1]
        margins = t[..., :G * C].reshape(lead + (G, C))
        off_diagonal = t[..., G * C:].reshape(lead + (G, C))
        n = margins.sum(axis=-1)
        nominal = nominal_disagreements(n, margins, off_diagonal.sum(axis=-1))
        binary = binary_disagreements(n[..., None], margins, off_diagonal)
        observed, expected = (
            np.concatenate([nom[..., None, :], np.swapaxes(bin_, -1, -2)], axis=-2)
            .reshape(lead + (self.layout.n_cells,))
            for nom, bin_ in zip(nominal, binary)
        )
        return observed, expected, _one_minus_ratio(observed, expected)

    def counts(self):
        """(n_units, n_chance): pairable clusters per annotator cell; no chance units."""
        n_units = np.tile(self.units_per_group, self.layout.n_labels + 1)
        return n_units, np.full(self.layout.n_cells, np.nan)

    @property
    def work(self) -> int:
        return self.within.matrix.nnz


@dataclass(frozen=True, eq=False)
class _PresenceCells:
    """Presence/absence coincidences of every cluster (and class unit), summed per item.

    Columns: [n | n_present | o] per cell. A unit with ``r >= 2`` raters of whom ``p`` drew
    a member contributes, in closed form over its rater pairs (weight ``1 / (r - 1)``)::

        "(all)":               n = r,  n_present = p,            o = p (r - p) / (r - 1)
        A, drew nothing:       n = 2,  n_present = p / (r - 1),  o = p / (r - 1)
        A, drew a member: the above plus   n_present += (r - 2) / (r - 1),
                                           o += (r - 2 p) / (r - 1)

    so the annotator cells are a per-(item, label cell) baseline given to every rater of
    the item, plus one correction per member: no (unit x rater) expansion.
    """

    n_cells: int
    within: ItemSums

    @classmethod
    def build(cls, layout: _Layout, n_items: int, units: pd.DataFrame, coverage: pd.DataFrame):
        C, G, n_lc = max(layout.n_labels, 1), layout.n_groups, layout.n_labels + 1
        cluster, item = _col(units, "cluster"), _col(units, "item")
        annotator, label = _col(units, "annotator"), _col(units, "label")
        n_clusters = int(cluster.max()) + 1 if len(cluster) else 0
        class_of, class_keys = pd.factorize(cluster * C + label)
        unit = np.concatenate([cluster, n_clusters + class_of])  # unit of every member
        member = np.concatenate([annotator, annotator])
        n_units = n_clusters + len(class_keys)
        unit_item = np.zeros(n_units, dtype=np.int64)
        unit_item[unit] = np.concatenate([item, item])
        unit_label_cell = np.concatenate([np.zeros(n_clusters, np.int64), 1 + class_keys % C])
        p = np.bincount(unit, minlength=n_units).astype(np.float64)
        cov_item, cov_ann = _col(coverage, "item"), _col(coverage, "annotator")
        order = np.lexsort((cov_ann, cov_item))
        cov_item, cov_ann = cov_item[order], cov_ann[order]
        r_item = np.bincount(cov_item, minlength=n_items)
        start = np.zeros(n_items, dtype=np.int64)
        np.cumsum(r_item[:-1], out=start[1:])
        r = r_item[unit_item].astype(np.float64)
        ok = r >= 2  # a unit needs two raters to be pairable

        # sums over the units of every (item, label cell)
        group, keys = pd.factorize(unit_item[ok] * n_lc + unit_label_cell[ok])
        g_item, g_cell = keys // n_lc, keys % n_lc * G
        pu, ru = p[ok], r[ok]

        def per_group(v):
            return np.bincount(group, weights=v, minlength=len(keys))

        everyone = (per_group(ru), per_group(pu), per_group(pu * (ru - pu) / (ru - 1)))
        nothing = (per_group(np.full(len(pu), 2.0)), per_group(pu / (ru - 1)),
                   per_group(pu / (ru - 1)))
        # the baseline goes to every rater of the group's item
        rg = r_item[g_item]
        gi = np.repeat(np.arange(len(keys)), rg)
        first = np.zeros(len(keys), dtype=np.int64)
        np.cumsum(rg[:-1], out=first[1:])
        rater = cov_ann[start[g_item[gi]] + np.arange(len(gi)) - first[gi]]
        # one correction per member of a pairable unit
        mu, ma = unit[ok[unit]], member[ok[unit]]
        drew = (np.zeros(len(mu)), (r[mu] - 2) / (r[mu] - 1), (r[mu] - 2 * p[mu]) / (r[mu] - 1))

        n = layout.n_cells
        cells = np.concatenate([g_cell, g_cell[gi] + 1 + rater, unit_label_cell[mu] * G + 1 + ma])
        rows = np.concatenate([g_item, g_item[gi], unit_item[mu]])
        columns = np.concatenate([q * n + cells for q in range(3)])
        values = np.concatenate([np.concatenate([a, b[gi], c])
                                 for a, b, c in zip(everyone, nothing, drew)])
        return cls(n, ItemSums.from_entries(np.tile(rows, 3), columns, values,
                                            n_items=n_items, n_columns=3 * n))

    def statistics(self, multiplicities=None):
        """(D_o, D_e, presence alpha) per cell."""
        n_cells = self.n_cells
        t = self.within.total(multiplicities)
        n, n_present, o = (t[..., b * n_cells:(b + 1) * n_cells] for b in range(3))
        observed, expected = binary_disagreements(n, n_present, o)
        return observed, expected, _one_minus_ratio(observed, expected)

    @property
    def work(self) -> int:
        return self.within.matrix.nnz


def _component_cells(tables: PairTables, layout: _Layout, component: str):
    n_items = len(tables.corpus.items)
    if component == "classification":
        return _ClassificationCells.build(layout, n_items, tables.units)
    rows = (_localization_rows(tables, layout) if component == "localization"
            else _sets_rows(tables, component, layout))
    return _SigmaCells.build(layout, n_items, *rows)


# ------------------------------------------------------------------------ validation


def _check_tables(tables):
    if not isinstance(tables, PairTables):
        raise ParameterError(
            f"tables must be the PairTables of iaa_frames.pairs.pair_tables; "
            f"got {type(tables).__name__}")


def _check_component(component, allowed=COMPONENTS):
    if not isinstance(component, str) or component not in allowed:
        raise ParameterError(f"component must be one of {allowed}; got {component!r}")


def _label_cell(tables: PairTables, label) -> int:
    labels = [str(x) for x in tables.corpus.labels]
    if label == ALL:
        return 0
    if isinstance(label, str) and label in labels:
        return 1 + labels.index(label)
    raise ParameterError(f"label must be {ALL!r} or one of the classes {labels}; got {label!r}")


# ------------------------------------------------------------------------ assembling


def _name_order(names) -> np.ndarray:
    """Axis positions: "(all)" (cell 0) first, then codes sorted by name."""
    by_name = np.argsort(np.asarray([str(x) for x in names], dtype=object), kind="stable")
    return np.r_[0, 1 + by_name].astype(np.int64)


def _names(names, order) -> list[str]:
    """Coordinate values of an axis ordered by :func:`_name_order`."""
    return [ALL] + [str(v) for v in np.asarray(names, dtype=object)[order[1:] - 1]]


def _version() -> str:
    import iaa_frames  # the package is fully imported by the time this runs

    return str(getattr(iaa_frames, "__version__", "0+unknown"))


def _bootstrap(parts: dict, n_items: int, n_boot: int, seed: int, progress) -> np.ndarray:
    """Agreement replicates of every cell: (n_boot, n_components, n_cells)."""
    n_cells = parts[COMPONENTS[0]].statistics()[2].shape[-1]
    reps = np.empty((n_boot, len(COMPONENTS), n_cells))
    width = max([n_items] + [p.within.matrix.shape[1] for p in parts.values()])
    step = block_size(n_boot, width)
    work = n_boot * sum(p.work for p in parts.values())
    disable = (work < _PROGRESS_MIN_WORK) if progress is None else not progress
    with tqdm(total=n_boot, unit="replicate", desc="bootstrap", disable=disable,
              delay=0 if progress else DELAY) as bar:
        start = 0
        for k in multiplicity_blocks(n_items, n_boot, seed=seed, block_size=step):
            for c, name in enumerate(COMPONENTS):
                reps[start:start + len(k), c] = parts[name].statistics(k)[2]
            start += len(k)
            bar.update(len(k))
    return reps


def _jackknife(parts: dict, n_items: int) -> np.ndarray:
    """Agreement of every cell on the grouped jackknife replicates (for the BCa
    acceleration): (n_groups, n_components, n_cells)."""
    return np.concatenate([
        np.stack([parts[name].statistics(k)[2] for name in COMPONENTS], axis=1)
        for k in jackknife_blocks(n_items)])


def _point_estimates(parts: dict, n_cells: int) -> dict:
    """Every variable of every cell (NaN where not computed yet), with the notes."""
    out = {name: np.full((len(COMPONENTS), n_cells), np.nan) for name in VARIABLES}
    for c, name in enumerate(COMPONENTS):
        out["observed"][c], out["expected"][c], out["agreement"][c] = parts[name].statistics()
        out["n_units"][c], out["n_chance"][c] = parts[name].counts()
    sigma = np.isin(COMPONENTS, _SIGMA)
    min_units = np.where(sigma, MIN_WITHIN_UNITS, MIN_ALPHA_UNITS)[:, None]
    out["note"] = notes(n_units=out["n_units"], n_chance=out["n_chance"],
                        expected=out["expected"], min_units=min_units,
                        min_chance=MIN_CHANCE_UNITS, min_expected=NO_VARIATION)
    det = COMPONENTS.index("detection")
    silent = (out["note"][det] == "") & (parts["detection"].matched == 0)
    out["note"][det] = np.where(silent, NO_MATCH_NOTE, out["note"][det])
    return out


def _whole_population_notes(tables: PairTables, note: np.ndarray) -> np.ndarray:
    """Say so where too few chance units are the whole chance population."""
    if tables.params.get("chance_population") != "enumerated":
        return note
    text = note.astype(str)
    text = text.astype(f"<U{text.dtype.itemsize // 4 + 32}")  # room for the suffix
    few = np.strings.startswith(text, "too few chance units")
    return np.where(few, np.strings.replace(text, ")", ": the whole chance population)"),
                    note).astype(object)


def _chance_sources(tables: PairTables, layout: _Layout) -> np.ndarray:
    """Per component and cell: "enumerated", "sampled" or "pooled" ('' for alpha)."""
    base = tables.params.get("chance_population", "sampled")
    out = np.full((len(COMPONENTS), layout.n_labels + 1, layout.n_groups), base, dtype=object)
    out[COMPONENTS.index("classification")] = ""
    source = np.asarray(tables.label_source, dtype=object)
    loc = out[COMPONENTS.index("localization"), 1:]
    loc[:] = np.where(source != "", source, base)[:, None]
    return out.reshape(len(COMPONENTS), layout.n_cells)


def _tests(parts: dict, out: dict, seed: int = 0) -> dict:
    """KS and fraction below chance of the sigma cells with enough units."""
    tested = {var: out[var].copy() for var in ("ks", "ks_sign", "ks_pvalue",
                                               "frac_below_chance")}
    enough = (out["n_units"] >= MIN_WITHIN_UNITS) & (out["n_chance"] >= MIN_CHANCE_UNITS)
    for c, name in enumerate(COMPONENTS):
        if name in _SIGMA:  # three components, each over all its cells
            values = parts[name].tests(np.flatnonzero(enough[c]), seed=seed)
            for v, var in enumerate(tested):
                tested[var][c] = values[v]
    return tested


def agreement_from_tables(tables: PairTables, *, n_boot: int = DEFAULT_N_BOOT, seed: int = 0,
                          progress: bool | None = None, ci_method: str = "bca"):
    """The agreement Dataset from already computed pair tables.

    Every statistic is computed from the stored tables; the bootstrap reweights their rows
    (see :mod:`iaa_frames.bootstrap`) and recomputes nothing geometric.

    Parameters
    ----------
    tables : PairTables
        From :func:`iaa_frames.pairs.pair_tables`.
    n_boot : int, default 200
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high`` (0: none).
    seed : int, default 0
        Seed of the bootstrap.
    progress : bool, optional
        Show a progress bar for the bootstrap; by default only when it is long.
    ci_method : {"bca", "percentile"}, default "bca"
        The bootstrap interval: bias-corrected and accelerated with the small-sample
        widening (:func:`iaa_frames.bootstrap.bca_interval`), or the plain percentile
        interval of the replicates.

    Returns
    -------
    xarray.Dataset
        See :func:`agreement`.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.pairs import pair_tables
    >>> tables = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> ds = agreement_from_tables(tables, n_boot=20)
    >>> bool(ds["ci_low"].sel(component="localization", label="(all)", annotator="(all)")
    ...      <= ds["agreement"].sel(component="localization", label="(all)", annotator="(all)"))
    True
    """
    _check_tables(tables)
    _check_statistics(n_boot, seed, progress, ci_method)
    corpus = tables.corpus
    layout = _Layout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    parts = {c: _component_cells(tables, layout, c) for c in COMPONENTS}
    presence = _PresenceCells.build(layout, n_items, tables.units, tables.coverage)
    return agreement_from_cells(tables, parts, presence, n_boot=n_boot, seed=seed,
                                progress=progress, ci_method=ci_method)


def _check_statistics(n_boot, seed, progress, ci_method):
    check_int(n_boot, "n_boot")
    check_int(seed, "seed")
    check_progress(progress)
    if ci_method not in CI_METHODS:
        raise ParameterError(f"ci_method must be one of {CI_METHODS}; got {ci_method!r}")


def agreement_from_cells(tables: PairTables, parts: dict, presence, *,
                         n_boot: int = DEFAULT_N_BOOT, seed: int = 0,
                         progress: bool | None = None, ci_method: str = "bca"):
    """The agreement Dataset from the cells of every component, already summed.

    The statistics step of :func:`agreement_from_tables`, for cells built elsewhere:
    :mod:`iaa_frames.dask` builds the within-item half of every component's cells on the
    partitions of a dask DataFrame and merges it with the chance half.

    Parameters
    ----------
    tables : PairTables
        Gives the names of the codes (``tables.corpus``), the parameters and the chance
        sources of the classes; its row tables are not read.
    parts : dict
        Per component, its cells (:class:`SigmaCells` or :class:`ClassificationCells`,
        as :func:`component_cells` builds them).
    presence : PresenceCells
        The presence alpha cells.
    n_boot, seed, progress, ci_method
        As in :func:`agreement_from_tables`.

    Returns
    -------
    xarray.Dataset
        See :func:`agreement`.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.pairs import pair_tables
    >>> tables = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    >>> parts = {c: component_cells(tables, layout, c) for c in COMPONENTS}
    >>> presence = PresenceCells.build(layout, len(tables.corpus.items), tables.units,
    ...                                tables.coverage)
    >>> ds = agreement_from_cells(tables, parts, presence, n_boot=20)
    >>> ds.equals(agreement_from_tables(tables, n_boot=20))
    True
    """
    _check_tables(tables)
    _check_statistics(n_boot, seed, progress, ci_method)
    corpus = tables.corpus
    layout = _Layout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    out = _point_estimates(parts, layout.n_cells)
    out["note"] = _whole_population_notes(tables, out["note"])
    out["chance_source"] = _chance_sources(tables, layout)
    defined = out["note"] == ""
    out["agreement"] = np.where(defined, out["agreement"], np.nan)
    out.update(_tests(parts, out, seed))
    out["raw_iou"][COMPONENTS.index("localization")] = parts["localization"].raw_iou()
    out["presence_alpha"][COMPONENTS.index("detection")] = presence.statistics()[2]
    if n_boot:
        reps = _bootstrap(parts, n_items, n_boot, seed, progress)
        if ci_method == "bca":
            low, high = bca_interval(out["agreement"], reps, _jackknife(parts, n_items),
                                     level=CI_LEVEL, n_items=n_items)
        else:
            low, high = percentile_ci(reps, level=CI_LEVEL)
        out["ci_low"], out["ci_high"] = (np.where(defined, v, np.nan) for v in (low, high))

    labels, annotators = _name_order(corpus.labels), _name_order(corpus.annotators)
    grid = (len(COMPONENTS), layout.n_labels + 1, layout.n_groups)
    values = {k: v.reshape(grid)[:, labels][:, :, annotators] for k, v in out.items()}
    attrs = {"title": "iaa_frames agreement", **tables.params, "n_boot": int(n_boot),
             "bootstrap_seed": int(seed), "ci_level": CI_LEVEL, "ci_method": ci_method,
             "min_within_units": MIN_WITHIN_UNITS, "min_chance_units": MIN_CHANCE_UNITS,
             "min_alpha_units": MIN_ALPHA_UNITS, "iaa_frames_version": _version()}
    ds = build_dataset(values, labels=_names(corpus.labels, labels),
                       annotators=_names(corpus.annotators, annotators), attrs=attrs)
    return with_threshold(ds, tables.params["match_threshold"])


def agreement(df: pd.DataFrame, *, distance=DEFAULTS.distance, match_threshold=DEFAULTS.match_threshold,
              n_chance: int = DEFAULTS.n_chance, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULTS.seed,
              overall: str = DEFAULTS.overall, progress: bool | None = DEFAULTS.progress):
    """Chance-corrected agreement by component, label and annotator.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (docs/ARCHITECTURE.md, "The tidy frame").
    distance : str or callable, default "giou"
        Distance between matched objects (:func:`iaa_frames.distances.get_distance`).
    match_threshold : float or sequence of float, default 0.5
        τ: an assigned object pair is matched when its IoU >= τ. A sequence gives a
        ``threshold`` dimension (sorted, duplicates removed), computed with the frame
        prepared once and polygon pair values shared between thresholds
        (:func:`iaa_frames.pairs.iter_pair_tables`); the result at each τ equals
        the result of that τ alone (same chance ``seed`` and bootstrap ``seed``). What the
        gate does to each component: :mod:`iaa_frames.thresholds`.
    n_chance : int, default 2000
        Target number of chance units per stratum (:mod:`iaa_frames.pairs`).
    n_boot : int, default 200
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high`` (0: none,
        the intervals are then NaN).
    seed : int, default 0
        Seed of the chance sample and of the bootstrap.
    overall : {"pooled", "per_direction"}, default "pooled"
        How the set-level (overall) distance averages best matches.
    progress : bool, optional
        Progress bars for matching and bootstrap; by default only when the work is long.

    Returns
    -------
    xarray.Dataset
        Dims ``(component, label, annotator)``, "(all)" first on label and annotator,
        preceded by ``threshold`` when ``match_threshold`` is a sequence (a scalar
        ``threshold`` coordinate otherwise); coord ``measure(component)``; data
        variables ``agreement, observed, expected,
        ks, ks_sign, ks_pvalue, n_units, n_chance, ci_low, ci_high, raw_iou,
        frac_below_chance, presence_alpha`` and ``note`` (why a cell's agreement is NaN).
        Each variable's attrs describe it; the Dataset attrs hold the parameters.

    Notes
    -----
    The cells are defined in the module docstring of :mod:`iaa_frames.engine`: an
    annotator's cell keeps only the pairs or pairable values that involve the
    annotator; classification uses alpha over the coincidences of those pairs of labels.
    Agreement is NaN, with a reason in ``note``, below :data:`MIN_WITHIN_UNITS` within
    units (:data:`MIN_ALPHA_UNITS` for alpha), below :data:`MIN_CHANCE_UNITS` chance units,
    or when the expected disagreement is 0. Sigma is never clipped.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> df = simulate(n_items=20, annotators={"ann": "good", "bob": "good"}, seed=1)
    >>> ds = agreement(df, n_chance=200)
    >>> ds["agreement"].dims
    ('component', 'label', 'annotator')
    >>> ds["annotator"].values.tolist()
    ['(all)', 'ann', 'bob']
    >>> bool(ds["agreement"].sel(component="localization", label="(all)",
    ...                          annotator="(all)") > 0.5)
    True
    >>> sweep = agreement(df, n_chance=200, n_boot=0, match_threshold=[0.3, 0.5, 0.7])
    >>> sweep["agreement"].dims
    ('threshold', 'component', 'label', 'annotator')
    >>> sweep["threshold"].values.tolist()
    [0.3, 0.5, 0.7]
    """
    taus, scalar = check_thresholds(match_threshold)
    if type(df).__module__.startswith("dask"):  # a dask DataFrame: see iaa_frames.dask
        from .dask import agreement as dask_agreement
        parts = [dask_agreement(df, distance=distance, match_threshold=tau,
                                n_chance=n_chance, n_boot=n_boot, seed=seed, overall=overall,
                                progress=progress) for tau in taus]
        return parts[0] if scalar else concat_thresholds(parts)
    check_int(n_boot, "n_boot")
    check_progress(progress)
    if scalar:
        tables = pair_tables(df, distance=distance, match_threshold=taus[0],
                             n_chance=n_chance, overall=overall, seed=seed, progress=progress)
        return agreement_from_tables(tables, n_boot=n_boot, seed=seed, progress=progress)
    every = iter_pair_tables(df, thresholds=taus, distance=distance, n_chance=n_chance,
                             overall=overall, seed=seed, progress=progress)
    return concat_thresholds([agreement_from_tables(t, n_boot=n_boot, seed=seed,
                                                    progress=progress) for t in every])


# ------------------------------------------------------------------ shortcuts, pairwise


def _with_coords(da, ds, component, names):
    extra = {n: ds[n].sel(component=component) for n in names}
    return da.assign_coords({n: (v.dims, v.values, v.attrs) for n, v in extra.items()})


def component_sigma(df: pd.DataFrame, *, component: str = "localization", **params):
    """Sigma of one component by label and annotator (the accessor's ``.sigma()``).

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    component : {"localization", "detection", "overall"}, default "localization"
    **params
        Keyword parameters of :func:`agreement`.

    Returns
    -------
    xarray.DataArray
        Dims ``(label, annotator)``, with ``ci_low``, ``ci_high``, ``n_units``,
        ``n_chance`` and ``note`` as coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> s = component_sigma(simulate(n_items=20, seed=0), n_chance=200)
    >>> s.dims
    ('label', 'annotator')
    """
    _check_component(component, _SIGMA)
    ds = agreement(df, **params)
    da = ds["agreement"].sel(component=component).rename("sigma")
    return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "n_chance", "note"))


def component_ks(df: pd.DataFrame, *, component: str = "localization", **params):
    """KS statistic of one component by label and annotator (the accessor's ``.ks()``).

    Parameters
    ----------
    df : pandas.DataFrame
    component : {"localization", "detection", "overall"}, default "localization"
    **params
        Keyword parameters of :func:`agreement`.

    Returns
    -------
    xarray.DataArray
        Dims ``(label, annotator)``, with ``ks_sign``, ``ks_pvalue`` and ``note`` as
        coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> k = component_ks(simulate(n_items=20, seed=0), n_chance=200)
    >>> float(k.sel(label="(all)", annotator="(all)").ks_sign)
    1.0
    """
    _check_component(component, _SIGMA)
    ds = agreement(df, **params)
    return _with_coords(ds["ks"].sel(component=component), ds, component,
                        ("ks_sign", "ks_pvalue", "note"))


def component_alpha(df: pd.DataFrame, *, component: str = "classification", **params):
    """Alpha by label and annotator (the accessor's ``.alpha()``).

    Parameters
    ----------
    df : pandas.DataFrame
    component : {"classification", "detection"}, default "classification"
        "classification": Krippendorff's alpha of the labels (the component's agreement);
        "detection": the presence alpha reported beside detection sigma for comparison.
    **params
        Keyword parameters of :func:`agreement`.

    Returns
    -------
    xarray.DataArray
        Dims ``(label, annotator)``; classification carries ``ci_low``, ``ci_high``,
        ``n_units`` and ``note`` as coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> a = component_alpha(simulate(n_items=20, seed=0), n_chance=200)
    >>> float(a.sel(label="(all)", annotator="(all)")) > 0.5
    True
    """
    _check_component(component, ("classification", "detection"))
    ds = agreement(df, **params)
    if component == "detection":
        return ds["presence_alpha"].sel(component="detection").rename("alpha")
    da = ds["agreement"].sel(component="classification").rename("alpha")
    return _with_coords(da, ds, component, ("ci_low", "ci_high", "n_units", "note"))


def cell_distances(tables: PairTables, component: str, *, by: str | None = None) -> pd.DataFrame:
    """The within-item and chance distances behind the sigma cells of a component.

    The rows are exactly those the engine averages (the cell rules of the module
    docstring), so a plot or a drilldown built on them shows what the numbers measure.

    Parameters
    ----------
    tables : PairTables
    component : {"detection", "localization", "overall"}
    by : {None, "label", "annotator"}
        The "(all)" cell only, or also every class / every annotator.

    Returns
    -------
    pandas.DataFrame
        Columns ``label``, ``annotator`` (names, "(all)" pooled), ``sample`` ("within" or
        "between"), ``distance`` and ``weight`` (1, or a pooled chance unit's weight; see
        :mod:`iaa_frames.pairs`).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.pairs import pair_tables
    >>> d = cell_distances(pair_tables(simulate(n_items=10, seed=0), n_chance=100),
    ...                    "localization", by="label")
    >>> sorted(d["sample"].unique())
    ['between', 'within']
    """
    _check_tables(tables)
    _check_component(component, _SIGMA)
    if by not in (None, "label", "annotator"):
        raise ParameterError(f"by must be None, 'label' or 'annotator'; got {by!r}")
    corpus = tables.corpus
    layout = _Layout(len(corpus.labels), len(corpus.annotators))
    cells = _component_cells(tables, layout, component)
    G = layout.n_groups
    wanted = [0] if by is None else (
        [lc * G for lc in range(layout.n_labels + 1)] if by == "label" else list(range(G)))
    label_names = np.array([ALL] + [str(x) for x in corpus.labels], dtype=object)
    annotator_names = np.array([ALL] + [str(x) for x in corpus.annotators], dtype=object)
    parts = []
    for sample, members, values in (("within", cells.within_members, cells.within_distance),
                                     ("between", cells.between_members,
                                      cells.between_distance)):
        sub = members[:, wanted].tocoo()
        cell = np.asarray(wanted)[sub.col]
        parts.append(pd.DataFrame({
            "label": label_names[cell // G], "annotator": annotator_names[cell % G],
            "sample": sample, "distance": values[sub.row],
            "weight": sub.data if sample == "between" else np.ones(len(sub.row))}))
    out = pd.concat(parts, ignore_index=True)
    for col in ("label", "annotator", "sample"):
        out[col] = out[col].astype(str)
    return out


def pairwise_from_tables(tables: PairTables, *, component: str = "localization",
                         label: str = ALL):
    """Annotator x annotator agreement of one component from computed tables.

    Parameters
    ----------
    tables : PairTables
    component : str, default "localization"
        One of "detection", "classification", "localization", "overall".
    label : str, default "(all)"
        "(all)" or a class.

    Returns
    -------
    xarray.DataArray
        See :func:`pairwise`.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.pairs import pair_tables
    >>> t = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> pairwise_from_tables(t, component="detection").dims
    ('annotator_a', 'annotator_b')
    """
    _check_tables(tables)
    _check_component(component)
    lcell = _label_cell(tables, label)
    corpus = tables.corpus
    A = len(corpus.annotators)
    layout = _Layout(len(corpus.labels), A, pairwise=True)
    cells = _component_cells(tables, layout, component)
    _, expected, value = cells.statistics()
    n_units, n_chance = cells.counts()
    pick = slice(lcell * layout.n_groups, (lcell + 1) * layout.n_groups)
    sigma = MEASURES[component] == "sigma"
    note = notes(n_units=n_units[pick], n_chance=n_chance[pick], expected=expected[pick],
                 min_units=MIN_WITHIN_UNITS if sigma else MIN_ALPHA_UNITS,
                 min_chance=MIN_CHANCE_UNITS, min_expected=NO_VARIATION)
    note = _whole_population_notes(tables, note)
    value = np.where(note == "", value[pick], np.nan)
    upper = np.triu(np.ones((A, A), dtype=bool), k=1)
    square = {}
    for name, v in (("agreement", value), ("n_units", n_units[pick]),
                    ("n_chance", n_chance[pick]), ("note", note)):
        m = v.reshape(A, A)
        square[name] = np.where(upper, m, m.T)
    square["agreement"][np.diag_indices(A)] = np.nan
    square["note"][np.diag_indices(A)] = "not applicable"
    for name in ("n_units", "n_chance"):
        square[name][np.diag_indices(A)] = np.nan
    order = _name_order(corpus.annotators)[1:] - 1
    square = {k: v[order][:, order] for k, v in square.items()}
    names = [str(x) for x in np.asarray(corpus.annotators, dtype=object)[order]]
    attrs = {"component": component, "measure": MEASURES[component], "label": str(label),
             **tables.params, "iaa_frames_version": _version()}
    return with_threshold(build_pairwise(square, annotators=names, attrs=attrs),
                          tables.params["match_threshold"])


def pairwise(df: pd.DataFrame, *, component: str = "localization", label: str = ALL,
             distance=DEFAULTS.distance, match_threshold=DEFAULTS.match_threshold,
             n_chance: int = DEFAULTS.n_chance, seed: int = DEFAULTS.seed, overall: str = DEFAULTS.overall,
             progress: bool | None = DEFAULTS.progress):
    """Annotator x annotator agreement of one component.

    Cell (a, b) keeps only the within and chance rows of annotators a and b (for
    classification: alpha of the two annotators' labels on the clusters where both drew
    a member). The table is symmetric; the diagonal is NaN ("not applicable").

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    component : str, default "localization"
        One of "detection", "classification", "localization", "overall".
    label : str, default "(all)"
        "(all)" or a class.
    distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`agreement` (a sequence of thresholds adds a leading ``threshold``
        dimension).

    Returns
    -------
    xarray.DataArray
        Dims ``(annotator_a, annotator_b)``, annotators sorted by name, with
        ``n_units``, ``n_chance`` and ``note`` as coordinates.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> df = simulate(n_items=80, annotators={"ann": "good", "bob": "good", "cy": "sloppy"},
    ...               seed=0)
    >>> p = pairwise(df, n_chance=200)
    >>> bool(p.sel(annotator_a="ann", annotator_b="bob") > p.sel(annotator_a="ann",
    ...                                                          annotator_b="cy"))
    True
    """
    _check_component(component)
    check_progress(progress)
    taus, scalar = check_thresholds(match_threshold)
    if scalar:
        tables = pair_tables(df, distance=distance, match_threshold=taus[0],
                             n_chance=n_chance, overall=overall, seed=seed, progress=progress)
        return pairwise_from_tables(tables, component=component, label=label)
    every = iter_pair_tables(df, thresholds=taus, distance=distance, n_chance=n_chance,
                             overall=overall, seed=seed, progress=progress)
    return concat_thresholds([pairwise_from_tables(t, component=component, label=label)
                              for t in every])


# -- public names of the steps of agreement_from_tables(), for iaa_frames.dask, which builds
# the within-item half of every component's cells on the partitions of a dask DataFrame
# and merges it with the chance half built on its global index
CellLayout = _Layout
SigmaCells = _SigmaCells
ClassificationCells = _ClassificationCells
PresenceCells = _PresenceCells
component_cells = _component_cells
