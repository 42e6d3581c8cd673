"""Pair tables computed once per frame and reused: a small LRU cache keyed by content.

Matching and the chance sample (:func:`iaa_frames.core.tables.pairs.pair_tables`) are the expensive
part of every figure; everything else (agreement, bootstrap, pairwise tables, item
drilldown, plots) is computed from the tables in milliseconds. Every entry point that
takes a frame (``iaf.sigma``, ``iaf.conflicts``, ``df.iaa.*``, the plots, the report)
therefore keeps the tables of the last few frames here, keyed by a digest of the frame's
*content* (every column's values, names and dtypes, polygons by their WKB) and the
parameters. Editing the frame changes the digest, so a stale entry is never used. The
digest of a frame object is computed once while the frame is unchanged
(:class:`~iaa_frames.frame.unchanged.Snapshot`: any value written, by pandas or into a
column's array, is seen; an object held in a cell and changed in place, a list appended
to, is not).

The agreement Dataset, the pairwise tables and the item tables computed from one entry's
tables are kept with it (:meth:`Entry.result`, :meth:`Entry.pairwise_of`,
:meth:`Entry.keep`). A result Dataset records its entry in the attr ``tables_key`` (a
plain string: ``to_netcdf`` still works), which is how ``res.iaa`` finds its tables.

:func:`entries_for` takes one :class:`~iaa_frames.settings.parameters.MatchSettings`
(checked at the boundary) and gives one entry per threshold; :func:`entry` the entry of
one threshold. :func:`iaa_frames.core.engine.resolve.entry_of` is the one way from "a frame,
pair tables or a result" to the entry a view needs. What the entry points compute from the
entries is in :mod:`iaa_frames.api.results`.

At most :data:`MAXSIZE` entries are kept (least recently used first out); :func:`clear`
empties the cache and :func:`info` reports it.

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.core.engine import memo as cache
>>> from iaa_frames.settings.parameters import MatchSettings
>>> df = iaf.simulate(n_items=6, seed=0)
>>> e1 = cache.entry(df, MatchSettings(n_chance=50))
>>> e2 = cache.entry(df.copy(), MatchSettings(n_chance=50))   # same content: the same entry
>>> e1 is e2
True
>>> cache.entry(df, MatchSettings(n_chance=60)) is e1         # other parameters: another
False
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import pandas as pd
import xarray as xr

from iaa_frames.core.tables.pairs import PairTables, iter_tables_from, pair_tables_from
from iaa_frames.frame.schema import ALL
from iaa_frames.frame.unchanged import FrameMemo, Snapshot
from iaa_frames.geometry.distances import get_distance
from iaa_frames.geometry.kinds.registry import similarity_settings
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings

from .assemble import agreement_from_tables
from .carry import carry
from .pairwise import pairwise_from_tables

__all__ = [
    "MAXSIZE",
    "Entry",
    "cached",
    "clear",
    "entries_for",
    "entry",
    "frame_digest",
    "info",
    "lookup",
]

#: Largest number of (frame, parameters) entries kept.
MAXSIZE = 4

_LOCK = threading.RLock()
_ENTRIES: OrderedDict[str, Entry] = OrderedDict()
_STATS = {"hits": 0, "misses": 0}


@dataclass(eq=False)
class Entry:
    """The pair tables of one (frame, parameters) and what was computed from them.

    An entry with an empty ``key`` is not cached (its frame could not be digested): what
    its methods compute is not kept beyond the entry itself.

    Attributes
    ----------
    key : str
        Digest of the frame's content and the parameters ("" for an entry not cached).
    tables : PairTables
    results : dict
        ``(n_boot, seed) -> xarray.Dataset`` (the agreement results).
    pairwise : dict
        ``(component, label) -> xarray.DataArray``.
    items : dict
        ``(component, label, sort) -> pandas.DataFrame`` (the item drilldown tables,
        kept by :meth:`keep`).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> clear()                                   # a fresh entry for this example
    >>> e = entry(iaf.simulate(n_items=6, seed=0), MatchSettings(n_chance=50))
    >>> e.result(n_boot=0, seed=0).attrs["tables_key"] == e.key
    True
    >>> e.pairwise_of(component="detection").dims
    ('annotator_a', 'annotator_b')
    >>> len(e.results), len(e.pairwise)
    (1, 1)
    """

    key: str
    tables: PairTables
    results: dict = field(default_factory=dict)
    pairwise: dict = field(default_factory=dict)
    items: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"<cache.Entry {self.key[:12]}: {len(self.results)} result(s), "
            f"{len(self.pairwise)} pairwise, {len(self.items)} item table(s)>"
        )

    def result(
        self,
        *,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int = DEFAULTS.seed,
        progress: bool | None = DEFAULTS.progress,
    ) -> xr.Dataset:
        """The agreement Dataset of these tables
        (:func:`iaa_frames.core.engine.agreement_from_tables`), computed once per ``n_boot``
        and ``seed``; its attr ``tables_key`` names this entry."""
        key = (n_boot, seed)
        if key not in self.results:
            ds = agreement_from_tables(self.tables, n_boot=n_boot, seed=seed, progress=progress)
            if self.key:
                ds.attrs["tables_key"] = self.key
            self.results[key] = ds
        return carry(self.results[key].copy(), [self.tables], [self])

    def pairwise_of(
        self,
        *,
        component: str = "localization",
        label: str = ALL,
        n_boot: int = DEFAULT_N_BOOT,
        seed: int | None = None,
        annotators=None,
    ) -> xr.DataArray:
        """Annotator x annotator agreement of these tables, with ``n_boot`` bootstrap
        replicates for its interval, seeded by ``seed`` (default: the tables' seed), of
        the pairs among ``annotators`` (default: all)
        (:func:`iaa_frames.core.engine.pairwise_from_tables`), computed once per component,
        label, ``n_boot``, ``seed`` and ``annotators``."""
        chosen = None if annotators is None else tuple(sorted({str(a) for a in annotators}))
        return self.keep(
            self.pairwise,
            (component, label, n_boot, seed, chosen),
            lambda: pairwise_from_tables(
                self.tables,
                component=component,
                label=label,
                n_boot=n_boot,
                seed=seed,
                annotators=chosen,
            ),
        )

    def keep(self, store: dict, key, compute):
        """``store[key]`` (one of :attr:`results`, :attr:`pairwise`, :attr:`items`),
        computed once with ``compute()``; a copy is returned.

        >>> import pandas as pd
        >>> e = Entry("", tables=None)
        >>> e.keep(e.items, "x", lambda: pd.DataFrame({"a": [1]}))["a"].tolist()
        [1]
        """
        try:
            hash(key)
        except TypeError:  # a list where a name goes: the computation's own check says so
            return compute().copy()
        if key not in store:
            store[key] = compute()
        return store[key].copy()


def _column_digest(values: pd.Series) -> bytes:
    if values.dtype == object:
        import shapely

        geoms = values.to_numpy()
        try:
            if all(g is None or isinstance(g, shapely.Geometry) for g in geoms[:64]):
                wkb = shapely.to_wkb(geoms, hex=False, include_srid=False)
                values = pd.Series(wkb, dtype=object)
        except (TypeError, shapely.errors.GEOSException):
            pass  # not only geometries: hash the values as pandas does
    return pd.util.hash_pandas_object(values, index=False).to_numpy().tobytes()


#: the digests of frames, each with the snapshot of its frame when it was computed
_DIGESTS = FrameMemo()


def frame_digest(df: pd.DataFrame) -> str:
    """A digest of a frame's content: column names, dtypes and values (row order counts,
    the index does not).

    Computed once per frame object while it is unchanged
    (:class:`~iaa_frames.frame.unchanged.Snapshot`): every ``df.iaa`` call asks for the
    digest of its frame again (1M boxes: 210 ms to compute, 38 ms to tell the frame
    unchanged).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"x": [1.0, 2.0]})
    >>> frame_digest(a) == frame_digest(a.copy()), frame_digest(a) == frame_digest(a * 2)
    (True, False)
    >>> before = frame_digest(a)
    >>> a.loc[0, "x"] = 3.0
    >>> frame_digest(a) == before
    False
    """
    known = _DIGESTS.entry(df)
    if known is not None and known[0].matches(df):
        return known[1]
    snapshot = Snapshot.of(df)  # before the digest: a change while it runs is not missed
    digest = _digest(df)
    if snapshot is not None:
        _DIGESTS.store(df, (snapshot, digest))
    return digest


def _digest(df: pd.DataFrame) -> str:
    """:func:`frame_digest`, computed."""
    h = hashlib.blake2b(digest_size=20)
    h.update(repr([(str(c), str(t)) for c, t in df.dtypes.items()]).encode())
    h.update(str(len(df)).encode())
    for col in df.columns:
        h.update(_column_digest(df[col]))
    return h.hexdigest()


def _key(digest: str, s: MatchSettings, tau: float) -> str:
    """The key of a frame's digest, the settings and one of their thresholds (``progress``
    is not part of it), and the settings of the kinds' own similarities."""
    d = s.distance
    # a registered name, or a user callable: its identity (two lambdas are not the same)
    name = d if isinstance(d, str) else f"{get_distance(d).name}@{id(d):x}"
    text = repr(
        (digest, name, float(tau), int(s.n_chance), str(s.overall), int(s.seed))
        + (similarity_settings(),)
    )
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def lookup(key: str) -> Entry | None:
    """The entry of ``key`` if it is still cached (marking it recently used), else None.

    Examples
    --------
    >>> lookup("no such key") is None
    True
    """
    with _LOCK:
        found = _ENTRIES.get(str(key))
        if found is not None:
            _ENTRIES.move_to_end(found.key)
        return found


