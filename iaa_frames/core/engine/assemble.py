# Over 400 lines: the statistics of the result in the order they are computed (estimates, tests,
# bootstrap, Dataset).
"""The agreement Dataset: every component's cells, their point estimates, tests and
bootstrap intervals, assembled into the labelled result (:func:`agreement`)."""

from __future__ import annotations

import queue
import threading
from functools import partial

import numpy as np
import pandas as pd
import scipy.sparse as sp

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.pooled import min_chance_units
from iaa_frames.core.side_thread import SideThread
from iaa_frames.core.tables.pairs import PairTables, iter_tables_from, pair_tables_from
from iaa_frames.frame.names import natural_key
from iaa_frames.frame.schema import ALL
from iaa_frames.heap import large_heap
from iaa_frames.progress import Bars
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.thresholds import concat_thresholds, with_threshold
from iaa_frames.settings.validation import OneOf, validate_params
from iaa_frames.stats import intervals
from iaa_frames.stats.bootstrap import (
    ItemSums,
    PairSums,
    block_size,
    jackknife_blocks,
    multiplicity_blocks,
)
from iaa_frames.stats.intervals import CI_METHODS, MIN_CI_ITEMS, bca_interval, interval_scale
from iaa_frames.stats.kstest import DEFAULT_RESAMPLES, ks_multiplicities_bytes
from iaa_frames.stats.samples import percentile_ci
from iaa_frames.version import __version__

from .alpha import ClassificationCells, PresenceCells
from .carry import carry
from .cells import NO_VARIATION, SIGMA_COMPONENTS, CellLayout, check_tables
from .credit import unit_credits_of_cells
from .labels import LabelCells, classification_rows
from .result import (
    COMPONENTS,
    NO_MATCH_NOTE,
    VARIABLES,
    build_dataset,
    interval_notes,
    notes,
)
from .rows import localization_rows, sets_membership, sets_rows
from .sigma import SigmaCells

#: Fewest within units (pairings or matched pairs) for which sigma and KS are reported.
MIN_WITHIN_UNITS = 2
#: Fewest pairable units (clusters with at least two members) for which alpha is reported.
MIN_ALPHA_UNITS = 2
#: Coverage of the bootstrap percentile interval.
CI_LEVEL = 0.95


def component_cells(
    tables: PairTables,
    layout: CellLayout,
    component: str,
    *,
    strata_within=None,
    sets_within=None,
    label_within=None,
):
    """The cells of a component (``strata_within``: see
    :func:`iaa_frames.core.engine.rows.localization_rows`; ``sets_within``: the
    :func:`~iaa_frames.core.engine.rows.sets_membership` of detection and overall, if built;
    ``label_within``: classification's within units per cell, when counted elsewhere,
    :func:`iaa_frames.core.engine.labels.classification_rows`)."""
    n_items = len(tables.corpus.items)
    if component == "classification":
        return LabelCells.build(layout, n_items, *classification_rows(tables, layout, label_within))
    rows = (
        localization_rows(tables, layout, strata_within)
        if component == "localization"
        else sets_rows(tables, component, layout, sets_within)
    )
    return SigmaCells.build(layout, n_items, *rows)


def label_alpha_cells(tables: PairTables, layout: CellLayout) -> ClassificationCells:
    """Krippendorff's alpha of the labels of the clusters (``label_alpha``)."""
    return ClassificationCells.build(layout, len(tables.corpus.items), tables.units)


#: The components of the set-level within rows.
SETS = ("detection", "overall")
#: The components whose intervals widen where their events are rare
#: (:func:`iaa_frames.stats.intervals.widen_rare_events`): matches (detection, overall),
#: label disagreements (classification), disagreements of any distance (every one).
RARE_EVENTS = (*SETS, "classification", "localization")


def name_order(names) -> np.ndarray:
    """Axis positions: "(all)" (cell 0) first, then codes in the natural order of their
    names ("2" before "10", case ignored: :func:`iaa_frames.frame.names.natural_key`).

    Examples
    --------
    >>> name_order(["10", "2", "b", "A"]).tolist()
    [0, 2, 1, 4, 3]
    """
    keys = [(natural_key(x), str(x)) for x in names]  # one key per name, not per row
    by_name = sorted(range(len(keys)), key=keys.__getitem__)
    return np.r_[0, 1 + np.asarray(by_name, dtype=np.int64)].astype(np.int64)


def names_in_order(names, order) -> list[str]:
    """Coordinate values of an axis ordered by :func:`name_order`."""
    return [ALL] + [str(v) for v in np.asarray(names, dtype=object)[order[1:] - 1]]


def package_version() -> str:
    return __version__


