# Over 400 lines: the PairTables contract, documented table by table, and the entry points that
# build it.
"""Within-item and between-item pair tables.

:func:`pair_tables` builds every table the statistics need, once:

* **localization**: one row per matched object pair, within items and between items;
* **sets**: one row per pairing of two annotations, with the detection distance
  (1 - F1 of their matching) and the set-level ``overall`` distance; for the whole
  annotations (``label == -1``) and for annotations restricted to each class;
* **units**: every object with its cluster, for classification α and presence α.

Between-item rows are *chance pairings*: the annotation of item i by annotator a and of
item j by annotator b, i != j and a != b, drawn at random (seeded) and sent through the
same pipeline, with the same threshold, as the within-item pairings.

The chance sample is drawn by :mod:`iaa_frames.core.chance`, whose docstring documents the
strata and the default target ``n_chance``.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from iaa_frames.core import chance
from iaa_frames.core.chance import DEFAULT_N_CHANCE, MIN_CHANCE_UNITS
from iaa_frames.core.chance.aligned import DEFAULT_N_ALIGNED, aligned_units, empty_aligned
from iaa_frames.core.chance.pooled import pooled_baseline
from iaa_frames.core.chance.reach_grid import ReachGrid, object_cells
from iaa_frames.core.matching.assignment import clusters
from iaa_frames.core.matching.checked import engine_distance
from iaa_frames.core.matching.copies import find_copies, warn_copies
from iaa_frames.core.matching.corpus import Corpus, prepare
from iaa_frames.core.matching.pipeline import IoUCache, can_match, candidate_count, run
from iaa_frames.core.matching.units import class_units
from iaa_frames.errors import NotComparableError
from iaa_frames.frame.schema import ALL
from iaa_frames.geometry.distances import get_distance
from iaa_frames.heap import large_heap
from iaa_frames.progress import Bars
from iaa_frames.settings.parameters import (
    DEFAULTS,
    MatchSettings,
    checked_settings,
    engine_kwargs,
    settings_of,
)
from iaa_frames.settings.thresholds import check_thresholds
from iaa_frames.settings.validation import Thresholds, validate_params

from .comparability import require_comparable
from .jobs import Jobs, blocks, joined, known_rows, locked, matched_once
from .steps import (
    between_frames,
    class_detection,
    label_noise,
    labels_of_pairings,
    to_label_slots,
    within_counts,
    within_frames,
    within_pairings,
)

__all__ = [
    "DEFAULT_N_CHANCE",
    "PairTables",
    "assemble",
    "iter_pair_tables",
    "iter_tables_from",
    "label_chance_rows",
    "named",
    "pair_tables",
    "pair_tables_by_threshold",
    "pair_tables_from",
    "table_params",
    "within",
    "between",
]

_OVERALL = ("pooled", "per_direction")


@dataclass(frozen=True, eq=False)
class PairTables:
    """Every table the statistics are computed from (integer codes; see ``corpus``).

    Attributes
    ----------
    corpus : Corpus
        Names of the codes: ``corpus.items[code]``, ``corpus.annotators[code]``,
        ``corpus.labels[code]``; a label code of -1 means "(all)".
    localization_within, localization_between : pandas.DataFrame
        Matched object pairs: items, annotators, labels, objects, ``iou``, ``distance``;
        between rows are distinct and carry the flags of the strata that drew them
        (:mod:`iaa_frames.core.chance`): ``in_uniform`` (the uniform stratum, which counts in
        every cell), ``in_annotator_a`` / ``in_annotator_b`` (the stratum of
        ``annotator_a`` / ``annotator_b``), ``in_pair`` (the stratum of the pair of
        annotators), ``in_label`` (the stratum of the class).
    sets_within, sets_between : pandas.DataFrame
        One row per pairing and ``label`` (-1 = whole annotations): ``n_a``, ``n_b``,
        ``n_matched``, ``detection`` (1 - F1; per class from the label-agnostic matching)
        and ``overall`` (set distance); between rows carry strata flags too.
    units : pandas.DataFrame
        One row per object: ``item``, ``annotator``, ``label``, ``cluster``.
    coverage : pandas.DataFrame
        One row per (item, annotator) that covered the item.
    localization_pooled : pandas.DataFrame
        ``label, row, weight``: the uniform chance rows a class borrows (with weights) when
        its own chance population is too small.
    label_source : numpy.ndarray of str
        Per class: how its localization chance units were formed ("enumerated",
        "sampled", "pooled").
    params : dict
        The parameters used (the same at every threshold of a sweep: how many aligned
        units a threshold drew is ``len(localization_aligned)``).
    localization_aligned : pandas.DataFrame
        *Aligned* chance units of localization (:mod:`iaa_frames.core.chance.aligned`): an
        object of one annotation and an object of an unrelated one (another item's group,
        another annotator) moved into its frame, kept when they pass the gate; the
        columns of ``localization_between`` (``in_uniform`` True, the other flags False)
        and a ``weight`` (their mean is the weighted mean of ``distance``). Drawn only
        when the empirical population is thin: fewer than twice
        :data:`~iaa_frames.core.chance.population.MIN_CHANCE_UNITS` rows of
        ``localization_between`` in the uniform stratum (the engine uses them when its
        "(all)" cell keeps fewer than the minimum after post-stratification,
        :func:`iaa_frames.core.engine.rows.chance_with_aligned`); otherwise empty (as in the
        tables of :mod:`iaa_frames.dask`), with those columns.
    """

    corpus: Corpus
    localization_within: pd.DataFrame
    localization_between: pd.DataFrame
    sets_within: pd.DataFrame
    sets_between: pd.DataFrame
    units: pd.DataFrame
    coverage: pd.DataFrame
    localization_pooled: pd.DataFrame = None
    label_source: np.ndarray = None
    params: dict = field(default_factory=dict)
    localization_aligned: pd.DataFrame = None

    def __post_init__(self):
        if self.localization_aligned is None:
            object.__setattr__(self, "localization_aligned", empty_aligned())

    def __repr__(self) -> str:
        c = self.corpus
        rows = ", ".join(
            f"{name} {len(getattr(self, name)):,}"
            for name in (
                "localization_within",
                "localization_between",
                "sets_within",
                "sets_between",
                "units",
            )
        )
        return (
            f"<PairTables: {len(c.items):,} items, {len(c.annotators):,} annotators, "
            f"{len(c.labels):,} classes; chance population "
            f"{self.params.get('chance_population', '?')}; rows: {rows}>"
        )


# -- pairings ------------------------------------------------------------------------------


# -- tables -------------------------------------------------------------------------------------


def _pair_tables(df: pd.DataFrame, *, settings: MatchSettings = DEFAULTS) -> PairTables:
    """:func:`pair_tables` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    return pair_tables_from(df, settings)


