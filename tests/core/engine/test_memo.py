"""Tests for :mod:`iaa_frames.core.engine.memo`: the content digest, the keys (what is and is not
part of them), the least-recently-used bound, entries that cannot be cached, and what an entry
computes once."""

from __future__ import annotations

import pandas as pd
import pytest
import shapely
import xarray as xr

from iaa_frames.api.results import items_of
from iaa_frames.core.engine import agreement
from iaa_frames.core.engine import memo as cache
from iaa_frames.errors import ParameterError, SchemaError
from iaa_frames.explore.items import items
from iaa_frames.geometry.distances import get_distance
from iaa_frames.settings.parameters import MatchSettings
from iaa_frames.simulate import simulate

N = dict(n_chance=40)


@pytest.fixture(scope="module")
def df():
    return simulate(n_items=8, annotators={"a": "good", "b": "sloppy"}, seed=4)


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def entry(df, **kwargs):
    """The entry of ``df`` at the engine parameters ``kwargs`` (checked as the boundary
    checks them)."""
    return cache.entry(df, MatchSettings(**kwargs))


def entries(df, thresholds, **kwargs):
    """The entries of ``df`` at ``thresholds``, in the given order."""
    found = cache.entries_for(df, MatchSettings(match_threshold=list(thresholds), **kwargs))
    at = dict(zip(sorted(set(map(float, thresholds))), found))
    return [at[float(t)] for t in thresholds]


def computed():
    """How many pair tables the cache computed (one miss per threshold computed)."""
    return cache.info()["misses"]


# ------------------------------------------------------------------------------ digest


def test_the_digest_follows_the_content_not_the_index(df):
    digest = cache.frame_digest(df)
    assert cache.frame_digest(df.copy()) == digest
    assert cache.frame_digest(df.set_axis(range(100, 100 + len(df)))) == digest
    assert cache.frame_digest(df.iloc[::-1]) != digest  # row order counts
    assert cache.frame_digest(df.assign(x0=df["x0"] + 1e-9)) != digest
    assert cache.frame_digest(df.rename(columns={"label": "class"})) != digest
    assert cache.frame_digest(df.astype({"x0": "float32"})) != digest


def test_polygons_are_digested_by_their_shape():
    df = simulate(n_items=3, kind="polygon", seed=0)
    same = df.copy()
    same["geometry"] = [shapely.from_wkb(shapely.to_wkb(g)) for g in df["geometry"]]
    assert same["geometry"].iloc[0] is not df["geometry"].iloc[0]
    assert cache.frame_digest(same) == cache.frame_digest(df)
    moved = df.copy()
    moved.loc[moved.index[0], "geometry"] = shapely.affinity.translate(
        df["geometry"].iloc[0], xoff=1.0
    )
    assert cache.frame_digest(moved) != cache.frame_digest(df)


# -------------------------------------------------------------------------------- keys


def test_what_is_part_of_the_key(df):
    e = entry(df, **N)
    assert entry(df.copy(), progress=False, **N) is e  # progress is not
    assert entry(df, match_threshold=0.5000, n_chance=40, seed=0) is e
    others = [
        entry(df, n_chance=41),
        entry(df, seed=1, **N),
        entry(df, overall="per_direction", **N),
        entry(df, distance="iou", **N),
        entry(df, match_threshold=0.6, **N),
    ]
    assert len({id(x) for x in [e, *others]}) == 6
    assert cache.info()["size"] == cache.MAXSIZE  # the oldest left
    assert computed() == 6  # five at 0.5, one at 0.6


def test_a_callable_distance_is_keyed_by_its_identity(df):
    def first(a, b):
        return get_distance("l2")(a, b)

    def second(a, b):
        return get_distance("l2")(a, b)

    e = entry(df, distance=first, **N)
    assert entry(df, distance=first, **N) is e
    assert entry(df, distance=second, **N) is not e


def test_least_recently_used_leaves_first(df):
    kept = entry(df, seed=0, **N)
    keys = [entry(df, seed=seed, **N).key for seed in range(1, cache.MAXSIZE)]
    assert cache.lookup(kept.key) is kept  # used again: now the most recent
    entry(df, seed=99, **N)
    assert cache.lookup(kept.key) is kept
    assert cache.lookup(keys[0]) is None  # seed 1 was the least recently used
    assert all(cache.lookup(k) is not None for k in keys[1:])
    assert cache.info() == {
        "size": cache.MAXSIZE,
        "maxsize": cache.MAXSIZE,
        "hits": 0,
        "misses": cache.MAXSIZE + 1,
    }


def test_entries_keep_the_given_order_and_share_the_single_entries(df):
    e5, e3, e7 = entries(df, [0.5, 0.3, 0.7], **N)
    assert [e.tables.params["match_threshold"] for e in (e5, e3, e7)] == [0.5, 0.3, 0.7]
    assert computed() == 3
    assert cache.entries_for(df, MatchSettings(match_threshold=[0.7, 0.3], **N)) == [e3, e7]
    assert entry(df, match_threshold=0.3, **N) is e3
    assert computed() == 3  # nothing computed again
    # a later sweep computes only what it lacks
    entries(df, [0.3, 0.4], **N)
    assert computed() == 4 and cache.info()["hits"] == 4


def test_the_parameters_are_checked_before_anything_is_computed(df):
    with pytest.raises(ParameterError, match="several thresholds are accepted"):
        entry(df, match_threshold=[0.3, 0.5])
    with pytest.raises(ParameterError, match="n_chance must be an integer >= 1"):
        entries(df, [0.3], n_chance=0)
    assert computed() == 0


# ---------------------------------------------------------------- entries not cached


def test_a_frame_that_cannot_be_digested_is_computed_but_not_kept(df):
    odd = df.assign(extra=[[i] for i in range(len(df))])  # lists: no hash
    e = entry(odd, **N)
    assert e.key == "" and cache.info()["size"] == 0
    res = e.result(n_boot=0, seed=0)
    assert "tables_key" not in res.attrs
    xr.testing.assert_identical(res, agreement(odd, n_boot=0, **N))


def test_not_a_frame_gets_the_error_of_pair_tables():
    with pytest.raises(SchemaError, match="expected a pandas DataFrame, got dict"):
        entry({"item": [1]}, **N)


# ------------------------------------------------------------------ computed once


def test_an_entry_computes_each_result_once_and_hands_out_copies(df):
    e = entry(df, **N)
    first = e.result(n_boot=5, seed=0)
    first.attrs["title"] = "changed by the user"
    first["agreement"].values[:] = 0.0
    second = e.result(n_boot=5, seed=0, progress=False)
    assert len(e.results) == 1 and second.attrs["title"] != "changed by the user"
    xr.testing.assert_identical(second, e.result(n_boot=5, seed=0))
    assert second.attrs["tables_key"] == e.key
    e.result(n_boot=5, seed=1), e.result(n_boot=0, seed=0)
    assert len(e.results) == 3
    table = items_of(e, component="detection", label="car")
    table.loc[0, "item"] = "edited"
    pd.testing.assert_frame_equal(
        items_of(e, component="detection", label="car"),
        items(e.tables, component="detection", label="car"),
    )
    assert len(items_of(e, component="detection", label="car", top=2)) == 2
    assert "1 item table" in repr(e)
