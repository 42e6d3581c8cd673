"""Views of the engine's cells: the rows behind each sigma cell (:func:`cell_distances`)
and the annotator x annotator figures (:func:`pairwise`).

Over 400 lines: :func:`group_cells` (the notes and chance sources of the cells of pairs,
shared with :mod:`iaa_frames.core.engine.kind_pairs`) and :func:`subset_layout` (the pairs
among some annotators only, so that no table grows with the square of a crowd) belong
with the pairwise table they make, and :func:`pairwise` writes out the engine parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.tables.pairs import PairTables, iter_tables_from, pair_tables_from
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    checked_settings,
    engine_kwargs,
)
from iaa_frames.settings.thresholds import concat_thresholds, with_threshold
from iaa_frames.settings.validation import ANNOTATORS, validate_params
from iaa_frames.stats.cell_intervals import CI_LEVEL, cell_intervals, interval_attrs
from iaa_frames.stats.intervals import MIN_CI_ITEMS, widen_rare_events

from .assemble import (
    MIN_ALPHA_UNITS,
    MIN_WITHIN_UNITS,
    RARE_EVENTS,
    SETS,
    borrowed_sources,
    component_cells,
    label_chance_notes,
    name_order,
    one_class_notes,
    package_version,
    whole_population_notes,
)
from .cells import (
    NO_VARIATION,
    SIGMA_COMPONENTS,
    CellLayout,
    GroupedPairLayout,
    check_component,
    check_tables,
    label_cell,
)
from .credit import unit_credits
from .result import MEASURES, NO_MATCH_NOTE, build_pairwise, interval_notes, notes
from .rows import sets_membership


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
        :mod:`iaa_frames.core.tables.pairs`).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> d = cell_distances(pair_tables(simulate(n_items=10, seed=0), n_chance=100),
    ...                    "localization", by="label")
    >>> sorted(d["sample"].unique())
    ['between', 'within']
    """
    check_tables(tables)
    check_component(component, SIGMA_COMPONENTS)
    if by not in (None, "label", "annotator"):
        raise ParameterError(f"by must be None, 'label' or 'annotator'; got {by!r}")
    corpus = tables.corpus
    layout = CellLayout(len(corpus.labels), len(corpus.annotators))
    cells = component_cells(tables, layout, component)
    G = layout.n_groups
    wanted = (
        [0]
        if by is None
        else ([lc * G for lc in range(layout.n_labels + 1)] if by == "label" else list(range(G)))
    )
    label_names = np.array([ALL] + [str(x) for x in corpus.labels], dtype=object)
    annotator_names = np.array([ALL] + [str(x) for x in corpus.annotators], dtype=object)
    parts = []
    for sample, members, values in (
        ("within", cells.within_members, cells.within_distance),
        ("between", cells.between_members, cells.between_distance),
    ):
        sub = members[:, wanted].tocoo()
        cell = np.asarray(wanted)[sub.col]
        parts.append(
            pd.DataFrame(
                {
                    "label": label_names[cell // G],
                    "annotator": annotator_names[cell % G],
                    "sample": sample,
                    "distance": values[sub.row],
                    "weight": sub.data if sample == "between" else np.ones(len(sub.row)),
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    for col in ("label", "annotator", "sample"):
        out[col] = out[col].astype(str)
    return out


#: Annotators from which :func:`pairwise_from_tables` of every annotator is refused (a
#: table of 1,000 x 1,000 pairs per class): ``annotators=`` chooses whose pairs to compute.
MAX_PAIRWISE_ANNOTATORS = 1000


@dataclass(frozen=True)
class GroupCells:
    """The cells ``pick`` of one component (:func:`group_cells`): the engine's cells
    (for the interval), the agreement (NaN where ``note`` says why), the note (also on a
    defined cell whose interval is not reported: fewer than ``MIN_CI_ITEMS`` items), the
    chance source and the counts of within and chance units."""

    cells: object
    agreement: np.ndarray
    note: np.ndarray
    source: np.ndarray
    n_units: np.ndarray
    n_chance: np.ndarray
    #: detection's cells of the same layout, for overall: its rare events are detection's
    #: matches (:func:`iaa_frames.stats.intervals.widen_rare_events`); None otherwise
    matches: object = None


def group_cells(tables: PairTables, layout: CellLayout, component: str, pick) -> GroupCells:
    """The agreement of the cells ``pick`` of a pairwise ``layout`` (pairs of annotators,
    or of kinds of raters) with the notes of the cells it leaves undefined (too few units
    or chance units, no variation, the whole population's notes; for classification the
    few-disagreements notes) and the chance source of each (borrowed or its own).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> layout = CellLayout(len(t.corpus.labels), len(t.corpus.annotators), pairwise=True)
    >>> got = group_cells(t, layout, "detection", slice(0, layout.n_groups))
    >>> got.agreement.shape == got.note.shape == (layout.n_groups,)
    True
    """
    # detection's cells serve overall too (its rare events and its note): both on one
    # membership of their within rows, as agreement() builds them
    sets = sets_membership(tables, layout) if component in SETS else None
    cells = component_cells(tables, layout, component, sets_within=sets)
    _, expected, value = cells.statistics()
    n_units, n_chance = cells.counts()
    sigma = MEASURES[component] == "sigma"
    note = notes(
        n_units=n_units[pick],
        n_chance_units=n_chance[pick],
        expected=expected[pick],
        min_units=MIN_WITHIN_UNITS if sigma else MIN_ALPHA_UNITS,
        min_chance=MIN_CHANCE_UNITS,
        min_expected=NO_VARIATION,
    )
    note = whole_population_notes(tables, note)
    matches = None
    if component in SETS:
        # as agreement() has it: no match at all, within or by chance, is said; overall
        # (its figure then rests on overlaps below the threshold alone) with detection's
        # note, and its rare events are detection's matches
        matches = (
            cells
            if component == "detection"
            else component_cells(tables, layout, "detection", sets_within=sets)
        )
        silent = (note == "") & (np.asarray(matches.matched)[pick] == 0)
        note = np.where(silent, NO_MATCH_NOTE, note)
    if component == "classification":
        every = np.full(layout.n_cells, "", dtype=object)
        every[pick] = note
        note = label_chance_notes(cells.few_disagreements_notes(every)[pick])
        note = one_class_notes(tables, note)
    agreement = np.where(note == "", value[pick], np.nan)
    # a defined cell on fewer than MIN_CI_ITEMS items gets no interval (cell_intervals):
    # it says so, as agreement()'s cells do (an empty note beside a NaN interval said
    # nothing: pairs of a sparse crowd, who share two or three items)
    note = interval_notes(note, n_items=cells.item_counts()[pick], min_items=MIN_CI_ITEMS)
    base = tables.params.get("chance_population", "sampled")
    source = borrowed_sources(cells, np.full(layout.n_cells, base, dtype=object))[pick]
    return GroupCells(cells, agreement, note, source, n_units[pick], n_chance[pick], matches)


def subset_layout(tables: PairTables, annotators) -> tuple[GroupedPairLayout, np.ndarray]:
    """The pairwise layout of the pairs among ``annotators`` only (names), and their codes
    in the natural order of their names: the pair of the i-th and j-th of them is the
    group ``i * n + j`` (i < j), every pair with another annotator one group left out.
    Their cells are those of the layout of every annotator, and cost ``n ** 2`` groups,
    not the square of the corpus's annotators.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(simulate(n_items=6, seed=0), n_chance=50)
    >>> layout, codes = subset_layout(t, ["C", "A"])
    >>> layout.n_groups, [str(t.corpus.annotators[c]) for c in codes]
    (5, ['A', 'C'])
    """
    names = [str(x) for x in tables.corpus.annotators]
    position = {n: i for i, n in enumerate(names)}
    wanted = [str(a) for a in annotators]
    missing = [a for a in wanted if a not in position]
    if missing:
        raise ParameterError(f"annotators names no annotator of the corpus: {missing[:10]}")
    if len(set(wanted)) < 2:
        raise ParameterError(f"annotators must name at least two annotators; got {wanted}")
    chosen = np.array(sorted({position[a] for a in wanted}), dtype=np.int64)
    chosen = chosen[name_order(np.asarray(names, dtype=object)[chosen])[1:] - 1]
    n = len(chosen)
    code = np.full(len(names), n, dtype=np.int64)  # the rest: code n
    code[chosen] = np.arange(n)
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    pair_group = np.where((i < n) & (j < n), np.minimum(i, j) * n + np.maximum(i, j), n * n)
    layout = GroupedPairLayout(
        len(tables.corpus.labels),
        len(names),
        pairwise=True,
        code=code,
        pair_group=pair_group,
        n_pair_groups=n * n + 1,
    )
    return layout, chosen


def pairwise_from_tables(
    tables: PairTables,
    *,
    component: str = "localization",
    label: str = ALL,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = None,
    annotators=None,
):
    """Annotator x annotator agreement of one component from computed tables.

    Parameters
    ----------
    tables : PairTables
    component : str, default "localization"
        One of "detection", "classification", "localization", "overall".
    label : str, default "(all)"
        "(all)" or a class.
    n_boot : int, default 200
        Cluster-bootstrap replicates over items for the ``ci_low`` / ``ci_high``
        coordinates (the interval of :func:`iaa_frames.agreement`; 0: none).
    seed : int, optional
        Seed of the bootstrap (default: the seed the tables were drawn with, as
        :func:`pairwise` uses one seed for both).
    annotators : sequence of str, optional
        The annotators whose pairs are computed (default: all). Their cells are those of
        the table of every annotator; the cost grows with the square of their number.
        A corpus of more than :data:`MAX_PAIRWISE_ANNOTATORS` annotators needs them.

    Returns
    -------
    xarray.DataArray
        See :func:`pairwise`.

    Raises
    ------
    ParameterError
        More than :data:`MAX_PAIRWISE_ANNOTATORS` annotators and no ``annotators``; an
        ``annotators`` naming fewer than two annotators or one not in the corpus.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> pairwise_from_tables(t, component="detection").dims
    ('annotator_a', 'annotator_b')
    >>> pairwise_from_tables(t, annotators=["A", "B"], n_boot=0).shape
    (2, 2)
    """
    check_tables(tables)
    check_component(component)
    seed = int(tables.params.get("seed", 0)) if seed is None else seed
    lcell = label_cell(tables, label)
    corpus = tables.corpus
    n_all = len(corpus.annotators)
    if annotators is None:
        if n_all > MAX_PAIRWISE_ANNOTATORS:
            raise ParameterError(
                f"a table of every pair of {n_all:,} annotators would hold "
                f"{n_all * n_all:,} cells per class: pass annotators=[...] (at most "
                f"{MAX_PAIRWISE_ANNOTATORS:,} of them, e.g. those of most items)"
            )
        layout = CellLayout(len(corpus.labels), n_all, pairwise=True)
        order = name_order(corpus.annotators)[1:] - 1
    else:
        layout, order = subset_layout(tables, annotators)
    A = len(order)
    G = layout.n_groups
    pick = slice(lcell * G, lcell * G + A * A)
    got = group_cells(tables, layout, component, pick)
    value, note, source = got.agreement, got.note, got.source
    low, high = component_intervals(
        tables,
        got.cells,
        value,
        pick,
        n_boot=n_boot,
        seed=seed,
        component=component,
        matches=got.matches,
    )
    upper = np.triu(np.ones((A, A), dtype=bool), k=1)
    square = {}
    for name, v in (
        ("agreement", value),
        ("ci_low", low),
        ("ci_high", high),
        ("n_units", got.n_units),
        ("n_chance", got.n_chance),
        ("note", note),
        ("chance_source", source),
    ):
        m = v.reshape(A, A)
        square[name] = np.where(upper, m, m.T)
    for name in ("agreement", "ci_low", "ci_high"):
        square[name][np.diag_indices(A)] = np.nan
    square["note"][np.diag_indices(A)] = "not applicable"
    for name in ("n_units", "n_chance"):
        square[name][np.diag_indices(A)] = np.nan
    if annotators is None:  # codes in name order; a subset's are in that order already
        square = {k: v[order][:, order] for k, v in square.items()}
    names = [str(x) for x in np.asarray(corpus.annotators, dtype=object)[order]]
    attrs = {
        "component": component,
        "measure": MEASURES[component],
        "label": str(label),
        **tables.params,
        **interval_attrs(n_boot=n_boot, seed=seed, ci_method="bca"),
        "iaa_frames_version": package_version(),
    }
    if annotators is not None:
        attrs["n_annotators_left_out"] = n_all - A
    return with_threshold(
        build_pairwise(square, annotators=names, attrs=attrs), tables.params["match_threshold"]
    )


def component_intervals(
    tables: PairTables, cells, value, pick, *, n_boot: int, seed: int, component=None, matches=None
):
    """The bootstrap interval of the cells ``pick`` (agreement ``value``, NaN where
    undefined), as :func:`iaa_frames.agreement` takes it (BCa with the corrected width,
    :func:`iaa_frames.stats.cell_intervals.cell_intervals`), widened as its cells are where
    the within units of a detection or overall cell hold few matches, or those of a
    classification cell few label disagreements
    (:func:`iaa_frames.stats.intervals.widen_rare_events`; ``component`` names the
    component of ``cells``; ``matches``: detection's cells of the same layout, whose
    matches are the rare events of overall, as in :func:`iaa_frames.agreement`).

    Without the widening, a pair of annotators none of whose items holds a match (two
    annotators who never looked at the pictures, whose unrelated objects meet by luck in
    about 1 % of pairings) had the same within mean in every replicate, and its interval,
    from the chance mean's spread alone, lay wholly below 0 in about half of such pairs.
    Overall's events were every item with an overlap, so its widening did not fire: 15 of
    240 blind pairs' overall intervals lay wholly below 0 (40 corpora of 4 image-blind
    annotators, ``tests/core/engine/test_audit_blind_intervals.py``).
    """
    corpus = tables.corpus

    def statistics(k):
        k = np.asfortranarray(k, dtype=np.float64)
        return {"agreement": cells.statistics(k)[2][..., pick]}

    variance = getattr(cells, "pair_variance", None)
    item_counts = cells.item_counts()
    out = cell_intervals(
        statistics,
        {"agreement": value},
        n_items=len(corpus.items),
        cell_items={"agreement": item_counts[pick]},
        n_boot=n_boot,
        seed=seed,
        clusters=corpus.group_codes(),
        n_clusters=corpus.n_groups,
        pair_variance=None if variance is None else {"agreement": variance()[pick]},
        width=cells.within.matrix.shape[1],
    )
    low, high = out["agreement"]
    if component not in RARE_EVENTS or not n_boot:
        return low, high
    # every cell of the layout (the events are counted over all its columns), ``pick`` kept
    full_low = np.full((1, cells.n_cells), np.nan)
    full_high = np.full((1, cells.n_cells), np.nan)
    full_low[0, pick], full_high[0, pick] = low, high
    expected = np.asarray(cells.statistics()[1], dtype=np.float64)[None, :]
    parts = {component: cells}
    if component == "overall" and matches is not None:
        parts["detection"] = matches
    full_low, full_high = widen_rare_events(
        full_low,
        full_high,
        parts,
        {
            "expected": expected,
            "n_items": np.asarray(item_counts, dtype=np.float64)[None, :],
            "unit_credit": unit_credits(tables),
        },
        [component],
        [component],
        level=CI_LEVEL,
        clusters=corpus.group_codes(),
    )
    return full_low[0, pick], np.minimum(full_high[0, pick], 1.0)


@validate_params({"annotators": ANNOTATORS}, engine=False)
def pairwise(
    df: pd.DataFrame,
    *,
    component: str = "localization",
    label: str = ALL,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
    n_boot: int = DEFAULT_N_BOOT,
    annotators=None,
):
    """Annotator x annotator agreement of one component.

    Cell (a, b) keeps only the within and chance rows of annotators a and b (a cell with
    fewer than 30 chance units of its own borrows every annotator's,
    :mod:`iaa_frames.core.engine.borrow`). The table is symmetric; the diagonal is NaN ("not
    applicable").

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
    n_boot : int, default 200
        Cluster-bootstrap replicates for the ``ci_low`` / ``ci_high`` coordinates (0: none).
    annotators : sequence of str, optional
        Whose pairs (default: all; needed beyond :data:`MAX_PAIRWISE_ANNOTATORS`
        annotators): their cells are those of the table of every annotator.

    Returns
    -------
    xarray.DataArray
        Dims ``(annotator_a, annotator_b)``, annotators in natural order of names, with
        ``ci_low``, ``ci_high``, ``n_units``, ``n_chance``, ``note`` (why the agreement is
        NaN, or why a defined cell has no interval: "interval not reported: rests on k
        items (fewer than 4)", as in :func:`iaa_frames.agreement`) and ``chance_source``
        as coordinates.

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
    check_component(component)
    settings = checked_settings(**engine_kwargs(locals()))
    if not settings.several:
        tables = pair_tables_from(df, settings)
        return pairwise_from_tables(
            tables,
            component=component,
            label=label,
            n_boot=n_boot,
            seed=seed,
            annotators=annotators,
        )
    every = iter_tables_from(df, settings.thresholds, settings)
    return concat_thresholds(
        [
            pairwise_from_tables(
                t, component=component, label=label, n_boot=n_boot, seed=seed, annotators=annotators
            )
            for t in every
        ]
    )