@validate_params(engine=False)
def pair_tables(
    df: pd.DataFrame,
    *,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> PairTables:
    """Build every within-item and between-item table the statistics need.

    The tables hold distances, not agreement: a within row is a pair of two annotators'
    work on the same item, a between (chance) row one annotator's annotation of an item
    against another annotator's annotation of a different item, both through the same
    matching. :func:`iaa_frames.agreement` (or
    :func:`iaa_frames.core.engine.agreement_from_tables`) turns them into
    ``σ = 1 - mean within distance / mean chance distance`` (1 perfect, 0 chance,
    < 0 systematic disagreement) and Krippendorff's α of the labels. Every column is
    described in :class:`PairTables`.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame (validated here; invalid rows raise).
    distance : str or callable, default "giou"
        Distance between matched objects (see :func:`iaa_frames.geometry.distances.get_distance`).
    match_threshold : float, default 0.5
        τ: an assigned object pair is kept when its IoU >= τ.
    n_chance : int, default 2000
        Most chance units a stratum aims at: localization's uniform stratum aims at
        ``n_chance`` matched pairs, every other at ``min(n_chance, max(200, 5 w))``
        units, ``w`` its cell's within units, and those of detection and overall at
        fewer where the noise of their chance mean allows (see :mod:`iaa_frames.core.chance`,
        which also says when the chance population is enumerated instead of sampled).
    overall : {"pooled", "per_direction"}, default "pooled"
        How the set-level distance averages best matches (Braylan et al.).
    seed : int, default 0
        Seed of the chance sample.
    progress : bool, optional
        Progress bars, one per stage ("within-item matching", "chance index", "chance
        pairings", "per-class chance matching"), each with its total known when it
        opens; by default a stage is shown only when it lasts over 2 s
        (:mod:`iaa_frames.progress`); ``False``: none, ``True``: all.

    Returns
    -------
    PairTables

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = pair_tables(iaf.simulate(n_items=20, seed=0), n_chance=200)
    >>> sorted(t.localization_within.columns)[:4]
    ['annotator_a', 'annotator_b', 'distance', 'iou']
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    ).single()
    return _pair_tables(df, settings=settings)


def pair_tables_from(df: pd.DataFrame, settings: MatchSettings) -> PairTables:
    """:func:`pair_tables` of settings checked at the boundary (one threshold).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> t = pair_tables_from(df, MatchSettings(n_chance=50))
    >>> t.localization_within.equals(pair_tables(df, n_chance=50).localization_within)
    True
    """
    require_comparable(df)
    # freed temporaries reused, not unmapped; the collector paused (iaa_frames.heap)
    with large_heap(pause_collector=True):
        corpus = prepare(df)
        with Jobs() as jobs:  # the search for copies runs beside the matching
            copies = jobs.submit(find_copies, corpus) if corpus.group is None else None
            tables = tables_of_corpus(
                corpus, settings.single(), Bars(settings.progress), IoUCache(), jobs=jobs
            )
            if copies is not None:  # items that look like copies: a warning names them
                warn_copies(corpus, found=copies.result(), stacklevel=2)
    return tables


#: The engine keywords of the tables at several thresholds (``thresholds`` replaces
#: ``match_threshold``).
SWEEP_KEYWORDS = ("distance", "n_chance", "overall", "seed", "progress")


def _pair_tables_by_threshold(
    df: pd.DataFrame,
    *,
    thresholds,
    settings: MatchSettings = DEFAULTS,
) -> list[PairTables]:
    """:func:`pair_tables_by_threshold` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    return list(iter_tables_from(df, thresholds, settings))


@validate_params({"thresholds": Thresholds()}, engine=False)
def pair_tables_by_threshold(
    df: pd.DataFrame,
    *,
    thresholds,
    distance="giou",
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> list[PairTables]:
    """The pair tables at each of several match thresholds, sharing what τ does not change.

    The frame is validated and prepared once, and the exact IoU, distance and similarity
    of an object pair involving a polygon, computed at one threshold, are reused at the
    others (one :class:`~iaa_frames.core.matching.pair_values.IoUCache` for every run). The
    matching, the chance sample
    (drawn with the same ``seed`` at every threshold) and everything computed from them
    depend on τ and are computed for each: the tables at τ are exactly those of
    ``pair_tables(df, match_threshold=τ, ...)``.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    thresholds : float or sequence of float
        The thresholds τ, each in [0, 1]; sorted and made unique
        (:func:`iaa_frames.settings.thresholds.check_thresholds`).
    distance, n_chance, overall, seed, progress
        As in :func:`pair_tables`; the progress bars of each threshold start with it
        ("τ = 0.5 (2/3): within-item matching").

    Returns
    -------
    list of PairTables
        One per threshold, in increasing order of τ (``tables.params["match_threshold"]``).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> ts = pair_tables_by_threshold(iaf.simulate(n_items=10, seed=0),
    ...                               thresholds=[0.7, 0.3], n_chance=100)
    >>> [t.params["match_threshold"] for t in ts]
    [0.3, 0.7]
    >>> len(ts[0].localization_within) >= len(ts[1].localization_within)
    True
    """
    settings = checked_settings(
        distance=distance, n_chance=n_chance, seed=seed, overall=overall, progress=progress
    )
    return _pair_tables_by_threshold(df, thresholds=thresholds, settings=settings)


def _iter_pair_tables(
    df: pd.DataFrame,
    *,
    thresholds,
    settings: MatchSettings = DEFAULTS,
):
    """:func:`iter_pair_tables` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    return iter_tables_from(df, thresholds, settings)


@validate_params({"thresholds": Thresholds()}, engine=False)
def iter_pair_tables(
    df: pd.DataFrame,
    *,
    thresholds,
    distance="giou",
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """The tables of :func:`pair_tables_by_threshold`, one threshold at a time (a
    generator: only one threshold's tables need to be in memory).

    The parameters are checked at the call, the frame is prepared on the first ``next()``.

    Yields
    ------
    PairTables
        In increasing order of τ.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> for t in iter_pair_tables(iaf.simulate(n_items=6, seed=0), thresholds=[0.5, 0.2],
    ...                           n_chance=50):
    ...     print(t.params["match_threshold"], len(t.localization_within) > 0)
    0.2 True
    0.5 True
    """
    settings = checked_settings(
        distance=distance, n_chance=n_chance, seed=seed, overall=overall, progress=progress
    )
    return _iter_pair_tables(df, thresholds=thresholds, settings=settings)


def iter_tables_from(df: pd.DataFrame, thresholds, settings: MatchSettings):
    """:func:`iter_pair_tables` of settings checked at the boundary (their threshold
    is replaced by each of ``thresholds``)."""
    taus, _ = check_thresholds(thresholds)
    require_comparable(df)
    corpus = prepare(df)
    if corpus.group is None:
        warn_copies(corpus, stacklevel=2)
    cache = IoUCache()  # a pair's IoU, distance and similarity do not depend on τ
    for k, tau in enumerate(taus):
        # one bar per stage and threshold, never nested: the threshold names the bars
        bars = Bars(settings.progress, prefix=threshold_prefix(tau, k, len(taus)))
        at = settings_of({**settings.as_kwargs(), "match_threshold": tau})
        # not across the yield: the caller's work is its own
        with large_heap(pause_collector=True):
            tables = tables_of_corpus(corpus, at, bars, cache)
        yield tables


def threshold_prefix(tau: float, k: int, n: int) -> str:
    """The name progress bars of threshold ``k`` of ``n`` start with ('' for one).

    Examples
    --------
    >>> threshold_prefix(0.5, 1, 3)
    'τ = 0.5 (2/3): '
    >>> threshold_prefix(0.5, 0, 1)
    ''
    """
    return f"τ = {tau:g} ({k + 1}/{n}): " if n > 1 else ""


def tables_of_corpus(
    corpus: Corpus,
    settings: MatchSettings,
    bars: Bars,
    cache: IoUCache,
    *,
    jobs: Jobs | None = None,
) -> PairTables:
    """The tables of :func:`pair_tables` of a prepared corpus at the one threshold of
    ``settings`` (progress bars from ``bars``, one per stage: :mod:`iaa_frames.progress`).

    ``cache`` serves every run (whole annotations, by class, chance); a pair's IoU,
    distance and similarity do not depend on τ, so it may be shared with runs at other
    thresholds.

    ``jobs`` (:class:`~iaa_frames.core.tables.jobs.Jobs`): with a corpus of boxes only, whose
    runs never touch ``cache``, the matching by class runs beside that of whole
    annotations, and the within rows and clusters beside the chance sample (the same
    tables, sooner); None: one step after the other.
    """
    if jobs is None or not corpus.boxes_only:  # polygon runs share the cache: in turn
        jobs = _IN_TURN
    tau, dist = float(settings.match_threshold), engine_distance(settings.distance)
    n_chance, overall, seed = settings.n_chance, settings.overall, settings.seed
    ann = corpus.annotations
    a, b = within_pairings(ann)
    pl, ll = labels_of_pairings(corpus, a, b)
    la, lb = to_label_slots(corpus, a[pl], b[pl], ll)
    work = int((ann.count[a] * ann.count[b]).sum())
    label_work = int((corpus.by_label.count[la] * corpus.by_label.count[lb]).sum())
    if (work + label_work) * BYTES_PER_PAIR >= 1 << 30:  # the pairs listed, not all pairs
        listed = candidate_count(corpus, ann, a, b, tau=tau, distance=dist)
        listed += candidate_count(corpus, corpus.by_label, la, lb, tau=tau, distance=dist)
        check_pair_memory(corpus, listed)  # before any pair is matched

    def one_run(slots, pa, pb, sets, advance):
        return run(
            corpus,
            slots,
            pa,
            pb,
            tau=tau,
            distance=dist,
            overall=overall,
            sets=sets,
            cache=cache,
            advance=advance,
        )

    def calls(fn, slots, pa, pb, *args):
        """The calls of ``fn`` on blocks of the pairings (pa, pb), and their first
        pairings: a pairing's matching does not depend on the others of its call."""
        cuts = blocks(slots.count[pa] * slots.count[pb], jobs.blocks)
        return [lo for lo, _ in cuts], [(fn, slots, pa[lo:hi], pb[lo:hi], *args) for lo, hi in cuts]

    def match(slots, pa, pb, sets=True, advance=None):
        first, todo = calls(one_run, slots, pa, pb, sets, advance)
        return joined(zip(first, jobs.run_all(todo), strict=True))

    def reachable(slots, pa, pb):
        _, todo = calls(lambda *x: can_match(corpus, *x, tau=tau), slots, pa, pb)
        return np.concatenate(jobs.run_all(todo)) if todo else np.zeros(0, dtype=bool)

    grids = {}  # the reach grids of the slots, built when first asked for

    def grid(slots):
        if "objects" not in grids:  # where each object's reach box lies, for both grids
            grids["objects"] = object_cells(corpus, tau)
        if id(slots) not in grids:
            cells = grids["objects"]
            grids[id(slots)] = None if cells is None else ReachGrid.of(corpus, slots, tau, cells)
            if id(ann) in grids and id(corpus.by_label) in grids:
                grids["objects"] = None  # both grids built: the objects' cells are freed
        return grids[id(slots)]

    def reachable_whole(pa, pb):
        """:func:`reachable` of whole annotations, the pairings their reach grid rules
        out left false without their object pairs (the same result: see
        :mod:`iaa_frames.core.chance.reach_grid`; 1M boxes: 4 in 5 pairings ruled out)."""
        pa, pb = np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64)
        whole = grid(ann)
        if whole is None:
            return reachable(ann, pa, pb)
        out = np.zeros(len(pa), dtype=bool)
        rows = np.flatnonzero(whole.may_match(pa, pb))
        out[rows] = reachable(ann, pa[rows], pb[rows])
        return out

    def reachable_by_label(pa, pb, lab):
        """:func:`reachable` of annotations restricted to a class: ruled out first by the
        grid of the whole annotations (their objects include the class's), then by that
        of the class slots."""
        pa, pb = np.asarray(pa, dtype=np.int64), np.asarray(pb, dtype=np.int64)
        lab = np.asarray(lab, dtype=np.int64)
        whole, by_class = grid(ann), grid(corpus.by_label)
        if whole is None or by_class is None:
            return reachable(corpus.by_label, *to_label_slots(corpus, pa, pb, lab))
        out = np.zeros(len(pa), dtype=bool)
        rows = np.flatnonzero(whole.may_match(pa, pb))
        la, lb = to_label_slots(corpus, pa[rows], pb[rows], lab[rows])
        keep = by_class.may_match(la, lb)
        out[rows[keep]] = reachable(corpus.by_label, la[keep], lb[keep])
        return out

    # the candidate pairs of every within pairing, whole and by class, are known up front
    with bars.bar(
        total=work + label_work, desc="within-item matching", unit="pairs", unit_scale=True
    ) as bar:
        advance = locked(bar.update)
        whole_first, todo = calls(one_run, ann, a, b, True, advance)
        label_first, label_todo = calls(one_run, corpus.by_label, la, lb, True, advance)
        done = jobs.run_all(todo + label_todo)
        whole = joined(zip(whole_first, done[: len(todo)], strict=True))
        # the matchings by class serve the within rows alone: their blocks are joined by
        # the within job, not here (1M boxes: 0.37 s, most of it new memory's first touch)
        by_label = list(zip(label_first, done[len(todo) :], strict=True))
        del done, todo, label_todo  # the whole matching joined, by class its blocks
    # the within rows and the clusters do not depend on the chance sample; the within job
    # also gives the classes' within distances, which size their chance strata (asked for
    # by the draw when it reaches them)
    label_sums = _Early()
    within_job = jobs.submit(_within_frames, corpus, whole, by_label, a, b, ann, pl, ll, label_sums)
    label_sums.job = within_job
    cluster_job = jobs.submit(
        clusters, len(corpus.objects), whole.pair_a, whole.pair_b, whole.pair_iou, corpus.annotator
    )
    counts = within_counts(corpus, a, b, whole, ll, label_sums)

    in_classes: list = []  # (a, b, Matched) of class slots matched for the classes' noise

    def class_distances(pa, pb, m, rows, lab):
        """The detection and overall distances of the chance rows (pairing ``rows[i]`` of
        the pairings (pa, pb), whose whole matching is ``m``; class ``lab[i]``), as the
        chance tables will hold them: they size the classes' strata by their noise."""
        det = class_detection(corpus, ann, pa, pb, m, rows, lab)["detection"]
        la_, lb_ = to_label_slots(corpus, pa[rows], pb[rows], lab)
        restricted = match(corpus.by_label, la_, lb_)
        in_classes.append((la_, lb_, restricted))  # the per-class chance rows reuse them
        return det, restricted.set_overall

    # the matchings of the within pairings are the within job's alone from here on: freed
    # when it is done, not held through the chance sample (1M boxes: 0.2 GB)
    del whole, by_label, a, b, pl, ll, la, lb
    sample = chance.draw(
        corpus,
        lambda pa, pb, sets: match(ann, pa, pb, sets=sets),
        counts,
        n_chance=int(n_chance),
        seed=int(seed),
        tau=tau,
        reachable=reachable_whole,
        label_reachable=reachable_by_label,
        bars=bars,
        run_units=lambda pa, pb, lab: class_units(
            corpus, ann, pa, pb, lab, tau=tau, distance=dist, cache=cache
        ),
        class_distances=class_distances,
    )
    grids.clear()  # the reach grids served the draw only
    d_idx, d_group, dla, dlb = label_chance_rows(corpus, sample)
    n_slots = corpus.by_label.empty + 1
    new = known_rows(in_classes, dla, dlb, n_slots) < 0
    with bars.bar(
        total=int((corpus.by_label.count[dla[new]] * corpus.by_label.count[dlb[new]]).sum()),
        desc="per-class chance matching",
        unit="pairs",
        unit_scale=True,
    ) as bar:
        d_restricted = matched_once(
            lambda x, y, **kw: match(corpus.by_label, x, y, **kw),
            in_classes,
            dla,
            dlb,
            n_slots,
            advance=locked(bar.update),
        )
    in_classes.clear()  # in the chance rows now

    sets_between, loc_between = between_frames(corpus, sample, d_idx, d_group, d_restricted)
    del d_idx, d_group, dla, dlb, d_restricted  # in the chance tables now
    aligned = None
    # a thin population (the engine may find fewer units still after post-stratification,
    # hence the margin: the units are drawn below twice the minimum, used below it)
    if int(loc_between["in_uniform"].sum()) < 2 * MIN_CHANCE_UNITS:
        aligned = aligned_units(corpus, settings, n_target=DEFAULT_N_ALIGNED)
    loc_within, sets_within = within_job.result()
    cluster = cluster_job.result()
    halves = (loc_within, loc_between, sets_within, sets_between)
    return assemble(corpus, sample, halves, cluster, settings, aligned=aligned)


def _within_frames(corpus: Corpus, whole, label_blocks: list, a, b, slots, pl, ll, early):
    """:func:`~iaa_frames.core.tables.steps.within_frames` of the whole annotations' matching
    and of the blocks of the matching by class (``(first pairing, Matched)``), joined
    here (:func:`~iaa_frames.core.tables.jobs.joined`): on the thread of the within job.
    First, the :func:`~iaa_frames.core.tables.steps.label_noise` of the classes, given to
    ``early`` (:class:`_Early`) as soon as it is known: the draw waits for it."""
    try:
        detection = class_detection(corpus, slots, a, b, whole, pl, ll)
        overall = np.concatenate([m.set_overall for _, m in label_blocks] or [np.zeros(0)])
        early.future.set_result(label_noise(corpus, detection["detection"], overall, ll))
    except BaseException as error:  # the draw must not wait for it forever
        early.future.set_exception(error)
        raise
    by_label = joined(label_blocks)
    label_blocks.clear()  # the blocks let go of as soon as they are joined
    return within_frames(corpus, whole, by_label, a, b, slots, pl, ll, detection)


class _Early:
    """The classes' within sums, given by the within job before its frames
    (``result()``; ``job``: that job, run here if it runs only when asked for)."""

    def __init__(self):
        self.future, self.job = Future(), None

    def result(self):
        if not self.future.done() and not isinstance(self.job, Future):
            self.job.result()  # a step that runs when its result is asked for
        return self.future.result()


#: Peak memory of the pair tables per candidate pair of the within-item matching (whole
#: annotations and by class), in bytes: measured on 10,000 annotators with 2 boxes each on
#: 50 images (8.0 million candidate pairs, 3.4 GB peak), rounded up.
BYTES_PER_PAIR = 450


def available_memory() -> int | None:
    """The memory the system can give (bytes: ``MemAvailable`` of ``/proc/meminfo``, else
    the free physical pages), or None when it does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def check_pair_memory(corpus: Corpus, n_pairs: int) -> None:
    """Refuse, before anything is matched, a corpus whose within-item matching would take
    more memory than the system has: agreement compares every two annotators' annotations
    on an item, so memory grows with the square of the annotations per item (10,000
    annotators with 2 boxes each on 50 images: 8 million pairs), and the process would be
    killed without a word.

    Raises
    ------
    NotComparableError
        Naming the pairs, the annotators, the largest item and the memory needed and
        available, with what to do.
    """
    need = n_pairs * BYTES_PER_PAIR
    if need < 1 << 30:  # under 1 GiB: never refused
        return
    free = available_memory()
    if free is None or need <= free:
        return
    per_item = np.bincount(corpus.item, minlength=len(corpus.items)) if len(corpus.item) else [0]
    raise NotComparableError(
        f"agreement would match {n_pairs:,} pairs of annotations ({len(corpus.annotators):,} "
        f"annotators, up to {int(np.max(per_item)):,} annotations on one item), about "
        f"{need / 2**30:.1f} GiB, more than the {free / 2**30:.1f} GiB of memory available: "
        "every two annotators' annotations on an item are compared, so memory grows with the "
        "square of the annotations per item. Compute agreement on a sample of the annotators "
        "(df[df['annotator'].isin(some)]) or on a machine with more memory"
    )


#: One step after the other, in the calling thread.
_IN_TURN = Jobs(0)


def label_chance_rows(corpus: Corpus, sample):
    """The per-class chance rows of detection and overall: which pairings of the chance
    sample (``d_idx``) are compared in which class (``d_group``), and the class slots of
    both sides (``dla``, ``dlb``) to match them in.

    With an enumerated population every pairing counts for every class either side
    contains; with a drawn one, the uniform stratum's pairings count for every class
    either side contains and the draws of a class's stratum for that class (the
    stratum tops up the uniform one: the two are one uniform sample of the class's
    pairings, each pairing once).
    """
    if sample.exact:
        d_idx, d_group = labels_of_pairings(corpus, sample.a, sample.b)
    else:
        by_key = np.argsort(sample.key)
        _, u_key = sample.draws.keys(chance.SETS_UNIFORM)
        u_idx = by_key[np.searchsorted(sample.key, u_key, sorter=by_key)]
        u, u_group = labels_of_pairings(corpus, sample.a[u_idx], sample.b[u_idx])
        d_group, d_key = sample.draws.keys(chance.SETS_LABEL)
        d_idx = np.concatenate(
            [u_idx[u], by_key[np.searchsorted(sample.key, d_key, sorter=by_key)]]
        )
        d_group = np.concatenate([u_group, d_group])
    dla, dlb = to_label_slots(corpus, sample.a[d_idx], sample.b[d_idx], d_group)
    return d_idx, d_group, dla, dlb


def assemble(
    corpus: Corpus,
    sample,
    halves,
    cluster: np.ndarray,
    settings: MatchSettings,
    *,
    aligned: pd.DataFrame | None = None,
) -> PairTables:
    """The :class:`PairTables` of the four halves ``(localization_within,
    localization_between, sets_within, sets_between)`` of a corpus, with its units (the
    cluster of every object), coverage, pooled chance baseline, aligned chance units
    (``aligned``; None: none) and parameters; shared by the in-memory and the dask
    pipelines."""
    aligned = empty_aligned() if aligned is None else aligned
    loc_within, loc_between, sets_within, sets_between = halves
    pooled, source = pooled_baseline(corpus, loc_within, loc_between, sample)
    units = pd.DataFrame(
        {
            "item": corpus.item,
            "annotator": corpus.annotator,
            "label": corpus.label,
            "cluster": cluster,
        }
    )
    ann = corpus.annotations
    return PairTables(
        corpus=corpus,
        localization_within=loc_within,
        localization_between=loc_between,
        sets_within=sets_within,
        sets_between=sets_between,
        units=units,
        coverage=pd.DataFrame({"item": ann.item[:-1], "annotator": ann.annotator[:-1]}),
        localization_pooled=pooled,
        label_source=source,
        params=table_params(corpus, sample, settings),
        localization_aligned=aligned,
    )


def table_params(corpus: Corpus, sample, settings: MatchSettings) -> dict:
    """``PairTables.params``: the engine parameters the tables were built with, the
    corpus's normalization and whether the chance population was enumerated."""
    return {
        "distance": get_distance(settings.distance).name,
        "match_threshold": float(settings.match_threshold),
        "n_chance_target": int(settings.n_chance),
        "overall": settings.overall,
        "seed": int(settings.seed),
        "normalization": corpus.normalization,
        "chance_population": "enumerated" if sample.exact else "sampled",
    }


def named(tables: PairTables, frame: pd.DataFrame) -> pd.DataFrame:
    """Replace codes by names, object indices by object ids."""
    c = tables.corpus
    labels = np.append(c.labels, ALL)  # code -1 -> "(all)"
    ids = c.objects["object_id"].to_numpy()
    out = {}
    for col in frame.columns:
        v = frame[col].to_numpy()
        if col.startswith("item"):
            out[col] = c.items[v]
        elif col.startswith("annotator"):
            out[col] = c.annotators[v]
        elif col.startswith("label"):
            out[col] = labels[v]
        elif col.startswith("object"):
            out[col.replace("object", "object_id")] = ids[v]
        else:
            out[col] = v
    return pd.DataFrame(out)


def within(
    df: pd.DataFrame,
    *,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """Matched within-item object pairs, one row per pair.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    distance, match_threshold, n_chance, seed, overall, progress
        Keyword-only parameters of :func:`pair_tables` (``distance``,
        ``match_threshold``, ...).

    Returns
    -------
    pandas.DataFrame
        Columns ``item, annotator_a, annotator_b, label_a, label_b, object_id_a,
        object_id_b, iou, distance``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> w = within(iaf.simulate(n_items=5, seed=0), n_chance=50)
    >>> list(w.columns)
    ['item', 'annotator_a', 'annotator_b', 'label_a', 'label_b', 'object_id_a', 'object_id_b', 'iou', 'distance']
    """
    t = pair_tables(df, **engine_kwargs(locals()))
    return named(t, t.localization_within)


def between(
    df: pd.DataFrame,
    *,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> pd.DataFrame:
    """The between-item (chance) object pairs, one row per distinct matched pair.

    Built by the same matcher, with the same threshold, as :func:`within`, on pairings of
    the annotation of item i by annotator a and of item j by annotator b (i != j,
    a != b): all of them for a small corpus, otherwise uniform samples without
    replacement (see :mod:`iaa_frames.core.chance`). The ``in_*`` flags say which strata drew
    the row (:class:`PairTables`).

    Parameters
    ----------
    df : pandas.DataFrame
    distance, match_threshold, n_chance, seed, overall, progress
        Keyword-only parameters of :func:`pair_tables`.

    Returns
    -------
    pandas.DataFrame
        Columns ``item_a, item_b, annotator_a, annotator_b, label_a, label_b,
        object_id_a, object_id_b, iou, distance, in_uniform, in_annotator_a,
        in_annotator_b, in_pair, in_label``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> b = between(iaf.simulate(n_items=10, seed=0), n_chance=50)
    >>> bool((b["item_a"] != b["item_b"]).all())
    True
    """
    t = pair_tables(df, **engine_kwargs(locals()))
    return named(t, t.localization_between)