def _bootstrap(
    parts: dict, n_items: int, n_boot: int, seed: int, progress, clusters=None, replicates=None
) -> np.ndarray:
    """Agreement replicates of every cell: (n_boot, n_components, n_cells); ``clusters``
    (the group of every item, :meth:`iaa_frames.core.matching.corpus.Corpus.group_codes`) makes the
    replicates draw whole groups; ``replicates``: the :class:`_Replicates` of ``parts``,
    if made (shared with :func:`_jackknife`)."""
    replicates = _Replicates(parts) if replicates is None else replicates
    n_cells = parts[COMPONENTS[0]].statistics()[2].shape[-1]
    reps = np.empty((n_boot, len(COMPONENTS), n_cells))
    width = max([n_items] + [p.within.matrix.shape[1] for p in parts.values()])
    step = block_size(n_boot, width)
    with Bars(progress).bar(total=n_boot, desc="bootstrap", unit="replicate") as bar:
        start = 0
        for k in multiplicity_blocks(
            n_items, n_boot, seed=seed, block_size=step, clusters=clusters
        ):
            k = _column_major(k)
            reps[start : start + len(k)] = replicates.agreement(k)
            start += len(k)
            bar.update(len(k))
    return reps


def _jackknife(parts: dict, n_items: int, clusters=None, replicates=None) -> np.ndarray:
    """Agreement of every cell on the grouped jackknife replicates (for the BCa
    acceleration): (n_groups, n_components, n_cells); ``replicates``: as in
    :func:`_bootstrap`."""
    replicates = _Replicates(parts) if replicates is None else replicates
    return np.concatenate(
        [
            replicates.agreement(k)
            for k in map(_column_major, jackknife_blocks(n_items, clusters=clusters))
        ]
    )


class _Replicates:
    """The agreement of every component on blocks of replicates, as
    ``parts[name].statistics(k)[2]`` gives it, with the product two components share
    made once: detection and overall sum the same within rows and the same chance rows
    into the same count columns (:func:`_sets_cells`), so that overall's replicates take
    detection's count totals and multiply its distance columns alone (1M boxes: 1.6M of
    its 3.2M stored within sums, in every replicate), on the pair weights formed for
    detection. The same values bit for bit: a product sums every column alone, item
    after item (pair after pair), whatever the other columns of its matrix.

    Parameters
    ----------
    parts : dict
        Per component, its cells.
    """

    def __init__(self, parts: dict):
        self._parts = parts
        # overall's within distance columns and both chance matrices (by column), when
        # its counts are detection's
        self._distance = self._chance = None
        self._checked = False

    def _share(self) -> None:
        """Whether overall's count columns are detection's (checked once, stored sums
        compared: cells built elsewhere may differ)."""
        self._checked = True
        det, ovl = self._parts["detection"], self._parts["overall"]
        if not (_plain_sigma(det) and _plain_sigma(ovl) and det.n_cells == ovl.n_cells):
            return
        n = ovl.n_cells
        for a, b in ((det.within.matrix, ovl.within.matrix), (det.between, ovl.between)):
            if not isinstance(a, sp.spmatrix):  # the chance sums: the same pairs of items
                if not (_same(a.item_a, b.item_a) and _same(a.item_b, b.item_b)):
                    return
                a, b = a.matrix, b.matrix
            if a.shape != b.shape or a.shape[1] != 2 * n or not _same_sparse(a[:, :n], b[:, :n]):
                return
        self._distance = ItemSums(sp.csr_matrix(ovl.within.matrix[:, n:]))
        self._chance = [det.between.by_column(), ovl.between.by_column(slice(n, None))]

    def agreement(self, k: np.ndarray) -> np.ndarray:
        """(block, n_components, n_cells) agreement of the block ``k`` of multiplicities."""
        if not self._checked:
            self._share()
        out, counts = {}, None
        for name in sorted(COMPONENTS, key=SETS.__contains__, reverse=True):  # sets first
            part = self._parts[name]
            if self._distance is None or name not in SETS:
                values = part.statistics(k)[2]
            elif name == "detection":
                w = part.replicate_within.total(k)
                b, chance = part.between.totals_of(k, self._chance)
                counts = w[:, : part.n_cells], b[:, : part.n_cells]
                values = part.statistics_of(w, b)[2]
            else:
                w = np.concatenate([counts[0], self._distance.total(k)], axis=1)
                values = part.statistics_of(w, np.concatenate([counts[1], chance], axis=1))[2]
            out[name] = values
        return np.stack([out[name] for name in COMPONENTS], axis=1)


def _same(a, b) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _same_sparse(a, b) -> bool:
    """Whether two sparse matrices store the same entries in the same order."""
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    return a.shape == b.shape and all(
        _same(getattr(a, f), getattr(b, f)) for f in ("indptr", "indices", "data")
    )


def _plain_sigma(part) -> bool:
    """Sigma cells whose replicate statistics are :meth:`SigmaCells.statistics`, on sums
    of the engine's own kinds (not those that read a part of a block of multiplicities,
    :mod:`iaa_frames.temporal.windows`)."""
    return (
        isinstance(part, SigmaCells)
        and type(part).statistics is SigmaCells.statistics
        and type(part.within) is ItemSums
        and type(part.between) is PairSums
    )


def _column_major(k: np.ndarray) -> np.ndarray:
    """A (block, items) block of multiplicities as float64 stored item-major: the
    sums' products ``matrix.T @ k.T`` of every component read it as it is (no float
    copy and no transposed copy per component); the same values."""
    return np.asfortranarray(k, dtype=np.float64)


