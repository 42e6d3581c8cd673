"""Pair tables computed once per frame and reused: a small LRU cache keyed by content.

Matching and the chance sample (:func:`iaa_frames.pairs.pair_tables`) are the expensive
part of every figure; everything else (agreement, bootstrap, pairwise tables, item
drilldown, plots) is computed from the tables in milliseconds. The ``df.iaa`` accessor
therefore keeps the tables of the last few frames here, keyed by a digest of the frame's
*content* (every column's values, names and dtypes, polygons by their WKB) and the
parameters. Editing the frame changes the digest, so a stale entry is never used.

The agreement Dataset, the pairwise tables and the item tables computed from one entry's
tables are kept with it. A result Dataset records its entry in the attr ``tables_key`` (a
plain string: ``to_netcdf`` still works), which is how ``res.iaa`` finds its tables.

At most :data:`MAXSIZE` entries are kept (least recently used first out); :func:`clear`
empties the cache and :func:`info` reports it.

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames import cache
>>> df = iaf.simulate(n_items=6, seed=0)
>>> e1 = cache.entry(df, n_chance=50)
>>> e2 = cache.entry(df.copy(), n_chance=50)    # same content: the same entry
>>> e1 is e2
True
>>> cache.entry(df, n_chance=60) is e1          # other parameters: another entry
False
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import pandas as pd

from .distances import get_distance
from .pairs import PairTables, pair_tables, pair_tables_by_threshold
from .settings import DEFAULTS

__all__ = ["MAXSIZE", "Entry", "clear", "entries", "entry", "frame_digest", "info", "lookup"]

#: Largest number of (frame, parameters) entries kept.
MAXSIZE = 4

_LOCK = threading.RLock()
_ENTRIES: OrderedDict[str, Entry] = OrderedDict()
_STATS = {"hits": 0, "misses": 0}


@dataclass(eq=False)
class Entry:
    """The pair tables of one (frame, parameters) and what was computed from them.

    Attributes
    ----------
    key : str
        Digest of the frame's content and the parameters.
    tables : PairTables
    results : dict
        ``(n_boot, seed) -> xarray.Dataset`` (the agreement results).
    pairwise : dict
        ``(component, label) -> xarray.DataArray``.
    items : dict
        ``component -> pandas.DataFrame`` (the item drilldown tables).
    """

    key: str
    tables: PairTables
    results: dict = field(default_factory=dict)
    pairwise: dict = field(default_factory=dict)
    items: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f"<cache.Entry {self.key[:12]}: {len(self.results)} result(s), "
                f"{len(self.pairwise)} pairwise, {len(self.items)} item table(s)>")


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


def frame_digest(df: pd.DataFrame) -> str:
    """A digest of a frame's content: column names, dtypes and values (row order counts,
    the index does not).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"x": [1.0, 2.0]})
    >>> frame_digest(a) == frame_digest(a.copy()), frame_digest(a) == frame_digest(a * 2)
    (True, False)
    """
    h = hashlib.blake2b(digest_size=20)
    h.update(repr([(str(c), str(t)) for c, t in df.dtypes.items()]).encode())
    h.update(str(len(df)).encode())
    for col in df.columns:
        h.update(_column_digest(df[col]))
    return h.hexdigest()


def _params(distance, match_threshold, n_chance, overall, seed) -> dict:
    return dict(distance=distance, match_threshold=match_threshold, n_chance=n_chance,
                overall=overall, seed=seed)


def _key(digest: str, params: dict) -> str:
    d = params["distance"]
    # a registered name, or a user callable: its identity (two lambdas are not the same)
    name = d if isinstance(d, str) else f"{get_distance(d).name}@{id(d):x}"
    text = repr((digest, name, float(params["match_threshold"]), int(params["n_chance"]),
                 str(params["overall"]), int(params["seed"])))
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


def entry(df: pd.DataFrame, *, distance=DEFAULTS.distance, match_threshold: float = DEFAULTS.match_threshold,
          n_chance: int = DEFAULTS.n_chance, overall: str = DEFAULTS.overall, seed: int = DEFAULTS.seed,
          progress: bool | None = DEFAULTS.progress) -> Entry:
    """The cached entry of ``df`` and the parameters, computing the pair tables once.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    distance, match_threshold, n_chance, overall, seed, progress
        As in :func:`iaa_frames.pairs.pair_tables` (``progress`` is not part of the key).

    Returns
    -------
    Entry
    """
    params = _params(distance, match_threshold, n_chance, overall, seed)
    if not isinstance(df, pd.DataFrame):  # pair_tables raises the project's error for it
        return Entry("", pair_tables(df, progress=progress, **params))
    try:
        key = _key(frame_digest(df), params)
    except (TypeError, ValueError):  # bad parameter values: let pair_tables say why
        return Entry("", pair_tables(df, progress=progress, **params))
    found = lookup(key)
    if found is not None:
        _STATS["hits"] += 1
        return found
    return _store(key, pair_tables(df, progress=progress, **params))


def _store(key: str, tables: PairTables) -> Entry:
    made = Entry(key, tables)
    with _LOCK:
        _STATS["misses"] += 1
        _ENTRIES[key] = made
        _ENTRIES.move_to_end(key)
        while len(_ENTRIES) > MAXSIZE:
            _ENTRIES.popitem(last=False)
    return made


def entries(df: pd.DataFrame, *, thresholds, distance=DEFAULTS.distance,
            n_chance: int = DEFAULTS.n_chance, overall: str = DEFAULTS.overall, seed: int = DEFAULTS.seed,
            progress: bool | None = DEFAULTS.progress) -> list[Entry]:
    """The entries of ``df`` at several match thresholds (one per threshold, in the given
    order), computing the missing ones together with
    :func:`iaa_frames.pairs.pair_tables_by_threshold` (the frame prepared once, polygon
    pair values shared). Each is the entry :func:`entry` gives for that threshold; only the
    last :data:`MAXSIZE` stay cached.

    Parameters
    ----------
    df : pandas.DataFrame
    thresholds : sequence of float
        Checked values (:func:`iaa_frames.thresholds.check_thresholds`).
    distance, n_chance, overall, seed, progress
        As in :func:`entry`.

    Returns
    -------
    list of Entry

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=6, seed=0)
    >>> e3, e5 = entries(df, thresholds=[0.3, 0.5], n_chance=50)
    >>> entry(df, match_threshold=0.5, n_chance=50) is e5
    True
    """
    thresholds = [float(t) for t in thresholds]
    params = [_params(distance, t, n_chance, overall, seed) for t in thresholds]
    try:
        digest = frame_digest(df) if isinstance(df, pd.DataFrame) else None
        keys = [_key(digest, p) if digest is not None else "" for p in params]
    except (TypeError, ValueError):  # bad parameter values: let pair_tables say why
        keys = [""] * len(params)
    found = [lookup(k) if k else None for k in keys]
    missing = [i for i, f in enumerate(found) if f is None]
    if missing:
        computed = pair_tables_by_threshold(
            df, thresholds=[thresholds[i] for i in missing], distance=distance,
            n_chance=n_chance, overall=overall, seed=seed, progress=progress)
        by_tau = {t.params["match_threshold"]: t for t in computed}
        for i in missing:
            tables = by_tau[thresholds[i]]
            found[i] = _store(keys[i], tables) if keys[i] else Entry("", tables)
    _STATS["hits"] += len(thresholds) - len(missing)
    return found


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
