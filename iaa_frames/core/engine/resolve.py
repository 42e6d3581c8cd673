"""From what a view is given to what it needs: one function, :func:`entry_of`.

A view (``iaf.conflicts``, ``iaf.items``, the figures, ``res.iaa.pairwise``, the report)
is given a tidy annotation frame, pair tables, or an agreement result; :func:`entry_of`
turns any of them into the :class:`~iaa_frames.core.engine.memo.Entry` of their pair tables,
through the memo (:mod:`iaa_frames.core.engine.memo`): a frame's tables are computed once per
content and parameters; a result carries the tables it was computed from
(:mod:`iaa_frames.core.engine.carry`), or, read back from a file, names them in its attr
``tables_key`` while they are cached. :func:`tables_of` is its tables.

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.settings.parameters import MatchSettings
>>> df = iaf.simulate(n_items=6, seed=0)
>>> tables_of(df, MatchSettings(n_chance=50)) is tables_of(df.copy(), MatchSettings(n_chance=50))
True
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import IAAError, ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings
from iaa_frames.settings.thresholds import has_threshold_dim, nearest_threshold

from .carry import carried
from .memo import MAXSIZE, Entry, entry, lookup

__all__ = ["POOLED", "entry_of", "one_threshold", "require_dims", "tables_of", "with_pooled"]

#: The dimensions of an agreement result whose "(all)" cell a view reads (by default).
POOLED = ("label", "annotator")


def one_threshold(ds: xr.Dataset, view: str) -> xr.Dataset:
    """``ds``, which must be of one threshold (no ``threshold`` dimension) for ``view``.

    >>> import iaa_frames as iaf
    >>> sweep = iaf.agreement(iaf.simulate(n_items=4, seed=0), n_chance=20, n_boot=0,
    ...                       match_threshold=[0.3, 0.5])
    >>> one_threshold(sweep, "items()")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: this result has a threshold dimension (τ = 0.3, 0.5); .iaa.items() needs one threshold: select it first, e.g. res.sel(threshold=0.5).iaa.items() (res.iaa.plot.threshold_curve() draws every threshold)
    """
    if has_threshold_dim(ds):
        taus = ds["threshold"].values
        raise ParameterError(
            f"this result has a threshold dimension (τ = "
            f"{', '.join(f'{t:g}' for t in taus)}); .iaa.{view} needs one threshold: "
            f"select it first, e.g. res.sel(threshold={nearest_threshold(taus):g})"
            f".iaa.{view} (res.iaa.plot.threshold_curve() draws every threshold)"
        )
    return ds


def require_dims(ds: xr.Dataset, dims, view: str) -> None:
    """A ParameterError when a dimension of an agreement result was selected away:
    ``res.sel(label="car")`` keeps ``label`` as a scalar coordinate, and every view that
    reads it by name failed inside xarray.

    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=4, seed=0), n_chance=20, n_boot=0)
    >>> require_dims(res.sel(label="car"), ("label",), ".iaa.headline()")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: .iaa.headline() needs the result's 'label' dimension: selecting one label (res.sel(label='car')) drops the dimension; keep it with a list, res.sel(label=['(all)', 'car'])
    """
    for d in dims:
        if d not in ds.dims:
            one = ds[d].values.item() if d in ds.coords and ds[d].ndim == 0 else None
            kept = [one] if d == "component" else [ALL, one]  # no pooled component
            how = (
                f"selecting one {d} (res.sel({d}={one!r})) drops the dimension; keep it "
                f"with a list, res.sel({d}={kept!r})"
                if one is not None
                else "this Dataset is not an agreement result"
            )
            raise ParameterError(f"{view} needs the result's {d!r} dimension: {how}")


def with_pooled(ds: xr.Dataset, view: str, pooled=POOLED) -> xr.Dataset:
    """``ds`` with its ``label`` and ``annotator`` dimensions (:func:`require_dims`) and
    the ``"(all)"`` cell of every dimension of ``pooled``, which ``view`` reads.

    >>> import iaa_frames as iaf
    >>> res = iaf.agreement(iaf.simulate(n_items=4, seed=0), n_chance=20, n_boot=0)
    >>> with_pooled(res.sel(annotator=["A", "B"]), "headline()")
    Traceback (most recent call last):
    ...
    iaa_frames.errors.ParameterError: .iaa.headline() reads the '(all)' annotator (pooled over every annotator), which this result no longer holds (its annotators: A, B); keep it in the selection, e.g. res.sel(annotator=['(all)', ...])
    """
    require_dims(ds, ("label", "annotator"), f".iaa.{view}")
    for d in pooled:
        names = [str(v) for v in ds[d].values]
        if ALL not in names:
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            raise ParameterError(
                f".iaa.{view} reads the {ALL!r} {d} (pooled over every {d}), which this "
                f"result no longer holds (its {d}s: {shown}); keep it in the selection, "
                f"e.g. res.sel({d}=[{ALL!r}, ...])"
            )
    return ds


def _of_result(ds: xr.Dataset, view: str) -> Entry:
    """The entry of the tables a result Dataset carries (:mod:`iaa_frames.core.engine.carry`),
    else the cached entry it names in its attr ``tables_key`` (one key per threshold for
    a sweep, of which ``ds`` must hold one)."""
    held = carried(ds)
    if held is not None:
        i = held.index(ds)
        if i is None:
            one_threshold(ds, view)  # a sweep: say to select one threshold
        else:
            if held.entries[i] is None:  # computed by iaf.agreement: keep views with it
                held.entries[i] = Entry("", held.tables[i])
            return held.entries[i]
    keys = str(ds.attrs.get("tables_key", "")).split()
    if len(keys) > 1:  # a sweep: one key per threshold, in the order of match_threshold
        one_threshold(ds, view)
        taus = [float(t) for t in np.atleast_1d(ds.attrs.get("match_threshold", []))]
        tau = float(ds["threshold"]) if "threshold" in ds.coords else None
        keys = [keys[taus.index(tau)]] if tau in taus and len(taus) == len(keys) else []
    found = lookup(keys[0]) if keys else None
    if found is None:
        raise IAAError(
            "the pair tables of this result are not available: it was read from a file "
            "or unpickled (a result carries its tables only in memory), or built by "
            f"other means, and its tables are not among the last {MAXSIZE} cached. "
            "Recompute with df.iaa.agreement(...) or attach tables with "
            "res.iaa.use_tables(df.iaa.tables(...))."
        )
    return found


def entry_of(data, settings: MatchSettings = DEFAULTS, *, view: str = "tables") -> Entry:
    """The one way from what a view is given to the entry it needs.

    Parameters
    ----------
    data : pandas.DataFrame, PairTables, xarray.Dataset or Entry
        A tidy annotation frame: its cached entry at ``settings`` (computed once);
        pair tables: an entry of them, not cached; an agreement result of
        ``df.iaa.agreement()``: the cached entry it names (attr ``tables_key``); an
        entry: itself.
    settings : MatchSettings
        Checked at the boundary; used for a frame only (one threshold).
    view : str
        The view asking, for the message when a result's tables are not available.

    Returns
    -------
    Entry

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> e = entry_of(df, MatchSettings(n_chance=50))
    >>> entry_of(df.iaa.agreement(n_chance=50, n_boot=0)) is e   # its result names e
    True
    >>> entry_of(e.tables).tables is e.tables
    True
    """
    if isinstance(data, Entry):
        return data
    if isinstance(data, PairTables):
        return Entry("", data)
    if isinstance(data, xr.Dataset):
        return _of_result(data, view)
    if isinstance(data, pd.DataFrame):
        return entry(data, settings)
    raise ParameterError(
        f"data must be a tidy annotation frame or PairTables; got {type(data).__name__}"
    )


def tables_of(data, settings: MatchSettings = DEFAULTS) -> PairTables:
    """The pair tables of ``data`` (:func:`entry_of`): a frame's cached tables at
    ``settings``, or the tables given, or those of an agreement result.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> t = iaf.pair_tables(iaf.simulate(n_items=3, seed=0), n_chance=20)
    >>> tables_of(t) is t
    True
    """
    return entry_of(data, settings).tables