def _interval_scale(parts: dict, jack: np.ndarray, n_items: int, cell_items) -> np.ndarray:
    """Per component and cell, the factor on the bootstrap interval's half-widths
    (:func:`iaa_frames.stats.intervals.interval_scale`): the pair-level variance of the chance
    means, every component's (classification's expected disagreement is a mean over
    matched chance pairs too); the degrees of freedom are those of the items each cell
    rests on (``cell_items``, the result's ``n_items``)."""
    pair = np.stack([parts[name].pair_variance() for name in COMPONENTS])
    return interval_scale(jack, pair, n_items=n_items, level=CI_LEVEL, cell_items=cell_items)


def _point_estimates(parts: dict, n_cells: int, min_chance=MIN_CHANCE_UNITS) -> dict:
    """Every variable of every cell (NaN where not computed yet), with the notes
    (``min_chance``: fewest chance units, per component and cell or for all)."""
    out = {name: np.full((len(COMPONENTS), n_cells), np.nan) for name in VARIABLES}
    for c, name in enumerate(COMPONENTS):
        out["observed"][c], out["expected"][c], out["agreement"][c] = parts[name].statistics()
        out["n_units"][c], out["n_chance"][c] = parts[name].counts()
        out["n_items"][c] = parts[name].item_counts()
    sigma = np.isin(COMPONENTS, SIGMA_COMPONENTS)
    min_units = np.where(sigma, MIN_WITHIN_UNITS, MIN_ALPHA_UNITS)[:, None]
    out["note"] = notes(
        n_units=out["n_units"],
        n_chance_units=out["n_chance"],
        expected=out["expected"],
        min_units=min_units,
        min_chance=min_chance,
        min_expected=NO_VARIATION,
    )
    cls = COMPONENTS.index("classification")
    if hasattr(parts["classification"], "few_disagreements_notes"):
        out["note"][cls] = parts["classification"].few_disagreements_notes(out["note"][cls])
        out["note"][cls] = label_chance_notes(out["note"][cls])
    det = COMPONENTS.index("detection")
    silent = (out["note"][det] == "") & (parts["detection"].matched == 0)
    out["note"][det] = np.where(silent, NO_MATCH_NOTE, out["note"][det])
    # overall without a match anywhere rests on sub-threshold overlaps alone: its figure
    # (0.0000x) says nothing, and no interval can be given for it (no match to count)
    ov = COMPONENTS.index("overall")
    silent = (out["note"][ov] == "") & (parts["detection"].matched == 0)
    out["note"][ov] = np.where(silent, NO_MATCH_NOTE, out["note"][ov])
    return out


#: Added to the note of a classification cell with too few matched chance pairs.
LABEL_CHANCE_HINT = "labels cannot be told from chance (label_alpha: Krippendorff's)"


def label_chance_notes(note: np.ndarray) -> np.ndarray:
    """Classification notes: "too few chance units" says what it means for labels and
    where Krippendorff's alpha is (:data:`LABEL_CHANCE_HINT`)."""
    text = np.asarray(note, dtype=object)
    few = np.array([str(n).startswith("too few chance units") for n in text.ravel()], bool)
    out = text.ravel().copy()
    out[few] = [f"{n}: {LABEL_CHANCE_HINT}" for n in out[few]]
    return out.reshape(text.shape)


#: The note of every undefined classification cell of a corpus of one class.
ONE_CLASS_NOTE = "one class: there is no label to disagree on (classification needs two)"


def one_class_notes(tables: PairTables, note: np.ndarray) -> np.ndarray:
    """Classification notes (``note``, any shape) of a corpus of one class: every reason
    a cell is undefined (no variation, too few chance units) comes down to
    :data:`ONE_CLASS_NOTE`, which says what would change it.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=6, seed=0, classes=("car",)), n_chance=50)
    >>> one_class_notes(t, np.array(["no variation: expected disagreement is 0", ""],
    ...                             dtype=object)).tolist()[0][:10]
    'one class:'
    """
    note = np.asarray(note, dtype=object)
    if len(tables.corpus.labels) >= 2:
        return note
    return np.where(note != "", ONE_CLASS_NOTE, note).astype(object)


def whole_population_notes(tables: PairTables, note: np.ndarray) -> np.ndarray:
    """Say so where too few chance units are the whole chance population."""
    if tables.params.get("chance_population") != "enumerated":
        return note
    text = note.astype(str)
    text = text.astype(f"<U{text.dtype.itemsize // 4 + 32}")  # room for the suffix
    few = np.strings.startswith(text, "too few chance units")
    return np.where(
        few, np.strings.replace(text, ")", ": the whole chance population)", 1), note
    ).astype(object)


