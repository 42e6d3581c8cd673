"""A result carries the pair tables it was computed from.

An agreement Dataset keeps a reference to its :class:`~iaa_frames.core.tables.pairs.PairTables`
(one per threshold of a sweep) in its ``encoding`` under :data:`ENCODING_KEY`, so that
``res.iaa.items()``, ``res.iaa.pairwise()`` and the figures find them for as long as the
user holds the result, like a fitted estimator holds what it learned, whatever was
computed in between. The reference survives ``sel``, ``isel``, ``copy`` (deep copies share
it: tables are never copied), arithmetic and ``assign``; it is not written by
``to_netcdf`` and not pickled (a result read back or unpickled finds its tables through
the cache key ``tables_key`` while they are cached, or takes them with
``res.iaa.use_tables(tables)``).

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate(n_items=6, seed=0)
>>> t = iaf.pair_tables(df, n_chance=50)
>>> ds = carry(iaf.agreement(df, n_chance=50, n_boot=0), [t])
>>> carried(ds.sel(component="detection").copy(deep=True)).tables[0] is t
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from iaa_frames.settings.thresholds import CARRIED_KEY as ENCODING_KEY

__all__ = ["ENCODING_KEY", "Carried", "carried", "carry"]


class Carried:
    """The pair tables of a result, one per threshold, and their cache entries once made.

    Copies (shallow or deep) are the object itself; a pickled one carries nothing.

    Parameters
    ----------
    tables : sequence of PairTables
        In the order of the result's thresholds.
    entries : sequence of Entry or None, optional
        The :class:`~iaa_frames.core.engine.memo.Entry` of each table, where one exists (the
        views keep what they compute from a result in it).
    """

    __slots__ = ("entries", "tables")

    def __init__(self, tables: Sequence = (), entries: Sequence | None = None):
        self.tables = tuple(tables)
        self.entries = list(entries) if entries is not None else [None] * len(self.tables)

    def __copy__(self) -> Carried:
        return self

    def __deepcopy__(self, memo) -> Carried:
        return self

    def __reduce__(self):
        return (Carried, ())

    def __repr__(self) -> str:
        return f"<Carried: pair tables at τ = {', '.join(f'{t:g}' for t in self.thresholds)}>"

    @property
    def thresholds(self) -> list[float]:
        """The match threshold of each table."""
        return [float(np.ravel(t.params["match_threshold"])[0]) for t in self.tables]

    def index(self, ds: xr.Dataset) -> int | None:
        """Which table belongs to ``ds``: that of its scalar ``threshold`` coordinate (None
        for a result that still has a threshold dimension, or a threshold none of the
        tables has)."""
        if "threshold" not in ds.coords:
            return 0 if len(self.tables) == 1 else None
        if ds["threshold"].ndim:
            return None
        tau = float(ds["threshold"])
        found = [i for i, t in enumerate(self.thresholds) if np.isclose(t, tau)]
        return found[0] if found else None


def carry(ds: xr.Dataset, tables: Sequence, entries: Sequence | None = None) -> xr.Dataset:
    """``ds`` carrying ``tables`` (and their ``entries``), in place; returns ``ds``."""
    ds.encoding[ENCODING_KEY] = Carried(tables, entries)
    return ds


def carried(ds: xr.Dataset) -> Carried | None:
    """The tables ``ds`` carries, or None (computed elsewhere, read from a file)."""
    found = ds.encoding.get(ENCODING_KEY)
    return found if isinstance(found, Carried) and found.tables else None
