# Over 400 lines: the driver's steps of the dask path (prepare, run the partitions, chance tables),
# in order.
"""The pair tables of a dask DataFrame: the steps of
:func:`iaa_frames.core.tables.pairs.pair_tables`, spread over partitions.

1. Every partition is validated and summarized (:func:`~iaa_frames.dask.partition.summarize`);
   the driver makes the corpus-wide codes from the summaries.
2. When an item's rows lie in several partitions, the frame is shuffled on ``item``
   (a frame written by :func:`iaa_frames.to_parquet` needs no shuffle: an item lies in
   one file).
3. Every partition runs the within-item matching (:func:`~iaa_frames.dask.partition.within_tables`)
   and sends back its within tables and per-object arrays (boxes, areas, codes); its
   polygons stay on the worker.
4. The driver assembles the corpus-wide index and draws the chance sample with
   :func:`iaa_frames.core.chance.draw`, the same function and the same seed as in memory; the
   pairings it draws are matched by the same pipeline, with the polygons of their
   objects fetched from the partitions that hold them.

The tables are those :func:`iaa_frames.core.tables.pairs.pair_tables` gives ``ddf.compute()``: same
codes, same object order, same rows in the same order, same chance sample.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from iaa_frames.core import chance
from iaa_frames.core.chance import WithinCounts
from iaa_frames.core.matching.checked import engine_distance
from iaa_frames.core.matching.pipeline import can_match, run
from iaa_frames.core.matching.units import class_units
from iaa_frames.core.tables.comparability import require_comparable
from iaa_frames.core.tables.pairs import (
    PairTables,
    assemble,
    between_frames,
    label_chance_rows,
    to_label_slots,
)
from iaa_frames.core.tables.steps import class_detection
from iaa_frames.errors import InvalidAnnotationError, ParameterError, RepairedGeometryWarning
from iaa_frames.progress import tqdm
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params

from .geometry import GeometryStore, run_fetched
from .index import codes as make_codes
from .index import index_corpus
from .partition import Codes, rows_with_ids, summarized, within_order, within_tables

__all__ = [
    "Prepared",
    "active_client",
    "chance_tables",
    "is_dask_frame",
    "merge_counts",
    "pair_tables",
    "prepare",
    "run_partitions",
    "shared_value",
]


def is_dask_frame(obj) -> bool:
    """Whether ``obj`` is a dask DataFrame (checked without importing dask).

    Examples
    --------
    >>> import pandas as pd
    >>> is_dask_frame(pd.DataFrame())
    False
    """
    module = type(obj).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr") and type(obj).__name__ == "DataFrame"


def _require_dask(ddf):
    if not is_dask_frame(ddf):
        raise ParameterError(
            f"ddf must be a dask DataFrame; got {type(ddf).__name__} (for a pandas "
            "DataFrame, iaa_frames.agreement and iaa_frames.pair_tables, which take either)"
        )
    missing = [c for c in ("item", "annotator") if c not in ddf.columns]
    if missing:
        from iaa_frames.errors import SchemaError

        raise SchemaError(
            f"the frame lacks the required column(s) {missing}; found {list(ddf.columns)}"
        )


def active_client():
    """The dask.distributed client that ``dask.compute`` would use now, if any."""
    from dask.base import get_scheduler

    owner = getattr(get_scheduler(), "__self__", None)
    return owner if type(owner).__name__ == "Client" else None


def _compute(tasks, desc, progress):
    """Results of a list of tasks, in order, with a progress bar over them when asked.

    On a distributed cluster every result is brought to the driver as soon as its task
    finishes and released on the worker, so that results never pile up in the workers'
    memory while the other partitions run.
    """
    import dask

    if not tasks:
        return []
    client = active_client()
    if client is None:
        if not progress:
            return list(dask.compute(*tasks))
        from dask.callbacks import Callback

        with tqdm(total=len(tasks), desc=desc, unit="partition", delay=0) as bar:
            names = {t.key for t in tasks}

            class _Bar(Callback):
                def _posttask(self, key, result, dsk, state, worker_id):
                    if key in names:
                        bar.update(1)

            with _Bar():
                return list(dask.compute(*tasks))
    from distributed import as_completed

    futures = client.compute(tasks)
    where = {id(f): k for k, f in enumerate(futures)}
    out = [None] * len(futures)
    with tqdm(
        total=len(futures), desc=desc, unit="partition", delay=0, disable=not progress
    ) as bar:
        for future in as_completed(futures):
            out[where[id(future)]] = future.result()
            future.release()
            bar.update(1)
    del futures
    return out


def merge_counts(parts) -> WithinCounts:
    """The partitions' shares of :class:`~iaa_frames.core.chance.WithinCounts`, added up."""
    return WithinCounts(
        **{
            f: sum(getattr(p["counts"], f) for p in parts)
            for f in WithinCounts.__dataclass_fields__
        }
    )


