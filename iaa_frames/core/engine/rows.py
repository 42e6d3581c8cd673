# Over 400 lines: the rows of every component as cell members, with the chance rows'
# memberships and their post-stratification over the within rows' kinds.
"""The rows of the pair tables as cell members: within rows and their label and
annotator cells, and the chance rows with the cells each distinct chance unit counts in
(the rules of the strata that drew it, :mod:`iaa_frames.core.chance`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.arrays import unique_inverse
from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.poststrata import poststratify, stratum_keys, within_groups
from iaa_frames.core.tables.pairs import PairTables

from .borrow import MIN_BORROWER_UNITS, borrow_thin_cells
from .cells import CellLayout


class Rows(NamedTuple):
    """Rows of a distance table: items, annotators, label cells (n, k), distances."""

    item_a: np.ndarray
    item_b: np.ndarray | None  # None for within-item rows
    annotator_a: np.ndarray
    annotator_b: np.ndarray
    label_cells: np.ndarray
    distance: np.ndarray
    iou: np.ndarray | None = None
    n_matched: np.ndarray | None = None
    membership: sp.csr_matrix | None = None  # rows x cells, when already built


def column(frame, name):
    return frame[name].to_numpy()


class Chance(NamedTuple):
    """Distinct chance units of a sigma component: items, distances, matched pairs, the
    rows x cells membership (weights: 1, or a pooled or aligned unit's weight) and, per
    cell, the label cell whose "(all)" population a thin cell borrowed (-1: its own units;
    :mod:`iaa_frames.core.engine.borrow`) and whether its units include aligned ones
    (:func:`chance_with_aligned`; None: none drawn)."""

    item_a: np.ndarray
    item_b: np.ndarray
    distance: np.ndarray
    membership: sp.csr_matrix
    n_matched: np.ndarray | None = None
    borrowed: np.ndarray | None = None
    aligned: np.ndarray | None = None


def chance_membership(
    layout: CellLayout, frame: pd.DataFrame, whole, own_class, pooled: pd.DataFrame | None = None
) -> sp.csr_matrix:
    """Rows x cells of the chance rows: the cells each distinct chance unit counts in.

    A unit counts in a cell when the stratum that drew it samples the cell's population
    uniformly (see :mod:`iaa_frames.core.chance`): the uniform stratum for every cell it
    belongs to, an annotator's stratum for that annotator's cells (and its pairs), a pair
    stratum for that pair, a class's stratum for that class. ``whole`` marks the rows of
    the "(all)" label cell, ``own_class`` the class (or -1) of the class cells; ``pooled``
    rows (label, row, weight) give the classes that borrow the uniform units.
    """
    aa, ab = column(frame, "annotator_a"), column(frame, "annotator_b")
    uni, own_a, own_b = (
        column(frame, f) for f in ("in_uniform", "in_annotator_a", "in_annotator_b")
    )
    rows, cells, weights = [], [], []

    def add(select, label_cell, group):
        r = np.flatnonzero(select)
        rows.append(r)
        cells.append(
            np.broadcast_to(label_cell, len(aa))[r] * layout.n_groups
            + np.broadcast_to(group, len(aa))[r]
        )
        weights.append(np.ones(len(r)))

    cls = np.asarray(own_class)
    if layout.pairwise:
        pair = layout.groups(aa, ab)[:, 0]
        add(whole & (uni | own_a | own_b | column(frame, "in_pair")), 0, pair)
        add(cls >= 0, 1 + cls, pair)
    else:
        add(whole & uni, 0, 0)
        add(whole & (uni | own_a), 0, 1 + aa)
        add(whole & (uni | own_b), 0, 1 + ab)
        for group in (0, 1 + aa, 1 + ab):
            add(cls >= 0, 1 + cls, group)
    if pooled is not None and len(pooled):
        r, lab, w = (pooled[c].to_numpy() for c in ("row", "label", "weight"))
        for group in (layout.groups(aa, ab)[:, 0],) if layout.pairwise else (0, 1 + aa, 1 + ab):
            g = np.broadcast_to(group, len(aa))[r]
            rows.append(r)
            cells.append((1 + lab) * layout.n_groups + g)
            weights.append(w)
    return sp.csr_matrix(
        (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cells))),
        shape=(len(frame), layout.n_cells),
    )


def localization_rows(tables: PairTables, layout: CellLayout, strata_within=None):
    """Within rows and chance units of localization. ``strata_within`` (default: the
    ``localization_within`` table) holds the within rows (``item, annotator_a,
    annotator_b, label_a, label_b``) whose strata the chance means are taken over
    (:func:`_poststratified`), or their :func:`within_stratum_groups` (an array), which
    :mod:`iaa_frames.dask` counts on its partitions."""
    w = tables.localization_within
    la, lb = column(w, "label_a"), column(w, "label_b")
    own_class = np.where(la == lb, 1 + la, -1)
    label_cells = np.column_stack([np.zeros_like(la), own_class])
    aa, ab = column(w, "annotator_a"), column(w, "annotator_b")
    # the within rows' cells, also those whose strata the chance means are taken over
    mw = layout.membership(label_cells, layout.groups(aa, ab))
    within = Rows(
        column(w, "item"),
        None,
        aa,
        ab,
        label_cells,
        column(w, "distance"),
        column(w, "iou"),
        membership=mw,
    )
    within_count = (
        np.asarray(mw.sum(axis=0)).ravel()
        if strata_within is None
        else np.bincount(strata_within[0], weights=strata_within[3], minlength=layout.n_cells)
    )
    strata = (w, mw) if strata_within is None else (strata_within, None)
    b, unit_weight = tables.localization_between, None
    counted = {}  # the within rows' strata groups, counted once for every chance membership
    post, taken = _chance_units(tables, layout, b, None, strata, within_count, counted)
    # a thin population (fewer than MIN_CHANCE_UNITS units in the "(all)" cell after
    # post-stratification) is completed by the aligned units, when the tables drew them
    n_all = int(post[:, 0].nnz)
    if n_all < MIN_CHANCE_UNITS and len(getattr(tables, "localization_aligned", ())):
        b, unit_weight = chance_with_aligned(tables, n_all)
        post, taken = _chance_units(tables, layout, b, unit_weight, strata, within_count, counted)
    aligned = None
    if unit_weight is not None:  # the cells whose units include aligned ones
        n_empirical = len(tables.localization_between)
        aligned = np.asarray((post[n_empirical:] != 0).sum(axis=0)).ravel() > 0
    between = Chance(
        column(b, "item_a"),
        column(b, "item_b"),
        column(b, "distance"),
        post,
        borrowed=taken,
        aligned=aligned,
    )
    return within, between


def _chance_units(tables, layout, b, unit_weight, strata, within_count, counted=None):
    """The post-stratified chance membership of the localization chance rows ``b``
    (weighted by ``unit_weight``, or 1), thin cells borrowing their parent's units, and
    per cell the label cell borrowed (-1: none); ``counted``: see
    :func:`_poststratified`."""
    pooled = tables.localization_pooled
    borrowed = np.zeros(len(tables.corpus.labels) + 1, dtype=bool)
    borrowed[pooled["label"].to_numpy()] = True
    ba, bb = column(b, "label_a"), column(b, "label_b")
    own = (ba == bb) & (column(b, "in_uniform") | column(b, "in_label")) & ~borrowed[ba]
    own_class = np.where(own, ba, -1)
    membership = chance_membership(layout, b, np.ones(len(b), dtype=bool), own_class, pooled)
    if unit_weight is not None:  # the aligned units' weights
        membership = sp.csr_matrix(sp.diags(unit_weight) @ membership)
    post = _poststratified(tables, layout, *strata, b, membership, borrowed, counted)
    # a cell thin after post-stratification takes its parent's units, post-stratified
    # over its own strata in turn (iaa_frames.core.engine.borrow)
    parents, parent_of = _parents(layout, b, membership, own_class, pooled)
    own_n = np.diff(post.tocsc().indptr)
    parent_n = np.diff(parents.indptr)[np.maximum(parent_of, 0)]
    thin = (
        (parent_of >= 0)
        & (within_count >= MIN_BORROWER_UNITS)
        & (own_n < MIN_CHANCE_UNITS)
        & (parent_n > own_n)
    )
    taken = np.full(layout.n_cells, -1)
    if thin.any():
        membership, taken = borrow_thin_cells(
            membership, parents, parent_of, within_count, thin=thin
        )
        post = _poststratified(tables, layout, *strata, b, membership, borrowed, counted)
    return post, taken


def chance_with_aligned(tables: PairTables, n: int | None = None):
    """The localization chance rows, with the aligned units appended when the tables
    drew them (:mod:`iaa_frames.core.chance.aligned`: the uniform population is thin), and the
    weight of every row (None: none drawn, every row weighs 1).

    The aligned units complete the empirical ones to
    :data:`~iaa_frames.core.chance.MIN_CHANCE_UNITS` units' worth: they weigh
    ``MIN_CHANCE_UNITS - n`` units in all (``n``: the empirical units of the "(all)"
    cell, after post-stratification where the engine has it; by default the uniform
    stratum's), in proportion to their own weights. With no empirical unit the baseline
    is theirs alone; with 29, one unit's worth. Like a prior with that many pseudo-units,
    they keep a thin population's mean defined without outweighing what the corpus
    shows.
    """
    b = tables.localization_between
    aligned = getattr(tables, "localization_aligned", None)
    if aligned is None or not len(aligned):
        return b, None
    if n is None:
        n = int(column(b, "in_uniform").sum())
    weight = column(aligned, "weight").astype(np.float64)
    scale = max(MIN_CHANCE_UNITS - n, 0) / max(float(weight.sum()), 1e-300)
    frame = pd.concat([b, aligned[list(b.columns)]], ignore_index=True)
    return frame, np.r_[np.ones(len(b)), weight * scale]


def _parents(layout: CellLayout, b, membership, own_class, pooled):
    """The chance units of every label cell's "(all)" population (rows x label cells,
    CSC, before post-stratification) and per cell the label cell it would borrow from
    (-1: the "(all)" cells themselves)."""
    G = layout.n_groups
    cell = np.arange(layout.n_cells)
    if layout.pairwise:  # the "(all)" populations of a layout with an "(all)" group
        whole = CellLayout(layout.n_labels, layout.n_annotators)
        full = chance_membership(whole, b, np.ones(len(b), dtype=bool), own_class, pooled)
        return full[:, np.arange(layout.n_labels + 1) * whole.n_groups].tocsc(), cell // G
    parents = membership[:, np.arange(layout.n_labels + 1) * G].tocsc()
    return parents, np.where(cell % G == 0, -1, cell // G)


def _strata(tables: PairTables, frame: pd.DataFrame, item_b: str):
    """Fine and coarse stratum keys (:func:`~iaa_frames.core.chance.poststrata.stratum_keys`)
    of localization rows: their annotations' object counts and their objects' classes."""
    corpus = tables.corpus
    count = corpus.annotations.count
    na = count[corpus.annotation_of(column(frame, item_b[0]), column(frame, "annotator_a"))]
    nb = count[corpus.annotation_of(column(frame, item_b[1]), column(frame, "annotator_b"))]
    return stratum_keys(
        na, nb, column(frame, "label_a"), column(frame, "label_b"), len(corpus.labels)
    )


def _poststratified(tables, layout, w, mw, b, membership, borrowed, counted=None):
    """The chance membership reweighted over the within units' strata
    (:func:`~iaa_frames.core.chance.poststrata.poststratify`): a cell that pools classes by
    (class pair, count ratio), a class's own cell by count ratio; the cells of a class
    that borrows (``borrowed``, by class code) keep the borrowed weights, which already
    match its within pairs (:mod:`iaa_frames.core.chance.pooled`). ``mw``: the within rows'
    membership, if built (else built here). ``counted`` (a dict, if given) keeps the
    within rows' :func:`~iaa_frames.core.chance.poststrata.within_groups` of every
    ``borrowed``, so that the chance memberships of one set of within rows (before and
    after thin cells borrow, with the aligned units) count them once: what
    :func:`~iaa_frames.core.chance.poststrata.poststratify` would count itself, counted by
    kind of row (:func:`within_type_groups`; 1M boxes: 0.1 s, entry by entry 0.6 s)."""
    groups = w if isinstance(w, np.ndarray) else None  # counted already
    if not (len(w) if groups is None else groups.shape[1]) or not len(b):
        return membership
    b_fine, b_coarse = _strata(tables, b, ("item_a", "item_b"))
    pools, borrows = _cell_kinds(layout, borrowed)
    if groups is not None:  # the classes that borrow, applied as by_cell does
        groups = groups.copy()
        groups[1, borrows[groups[0]]] = -1
        return poststratify(
            membership, *_by_cell(pools, borrows, b_fine, b_coarse), None, None, None, groups=groups
        )
    key = borrows.tobytes()
    groups = None if counted is None else counted.get(key)
    if groups is None:
        groups = within_type_groups(tables, layout, w, pools, borrows)
    if groups is None:  # too many kinds of rows for int64 codes: entry by entry
        if mw is None:
            mw = _within_membership(layout, w)
        w_fine, w_coarse = _strata(tables, w, ("item", "item"))
        groups = within_groups(sp.csr_matrix(mw), *_by_cell(pools, borrows, w_fine, w_coarse))
        del w_fine, w_coarse
    if counted is not None:
        counted[key] = groups
    return poststratify(
        membership, *_by_cell(pools, borrows, b_fine, b_coarse), None, None, None, groups=groups
    )


def _within_membership(layout: CellLayout, w: pd.DataFrame) -> sp.csr_matrix:
    """Rows x cells of the localization within rows."""
    la, lb = column(w, "label_a"), column(w, "label_b")
    return layout.membership(
        np.column_stack([np.zeros_like(la), np.where(la == lb, 1 + la, -1)]),
        layout.groups(column(w, "annotator_a"), column(w, "annotator_b")),
    )


def within_type_groups(tables: PairTables, layout: CellLayout, w: pd.DataFrame, pools, borrows):
    """The :func:`~iaa_frames.core.chance.poststrata.within_groups` of the localization within
    rows ``w`` (cells that pool classes ``pools``, cells whose class borrows ``borrows``,
    as :func:`_by_cell` reads them), counted by kind of row instead of entry by entry;
    None when the kinds do not fit int64 codes.

    A row's entries depend on its fine and coarse strata (:func:`_strata`), its class
    cell and its annotators alone (:func:`_within_membership`, :func:`_by_cell`): the
    rows are counted by that kind (1M boxes: a few thousand kinds of 1.8M rows), and one
    row of each kind gives the kind's cells and strata, each (cell, fine, coarse) with
    the number of rows of the kind. What
    :func:`~iaa_frames.core.chance.poststrata.poststratify` reads of the groups are sums of
    these counts (exact integers, in any order): the weights are bitwise those of
    counting the entries (1M boxes: 10.5M entries, 0.5 s).
    """
    corpus = tables.corpus
    la, lb = column(w, "label_a"), column(w, "label_b")
    aa, ab = column(w, "annotator_a"), column(w, "annotator_b")
    fine, coarse = _strata(tables, w, ("item", "item"))
    fine_kinds, fine = unique_inverse(fine)
    coarse_kinds, coarse = unique_inverse(coarse)
    # the rows' (fine, coarse) strata, as codes of the pairs that occur
    kind = fine.astype(np.int64) * len(coarse_kinds)
    kind += coarse
    del fine, coarse
    strata_kinds, strata = unique_inverse(kind)
    own = np.where(la == lb, 1 + la, -1)  # the row's class cell (-1: none)
    n_own, n_annotators = len(corpus.labels) + 2, max(len(corpus.annotators), 1)
    if len(strata_kinds) * n_own * n_annotators**2 >= 2**62:
        return None
    # the kind of every row: (strata, class cell, annotator a, annotator b)
    kind = strata.astype(np.int64) * n_own
    del strata
    kind += own + 1
    kind *= n_annotators
    kind += aa
    kind *= n_annotators
    kind += ab
    kinds, of_row = unique_inverse(kind)
    del kind
    n_rows = np.bincount(of_row, minlength=len(kinds))
    one = np.empty(len(kinds), dtype=np.int64)  # a row of every kind (any: all alike)
    one[of_row] = np.arange(len(of_row))
    del of_row
    # the kinds' strata, decoded from their codes
    code = strata_kinds[kinds // (n_own * n_annotators**2)]
    fine, coarse = fine_kinds[code // len(coarse_kinds)], coarse_kinds[code % len(coarse_kinds)]
    members = layout.membership(
        np.column_stack([np.zeros_like(own[one]), own[one]]), layout.groups(aa[one], ab[one])
    )
    rows = np.repeat(np.arange(len(kinds)), np.diff(members.indptr))
    cells = members.indices.astype(np.int64)
    fine_of, coarse_of = _by_cell(pools, borrows, fine, coarse)
    return np.stack([cells, fine_of(rows, cells), coarse_of(rows, cells), n_rows[rows]])


def _cell_kinds(layout: CellLayout, borrowed):
    """Per cell (few of them), whether it pools classes and whether its class borrows
    (``borrowed``: by class code; None: none): the entries (millions) look their cell up."""
    label_cell = np.arange(layout.n_cells) // layout.n_groups
    pools = label_cell == 0
    if borrowed is None:
        return pools, np.zeros(layout.n_cells, dtype=bool)
    return pools, ~pools & borrowed[np.maximum(label_cell - 1, 0)]


def _by_cell(pools, borrows, fine, coarse):
    """The stratum of every (row, cell) entry: a cell that pools classes reads the fine
    key, a class's own cell the count-ratio bin (``fine % 4096``), a cell whose class
    borrows none (-1); the coarse key only in the cells that pool."""

    def fine_of(rows, cells):
        key = fine[rows]
        pooled = pools[cells]
        out = np.where(pooled, key, key % 4096)
        del key
        out[borrows[cells]] = -1
        return out

    def coarse_of(rows, cells):
        out = coarse[rows]
        out[~pools[cells]] = -1
        return out

    return fine_of, coarse_of


def within_stratum_groups(tables: PairTables, layout: CellLayout) -> np.ndarray:
    """The (cell, fine, coarse, count) groups of the localization within rows of
    ``tables`` that the chance means are post-stratified over
    (:func:`iaa_frames.core.chance.poststrata.within_groups`), before the classes that borrow
    are known (their cells' fine keys are set to -1 by :func:`_poststratified`).

    The groups of tables that split the items between them, side by side, stand for
    the whole table (:mod:`iaa_frames.dask` counts them on its partitions): the chance
    weights are then bitwise those of the whole table.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=6, seed=0), n_chance=50)
    >>> layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators))
    >>> g = within_stratum_groups(t, layout)
    >>> int(g[3][g[0] == 0].sum()) == len(t.localization_within)   # cell "(all)"
    True
    """
    w = tables.localization_within
    if not len(w):
        return np.zeros((4, 0), dtype=np.int64)
    fine, coarse = _strata(tables, w, ("item", "item"))
    pools, borrows = _cell_kinds(layout, None)
    return within_groups(_within_membership(layout, w), *_by_cell(pools, borrows, fine, coarse))


def sets_membership(tables: PairTables, layout: CellLayout) -> sp.csr_matrix:
    """Rows x cells of the set-level within rows (detection and overall share them)."""
    w = tables.sets_within
    return layout.membership(
        (1 + column(w, "label"))[:, None],
        layout.groups(column(w, "annotator_a"), column(w, "annotator_b")),
    )


def sets_rows(tables: PairTables, component: str, layout: CellLayout, membership=None):
    """Within rows and chance units of a set-level component (``membership``: the
    within rows' :func:`sets_membership`, when built)."""
    w, b = tables.sets_within, tables.sets_between
    within = Rows(
        column(w, "item"),
        None,
        column(w, "annotator_a"),
        column(w, "annotator_b"),
        (1 + column(w, "label"))[:, None],
        column(w, component),
        n_matched=column(w, "n_matched"),
        membership=membership,
    )
    label = column(b, "label")
    membership = chance_membership(layout, b, label == -1, label)
    between = Chance(
        column(b, "item_a"),
        column(b, "item_b"),
        column(b, component),
        membership,
        column(b, "n_matched"),
    )
    return within, between
