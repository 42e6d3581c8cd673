"""Classification cells: the label disagreement of matched pairs within items against
that of matched chance pairs of unrelated items.

Why
---
Krippendorff's α takes its expected disagreement from the label marginals: two values
drawn at random from everything the annotators wrote. Objects of different classes
rarely stand in the same place or have the same size (sky on top, road below, trucks
bigger than cars), so two unrelated objects that pass the gate mostly carry one class,
and annotators who never saw the image agree on labels far beyond the marginals: the
classes in horizontal bands gave image-blind annotators α = 0.905. The rule every other
component follows fixes it: the expected disagreement is what the same pipeline gives
for unrelated items.

The statistic
-------------
``agreement = 1 - D_o / D_e``:

* "(all)" classes: ``D_o`` the share of matched within-item pairs whose two labels
  differ, ``D_e`` the same share among the matched chance pairs (the localization
  component's units: two objects of different items by different annotators that pass
  the gate, the strata rules of :mod:`iaa_frames.core.chance`);
* a class ``L``: the same after recoding the labels to {L, other} (the binary recoding
  Krippendorff's per-class α uses): ``D_o`` the share of all matched within pairs with
  ``L`` on exactly one side, ``D_e`` that share among all matched chance pairs of the
  cell's population. A pair without ``L`` agrees in this recoding: the class's sums
  are taken over the pairs that carry it, its counts are those of the "(all)" cell of
  its annotators.

A class carried by fewer than :data:`~iaa_frames.core.chance.pooled.MIN_OWN_CHANCE_UNITS`
chance pairs of its cell's population (a rare class: unrelated objects seldom pass the
gate with it) takes its annotators' chance disagreement ``delta`` (the "(all)" label
cell's ``D_e``) in place of its own: ``D_e = 2 p delta``, ``p`` the class's share of the
labels of the cell's matched within pairs. It assumes the class is as easy to tell from
the others by where and how large it is as the average class; its ``chance_source`` is
"pooled".

Annotators who never saw the image score about 0 whatever the classes' positions and
sizes (their within pairs are matched like unrelated ones), identical ones 1. A cell of
an annotator or a pair of annotators with fewer than
:data:`~iaa_frames.core.chance.MIN_CHANCE_UNITS` chance units of its own takes every
annotator's (:mod:`iaa_frames.core.engine.borrow`), for all its classes at once. Chance units
are not post-stratified by class (that is what is compared).

``n_units`` counts the matched within pairs of the cell (a class's: those that carry
it), ``n_chance`` the matched chance pairs its expected disagreement is taken over.
Krippendorff's α over the clusters (:class:`~iaa_frames.core.engine.alpha.ClassificationCells`)
stays in the result as ``label_alpha``, for comparison with other tools.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.pooled import MIN_OWN_CHANCE_UNITS
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.stats.bootstrap import ItemSums
from iaa_frames.stats.intervals import disagreement_events, widen_rare_disagreements

from .borrow import MIN_BORROWER_UNITS, borrow_thin_cells
from .cells import CellLayout, mean_of, one_minus_ratio, sparse_rows
from .rows import Chance, Rows, column
from .sigma import SigmaCells

__all__ = [
    "FEW_DISAGREEMENTS_NOTE",
    "MIN_EXPECTED_DISAGREEMENTS",
    "LabelCells",
    "classification_rows",
]

#: Fewest label disagreements a cell's within pairs would hold by chance (its within
#: pairs times its expected disagreement) for its agreement to be reported: below it,
#: observing none is what chance gives in more than 5 % of corpora (a Poisson count of
#: mean 3 is 0 with probability e^-3 = 5 %), and neither 1 nor a bootstrap interval of
#: [1, 1] would say anything (unrelated objects that pass the gate almost always share a
#: label when classes have their own places or sizes).
MIN_EXPECTED_DISAGREEMENTS = -np.log(0.05)
#: Start of the note of such a cell.
FEW_DISAGREEMENTS_NOTE = "too few disagreements expected by chance"


def _label_cells(label_a, label_b) -> np.ndarray:
    """Label cells of pairs: "(all)", the class of each side (-1: the same class twice)."""
    la, lb = np.asarray(label_a, np.int64), np.asarray(label_b, np.int64)
    return np.column_stack([np.zeros_like(la), 1 + la, np.where(la != lb, 1 + lb, -1)])


def _chance_membership(layout: CellLayout, b, label_cells) -> sp.csr_matrix:
    """Rows x cells of the matched chance pairs: a unit counts in a cell's population
    when the stratum that drew it is uniform over it (:mod:`iaa_frames.core.chance`), in
    every label cell it carries (a class's units in a class's own stratum are not
    uniform over the pairs that carry it: they are left out)."""
    aa, ab = column(b, "annotator_a"), column(b, "annotator_b")
    uni, own_a, own_b = (column(b, f) for f in ("in_uniform", "in_annotator_a", "in_annotator_b"))
    groups = layout.groups(aa, ab)
    if layout.pairwise:
        ok = (uni | own_a | own_b | column(b, "in_pair"))[:, None]
    else:
        ok = np.column_stack([uni, uni | own_a, uni | own_b])
    n, k = groups.shape
    cells = label_cells[:, :, None] * layout.n_groups + groups[:, None, :]
    valid = (label_cells >= 0)[:, :, None] & ok[:, None, :]
    slots = cells.shape[1] * k
    return sparse_rows(
        np.where(valid, cells, 0).reshape(n, slots),
        valid.reshape(n, slots).astype(np.float64),
        layout.n_cells,
    )


def classification_rows(tables: PairTables, layout: CellLayout, within_count=None):
    """Within rows and chance units of classification: the matched pairs of
    localization, distance 1 where the two labels differ.

    ``within_count``: the within units of every cell (:mod:`iaa_frames.dask` counts
    them on its partitions); by default counted here.
    """
    w, b = tables.localization_within, tables.localization_between
    wa, wb = column(w, "label_a"), column(w, "label_b")
    aa, ab = column(w, "annotator_a"), column(w, "annotator_b")
    label_cells = _label_cells(wa, wb)
    mw = layout.membership(label_cells, layout.groups(aa, ab))
    within = Rows(
        column(w, "item"),
        None,
        aa,
        ab,
        label_cells,
        (wa != wb).astype(np.float64),
        membership=mw,
    )
    ba, bb = column(b, "label_a"), column(b, "label_b")
    membership = _chance_membership(layout, b, _label_cells(ba, bb))
    if within_count is None:
        within_count = np.asarray(mw.sum(axis=0)).ravel()
    membership, borrowed = _borrowed(layout, b, membership, within_count)
    between = Chance(
        column(b, "item_a"),
        column(b, "item_b"),
        (ba != bb).astype(np.float64),
        membership,
        borrowed=borrowed,
    )
    return within, between


def _borrowed(layout: CellLayout, b, membership, within_count):
    """Every label cell of an annotator group whose "(all)" label cell is thin takes the
    same label cell of every annotator (:func:`~iaa_frames.core.engine.borrow.borrow_thin_cells`,
    decided on the group's "(all)" label cell, whose counts every class cell uses)."""
    G, n = layout.n_groups, layout.n_cells
    cell = np.arange(n)
    if layout.pairwise:
        whole = CellLayout(layout.n_labels, layout.n_annotators)
        full = _chance_membership(
            whole, b, _label_cells(column(b, "label_a"), column(b, "label_b"))
        )
        parents = full[:, np.arange(layout.n_labels + 1) * whole.n_groups].tocsc()
        parent_of = cell // G
    else:
        parents = membership[:, np.arange(layout.n_labels + 1) * G].tocsc()
        parent_of = np.where(cell % G == 0, -1, cell // G)
    # the group's decision, read on its "(all)" label cell
    own = np.diff(membership.tocsc().indptr)
    group_count = np.asarray(within_count)[cell % G]
    parent_n = np.diff(parents.indptr)[0]
    thin = (
        (parent_of >= 0)
        & (group_count >= MIN_BORROWER_UNITS)
        & (own[cell % G] < MIN_CHANCE_UNITS)
        & (parent_n > own[cell % G])
    )
    return borrow_thin_cells(membership, parents, parent_of, within_count, thin=thin)


@dataclass(frozen=True, eq=False)
class LabelCells(SigmaCells):
    """:class:`~iaa_frames.core.engine.sigma.SigmaCells` of label disagreement whose class
    cells take their counts from the "(all)" label cell of their annotators (the binary
    recoding {class, other}: a pair without the class agrees)."""

    layout: CellLayout | None = None
    pooled: np.ndarray | None = None  # per cell: a class cell on the pooled chance rate

    @classmethod
    def build(cls, layout: CellLayout, n_items: int, within: Rows, between: Chance):
        # no KS test of labels: the cells without the KS lists (1M boxes: 80 MiB)
        base = SigmaCells.build(layout, n_items, within, between, ks=False)
        fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(SigmaCells)}
        pooled = (np.arange(layout.n_cells) >= layout.n_groups) & (
            base.n_chance < MIN_OWN_CHANCE_UNITS
        )
        return cls(**fields, layout=layout, pooled=pooled)

    def _group_columns(self) -> np.ndarray:
        """Per cell, the column of its annotators' "(all)" label cell."""
        return np.arange(self.n_cells) % self.layout.n_groups

    def statistics(self, multiplicities=None):
        n, g = self.n_cells, self._group_columns()
        if multiplicities is None:
            w = self.within.total()
        else:
            w = self._replicate_totals(multiplicities)
        b = self.between.total(multiplicities)
        observed = mean_of(w[..., n : 2 * n], w[..., g])
        expected = mean_of(b[..., n:], b[..., g])
        if self.pooled is not None and self.pooled.any():
            # a class with few chance pairs of its own: 2 p_L delta, p_L its share of the
            # matched objects' labels, delta the chance disagreement of its annotators
            sides = 2 * w[..., :n] - w[..., n : 2 * n]
            share = mean_of(sides, 2 * w[..., g])
            expected = np.where(self.pooled, 2 * share * expected[..., g], expected)
        return observed, expected, one_minus_ratio(observed, expected)

    @cached_property
    def _read_columns(self) -> np.ndarray:
        """The columns of the within sums :meth:`statistics` reads: the counts of the
        "(all)" label cells (:meth:`_group_columns`), a pooled class cell's own count,
        and every cell's disagreements."""
        n = self.n_cells
        count = np.zeros(n, dtype=bool)
        count[self._group_columns()] = True
        if self.pooled is not None:
            count |= self.pooled
        return np.r_[np.flatnonzero(count), n + np.arange(n)]

    @cached_property
    def _replicate_within(self) -> ItemSums:
        """The within sums of :meth:`_read_columns` (1M boxes: 0.7M of the 1.8M stored
        sums; the class cells' counts are their annotators' "(all)" label cell's)."""
        return ItemSums(sp.csr_matrix(self.within.matrix[:, self._read_columns]))

    def _replicate_totals(self, multiplicities) -> np.ndarray:
        """The within totals of a block of replicates: the columns :meth:`statistics`
        reads, each the total of the whole matrix's column bit for bit (a product sums
        every column alone, item after item); 0 in the columns it does not read."""
        n, columns = self.n_cells, self._read_columns
        if type(self.within) is not ItemSums or len(columns) == self.within.matrix.shape[1]:
            return self.within.total(multiplicities)  # (sums of another kind as they are)
        read = self._replicate_within.total(multiplicities)
        w = np.zeros(read.shape[:-1] + (2 * n,))
        w[..., columns] = read
        return w

    def pair_variance(self):
        """:meth:`SigmaCells.pair_variance`, 0 in a class cell on the pooled chance rate
        (its expected disagreement is not its own chance rows' mean: no correction)."""
        p = super().pair_variance()
        return p if self.pooled is None else np.where(self.pooled, 0.0, p)

    def _chance_counts(self, m):
        """Each class cell's chance counts are those of its annotators' "(all)" label
        cell (the pair-level variance of :meth:`SigmaCells.pair_variance` reads them)."""
        return m[:, : self.n_cells][:, self._group_columns()]

    def expected_disagreements(self) -> np.ndarray:
        """Per cell, the label disagreements its within pairs would hold by chance: the
        within pairs its observed disagreement is taken over times its expected
        disagreement."""
        w = self.within.total()
        return w[self._group_columns()] * self.statistics()[1]

    def widen_rare(self, low, high, cell_items, *, level: float, clusters=None):
        """The intervals ``low``, ``high`` (every cell) of the cells whose within label
        disagreements rest on fewer than
        :data:`~iaa_frames.stats.intervals.MIN_EVENT_ITEMS` items, widened to the exact
        binomial interval of those items
        (:func:`~iaa_frames.stats.intervals.widen_rare_disagreements`): with no
        disagreement in any item the bootstrap reads 1.00 [1.00, 1.00], which chance gives
        too (a cell that expects 3.4 disagreements sees none in 3 % of corpora).
        ``cell_items``: the items each cell's within pairs come from; ``clusters``: the
        cluster of every item, where the bootstrap draws clusters (groups): the
        disagreements are then counted in clusters
        (:func:`~iaa_frames.stats.intervals.rare_event_bounds`).

        Examples
        --------
        >>> import iaa_frames as iaf
        >>> from iaa_frames.core.engine.assemble import component_cells
        >>> t = iaf.pair_tables(iaf.simulate(n_items=8, seed=0), n_chance=100)
        >>> layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators))
        >>> cells = component_cells(t, layout, "classification")
        >>> one = np.ones(layout.n_cells)
        >>> low, high = cells.widen_rare(one, one, np.full(layout.n_cells, 8), level=0.95)
        >>> bool(np.all(low <= 1)) and bool(np.all(high == 1))
        True
        """
        events = disagreement_events(
            self.within, self.between, n_cells=self.n_cells, clusters=clusters
        )
        w = self.within.total()
        return widen_rare_disagreements(
            low,
            high,
            events,
            w[self._group_columns()],
            self.statistics()[1],
            cell_items,
            level=level,
        )

    def few_disagreements_notes(self, note: np.ndarray) -> np.ndarray:
        """``note`` with :data:`FEW_DISAGREEMENTS_NOTE` on the defined cells (empty note)
        whose :meth:`expected_disagreements` are below :data:`MIN_EXPECTED_DISAGREEMENTS`.

        Examples
        --------
        >>> import iaa_frames as iaf
        >>> from iaa_frames.core.engine.assemble import component_cells
        >>> t = iaf.pair_tables(iaf.simulate(n_items=8, seed=0), n_chance=100)
        >>> layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators))
        >>> cells = component_cells(t, layout, "classification")
        >>> out = cells.few_disagreements_notes(np.full(layout.n_cells, "", dtype=object))
        >>> bool(np.all((out == "") | np.strings.startswith(out.astype(str),
        ...                                                  FEW_DISAGREEMENTS_NOTE)))
        True
        """
        e = self.expected_disagreements()
        few = (note == "") & (e < MIN_EXPECTED_DISAGREEMENTS)
        said = np.array(
            [
                f"{FEW_DISAGREEMENTS_NOTE} ({x:.1f}): unrelated matched objects almost "
                "always share a label"
                for x in np.nan_to_num(e[few])
            ],
            dtype=object,
        )
        out = np.asarray(note, dtype=object).copy()
        out[few] = said
        return out

    def counts(self):
        """(n_units, n_chance): the within pairs of the cell (a class's: those carrying
        it) and the chance pairs its expected disagreement is taken over (its
        annotators' "(all)" label cell's)."""
        return self.within.total()[: self.n_cells], self.n_chance[self._group_columns()]