def _assemble_within(parts, position, offsets):
    """The partitions' within tables as one, in corpus-wide object indices and in the
    in-memory row order; the partitions' outputs are emptied as they are used, so that
    at most two copies of the tables exist at once."""
    counts = merge_counts(parts)
    loc_parts, sets_parts, first = [], [], []
    for k, p in enumerate(parts):
        base = offsets[k]
        loc = p.pop("localization_within")
        loc_parts.append(
            loc.assign(
                object_a=position[base + loc["object_a"].to_numpy()],
                object_b=position[base + loc["object_b"].to_numpy()],
            )
        )
        del loc
        sets_parts.append(p.pop("sets_within"))
        first.append(position[base + np.asarray(p.pop("first"), dtype=np.int64)])
    loc = pd.concat(loc_parts, ignore_index=True)
    del loc_parts
    sets = pd.concat(sets_parts, ignore_index=True)
    del sets_parts
    loc, sets = within_order(loc, sets)
    first = np.concatenate(first) if first else np.zeros(0, np.int64)
    cluster_of = np.empty(len(first), dtype=np.int64)
    cluster_of[position] = np.unique(first, return_inverse=True)[1].ravel()
    return loc, sets, cluster_of, counts


def _items_split(summaries) -> bool:
    """Whether some item has rows in two partitions."""
    names = [s["items"] for s in summaries if len(s["items"])]
    if len(names) < 2:
        return False
    return bool(pd.Series(np.concatenate(names), dtype=object).duplicated().any())


def _check_object_ids(ddf, summaries) -> None:
    """Object ids given in the frame must be unique over all partitions (as
    :func:`iaa_frames.validate` requires of a whole frame): hashes first, then the rows
    of the repeated hashes, fetched from the partitions."""
    hashes = [s["id_hash"] for s in summaries if s["id_hash"] is not None]
    if not hashes:
        return
    h = np.sort(np.concatenate(hashes))
    repeated = np.unique(h[1:][h[1:] == h[:-1]])
    del h
    if not len(repeated):
        return
    from dask import delayed

    rows = pd.concat(
        _compute(
            [delayed(rows_with_ids)(p, repeated) for p in ddf.to_delayed()], "object ids", None
        ),
        ignore_index=True,
    )
    dup = rows[rows["object_id"].duplicated(keep=False)]
    if not len(dup):  # hash collisions only
        return
    shown = "; ".join(
        f"{r.object_id!r} (item {r.item!r}, annotator {r.annotator!r})"
        for r in dup.head(5).itertuples()
    )
    raise InvalidAnnotationError(
        f"{len(dup)} object(s) share an object_id with another row "
        f"(duplicate_object_id: the object_id is not unique), e.g. {shown}"
    )


def _pair_tables(ddf, *, settings: MatchSettings = DEFAULTS) -> PairTables:
    """:func:`pair_tables` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    from dask import delayed

    prep = prepare(ddf, settings)
    distance, tau, overall = settings.distance, float(settings.match_threshold), settings.overall

    # 3. within-item tables per partition
    shared = shared_value(prep.codes)
    outputs = [
        delayed(within_tables, nout=2, pure=True)(
            p, shared, distance=distance, tau=tau, overall=overall, keep_geometry=prep.polygons
        )
        for p in prep.ddf.to_delayed()
    ]
    parts, geometry = run_partitions(outputs, prep.polygons, settings.progress)
    corpus, position, offsets = index_corpus(prep.codes, prep.coverage, parts)
    loc_within, sets_within, cluster_of, counts = _assemble_within(parts, position, offsets)
    del parts

    # 4. chance sample on the corpus-wide index
    store = GeometryStore(geometry, position, offsets) if prep.polygons else None
    sample, sets_between, loc_between = chance_tables(corpus, store, counts, settings)
    halves = (loc_within, loc_between, sets_within, sets_between)
    return assemble(corpus, sample, halves, cluster_of, settings)


@validate_params(engine=False)
def pair_tables(
    ddf,
    *,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> PairTables:
    """Every within-item and between-item table of a dask DataFrame.

    The same tables as :func:`iaa_frames.core.tables.pairs.pair_tables` on ``ddf.compute()``,
    computed partition by partition (see the module notes); they hold integer codes and numbers,
    no geometry, and ``tables.corpus`` holds boxes and codes of every object but no
    polygon.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        A tidy annotation frame (see :func:`iaa_frames.validate`), in any partitioning.
    distance, match_threshold, n_chance, overall, seed
        As in :func:`iaa_frames.core.tables.pairs.pair_tables`.
    progress : bool, optional
        Progress bars over partitions (by default none).

    Returns
    -------
    PairTables

    Examples
    --------
    >>> import dask.dataframe as dd, iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, seed=0)
    >>> t = pair_tables(dd.from_pandas(df, npartitions=3), n_chance=200)
    >>> t.localization_within.equals(iaf.pair_tables(df, n_chance=200).localization_within)
    True
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    ).single()
    return _pair_tables(ddf, settings=settings)