def _chance_sources(tables: PairTables, layout: CellLayout) -> np.ndarray:
    """Per component and cell: "enumerated", "sampled" or "pooled" (before the thin
    cells' "borrowed", :func:`borrowed_sources`)."""
    base = tables.params.get("chance_population", "sampled")
    out = np.full((len(COMPONENTS), layout.n_labels + 1, layout.n_groups), base, dtype=object)
    source = np.asarray(tables.label_source, dtype=object)
    loc = out[COMPONENTS.index("localization"), 1:]
    loc[:] = np.where(source != "", source, base)[:, None]
    return out.reshape(len(COMPONENTS), layout.n_cells)


def _min_chance(sources: np.ndarray, n_groups: int) -> np.ndarray:
    """Fewest chance units per component and cell: :data:`MIN_CHANCE_UNITS`, and
    :func:`~iaa_frames.core.chance.pooled.min_chance_units` for a class's localization cell."""
    out = np.full(sources.shape, MIN_CHANCE_UNITS, dtype=np.int64)
    loc = COMPONENTS.index("localization")
    out[loc, n_groups:] = min_chance_units(sources[loc, n_groups:])  # "(all)" pools classes
    return out


#: The note of a class's localization cell on a borrowed chance baseline (defined).
POOLED_NOTE = (
    "pooled chance baseline: assumes the class is drawn like other objects of its size and "
    "shape at its position (too few chance units of its own); it cannot catch an annotator "
    "who is lazy on this class alone"
)
#: The note of a class's localization cell with no honest chance baseline (NaN).
NO_BASELINE_NOTE = (
    "too few chance units of the class's own, and no honest baseline to borrow: no objects "
    "of other classes like its objects (position, size, shape), or its own few chance units "
    "are closer than theirs (a position or a drawing of its own)"
)


def borrowed_sources(part, sources: np.ndarray) -> np.ndarray:
    """The chance sources of a sigma component's cells, "borrowed" where a thin cell took
    its label cell's "(all)" units (:mod:`iaa_frames.core.engine.borrow`) and "aligned" where
    aligned units complete a thin population, borrowed or not
    (:func:`iaa_frames.core.engine.rows.chance_with_aligned`)."""
    borrowed = getattr(part, "borrowed", None)
    if borrowed is not None:
        sources = np.where(np.asarray(borrowed) >= 0, "borrowed", sources).astype(object)
    aligned = getattr(part, "aligned", None)  # it wins: not every unit comes from the corpus
    if aligned is not None:
        sources = np.where(np.asarray(aligned), "aligned", sources).astype(object)
    return sources


def _class_source_notes(out: dict, sources: np.ndarray) -> np.ndarray:
    """Notes of the classes' localization cells that borrow their chance baseline
    ("pooled": what it assumes, on a defined cell) or could not ("none": why NaN;
    :mod:`iaa_frames.core.chance.pooled`)."""
    note = out["note"].copy()
    loc = COMPONENTS.index("localization")
    pooled = (sources[loc] == "pooled") & (note[loc] == "")
    none = (sources[loc] == "none") & (out["n_units"][loc] >= MIN_WITHIN_UNITS)
    note[loc, pooled] = POOLED_NOTE
    note[loc, none] = NO_BASELINE_NOTE
    return note


def _cell_tests(part, min_chance, seed: int = 0, advance=None, name="", draws=None):
    """KS and fraction below chance of a sigma component's cells with enough units
    (their counts read from them, as :func:`_point_estimates` does; ``min_chance``:
    fewest chance units per cell), shape (4, n_cells). ``advance(name)`` is called when
    done; ``draws(n_items)`` gives the tests' multiplicities if shared (or None)."""
    n_units, n_chance = part.counts()
    enough = (n_units >= MIN_WITHIN_UNITS) & (n_chance >= min_chance)
    shared = None if draws is None else draws(part.n_items)
    values = part.tests(np.flatnonzero(enough), seed=seed, multiplicities=shared)
    if advance is not None:
        advance(name)
    return values


