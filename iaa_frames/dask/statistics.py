"""The agreement of a dask DataFrame, from per-partition sums.

1. Every partition is validated and summarized; the driver makes the corpus-wide codes
   and shuffles the frame on ``item`` when an item's rows lie in several partitions
   (:func:`iaa_frames.dask.tables.prepare`).
2. Every partition runs the within-item matching and reduces its within tables to what
   the statistics need (:func:`iaa_frames.dask.cells.partition_statistics`): per item,
   the sums of every cell; the within rows of the sigma components, in narrow types,
   for the KS tests; its objects' boxes and codes for the index. Its polygons stay on
   the worker.
3. The driver draws the chance sample on the corpus-wide index
   (:func:`iaa_frames.dask.tables.chance_tables`, the function and seed of the in-memory
   path), joins the chance half of the cells to the merged within half
   (:func:`iaa_frames.dask.cells.merge_cells`) and computes the Dataset with
   :func:`iaa_frames.core.engine.agreement_from_cells`, the statistics step of the in-memory
   path.

The driver holds the index of the corpus (about 100 bytes an object), the per-item sums
(about 130 bytes an object) and the within samples (about 50 bytes an object), never the
pair tables (about 400 bytes an object).
"""

from __future__ import annotations

import contextlib

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.aligned import DEFAULT_N_ALIGNED, aligned_units
from iaa_frames.core.engine import agreement_from_cells
from iaa_frames.core.tables.pairs import table_params
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, MatchSettings

from .cells import (
    between_tables,
    merge_cells,
    merge_samples,
    partition_statistics,
    pooled_from_sample,
)
from .draws import forget_multiplicities
from .geometry import GeometryStore
from .index import index_corpus
from .tables import (
    active_client,
    chance_tables,
    merge_counts,
    prepare,
    run_partitions,
    shared_value,
)

__all__ = ["agreement"]


def agreement(ddf, settings: MatchSettings, *, n_boot: int = DEFAULT_N_BOOT):
    """Chance-corrected agreement of a dask DataFrame, as :func:`iaa_frames.agreement`,
    at the one threshold of ``settings`` (checked at the boundary:
    :func:`iaa_frames.dask.agreement`).

    Examples
    --------
    >>> import dask.dataframe as dd, iaa_frames as iaf
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> df = iaf.simulate(n_items=20, seed=0)
    >>> ds = agreement(dd.from_pandas(df, npartitions=4), MatchSettings(n_chance=200), n_boot=20)
    >>> bool(ds.equals(iaf.agreement(df, n_chance=200, n_boot=20)))
    True
    """
    from dask import delayed

    distance, overall, seed = settings.distance, settings.overall, settings.seed
    match_threshold, progress = settings.match_threshold, settings.progress
    prep = prepare(ddf, settings)
    tau = float(match_threshold)
    codes = prep.codes
    shared = shared_value(codes)
    outputs = [
        delayed(partition_statistics, nout=2, pure=True)(
            p, shared, distance=distance, tau=tau, overall=overall, keep_geometry=prep.polygons
        )
        for p in prep.ddf.to_delayed()
    ]
    parts, geometry = run_partitions(outputs, prep.polygons, progress)
    del outputs
    corpus, position, offsets = index_corpus(codes, prep.coverage, parts)
    counts = merge_counts(parts)
    samples = merge_samples(
        parts, position, offsets, n_annotators=len(codes.annotators), n_labels=len(codes.labels)
    )

    store = GeometryStore(geometry, position, offsets) if prep.polygons else None
    sample, sets_between, loc_between = chance_tables(corpus, store, counts, settings)
    # a thin population's aligned units (iaa_frames.core.chance.aligned), as in memory, where
    # the driver holds every shape (no polygons: those stay on the workers)
    aligned = None
    if store is None and int(loc_between["in_uniform"].sum()) < 2 * MIN_CHANCE_UNITS:
        aligned = aligned_units(corpus, settings, n_target=DEFAULT_N_ALIGNED)
    del store, geometry
    del position
    pooled, source = pooled_from_sample(corpus, samples["localization"], loc_between, sample)
    params = table_params(corpus, sample, settings)
    between = between_tables(corpus, sets_between, loc_between, pooled, source, params, aligned)
    del sample
    cells, presence = merge_cells(parts, between, samples, progress=progress)
    del parts
    try:
        label_alpha = cells.pop("label_alpha")
        return agreement_from_cells(
            between,
            cells,
            presence,
            label_alpha=label_alpha,
            n_boot=n_boot,
            seed=seed,
            progress=progress,
        )
    finally:  # the KS tests' replicates, kept by every process that ran groups of cells
        forget_multiplicities()
        client = active_client()
        if client is not None:
            # a cache: a cluster that cannot run it (lost while the tests ran) must not
            # hide the error that ends the computation
            with contextlib.suppress(Exception):
                client.run(forget_multiplicities)
