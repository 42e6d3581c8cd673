"""Agreement of a dask DataFrame: corpora larger than one machine's memory.

``iaa_frames.agreement(ddf)`` on a :class:`dask.dataframe.DataFrame` with the tidy schema
gives the Dataset that ``iaa_frames.agreement(ddf.compute())`` gives, with the same
parameters and seed, without building the frame in one process:

* the within-item matching (the bulk of the work: every pair of annotations of every
  item, polygons included) runs partition by partition on the workers, after a shuffle
  on ``item`` when an item's rows are spread over several partitions; each partition
  reduces its within tables to what the statistics need: per item, the sums of every
  cell, and the within distances with their items, annotators and classes in narrow
  types, for the KS tests (:mod:`iaa_frames.dask.cells`);
* the driver keeps an index of the corpus (per object: normalized box, area, codes; no
  polygon, no other column), draws the chance sample from it with the seed, fetching
  from the workers the polygons of the annotations it pairs, and joins the chance half
  of every cell to the merged within half (:mod:`iaa_frames.dask.statistics`);
* the statistics and the bootstrap are those of :func:`iaa_frames.agreement_from_tables`
  (:func:`iaa_frames.core.engine.agreement_from_cells`); the KS tests run a few cells at a
  time, on the workers of a ``dask.distributed`` cluster (:mod:`iaa_frames.dask.ks`),
  each process drawing the replicates' item multiplicities once for all the groups it
  tests (:mod:`iaa_frames.dask.draws`).

The driver holds about 350 bytes per object once the partitions' outputs are merged
(the index, the per-item sums, the within samples; 570 at its peak, while merging),
never the within pair tables; the KS test of a cell runs in one process, with about 140
bytes per within row of the cell (the "(all)" cells hold every matched pair and every
pairing of annotations: a worker needs about 250 bytes per object for them), and every
process that tests cells keeps the replicates' multiplicities while the tests run, 199
bytes per item of the corpus.

It runs on the default local scheduler and on any ``dask.distributed`` cluster (start a
``Client`` first; every ``dask.compute`` then runs there). Needs ``dask[dataframe]``
(``pip install 'iaa-frames[dask]'``); ``distributed`` for a cluster.

=====================  ==========================================================
:func:`agreement`      the agreement Dataset of a dask DataFrame
:func:`pair_tables`    its pair tables (:class:`iaa_frames.PairTables`), the within
                       tables included (gathered in the driver)
:func:`read_parquet`   a directory written by :func:`iaa_frames.to_parquet` as a dask
                       DataFrame, one partition per file
:func:`from_pandas`    a pandas tidy frame as a dask DataFrame, whole items per
                       partition, polygons kept as shapely objects
=====================  ==========================================================
"""

from __future__ import annotations

from iaa_frames.core.tables.pairs import DEFAULT_N_CHANCE
from iaa_frames.geometry.distances import DEFAULT_DISTANCE
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import SINGLE_THRESHOLD, validate_params

from . import statistics
from .frame import from_pandas, read_parquet
from .tables import is_dask_frame, pair_tables

__all__ = [
    "agreement",
    "from_pandas",
    "is_dask_frame",
    "pair_tables",
    "read_parquet",
    "DEFAULT_DISTANCE",
    "DEFAULT_N_CHANCE",
    "SINGLE_THRESHOLD",
]


def agreement_with_settings(
    ddf, *, n_boot: int = DEFAULT_N_BOOT, settings: MatchSettings = DEFAULTS
):
    """:func:`agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    return statistics.agreement(ddf, settings, n_boot=n_boot)


@validate_params(engine=False)
def agreement(
    ddf,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """Chance-corrected agreement of a dask DataFrame, as :func:`iaa_frames.agreement`.

    ``iaa_frames.agreement(ddf, ...)`` calls this for a dask DataFrame.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        A tidy annotation frame, in any partitioning (an item's rows may be spread over
        partitions; they are then shuffled together).
    distance, match_threshold, n_chance, n_boot, seed, overall
        As in :func:`iaa_frames.agreement`; the result equals
        ``iaa_frames.agreement(ddf.compute(), ...)`` with the same values.
    progress : bool, optional
        Progress bars over partitions and for the bootstrap.

    Returns
    -------
    xarray.Dataset
        See :func:`iaa_frames.agreement`.

    Examples
    --------
    >>> import dask.dataframe as dd, iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, seed=0)
    >>> ds = iaf.agreement(dd.from_pandas(df, npartitions=4), n_chance=200, n_boot=0)
    >>> bool(ds.equals(iaf.agreement(df, n_chance=200, n_boot=0)))
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
    return agreement_with_settings(ddf, n_boot=n_boot, settings=settings)