class _Tests:
    """The sigma components' KS tests, each submitted to a one-thread pool as soon as
    its cells are built; those the pool has not started when the caller is free run in
    the caller's thread instead (:meth:`steal`). A test's values are those of its own
    cells, whichever thread computes them. The tests share the draws of their
    replicates' multiplicities (the same for every component: same items, same seed),
    drawn by the first test that needs them.

    Parameters
    ----------
    pool : iaa_frames.core.side_thread.SideThread
        Where the tests are submitted (or an executor of one thread).
    min_chance : ndarray
        Fewest chance units per component and cell.
    seed : int
    advance : callable
        Called with a component's name when its tests are done (progress bar).
    """

    def __init__(self, pool, min_chance, seed: int, advance):
        self._pool, self._min_chance, self._seed, self._advance = pool, min_chance, seed, advance
        self._jobs: dict = {}
        self._args: dict = {}  # a test's arguments, until it has started (for steal)
        self._stolen: dict = {}
        self._draws: dict = {}
        self._lock = threading.Lock()

    def submit(self, name: str, part) -> None:
        # the arguments kept here hold no reference to this object (no cycle: the cells
        # are freed as soon as the caller lets go of them), and are let go of when the
        # test is done (its cells' KS lists with them, when the caller kept none)
        args = (part, self._min_chance[COMPONENTS.index(name)], self._seed, self._advance, name)
        self._args[name] = args
        future = self._pool.submit(_cell_tests, *args, draws=self.multiplicities)
        self._jobs[name] = future
        future.add_done_callback(partial(_forget, self._args, name))

    def multiplicities(self, n_items: int):
        """The tests' replicates on ``n_items`` items, drawn once (None above
        :data:`MAX_SHARED_DRAWS` values: each test then draws its own, a block at a
        time)."""
        if KS_RESAMPLES * n_items > MAX_SHARED_DRAWS:
            return None
        with self._lock:  # the first caller draws, the other waits for its draws
            if n_items not in self._draws:
                # one byte a value, drawn a block at a time: the same values as
                # ks_multiplicities (1M boxes: 9.5 MiB held, not 38 MiB, and no 0.24 GB of
                # int64 draws at once)
                self._draws[n_items] = ks_multiplicities_bytes(n_items, KS_RESAMPLES, self._seed)
            return self._draws[n_items]

    def steal(self) -> None:
        """Run here the tests the pool has not started, in the order submitted (the
        pool, once free, takes the next: the two threads share what is left)."""
        for name, future in list(self._jobs.items()):
            args = self._args.get(name)  # None: done (or running: not to be cancelled)
            if args is not None and future.cancel():
                self._stolen[name] = _cell_tests(*args, draws=self.multiplicities)
            del args

    def done(self) -> bool:
        return all(n in self._stolen or f.done() for n, f in self._jobs.items())

    def result(self) -> dict:
        """Per component, its (4, n_cells) values."""
        return {
            n: self._stolen[n] if n in self._stolen else f.result() for n, f in self._jobs.items()
        }


def _forget(args: dict, name: str, _future) -> None:
    """Let go of the arguments of a test that is done or cancelled (a future's
    callback)."""
    args.pop(name, None)


def _test_variables(values: dict, out: dict) -> dict:
    """The variables of the tests (NaN outside the sigma components) from each sigma
    component's (4, n_cells) values."""
    tested = {var: out[var].copy() for var in TEST_VARIABLES}
    for name, v in values.items():
        c = COMPONENTS.index(name)
        for i, var in enumerate(TEST_VARIABLES):
            tested[var][c] = v[i]
    return tested


#: Most multiplicities the KS tests share (one byte each: 16 MiB); above, each draws its own.
MAX_SHARED_DRAWS = 1 << 24
#: The KS tests' replicates (:func:`iaa_frames.stats.kstest.ks_agreement_entries`).
KS_RESAMPLES = DEFAULT_RESAMPLES
#: The order in which :func:`agreement_from_cells` submits the sigma components' tests:
#: the longest first (localization has the most rows per cell).
TEST_ORDER = ("localization", "overall", "detection")
#: The variables :meth:`SigmaCells.tests` computes, in the order of its rows.
TEST_VARIABLES = ("ks", "ks_sign", "ks_pvalue", "frac_below_chance")


def _await_tests(future, done: queue.SimpleQueue, progress) -> dict:
    """The result of the tests running in ``future``; while they run, a "KS tests" bar
    over their components (``done`` receives one entry per component finished). Opened
    only when the tests outlast the bootstrap (bars are never nested)."""
    total = sum(name in SIGMA_COMPONENTS for name in COMPONENTS)
    finished = 0
    while not done.empty():
        done.get()
        finished += 1
    if finished < total and not future.done():
        bar = Bars(progress).bar(total=total, desc="KS tests", unit="component", initial=finished)
        with bar:
            while finished < total and not (future.done() and done.empty()):
                try:
                    done.get(timeout=0.05)
                except queue.Empty:
                    continue
                finished += 1
                bar.update(1)
    return future.result()