@dataclass(frozen=True, eq=False)
class Prepared:
    """A dask DataFrame made ready for the within-item steps: every item in one partition
    (``ddf``), the corpus-wide codes, the sorted keys of the covered (item, annotator)
    pairs and whether there are polygons."""

    ddf: object
    codes: Codes
    coverage: np.ndarray
    polygons: bool


def prepare(ddf, settings: MatchSettings) -> Prepared:
    """Steps 1 and 2 (the parameters were checked at the boundary): every partition
    validated and summarized, the corpus-wide codes made from the summaries, and the frame
    shuffled on ``item`` when an item's rows lie in several partitions."""
    _require_dask(ddf)
    progress = settings.progress
    from dask import delayed

    summaries = _compute([delayed(summarized)(p) for p in ddf.to_delayed()], "validating", progress)
    coverage_pairs = (
        pd.DataFrame(
            {
                "item": np.concatenate([s["items"][s["cov_item"]] for s in summaries]),
                "annotator": np.concatenate(
                    [s["annotators"][s["cov_annotator"]] for s in summaries]
                ),
            }
        )
        if summaries
        else pd.DataFrame({"item": [], "annotator": []})
    )
    require_comparable(coverage_pairs)
    del coverage_pairs
    _check_object_ids(ddf, summaries)
    repaired = sum(s["repaired"] for s in summaries)
    if repaired:
        warnings.warn(
            RepairedGeometryWarning(
                f"repaired {repaired} invalid polygon(s) with shapely.make_valid"
            ),
            stacklevel=4,
        )
    codes, coverage = make_codes(summaries)
    polygons = any(s["polygons"] for s in summaries)
    if _items_split(summaries):
        # task-based: the polygons are Python objects, which an Arrow-based shuffle refuses
        ddf = ddf.shuffle(on="item", npartitions=ddf.npartitions, shuffle_method="tasks")
    return Prepared(ddf, codes, coverage, polygons)


def shared_value(value):
    """A value every partition's task reads (the corpus-wide codes): sent once to every
    worker of the active client (embedded in the graph it would be sent with it, tens of
    megabytes at millions of items), else a delayed value."""
    from dask import delayed

    client = active_client()
    if client is None:
        return delayed(value, pure=True)
    return client.scatter(value, broadcast=True, hash=False)


def run_partitions(outputs, polygons: bool, progress):
    """Results of the per-partition tasks ``outputs`` (pairs of delayed: results, polygons),
    brought to the driver; the polygons, when there are some, persisted on the workers."""
    import dask

    geometry = [o[1] for o in outputs]
    if polygons:
        geometry = list(dask.persist(*geometry))  # stays on the workers
    return _compute([o[0] for o in outputs], "matching", progress), geometry


def chance_tables(corpus, store, counts, settings: MatchSettings):
    """Step 4: the chance sample drawn on the corpus-wide index with
    :func:`iaa_frames.core.chance.draw` (the same function and seed as in memory), its
    pairings matched by the same pipeline, polygons fetched from ``store``.

    Returns
    -------
    sample : ChanceSample
    sets_between, localization_between : DataFrame
    """
    # a user's callable checked as in memory (a ParameterError naming it and the value)
    dist, tau, overall = (
        engine_distance(settings.distance),
        settings.match_threshold,
        settings.overall,
    )
    ann = corpus.annotations

    def match(slots, pa, pb, sets=True):
        if store is None:
            return run(corpus, slots, pa, pb, tau=tau, distance=dist, overall=overall, sets=sets)
        return run_fetched(
            corpus, store, slots, pa, pb, tau=tau, distance=dist, overall=overall, sets=sets
        )

    sample = chance.draw(
        corpus,
        lambda pa, pb, sets: match(ann, pa, pb, sets=sets),
        counts,
        n_chance=settings.n_chance,
        seed=settings.seed,
        tau=tau,
        reachable=lambda pa, pb: can_match(corpus, ann, pa, pb, tau=tau),
        label_reachable=lambda pa, pb, lab: can_match(
            corpus, corpus.by_label, *to_label_slots(corpus, pa, pb, lab), tau=tau
        ),
        # the class strata's units from the corpus's own shapes (polygons fetched from a
        # store: their pairings matched whole)
        run_units=None
        if store is not None
        else lambda pa, pb, lab: class_units(corpus, ann, pa, pb, lab, tau=tau, distance=dist),
        class_distances=lambda pa, pb, m, rows, lab: (
            class_detection(corpus, ann, pa, pb, m, rows, lab)["detection"],
            match(corpus.by_label, *to_label_slots(corpus, pa[rows], pb[rows], lab)).set_overall,
        ),
    )
    d_idx, d_group, dla, dlb = label_chance_rows(corpus, sample)
    d_restricted = match(corpus.by_label, dla, dlb)
    sets_between, loc_between = between_frames(corpus, sample, d_idx, d_group, d_restricted)
    return sample, sets_between, loc_between