def _store(key: str, tables: PairTables) -> Entry:
    made = Entry(key, tables)
    with _LOCK:
        _STATS["misses"] += 1
        _ENTRIES[key] = made
        _ENTRIES.move_to_end(key)
        while len(_ENTRIES) > MAXSIZE:
            _ENTRIES.popitem(last=False)
    return made


def entries_for(df: pd.DataFrame, settings: MatchSettings = DEFAULTS) -> list[Entry]:
    """The entries of ``df`` at every threshold of ``settings``, computing the missing
    pair tables once.

    One threshold: :func:`iaa_frames.core.tables.pairs.pair_tables`. Several (a sequence of
    ``match_threshold``): the missing ones together with
    :func:`iaa_frames.core.tables.pairs.pair_tables_by_threshold` (the frame prepared once, polygon
    pair values shared), each equal to the entry of its threshold alone. Only the last
    :data:`MAXSIZE` stay cached. A frame whose content cannot be digested (e.g. a column
    of lists) or an object that is not a DataFrame gets entries that are not cached
    (empty ``key``): :func:`~iaa_frames.core.tables.pairs.pair_tables` says what is wrong with it.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    settings : MatchSettings
        The engine parameters, validated (``progress`` is not part of the key).

    Returns
    -------
    list of Entry
        One per threshold, in increasing order of τ (``settings.thresholds``).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.settings.parameters import MatchSettings
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> e3, e5 = entries_for(df, MatchSettings(match_threshold=[0.5, 0.3], n_chance=50))
    >>> entries_for(df, MatchSettings(n_chance=50))[0] is e5
    True
    """
    taus = settings.thresholds
    try:
        # a frame with a duplicated column name is not cached: pair_tables refuses it
        usable = isinstance(df, pd.DataFrame) and df.columns.is_unique
        digest = frame_digest(df) if usable else ""
    except (TypeError, ValueError):  # unhashable values: pair_tables says what is wrong
        digest = ""
    keys = [_key(digest, settings, t) if digest else "" for t in taus]
    found = [lookup(k) if k else None for k in keys]
    missing = [i for i, f in enumerate(found) if f is None]
    _STATS["hits"] += len(taus) - len(missing)
    if not missing:
        return found
    if settings.several:
        computed = list(iter_tables_from(df, [taus[i] for i in missing], settings))
    else:
        computed = [pair_tables_from(df, settings)]
    for i, tables in zip(missing, computed):
        found[i] = _store(keys[i], tables) if keys[i] else Entry("", tables)
    return found


def entry(df: pd.DataFrame, settings: MatchSettings = DEFAULTS) -> Entry:
    """The cached entry of ``df`` at the one threshold of ``settings``, computing the pair
    tables once (:func:`entries_for`).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> entry(df, MatchSettings(n_chance=50)) is entry(df, MatchSettings(n_chance=50))
    True
    """
    return entries_for(df, settings.single())[0]


def cached() -> list[Entry]:
    """The entries kept, least recently used first.

    Examples
    --------
    >>> clear(); cached()
    []
    """
    with _LOCK:
        return list(_ENTRIES.values())


def clear() -> None:
    """Empty the cache.

    Examples
    --------
    >>> clear(); info()["size"]
    0
    """
    with _LOCK:
        _ENTRIES.clear()
        _STATS.update(hits=0, misses=0)


def info() -> dict:
    """Size, maximum size, hits and misses of the cache.

    Examples
    --------
    >>> sorted(info())
    ['hits', 'maxsize', 'misses', 'size']
    """
    with _LOCK:
        return {"size": len(_ENTRIES), "maxsize": MAXSIZE, **_STATS}