@validate_params({"ci_method": OneOf(CI_METHODS)})
def agreement_from_tables(
    tables: PairTables,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    progress: bool | None = None,
    ci_method: str = "bca",
):
    """The agreement Dataset from already computed pair tables.

    Every statistic is computed from the stored tables; the bootstrap reweights their rows
    (see :mod:`iaa_frames.stats.bootstrap`) and recomputes nothing geometric.

    Parameters
    ----------
    tables : PairTables
        From :func:`iaa_frames.core.tables.pairs.pair_tables`.
    n_boot : int, default 200
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high`` (0: none).
    seed : int, default 0
        Seed of the bootstrap.
    progress : bool, optional
        Progress bars for the bootstrap and the KS tests; by default a bar appears only
        when its stage lasts over 2 s (:mod:`iaa_frames.progress`).
    ci_method : {"bca", "percentile"}, default "bca"
        The bootstrap interval: bias-corrected and accelerated, its width corrected for
        the pair-level noise of chance means and for the noise of the variance
        (:func:`iaa_frames.stats.intervals.bca_interval`,
        :func:`iaa_frames.stats.intervals.interval_scale`), or the plain percentile interval
        of the replicates.

    Returns
    -------
    xarray.Dataset
        See :func:`agreement`.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> tables = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> ds = agreement_from_tables(tables, n_boot=20)
    >>> bool(ds["ci_low"].sel(component="localization", label="(all)", annotator="(all)")
    ...      <= ds["agreement"].sel(component="localization", label="(all)", annotator="(all)"))
    True
    """
    check_tables(tables)
    corpus = tables.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    min_chance = _min_chance(_chance_sources(tables, layout), layout.n_groups)
    done = queue.SimpleQueue()  # the components the tests have finished (progress bar)
    # a second thread builds the alpha cells (classification, presence) while this one
    # builds the sigma cells, then runs the KS tests of each sigma component, queued as
    # soon as its cells are built, while this one runs the bootstrap (numpy and scipy
    # release the GIL in their array loops); freed temporaries are reused, not unmapped
    # (iaa_frames.heap)
    with large_heap(pause_collector=True), SideThread() as pool:
        tests = _Tests(pool, min_chance, seed, done.put)
        classification = pool.submit(component_cells, tables, layout, "classification")
        presence = pool.submit(PresenceCells.build, layout, n_items, tables.units, tables.coverage)
        alpha = pool.submit(label_alpha_cells, tables, layout)
        # the tests hold the cells with their KS lists, the statistics the same cells
        # without: the lists are freed as each component's tests are done (1M boxes:
        # 0.1 GB of localization's while the others are tested)
        cells = component_cells(tables, layout, "localization")
        tests.submit("localization", cells)
        parts = {"localization": cells.without_ks_lists()}
        del cells
        sets = dict(zip(SETS, _sets_cells(tables, layout)))
        for name in ("overall", "detection"):
            tests.submit(name, sets[name])
            parts[name] = sets.pop(name).without_ks_lists()
        parts["classification"] = classification.result()
        parts = {c: parts[c] for c in COMPONENTS}
        presence = presence.result()
        return _from_cells(
            tables,
            parts,
            presence,
            n_boot,
            seed,
            progress,
            ci_method,
            tests=tests,
            done=done,
            label_alpha=alpha.result(),
        )


def _sets_cells(tables: PairTables, layout: CellLayout):
    """The cells of detection and overall, on one membership of their within rows."""
    sets = sets_membership(tables, layout)
    detection = component_cells(tables, layout, "detection", sets_within=sets)
    return detection, component_cells(tables, layout, "overall", sets_within=sets)


