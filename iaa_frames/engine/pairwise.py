"""Views of the engine's cells: the rows behind each sigma cell (:func:`cell_distances`)
and the annotator x annotator figures (:func:`pairwise`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.chance import MIN_CHANCE_UNITS
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    checked_settings,
    engine_kwargs,
)
from iaa_frames.settings.thresholds import concat_thresholds, with_threshold
from iaa_frames.settings.validation import validate_params
from iaa_frames.stats.cell_intervals import cell_intervals, interval_attrs
from iaa_frames.tables.pairs import PairTables, iter_tables_from, pair_tables_from

from .assemble import (
    MIN_ALPHA_UNITS,
    MIN_WITHIN_UNITS,
    borrowed_sources,
    component_cells,
    label_chance_notes,
    name_order,
    package_version,
    whole_population_notes,
)
from .cells import (
    NO_VARIATION,
    SIGMA_COMPONENTS,
    CellLayout,
    check_component,
    check_tables,
    label_cell,
)
from .result import MEASURES, build_pairwise, notes


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
        :mod:`iaa_frames.tables.pairs`).

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.tables.pairs import pair_tables
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


def pairwise_from_tables(
    tables: PairTables,
    *,
    component: str = "localization",
    label: str = ALL,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = None,
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

    Returns
    -------
    xarray.DataArray
        See :func:`pairwise`.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> from iaa_frames.tables.pairs import pair_tables
    >>> t = pair_tables(simulate(n_items=20, seed=0), n_chance=200)
    >>> pairwise_from_tables(t, component="detection").dims
    ('annotator_a', 'annotator_b')
    """
    check_tables(tables)
    check_component(component)
    seed = int(tables.params.get("seed", 0)) if seed is None else seed
    lcell = label_cell(tables, label)
    corpus = tables.corpus
    A = len(corpus.annotators)
    layout = CellLayout(len(corpus.labels), A, pairwise=True)
    cells = component_cells(tables, layout, component)
    _, expected, value = cells.statistics()
    n_units, n_chance = cells.counts()
    pick = slice(lcell * layout.n_groups, (lcell + 1) * layout.n_groups)
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
    if component == "classification":
        every = np.full(layout.n_cells, "", dtype=object)
        every[pick] = note
        note = label_chance_notes(cells.few_disagreements_notes(every)[pick])
    value = np.where(note == "", value[pick], np.nan)
    base = tables.params.get("chance_population", "sampled")
    source = borrowed_sources(cells, np.full(layout.n_cells, base, dtype=object))
    low, high = component_intervals(tables, cells, value, pick, n_boot=n_boot, seed=seed)
    upper = np.triu(np.ones((A, A), dtype=bool), k=1)
    square = {}
    for name, v in (
        ("agreement", value),
        ("ci_low", low),
        ("ci_high", high),
        ("n_units", n_units[pick]),
        ("n_chance", n_chance[pick]),
        ("note", note),
        ("chance_source", source[pick]),
    ):
        m = v.reshape(A, A)
        square[name] = np.where(upper, m, m.T)
    for name in ("agreement", "ci_low", "ci_high"):
        square[name][np.diag_indices(A)] = np.nan
    square["note"][np.diag_indices(A)] = "not applicable"
    for name in ("n_units", "n_chance"):
        square[name][np.diag_indices(A)] = np.nan
    order = name_order(corpus.annotators)[1:] - 1
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
    return with_threshold(
        build_pairwise(square, annotators=names, attrs=attrs), tables.params["match_threshold"]
    )


def component_intervals(tables: PairTables, cells, value, pick, *, n_boot: int, seed: int):
    """The bootstrap interval of the cells ``pick`` (agreement ``value``, NaN where
    undefined), as :func:`iaa_frames.agreement` takes it (BCa with the corrected width,
    :func:`iaa_frames.stats.cell_intervals.cell_intervals`)."""
    corpus = tables.corpus

    def statistics(k):
        k = np.asfortranarray(k, dtype=np.float64)
        return {"agreement": cells.statistics(k)[2][..., pick]}

    variance = getattr(cells, "pair_variance", None)
    out = cell_intervals(
        statistics,
        {"agreement": value},
        n_items=len(corpus.items),
        cell_items={"agreement": cells.item_counts()[pick]},
        n_boot=n_boot,
        seed=seed,
        clusters=corpus.group_codes(),
        n_clusters=corpus.n_groups,
        pair_variance=None if variance is None else {"agreement": variance()[pick]},
        width=cells.within.matrix.shape[1],
    )
    return out["agreement"]


@validate_params(engine=False)
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
):
    """Annotator x annotator agreement of one component.

    Cell (a, b) keeps only the within and chance rows of annotators a and b (a cell with
    fewer than 30 chance units of its own borrows every annotator's,
    :mod:`iaa_frames.engine.borrow`). The table is symmetric; the diagonal is NaN ("not
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

    Returns
    -------
    xarray.DataArray
        Dims ``(annotator_a, annotator_b)``, annotators in natural order of names, with
        ``ci_low``, ``ci_high``, ``n_units``, ``n_chance``, ``note`` and
        ``chance_source`` as coordinates.

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
            tables, component=component, label=label, n_boot=n_boot, seed=seed
        )
    every = iter_tables_from(df, settings.thresholds, settings)
    return concat_thresholds(
        [
            pairwise_from_tables(t, component=component, label=label, n_boot=n_boot, seed=seed)
            for t in every
        ]
    )
