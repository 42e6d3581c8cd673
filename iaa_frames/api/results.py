"""The results of the entry points, computed from the cached pair tables.

``df.iaa.agreement()``, ``df.iaa.pairwise()``, ``df.iaa.items()``, ``df.iaa.tables()`` and
the frame functions :func:`iaa_frames.sigma`, :func:`iaa_frames.ks` and
:func:`iaa_frames.alpha` check their parameters once, at the boundary, and pass one
:class:`~iaa_frames.settings.parameters.MatchSettings` to the functions here (which check
nothing again), which take the pair tables of every threshold from
:mod:`iaa_frames.core.engine.memo` (computing the missing ones) and what was computed from them (the
agreement Dataset per ``n_boot`` and seed, the pairwise and item tables). Each equals the
plain function of the same name on a fresh computation.

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.settings.parameters import MatchSettings
>>> df = iaf.simulate(n_items=6, seed=0)
>>> res = agreement(df, MatchSettings(n_chance=50), n_boot=0)
>>> tables(df, MatchSettings(n_chance=50)) is res.iaa.tables
True
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from iaa_frames.core.engine.memo import entries_for
from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.explore.items import items as item_table
from iaa_frames.explore.views import check_top
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings
from iaa_frames.settings.thresholds import concat_thresholds

__all__ = ["agreement", "items", "items_of", "pairwise", "tables"]


def tables(df: pd.DataFrame, settings: MatchSettings = DEFAULTS) -> PairTables:
    """The pair tables of ``df`` at the one threshold of ``settings``, cached
    (``df.iaa.tables()``).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> t = tables(df, MatchSettings(n_chance=50))
    >>> df.iaa.tables(n_chance=50) is t  # the accessor reads the same memo
    True
    """
    return entries_for(df, settings.single())[0].tables


def agreement(
    df: pd.DataFrame, settings: MatchSettings = DEFAULTS, *, n_boot: int = DEFAULT_N_BOOT
) -> xr.Dataset:
    """The agreement Dataset of ``df``, cached (``df.iaa.agreement()``).

    Equal to :func:`iaa_frames.agreement` with the same parameters; its attr
    ``tables_key`` names the cache entry (a space-separated key per threshold for a
    sweep), so that ``res.iaa`` finds the tables while they are cached.

    Parameters
    ----------
    df : pandas.DataFrame
    settings : MatchSettings
        One or several thresholds; ``settings.seed`` also seeds the bootstrap.
    n_boot : int, default 200
        Cluster-bootstrap replicates (0: none).

    Returns
    -------
    xarray.Dataset

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> sweep = agreement(df, MatchSettings(match_threshold=[0.3, 0.5], n_chance=50),
    ...                   n_boot=0)
    >>> sweep.sizes["threshold"], len(sweep.attrs["tables_key"].split())
    (2, 2)
    """
    found = entries_for(df, settings)
    parts = [e.result(n_boot=n_boot, seed=settings.seed, progress=settings.progress) for e in found]
    if not settings.several:
        return parts[0]
    out = concat_thresholds(parts)
    if all(e.key for e in found):  # res.sel(threshold=τ).iaa finds τ's tables
        out.attrs["tables_key"] = " ".join(e.key for e in found)
    return out


def pairwise(
    df: pd.DataFrame,
    settings: MatchSettings = DEFAULTS,
    *,
    component: str = "localization",
    label: str = ALL,
    n_boot: int = DEFAULT_N_BOOT,
    annotators=None,
) -> xr.DataArray:
    """Annotator x annotator agreement of ``df``, cached (``df.iaa.pairwise()``); a
    ``threshold`` dimension for several thresholds; ``n_boot`` replicates for the
    interval; the pairs among ``annotators`` (default: all).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> pairwise(df, MatchSettings(match_threshold=[0.3, 0.5], n_chance=50)).dims
    ('threshold', 'annotator_a', 'annotator_b')
    """
    parts = [
        e.pairwise_of(component=component, label=label, n_boot=n_boot, annotators=annotators)
        for e in entries_for(df, settings)
    ]
    return concat_thresholds(parts) if settings.several else parts[0]


def items(
    df: pd.DataFrame,
    settings: MatchSettings = DEFAULTS,
    *,
    component: str = "localization",
    label: str = ALL,
    top: int | None = None,
    sort: str = "excess",
) -> pd.DataFrame:
    """The item drilldown of ``df`` at one threshold, cached (``df.iaa.items()``).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> len(items(df, MatchSettings(n_chance=50), top=2))
    2
    """
    top = check_top(top)
    e = entries_for(df, settings.single())[0]
    return items_of(e, component=component, label=label, sort=sort, top=top)


def items_of(entry, *, component="localization", label=ALL, sort="excess", top=None):
    """The item drilldown of an entry's tables (:func:`iaa_frames.explore.items.items`),
    computed once per component, label and order; the first ``top`` items.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.engine.memo import entry
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> e = entry(iaf.simulate(n_items=6, seed=0), MatchSettings(n_chance=50))
    >>> items_of(e, top=1) is not items_of(e, top=1), len(e.items)   # copies of one table
    (True, 1)
    """
    table = entry.keep(
        entry.items,
        (component, label, sort),
        lambda: item_table(entry.tables, component=component, label=label, sort=sort),
    )
    return table if top is None else table.head(top)
