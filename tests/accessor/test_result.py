"""Tests for ``res.iaa`` (:mod:`iaa_frames.accessor.result`): views take the parameters of
the functions they stand for, slices equal the engine's, the tables are found in the cache
(or attached) and what is computed from them is computed once."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from oracles import component_alpha, component_ks, component_sigma

import iaa_frames as iaf
from iaa_frames.accessor import ResultAccessor
from iaa_frames.api import shortcuts
from iaa_frames.core.engine import memo as cache
from iaa_frames.core.engine import pairwise, pairwise_from_tables
from iaa_frames.core.tables.pairs import pair_tables
from iaa_frames.errors import IAAError, ParameterError
from iaa_frames.explore.compact import agreement_table
from iaa_frames.explore.items import items
from iaa_frames.report import by_annotator, by_label, headline, reading
from iaa_frames.simulate import simulate

PARAMS = dict(n_chance=150, seed=3)


@pytest.fixture(scope="module")
def df():
    return simulate(
        n_items=25, annotators={"ann": "good", "bob": "sloppy", "cyd": "mislabeler"}, seed=8
    )


@pytest.fixture
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


#: view -> the function it stands for (its first parameter is the result or the tables)
VIEWS = {
    "headline": headline,
    "by_label": by_label,
    "by_annotator": by_annotator,
    "reading": reading,
    "sigma": shortcuts.sigma_of,
    "ks": shortcuts.ks_of,
    "alpha": shortcuts.alpha_of,
    "pairwise": pairwise_from_tables,
    "items": items,
    "table": agreement_table,
}


def test_every_view_says_which_function_it_stands_for():
    public = {
        name
        for name, _ in inspect.getmembers(ResultAccessor, inspect.isfunction)
        if not name.startswith("_")
    }
    assert public == set(VIEWS) | {"use_tables"}


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_views_take_the_parameters_and_defaults_of_their_function(view):
    mine = list(inspect.signature(getattr(ResultAccessor, view)).parameters.values())[1:]
    assert all(p.kind is p.KEYWORD_ONLY for p in mine), view
    theirs = dict(list(inspect.signature(VIEWS[view]).parameters.items())[1:])
    for p in mine:  # items() also takes the engine parameters, for a frame: not here
        assert p.name in theirs, (view, p.name)
        assert p.default == theirs[p.name].default, (view, p.name)
    if view != "items":
        assert [p.name for p in mine] == list(theirs), view


def test_slices_equal_the_engine_on_a_fresh_computation(df, tmp_path):
    res = df.iaa.agreement(**PARAMS)
    for component in ("detection", "localization", "overall"):
        xr.testing.assert_identical(
            res.iaa.sigma(component=component), component_sigma(df, component=component, **PARAMS)
        )
        xr.testing.assert_identical(
            res.iaa.ks(component=component), component_ks(df, component=component, **PARAMS)
        )
    for component in ("classification", "detection"):
        xr.testing.assert_identical(
            res.iaa.alpha(component=component), component_alpha(df, component=component, **PARAMS)
        )
    assert str(res.iaa.sigma()["component"].values) == "localization"  # the default shows
    # the result still writes to netCDF (tables_key is a plain string)
    res.to_netcdf(tmp_path / "r.nc")
    back = xr.open_dataset(tmp_path / "r.nc")
    assert back.attrs["tables_key"] == res.attrs["tables_key"]
    assert "headline()" in repr(res.iaa) and "<table>" in res.iaa._repr_html_()


def test_a_result_keeps_its_tables_after_ten_other_computations(df, fresh_cache):
    res = df.iaa.agreement(**PARAMS)
    plain = iaf.agreement(df, **PARAMS)  # not through the cache: it carries them too
    derived = plain.sel(component=["detection", "localization"]).copy(deep=True)
    want = res.iaa.items()
    for seed in range(10, 20):  # ten other computations push every entry out of the cache
        df.iaa.agreement(n_chance=150, seed=seed, n_boot=0)
    assert cache.info()["size"] == cache.MAXSIZE and cache.lookup(res.attrs["tables_key"]) is None
    pd.testing.assert_frame_equal(res.iaa.items(), want)
    pd.testing.assert_frame_equal(plain.iaa.items(), want)
    assert derived.iaa.tables is plain.iaa.tables  # copies share the tables, never copy them
    xr.testing.assert_identical(
        res.iaa.pairwise(component="detection"), pairwise(df, component="detection", **PARAMS)
    )


def test_a_result_read_back_says_where_its_tables_are(df, fresh_cache, tmp_path):
    res = df.iaa.agreement(**PARAMS)
    res.to_netcdf(tmp_path / "r.nc")
    back = xr.open_dataset(tmp_path / "r.nc")
    pd.testing.assert_frame_equal(back.iaa.items(), res.iaa.items())  # still cached
    cache.clear()
    with pytest.raises(IAAError, match="read from a file"):
        back.iaa.pairwise()
    assert pickle.loads(pickle.dumps(res)).encoding.get("iaa_tables").tables == ()
    # attach them again explicitly
    tables = pair_tables(df, **PARAMS)
    got = back.iaa.use_tables(tables).pairwise(component="detection")
    xr.testing.assert_identical(got, pairwise(df, component="detection", **PARAMS))
    with pytest.raises(ParameterError, match="other parameters"):
        back.iaa.use_tables(pair_tables(df, n_chance=150, seed=4))


def test_result_of_a_sweep_views_one_threshold_at_a_time(df, fresh_cache):
    res = df.iaa.agreement(match_threshold=[0.3, 0.5], n_boot=0, **PARAMS)
    for view in ("headline", "by_label", "by_annotator", "reading", "pairwise", "items"):
        with pytest.raises(ParameterError, match=rf"res.sel\(threshold=0.5\).iaa.{view}\(\)"):
            getattr(res.iaa, view)()
    at = res.sel(threshold=0.3)  # finds the tables of τ = 0.3 in the cache
    xr.testing.assert_identical(at.iaa.pairwise(), pairwise(df, match_threshold=0.3, **PARAMS))
    one = df.iaa.agreement(match_threshold=0.3, n_boot=0, **PARAMS)
    pd.testing.assert_frame_equal(at.iaa.items(), one.iaa.items())
    pd.testing.assert_frame_equal(at.iaa.headline(), one.iaa.headline())
    tables = pair_tables(df, match_threshold=0.3, **PARAMS)
    assert at.iaa.use_tables(tables).tables is tables
    with pytest.raises(ParameterError, match="other parameters"):
        at.iaa.use_tables(pair_tables(df, match_threshold=0.5, **PARAMS))


def test_attached_tables_serve_a_result_loaded_from_a_file(df, tmp_path, fresh_cache, monkeypatch):
    df.iaa.agreement(n_boot=0, **PARAMS).to_netcdf(tmp_path / "r.nc")
    back = xr.load_dataset(tmp_path / "r.nc")
    cache.clear()
    with pytest.raises(IAAError, match="not available"):
        back.iaa.items()
    tables = pair_tables(df, **PARAMS)
    calls = []
    real = cache.pairwise_from_tables

    def counting(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "pairwise_from_tables", counting)
    acc = back.iaa.use_tables(tables)
    assert back.iaa is acc  # xarray keeps the accessor of a Dataset: the tables stay
    got = back.iaa.pairwise(component="overall")
    xr.testing.assert_identical(got, pairwise(df, component="overall", **PARAMS))
    back.iaa.pairwise(component="overall")
    assert len(calls) == 1  # computed once from the attached tables
    pd.testing.assert_frame_equal(
        back.iaa.items(top=3, sort="sigma"), items(tables, top=3, sort="sigma")
    )
    assert back.iaa.tables is tables
    assert cache.info()["size"] == 0  # attached tables are not cached for others


def test_bad_input(df):
    with pytest.raises(ParameterError, match="res.iaa works on the agreement result"):
        xr.Dataset({"x": ("a", [1.0])}).iaa.sigma()
    res = df.iaa.agreement(n_boot=0, **PARAMS)
    with pytest.raises(ParameterError, match="component must be one of"):
        res.iaa.ks(component="classification")
    with pytest.raises(ParameterError, match="tables must be PairTables"):
        res.iaa.use_tables(df)
    for top in (0, True, 1.5):
        with pytest.raises(ParameterError, match="top must be a positive integer or None"):
            res.iaa.items(top=top)
    assert len(res.iaa.items(top=np.int64(2))) == 2