@validate_params({"ci_method": OneOf(CI_METHODS)})
def agreement_from_cells(
    tables: PairTables,
    parts: dict,
    presence,
    *,
    label_alpha=None,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    progress: bool | None = None,
    ci_method: str = "bca",
):
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
    label_alpha : ClassificationCells, optional
        Krippendorff's alpha cells of the labels (``label_alpha``); by default built
        from ``tables.units``.
    n_boot, seed, progress, ci_method
        As in :func:`agreement_from_tables`.

    Returns
    -------
    xarray.Dataset
        The result of :func:`agreement` for these cells.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> tables = iaf.pair_tables(iaf.simulate(n_items=20, seed=0), n_chance=200)
    >>> layout = CellLayout(len(tables.corpus.labels), len(tables.corpus.annotators))
    >>> parts = {c: component_cells(tables, layout, c) for c in COMPONENTS}
    >>> presence = PresenceCells.build(layout, len(tables.corpus.items), tables.units,
    ...                                tables.coverage)
    >>> ds = agreement_from_cells(tables, parts, presence, n_boot=20)
    >>> ds.equals(agreement_from_tables(tables, n_boot=20))
    True
    """
    check_tables(tables)
    return _from_cells(
        tables, parts, presence, n_boot, seed, progress, ci_method, label_alpha=label_alpha
    )


def _from_cells(
    tables,
    parts,
    presence,
    n_boot,
    seed,
    progress,
    ci_method,
    tests=None,
    done=None,
    label_alpha=None,
):
    """:func:`agreement_from_cells`; ``tests``: the sigma components' tests already
    submitted (:class:`_Tests`) and their ``done`` queue (else they are submitted here,
    one component after the other to a second thread)."""
    corpus = tables.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    n_items = len(corpus.items)
    sources = _chance_sources(tables, layout)
    min_chance = _min_chance(sources, layout.n_groups)
    out = _point_estimates(parts, layout.n_cells, min_chance)
    out["note"] = whole_population_notes(tables, out["note"])
    cls = COMPONENTS.index("classification")
    out["note"][cls] = one_class_notes(tables, out["note"][cls])
    defined = out["note"] == ""
    for c in ("localization", "classification"):
        sources[COMPONENTS.index(c)] = borrowed_sources(parts[c], sources[COMPONENTS.index(c)])
    pooled = getattr(parts["classification"], "pooled", None)
    if pooled is not None:
        cls = COMPONENTS.index("classification")
        sources[cls] = np.where(pooled, "pooled", sources[cls]).astype(object)
    out["chance_source"] = sources
    out["note"] = _class_source_notes(out, sources)
    out["agreement"] = np.where(defined, out["agreement"], np.nan)
    # the KS tests and the bootstrap are independent: the tests run in a second thread
    # (numpy and scipy release the GIL in their array loops)
    with SideThread() as pool:
        # the tests of given cells (dask's, which may run on a cluster) one at a time in
        # the second thread, as they come; those of agreement_from_tables shared out
        share = tests is not None
        if tests is None:
            done = queue.SimpleQueue()  # the components the tests have finished (bar)
            tests = _Tests(pool, min_chance, seed, done.put)
            for name in TEST_ORDER:
                tests.submit(name, parts[name])
        out["raw_iou"][COMPONENTS.index("localization")] = parts["localization"].raw_iou()
        out["matched_share"][COMPONENTS.index("localization")] = (
            1.0 - out["observed"][COMPONENTS.index("detection")]
        )
        out["presence_alpha"][COMPONENTS.index("detection")] = presence.statistics()[2]
        if label_alpha is None:
            label_alpha = label_alpha_cells(tables, layout)
        out["label_alpha"][COMPONENTS.index("classification")] = label_alpha.statistics()[2]
        if n_boot:
            # groups of items (the group column) are the clusters of the bootstrap
            clusters = corpus.group_codes()
            replicates = _Replicates(parts)  # shared by the bootstrap and the jackknife
            reps = _bootstrap(parts, n_items, n_boot, seed, progress, clusters, replicates)
            if ci_method == "bca":
                jack = _jackknife(parts, n_items, clusters, replicates)
                low, high = bca_interval(
                    out["agreement"],
                    reps,
                    jack,
                    level=CI_LEVEL,
                    scale=_interval_scale(
                        parts, jack, corpus.n_groups, np.minimum(out["n_items"], corpus.n_groups)
                    ),
                )
                # the widened interval stays in the range of agreement: at most 1
                high = np.minimum(high, 1.0)
            else:
                low, high = percentile_ci(reps, level=CI_LEVEL)
            # events counted in the clusters the bootstrap draws (the frames of a video
            # come in runs: one video is one draw)
            low, high = intervals.widen_rare_events(
                low,
                high,
                parts,
                out | {"unit_credit": unit_credits_of_cells(parts)},
                COMPONENTS,
                RARE_EVENTS,
                level=CI_LEVEL,
                clusters=clusters,
            )
            reported = defined & (out["n_items"] >= MIN_CI_ITEMS)
            out["ci_low"], out["ci_high"] = (np.where(reported, v, np.nan) for v in (low, high))
        if share:
            tests.steal()  # the tests not started yet run here, beside the others
        out.update(_test_variables(_await_tests(tests, done, progress), out))
    # a defined cell on few items says so, after what it assumes (a borrowed baseline)
    few = interval_notes(
        np.where(defined, "", "x").astype(object), n_items=out["n_items"], min_items=MIN_CI_ITEMS
    )
    few = np.where(defined, few, "")
    out["note"] = np.where(
        few == "", out["note"], np.where(out["note"] == "", few, out["note"] + "; " + few)
    ).astype(object)

    labels, annotators = name_order(corpus.labels), name_order(corpus.annotators)
    grid = (len(COMPONENTS), layout.n_labels + 1, layout.n_groups)
    values = {k: v.reshape(grid)[:, labels][:, :, annotators] for k, v in out.items()}
    attrs = {
        "title": "iaa_frames agreement",
        **tables.params,
        "n_boot": int(n_boot),
        "bootstrap_seed": int(seed),
        "ci_level": CI_LEVEL,
        "ci_method": ci_method,
        "min_within_units": MIN_WITHIN_UNITS,
        "min_chance_units": MIN_CHANCE_UNITS,
        "min_alpha_units": MIN_ALPHA_UNITS,
        "min_ci_items": MIN_CI_ITEMS,
        "iaa_frames_version": package_version(),
    }
    ds = build_dataset(
        values,
        labels=names_in_order(corpus.labels, labels),
        annotators=names_in_order(corpus.annotators, annotators),
        attrs=attrs,
    )
    return carry(with_threshold(ds, tables.params["match_threshold"]), [tables])


def agreement_with_settings(
    df: pd.DataFrame, *, n_boot: int = DEFAULT_N_BOOT, settings: MatchSettings = DEFAULTS
):
    """:func:`agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    seed, progress = settings.seed, settings.progress
    if not settings.several:
        # one block for both steps: the heap is not trimmed between
        with large_heap(pause_collector=True):
            tables = pair_tables_from(df, settings)
            return agreement_from_tables(tables, n_boot=n_boot, seed=seed, progress=progress)
    every = iter_tables_from(df, settings.thresholds, settings)
    return concat_thresholds(
        [agreement_from_tables(t, n_boot=n_boot, seed=seed, progress=progress) for t in every]
    )


@validate_params(engine=False)
def agreement(
    df: pd.DataFrame,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """Chance-corrected agreement by component, label and annotator: σ = 1 perfect,
    0 chance, < 0 systematic disagreement.

    Four components, each with its own question: **detection** (do annotators find the
    same objects?), **classification** (do they give matched objects the same class?),
    **localization** (do they draw matched objects in the same place?) and **overall**
    (the annotations as a whole); each broken down by class (``label``) and by annotator.

    What the numbers mean: every ``agreement`` is chance-corrected,
    ``1 - observed / expected``, the disagreement of annotators on the same item over the
    disagreement expected by chance.

    * **σ (sigma)**, for detection, localization and overall: ``σ = 1 - mean within
      distance / mean chance distance``. The within distances are those of two
      annotators' work on the same item; the chance distances those of one annotator's
      annotation of an item against another annotator's annotation of a *different* item,
      sent through the same matching with the same threshold
      (:mod:`iaa_frames.core.chance`). **σ = 1**: perfect agreement; **σ = 0**: no better than
      chance; **σ < 0**: systematic disagreement (annotators are further apart on the
      same item than on unrelated items: two incompatible conventions, say). σ has no
      lower bound and no conventional cut-offs: read it against 0 (with its interval
      ``ci_low``, ``ci_high``) and against the other components. The distances:
      detection ``1 - F1`` of the object matching; localization the ``distance`` of
      matched pairs (by default ``(1 - GIoU) / 2``, in [0, 1]); overall a set distance of
      the whole annotations.
    * **α (alpha)**, for classification: ``1 - D_o / D_e`` with ``D_o`` the share of
      matched object pairs whose labels differ and ``D_e`` that share among matched
      pairs of unrelated items (class against the other classes for a class;
      :mod:`iaa_frames.core.engine.labels`), on the same scale (1 perfect, 0 chance, < 0
      systematic disagreement). Krippendorff's conventional thresholds: α ≥ 0.8 to rely
      on the data, α ≥ 0.667 for tentative conclusions. Krippendorff's alpha of the
      labels (``label_alpha``, its own expected disagreement from the labels' marginals)
      and of presence (``presence_alpha``) are reported beside it, for comparison.
    * ``ks`` / ``ks_pvalue``: the Kolmogorov-Smirnov statistic of the within against the
      chance distances and its one-sided p-value (is within closer than chance?);
      ``n_units`` / ``n_chance``: the within and chance units a cell rests on; ``note``:
      why a number is missing.

    The components, cells and chance baseline are defined in the module docstrings of
    :mod:`iaa_frames.core.engine` and :mod:`iaa_frames.core.chance`.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame: one row per drawn object with ``item``, ``annotator``,
        ``label`` and the box ``x0, y0, x1, y1`` or a ``geometry`` (the columns:
        :func:`iaa_frames.frame.schema.validate`; readers of annotation exports:
        :mod:`iaa_frames.io`).
    distance : str or callable, default "giou"
        Distance between matched objects (:func:`iaa_frames.geometry.distances.get_distance`).
    match_threshold : float or sequence of float, default 0.5
        τ: an assigned object pair is matched when its IoU >= τ. A sequence gives a
        ``threshold`` dimension (sorted, duplicates removed), computed with the frame
        prepared once and polygon pair values shared between thresholds
        (:func:`iaa_frames.core.tables.pairs.iter_pair_tables`); the result at each τ equals
        the result of that τ alone (same chance ``seed`` and bootstrap ``seed``). What the
        gate does to each component: :mod:`iaa_frames.settings.thresholds`.
    n_chance : int, default 2000
        Target number of chance units per stratum (:mod:`iaa_frames.core.tables.pairs`).
    n_boot : int, default 200
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high`` (0: none,
        the intervals are then NaN).
    seed : int, default 0
        Seed of the chance sample and of the bootstrap.
    overall : {"pooled", "per_direction"}, default "pooled"
        How the set-level (overall) distance averages best matches.
    progress : bool, optional
        Progress bars, one per stage (matching, chance pairings, bootstrap, KS tests),
        each with its total known when it opens; by default a stage is shown only when it
        lasts over 2 s (:mod:`iaa_frames.progress`).

    Returns
    -------
    xarray.Dataset
        Dims ``(component, label, annotator)``, "(all)" first on label and annotator,
        preceded by ``threshold`` when ``match_threshold`` is a sequence (a scalar
        ``threshold`` coordinate otherwise); coord ``measure(component)``; data
        variables ``agreement, observed, expected,
        ks, ks_sign, ks_pvalue, n_units, n_items, n_chance, ci_low, ci_high, raw_iou,
        frac_below_chance, presence_alpha, label_alpha, matched_share``, ``note`` (why a
        cell's agreement is NaN, or that its interval is not reported because it rests on
        fewer than ``min_ci_items`` items) and ``chance_source`` (whose chance units a
        cell rests on: its own, "borrowed" from its class, or "aligned").
        Each variable's attrs describe it; the Dataset attrs hold the parameters.

    Notes
    -----
    The cells are defined in the module docstring of :mod:`iaa_frames.core.engine`: an
    annotator's cell keeps only the pairs or pairable values that involve the
    annotator; classification compares the label disagreement of those pairs with that of
    matched pairs of unrelated items (:mod:`iaa_frames.core.engine.labels`).
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
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return agreement_with_settings(df, n_boot=n_boot, settings=settings)
