"""The agreement of a subset of items (a time window) against the whole corpus's chance.

A subset's figures are ``1 - observed / expected`` as everywhere, with the two sides
taken from two populations:

* ``observed``: the within rows of the subset's items only (the pairs of annotations
  of its items, its clusters of labels);
* ``expected``: the chance rows of the **whole corpus** (chance is a property of the
  population of items, not of the few items of one window: a window of 24 items with
  small boxes has too few chance units of its own for localization, while the corpus
  has enough). Localization's chance is post-stratified to the subset's own within
  pairs (their object counts and classes, :func:`iaa_frames.core.engine.rows.localization_rows`),
  as the corpus's figure is to the corpus's pairs.

:func:`restrict` builds the tables of a subset: every per-item table of the
:class:`~iaa_frames.core.tables.pairs.PairTables` (a table with an ``item`` column: within
pairs, objects, coverage) keeps the rows of the subset's items (and, optionally, only
the rows without one annotator: the other annotators' pairs among themselves); every
table that pairs two items (``item_a``, ``item_b``: the chance rows) is kept whole. The
cells of a component are then built by :func:`iaa_frames.core.engine.component_cells` as for
the whole corpus, and any component whose cells object has a ``between`` side (the
sigma components) gets the corpus's chance; one without (classification, an alpha over
the window's clusters) is the window's alone.

:class:`SubsetCells` holds them, with each side resampled by its own multiplicities:
:func:`replicate_blocks` draws, per replicate, the items of every window with
replacement within that window (the within side: a bootstrap stratified by window) and
the items of the whole corpus (the chance side), side by side in a ``(b, 2 n_items)``
block. Every window and the baseline of a replicate share its chance draw, so a
difference of two windows carries the chance side's uncertainty only as far as it
does not cancel.

Examples
--------
>>> import numpy as np
>>> import iaa_frames as iaf
>>> from iaa_frames.core.engine import CellLayout
>>> from iaa_frames.core.tables.pairs import pair_tables
>>> tables = pair_tables(iaf.simulate(n_items=40, seed=0), n_chance=300)
>>> layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
>>> first = np.arange(40) < 10
>>> cells = SubsetCells.build(tables, layout, first)
>>> est = cells.estimates()
>>> int(est["n_items"][0, 0])    # detection, "(all)": the 10 items of the subset
10
>>> whole = SubsetCells.build(tables, layout, np.ones(40, dtype=bool)).estimates()
>>> bool(est["expected"][0, 0] == whole["expected"][0, 0])   # the corpus's chance
True
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.pooled import min_chance_units
from iaa_frames.core.engine import (
    CI_LEVEL,
    MIN_ALPHA_UNITS,
    MIN_WITHIN_UNITS,
    NO_VARIATION,
    CellLayout,
    component_cells,
)
from iaa_frames.core.engine.assemble import (
    NO_BASELINE_NOTE,
    POOLED_NOTE,
    RARE_EVENTS,
    label_chance_notes,
    one_class_notes,
    whole_population_notes,
)
from iaa_frames.core.engine.credit import unit_credits
from iaa_frames.core.engine.result import COMPONENTS, MEASURES, NO_MATCH_NOTE, interval_notes, notes
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.stats.bootstrap import jackknife_blocks, multiplicity_blocks
from iaa_frames.stats.intervals import MIN_CI_ITEMS, widen_rare_events

__all__ = ["SubsetCells", "replicate_blocks", "restrict"]

#: Key of the random stream of the within side's draws (the chance side's is the
#: bootstrap's own, :func:`iaa_frames.stats.bootstrap.multiplicity_blocks`).
_WINDOW_STREAM = 0x3A11D0
#: The columns that name the annotators of a per-item table's row.
_ANNOTATOR_COLUMNS = ("annotator", "annotator_a", "annotator_b")


def restrict(tables: PairTables, items, without: int | None = None) -> PairTables:
    """The tables of a subset of items against the corpus's chance.

    Parameters
    ----------
    tables : PairTables
        The tables of the whole corpus.
    items : array-like of bool, shape (n_items,)
        Per item code, whether the item is in the subset.
    without : int, optional
        An annotator code: the per-item rows that involve it are dropped too (the other
        annotators' pairs among themselves).

    Returns
    -------
    PairTables
        The same corpus and chance tables; the per-item tables (those with an ``item``
        column) keep the rows of the subset.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(iaf.simulate(n_items=6, seed=0), n_chance=50)
    >>> sub = restrict(t, np.arange(6) < 2, without=0)
    >>> sorted(set(sub.localization_within["item"])), 0 in set(sub.units["annotator"])
    ([0, 1], False)
    >>> sub.sets_between is t.sets_between
    True
    """
    items = np.asarray(items, dtype=bool)
    changes = {}
    for field in dataclasses.fields(tables):
        frame = getattr(tables, field.name)
        if not isinstance(frame, pd.DataFrame) or "item" not in frame.columns:
            continue
        keep = items[frame["item"].to_numpy()]
        if without is not None:
            for name in _ANNOTATOR_COLUMNS:
                if name in frame.columns:
                    keep &= frame[name].to_numpy() != without
        changes[field.name] = frame.loc[keep].reset_index(drop=True)
    return dataclasses.replace(tables, **changes)


class _Side:
    """One side of a component's cells (its ``within`` or ``between`` sums) that reads its
    own half of a ``(b, 2 n_items)`` block of multiplicities: ``part`` 0 the within
    side's, 1 the chance side's. Everything else is the wrapped sums'. The totals of the
    last block are kept: a chance side shared by several subsets is summed once a block."""

    def __init__(self, sums, part: int, n_items: int):
        self._sums, self._part, self._n = sums, part, n_items
        self._last = (None, None)

    def total(self, multiplicities=None):
        if multiplicities is None:
            return self._sums.total()
        block, value = self._last
        if block is not multiplicities:
            at = self._part * self._n
            value = self._sums.total(multiplicities[:, at : at + self._n])
            self._last = (multiplicities, value)
        return value

    def __getattr__(self, name):
        return getattr(self._sums, name)


def _arrays(sums):
    """The arrays that define the chance sums (pairs of items and their sparse rows), or
    None for sums of another kind (never shared)."""
    m = getattr(sums, "matrix", None)
    if m is None or not hasattr(sums, "item_a") or not hasattr(m, "indptr"):
        return None
    return (sums.item_a, sums.item_b, m.indptr, m.indices, m.data)


def _chance_side(sums, n_items: int, shared: dict | None) -> _Side:
    """The chance side of ``sums``: the one already in ``shared`` with the same arrays
    (the corpus's chance of a component that does not depend on the subset's items:
    detection and overall), else a new one, kept in ``shared``."""
    arrays = _arrays(sums) if shared is not None else None
    if arrays is None:
        return _Side(sums, 1, n_items)
    key = (sums.matrix.shape, *(len(a) for a in arrays), hash(arrays[-1].tobytes()))
    for side in shared.setdefault(key, []):
        if all(np.array_equal(a, b) for a, b in zip(_arrays(side._sums), arrays)):
            return side
    side = _Side(sums, 1, n_items)
    shared[key].append(side)
    return side


def split_sides(cells, n_items: int, shared: dict | None = None):
    """``cells`` whose ``within`` side reads the first half of a block of
    multiplicities and whose ``between`` side (if it has one) the second half
    (``shared``: the chance sides of other subsets' cells, reused where equal)."""
    changes = {"within": _Side(cells.within, 0, n_items)}
    if hasattr(cells, "between"):
        changes["between"] = _chance_side(cells.between, n_items, shared)
    if dataclasses.is_dataclass(cells):
        return dataclasses.replace(cells, **changes)
    out = copy.copy(cells)
    for name, side in changes.items():
        object.__setattr__(out, name, side)
    return out


@dataclass(frozen=True, eq=False)
class SubsetCells:
    """The cells of every component for a subset of items, against the corpus's chance.

    ``parts`` maps each component to its cells (:func:`split_sides`); ``tables`` are the
    subset's (:func:`restrict`); ``layout`` the corpus's cells; ``credit`` the corpus's
    :func:`~iaa_frames.core.engine.credit.unit_credits`.
    """

    tables: PairTables
    layout: CellLayout
    parts: dict
    credit: dict | None = None

    @classmethod
    def build(
        cls, tables: PairTables, layout: CellLayout, items, without=None, shared=None
    ) -> SubsetCells:
        """The cells of the subset ``items`` (bool per item code), ``without`` an
        annotator (:func:`restrict`); ``shared``: a dict the subsets of one corpus share
        their equal chance sides in (:func:`split_sides`)."""
        sub = restrict(tables, items, without)
        n = len(tables.corpus.items)
        parts = {c: split_sides(component_cells(sub, layout, c), n, shared) for c in COMPONENTS}
        memo = {} if shared is None else shared
        if "unit_credit" not in memo:  # the corpus's, once
            memo["unit_credit"] = unit_credits(tables)
        return cls(sub, layout, parts, memo["unit_credit"])

    def estimates(self) -> dict:
        """Per component and cell: ``observed``, ``expected``, ``agreement`` (NaN where
        ``note`` says why), ``n_units``, ``n_chance``, ``n_items`` and ``note``."""
        shape = (len(COMPONENTS), self.layout.n_cells)
        out = {k: np.full(shape, np.nan) for k in ("observed", "expected", "agreement")}
        out |= {k: np.full(shape, np.nan) for k in ("n_units", "n_chance", "n_items")}
        for c, name in enumerate(COMPONENTS):
            part = self.parts[name]
            out["observed"][c], out["expected"][c], out["agreement"][c] = part.statistics()
            out["n_units"][c], out["n_chance"][c] = part.counts()
            out["n_items"][c] = part.item_counts()
        out["note"] = self._notes(out)
        out["agreement"] = np.where(out["note"] == "", out["agreement"], np.nan)
        # a defined cell on few items says so (its interval is not reported)
        few = interval_notes(out["note"], n_items=out["n_items"], min_items=MIN_CI_ITEMS)
        out["interval_note"] = np.where(out["note"] == "", few, "").astype(object)
        out["rare_low"], out["rare_high"] = self._rare_bounds(out)
        return out

    def _rare_bounds(self, out: dict):
        """Per component and cell, the bounds the rare-event rules of
        :func:`iaa_frames.agreement` widen its interval to (NaN where they do not widen):
        detection and overall with fewer than
        :data:`~iaa_frames.stats.intervals.MIN_EVENT_ITEMS` items holding a match
        (:func:`~iaa_frames.stats.intervals.widen_rare_events`), classification with
        fewer holding a label disagreement (its ``widen_rare``). Without them a blind
        annotator's window with no match lay wholly below 0 (the bootstrap sees the
        chance side vary only) and its classification read 1.00 [1.00, 1.00]."""
        value = out["agreement"]
        low, high = widen_rare_events(
            value,
            value,
            self.parts,
            out | {"unit_credit": self.credit},
            COMPONENTS,
            RARE_EVENTS,
            level=CI_LEVEL,
            clusters=self.tables.corpus.group_codes(),
        )
        with np.errstate(invalid="ignore"):
            return np.where(low < value, low, np.nan), np.where(high > value, high, np.nan)

    def replicates(self, multiplicities: np.ndarray) -> np.ndarray:
        """Agreement of every component and cell on a ``(b, 2 n_items)`` block of
        multiplicities (:func:`replicate_blocks`): ``(b, n_components, n_cells)``."""
        return np.stack([self.parts[c].statistics(multiplicities)[2] for c in COMPONENTS], 1)

    def jackknife(self, items, clusters=None) -> tuple[np.ndarray, int]:
        """Agreement of every component and cell on the delete-a-group jackknife of the
        subset's own items (``items``: bool per item code, as built) on the within side,
        the chance side whole, groups (``clusters``, the group of every item) leaving
        whole (:func:`iaa_frames.stats.bootstrap.jackknife_blocks`): the values,
        ``(g, n_components, n_cells)``, and the number of clusters of the subset's items
        (the ``n`` of :func:`iaa_frames.stats.intervals.interval_scale`)."""
        items = np.asarray(items, dtype=bool)
        n, members = len(items), np.flatnonzero(items)
        group = np.arange(n) if clusters is None else np.asarray(clusters, dtype=np.int64)
        codes = np.unique(group[members], return_inverse=True)[1].ravel()
        out = []
        for k in jackknife_blocks(len(members), clusters=codes):
            block = np.zeros((len(k), 2 * n), order="F")
            block[:, members] = k
            block[:, n:] = 1.0
            out.append(self.replicates(block))
        if not out:
            return np.empty((0, len(COMPONENTS), self.layout.n_cells)), 0
        return np.concatenate(out), int(codes.max()) + 1

    def _notes(self, out: dict) -> np.ndarray:
        """Why a cell's agreement is NaN, as :func:`iaa_frames.agreement` says it."""
        layout, tables = self.layout, self.tables
        sigma = np.array([MEASURES[c] == "sigma" for c in COMPONENTS])
        min_units = np.where(sigma, MIN_WITHIN_UNITS, MIN_ALPHA_UNITS)[:, None]
        sources = _class_sources(tables, layout.n_labels)
        min_chance = np.full((len(COMPONENTS), layout.n_labels + 1, layout.n_groups), 0)
        min_chance[:] = MIN_CHANCE_UNITS
        loc = COMPONENTS.index("localization")
        min_chance[loc, 1:] = min_chance_units(sources)[:, None]
        note = notes(
            n_units=out["n_units"],
            n_chance_units=out["n_chance"],
            expected=out["expected"],
            min_units=min_units,
            min_chance=min_chance.reshape(len(COMPONENTS), -1),
            min_expected=NO_VARIATION,
        )
        note = whole_population_notes(tables, note)
        cls = COMPONENTS.index("classification")
        few_disagreements = getattr(self.parts["classification"], "few_disagreements_notes", None)
        if few_disagreements is not None:  # as iaf.agreement says it (labels by place)
            note[cls] = label_chance_notes(few_disagreements(note[cls]))
        note[cls] = one_class_notes(tables, note[cls])
        det = COMPONENTS.index("detection")
        matched = getattr(self.parts["detection"], "matched", None)
        if matched is not None:
            note[det] = np.where((note[det] == "") & (matched == 0), NO_MATCH_NOTE, note[det])
            ov = COMPONENTS.index("overall")  # as iaf.agreement: sub-threshold overlaps only
            note[ov] = np.where((note[ov] == "") & (matched == 0), NO_MATCH_NOTE, note[ov])
        # the classes whose localization borrows its chance baseline, or could not
        per_cell = np.repeat(np.r_[[""], sources], layout.n_groups)
        pooled = (per_cell == "pooled") & (note[loc] == "")
        none = (per_cell == "none") & (out["n_units"][loc] >= MIN_WITHIN_UNITS)
        note[loc] = np.where(pooled, POOLED_NOTE, np.where(none, NO_BASELINE_NOTE, note[loc]))
        return note.astype(object)


def _class_sources(tables: PairTables, n_labels: int) -> np.ndarray:
    """Per class, how its localization chance units were formed."""
    base = tables.params.get("chance_population", "sampled")
    if tables.label_source is None:
        return np.full(n_labels, base, dtype=object)
    source = np.asarray(tables.label_source, dtype=object)
    return np.where(source != "", source, base).astype(object)


def replicate_blocks(strata, n_boot: int, *, seed: int = 0, clusters=None, block_size: int = 64):
    """Multiplicities of both sides of ``n_boot`` replicates, in blocks.

    Parameters
    ----------
    strata : array-like of int, shape (n_items,)
        Per item code, its window (``0 .. W - 1``; -1: in none).
    n_boot : int
        Number of replicates.
    seed : int, default 0
        Seed of both draws (two streams).
    clusters : array-like of int, optional
        The group of every item (:meth:`iaa_frames.core.matching.corpus.Corpus.group_codes`):
        groups are drawn whole, within a window on the within side (a group split over
        windows is drawn in each as a cluster of its own there).
    block_size : int, default 64
        Replicates per block.

    Yields
    ------
    numpy.ndarray of float64, shape (b, 2 n_items), Fortran order
        Columns ``0 .. n - 1``: the within side, every window's items drawn with
        replacement within their window (0 outside every window); columns
        ``n .. 2n - 1``: the chance side, the corpus's items drawn with replacement
        (the draws of :func:`iaa_frames.stats.bootstrap.multiplicity_blocks`).

    Examples
    --------
    >>> k = next(replicate_blocks([0, 0, 1, 1, 1, -1], 3, seed=0))
    >>> k.shape, k[:, :2].sum(axis=1).tolist(), k[:, 2:5].sum(axis=1).tolist()
    ((3, 12), [2.0, 2.0, 2.0], [3.0, 3.0, 3.0])
    >>> k[:, 5].tolist(), k[:, 6:].sum(axis=1).tolist()
    ([0.0, 0.0, 0.0], [6.0, 6.0, 6.0])
    """
    strata = np.asarray(strata, dtype=np.int64)
    n = len(strata)
    group = np.arange(n) if clusters is None else np.asarray(clusters, dtype=np.int64)
    windows = []
    for s in np.unique(strata[strata >= 0]):  # a few windows
        members = np.flatnonzero(strata == s)
        codes = np.unique(group[members], return_inverse=True)[1]
        windows.append((members, codes, int(codes.max()) + 1))
    rng = np.random.default_rng([seed, _WINDOW_STREAM])
    chance = multiplicity_blocks(n, n_boot, seed=seed, block_size=block_size, clusters=clusters)
    for kc in chance:
        b = len(kc)
        k = np.zeros((b, 2 * n), order="F")
        k[:, n:] = kc
        for members, codes, m in windows:
            draws = rng.integers(0, m, size=(b, m)) + (np.arange(b) * m)[:, None]
            counts = np.bincount(draws.ravel(), minlength=b * m).reshape(b, m)
            k[:, members] = counts[:, codes]
        yield k
